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
