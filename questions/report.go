package questions

import (
	"time"
)

// MaxReportText is the most characters a report's text keeps.
const MaxReportText = 1000

// Report is a member's report that a question is wrong (its key, its
// wording, an option), made with the Report button of a revealed question
// and listed by /quizadmin reports until an admin closes it.
type Report struct {
	ID         ReportID // allocated by storage, per guild, from 1
	GuildID    GuildID
	QuestionID string
	PostID     PostID // the post the report was made on
	UserID     UserID // who reported
	Text       string // what is wrong, in the member's words
	At         time.Time
}

// Regraded is what a regrade did: every stored answer to one question
// (posts and reviews) graded again against the question's current key.
type Regraded struct {
	Answers int // answers graded again
	Changed int // of them, whose grade changed (right/wrong, right picks or points)
	Posts   int // posts of the question whose key changed
}
