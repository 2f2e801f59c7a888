package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/quizhost/quizhost/questions"
)

// Mock exams (/quiz mock): guilds/<g>/mocks/<user><mock> holds each
// attempt of a member, open or ended, with its questions, their keys and
// the member's answers (JSON); the bucket's sequence numbers the guild's
// attempts. The latest attempt of a member is the only one that may be
// open (StartMock refuses a second).
//
// mockdue/<guild><user><mock> → deadline indexes the attempts the
// scheduler must act on at their deadline: each open attempt (to end it
// then), and each that ended by its deadline until its result is sent to
// the member (MockNotified). An attempt the member finishes leaves it in
// the transaction that ends it. Both buckets are created on first use.
//
// An attempt's answers count for the member's memory of its questions
// when it ends, in that transaction, as review answers rated at its end:
// the attempt then takes the next number of the guild's answers sequence
// (stored as its "seq"), and each answered question becomes a mock answer
// in the member's answer record of it (answerrec.go: the attempt's ID,
// that number, the end, right or wrong), counted into the record's card,
// so that the card's History holds it and a rebuild (rebuildMemory)
// replays it in its place among the answers. They never count for scores.

// mockRec is how an attempt is stored (JSON).
type mockRec struct {
	Bank     string        `json:"bank"`
	Pass     string        `json:"pass"` // questions.PassMark.String
	Domains  []string      `json:"domains,omitempty"`
	Started  time.Time     `json:"started"`
	Deadline time.Time     `json:"deadline"`
	Finished time.Time     `json:"finished,omitzero"`
	TimedOut bool          `json:"timedOut,omitempty"`
	Seen     bool          `json:"seen,omitempty"`
	Current  int           `json:"current,omitempty"`
	Seq      uint64        `json:"seq,omitempty"` // the answers sequence number taken at the end
	Items    []mockItemRec `json:"items"`
}

// mockItemRec is one question of an attempt.
type mockItemRec struct {
	Question string `json:"q"`
	Domain   string `json:"d,omitempty"`
	Key      string `json:"k"` // the correct letters, "BC"
	Options  int    `json:"n"`
	Choice   string `json:"c,omitempty"` // the member's letters, "B"
	Flagged  bool   `json:"f,omitempty"`
}

func letters(ls []string) string { return strings.Join(ls, "") }

func splitLetters(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "")
}

func encodeMock(m questions.Mock, seq uint64) ([]byte, error) {
	r := mockRec{Bank: m.Bank, Pass: m.Pass.String(), Domains: m.Domains, Started: m.StartedAt.UTC(), Deadline: m.Deadline.UTC(),
		Finished: m.FinishedAt.UTC(), TimedOut: m.TimedOut, Seen: m.Seen, Current: m.Current, Seq: seq,
		Items: make([]mockItemRec, len(m.Items))}
	if m.FinishedAt.IsZero() {
		r.Finished = time.Time{}
	}
	for i, it := range m.Items {
		r.Items[i] = mockItemRec{Question: it.QuestionID, Domain: it.Domain, Key: letters(it.Correct), Options: it.OptionCount,
			Choice: letters(it.Choice), Flagged: it.Flagged}
	}
	return json.Marshal(r)
}

// decodeMock reads the attempt at key <user><mock> of the guild; it
// returns the record's seq too.
func decodeMock(guildID questions.GuildID, k, v []byte) (questions.Mock, uint64, error) {
	var r mockRec
	if len(k) != 16 {
		return questions.Mock{}, 0, fmt.Errorf("mock key %x: not <user><mock>", k)
	}
	id := getID[questions.MockID](k[8:])
	if err := json.Unmarshal(v, &r); err != nil {
		return questions.Mock{}, 0, fmt.Errorf("mock %d: %w", id, err)
	}
	pass, err := questions.ParsePassMark(r.Pass, questions.PassMark{})
	if err != nil {
		return questions.Mock{}, 0, fmt.Errorf("mock %d: %w", id, err)
	}
	m := questions.Mock{ID: id, GuildID: guildID, UserID: getID[questions.UserID](k), Bank: r.Bank, Pass: pass, Domains: r.Domains,
		StartedAt: r.Started, Deadline: r.Deadline, FinishedAt: r.Finished, TimedOut: r.TimedOut, Seen: r.Seen, Current: r.Current,
		Items: make([]questions.MockItem, len(r.Items))}
	for i, it := range r.Items {
		m.Items[i] = questions.MockItem{QuestionID: it.Question, Domain: it.Domain, Correct: splitLetters(it.Key), OptionCount: it.Options,
			Choice: splitLetters(it.Choice), Flagged: it.Flagged}
	}
	return m, r.Seq, nil
}

