package sqllint_test

import (
	"os"
	"strings"
	"testing"

	"github.com/codeloc/codeloc/validate/sqllint"
)

func TestZZProbe(t *testing.T) {
	data, _ := os.ReadFile("/tmp/probe.sql")
	for _, c := range strings.Split(string(data), "\n----\n") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		fs := sqllint.Lint(c, sqllint.Config{})
		t.Logf("\n%s\n=> %v", c, brief(fs))
	}
}
