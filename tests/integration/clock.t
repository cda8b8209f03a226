#!/bin/sh
# clock: the times of a phase share one clock base across ranks and nodes. A preloaded shim
# (shim/clockshim.c) gives pfsread the clock trouble of a real cluster on 2 fake nodes: a slow
# start-up step between the first clock reads of a node's ranks, ranks whose clocks differ,
# a clock that jumps after the offsets were measured, and a start-up that hangs.
. "$(dirname "$0")/lib.sh"

SHIM="$SCRATCH/clockshim.so"
mpicc -shared -fPIC -o "$SHIM" "$TOP/tests/integration/shim/clockshim.c" \
	$(pkg-config --cflags hdf5-openmpi 2>/dev/null) -ldl >"$SCRATCH/cc.log" 2>&1 ||
	skip_all "cannot build the shim: $(tail -n 1 "$SCRATCH/cc.log")"

fake_nodes 2 2
cfg="$SCRATCH/t.yaml"
small_config "$cfg" "$SCRATCH/data" "sweep: {readers_per_node: [1, 2]}" "cache: none"
check "generate over 2 nodes x 2 ranks" mpi_nodes 2 "$PFSREAD" generate "$cfg"

# h5 FILE PYTHON: run a check on the results file with h5py (f is the open file).
h5() {
	"$PYTHON" -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
phases = [f['phases'][k] for k in sorted(f['phases'])]
$2
" "$1"
}

# A start-up step of 4 s between a node leader's first clock read and its other ranks' (with
# MPI_Wtime, which counts from each process's first call, every 2-reader phase took 4 s more).
expect_status 0 "run with a 4 s start-up step (H5Fcreate delayed)" \
	mpi_nodes 2 -x LD_PRELOAD="$SHIM" -x SHIM_CREATE_DELAY=4 "$PFSREAD" run "$cfg" -o "$SCRATCH/delay.h5"
check "every phase's times on one base: elapsed well under the 4 s step, no clock flag" h5 "$SCRATCH/delay.h5" '
for g in phases:
    a = g.attrs
    assert a["elapsed_s"] < 2.0, (g.name, a["elapsed_s"])
    assert a["flags"] == "", (g.name, a["flags"])
    assert 0 <= a["start_skew_s"] <= a["clock_bound_s"], (g.name, a["start_skew_s"], a["clock_bound_s"])
    r = g["ranks"][()]
    assert max(r["barrier_s"]) == a["start_skew_s"] and min(r["barrier_s"]) == 0, r["barrier_s"]
    starts = [s for s, act, n in zip(r["start"], r["active"], r["files"]) if act and n]
    assert max(starts) < 1.0, (g.name, starts)
'

# Odd ranks (one per node, none a node leader) read a clock 3 s ahead: per-node offsets alone
# would leave them 3 s off; each rank's own offset puts them right.
expect_status 0 "run with odd ranks' clocks 3 s ahead" \
	mpi_nodes 2 -x LD_PRELOAD="$SHIM" -x SHIM_CLOCK_SKEW=3 "$PFSREAD" run "$cfg" -o "$SCRATCH/skew.h5"
check "each rank's offset measured (-3 s on odd ranks, 0 on even ones), within its error bound" h5 "$SCRATCH/skew.h5" '
for g in phases:
    r = g["ranks"][()]
    for rank, off, err in zip(r["rank"], r["clock_offset_s"], r["clock_error_s"]):
        want = -3.0 if rank % 2 else 0.0
        assert abs(off - want) < 0.05 and 0 <= err < 0.05, (rank, off, err)
    assert g.attrs["flags"] == "" and g.attrs["elapsed_s"] < 2.0, dict(g.attrs)
'

# The odd ranks' clocks jump 3 s after the offsets were measured: the opening barrier shows it.
expect_status 0 "run whose odd ranks' clocks jump by 3 s after start-up" \
	mpi_nodes 2 -x LD_PRELOAD="$SHIM" -x SHIM_JUMP_AT_CREATE=3 "$PFSREAD" run "$cfg" -o "$SCRATCH/jump.h5"
contains "clocks allow" "run warns, phase by phase, that the clocks disagree"
check "every phase flagged 'clock', with its skew (~3 s) and bound recorded" h5 "$SCRATCH/jump.h5" '
for g in phases:
    a = g.attrs
    assert a["flags"] == "clock", dict(a)
    assert 2.5 < a["start_skew_s"] < 3.5 and a["clock_bound_s"] < 0.5, dict(a)
'
expect_status 0 "report of the flagged run" "$PFSREAD" report "$SCRATCH/jump.h5"
contains "cannot be trusted" "the report says which phases' times are in doubt and why"

# A rank that never leaves MPI_Comm_split_type: the watchdog names the stage.
{ cat "$cfg"; echo "startup_timeout: 4s"; } >"$SCRATCH/hang.yaml"
expect_status 1 "a start-up hang ends at startup_timeout (4 s) with status 1" \
	timeout 120 sh -c "OMPI_MCA_plm_rsh_agent='$SCRATCH/fake-rsh' OMPI_MCA_btl=self,tcp \
		OMPI_MCA_rtc_hwloc_vmhole=none PMIX_MCA_gds=hash mpirun --oversubscribe \
		$([ "$(id -u)" -eq 0 ] && echo --allow-run-as-root) --hostfile '$SCRATCH/hostfile' \
		--map-by ppr:2:node -x LD_PRELOAD='$SHIM' -x SHIM_HANG_SPLIT=1 '$PFSREAD' run \
		'$SCRATCH/hang.yaml' -o '$SCRATCH/hang.h5'"
contains "start-up did not finish within 4 s (startup_timeout); it was at: node discovery (MPI_Comm_split_type)" \
	"the message names the limit and the stage it was stuck in"
done_testing
