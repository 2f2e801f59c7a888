package bot

import (
	"strings"

	"github.com/bwmarrin/discordgo"
)

// Option suggestions: the suggesters the table (routes.go) gives options
// for their autocomplete. Each gets what the member typed, in lower case.

// maxChoices is the most choices Discord takes for an autocomplete.
const maxChoices = 25

// suggestZones suggests IANA time zones.
func suggestZones(_ *Bot, _ *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error) {
	return nameChoices(matchZones(typed)), nil
}

// suggestBanks suggests the names of the server's banks containing what
// was typed: its imported banks only, or every bank it can draw from.
func suggestBanks(importedOnly bool) suggester {
	return func(b *Bot, c *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error) {
		banks, err := b.offeredBanks(c.guild, importedOnly)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, bk := range banks {
			if strings.Contains(strings.ToLower(bk.Name), typed) {
				names = append(names, bk.Name)
			}
		}
		return nameChoices(names), nil
	}
}

// suggestQuestions suggests the server's questions (questionChoices): of
// its imported banks only, or of every bank it can draw from.
func suggestQuestions(importedOnly bool) suggester {
	return func(b *Bot, c *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error) {
		banks, err := b.offeredBanks(c.guild, importedOnly)
		if err != nil {
			return nil, err
		}
		return questionChoices(banks, typed), nil
	}
}

// suggestUndo suggests the banks with a kept version (undoChoices).
func suggestUndo(b *Bot, c *call, typed string) ([]*discordgo.ApplicationCommandOptionChoice, error) {
	vs, err := b.store.BankVersions(c.guild)
	if err != nil {
		return nil, err
	}
	return nameChoices(undoChoices(vs, typed)), nil
}

// nameChoices are choices named and valued as names, the first
// maxChoices.
func nameChoices(names []string) []*discordgo.ApplicationCommandOptionChoice {
	choices := []*discordgo.ApplicationCommandOptionChoice{}
	for _, n := range names[:min(len(names), maxChoices)] {
		choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: truncate(n, 100), Value: truncate(n, 100)})
	}
	return choices
}

// zones are the IANA names offered by time zone autocomplete. Any valid
// IANA name is accepted when typed in full; these are the common ones.
var zones = strings.Fields(`
UTC
Africa/Abidjan Africa/Accra Africa/Cairo Africa/Casablanca Africa/Johannesburg Africa/Lagos Africa/Nairobi
America/Anchorage America/Argentina/Buenos_Aires America/Bogota America/Chicago America/Denver
America/Edmonton America/Halifax America/Lima America/Los_Angeles America/Mexico_City America/New_York
America/Phoenix America/Santiago America/Sao_Paulo America/St_Johns America/Toronto America/Vancouver
Asia/Almaty Asia/Bangkok Asia/Dhaka Asia/Dubai Asia/Ho_Chi_Minh Asia/Hong_Kong Asia/Jakarta
Asia/Jerusalem Asia/Karachi Asia/Kathmandu Asia/Kolkata Asia/Kuala_Lumpur Asia/Manila Asia/Riyadh
Asia/Seoul Asia/Shanghai Asia/Singapore Asia/Taipei Asia/Tashkent Asia/Tehran Asia/Tokyo
Atlantic/Azores Atlantic/Reykjavik
Australia/Adelaide Australia/Brisbane Australia/Darwin Australia/Melbourne Australia/Perth Australia/Sydney
Europe/Amsterdam Europe/Athens Europe/Berlin Europe/Brussels Europe/Bucharest Europe/Budapest
Europe/Dublin Europe/Helsinki Europe/Istanbul Europe/Kyiv Europe/Lisbon Europe/London Europe/Madrid
Europe/Moscow Europe/Oslo Europe/Paris Europe/Prague Europe/Rome Europe/Stockholm Europe/Vienna
Europe/Warsaw Europe/Zurich
Pacific/Auckland Pacific/Honolulu
`)

// matchZones returns the zones containing typed (lower case), prefix
// matches first.
func matchZones(typed string) []string {
	var first, rest []string
	for _, z := range zones {
		lz := strings.ToLower(z)
		switch {
		case strings.HasPrefix(lz, typed) || strings.Contains(lz, "/"+typed):
			first = append(first, z)
		case strings.Contains(lz, typed):
			rest = append(rest, z)
		}
	}
	return append(first, rest...)
}
