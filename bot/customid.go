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
)

// componentID is a parsed custom ID.
type componentID struct {
	kind    componentKind
	post    questions.PostID         // kindAnswer, kindReport, kindReportModal
	review  questions.ReviewID       // kindStudy
	period  questions.Period         // kindBoard
	ranking questions.Ranking        // kindBoard
	page    int                      // kindBoard, 0-based
	draft   questions.DraftID        // kindModal, kindDraft, kindReview
	action  string                   // kindDraft: add, cancel, fix; kindReview: approve, reject, next; kindStudyNext: next, stop; kindConfirm: confirm, cancel
	report  questions.ReportID       // kindReportClose
	confirm questions.ConfirmationID // kindConfirm: the stored confirmation
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

func confirmCustomID(action string, confirmation questions.ConfirmationID) string {
	return fmt.Sprintf("cf1:%s:%d", action, confirmation)
}

func modalCustomID(draft questions.DraftID) string { return "pm1:" + draft.String() }

func draftCustomID(action string, draft questions.DraftID) string {
	return fmt.Sprintf("pd1:%s:%d", action, draft)
}

func reviewCustomID(action string, draft questions.DraftID) string {
	return fmt.Sprintf("sg1:%s:%d", action, draft)
}

func studyCustomID(review questions.ReviewID) string { return "rv1:" + review.String() }

func studyNextCustomID(action string) string { return "rn1:" + action }

func reportCustomID(post questions.PostID) string { return "rp1:" + post.String() }

func reportModalCustomID(post questions.PostID) string { return "rm1:" + post.String() }

func reportCloseCustomID(report questions.ReportID) string { return "rc1:" + report.String() }

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
		id, ok := parseID[questions.ConfirmationID](f[2])
		if !ok || (f[1] != "confirm" && f[1] != "cancel") {
			break
		}
		return componentID{kind: kindConfirm, action: f[1], confirm: id}, nil
	case f[0] == "rv1" && len(f) == 2:
		review, ok := parseID[questions.ReviewID](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindStudy, review: review}, nil
	case (f[0] == "rp1" || f[0] == "rm1") && len(f) == 2:
		post, ok := parseID[questions.PostID](f[1])
		if !ok {
			break
		}
		kind := map[string]componentKind{"rp1": kindReport, "rm1": kindReportModal}[f[0]]
		return componentID{kind: kind, post: post}, nil
	case f[0] == "rn1" && len(f) == 2:
		if f[1] != "next" && f[1] != "stop" {
			break
		}
		return componentID{kind: kindStudyNext, action: f[1]}, nil
	case f[0] == "rc1" && len(f) == 2:
		report, ok := parseID[questions.ReportID](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindReportClose, report: report}, nil
	case f[0] == "pm1" && len(f) == 2:
		draft, ok := parseID[questions.DraftID](f[1])
		if !ok {
			break
		}
		return componentID{kind: kindModal, draft: draft}, nil
	case (f[0] == "pd1" || f[0] == "sg1") && len(f) == 3:
		kind, actions := kindDraft, []string{"add", "cancel", "fix"}
		if f[0] == "sg1" {
			kind, actions = kindReview, []string{"approve", "reject", "next"}
		}
		draft, ok := parseID[questions.DraftID](f[2])
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
