package bot

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quizhost/quizhost/questions"
)

// Custom IDs travel through Discord's clients and come back as untrusted
// data. They all go through this codec: a kind with a version ("a1"), then
// colon-separated typed fields, at most 100 characters, parsed strictly.
//
//	a1:<post>                          the answer select of a post
//	lb1:<period>:<p|a>:<page>          leaderboard paging (p = points, a = accuracy)
//	cf1:<confirm|cancel>:<confirmation>  the buttons of a prompt to confirm (reset, bank remove, import replace, question remove)
//	pm1:<draft>                        the paste modal of a draft (/quizadmin add, /quiz suggest)
//	pd1:<add|cancel|fix>:<draft>       a draft's preview buttons
//	sg1:<approve|reject|next>:<draft>  the review of a queued suggestion
//	rv1:<review>                       the answer select of a question in /quiz review
//	rn1:<next|stop>                    the buttons after a graded review question
//	rp1:<post>                         the Report button of a revealed question
//	rm1:<post>                         the report modal of a post
//	rc1:<report>                       the Close button of an open report (/quizadmin reports)
//	in1:<f|d>:<page>:<bank ref>        insights paging (f = by facility, d = by discrimination; bank ref: see bankRef)
//	iq1:<s|r|d>:<question number>:<f|d>:<page>:<bank ref>   an insights entry's Show, Regrade…, Dismiss
//	ik1:<question number>              the regrade form of an insights entry

// componentKind says what a component does.
type componentKind int

const (
	kindAnswer componentKind = iota + 1
	kindBoard
	kindConfirm // Confirm or Cancel of a stored confirmation
	kindModal
	kindDraft
	kindReview
	kindStudy       // an answer in /quiz review
	kindStudyNext   // next or stop after a graded review question
	kindReport      // the Report button
	kindReportModal // the report modal
	kindReportClose // closing a report
	kindInsights    // an insights page
	kindInsight     // an insights entry's button
	kindRegradeForm // the regrade form of an insights entry
)

// componentID is a parsed custom ID.
type componentID struct {
	kind    componentKind
	post    questions.PostID  // kindAnswer, kindStudy (the review), kindReport, kindReportModal
	period  questions.Period  // kindBoard
	ranking questions.Ranking // kindBoard
	page    int               // kindBoard, 0-based
	draft   uint64            // kindModal, kindDraft, kindReview
	action  string            // kindDraft: add, cancel, fix; kindReview: approve, reject, next; kindStudyNext: next, stop; kindConfirm: confirm, cancel
	report  uint64            // kindReportClose
	confirm uint64            // kindConfirm: the stored confirmation (questions.Confirmation)
	num     uint32            // kindInsight, kindRegradeForm: the guild's question number
	sortBy  string            // kindInsights, kindInsight: sortFacility or sortDiscrimination
	ref     string            // kindInsights, kindInsight: the bank (bankRef)
}

// insightCtx is the page an insights entry's button was on.
type insightCtx struct {
	sort string
	page int
	ref  string
}

func sortCode(sort string) string {
	if sort == sortDiscrimination {
		return "d"
	}
	return "f"
}

func insightsPageCustomID(sort string, page int, ref string) string {
	return fmt.Sprintf("in1:%s:%d:%s", sortCode(sort), page, ref)
}

func insightCustomID(action string, num uint32, ctx insightCtx) string {
	return fmt.Sprintf("iq1:%s:%d:%s:%d:%s", action, num, sortCode(ctx.sort), ctx.page, ctx.ref)
}

func regradeModalCustomID(num uint32) string { return "ik1:" + strconv.FormatUint(uint64(num), 10) }

// parseInsightsCtx parses <f|d>:<page>:<bank ref>.
func parseInsightsCtx(f []string) (sort string, page int, ref string, ok bool) {
	switch f[0] {
	case "f":
		sort = sortFacility
	case "d":
		sort = sortDiscrimination
	default:
		return "", 0, "", false
	}
	page, err := strconv.Atoi(f[1])
	if err != nil || page < 0 || page > 100000 || strconv.Itoa(page) != f[1] {
		return "", 0, "", false
	}
	if f[2] != "-" && (len(f[2]) != 8 || strings.Trim(f[2], "0123456789abcdef") != "") {
		return "", 0, "", false
	}
	return sort, page, f[2], true
}

// parseNum parses a question number: a canonical decimal from 1 to 2³²−1.
func parseNum(s string) (uint32, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != s {
		return 0, false
	}
	return uint32(n), true
}

var errBadCustomID = errors.New("unknown or malformed custom id")

func answerCustomID(post questions.PostID) string { return "a1:" + post.String() }

func boardCustomID(p questions.Period, r questions.Ranking, page int) string {
	rk := "p"
	if r == questions.ByAccuracy {
		rk = "a"
	}
	return fmt.Sprintf("lb1:%s:%s:%d", p, rk, page)
}

