package bot_test

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/quizhost/quizhost/internal/discordtest"
)

// BenchmarkAnswerRoundTrip measures what a member waits for: from the
// interaction leaving the (local) Discord server to the graded reply
// arriving back, through the real gateway, discordgo, the bot, a durable
// commit and the REST callback. Each op is one member's answer; members
// answer `writers` at a time.
func BenchmarkAnswerRoundTrip(b *testing.B) {
	for _, writers := range []int{1, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			e := newEnv(b, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
			e.start()
			p := e.srv.SlashCommand(guildID, channelID, alice, "quiz", sub("ask", str("bank", "Test Bank"), integer("minutes", 10000)))
			e.reply(p)
			posts, err := e.db.OpenPosts()
			if err != nil || len(posts) != 1 {
				b.Fatalf("open posts %v, %v", posts, err)
			}
			post := posts[0]
			lat := make([]time.Duration, b.N)
			var next sync.Mutex
			n := 0
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						next.Lock()
						i := n
						n++
						next.Unlock()
						if i >= b.N {
							return
						}
						m := discordtest.Member{ID: fmt.Sprint(100000 + i), Username: fmt.Sprintf("m%d", i)}
						pend := e.srv.Component(guildID, channelID, m, fmt.Sprint(post.MessageID), fmt.Sprintf("a1:%d", post.ID), post.Correct...)
						r := pend.WaitResponse(b, 30*time.Second)
						lat[i] = r.Latency
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "answers/s")
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			e.stop()
		})
	}
}