func mockKey(user questions.UserID, id questions.MockID) []byte { return cat(u64(user), u64(id)) }

func mockDueKey(guild questions.GuildID, user questions.UserID, id questions.MockID) []byte {
	return cat(u64(guild), u64(user), u64(id))
}

// latestMock returns the member's latest attempt in mocks (nil when none):
// its key and value (bbolt's memory: valid until the transaction ends).
func latestMock(mocks *bbolt.Bucket, user questions.UserID) (k, v []byte) {
	if mocks == nil {
		return nil, nil
	}
	prefix := u64(user)
	c := mocks.Cursor()
	k, v = c.Seek(cat(prefix, u64(^uint64(0))))
	if k == nil || !hasPrefix(k, prefix) {
		k, v = c.Prev()
	}
	if !hasPrefix(k, prefix) {
		return nil, nil
	}
	return k, v
}

// checkMockItems refuses the items of an attempt whose keys are out of
// range.
func checkMockItems(items []questions.MockItem) error {
	for i, it := range items {
		if it.QuestionID == "" || it.OptionCount < 1 || it.OptionCount > questions.MaxOptions {
			return fmt.Errorf("question %d: no id, or %d options", i+1, it.OptionCount)
		}
		if _, err := questions.NormalizeChoice(it.Correct, it.OptionCount, len(it.Correct)); err != nil || len(it.Correct) == 0 {
			return fmt.Errorf("question %d: key %v: out of range", i+1, it.Correct)
		}
	}
	return nil
}

// StartMock stores a new attempt and returns it with its ID (the guild's
// next). m carries GuildID, UserID, Bank, Pass, Domains, StartedAt (zero:
// now), Deadline and Items (each with its question, domain, key and
// option count, unanswered and unflagged). It refuses, storing nothing,
// an attempt without guild, member, bank or questions, a deadline not
// after its start, a key out of range, and a member whose latest attempt
// is still open: questions.ErrMockOpen, returned with that attempt (an
// expired one too: end it first, UpdateMock). The attempt goes into the
// due index with its deadline. Safe for concurrent use.
func (db *DB) StartMock(ctx context.Context, m questions.Mock) (questions.Mock, error) {
	if m.GuildID == 0 || m.UserID == 0 || m.Bank == "" || len(m.Items) == 0 {
		return questions.Mock{}, errors.New("start mock: no guild, member, bank or questions")
	}
	if m.StartedAt.IsZero() {
		m.StartedAt = db.now()
	}
	m.StartedAt, m.Deadline = m.StartedAt.UTC(), m.Deadline.UTC()
	if !m.Deadline.After(m.StartedAt) {
		return questions.Mock{}, fmt.Errorf("start mock: deadline %v is not after the start %v", m.Deadline, m.StartedAt)
	}
	if err := checkMockItems(m.Items); err != nil {
		return questions.Mock{}, fmt.Errorf("start mock: %w", err)
	}
	m.ID, m.FinishedAt, m.TimedOut, m.Seen, m.Current = 0, time.Time{}, false, false, 0
	for i := range m.Items {
		m.Items[i].Choice, m.Items[i].Flagged = nil, false
	}
	var open questions.Mock
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g, err := guildRW(tx, m.GuildID)
		if err != nil {
			return err
		}
		mocks, err := g.CreateBucketIfNotExists(bMocks)
		if err != nil {
			return err
		}
		if k, v := latestMock(mocks, m.UserID); k != nil {
			last, _, err := decodeMock(m.GuildID, k, v)
			if err != nil {
				return err
			}
			if last.Open() {
				open = last
				return fmt.Errorf("member %d: %w", m.UserID, questions.ErrMockOpen)
			}
		}
		seq, err := mocks.NextSequence()
		if err != nil {
			return err
		}
		m.ID = questions.MockID(seq)
		v, err := encodeMock(m, 0)
		if err != nil {
			return err
		}
		if err := mocks.Put(mockKey(m.UserID, m.ID), v); err != nil {
			return err
		}
		due, err := tx.CreateBucketIfNotExists(bMockDue)
		if err != nil {
			return err
		}
		return due.Put(mockDueKey(m.GuildID, m.UserID, m.ID), u64(timeKey(m.Deadline)))
	})
	if errors.Is(err, questions.ErrMockOpen) {
		return open, fmt.Errorf("start mock: %w", err)
	}
	if err != nil {
		return questions.Mock{}, fmt.Errorf("start mock: %w", err)
	}
	return m, nil
}

