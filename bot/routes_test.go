package bot

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestRoutesMatchRegistration: every subcommand registered has a route
// and every route is registered, under the same path; /quizadmin, whose
// routes all need Manage Server, is registered for it by default and
// /quiz is not.
func TestRoutesMatchRegistration(t *testing.T) {
	t.Parallel()
	tb := productionTable(t)
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
	for _, c := range tb.applicationCommands() {
		walk(c.Name, c.Options)
		if want := c.Name == "quizadmin"; (c.DefaultMemberPermissions != nil) != want {
			t.Errorf("/%s registered for Manage Server %v, want %v", c.Name, c.DefaultMemberPermissions != nil, want)
		}
	}
	var routed []string
	for path, r := range tb.commands {
		if want := strings.HasPrefix(path, "quizadmin "); r.access.admin() != want {
			t.Errorf("route %q needs Manage Server %v, want %v", path, r.access.admin(), want)
		}
		routed = append(routed, path)
	}
	slices.Sort(registered)
	slices.Sort(routed)
	if !slices.Equal(registered, routed) {
		t.Errorf("routes %q, registered %q", routed, registered)
	}
	if len(routed) != 28 {
		t.Errorf("%d routes, want the 28 subcommands of /quiz and /quizadmin", len(routed))
	}
}

// declaredKinds are the idKind constants declared in the package's
// non-test files, by name.
func declaredKinds(t *testing.T) map[string]idKind {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]idKind{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != "idKind" {
					continue
				}
				for i, n := range v.Names {
					lit, ok := v.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: idKind %s is not a string literal", name, n.Name)
					}
					pattern, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					kinds[n.Name] = idKind(pattern)
				}
			}
		}
	}
	return kinds
}

// TestEveryKindRouted walks the table: every custom-ID kind declared has
// exactly one route, which answers the IDs it writes (with every field at
// its longest, within Discord's 100 characters); and the table has no
// kind that is not declared.
func TestEveryKindRouted(t *testing.T) {
	t.Parallel()
	tb := productionTable(t)
	declared := declaredKinds(t)
	if len(declared) != 20 {
		t.Errorf("%d custom-ID kinds declared, want the 20 of routes.go: %v", len(declared), declared)
	}
	routed := map[idKind]int{}
	for _, r := range tb.routes {
		for _, c := range append(slices.Clone(r.components), r.modals...) {
			routed[c.kind]++
		}
	}
	for name, k := range declared {
		if routed[k] != 1 {
			t.Errorf("%s (%q) has %d routes, want 1", name, k, routed[k])
			continue
		}
		id := k.sample(18446744073709551615)
		s := k.id(id)
		got, err := tb.parseCustomID(s)
		if err != nil || got != id {
			t.Errorf("%s: %q parses as %+v, %v; want %+v", name, s, got, err, id)
		}
		if len(s) > maxCustomID {
			t.Errorf("%s: %q is longer than %d", name, s, maxCustomID)
		}
	}
	for k := range routed {
		if !slices.Contains(slices.Collect(maps.Values(declared)), k) {
			t.Errorf("the table routes %q, which no constant declares", k)
		}
	}
}

// TestTableChecks: newTable refuses a table that would route an
// interaction twice, or not at all.
func TestTableChecks(t *testing.T) {
	t.Parallel()
	noop := func(*Bot, *call, options) (response, error) { return response{}, nil }
	press := func(*Bot, *call, componentID) (response, error) { return response{}, nil }
	str := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: "s", Description: "s"}
	num := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionInteger, Name: "n", Description: "n"}
	tests := []struct {
		name   string
		routes []route
		want   string
	}{
		{"good", []route{{command: "quiz x", desc: "x", handle: noop, options: opts(str), suggest: map[string]suggester{"s": suggestZones},
			components: []component{{kind: "x1:<post>", handle: press}}, modals: []component{{kind: "x2:<a|b>:<page>", handle: press}}}}, ""},
		{"command twice", []route{{command: "quiz x", desc: "x", handle: noop}, {command: "quiz x", desc: "y", handle: noop}}, "declared twice"},
		{"unknown group", []route{{command: "quiz nope x", desc: "x", handle: noop}}, "not in commandGroups"},
		{"no subcommand", []route{{command: "quiz", desc: "x", handle: noop}}, "a command path"},
		{"no handler", []route{{command: "quiz x", desc: "x"}}, "no handler"},
		{"prefix twice", []route{{components: []component{{kind: "x1:<post>", handle: press}}, modals: []component{{kind: "x1:<draft>", handle: press}}}}, "share their prefix"},
		{"unknown field", []route{{components: []component{{kind: "x1:<postt>", handle: press}}}}, "neither a known field"},
		{"bare field", []route{{components: []component{{kind: "x1:post", handle: press}}}}, "placeholder"},
		{"half a field", []route{{components: []component{{kind: "x1:post>", handle: press}}}}, "placeholder"},
		{"one-word list", []route{{components: []component{{kind: "x1:<next>", handle: press}}}}, "neither a known field"},
		{"bad prefix", []route{{components: []component{{kind: "X-1:<post>", handle: press}}}}, "prefix"},
		{"suggest a number", []route{{command: "quiz x", desc: "x", handle: noop, options: opts(num), suggest: map[string]suggester{"n": suggestZones}}}, "not a free string"},
		{"suggest nothing", []route{{command: "quiz x", desc: "x", handle: noop, suggest: map[string]suggester{"s": suggestZones}}}, "not a free string"},
		{"command updates", []route{{command: "quiz x", desc: "x", handle: noop, ack: ackDeferUpdate}}, "no message to update"},
		{"modal updates", []route{{modals: []component{{kind: "x1:<post>", handle: press, ack: ackDeferUpdate}}}}, "no message to update"},
		{"handler without a command", []route{{handle: noop}}, "without a command"},
		{"refusal of nothing", []route{{components: []component{{kind: "x1:<post>", handle: press, access: access{managersOnly: always}}}}}, "does not say"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTable(tt.routes)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("newTable: %v, want %q", err, tt.want)
			}
		})
	}
}
