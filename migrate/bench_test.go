package migrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/codeloc/codeloc/migrate"
)

// BenchmarkMigrate measures a first run of 100 small files (each iteration
// in a fresh schema, which holds its own ledger), and a re-run with nothing
// to do, on an open connection and with the connection a Job opens.
func BenchmarkMigrate(b *testing.B) {
	url := newDB(b)
	files, err := migrate.Load(writeFiles(b, smallFiles(100)), nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	opts := migrate.Options{CodeLocation: "citation", Revision: "a3f9c1d", Files: files}
	admin := connect(b, url)

	b.Run("first-run-100-files", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			conn := inSchema(b, admin, url, fmt.Sprintf("bench_%d_%d", b.N, i))
			b.StartTimer()
			if sum, err := migrate.Run(ctx, conn, opts); err != nil || sum.Applied != 100 {
				b.Fatal(sum.Line(err))
			}
			b.StopTimer()
			conn.Close(ctx)
			b.StartTimer()
		}
	})

	conn := inSchema(b, admin, url, "bench_rerun")
	if sum, err := migrate.Run(ctx, conn, opts); err != nil {
		b.Fatal(sum.Line(err))
	}
	b.Run("no-op-rerun-100-files", func(b *testing.B) {
		for b.Loop() {
			if sum, err := migrate.Run(ctx, conn, opts); err != nil || sum.AlreadyApplied != 100 {
				b.Fatal(sum.Line(err))
			}
		}
	})
	cfg := conn.Config().Copy()
	b.Run("no-op-rerun-100-files-with-connect", func(b *testing.B) {
		for b.Loop() {
			c, err := migrate.Connect(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if sum, err := migrate.Run(ctx, c, opts); err != nil || sum.AlreadyApplied != 100 {
				b.Fatal(sum.Line(err))
			}
			c.Close(ctx)
		}
	})
}

// inSchema creates schema and returns a connection whose search_path is it.
func inSchema(b *testing.B, admin *pgx.Conn, url, schema string) *pgx.Conn {
	b.Helper()
	mustExec(b, admin, "CREATE SCHEMA "+schema)
	cfg, err := migrate.ConnConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = schema
	conn, err := migrate.Connect(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
