#!/usr/bin/env python3
"""A process's memory at its end, split into its own and the binary's.

Peak RSS (ru_maxrss, what bench/runner.py reports) counts two things: the
process's anonymous memory (heap, stacks: its own, paid again by each
process) and the pages of its binary the kernel mapped (the page cache:
shared by every process that runs the same file, and charged once to a
container's memory cgroup however many run). When twenty renders run at
once in the plugin's container, the first multiplies; the second does not.

This runs each command RUNS times, interleaved, stops it with ptrace(2) at
its exit (PTRACE_EVENT_EXIT: the address space is still whole) and reads
/proc/PID/status: VmHWM (peak RSS), RssAnon and RssFile. Linux only; no
debugger needed. Any non-zero exit is fatal.

  memsplit.py [--runs N] LABEL 'COMMAND ARGS' [LABEL 'COMMAND ARGS' ...]
"""
import argparse
import ctypes
import os
import shlex
import signal
import statistics
import sys

PTRACE_TRACEME = 0
PTRACE_CONT = 7
PTRACE_SETOPTIONS = 0x4200
PTRACE_O_TRACEEXIT = 0x40
PTRACE_O_EXITKILL = 0x100000
PTRACE_EVENT_EXIT = 6
FIELDS = ("VmHWM", "RssAnon", "RssFile")

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def ptrace(request, pid, data=0):
    if libc.ptrace(request, pid, None, ctypes.c_void_p(data)) == -1:
        err = ctypes.get_errno()
        raise OSError(err, "ptrace(%d): %s" % (request, os.strerror(err)))


def status_fields(pid):
    """VmHWM, RssAnon and RssFile of pid, in KiB."""
    got = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in FIELDS:
                got[key] = int(value.split()[0])
    return got


def run_once(argv):
    """Runs argv (stdout and stderr to /dev/null) and returns its fields at exit."""
    pid = os.fork()
    if pid == 0:
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            libc.ptrace(PTRACE_TRACEME, 0, None, None)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, st = os.waitpid(pid, 0)  # the stop at exec
    if not os.WIFSTOPPED(st):
        sys.exit("memsplit: %s did not start" % shlex.join(argv))
    ptrace(PTRACE_SETOPTIONS, pid, PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)
    ptrace(PTRACE_CONT, pid)
    fields = None
    while True:
        _, st = os.waitpid(pid, 0)
        if os.WIFEXITED(st) or os.WIFSIGNALED(st):
            break
        sig = os.WSTOPSIG(st)
        if sig == signal.SIGTRAP and (st >> 16) == PTRACE_EVENT_EXIT:
            fields = status_fields(pid)
            sig = 0
        elif sig == signal.SIGTRAP:
            sig = 0
        ptrace(PTRACE_CONT, pid, sig)  # pass on the signals Go's runtime uses
    code = os.waitstatus_to_exitcode(st)
    if code != 0 or fields is None:
        sys.exit("memsplit: %s exited with %d" % (shlex.join(argv), code))
    return fields


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("pairs", nargs="+", help="LABEL 'COMMAND ARGS' ...")
    args = ap.parse_args()
    if len(args.pairs) % 2:
        ap.error("LABEL and COMMAND come in pairs")
    cmds = [(args.pairs[i], shlex.split(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    samples = {label: [] for label, _ in cmds}
    for r in range(args.runs):
        order = cmds if r % 2 == 0 else cmds[::-1]
        for label, argv in order:
            samples[label].append(run_once(argv))
    print("%-12s %5s %12s %12s %12s   (medians, MiB)" % ("", "runs", "peak RSS", "own (anon)", "binary (file)"))
    medians = {}
    for label, _ in cmds:
        m = {k: statistics.median(s[k] for s in samples[label]) / 1024 for k in FIELDS}
        medians[label] = m
        print("%-12s %5d %12.1f %12.1f %12.1f" % (label, args.runs, m["VmHWM"], m["RssAnon"], m["RssFile"]))
    if len(cmds) >= 2:
        a, b = medians[cmds[0][0]], medians[cmds[1][0]]
        print("ratio %s/%s: peak RSS %.3f, own %.3f, binary %.3f" % (
            cmds[0][0], cmds[1][0], a["VmHWM"] / b["VmHWM"], a["RssAnon"] / b["RssAnon"], a["RssFile"] / b["RssFile"]))


if __name__ == "__main__":
    main()
