package migrate_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestADRMigrationWithPgvector applies the ADR's own migration, the
// citation fixture's (extension vector, a vector(384) column, an HNSW index
// built CONCURRENTLY in a no-transaction file), to PostgreSQL 15 with
// pgvector, which .ci/postgres.sh builds from Debian trixie's source
// package.
func TestADRMigrationWithPgvector(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	conn := connect(t, url)
	if got := query(t, conn, "SELECT count(*)::text FROM pg_available_extensions WHERE name = 'vector'"); got[0] != "1" {
		msg := "pgvector is not installed in the test PostgreSQL: run `bash .ci/postgres.sh pgvector`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := filepath.Join("..", "fixtures", "citation", "migrations")
	const file = "001-researchers-hnsw.sql"

	first := run(t, url, dir, "citation", false, file)
	if first.err != nil {
		t.Fatal(first.err)
	}
	if got, want := first.out, "applied "+file+" (N ms)\n"; got != want {
		t.Errorf("first run printed %q, want %q", got, want)
	}
	if got := query(t, conn, "SELECT extversion FROM pg_extension WHERE extname = 'vector'"); !slices.Equal(got, []string{"0.8.0"}) {
		t.Errorf("vector extension version = %q, want 0.8.0", got)
	}
	if got := query(t, conn, `SELECT am.amname || ' ' || i.indisvalid || ' ' || i.indisready
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
		WHERE i.indexrelid = 'researchers_embedding_hnsw'::regclass`); !slices.Equal(got, []string{"hnsw true true"}) {
		t.Errorf("researchers_embedding_hnsw (access method, valid, ready) = %q, want hnsw true true", got)
	}

	// A nearest-neighbour query uses the index.
	query(t, conn, `INSERT INTO researchers (full_name, embedding)
		SELECT 'researcher ' || i, (SELECT array_agg(((i * j) % 13)::real / 13 + 0.01) FROM generate_series(1, 384) j)::vector(384)
		FROM generate_series(1, 50) i RETURNING 'ok'`)
	probe := "[" + strings.Repeat("0.25,", 383) + "0.5]"
	mustExec(t, conn, "SET enable_seqscan = off")
	plan := strings.Join(query(t, conn, "EXPLAIN SELECT id FROM researchers ORDER BY embedding <=> '"+probe+"'::vector LIMIT 5"), "\n")
	if !strings.Contains(plan, "Index Scan using researchers_embedding_hnsw on researchers") {
		t.Errorf("the nearest-neighbour query does not use the HNSW index:\n%s", plan)
	}
	if got := query(t, conn, "SELECT count(*)::text FROM (SELECT id FROM researchers ORDER BY embedding <=> '"+probe+"'::vector LIMIT 5) s"); got[0] != "5" {
		t.Errorf("the nearest-neighbour query returned %s rows, want 5", got[0])
	}
	mustExec(t, conn, "RESET enable_seqscan")

	ledger := query(t, conn, "SELECT name || ' ' || sha256 || ' ' || applied_at FROM codeloc_schema_migrations")
	second := run(t, url, dir, "citation", false, file)
	if second.err != nil {
		t.Fatal(second.err)
	}
	if second.out != "" || second.line() != "migrate citation: applied 0, already applied 1, 0 pending" {
		t.Errorf("second run printed %q, %q; want nothing applied", second.out, second.line())
	}
	if diff := cmp.Diff(ledger, query(t, conn, "SELECT name || ' ' || sha256 || ' ' || applied_at FROM codeloc_schema_migrations")); diff != "" {
		t.Errorf("the second run changed the ledger (-before +after):\n%s", diff)
	}
}
