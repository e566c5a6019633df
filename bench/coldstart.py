#!/usr/bin/env python3
"""Cold-start runner for bench/coldstart.sh: each run of each case in a
fresh, empty CODELOC_CACHE_DIR (or one seeded from --seed), interleaved
(the case order rotates every round), CPU (user+sys) and peak RSS read from
wait4(2), wall from the clock.

  coldstart.py --runs N [--csv FILE] CASE...

CASE is LABEL|DIR|ENV|COMMAND: DIR the working directory, ENV
space-separated NAME=VALUE (SEED=PATH copies PATH into the cache folder
before the run; NOCACHE=1 sets CODELOC_CACHE_DIR=off instead), COMMAND
split with shlex. Prints one row per case: median and min CPU, median peak
RSS (and max), median wall.
"""
import argparse
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time


def run_once(argv, cwd, env):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("coldstart: %s (in %s) exited with %d" % (shlex.join(argv), cwd, code))
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--csv")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    cases = []
    for c in a.cases:
        label, cwd, envs, cmd = c.split("|", 3)
        cases.append((label, cwd, dict(e.split("=", 1) for e in envs.split()), shlex.split(cmd)))
    res = {c[0]: [] for c in cases}
    csv = open(a.csv, "a") if a.csv else None
    for r in range(a.runs):
        order = cases[r % len(cases):] + cases[:r % len(cases)]
        for label, cwd, extra, argv in order:
            env = dict(os.environ)
            tmp = tempfile.mkdtemp(prefix="coldstart-")
            try:
                extra = dict(extra)
                seed = extra.pop("SEED", None)
                if seed:
                    shutil.copytree(seed, os.path.join(tmp, os.path.basename(seed)))
                if extra.pop("NOCACHE", None):
                    env["CODELOC_CACHE_DIR"] = "off"
                else:
                    env["CODELOC_CACHE_DIR"] = tmp
                env.update(extra)
                cpu, wall, rss = run_once(argv, cwd, env)
            finally:
                shutil.rmtree(tmp)
            res[label].append((cpu, wall, rss))
            if csv:
                csv.write("%s,%d,%.4f,%.4f,%d\n" % (label, r, cpu, wall, rss))
    print("| case | CPU ms median (min) | peak RSS MiB median (max) | wall ms median |")
    print("|---|---:|---:|---:|")
    for label, *_ in cases:
        xs = res[label]
        cpu = [x[0] * 1000 for x in xs]
        wall = [x[1] * 1000 for x in xs]
        rss = [x[2] / 1024 for x in xs]
        print("| %s | %.0f (%.0f) | %.1f (%.1f) | %.0f |" % (
            label, statistics.median(cpu), min(cpu), statistics.median(rss), max(rss), statistics.median(wall)))


if __name__ == "__main__":
    main()
