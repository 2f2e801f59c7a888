package bot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/quizhost/quizhost/bot"
	"github.com/quizhost/quizhost/internal/discordtest"
	"github.com/quizhost/quizhost/questions"
)

// commandOpts is a slash command's name and options for its path
// ("quizadmin daily set"), the subcommand holding opts.
func commandOpts(path string, opts ...discordtest.Option) (string, []discordtest.Option) {
	f := strings.Fields(path)
	o := sub(f[len(f)-1], opts...)
	if len(f) == 3 {
		o = group(f[1], o)
	}
	return f[0], []discordtest.Option{o}
}

// TestAdminRoutesRefuseMembers walks the interaction table: every
// command, button, menu and form that needs Manage Server refuses a member
// without it, end to end, with a private message naming the permission and
// nothing else sent or stored; and on those commands the member's
// autocomplete suggests nothing where an admin's suggests something. The
// member is an admin who lost Manage Server: the author of the paste, of
// the prompt and of the bank changes the interactions name.
func TestAdminRoutesRefuseMembers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	e.start()
	demoted := alice
	demoted.Permissions = discordtest.DefaultPermissions

	// What the interactions name, made by alice with Manage Server: an
	// imported bank with a kept version (a question removed), a paste
	// draft and a prompt to confirm removing the bank.
	if got := e.importIn(guildID, channelID, "undo.txt", undoBank(1, 2, 3)); !strings.Contains(got, "added 3") {
		t.Fatalf("import: %q", got)
	}
	wants(t, "question remove", e.confirmed(alice, group("question", sub("remove", str("id", undoBankName+"#1")))), "Removed")
	form, _ := e.openModal(e.srv.SlashCommand(guildID, channelID, alice, "quizadmin", sub("add")))
	var draft uint64
	if _, err := fmt.Sscanf(form, "pm1:%d", &draft); err != nil {
		t.Fatalf("paste form %q: %v", form, err)
	}
	remove := e.prompt(alice, group("bank", sub("remove", str("name", undoBankName))))
	var confirmation uint64
	if _, err := fmt.Sscanf(remove.confirm, "cf1:confirm:%d", &confirmation); err != nil {
		t.Fatalf("bank remove prompt %q: %v", remove.confirm, err)
	}

	refused := func(what string, p *discordtest.Pending, before int) {
		t.Helper()
		r := p.WaitResponse(t, wait)
		if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Flags&discordgo.MessageFlagsEphemeral == 0 ||
			!strings.Contains(r.Content, "You need the Manage Server permission to ") {
			t.Errorf("%s: answered type %d flags %d %q, want a private refusal naming Manage Server", what, r.Type, r.Flags, r.Content)
		}
		if reqs := e.srv.Requests()[before:]; len(reqs) != 1 {
			var routes []string
			for _, r := range reqs {
				routes = append(routes, r.Method+" "+r.Route)
			}
			t.Errorf("%s: requests %q, want only the refusal", what, routes)
		}
	}
	var commands, components, modals int
	for _, in := range bot.AdminInteractions(e.bot, map[string]uint64{"draft": draft, "confirmation": confirmation}) {
		before := len(e.srv.Requests())
		switch {
		case in.Path != "":
			commands++
			name, opts := commandOpts(in.Path)
			refused("/"+in.Path, e.srv.SlashCommand(guildID, channelID, demoted, name, opts...), before)
			for _, opt := range in.Suggests {
				name, opts := commandOpts(in.Path, str(opt, ""))
				if got := e.srv.Autocomplete(guildID, channelID, alice, name, opts...).WaitResponse(t, wait).Choices; len(got) == 0 {
					t.Errorf("/%s %s: an admin's autocomplete suggests nothing", in.Path, opt)
				}
				if got := e.srv.Autocomplete(guildID, channelID, demoted, name, opts...).WaitResponse(t, wait).Choices; len(got) != 0 {
					t.Errorf("/%s %s: a member's autocomplete suggests %d choices, want none", in.Path, opt, len(got))
				}
			}
		case in.Modal:
			modals++
			refused("form "+in.CustomID, e.srv.ModalSubmit(guildID, channelID, demoted, "", in.CustomID,
				map[string]string{"text": examQuestion(undoBankName, 9, "Nine?"), "what": "wrong"}), before)
		default:
			components++
			refused("button "+in.CustomID, e.srv.Component(guildID, channelID, demoted, remove.msgID, in.CustomID), before)
		}
	}
	if commands != 18 || components != 6 || modals != 2 {
		t.Errorf("walked %d commands, %d buttons and menus, %d forms needing Manage Server; want 18, 6 (suggestions, reports, insights' pages and entries, drafts, prompts) and 2 (the paste, the insights' regrade)",
			commands, components, modals)
	}
	// Nothing the refused interactions name changed.
	if _, err := e.db.Draft(8001, questions.DraftID(draft)); err != nil {
		t.Errorf("the paste draft after the refusals: %v", err)
	}
	if _, err := e.db.Confirmation(8001, questions.ConfirmationID(confirmation)); err != nil {
		t.Errorf("the bank remove prompt after the refusals: %v", err)
	}
	if vs, err := e.db.BankVersions(8001); err != nil || len(vs) != 1 {
		t.Errorf("kept versions after the refusals: %d, %v; want the one of the question removed", len(vs), err)
	}
	if got := e.bankQuestions(undoBankName); got != 2 {
		t.Errorf("%s has %d questions after the refusals, want 2", undoBankName, got)
	}
	e.checkWire()
}
