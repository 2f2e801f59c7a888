package questions

import (
	"fmt"
	"strconv"
)

// Discord snowflakes, one type per kind, so that a guild ID cannot be
// passed where a user ID is wanted. Each is a uint64 underneath: storage
// keys them as 8-byte big-endian integers and JSON writes them as numbers,
// exactly as it did the bare uint64.
type (
	// GuildID is a Discord server.
	GuildID uint64
	// ChannelID is a Discord channel.
	ChannelID uint64
	// UserID is a Discord user (a member of a guild).
	UserID uint64
	// MessageID is a Discord message.
	MessageID uint64
	// PostID is a question posted by the bot, allocated by storage (> 0);
	// not a snowflake.
	PostID uint64
)

// The records a guild keeps besides its posts, each numbered by storage
// (> 0, unique within the guild, never reused), one type per kind as for
// the snowflakes above. Storage keys them and JSON writes them as the
// bare uint64 they were.
type (
	// DraftID is a paste or a suggestion not yet in a bank (Draft).
	DraftID uint64
	// ReportID is a member's report of a wrong question (Report).
	ReportID uint64
	// ReviewID is a question shown to one member in /quiz review (Review).
	// It is drawn from the posts' sequence, so it is never a post's ID:
	// its answer is keyed in a post's place (see Post).
	ReviewID uint64
	// ConfirmationID is a prompt waiting for an admin's click
	// (Confirmation).
	ConfirmationID uint64
	// VersionID is a kept version of a bank, for undo (BankVersion).
	VersionID uint64
)

// String returns the decimal form Discord uses.
func (id GuildID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the decimal form Discord uses.
func (id ChannelID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the decimal form Discord uses.
func (id UserID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the decimal form Discord uses.
func (id MessageID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the post number in decimal.
func (id PostID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the draft number in decimal.
func (id DraftID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the report number in decimal.
func (id ReportID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the review number in decimal.
func (id ReviewID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the confirmation number in decimal.
func (id ConfirmationID) String() string { return strconv.FormatUint(uint64(id), 10) }

// String returns the version number in decimal.
func (id VersionID) String() string { return strconv.FormatUint(uint64(id), 10) }

// Post is the review's ID where answers are keyed by post: the PostID of
// the Answer to a review (see Review).
func (id ReviewID) Post() PostID { return PostID(id) }

// ParseGuildID parses a guild ID (see ParseID).
func ParseGuildID(s string) (GuildID, error) { return ParseID[GuildID](s) }

// ParseChannelID parses a channel ID (see ParseID).
func ParseChannelID(s string) (ChannelID, error) { return ParseID[ChannelID](s) }

// ParseUserID parses a user ID (see ParseID).
func ParseUserID(s string) (UserID, error) { return ParseID[UserID](s) }

// ParseMessageID parses a message ID (see ParseID).
func ParseMessageID(s string) (MessageID, error) { return ParseID[MessageID](s) }

// ParsePostID parses a post ID (see ParseID).
func ParsePostID(s string) (PostID, error) { return ParseID[PostID](s) }

// ParseID parses an ID of type T as Discord writes it: a decimal number
// above zero with no sign, spaces or leading zeros (so that each ID has one
// spelling). Anything else is an error wrapping ErrBadID.
func ParseID[T ~uint64](s string) (T, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 || strconv.FormatUint(v, 10) != s {
		return 0, fmt.Errorf("ID %q: %w", s, ErrBadID)
	}
	return T(v), nil
}
