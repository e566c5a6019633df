package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codeloc/codeloc/internal/names"
	"github.com/codeloc/codeloc/migrate"
)

// The fault scenarios (faults_test.go) kill or restart real processes of
// the harness: the helpers here find them, kill them and measure recovery.

// faultSleepTable holds, per migration file, how long the e2e migrations
// of the fault scenarios sleep: the scenario arms a file (seconds > 0) so
// that its statement runs long enough to be killed, then disarms it
// before the retry.
const faultSleepTable = "e2e_fault_sleep"

// faultSleep is the statement a fault migration sleeps in, for file.
func faultSleep(file string) string {
	return fmt.Sprintf("SELECT pg_sleep(coalesce((SELECT seconds FROM %s WHERE file = '%s'), 0));\n", faultSleepTable, file)
}

// armFaults creates the sleep table and arms each file for 300 s.
func (h *harness) armFaults(ctx context.Context, files ...string) error {
	stmt := "CREATE TABLE IF NOT EXISTS " + faultSleepTable + " (file text PRIMARY KEY, seconds double precision NOT NULL);"
	for _, f := range files {
		stmt += fmt.Sprintf("INSERT INTO %s VALUES ('%s', 300) ON CONFLICT (file) DO UPDATE SET seconds = 300;", faultSleepTable, f)
	}
	return h.sql(ctx, dbName, stmt)
}

// disarm makes file's sleep return at once.
func (h *harness) disarm(ctx context.Context, file string) error {
	return h.sql(ctx, dbName, fmt.Sprintf("UPDATE %s SET seconds = 0 WHERE file = '%s'", faultSleepTable, file))
}

// waitSleeping waits until a migration session of the harness's database
// sleeps in file's statement (pg_stat_activity), and returns when.
// Every 5 s it asks for a refresh of the root, of faultdb and of also: the root
// may exist already, and its periodic resync reads git through the
// repo-server's revision cache.
func (h *harness) waitSleeping(ctx context.Context, file string, timeout time.Duration, also ...string) (time.Time, error) {
	var refreshed time.Time
	err := poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		if time.Since(refreshed) > 5*time.Second {
			refreshed = time.Now()
			if states, err := h.states(ctx); err == nil {
				h.refreshExisting(ctx, states, append([]string{rootApp, faultCL}, also...))
			}
		}
		n, err := h.count(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"+
			" AND application_name = 'codeloc-migrate' AND wait_event = 'PgSleep' AND query LIKE '%"+file+"%'")
		return n == 1, err
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("no migration sleeping in %s: %w", file, err)
	}
	return time.Now(), nil
}

// count runs a query returning one integer on the harness's database.
func (h *harness) count(ctx context.Context, query string, args ...any) (int, error) {
	conn, err := h.connect(ctx, dbName)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, query, args...).Scan(&n)
	return n, err
}

// text runs a query returning one text value on the harness's database.
func (h *harness) text(ctx context.Context, query string, args ...any) (string, error) {
	conn, err := h.connect(ctx, dbName)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var s string
	err = conn.QueryRow(ctx, query, args...).Scan(&s)
	return s, err
}

// migrateProcess finds the codeloc-jobs migrate process of codeLocation
// the harness runs (it plays the kubelet: the process is its child).
func (h *harness) migrateProcess(codeLocation string) (int, error) {
	exe := filepath.Join(h.bin, names.BinaryJobs)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if len(args) > 2 && args[0] == exe && args[1] == "migrate" && slices.Contains(args, codeLocation) {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("%d codeloc-jobs migrate processes of %s, want 1", len(found), codeLocation)
	}
	return found[0], nil
}

// killMigrate sends SIGKILL to codeLocation's running migration, as the
// kubelet does to a container past its grace period (or the kernel's OOM
// killer), and returns when.
func (h *harness) killMigrate(codeLocation string) (time.Time, error) {
	pid, err := h.migrateProcess(codeLocation)
	if err != nil {
		return time.Time{}, err
	}
	return sigkill(pid)
}

// sigkill sends SIGKILL to pid and returns the time taken just before it
// was sent: the process was alive then, so its end (the job runner's
// jobRun.End) is never before it. A time taken after kill(2) returns may
// be later than that end: the victim can die and the runner's Wait
// return and record the end while the caller waits for a CPU on its way
// back from the syscall (2 cores busy with the e2e's processes; measured:
// 23 of 300 kills of a `sleep` on the loaded machine). full3 of the
// real-Dagster series lost TestMigrateFaults this way (waitRunEnded found
// no run with End at or after the kill), and TestHookDeletedOutOfBand
// behind it: the re-run was sleeping its 300 s in 002.
func sigkill(pid int) (time.Time, error) {
	sent := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return time.Time{}, fmt.Errorf("kill %d: %w", pid, err)
	}
	return sent, nil
}

// lockFree reports whether codeLocation's migration lock can be taken now
// (it is released at once): no session, dead or alive, holds it.
func (h *harness) lockFree(ctx context.Context, codeLocation string) (bool, error) {
	conn, err := h.connect(ctx, dbName)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", migrate.LockKey(codeLocation)).Scan(&ok); err != nil {
		return false, err
	}
	return ok, nil // closing the session releases it
}

// restartPostgres stops PostgreSQL (pg_ctl -m fast: every session is
// terminated, as on a restart or failover) and starts it again on the same
// port and data.
func (h *harness) restartPostgres(ctx context.Context) error {
	if out, err := exec.CommandContext(ctx, "bash", h.tools.postgresSh, "stop", h.pgDir).CombinedOutput(); err != nil {
		return fmt.Errorf("postgres.sh stop: %w\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "bash", h.tools.postgresSh, "start", h.pgDir, strconv.Itoa(h.pgPort)).CombinedOutput(); err != nil {
		return fmt.Errorf("postgres.sh start: %w\n%s", err, out)
	}
	return nil
}

// runsOf returns the harness's runs of codeLocation's Job pods of role.
func (h *harness) runsOf(codeLocation, role string) []jobRun {
	var out []jobRun
	for _, r := range h.jobs.snapshot() {
		if r.CodeLocation == codeLocation && r.Role == role {
			out = append(out, r)
		}
	}
	return out
}

// podLogsMention reports whether the log of a Job pod whose name starts
// with prefix holds text.
func (h *harness) podLogsMention(prefix, text string) bool {
	logs, _ := filepath.Glob(filepath.Join(h.logs, "pod-"+prefix+"*.log"))
	for _, l := range logs {
		if data, err := os.ReadFile(l); err == nil && strings.Contains(string(data), text) {
			return true
		}
	}
	return false
}

// podLog returns the log the harness kept of a Job pod.
func (h *harness) podLog(pod string) string {
	data, _ := os.ReadFile(filepath.Join(h.logs, "pod-"+pod+".log"))
	return string(data)
}
