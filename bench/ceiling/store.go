package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/questions"
)

var _ bot.Store = (*store)(nil)

// store is the ceiling's bot.Store: it keeps the posts the bot creates, in
// memory, so that answers find their question, and records nothing else.
// RecordAnswer checks and grades an answer as storage does (the choice
// against the post, questions.GradeChoice) and stores nothing: no answer,
// tally, score or streak. Settings are the defaults with RevealOnAnswer
// off, so that the bot's reply to an answer is one line (or, with reveal,
// on as in quizhost's defaults: the same reply as quizhost's). The rest answers
// with nothing: no banks of the guild's own, no daily schedule, no
// scores. Safe for concurrent use.
type store struct {
	reveal bool // RevealOnAnswer as quizhost's defaults have it
	mu     sync.RWMutex
	posts  map[questions.PostID]questions.Post
	next   questions.PostID
}

func newStore(reveal bool) *store {
	return &store{reveal: reveal, posts: map[questions.PostID]questions.Post{}}
}

// Settings are the defaults, without the reveal on answer unless the store
// was made with it.
func (s *store) Settings(guildID questions.GuildID) (questions.Settings, error) {
	set := questions.DefaultSettings(guildID)
	set.RevealOnAnswer = s.reveal
	return set, nil
}

func (s *store) UpdateSettings(_ context.Context, guildID questions.GuildID, fn func(*questions.Settings) error) (questions.Settings, error) {
	set, _ := s.Settings(guildID)
	if err := fn(&set); err != nil {
		return questions.Settings{}, err
	}
	return set, nil // not kept
}

func (s *store) DailyGuilds() ([]questions.Settings, error) { return nil, nil }

func (s *store) ClaimDaily(context.Context, questions.GuildID, time.Time, time.Time, string) (bool, error) {
	return false, nil
}

func (s *store) DailyFailed(context.Context, questions.GuildID, string) error { return nil }

func (s *store) CreatePost(_ context.Context, p questions.Post) (questions.Post, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	p.ID = s.next
	if len(p.Tallies) != p.OptionCount {
		p.Tallies = make([]int, p.OptionCount)
	}
	s.posts[p.ID] = p
	return clonePost(p), nil
}

// CreateAsk is CreatePost: the ceiling's questions are an admin's, held to
// no member's limits.
func (s *store) CreateAsk(ctx context.Context, p questions.Post, _ questions.AskLimits) (questions.Post, error) {
	return s.CreatePost(ctx, p)
}

func (s *store) LastAsk(questions.GuildID, questions.UserID) (time.Time, error) {
	return time.Time{}, nil
}

func (s *store) SetPostMessage(_ context.Context, postID questions.PostID, messageID questions.MessageID) error {
	return s.change(postID, func(p *questions.Post) { p.MessageID = messageID })
}

func (s *store) DeletePost(_ context.Context, postID questions.PostID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.posts, postID)
	return nil
}

func (s *store) Post(postID questions.PostID) (questions.Post, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.posts[postID]
	if !ok {
		return questions.Post{}, fmt.Errorf("post %d: %w", postID, questions.ErrNotFound)
	}
	return clonePost(p), nil
}

func (s *store) OpenPosts() ([]questions.Post, error) {
	return s.find(func(p questions.Post) bool { return !p.Closed })
}

func (s *store) OpenPostsIn(guildID questions.GuildID, channelID questions.ChannelID) ([]questions.Post, error) {
	return s.find(func(p questions.Post) bool { return !p.Closed && p.GuildID == guildID && p.ChannelID == channelID })
}

func (s *store) ClosePost(_ context.Context, postID questions.PostID, at time.Time) (questions.Post, bool, error) {
	var out questions.Post
	closed := false
	err := s.change(postID, func(p *questions.Post) {
		if !p.Closed {
			p.Closed, p.ClosedAt, closed = true, at, true
		}
		out = clonePost(*p)
	})
	return out, closed, err
}

func (s *store) MarkRevealed(_ context.Context, postID questions.PostID) error {
	return s.change(postID, func(p *questions.Post) { p.Revealed = true })
}

func (s *store) SetRevealSent(_ context.Context, postID questions.PostID, sent int) error {
	return s.change(postID, func(p *questions.Post) { p.RevealSent = max(p.RevealSent, sent) })
}

func (s *store) UnrevealedPosts() ([]questions.Post, error) {
	return s.find(func(p questions.Post) bool { return p.Closed && !p.Revealed })
}

func (s *store) Asked(questions.GuildID) (map[string]bool, error) { return map[string]bool{}, nil }

