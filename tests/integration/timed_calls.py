"""timed_calls: the system calls strace -ff recorded inside a rank's timed reads, for the tests
that count them (uring_enter.t, uring_window.t). pfsread brackets a rank's timed reads with two
getrusage calls (its CPU figures), so the lines of one trace file between two getrusage lines
make one stretch."""
import glob
import re


def stretches(trace_dir, pattern):
    """Every stretch of the trace files trace_dir/t.* with a line that matches the regular
    expression pattern: a list of stretches, each the list of its lines' match objects."""
    want = re.compile(pattern)
    found = []
    for trace in glob.glob(trace_dir + "/t.*"):
        cur = None
        with open(trace, errors="replace") as f:
            for line in f:
                if line.startswith("getrusage("):
                    if cur:
                        found.append(cur)
                    cur = []
                    continue
                m = want.match(line)
                if m and cur is not None:
                    cur.append(m)
    return found
