package bot

import (
	"maps"
	"reflect"
	"slices"
	"sort"

	"github.com/quizhost/quizhost/bot/internal/discord"
)

// ReplySlots is how many rate-limit buckets interaction replies share.
const ReplySlots = discord.ReplySlots

// RateLimitBuckets returns the keys of the buckets that discordgo's rate
// limiter of b's REST session holds, sorted. It reads the limiter's
// unexported map: discordgo has no other way to see it. Call it after Run
// returned.
func RateLimitBuckets(b *Bot) []string {
	rl := b.conn.RateLimiter()
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

// AdminInteraction is an interaction of the table that needs Manage
// Server (for the member it is made as): a command by its Path
// ("quizadmin daily set") with the options it suggests for, or a button
// or menu, or a form (Modal), by a CustomID.
type AdminInteraction struct {
	Path     string
	Suggests []string
	CustomID string
	Modal    bool
}

// AdminInteractions walks b's interaction table for every route that can
// need Manage Server. The custom IDs carry ids' value for each field
// named so ("draft", "confirmation", …), 1 for the others.
func AdminInteractions(b *Bot, ids map[string]uint64) []AdminInteraction {
	var out []AdminInteraction
	for _, r := range b.table.routes {
		if r.command != "" && r.access.admin() {
			out = append(out, AdminInteraction{Path: r.command, Suggests: slices.Sorted(maps.Keys(r.suggest))})
		}
		for _, set := range []struct {
			list  []component
			modal bool
		}{{r.components, false}, {r.modals, true}} {
			for _, c := range set.list {
				if !c.access.admin() {
					continue
				}
				id := c.kind.sample(1)
				for field, v := range ids {
					if fd, ok := idFields[field]; ok {
						fd.parse(formatID(v), &id)
					}
				}
				out = append(out, AdminInteraction{CustomID: c.kind.id(id), Modal: set.modal})
			}
		}
	}
	return out
}

// WithDemoRoute adds the test-only /quiz demo (demo_test.go) to b's
// interaction table. Call it between New and Run.
func WithDemoRoute(b *Bot) error {
	t, err := newTable(append(routes(), demoRoute()))
	if err != nil {
		return err
	}
	b.table = t
	return nil
}