func (s *store) ForgetAsked(context.Context, questions.GuildID, []string) error { return nil }

// RecordAnswer refuses what storage refuses about the answer itself (an
// unknown or closed post, another guild's post, a choice that does not fit
// the post) and grades the rest; it stores nothing, so it cannot tell a
// member's second answer from their first.
func (s *store) RecordAnswer(_ context.Context, a questions.Answer) (questions.Answer, error) {
	p, err := s.Post(a.PostID)
	if err != nil {
		return questions.Answer{}, fmt.Errorf("record answer: %w", err)
	}
	if p.GuildID != a.GuildID {
		return questions.Answer{}, fmt.Errorf("record answer: post %d: %w", p.ID, questions.ErrWrongGuild)
	}
	if p.Closed || !p.ClosesAt.IsZero() && !a.At.Before(p.ClosesAt) {
		return questions.Answer{}, fmt.Errorf("record answer: post %d: %w", p.ID, questions.ErrClosed)
	}
	choice, err := questions.NormalizeChoice(a.Choice, p.OptionCount, p.SelectCount)
	if err != nil {
		return questions.Answer{}, fmt.Errorf("record answer: %w", err)
	}
	a.Choice = choice
	a.Grade = questions.GradeChoice(p.Correct, choice)
	return a, nil
}

func (s *store) Answer(postID questions.PostID, userID questions.UserID) (questions.Answer, error) {
	return questions.Answer{}, fmt.Errorf("answer of member %d to post %d: %w", userID, postID, questions.ErrNotFound)
}

func (s *store) Leaderboard(guildID questions.GuildID, p questions.Period, r questions.Ranking, _ time.Time, _, _ int) (questions.Leaderboard, error) {
	return questions.Leaderboard{}, nil
}

func (s *store) Standing(questions.GuildID, questions.UserID, questions.Period, questions.Ranking, time.Time) (questions.Standing, error) {
	return questions.Standing{}, nil
}

func (s *store) MemberStats(questions.GuildID, questions.UserID, time.Time) (questions.MemberStats, error) {
	return questions.MemberStats{}, nil
}

func (s *store) ActiveStreaks(questions.GuildID, time.Time, int) ([]questions.Score, error) {
	return nil, nil
}

func (s *store) SaveBanks(context.Context, questions.GuildID, []questions.BankFile, questions.DraftID) error {
	return nil
}

func (s *store) Banks(questions.GuildID) ([]questions.BankFile, error) { return nil, nil }

func (s *store) EditBanks(context.Context, questions.GuildID, questions.BankEdit) error { return nil }

func (s *store) BankVersions(questions.GuildID) ([]questions.BankVersion, error) { return nil, nil }

func (s *store) SaveConfirmation(_ context.Context, c questions.Confirmation) (questions.Confirmation, error) {
	return c, nil
}

func (s *store) Confirmation(guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error) {
	return questions.Confirmation{}, fmt.Errorf("confirmation %d: %w", id, questions.ErrNotFound)
}

func (s *store) TakeConfirmation(_ context.Context, guildID questions.GuildID, id questions.ConfirmationID) (questions.Confirmation, error) {
	return questions.Confirmation{}, fmt.Errorf("confirmation %d: %w", id, questions.ErrNotFound)
}

func (s *store) SaveDraft(_ context.Context, d questions.Draft) (questions.Draft, error) {
	return d, nil
}

func (s *store) Draft(guildID questions.GuildID, id questions.DraftID) (questions.Draft, error) {
	return questions.Draft{}, fmt.Errorf("draft %d: %w", id, questions.ErrNotFound)
}

func (s *store) DeleteDraft(context.Context, questions.GuildID, questions.DraftID) error { return nil }

func (s *store) Suggestions(questions.GuildID) ([]questions.Draft, error) { return nil, nil }

func (s *store) ResetGuild(context.Context, questions.GuildID) error { return nil }

func (s *store) ResetMember(context.Context, questions.GuildID, questions.UserID) error { return nil }

// change applies fn to a kept post.
func (s *store) change(postID questions.PostID, fn func(*questions.Post)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.posts[postID]
	if !ok {
		return fmt.Errorf("post %d: %w", postID, questions.ErrNotFound)
	}
	fn(&p)
	s.posts[postID] = p
	return nil
}

