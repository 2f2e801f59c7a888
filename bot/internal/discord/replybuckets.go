package discord

import (
	"context"
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
// So replies share ReplySlots buckets of discordgo's own limiter, keyed
// "interaction:<slot>": a fixed number, made once each. An interaction's
// routes are its own at Discord (exempt from the global limit, limited per
// token), so a slot stands for a fresh route each time it is taken; only
// discordgo's global limit can hold a reply up. A slot carries one request
// at a time; a reply takes its interaction's slot (a hash of the id), or
// when that one is busy the next free one, so concurrent replies do not
// wait for each other unless ReplySlots of them are in flight.

// ReplySlots is how many rate-limit buckets interaction replies share: as
// many as replies that can be in flight without waiting for each other.
const ReplySlots = 256

// Respond sends interaction i's initial response (a message, an update
// of the message of its component, a deferral, a form or autocomplete
// choices): discordgo's InteractionRespond through a reply slot, under
// ctx. A response with files is sent as multipart.
func (c *Client) Respond(ctx context.Context, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	endpoint := discordgo.EndpointInteractionResponse(i.ID, i.Token)
	if resp.Data != nil && len(resp.Data.Files) > 0 {
		contentType, body, err := discordgo.MultipartBodyWithJSON(resp, resp.Data.Files)
		if err != nil {
			return err
		}
		_, err = c.reply(ctx, i, http.MethodPost, endpoint, contentType, body)
		return err
	}
	body, err := discordgo.Marshal(*resp)
	if err != nil {
		return err
	}
	_, err = c.reply(ctx, i, http.MethodPost, endpoint, "application/json", body)
	return err
}

// EditReply replaces interaction i's response (its @original: the
// message sent, or the one a deferral promised): discordgo's
// InteractionResponseEdit through a reply slot, under ctx. Files, if any,
// are attached (multipart).
func (c *Client) EditReply(ctx context.Context, i *discordgo.Interaction, data *discordgo.WebhookEdit) error {
	uri := discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original")
	var response []byte
	if len(data.Files) > 0 {
		contentType, body, err := discordgo.MultipartBodyWithJSON(data, data.Files)
		if err != nil {
			return err
		}
		if response, err = c.reply(ctx, i, http.MethodPatch, uri, contentType, body); err != nil {
			return err
		}
	} else {
		body, err := discordgo.Marshal(data)
		if err != nil {
			return err
		}
		if response, err = c.reply(ctx, i, http.MethodPatch, uri, "application/json", body); err != nil {
			return err
		}
	}
	var m *discordgo.Message
	return unmarshalReply(response, &m)
}

// FollowUp sends a follow-up message of interaction i, after its
// response: discordgo's FollowupMessageCreate (with wait=true, so that
// Discord answers once the message is in) through a reply slot, under
// ctx. Files, if any, are attached (multipart).
func (c *Client) FollowUp(ctx context.Context, i *discordgo.Interaction, data *discordgo.WebhookParams) error {
	uri := discordgo.EndpointWebhookToken(i.AppID, i.Token) + "?wait=true"
	var (
		response []byte
		err      error
	)
	if len(data.Files) > 0 {
		contentType, body, encErr := discordgo.MultipartBodyWithJSON(data, data.Files)
		if encErr != nil {
			return encErr
		}
		response, err = c.reply(ctx, i, http.MethodPost, uri, contentType, body)
	} else {
		body, encErr := discordgo.Marshal(data)
		if encErr != nil {
			return encErr
		}
		response, err = c.reply(ctx, i, http.MethodPost, uri, "application/json", body)
	}
	if err != nil {
		return err
	}
	var m *discordgo.Message
	return unmarshalReply(response, &m)
}

// unmarshalReply decodes a reply's returned message as discordgo does
// (its error wraps discordgo.ErrJSONUnmarshal).
func unmarshalReply(data []byte, v any) error {
	if err := discordgo.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s", discordgo.ErrJSONUnmarshal, err)
	}
	return nil
}

// reply sends one request of interaction i's replies through a reply
// slot's bucket, under ctx; discordgo's RequestWithLockedBucket releases
// it (and retries 502s and 429s through it, as for any route).
func (c *Client) reply(ctx context.Context, i *discordgo.Interaction, method, uri, contentType string, body []byte) ([]byte, error) {
	bucket, err := c.replyBucket(ctx, i.ID)
	if err != nil {
		return nil, err
	}
	return c.rest.RequestWithLockedBucket(method, uri, contentType, body, bucket, 0, discordgo.WithContext(ctx))
}

// replyBucket takes a reply slot's bucket for interaction id, locked, as
// discordgo's LockBucket takes a route's, for a route it has never seen:
// nothing in the bucket (another interaction's rate-limit headers) holds
// it up, a global rate limit does, waited out while ctx allows.
func (c *Client) replyBucket(ctx context.Context, id string) (*discordgo.Bucket, error) {
	rl := c.rest.Ratelimiter
	home := slotOf(id)
	var bucket *discordgo.Bucket
	for n := range ReplySlots {
		b := rl.GetBucket(slotKey((home + n) % ReplySlots))
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
		if err := sleepCtx(ctx, wait); err != nil {
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
	return int(h % ReplySlots)
}

// slotKey is the discordgo bucket key of reply slot n, "interaction:<n>"
// (made in one allocation: it is made for every reply).
func slotKey(n int) string {
	var buf [len("interaction:") + 3]byte
	return string(strconv.AppendInt(append(buf[:0], "interaction:"...), int64(n), 10))
}
