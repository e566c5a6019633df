// Package pgtimeout is the one definition of the migration Job's timeouts
// that the contract (validate), the render (the Job's flags) and the Job
// itself (migrate) must agree on: their bounds, their text and the
// contract settings that hold them.
package pgtimeout

import (
	"fmt"
	"strconv"
	"time"
)

// Contract settings of the timeouts, named in the Job's failure line.
const (
	LockSetting      = "database.migrations.lockTimeout"
	StatementSetting = "database.migrations.statementTimeout"
)

// Max is the largest lock_timeout or statement_timeout PostgreSQL takes
// (INT_MAX milliseconds).
const Max = 2147483647 * time.Millisecond

// Check says what is wrong with a timeout, if anything: whole milliseconds
// from 0 (none) to Max.
func Check(d time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%s is negative (0 disables it)", d)
	case d%time.Millisecond != 0:
		return fmt.Errorf("%s is not a whole number of milliseconds", d)
	case d > Max:
		return fmt.Errorf("%s is above PostgreSQL's limit of 2147483647ms", d)
	}
	return nil
}

// Format writes d as PostgreSQL and the Job's flags read it: "5s",
// "300s", "250ms", "0".
func Format(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}
