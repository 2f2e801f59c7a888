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
		{"study answer", studyCustomID(77), componentID{kind: kindStudy, post: 77}},
		{"study next", studyNextCustomID("next"), componentID{kind: kindStudyNext, action: "next"}},
		{"study stop", studyNextCustomID("stop"), componentID{kind: kindStudyNext, action: "stop"}},
		{"report", reportCustomID(5), componentID{kind: kindReport, post: 5}},
		{"report modal", reportModalCustomID(5), componentID{kind: kindReportModal, post: 5}},
		{"report close", reportCloseCustomID(9), componentID{kind: kindReportClose, report: 9}},
		{"insights page", insightsPageCustomID(sortDiscrimination, 2, "-"), componentID{kind: kindInsights, sortBy: sortDiscrimination, page: 2, ref: "-"}},
		{"insights page of a bank", insightsPageCustomID(sortFacility, 0, bankRef("AWS")), componentID{kind: kindInsights, sortBy: sortFacility, ref: bankRef("AWS")}},
		{"insight show", insightCustomID("s", 4294967295, insightCtx{sort: sortFacility, page: 1, ref: "-"}),
			componentID{kind: kindInsight, action: "s", num: 4294967295, sortBy: sortFacility, page: 1, ref: "-"}},
		{"insight dismiss", insightCustomID("d", 3, insightCtx{sort: sortDiscrimination, ref: "0a1b2c3d"}),
			componentID{kind: kindInsight, action: "d", num: 3, sortBy: sortDiscrimination, ref: "0a1b2c3d"}},
		{"regrade form", regradeModalCustomID(12), componentID{kind: kindRegradeForm, num: 12}},
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
		"in1:x:0:-", "in1:f:01:-", "in1:f:0:AWS", "in1:f:0:0A1B2C3D", "in1:f:0", "iq1:x:1:f:0:-", "iq1:s:0:f:0:-",
		"iq1:s:4294967296:f:0:-", "iq1:s:1:f:0", "ik1:0", "ik1:01", "ik1:", "ik1:1:2",
	} {
		if got, err := parseCustomID(id); err == nil {
			t.Errorf("parseCustomID(%q) = %+v, want an error", id, got)
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
			again = studyCustomID(id.post)
		case kindStudyNext:
			again = studyNextCustomID(id.action)
		case kindReport:
			again = reportCustomID(id.post)
		case kindReportModal:
			again = reportModalCustomID(id.post)
		case kindReportClose:
			again = reportCloseCustomID(id.report)
		case kindInsights:
			again = insightsPageCustomID(id.sortBy, id.page, id.ref)
		case kindInsight:
			again = insightCustomID(id.action, id.num, insightCtx{sort: id.sortBy, page: id.page, ref: id.ref})
		case kindRegradeForm:
			again = regradeModalCustomID(id.num)
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
