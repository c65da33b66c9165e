#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Run commands in turn, RUNS rounds, each command once per round (so a
# burst of load on the machine hits them alike), and print for each the
# best wall time, the best CPU time (user + system, from wait4) and the
# peak RSS.  Standard output of the commands goes to /dev/null.
#
#   tld_bench_runs.py RUNS 'LABEL|COMMAND ARGS...' ...
import os
import shlex
import sys
import time


def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e9
    if os.waitstatus_to_exitcode(status) not in (0,):
        sys.exit("%s: exit status %d" % (argv[0], os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    runs = int(sys.argv[1])
    jobs = [arg.split("|", 1) for arg in sys.argv[2:]]
    best = {label: [1e9, 1e9, 0.0] for label, _ in jobs}
    for _ in range(runs):
        for label, cmd in jobs:
            w, c, r = run(shlex.split(cmd))
            b = best[label]
            b[0], b[1], b[2] = min(b[0], w), min(b[1], c), max(b[2], r)
    for label, _ in jobs:
        w, c, r = best[label]
        print("%s %.4f %.4f %.1f" % (label, w, c, r))


main()