// LatestMock returns the member's latest attempt in the guild, open or
// ended; an error wrapping questions.ErrNotFound when they have none.
// Safe for concurrent use.
func (db *DB) LatestMock(guildID questions.GuildID, userID questions.UserID) (questions.Mock, error) {
	var m questions.Mock
	err := db.view(func(tx *bbolt.Tx) error {
		k, v := latestMock(sub(guildRO(tx, guildID), bMocks), userID)
		if k == nil {
			return fmt.Errorf("member %d: %w", userID, questions.ErrNotFound)
		}
		var err error
		m, _, err = decodeMock(guildID, k, v)
		return err
	})
	if err != nil {
		return questions.Mock{}, fmt.Errorf("latest mock: %w", err)
	}
	return m, nil
}

// Mock returns the member's attempt id in the guild; an error wrapping
// questions.ErrNotFound when the member has no attempt of that number.
// Safe for concurrent use.
func (db *DB) Mock(guildID questions.GuildID, userID questions.UserID, id questions.MockID) (questions.Mock, error) {
	var m questions.Mock
	err := db.view(func(tx *bbolt.Tx) error {
		key := mockKey(userID, id)
		v := getIn(sub(guildRO(tx, guildID), bMocks), key)
		if v == nil {
			return fmt.Errorf("mock %d of member %d: %w", id, userID, questions.ErrNotFound)
		}
		var err error
		m, _, err = decodeMock(guildID, key, v)
		return err
	})
	if err != nil {
		return questions.Mock{}, fmt.Errorf("mock: %w", err)
	}
	return m, nil
}

