package bot

import (
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestRoutesMatchRegistration: every subcommand registered has a route
// and every route is registered, under the same path.
func TestRoutesMatchRegistration(t *testing.T) {
	t.Parallel()
	var registered []string
	var walk func(prefix string, o []*discordgo.ApplicationCommandOption)
	walk = func(prefix string, o []*discordgo.ApplicationCommandOption) {
		for _, x := range o {
			switch x.Type {
			case discordgo.ApplicationCommandOptionSubCommand:
				registered = append(registered, prefix+" "+x.Name)
			case discordgo.ApplicationCommandOptionSubCommandGroup:
				walk(prefix+" "+x.Name, x.Options)
			}
		}
	}
	for _, c := range commands() {
		walk(c.Name, c.Options)
	}
	var routed []string
	for path, r := range routeTable() {
		if r.handle == nil {
			t.Errorf("route %q has no handler", path)
		}
		if want := strings.HasPrefix(path, "quizadmin "); r.admin != want {
			t.Errorf("route %q admin %v, want %v", path, r.admin, want)
		}
		routed = append(routed, path)
	}
	slices.Sort(registered)
	slices.Sort(routed)
	if !slices.Equal(registered, routed) {
		t.Errorf("routes %q, registered %q", routed, registered)
	}
	if len(routed) != 24 {
		t.Errorf("%d routes, want the 24 subcommands of /quiz and /quizadmin", len(routed))
	}
}
