package bot

import (
	"reflect"
	"sort"
)

// ReplySlots is how many rate-limit buckets interaction replies share.
const ReplySlots = replySlots

// RateLimitBuckets returns the keys of the buckets that discordgo's rate
// limiter of b's REST session holds, sorted. It reads the limiter's
// unexported map: discordgo has no other way to see it. Call it after Run
// returned (Run sets the session).
func RateLimitBuckets(b *Bot) []string {
	rl := b.sess.Ratelimiter
	rl.Lock()
	defer rl.Unlock()
	m := reflect.ValueOf(rl).Elem().FieldByName("buckets")
	keys := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	return keys
}
