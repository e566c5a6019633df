package pgtimeout_test

import (
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/pgtimeout"
)

func TestFormatAndCheck(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
		err  string
	}{
		{0, "0", ""},
		{200 * time.Millisecond, "200ms", ""},
		{5 * time.Second, "5s", ""},
		{5 * time.Minute, "300s", ""},
		{1500 * time.Millisecond, "1500ms", ""},
		{-time.Second, "", "-1s is negative (0 disables it)"},
		{1500 * time.Microsecond, "", "1.5ms is not a whole number of milliseconds"},
		{pgtimeout.Max + time.Millisecond, "", "596h31m23.648s is above PostgreSQL's limit of 2147483647ms"},
	} {
		err := pgtimeout.Check(tt.d)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("Check(%v) = %v, want %q", tt.d, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("Check(%v) = %v", tt.d, err)
		case tt.err == "" && pgtimeout.Format(tt.d) != tt.want:
			t.Errorf("Format(%v) = %q, want %q", tt.d, pgtimeout.Format(tt.d), tt.want)
		}
	}
}

// TestLockTimeoutAsAnOrdinaryRole: a role without pg_read_all_stats sees
// the blocker's pid but not its query_start, and a role that cannot open
// the second session still gets the line, saying why the blockers are
// unknown.
