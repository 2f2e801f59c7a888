package bot

import (
	"context"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot/internal/discord"
	"github.com/quizhost/quizhost/questions"
)

// queueRefresh asks the refresher to update a post's live count.
func (b *Bot) queueRefresh(postID questions.PostID) {
	select {
	case b.refresh <- postID:
	default: // the refresher is behind; the next answer will queue again
	}
}

// refresher edits the live answer count of posts that got answers, at most
// once per RefreshEvery for all of them together, so bursts of answers cost
// one edit per post.
func (b *Bot) refresher(ctx context.Context) {
	dirty := map[questions.PostID]bool{}
	tick := time.NewTicker(b.cfg.RefreshEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-b.refresh:
			dirty[id] = true
		case <-tick.C:
			var wg sync.WaitGroup
			for id := range dirty {
				delete(dirty, id)
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := b.refreshCount(ctx, id)
					switch {
					case err == nil || ctx.Err() != nil:
					case discord.Permanent(err): // 403 or 404: retrying would hit it again each tick
						b.log.Warn("live answer count given up: the question's message can't be edited", "post", id, "err", err)
					default:
						b.log.Warn("refresh answer count", "post", id, "err", err)
						b.queueRefresh(id) // try again next tick (a 429, say)
					}
				}()
			}
			wg.Wait()
		}
	}
}

// refreshCount edits an open post's answer count into its message.
func (b *Bot) refreshCount(ctx context.Context, postID questions.PostID) error {
	mu := b.postLock(postID)
	mu.Lock()
	defer mu.Unlock()
	post, err := b.store.Post(postID)
	if err != nil || post.Closed || post.MessageID == 0 {
		return nil // gone or closed: the reveal shows the final count
	}
	content := openContent(post)
	return b.out.Edit(ctx, &discordgo.MessageEdit{
		Channel: formatID(post.ChannelID), ID: formatID(post.MessageID), Content: &content, AllowedMentions: noPings(),
	})
}
