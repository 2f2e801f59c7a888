package bot

import (
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

// productionTable is the interaction table of routes().
func productionTable(t testing.TB) *table {
	t.Helper()
	tb, err := newTable(routes())
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestCustomIDWire: what each kind writes on the wire, exactly as the
// messages already sent to Discord carry it, and what it reads back.
func TestCustomIDWire(t *testing.T) {
	t.Parallel()
	tb := productionTable(t)
	tests := []struct {
		name string
		kind idKind
		id   componentID
		want string
	}{
		{"answer", kindAnswer, componentID{post: 42}, "a1:42"},
		{"board", kindBoard, componentID{period: questions.PeriodWeek, ranking: questions.ByAccuracy, page: 3}, "lb1:week:a:3"},
		{"board points", kindBoard, componentID{period: questions.PeriodAll, ranking: questions.ByPoints}, "lb1:all:p:0"},
		{"confirm", kindConfirm, componentID{action: "confirm", confirmation: 7}, "cf1:confirm:7"},
		{"cancel", kindConfirm, componentID{action: "cancel", confirmation: 18446744073709551615}, "cf1:cancel:18446744073709551615"},
		{"paste modal", kindPasteModal, componentID{draft: 12}, "pm1:12"},
		{"draft add", kindDraftButton, componentID{action: "add", draft: 12}, "pd1:add:12"},
		{"draft fix", kindDraftButton, componentID{action: "fix", draft: 18446744073709551615}, "pd1:fix:18446744073709551615"},
		{"suggestion approve", kindSuggestion, componentID{action: "approve", draft: 3}, "sg1:approve:3"},
		{"suggestion next", kindSuggestion, componentID{action: "next", draft: 3}, "sg1:next:3"},
		{"review answer", kindReviewAnswer, componentID{review: 77}, "rv1:77"},
		{"review next", kindReviewNext, componentID{action: "next"}, "rn1:next"},
		{"review stop", kindReviewNext, componentID{action: "stop"}, "rn1:stop"},
		{"report", kindReport, componentID{post: 5}, "rp1:5"},
		{"report modal", kindReportModal, componentID{post: 5}, "rm1:5"},
		{"report close", kindReportClose, componentID{report: 9}, "rc1:9"},
		{"insights page", kindInsights, componentID{sortBy: sortDiscrimination, page: 2, ref: "-"}, "in1:d:2:-"},
		{"insights page of a bank", kindInsights, componentID{sortBy: sortFacility, ref: bankRef("AWS")}, "in1:f:0:" + bankRef("AWS")},
		{"insight show", kindInsight, componentID{action: "s", num: 4294967295, sortBy: sortFacility, page: 1, ref: "-"}, "iq1:s:4294967295:f:1:-"},
		{"insight dismiss", kindInsight, componentID{action: "d", num: 3, sortBy: sortDiscrimination, ref: "0a1b2c3d"}, "iq1:d:3:d:0:0a1b2c3d"},
		{"regrade form", kindRegradeForm, componentID{num: 12}, "ik1:12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.id(tt.id); got != tt.want {
				t.Errorf("%s.id(%+v) = %q, want %q", tt.kind, tt.id, got, tt.want)
			}
			got, err := tb.parseCustomID(tt.want)
			want := tt.id
			want.kind = tt.kind
			if err != nil || got != want {
				t.Errorf("parseCustomID(%q) = %+v, %v; want %+v", tt.want, got, err, want)
			}
		})
	}
}

func TestCustomIDRejects(t *testing.T) {
	t.Parallel()
	tb := productionTable(t)
	for _, id := range []string{
		"", "a1", "a1:", "a1:0", "a1:-1", "a1:01", "a1:x", "a1:1:2", "a2:1", "q:8001:42",
		"a1:18446744073709551616", "lb1:year:p:0", "lb1:week:x:0", "lb1:week:p:-1", "lb1:week:p:01",
		"lb1:week:p", "lb1:week:p:100001", "rs1:all:0:7001", "rs1:member:5:6", "cf1:confirm:0", "cf1:confirm:01", "cf1:undo:1",
		"cf1:confirm", "cf1:cancel:1:2", "cf1:Confirm:1", "cf2:confirm:1", "cf1::1", "cf1:confirm:-1",
		"a1:" + strings.Repeat("1", 120),
		"pm1", "pm1:", "pm1:0", "pm1:01", "pm1:1:2", "pm2:1", "pd1:add", "pd1:add:0", "pd1:approve:1", "pd1:ADD:1",
		"pd1:add:1:2", "sg1:add:1", "sg1:reject:-1", "sg1:next:x", "sg1::1",
		"rv1", "rv1:", "rv1:0", "rv1:01", "rv1:1:2", "rn1", "rn1:", "rn1:skip", "rn1:next:1", "rp1:x", "rm1:-3",
		"rc1:0", "rc1:", "rc1:1:1", "rp2:1", "a1:1|2", "rn1:next|stop",
		"in1:x:0:-", "in1:f:01:-", "in1:f:0:AWS", "in1:f:0:0A1B2C3D", "in1:f:0", "iq1:x:1:f:0:-", "iq1:s:0:f:0:-",
		"iq1:s:4294967296:f:0:-", "iq1:s:1:f:0", "iq1:s:01:f:0:-", "iq1:s|d:1:f:0:-", "in1:f|d:0:-", "ik1:0", "ik1:01", "ik1:", "ik1:1:2",
	} {
		if got, err := tb.parseCustomID(id); err == nil {
			t.Errorf("parseCustomID(%q) = %+v, want an error", id, got)
		}
	}
}

// TestCustomIDModalsApart: a form's custom ID is answered as a form only,
// and a button's as a button only.
func TestCustomIDModalsApart(t *testing.T) {
	t.Parallel()
	tb := productionTable(t)
	for _, tt := range []struct {
		id    string
		modal bool
	}{{"pm1:1", true}, {"rm1:1", true}, {"pd1:add:1", false}, {"a1:1", false}, {"rp1:1", false},
		{"ik1:1", true}, {"iq1:r:1:f:0:-", false}} {
		if _, _, ok := tb.component(tt.id, tt.modal); !ok {
			t.Errorf("%q as a modal %v: not routed, want routed", tt.id, tt.modal)
		}
		if _, _, ok := tb.component(tt.id, !tt.modal); ok {
			t.Errorf("%q as a modal %v: routed, want refused", tt.id, !tt.modal)
		}
	}
}

func FuzzParseCustomID(f *testing.F) {
	for _, s := range []string{"a1:1", "lb1:day:a:2", "rs1:member:5:6", "cf1:confirm:5", "cf1:cancel:6", "a1:", ":::", "lb1:all:p:99999",
		"pm1:7", "pd1:add:7", "pd1:cancel:7", "pd1:fix:18446744073709551615", "sg1:approve:9", "sg1:reject:9", "sg1:next:9", "pd1:next:9",
		"rv1:4", "rn1:next", "rn1:stop", "rp1:4", "rm1:4", "rc1:3",
		"in1:f:0:-", "in1:d:3:0a1b2c3d", "iq1:s:1:f:0:-", "iq1:r:7:d:2:0a1b2c3d", "iq1:d:9:f:0:-", "ik1:5"} {
		f.Add(s)
	}
	tb := productionTable(f)
	f.Fuzz(func(t *testing.T, s string) {
		id, err := tb.parseCustomID(s)
		if err != nil {
			return
		}
		// Whatever parses must encode back to the same string.
		if again := id.kind.id(id); again != s {
			t.Fatalf("parse(%q) = %+v re-encodes as %q", s, id, again)
		}
	})
}
