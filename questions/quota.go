package questions

import (
	"fmt"
)

// Quota bounds what one server keeps in imported banks, so that no server
// costs the others memory or time: its bank set is parsed whole. A bound
// of 0 is no bound.
type Quota struct {
	// Banks is how many imported banks the server may keep.
	Banks int
	// Questions is how many questions its imported banks may hold in all.
	Questions int
	// Bytes is how large its banks may be in all, as stored (the YAML that
	// /quizadmin export returns, not the files uploaded).
	Bytes int64
}

// DefaultQuota is a server's quota unless the operator sets another
// (QUIZHOST_QUOTA_BANKS, QUIZHOST_QUOTA_QUESTIONS,
// QUIZHOST_QUOTA_BANK_BYTES).
var DefaultQuota = Quota{Banks: 50, Questions: 20_000, Bytes: 20 << 20}

// BankUsage is what a server's imported banks take, measured as Quota
// bounds them.
type BankUsage struct {
	Banks     int
	Questions int
	Bytes     int64
}

// Check returns a *QuotaError for the first bound of q that after exceeds
// and before did not already exceed as much: a change that takes a server
// past a bound is refused, one that shrinks a server already past it (the
// operator lowered the bound) is not. Nil when the change fits.
func (q Quota) Check(before, after BankUsage) error {
	for _, c := range []struct {
		what                 string
		before, after, limit int64
	}{
		{"banks", int64(before.Banks), int64(after.Banks), int64(q.Banks)},
		{"questions", int64(before.Questions), int64(after.Questions), int64(q.Questions)},
		{"bytes", before.Bytes, after.Bytes, q.Bytes},
	} {
		if c.limit > 0 && c.after > c.limit && c.after > c.before {
			return &QuotaError{What: c.what, Have: c.after, Limit: c.limit}
		}
	}
	return nil
}

// QuotaError is a change refused by a server's Quota: it would have taken
// What ("banks", "questions" or "bytes") to Have, past Limit. It matches
// ErrOverQuota with errors.Is.
type QuotaError struct {
	What  string
	Have  int64
	Limit int64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("%s: the server's banks would have %d %s, and may have %d", ErrOverQuota, e.Have, e.What, e.Limit)
}

// Is reports whether target is ErrOverQuota.
func (e *QuotaError) Is(target error) bool { return target == ErrOverQuota }
