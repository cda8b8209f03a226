"""added_cpu: for the tests of ranks that wait napping (idle_naps.t, calibrate_fs.t), what a
slowed run adds to an idle rank's CPU against what it adds to the wall, over the same run
unslowed: MPI's start-up and the work that does not grow with the wait cancel out, so the
bound holds on a machine of any speed. Each rank's CPU seconds are in PREFIX.RANK (cpu_of.py).

usage: added_cpu.py LABEL FAST_PREFIX SLOW_PREFIX FAST_WALL SLOW_WALL NRANKS MIN_WALL RANK...
Prints one line "# LABEL: ..."; exits 1 unless the added wall exceeds MIN_WALL seconds and each
RANK's added CPU is under a tenth of it."""
import sys


def cpu_of(prefix, nranks):
    return [sum(map(float, open(f"{prefix}.{r}").read().split())) for r in range(nranks)]


def main(argv):
    label, fast_prefix, slow_prefix = argv[1:4]
    fast_wall, slow_wall = float(argv[4]), float(argv[5])
    nranks, min_wall, idle = int(argv[6]), float(argv[7]), [int(r) for r in argv[8:]]
    fast, slow = cpu_of(fast_prefix, nranks), cpu_of(slow_prefix, nranks)
    wall = slow_wall - fast_wall
    print(f"# {label}: wall {slow_wall:.2f} s slowed, {fast_wall:.2f} s not; CPU s per rank "
          f"slowed: {' '.join(f'{c:.3f}' for c in slow)}, not: {' '.join(f'{c:.3f}' for c in fast)}")
    good = wall > min_wall and all(slow[r] - fast[r] < 0.1 * wall for r in idle)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
