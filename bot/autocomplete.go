package bot

import (
	"strings"

	"github.com/bwmarrin/discordgo"
)

// autocomplete suggests bank names and time zones.
func (b *Bot) autocomplete(c *call, d discordgo.ApplicationCommandInteractionData) (response, error) {
	path, opts := subcommand(d.Options)
	f := opts.focused()
	var choices []*discordgo.ApplicationCommandOptionChoice
	if f != nil {
		typed, _ := f.Value.(string)
		typed = strings.ToLower(strings.TrimSpace(typed))
		var names []string
		switch f.Name {
		case "timezone":
			names = matchZones(typed)
		case "id":
			if d.Name != "quizadmin" || !isManager(c.member) {
				break
			}
			banks, err := b.offeredBanks(c.guild, path == "question remove") // only imported banks can lose questions
			if err != nil {
				return response{}, err
			}
			choices = questionChoices(banks, typed)
		case "bank", "name":
			if path == "bank undo" { // the banks with a kept version
				if d.Name != "quizadmin" || !isManager(c.member) {
					break
				}
				vs, err := b.store.BankVersions(c.guild)
				if err != nil {
					return response{}, err
				}
				names = undoChoices(vs, typed)
				break
			}
			// bank remove/export, add and suggest: imported banks only
			banks, err := b.offeredBanks(c.guild, f.Name == "name" || path == "add" || path == "suggest")
			if err != nil {
				return response{}, err
			}
			for _, bk := range banks {
				if strings.Contains(strings.ToLower(bk.Name), typed) {
					names = append(names, bk.Name)
				}
			}
		}
		for _, n := range names {
			if len(choices) == 25 {
				break
			}
			choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: truncate(n, 100), Value: truncate(n, 100)})
		}
	}
	if choices == nil {
		choices = []*discordgo.ApplicationCommandOptionChoice{}
	}
	return asChoices(choices), nil
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
