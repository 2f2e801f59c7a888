package questions

import (
	"time"
)

// Per-member caps on drafts, enforced by storage in the transaction that
// saves a draft.
const (
	// MaxQueuedSuggestions is how many of a member's suggestions may wait
	// for review in a guild (ErrQueueFull beyond).
	MaxQueuedSuggestions = 10
	// MaxUnsentDrafts is how many drafts a member may have in a guild that
	// are neither added nor queued: a new one replaces the oldest.
	MaxUnsentDrafts = 5
)

// DraftKind says who wrote a draft and what becomes of it.
type DraftKind string

const (
	// DraftPaste is an admin's paste (/quizadmin add): Add merges it into
	// its bank at once.
	DraftPaste DraftKind = "paste"
	// DraftSuggestion is a member's suggestion (/quiz suggest): once
	// submitted it waits in the guild's queue until an admin approves or
	// rejects it.
	DraftSuggestion DraftKind = "suggestion"
)

// Draft is questions pasted in Discord that are not part of a bank yet:
// an admin's paste before Add, or a member's suggestion before an admin
// reviews it. It is kept in the database because a custom ID cannot hold
// the text.
type Draft struct {
	ID      DraftID // assigned when first saved; unique within the guild
	GuildID GuildID
	UserID  UserID // who pasted it
	Kind    DraftKind
	// Bank is the bank the questions go into; "" means the banks the text
	// names.
	Bank string
	// Text is the pasted exam text, as the modal returned it.
	Text string
	// Queued marks a suggestion submitted for review (it then waits in the
	// queue without expiring).
	Queued    bool
	CreatedAt time.Time
	// ExpiresAt is when an unfinished draft is dropped; zero for never.
	ExpiresAt time.Time
}
