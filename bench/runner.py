#!/usr/bin/env python3
"""Whole-process CPU and memory of commands, for bench/compare.sh.

Runs each command RUNS times, interleaved (A B, B A, A B, ...) after WARMUP
untimed runs, and reads the child's resource usage from wait4(2): user+sys
CPU time with microsecond resolution (GNU time prints 10 ms, truncated) and
peak RSS (ru_maxrss). Any non-zero exit is fatal.

  runner.py [--runs N] [--warmup N] [--csv FILE] [--case NAME] [--json FILE]
            LABEL 'COMMAND ARGS' [LABEL 'COMMAND ARGS' ...]
  runner.py --report DIR SIZE...

The first form prints one table row per command (and the cpu ratio of the
first to the second) and writes the summary to --json FILE. The second
reads DIR/{startup,citation,objects-SIZE}.json and prints the verdicts.
"""
import argparse
import json
import os
import shlex
import statistics
import sys
import time


def run_once(argv):
    """Runs argv with stdout to /dev/null; returns (cpu s, wall s, rss KiB)."""
    err_r, err_w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.dup2(err_w, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    os.close(err_w)
    err = b""
    while True:
        chunk = os.read(err_r, 65536)
        if not chunk:
            break
        err += chunk
    os.close(err_r)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("runner: %s exited with %d:\n%s" % (shlex.join(argv), code, err.decode(errors="replace")[-2000:]))
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--csv")
    ap.add_argument("--case", default="")
    ap.add_argument("--json")
    ap.add_argument("pairs", nargs="+")
    a = ap.parse_args()
    if len(a.pairs) % 2:
        ap.error("give LABEL COMMAND pairs")
    cmds = [(a.pairs[i], shlex.split(a.pairs[i + 1])) for i in range(0, len(a.pairs), 2)]
    for _ in range(a.warmup):
        for _, argv in cmds:
            run_once(argv)
    samples = {label: [] for label, _ in cmds}
    for i in range(a.runs):
        order = cmds if i % 2 == 0 else list(reversed(cmds))
        for label, argv in order:
            samples[label].append(run_once(argv))
    if a.csv:
        new = not os.path.exists(a.csv)
        with open(a.csv, "a") as f:
            if new:
                f.write("case,tool,run,cpu_s,wall_s,maxrss_kib\n")
            for label, rows in samples.items():
                for i, (cpu, wall, rss) in enumerate(rows):
                    f.write("%s,%s,%d,%.6f,%.6f,%d\n" % (a.case, label, i, cpu, wall, rss))
    summary = {}
    for label, rows in samples.items():
        cpu = [r[0] for r in rows]
        wall = [r[1] for r in rows]
        rss = [r[2] / 1024 for r in rows]
        summary[label] = {
            "runs": len(rows),
            "cpu_mean": statistics.fmean(cpu), "cpu_median": statistics.median(cpu), "cpu_min": min(cpu),
            "cpu_p10": pct(cpu, 0.1), "cpu_p90": pct(cpu, 0.9),
            "wall_median": statistics.median(wall),
            "rss_median": statistics.median(rss), "rss_max": max(rss),
        }
    print("%-10s %5s %9s %9s %9s %9s %9s %10s %9s %9s" % ("", "runs", "cpu mean", "median", "min", "p10", "p90", "wall med", "RSS med", "RSS max"))
    for label, v in summary.items():
        print("%-10s %5d %7.1fms %7.1fms %7.1fms %7.1fms %7.1fms %8.1fms %5.1fMiB %5.1fMiB" % (
            label, v["runs"], v["cpu_mean"] * 1e3, v["cpu_median"] * 1e3, v["cpu_min"] * 1e3, v["cpu_p10"] * 1e3,
            v["cpu_p90"] * 1e3, v["wall_median"] * 1e3, v["rss_median"], v["rss_max"]))
    if len(cmds) >= 2:
        a0, b0 = summary[cmds[0][0]], summary[cmds[1][0]]
        print("cpu ratio %s/%s: %.3f (means), %.3f (medians)" % (
            cmds[0][0], cmds[1][0], a0["cpu_mean"] / b0["cpu_mean"], a0["cpu_median"] / b0["cpu_median"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f)


def verdict(ok):
    return "PASS" if ok else "MISS"


def report(directory, sizes):
    def load(name):
        path = os.path.join(directory, name + ".json")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return json.load(f)

    print("== verdicts")
    start = load("startup")
    if start:
        print("start-up cpu: codeloc %.1f ms, kustomize %.1f ms (means)" % (
            start["codeloc"]["cpu_mean"] * 1e3, start["kustomize"]["cpu_mean"] * 1e3))
    cit = load("citation")
    if cit:
        c, k = cit["codeloc"], cit["kustomize"]
        ratio = c["cpu_mean"] / k["cpu_mean"]
        print("citation cpu ratio codeloc/kustomize: %.3f (%.1f / %.1f ms, target <= 1.10)  %s" % (
            ratio, c["cpu_mean"] * 1e3, k["cpu_mean"] * 1e3, verdict(ratio <= 1.10)))
        print("citation peak RSS: codeloc %.1f MiB, kustomize %.1f MiB (max of runs, target <= 40 MiB)  %s" % (
            c["rss_max"], k["rss_max"], verdict(c["rss_max"] <= 40)))
    points = []
    for n in sizes:
        r = load("objects-%d" % n)
        if r:
            points.append((n, r))
    if points:
        print("generated repos, mean cpu (wall median) per process:")
        for n, r in points:
            line = "  %5d objects: codeloc %7.3f s (%7.3f s)" % (n, r["codeloc"]["cpu_mean"], r["codeloc"]["wall_median"])
            if "kustomize" in r:
                line += "   kustomize %7.3f s (%7.3f s)   ratio %.2f" % (
                    r["kustomize"]["cpu_mean"], r["kustomize"]["wall_median"],
                    r["codeloc"]["cpu_mean"] / r["kustomize"]["cpu_mean"])
            print(line)
    for n, r in points:
        if n == 1000:
            cpu, wall = r["codeloc"]["cpu_mean"], r["codeloc"]["wall_median"]
            print("1,000 objects: codeloc %.3f s cpu, %.3f s wall (target < 1 s)  %s" % (cpu, wall, verdict(cpu < 1)))
    if len(points) >= 3:
        # Marginal cost per object between successive sizes: constant when
        # the cost is linear (start-up cancels out).
        marg = []
        for (n1, r1), (n2, r2) in zip(points, points[1:]):
            m = (r2["codeloc"]["cpu_mean"] - r1["codeloc"]["cpu_mean"]) / (n2 - n1)
            marg.append(m)
            print("  marginal cpu per object %d -> %d: %.3f ms" % (n1, n2, m * 1e3))
        grow = marg[-1] / marg[0]
        print("linearity: marginal cost per object grows x%.1f from the first to the last interval (linear: x1, target <= x1.5)  %s" % (
            grow, verdict(grow <= 1.5)))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--report":
        report(sys.argv[2], [int(x) for x in sys.argv[3:]])
        sys.exit(0)
    main()
