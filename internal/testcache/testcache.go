// Package testcache gives a test binary a migrations' parse cache of its
// own, for the tests that render or validate migrations in-process or by
// running themselves as codeloc: the first lint of each migration is
// cold, the others read it, and nothing is written under the user's home.
package testcache

import (
	"fmt"
	"os"
	"testing"

	"github.com/codeloc/codeloc/validate/sqllint"
)

// Run runs m's tests with a temporary parse cache folder (removed after)
// named by sqllint.CacheDirEnv, and returns their exit code.
func Run(m *testing.M) int {
	cache, err := os.MkdirTemp("", "codeloc-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(cache)
	if err := os.Setenv(sqllint.CacheDirEnv, cache); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