// find returns the kept posts that keep says, in id order.
func (s *store) find(keep func(questions.Post) bool) ([]questions.Post, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []questions.Post
	for _, p := range s.posts {
		if keep(p) {
			out = append(out, clonePost(p))
		}
	}
	slices.SortFunc(out, func(a, b questions.Post) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func clonePost(p questions.Post) questions.Post {
	p.Tags, p.Correct, p.Tallies = slices.Clone(p.Tags), slices.Clone(p.Correct), slices.Clone(p.Tallies)
	return p
}

// The study and report features record nothing either: no memories, no
// reviews, no drills, no exam dates, no reports.

func (s *store) Memories(questions.GuildID, questions.UserID) ([]questions.Memory, error) {
	return nil, nil
}

func (s *store) GroupMemories(questions.GuildID, []questions.UserID, []string) ([]questions.Memory, error) {
	return nil, nil
}

func (s *store) Players(questions.GuildID, time.Time) ([]questions.UserID, error) { return nil, nil }

func (s *store) OpenQuestions(guildID questions.GuildID) (map[string]bool, error) {
	open := map[string]bool{}
	posts, err := s.find(func(p questions.Post) bool { return p.GuildID == guildID && !p.Closed })
	for _, p := range posts {
		open[p.QuestionID] = true
	}
	return open, err
}

func (s *store) ReviewQueue(questions.GuildID, questions.UserID, time.Time, func(string) bool, questions.ExamPlan) (questions.ReviewQueue, error) {
	return questions.ReviewQueue{}, nil
}

func (s *store) StartReview(context.Context, questions.Review) (questions.Review, error) {
	return questions.Review{}, questions.ErrNotFound
}

func (s *store) Review(questions.GuildID, questions.ReviewID) (questions.Review, error) {
	return questions.Review{}, questions.ErrNotFound
}

func (s *store) RecordReview(context.Context, questions.Answer) (questions.Answer, error) {
	return questions.Answer{}, questions.ErrNotFound
}

func (s *store) SetExamDate(context.Context, questions.ExamDate) error { return nil }

func (s *store) ExamDate(questions.GuildID, questions.UserID) (questions.ExamDate, error) {
	return questions.ExamDate{}, questions.ErrNotFound
}

func (s *store) SaveDrill(context.Context, questions.Drill) error { return nil }

func (s *store) Drill(questions.GuildID, questions.UserID) (questions.Drill, error) {
	return questions.Drill{}, questions.ErrNotFound
}

func (s *store) AddReport(_ context.Context, r questions.Report) (questions.Report, error) {
	return r, nil
}

func (s *store) Reports(questions.GuildID) ([]questions.Report, error) { return nil, nil }

func (s *store) CloseReport(context.Context, questions.GuildID, questions.ReportID) error { return nil }

func (s *store) Regrade(context.Context, questions.GuildID, string, []string, int) (questions.Regraded, error) {
	return questions.Regraded{}, questions.ErrNotFound
}

func (s *store) QuestionStats(questions.GuildID, string) ([]questions.QuestionStats, error) {
	return nil, nil
}

func (s *store) StatsVersion(questions.GuildID) (uint64, error) { return 0, nil }

func (s *store) QuestionStat(questions.GuildID, uint32) (questions.QuestionStats, error) {
	return questions.QuestionStats{}, questions.ErrNotFound
}

func (s *store) QuestionNumbers(context.Context, questions.GuildID, []string) (map[string]uint32, error) {
	return map[string]uint32{}, nil
}

func (s *store) DismissFlags(context.Context, questions.GuildID, uint32) error {
	return questions.ErrNotFound
}

func (s *store) StartMock(context.Context, questions.Mock) (questions.Mock, error) {
	return questions.Mock{}, questions.ErrNotFound
}

func (s *store) LatestMock(questions.GuildID, questions.UserID) (questions.Mock, error) {
	return questions.Mock{}, questions.ErrNotFound
}

func (s *store) Mock(questions.GuildID, questions.UserID, questions.MockID) (questions.Mock, error) {
	return questions.Mock{}, questions.ErrNotFound
}

func (s *store) Mocks(questions.GuildID, questions.UserID, int) ([]questions.Mock, error) {
	return nil, nil
}

func (s *store) UpdateMock(context.Context, questions.GuildID, questions.UserID, questions.MockID, func(*questions.Mock) error) (questions.Mock, error) {
	return questions.Mock{}, questions.ErrNotFound
}

func (s *store) MocksDue() ([]questions.MockDue, error) { return nil, nil }

func (s *store) MockNotified(context.Context, questions.GuildID, questions.UserID, questions.MockID) error {
	return nil
}

func (s *store) BankExams(questions.GuildID) (map[string]questions.Exam, error) {
	return map[string]questions.Exam{}, nil
}

func (s *store) SetBankExam(context.Context, questions.GuildID, string, questions.Exam) error {
	return nil
}
