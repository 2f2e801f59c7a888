package bot

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/quizhost/quizhost/questions"
)

// errUser is an error whose text is meant for the member.
type errUser struct{ msg string }

func (e errUser) Error() string { return e.msg }

func userErr(format string, a ...any) error { return errUser{fmt.Sprintf(format, a...)} }

func isUser(err error) (string, bool) {
	var u errUser
	if errors.As(err, &u) {
		return u.msg, true
	}
	return "", false
}

// tokenInURL matches the interaction token in the REST routes that carry
// one; an *url.Error from net/http quotes the whole URL.
var tokenInURL = regexp.MustCompile(`(/interactions/\d+/|/webhooks/\d+/)[^/?\s"]+`)

// redact is err's text without interaction tokens, for logs: a token
// answers for its interaction for 15 minutes.
func redact(err error) string {
	return tokenInURL.ReplaceAllString(err.Error(), "${1}<token>")
}

// storeErr turns a domain error into a message for the member, or passes
// the error on to be logged.
func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, questions.ErrNotFound):
		return userErr("That question no longer exists.")
	case errors.Is(err, questions.ErrClosed):
		return userErr("This question is closed: answers are no longer taken.")
	case errors.Is(err, questions.ErrWrongGuild):
		return userErr("That question belongs to another server.")
	case errors.Is(err, questions.ErrBadChoice):
		return userErr("That answer doesn't match the options offered. Pick again from the menu.")
	}
	return err
}
