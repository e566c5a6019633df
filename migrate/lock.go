package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
)

// LockKey is the session advisory lock key of a code-location's migrations:
// the first 8 bytes of sha256("codeloc:migrate:" + codeLocation). Unlike
// hashtext, it is the same on every PostgreSQL version.
func LockKey(codeLocation string) int64 {
	return keyOf("codeloc:migrate:" + codeLocation)
}

// ledgerCreateKey serializes the creation of the ledger table across
// code-locations (CREATE TABLE IF NOT EXISTS is not safe when concurrent).
var ledgerCreateKey = keyOf("codeloc:ledger")

func keyOf(s string) int64 {
	sum := sha256.Sum256([]byte(s))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// lock takes the session advisory lock of codeLocation on conn, waiting
// (within ctx) for another run to finish; it says so on out when it waits.
// The returned function releases it; so does the end of the session.
func lock(ctx context.Context, conn *pgx.Conn, codeLocation string, out io.Writer) (func(), error) {
	key := LockKey(codeLocation)
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		return nil, fmt.Errorf("cannot take the migration lock of %s: %w", codeLocation, err)
	}
	if !ok {
		fmt.Fprintf(out, "waiting for another migration of %s to finish (advisory lock %d)\n", codeLocation, key)
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
			return nil, fmt.Errorf("waiting for the migration lock of %s: %w", codeLocation, err)
		}
	}
	return func() {
		if conn.IsClosed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", key) //nolint:errcheck // closing the session releases it too
	}, nil
}
