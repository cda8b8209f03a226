#!/usr/bin/env python3
"""cpu_of.py OUT COMMAND...: run COMMAND, then write "user_s sys_s" to OUT: the CPU seconds of
COMMAND and every descendant it waited for (getrusage(RUSAGE_CHILDREN), microseconds, less
what children of this interpreter's own start-up took, if any), not this wrapper's own. Exits with COMMAND's status. bench.sh puts it between mpirun and a tool's
binary, so that every tool's whole process (start-up, MPI_Init, its reads, exit) is counted
the same way."""
import os
import resource
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: cpu_of.py OUT COMMAND...")
before = resource.getrusage(resource.RUSAGE_CHILDREN)
status = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as out:
    out.write(f"{r.ru_utime - before.ru_utime:.6f} {r.ru_stime - before.ru_stime:.6f}\n")
sys.exit(status if status >= 0 else 128 - status)
