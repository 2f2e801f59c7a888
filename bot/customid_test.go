package bot

import (
	"strings"
	"testing"

	"github.com/quizhost/quizhost/questions"
)

func TestCustomIDRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
		want componentID
	}{
		{"answer", answerCustomID(42), componentID{kind: kindAnswer, post: 42}},
		{"board", boardCustomID(questions.PeriodWeek, questions.ByAccuracy, 3),
			componentID{kind: kindBoard, period: questions.PeriodWeek, ranking: questions.ByAccuracy, page: 3}},
		{"board points", boardCustomID(questions.PeriodAll, questions.ByPoints, 0),
			componentID{kind: kindBoard, period: questions.PeriodAll, ranking: questions.ByPoints}},
		{"confirm", confirmCustomID("confirm", 7), componentID{kind: kindConfirm, action: "confirm", confirm: 7}},
		{"cancel", confirmCustomID("cancel", 18446744073709551615), componentID{kind: kindConfirm, action: "cancel", confirm: 18446744073709551615}},
		{"modal", modalCustomID(12), componentID{kind: kindModal, draft: 12}},
		{"draft add", draftCustomID("add", 12), componentID{kind: kindDraft, action: "add", draft: 12}},
		{"draft fix", draftCustomID("fix", 18446744073709551615), componentID{kind: kindDraft, action: "fix", draft: 18446744073709551615}},
		{"review approve", reviewCustomID("approve", 3), componentID{kind: kindReview, action: "approve", draft: 3}},
		{"review next", reviewCustomID("next", 3), componentID{kind: kindReview, action: "next", draft: 3}},
		{"study answer", studyCustomID(77), componentID{kind: kindStudy, review: 77}},
		{"study next", studyNextCustomID("next"), componentID{kind: kindStudyNext, action: "next"}},
		{"study stop", studyNextCustomID("stop"), componentID{kind: kindStudyNext, action: "stop"}},
		{"report", reportCustomID(5), componentID{kind: kindReport, post: 5}},
		{"report modal", reportModalCustomID(5), componentID{kind: kindReportModal, post: 5}},
		{"report close", reportCloseCustomID(9), componentID{kind: kindReportClose, report: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCustomID(tt.id)
			if err != nil {
				t.Fatalf("parseCustomID(%q): %v", tt.id, err)
			}
			if got != tt.want {
				t.Errorf("parseCustomID(%q) = %+v, want %+v", tt.id, got, tt.want)
			}
		})
	}
}

func TestCustomIDRejects(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		"", "a1", "a1:", "a1:0", "a1:-1", "a1:01", "a1:x", "a1:1:2", "a2:1", "q:8001:42",
		"a1:18446744073709551616", "lb1:year:p:0", "lb1:week:x:0", "lb1:week:p:-1", "lb1:week:p:01",
		"lb1:week:p", "rs1:all:0:7001", "rs1:member:5:6", "cf1:confirm:0", "cf1:confirm:01", "cf1:undo:1",
		"cf1:confirm", "cf1:cancel:1:2", "cf1:Confirm:1", "cf2:confirm:1", "cf1::1", "cf1:confirm:-1",
		"a1:" + strings.Repeat("1", 120),
		"pm1", "pm1:", "pm1:0", "pm1:01", "pm1:1:2", "pm2:1", "pd1:add", "pd1:add:0", "pd1:approve:1", "pd1:ADD:1",
		"pd1:add:1:2", "sg1:add:1", "sg1:reject:-1", "sg1:next:x", "sg1::1",
		"rv1", "rv1:", "rv1:0", "rv1:01", "rv1:1:2", "rn1", "rn1:", "rn1:skip", "rn1:next:1", "rp1:x", "rm1:-3",
		"rc1:0", "rc1:", "rc1:1:1", "rp2:1",
	} {
		if got, err := parseCustomID(id); err == nil {
			t.Errorf("parseCustomID(%q) = %+v, want an error", id, got)
		}
	}
}

func FuzzParseCustomID(f *testing.F) {
	for _, s := range []string{"a1:1", "lb1:day:a:2", "rs1:member:5:6", "cf1:confirm:5", "cf1:cancel:6", "a1:", ":::", "lb1:all:p:99999",
		"pm1:7", "pd1:add:7", "pd1:cancel:7", "pd1:fix:18446744073709551615", "sg1:approve:9", "sg1:reject:9", "sg1:next:9", "pd1:next:9",
		"rv1:4", "rn1:next", "rn1:stop", "rp1:4", "rm1:4", "rc1:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parseCustomID(s)
		if err != nil {
			return
		}
		// Whatever parses must encode back to the same string.
		var again string
		switch id.kind {
		case kindAnswer:
			again = answerCustomID(id.post)
		case kindBoard:
			again = boardCustomID(id.period, id.ranking, id.page)
		case kindConfirm:
			again = confirmCustomID(id.action, id.confirm)
		case kindModal:
			again = modalCustomID(id.draft)
		case kindDraft:
			again = draftCustomID(id.action, id.draft)
		case kindReview:
			again = reviewCustomID(id.action, id.draft)
		case kindStudy:
			again = studyCustomID(id.review)
		case kindStudyNext:
			again = studyNextCustomID(id.action)
		case kindReport:
			again = reportCustomID(id.post)
		case kindReportModal:
			again = reportModalCustomID(id.post)
		case kindReportClose:
			again = reportCloseCustomID(id.report)
		default:
			t.Fatalf("parsed %q to unknown kind %d", s, id.kind)
		}
		if again != s {
			t.Fatalf("parse(%q) re-encodes as %q", s, again)
		}
		if len(again) > 100 {
			t.Fatalf("custom id %q longer than 100", again)
		}
	})
}
