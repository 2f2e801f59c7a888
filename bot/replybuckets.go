package bot

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// Interaction replies (the callback, edits of @original, follow-ups) go
// through discordgo's REST path (its retries of 502s and 429s, its errors)
// but not through its choice of rate-limit bucket, which is wrong for
// them twice over:
//
//   - discordgo keys a bucket by route and keeps every bucket it ever made.
//     A callback's route holds the interaction's id and token, so each
//     interaction would leave a bucket behind (some 420 bytes, see
//     BenchmarkReplyRetained) for as long as the bot runs.
//   - Edits and deletes of @original and of follow-ups all share one key
//     (…/webhooks//), and discordgo holds a bucket's lock for the whole
//     round trip: every reply edit, across all interactions, would wait
//     for the one before it.
//
// So replies share replySlots buckets of discordgo's own limiter, keyed
// "interaction:<slot>": a fixed number, made once each. An interaction's
// routes are its own at Discord (exempt from the global limit, limited per
// token), so a slot stands for a fresh route each time it is taken; only
// discordgo's global limit can hold a reply up. A slot carries one request
// at a time; a reply takes its interaction's slot (a hash of the id), or
// when that one is busy the next free one, so concurrent replies do not
// wait for each other unless replySlots of them are in flight.

// replySlots is how many rate-limit buckets interaction replies share: as
// many as replies that can be in flight without waiting for each other.
const replySlots = 256

// respond sends the interaction's initial response: discordgo's
// InteractionRespond through a reply slot.
func (c *call) respond(resp *discordgo.InteractionResponse, options ...discordgo.RequestOption) error {
	endpoint := discordgo.EndpointInteractionResponse(c.i.ID, c.i.Token)
	if resp.Data != nil && len(resp.Data.Files) > 0 {
		contentType, body, err := discordgo.MultipartBodyWithJSON(resp, resp.Data.Files)
		if err != nil {
			return err
		}
		_, err = c.request(http.MethodPost, endpoint, contentType, body, options...)
		return err
	}
	body, err := discordgo.Marshal(*resp)
	if err != nil {
		return err
	}
	_, err = c.request(http.MethodPost, endpoint, "application/json", body, options...)
	return err
}

// editOriginal edits the interaction's reply (@original): discordgo's
// InteractionResponseEdit through a reply slot.
func (c *call) editOriginal(data *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	uri := discordgo.EndpointWebhookMessage(c.i.AppID, c.i.Token, "@original")
	var response []byte
	if len(data.Files) > 0 {
		contentType, body, err := discordgo.MultipartBodyWithJSON(data, data.Files)
		if err != nil {
			return nil, err
		}
		if response, err = c.request(http.MethodPatch, uri, contentType, body, options...); err != nil {
			return nil, err
		}
	} else {
		body, err := discordgo.Marshal(data)
		if err != nil {
			return nil, err
		}
		if response, err = c.request(http.MethodPatch, uri, "application/json", body, options...); err != nil {
			return nil, err
		}
	}
	var m *discordgo.Message
	if err := unmarshalReply(response, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// followup sends a follow-up message: discordgo's FollowupMessageCreate
// through a reply slot. The message is nil unless wait is set.
func (c *call) followup(wait bool, data *discordgo.WebhookParams, options ...discordgo.RequestOption) (*discordgo.Message, error) {
	uri := discordgo.EndpointWebhookToken(c.i.AppID, c.i.Token)
	if wait {
		uri += "?wait=true"
	}
	var (
		response []byte
		err      error
	)
	if len(data.Files) > 0 {
		contentType, body, encErr := discordgo.MultipartBodyWithJSON(data, data.Files)
		if encErr != nil {
			return nil, encErr
		}
		response, err = c.request(http.MethodPost, uri, contentType, body, options...)
	} else {
		body, encErr := discordgo.Marshal(data)
		if encErr != nil {
			return nil, encErr
		}
		response, err = c.request(http.MethodPost, uri, "application/json", body, options...)
	}
	if !wait || err != nil {
		return nil, err
	}
	var m *discordgo.Message
	if err := unmarshalReply(response, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// unmarshalReply decodes a reply's returned message as discordgo does
// (its error wraps discordgo.ErrJSONUnmarshal).
func unmarshalReply(data []byte, v any) error {
	if err := discordgo.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s", discordgo.ErrJSONUnmarshal, err)
	}
	return nil
}

// request sends one interaction-reply request through a reply slot's
// bucket; discordgo's RequestWithLockedBucket releases it (and retries
// 502s and 429s through it, as for any route).
func (c *call) request(method, uri, contentType string, body []byte, options ...discordgo.RequestOption) ([]byte, error) {
	bucket, err := c.replyBucket()
	if err != nil {
		return nil, err
	}
	return c.s.RequestWithLockedBucket(method, uri, contentType, body, bucket, 0, options...)
}

// replyBucket takes a reply slot's bucket, locked, as discordgo's
// LockBucket takes a route's, for a route it has never seen: nothing in
// the bucket (another interaction's rate-limit headers) holds it up, a
// global rate limit does, waited out while c.ctx allows.
func (c *call) replyBucket() (*discordgo.Bucket, error) {
	rl := c.s.Ratelimiter
	home := slotOf(c.i.ID)
	var bucket *discordgo.Bucket
	for n := range replySlots {
		b := rl.GetBucket(slotKey((home + n) % replySlots))
		if b.TryLock() {
			bucket = b
			break
		}
	}
	if bucket == nil { // every slot carries a request: wait for this one's
		bucket = rl.GetBucket(slotKey(home))
		bucket.Lock()
	}
	bucket.Remaining = 1 // a fresh route's: only the global limit can wait
	if wait := rl.GetWaitTime(bucket, 1); wait > 0 {
		if err := sleepCtx(c.ctx, wait); err != nil {
			bucket.Unlock()
			return nil, fmt.Errorf("wait out the global rate limit: %w", err)
		}
	}
	bucket.Remaining--
	return bucket, nil
}

// slotOf is the reply slot an interaction tries first: the FNV-1a hash of
// its id.
func slotOf(id string) int {
	h := uint32(2166136261)
	for i := 0; i < len(id); i++ {
		h ^= uint32(id[i])
		h *= 16777619
	}
	return int(h % replySlots)
}

// slotKey is the discordgo bucket key of reply slot n, "interaction:<n>"
// (made in one allocation: it is made for every reply).
func slotKey(n int) string {
	var buf [len("interaction:") + 3]byte
	return string(strconv.AppendInt(append(buf[:0], "interaction:"...), int64(n), 10))
}
