package sqllint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInnerStatements holds the statements of a body to their positions,
// parsed together and, when PostgreSQL refuses them together, one by one.
func TestInnerStatements(t *testing.T) {
	const file = "DROP TABLE t -- gone\nALTER TABLE u ADD;\nTRUNCATE v CASCADE"
	for _, tt := range []struct {
		name    string
		queries []string
		want    []string
	}{
		{"together, a comment at the end of one", []string{"DROP TABLE t -- gone", "TRUNCATE v CASCADE"}, []string{"1:1 sql-drop", "3:1 sql-truncate-cascade"}},
		{"one by one", []string{"DROP TABLE t -- gone", "ALTER TABLE u ADD", "TRUNCATE v CASCADE"}, []string{"1:1 sql-drop", "2:1 sql-do-unchecked", "3:1 sql-truncate-cascade"}},
		{"too many to read one by one", append(strings.Split(strings.Repeat("DROP TABLE t -- gone,", maxSeparateParses), ","), "ALTER TABLE u ADD"), []string{"1:1 sql-do-unchecked"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := NewSession(Config{LockTimeout: 1}).newLinter(file)
			var ats []int
			var queries []string
			for _, q := range tt.queries {
				if q == "" {
					continue
				}
				queries, ats = append(queries, q), append(ats, strings.Index(file, q))
			}
			l.innerStatements(queries, ats)
			var got []string
			for _, f := range l.out {
				got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Code))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
