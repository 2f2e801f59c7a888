package questions

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Confirmations and undo. A change that removes questions from a guild's
// imported banks (removing a bank, replacing one with an import, removing
// a question) waits for its admin's Confirm, and the bank as it was before
// is kept for a while so that the change can be undone. Storage holds both
// to the bounds below in the transaction that writes them.

const (
	// ConfirmExpiry is how long a Confirmation waits for its click.
	ConfirmExpiry = 15 * time.Minute
	// MaxConfirmations is how many confirmations a guild keeps waiting: a
	// new one replaces the oldest.
	MaxConfirmations = 5
	// MaxConfirmBytes bounds the bank files the waiting confirmations of a
	// guild hold (an import's, kept until its click): a new one replaces
	// the oldest until it fits, and one that holds more alone is refused
	// (ErrTooLarge).
	MaxConfirmBytes = 24 << 20

	// UndoKeep is how long the version of a bank before a remove, a
	// replace or a question remove is kept.
	UndoKeep = 7 * 24 * time.Hour
	// MaxKeptVersions and MaxKeptBytes bound a guild's kept versions
	// (their files' bytes): keeping one more drops the oldest beyond them.
	// The newest is always kept.
	MaxKeptVersions = 50
	MaxKeptBytes    = 24 << 20
)

// ConfirmAction is what a Confirmation carries out.
type ConfirmAction string

const (
	// ConfirmBankRemove removes the imported bank Bank.
	ConfirmBankRemove ConfirmAction = "bank remove"
	// ConfirmImportReplace stores Banks, replacing the banks of their names.
	ConfirmImportReplace ConfirmAction = "import replace"
	// ConfirmQuestionRemove removes QuestionID from the imported bank Bank.
	ConfirmQuestionRemove ConfirmAction = "question remove"
	// ConfirmReset resets Member's scores, or everyone's when Member is 0.
	ConfirmReset ConfirmAction = "reset"
)

// Confirmation is an admin's request that waits for their Confirm: what it
// will do, and the state it was asked against, so that the click can tell
// whether that state still holds. It is kept in the database because a
// custom ID can hold neither an import's files nor the state. It is used
// once: confirming or cancelling takes it.
type Confirmation struct {
	ID      ConfirmationID // assigned when saved; unique within the guild
	GuildID GuildID
	UserID  UserID // the admin who asked: only they may confirm
	Action  ConfirmAction
	// Bank is the bank concerned (ConfirmBankRemove,
	// ConfirmQuestionRemove), as named when asked.
	Bank string
	// QuestionID is the question to remove (ConfirmQuestionRemove).
	QuestionID string
	// Member is the member to reset (ConfirmReset; 0 for everyone).
	Member UserID
	// Stamp is a digest of the banks the action depends on as they were
	// when asked (see Digest); a click finding them changed does nothing.
	Stamp string
	// Banks are the banks an import replace stores, as parsed from its
	// files, in order (ConfirmImportReplace).
	Banks     []BankFile
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Size is how many bytes of bank files c holds.
func (c Confirmation) Size() int {
	n := 0
	for _, f := range c.Banks {
		n += len(f.Data)
	}
	return n
}

// BankChange says what replaced a kept version of a bank.
type BankChange string

const (
	ChangeRemoved         BankChange = "removed"          // /quizadmin bank remove
	ChangeReplaced        BankChange = "replaced"         // /quizadmin import mode:replace
	ChangeQuestionRemoved BankChange = "question removed" // /quizadmin question remove
	ChangeUndone          BankChange = "undone"           // /quizadmin bank undo, over changes made since
)

// BankVersion is an imported bank as it was before a change, kept until
// ExpiresAt (UndoKeep after the change) so that the change can be undone.
type BankVersion struct {
	ID      VersionID // assigned when kept; unique within the guild, increasing
	GuildID GuildID
	// File is the bank as it was stored before the change.
	File   BankFile
	Change BankChange
	By     UserID    // the admin who made the change
	At     time.Time // when
	// After is the Digest of the bank the change left; "" when it left
	// none (the bank was removed).
	After     string
	ExpiresAt time.Time
}

// BankEdit is a change to a guild's imported banks that storage makes in
// one transaction: Keep's banks are kept as versions (before anything is
// written), then Save's are stored and Remove's deleted, and the version
// Restore names is deleted.
type BankEdit struct {
	// Save are banks to store, each replacing the bank of its name
	// (case-insensitive).
	Save []BankFile
	// Remove names banks to delete; each must exist.
	Remove []string
	// Keep names banks whose stored version is kept (see BankVersion) as
	// Change by By at At; a name the guild has no bank of keeps nothing.
	Keep   []string
	Change BankChange
	By     UserID
	At     time.Time
	// Restore is the ID of the version this edit puts back (it is deleted
	// with the edit); 0 for none.
	Restore VersionID
}

// Digest is a short fingerprint of a stored bank file's bytes: two files
// with the same digest hold the same bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}
