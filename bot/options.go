package bot

import (
	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/questions"
)

// subcommand flattens "group sub" into a path and returns the value options.
func subcommand(opts []*discordgo.ApplicationCommandInteractionDataOption) (string, options) {
	path := ""
	for len(opts) == 1 && opts[0] != nil &&
		(opts[0].Type == discordgo.ApplicationCommandOptionSubCommand || opts[0].Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
		if path != "" {
			path += " "
		}
		path += opts[0].Name
		opts = opts[0].Options
	}
	return path, options(opts)
}

// options reads value options without trusting their types: a mismatch
// reads as absent, never a panic.
type options []*discordgo.ApplicationCommandInteractionDataOption

func (o options) get(name string) *discordgo.ApplicationCommandInteractionDataOption {
	for _, x := range o {
		if x != nil && x.Name == name {
			return x
		}
	}
	return nil
}

func (o options) str(name string) (string, bool) {
	x := o.get(name)
	if x == nil {
		return "", false
	}
	v, ok := x.Value.(string)
	return v, ok
}

func (o options) int(name string) (int, bool) {
	x := o.get(name)
	if x == nil {
		return 0, false
	}
	v, ok := x.Value.(float64)
	if !ok || v != float64(int(v)) {
		return 0, false
	}
	return int(v), true
}

func (o options) bool(name string) (bool, bool) {
	x := o.get(name)
	if x == nil {
		return false, false
	}
	v, ok := x.Value.(bool)
	return v, ok
}

// snowflake reads a user, channel or attachment option's id.
func (o options) snowflake(name string) (uint64, bool) {
	s, ok := o.str(name)
	if !ok {
		return 0, false
	}
	return parseID[uint64](s)
}

// user reads a user option.
func (o options) user(name string) (questions.UserID, bool) {
	id, ok := o.snowflake(name)
	return questions.UserID(id), ok
}

// channel reads a channel option.
func (o options) channel(name string) (questions.ChannelID, bool) {
	id, ok := o.snowflake(name)
	return questions.ChannelID(id), ok
}

func (o options) focused() *discordgo.ApplicationCommandInteractionDataOption {
	for _, x := range o {
		if x != nil && x.Focused {
			return x
		}
	}
	return nil
}