func confirmCustomID(action string, confirmation uint64) string {
	return fmt.Sprintf("cf1:%s:%d", action, confirmation)
}

func modalCustomID(draft uint64) string { return "pm1:" + strconv.FormatUint(draft, 10) }

func draftCustomID(action string, draft uint64) string {
	return fmt.Sprintf("pd1:%s:%d", action, draft)
}

func reviewCustomID(action string, draft uint64) string {
	return fmt.Sprintf("sg1:%s:%d", action, draft)
}

func studyCustomID(review questions.PostID) string { return "rv1:" + review.String() }

func studyNextCustomID(action string) string { return "rn1:" + action }

func reportCustomID(post questions.PostID) string { return "rp1:" + post.String() }

func reportModalCustomID(post questions.PostID) string { return "rm1:" + post.String() }

func reportCloseCustomID(report uint64) string { return "rc1:" + strconv.FormatUint(report, 10) }

// parseCustomID decodes a custom ID made by the functions above. Anything
// else, including IDs of older versions, is errBadCustomID.
func parseCustomID(s string) (componentID, error) {
	if len(s) == 0 || len(s) > 100 {
		return componentID{}, errBadCustomID
	}
	f := strings.Split(s, ":")
	switch {
	case f[0] == "a1" && len(f) == 2:
		post, ok := parseID[questions.PostID](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindAnswer, post: post}, nil
	case f[0] == "lb1" && len(f) == 4:
		p := questions.Period(f[1])
		if !validPeriod(p) {
			break
		}
		var r questions.Ranking
		switch f[2] {
		case "p":
			r = questions.ByPoints
		case "a":
			r = questions.ByAccuracy
		default:
			return componentID{}, errBadCustomID
		}
		page, err := strconv.Atoi(f[3])
		if err != nil || page < 0 || page > 100000 || strconv.Itoa(page) != f[3] {
			break
		}
		return componentID{kind: kindBoard, period: p, ranking: r, page: page}, nil
	case f[0] == "cf1" && len(f) == 3:
		id, ok := parseID[uint64](f[2])
		if !ok || (f[1] != "confirm" && f[1] != "cancel") {
			break
		}
		return componentID{kind: kindConfirm, action: f[1], confirm: id}, nil
	case (f[0] == "rv1" || f[0] == "rp1" || f[0] == "rm1") && len(f) == 2:
		post, ok := parseID[questions.PostID](f[1])
		if !ok {
			break
		}
		kind := map[string]componentKind{"rv1": kindStudy, "rp1": kindReport, "rm1": kindReportModal}[f[0]]
		return componentID{kind: kind, post: post}, nil
	case f[0] == "rn1" && len(f) == 2:
		if f[1] != "next" && f[1] != "stop" {
			break
		}
		return componentID{kind: kindStudyNext, action: f[1]}, nil
	case f[0] == "rc1" && len(f) == 2:
		report, ok := parseID[uint64](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindReportClose, report: report}, nil
	case f[0] == "in1" && len(f) == 4:
		sort, page, ref, ok := parseInsightsCtx(f[1:])
		if !ok {
			break
		}
		return componentID{kind: kindInsights, sortBy: sort, page: page, ref: ref}, nil
	case f[0] == "iq1" && len(f) == 6:
		num, ok := parseNum(f[2])
		sort, page, ref, ok2 := parseInsightsCtx(f[3:])
		if !ok || !ok2 || (f[1] != "s" && f[1] != "r" && f[1] != "d") {
			break
		}
		return componentID{kind: kindInsight, action: f[1], num: num, sortBy: sort, page: page, ref: ref}, nil
	case f[0] == "ik1" && len(f) == 2:
		num, ok := parseNum(f[1])
		if !ok {
			break
		}
		return componentID{kind: kindRegradeForm, num: num}, nil
	case f[0] == "pm1" && len(f) == 2:
		draft, ok := parseID[uint64](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindModal, draft: draft}, nil
	case (f[0] == "pd1" || f[0] == "sg1") && len(f) == 3:
		kind, actions := kindDraft, []string{"add", "cancel", "fix"}
		if f[0] == "sg1" {
			kind, actions = kindReview, []string{"approve", "reject", "next"}
		}
		draft, ok := parseID[uint64](f[2])
		if !ok || !slices.Contains(actions, f[1]) {
			break
		}
		return componentID{kind: kind, action: f[1], draft: draft}, nil
	}
	return componentID{}, errBadCustomID
}

func validPeriod(p questions.Period) bool {
	switch p {
	case questions.PeriodDay, questions.PeriodWeek, questions.PeriodMonth, questions.PeriodAll:
		return true
	}
	return false
}

// parseID parses a snowflake or post ID: a canonical decimal above zero
// (questions.ParseID).
func parseID[T ~uint64](s string) (T, bool) {
	id, err := questions.ParseID[T](s)
	return id, err == nil
}
