package migrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// invalidIndex is an index left INVALID by a failed or interrupted
// concurrent build.
type invalidIndex struct {
	Index string // schema-qualified, quoted when needed
	Table string
}

// invalidIndexesSQL lists the INVALID indexes of the current database,
// except those another session is building right now.
const invalidIndexesSQL = `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname),
       quote_ident(tn.nspname) || '.' || quote_ident(t.relname)
FROM pg_index i
JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_namespace tn ON tn.oid = t.relnamespace
WHERE NOT i.indisvalid
  AND i.indexrelid NOT IN (SELECT index_relid FROM pg_stat_progress_create_index
                           WHERE index_relid IS NOT NULL AND pid <> pg_backend_pid())
ORDER BY 1`

// invalidIndexes lists the INVALID indexes of the current database.
func invalidIndexes(ctx context.Context, conn *pgx.Conn) ([]invalidIndex, error) {
	rows, err := conn.Query(ctx, invalidIndexesSQL)
	if err != nil {
		return nil, fmt.Errorf("cannot look for INVALID indexes: %w", err)
	}
	idx, err := pgx.CollectRows(rows, pgx.RowToStructByPos[invalidIndex])
	if err != nil {
		return nil, fmt.Errorf("cannot look for INVALID indexes: %w", err)
	}
	return idx, nil
}

// describeInvalid explains INVALID indexes and how to fix them, one line
// each after a heading.
func describeInvalid(heading string, idx []invalidIndex) string {
	var b strings.Builder
	b.WriteString(heading)
	for _, i := range idx {
		fmt.Fprintf(&b, "\n  INVALID index %s on %s; fix: DROP INDEX CONCURRENTLY %s; then re-run", i.Index, i.Table, i.Index)
	}
	return b.String()
}
