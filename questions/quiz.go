package questions

import (
	"time"
)

// Post is a question posted in a channel. IDs of guilds, channels, messages
// and users are Discord snowflakes (see ids.go).
type Post struct {
	ID         PostID // allocated by storage, > 0
	GuildID    GuildID
	ChannelID  ChannelID
	MessageID  MessageID // 0 until the message is sent
	QuestionID string
	Bank       string
	Tags       []string
	// Correct are the correct letters at the time of posting: grading
	// uses this snapshot even if the bank changes later.
	Correct     []string
	OptionCount int
	SelectCount int
	Daily       bool // posted by the daily schedule
	OpenedAt    time.Time
	ClosesAt    time.Time // zero: closes only by hand or by the next daily post
	Closed      bool
	ClosedAt    time.Time
	// Revealed: the message was edited into the reveal after the close
	// (and the messages that continue a long reveal were posted). A closed
	// post that is not revealed yet is retried.
	Revealed bool
	// RevealSent counts the messages of a long reveal that reached the
	// channel before it was done: 1 once the post is edited, 1 more for
	// each message that continues it; 0 until then. A retried reveal goes
	// on after them instead of posting them again.
	RevealSent int
	// Tallies[i] counts the members who picked option Letter(i).
	Tallies []int
	// Answers counts the members who answered; Right counts those who were right.
	Answers int
	Right   int
}

// Answer is one member's answer to one post.
type Answer struct {
	PostID        PostID
	GuildID       GuildID
	UserID        UserID
	InteractionID uint64 // the Discord interaction that carried it
	Choice        []string
	Grade         // filled in by storage on record
	At            time.Time
}

// Score is a member's standing in a guild over one period (or all time).
type Score struct {
	UserID   UserID
	Points   int
	Answered int
	Correct  int
	// ReachedAt is when the member reached their current points: the
	// tie-break after accuracy (earlier ranks higher).
	ReachedAt time.Time
	// Streaks are study days: consecutive local days with at least one answer.
	CurrentStreak int
	BestStreak    int
	LastStudyDay  string // "2006-01-02" in the guild's time zone; "" if never
}

// Accuracy is Correct/Answered in [0, 1]; 0 when nothing was answered.
func (s Score) Accuracy() float64 {
	if s.Answered == 0 {
		return 0
	}
	return float64(s.Correct) / float64(s.Answered)
}

// Period is a leaderboard period.
type Period string

// The leaderboard periods. Day, week (starting Monday) and month are
// calendar periods in the guild's time zone.
const (
	PeriodDay   Period = "day"
	PeriodWeek  Period = "week"
	PeriodMonth Period = "month"
	PeriodAll   Period = "all"
)

// Ranking orders a leaderboard.
type Ranking string

// The leaderboard orders.
const (
	// ByPoints: points, then accuracy, then who reached the points first.
	ByPoints Ranking = "points"
	// ByAccuracy: accuracy among members with at least MinAnswersForAccuracy
	// answers in the period, then answers, then who got there first.
	ByAccuracy Ranking = "accuracy"
)

// MinAnswersForAccuracy is how many answers in a period a member needs to
// appear on an accuracy leaderboard.
const MinAnswersForAccuracy = 10

// Standing is a member's place on a leaderboard.
type Standing struct {
	Rank int // 1-based
	Score
}

// Leaderboard is one page of a ranking.
type Leaderboard struct {
	Period  Period
	Ranking Ranking
	Start   time.Time // start of the period (zero for all time)
	Total   int       // members ranked in the period
	Entries []Standing
}

// TopicStats is a member's record on one bank or tag.
type TopicStats struct {
	Topic    string // "bank:<name>" or "tag:<name>"
	Answered int
	Correct  int
}

// MemberStats is what /quiz stats shows.
type MemberStats struct {
	All    Score
	Rank   int // by points, all time; 0 if unranked
	Topics []TopicStats
}

// Settings are a guild's choices. The zero value is not valid: use
// DefaultSettings.
type Settings struct {
	GuildID GuildID
	// TimeZone is an IANA name; periods and streaks are counted in it.
	TimeZone string
	// RevealOnAnswer: the answer reply carries the correct letters,
	// explanation and rationales at once (answer-gated). Off: only at the close.
	RevealOnAnswer bool
	// AskMinutes is how long /quiz ask stays open by default.
	AskMinutes int
	// AskCooldown is the least time between two of a member's /quiz ask
	// in the guild; 0: none. Admins are not held to it.
	AskCooldown time.Duration
	// AskMaxOpen is how many questions may be open in a channel for a
	// member's /quiz ask to post another there; 0: no cap. Admins and the
	// daily quiz are not held to it (their questions count, though).
	AskMaxOpen int
	// Banks limits /quiz ask and the daily draw to these banks; empty: all.
	Banks []string
	// Daily is the daily schedule; nil when off.
	Daily *Daily
	// LastDaily is the local date of the last daily post, kept while the
	// daily quiz is off so that turning it on again cannot post that day twice.
	LastDaily string
	// LastDailyTime is the local time ("HH:MM") of that post, so that the
	// date can be carried into another time zone; "" in files written
	// before it was kept (the date is then taken as it is).
	LastDailyTime string
}

// Daily is a guild's daily quiz schedule. Its time is local to the
// guild's Settings.TimeZone.
type Daily struct {
	ChannelID ChannelID
	Time      string // "HH:MM", 24 h, local time
	Bank      string // "" for every bank the guild can use
	Count     int    // questions per day, >= 1
	// CloseAfterHours closes daily questions after that many hours; 0: they
	// close when the next day's questions are posted.
	CloseAfterHours int
	// Next is the instant of the next post. Setting or changing the
	// schedule sets it to the next occurrence of Time; each claim of a post
	// moves it on (see storage's ClaimDaily), so a day is posted at most once.
	Next time.Time
	// LastPosted is the local date ("2006-01-02") of the last post; "" if none.
	LastPosted string
	// LastError says why the last daily post failed; "" when it did not.
	LastError string
}

// Defaults of a member's /quiz ask (Settings.AskCooldown, AskMaxOpen).
const (
	DefaultAskCooldown = 60 * time.Second
	DefaultAskMaxOpen  = 3
)

// DefaultSettings returns the settings of a guild that has chosen nothing.
func DefaultSettings(guildID GuildID) Settings {
	return Settings{GuildID: guildID, TimeZone: "UTC", RevealOnAnswer: true, AskMinutes: 10,
		AskCooldown: DefaultAskCooldown, AskMaxOpen: DefaultAskMaxOpen}
}

// AskLimits are the fair-play rules a member's /quiz ask is held to, checked
// in the transaction that creates its post, so that asks made at once
// cannot all pass: a member asks at most once per Cooldown, into a channel
// with fewer than MaxOpen questions open, and only questions not asked yet
// in the current round (an exhausted bank is not posted again by members).
type AskLimits struct {
	Member   UserID        // who asks
	Cooldown time.Duration // since Member's last ask in the guild; 0: none
	MaxOpen  int           // open questions in the post's channel; 0: no cap
}

// BankFile is a bank a guild imported: the file as uploaded, kept so that it
// can be parsed again at start and exported unchanged.
type BankFile struct {
	Name       string // the bank's name, unique within the guild
	Format     Format
	Data       []byte
	ImportedAt time.Time
	ImportedBy UserID
	// Questions is how many questions Data holds, counted by whoever
	// stored it (the bank as parsed): what the guild's Quota counts.
	Questions int
}
