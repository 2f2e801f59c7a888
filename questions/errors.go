package questions

import "errors"

// The domain's errors: sentinels shared by this package, storage and the
// bot. A function that returns one names it in its doc comment and wraps
// it with what it was doing; test for it with errors.Is. Each is in one
// place, here, so that a reader sees every failure the domain knows.
var (
	// ErrNotFound: the post, bank, member or setting does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyAnswered: the member has already answered this post; the
	// first answer stands.
	ErrAlreadyAnswered = errors.New("already answered")
	// ErrClosed: the post is closed to answers.
	ErrClosed = errors.New("question closed")
	// ErrWrongGuild: the post belongs to another guild.
	ErrWrongGuild = errors.New("post of another guild")
	// ErrBadChoice: chosen letters that were not offered, duplicates, or
	// the wrong number of picks.
	ErrBadChoice = errors.New("invalid choice")
	// ErrCooldown: a member asks again before Settings.AskCooldown has
	// passed since their last ask (see AskLimits).
	ErrCooldown = errors.New("asked too recently")
	// ErrChannelFull: a member asks in a channel that has
	// Settings.AskMaxOpen questions open already (see AskLimits).
	ErrChannelFull = errors.New("too many questions open in the channel")
	// ErrAlreadyAsked: a member's ask drew a question that was asked in the
	// current round already (meanwhile, by someone else).
	ErrAlreadyAsked = errors.New("question already asked in this round")

	// ErrQuestionOpen: the question is open in the guild (a post of it
	// takes answers), so a regrade is refused (its posts' menus take
	// answers against the old key), and so is a review answer (its grading
	// would give away the answer of an open question).
	ErrQuestionOpen = errors.New("the question is open")
	// ErrOptionsChanged: a question's current key does not fit its stored
	// posts or reviews (another number of options), so their answers
	// cannot be graded against it.
	ErrOptionsChanged = errors.New("the question's options changed")
	// ErrNotYours: a member answered a review that was started for another
	// member.
	ErrNotYours = errors.New("review of another member")
	// ErrMockOpen: a member starts a mock exam while one of theirs is
	// open (one at a time).
	ErrMockOpen = errors.New("a mock exam is open")

	// ErrTooLarge: what was to be stored is larger than its bound allows
	// (a confirmation's banks, a kept version: see undo.go).
	ErrTooLarge = errors.New("too large")
	// ErrOverQuota: the change would take a server past its Quota. The
	// error is a *QuotaError, which says which bound and by how much.
	ErrOverQuota = errors.New("over the server's quota")
	// ErrQueueFull: the member has MaxQueuedSuggestions suggestions
	// waiting for review already.
	ErrQueueFull = errors.New("too many suggestions waiting for review")
	// ErrBuiltinName is wrapped by the error of CheckBankName: a bank from
	// a file or an import may not take the built-in bank's name.
	ErrBuiltinName = errors.New("the built-in bank's name")

	// ErrBadID is returned, wrapped, by the parse functions for text that
	// is not an ID (ParseID and the Parse…ID functions).
	ErrBadID = errors.New("not an ID")
)