// Mocks returns the member's ended attempts in the guild, oldest first:
// the last limit of them (limit > 0). The slice is the caller's. Safe for
// concurrent use.
func (db *DB) Mocks(guildID questions.GuildID, userID questions.UserID, limit int) ([]questions.Mock, error) {
	var out []questions.Mock
	err := db.view(func(tx *bbolt.Tx) error {
		mocks := sub(guildRO(tx, guildID), bMocks)
		if mocks == nil {
			return nil
		}
		prefix := u64(userID)
		c := mocks.Cursor()
		k, v := c.Seek(cat(prefix, u64(^uint64(0))))
		if k == nil || !hasPrefix(k, prefix) {
			k, v = c.Prev()
		}
		for ; hasPrefix(k, prefix) && len(out) < limit; k, v = c.Prev() {
			m, _, err := decodeMock(guildID, k, v)
			if err != nil {
				return err
			}
			if !m.Open() {
				out = append(out, m)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mocks: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}

// errMockChanged is a change UpdateMock refuses: fn changed what an
// attempt never changes (its questions, their keys, its times) or, once it
// ended, its answers.
var errMockChanged = errors.New("an attempt's questions, keys and times never change, nor its answers once it ended")

// UpdateMock changes the member's attempt id of the guild in one
// transaction: fn gets the stored attempt and changes it with its methods
// (Answer, ToggleFlag, Show, Finish, and Seen), and UpdateMock stores it
// and returns it. An error of fn is returned, wrapped, and nothing is
// stored. It refuses (errMockChanged, nothing stored) a change to what an
// attempt never changes: its questions, their keys and domains, its bank,
// pass mark, start and deadline; and once it has ended, its answers,
// flags and end. An unknown attempt is questions.ErrNotFound.
//
// When fn ends the attempt (Finish), the same transaction counts each
// answered question into the member's memory of it (questions.Remember:
// a review answer at the attempt's end, rated Again or Good; unanswered
// questions count nothing), numbers the attempt with the guild's next
// answer sequence number (so that a memory rebuild replays its answers in
// their place), and takes it out of the due index, unless its deadline
// ended it (TimedOut): its result is still to be sent (MockNotified).
// Points, leaderboards and streaks do not change. Safe for concurrent use.
func (db *DB) UpdateMock(ctx context.Context, guildID questions.GuildID, userID questions.UserID, id questions.MockID, fn func(*questions.Mock) error) (questions.Mock, error) {
	var out questions.Mock
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		g := guildRO(tx, guildID)
		mocks := sub(g, bMocks)
		key := mockKey(userID, id)
		v := getIn(mocks, key)
		if v == nil {
			return fmt.Errorf("mock %d of member %d: %w", id, userID, questions.ErrNotFound)
		}
		before, seq, err := decodeMock(guildID, key, v)
		if err != nil {
			return err
		}
		m, _, _ := decodeMock(guildID, key, v) // fn's own copy
		if err := fn(&m); err != nil {
			return err
		}
		if err := checkMockChange(before, m); err != nil {
			return err
		}
		if before.Open() && !m.Open() {
			if seq, err = g.Bucket(bAnswers).NextSequence(); err != nil {
				return err
			}
			for _, it := range m.Items {
				if !it.Answered() {
					continue
				}
				ra := recAnswer{id: questions.PostID(m.ID), seq: seq, at: m.FinishedAt, right: it.Right(), mock: true}
				if _, _, _, err := addToRecord(g, nil, userID, it.QuestionID, ra, time.Time{}); err != nil {
					return err
				}
			}
			if !m.TimedOut {
				if err := deleteIn(tx.Bucket(bMockDue), mockDueKey(guildID, userID, id)); err != nil {
					return err
				}
			}
		}
		nv, err := encodeMock(m, seq)
		if err != nil {
			return err
		}
		out = m
		return mocks.Put(key, nv)
	})
	if err != nil {
		return questions.Mock{}, fmt.Errorf("update mock: %w", err)
	}
	return out, nil
}

// checkMockChange reports a change from before to after that UpdateMock
// refuses (errMockChanged), and answers of a shape their question does
// not take (questions.ErrBadChoice).
func checkMockChange(before, after questions.Mock) error {
	same := before.ID == after.ID && before.GuildID == after.GuildID && before.UserID == after.UserID && before.Bank == after.Bank &&
		before.Pass == after.Pass && slices.Equal(before.Domains, after.Domains) && before.StartedAt.Equal(after.StartedAt) &&
		before.Deadline.Equal(after.Deadline) && len(before.Items) == len(after.Items)
	if !same {
		return errMockChanged
	}
	ended := !before.Open()
	if ended && (!before.FinishedAt.Equal(after.FinishedAt) || before.TimedOut != after.TimedOut) {
		return errMockChanged
	}
	if !after.Open() && (after.FinishedAt.Before(after.StartedAt) || after.FinishedAt.After(after.Deadline)) {
		return fmt.Errorf("ended at %v, outside %v to %v: %w", after.FinishedAt, after.StartedAt, after.Deadline, errMockChanged)
	}
	for i, b := range before.Items {
		a := after.Items[i]
		if a.QuestionID != b.QuestionID || a.Domain != b.Domain || a.OptionCount != b.OptionCount || !slices.Equal(a.Correct, b.Correct) {
			return errMockChanged
		}
		if ended && (!slices.Equal(a.Choice, b.Choice) || a.Flagged != b.Flagged) {
			return errMockChanged
		}
		if a.Answered() {
			c, err := questions.NormalizeChoice(a.Choice, a.OptionCount, len(a.Correct))
			if err != nil {
				return fmt.Errorf("question %d: %w", i+1, err)
			}
			if !slices.Equal(c, a.Choice) {
				return fmt.Errorf("question %d: answer %v not in letter order: %w", i+1, a.Choice, questions.ErrBadChoice)
			}
		}
	}
	if after.Current < 0 || after.Current >= len(after.Items) {
		return fmt.Errorf("question shown %d of %d: %w", after.Current+1, len(after.Items), errMockChanged)
	}
	return nil
}

// deleteIn is b.Delete(k), nothing when b is nil.
func deleteIn(b *bbolt.Bucket, k []byte) error {
	if b == nil {
		return nil
	}
	return b.Delete(k)
}

// MocksDue returns the attempts of the due index, earliest deadline
// first: those open, and those ended by their deadline whose result has
// not been sent (see MockNotified). Safe for concurrent use.
func (db *DB) MocksDue() ([]questions.MockDue, error) {
	var out []questions.MockDue
	err := db.view(func(tx *bbolt.Tx) error {
		due := tx.Bucket(bMockDue)
		if due == nil {
			return nil
		}
		return due.ForEach(func(k, v []byte) error {
			if len(k) != 24 {
				return fmt.Errorf("mockdue key %x: not <guild><user><mock>", k)
			}
			out = append(out, questions.MockDue{GuildID: getID[questions.GuildID](k), UserID: getID[questions.UserID](k[8:]),
				MockID: getID[questions.MockID](k[16:]), Deadline: keyTime(getU64(v))})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("mocks due: %w", err)
	}
	slices.SortStableFunc(out, func(a, b questions.MockDue) int { return a.Deadline.Compare(b.Deadline) })
	return out, nil
}

// MockNotified takes an attempt out of the due index: it ended by its
// deadline and its result was sent to the member (or cannot be). Taking
// out an attempt that is not in the index does nothing. Safe for
// concurrent use.
func (db *DB) MockNotified(ctx context.Context, guildID questions.GuildID, userID questions.UserID, id questions.MockID) error {
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		return deleteIn(tx.Bucket(bMockDue), mockDueKey(guildID, userID, id))
	})
	if err != nil {
		return fmt.Errorf("mock notified: %w", err)
	}
	return nil
}

// mockRight reports whether the member's answer to question questionID in
// their attempt id (guild bucket g) is right, as the attempt grades it; an
// error when the attempt or the question in it is not there (a mock answer
// of an answer record without its attempt).
func mockRight(g *bbolt.Bucket, user questions.UserID, id questions.MockID, questionID string) (bool, error) {
	key := mockKey(user, id)
	v := getIn(sub(g, bMocks), key)
	if v == nil {
		return false, fmt.Errorf("mock answer of member %d to question %q: mock %d: %w", user, questionID, id, questions.ErrNotFound)
	}
	m, _, err := decodeMock(0, key, v)
	if err != nil {
		return false, err
	}
	for _, it := range m.Items {
		if it.QuestionID == questionID {
			return it.Right(), nil
		}
	}
	return false, fmt.Errorf("mock answer of member %d to question %q: not in mock %d: %w", user, questionID, id, questions.ErrNotFound)
}

// eachMockAnswer calls f for each answer of each ended attempt in the
// guild bucket g, with the answers sequence number its attempt took, its
// member, its question and the attempt (rated at the end, as UpdateMock
// counted it). The schema 8 migration turns them into the records' mock
// answers (convertAnswers).
func eachMockAnswer(g *bbolt.Bucket, f func(id questions.MockID, seq uint64, user questions.UserID, questionID string, a questions.Attempt)) error {
	mocks := sub(g, bMocks)
	if mocks == nil {
		return nil
	}
	return mocks.ForEach(func(k, v []byte) error {
		m, seq, err := decodeMock(0, k, v)
		if err != nil {
			return err
		}
		if m.Open() || seq == 0 {
			return nil
		}
		for _, it := range m.Items {
			if it.Answered() {
				f(m.ID, seq, m.UserID, it.QuestionID, questions.Attempt{At: m.FinishedAt, Right: it.Right(), Review: true})
			}
		}
		return nil
	})
}

// regradeMocks gives the questions of the guild's attempts whose ID is
// questionID the key key, when they have optionCount options: the answers
// of ended attempts are then graded against it (a mock's result is
// computed from its answers and keys), and open attempts will be. It
// returns how many answered questions it regraded and how many of them
// changed from right to wrong or back. An answered question of another
// number of options is questions.ErrOptionsChanged.
func regradeMocks(g *bbolt.Bucket, guildID questions.GuildID, questionID string, key []string, optionCount int) (answers, changed int, err error) {
	mocks := sub(g, bMocks)
	if mocks == nil {
		return 0, 0, nil
	}
	type put struct{ k, v []byte }
	var puts []put
	err = mocks.ForEach(func(k, v []byte) error {
		m, seq, err := decodeMock(guildID, k, v)
		if err != nil {
			return err
		}
		touched := false
		for i := range m.Items {
			it := &m.Items[i]
			if it.QuestionID != questionID {
				continue
			}
			if it.OptionCount != optionCount {
				if it.Answered() {
					return fmt.Errorf("question %q: mock %d had %d options, the question has %d: %w", questionID, m.ID, it.OptionCount, optionCount, questions.ErrOptionsChanged)
				}
				continue
			}
			was := it.Right()
			if slices.Equal(it.Correct, key) {
				if it.Answered() {
					answers++
				}
				continue
			}
			it.Correct, touched = slices.Clone(key), true
			if it.Answered() {
				answers++
				if it.Right() != was {
					changed++
				}
			}
		}
		if touched {
			nv, err := encodeMock(m, seq)
			if err != nil {
				return err
			}
			puts = append(puts, put{slices.Clone(k), nv})
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	for _, p := range puts {
		if err := mocks.Put(p.k, p.v); err != nil {
			return 0, 0, err
		}
	}
	return answers, changed, nil
}
