#!/bin/sh
# client: nothing lost over a file system client's own ceiling. For each file system the box
# starts (GlusterFS, MooseFS, OrangeFS; CephFS where its packages are installed), a box of one
# node whose link does not bind (BOX_CLIENT_LINK Mbit/s, default 40000: the client, FUSE and the
# CPU are the limit; at 4000 GlusterFS's reads filled the link on 2 cores), a data set of 12
# files of 16 MiB, and interleaved rounds, each read cold (`box.sh cold`): A = dd of every file
# in order on the node (bs=4M, iflag=fullblock; its rate is the bytes over the sum of dd's own
# times), B = pfsread (1 reader, 4 MiB transfers, cache fadvise, 1 repetition). Rounds A B,
# B A, A B, B A, ... (BOX_CLIENT_ROUNDS, default 10: on 2 cores shared with other work one read
# of a round can take 3 x another). Checked:
#  1. every read was cold (>= 0.95 of its bytes crossed n1's link);
#  2. the median of the rounds' ratios pfsread / dd >= 0.97 per file system (each round's two
#     reads run back to back, so the load of the shared machine, which moves one read of a
#     round to 3 x another, moves both alike; the ratio of the two medians is printed beside
#     it): pfsread against a peer run in turn on the same files, never a machine speed;
#  3. the link did not bind: dd's median is below 0.8 of the link's rate (else the check above
#     compares two reads of the link, not of the client);
#  4. a pfsread run given hardware: {node_client_MBps: dd's median} shows its share of that
#     ceiling in the report's json (ceiling.client_share, the term "client reads").
. "$(dirname "$0")/boxlib.sh"

LINK=${BOX_CLIENT_LINK:-40000}
ROUNDS=${BOX_CLIENT_ROUNDS:-10}
FILES=12
BYTES=$((FILES * 16 * 1048576))
DS="{name: c, file_size: 16MiB, file_count: $FILES}"
box_require

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END {
	if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
	else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

# dd_round: every file of the data set read by dd on n1, in order; prints two rates in MB/s:
# the bytes over the sum of dd's own times (the peer's figure: its process starts are not
# counted), then the bytes over the loop's wall time, process starts included
dd_round() {
	"$BOX" cold client || return 1
	# shellcheck disable=SC2016
	"$BOX" exec n1 -- sh -c 'date +%s.%N; for f in $(ls /box/fs/client/c/d*/f* | sort); do
		LC_ALL=C dd if="$f" of=/dev/null bs=4M iflag=fullblock 2>&1 | tail -n 1 || exit 1
	done; date +%s.%N' >"$SCRATCH/dd.out" 2>&1 || return 1
	awk -v b="$BYTES" 'NR == 1 { t0 = $1 } /copied/ { n++; got += $1; s += $(NF - 3) }
		/^[0-9.]+$/ { t1 = $1 }
		END { if (n != '"$FILES"' || got != b || s <= 0 || t1 <= t0) exit 1
		      printf "%.2f %.2f\n", b / s / 1e6, b / (t1 - t0) / 1e6 }' "$SCRATCH/dd.out"
}

# pfs_round NAME [HARDWARE]: a cold pfsread run on n1; prints its rate in MB/s
pfs_round() {
	box_config "$SCRATCH/$1.yaml" "$1" /box/fs/client "$DS" \
		"sweep: {readers_per_node: [1], transfer_size: [4MiB]}" "repetitions: 1" \
		"cache: fadvise" ${2:+"$2"}
	"$BOX" cold client || return 1
	bmpi n1 1 "$PFSREAD" run "$SCRATCH/$1.yaml" >"$SCRATCH/$1.out" 2>&1 || return 1
	rep_json "$SCRATCH/$1.h5" "'%.2f' % d['cells'][0]['mean_MBps']"
}

# one_fs FS: the rounds and the report's share on a box of FS
one_fs() {
	fs=$1
	if ! box_up --nodes 1 --link-mbit "$LINK" --fs "$fs"; then
		fail "$fs: a box of 1 node comes up${BOX_WHY:+ ($BOX_WHY)}"
		return
	fi
	box_config "$SCRATCH/gen.yaml" gen /box/fs/client "$DS"
	bmpi n1 1 "$PFSREAD" generate "$SCRATCH/gen.yaml" >"$SCRATCH/gen.out" 2>&1
	st=$?
	ok_status $st "$fs: generate 12 x 16 MiB on n1"
	if [ $st -ne 0 ]; then
		tail -n 20 "$SCRATCH/gen.out" | sed 's/^/#   /'
		box_down_clean "$fs: down leaves nothing"
		return
	fi
	# one round of each first, not counted: the file system settles after the writes of
	# generate (the first rounds of OrangeFS came out low for pfsread in 3 runs of 4)
	dd_round >/dev/null && pfs_round "$fs-0" >/dev/null
	ok_status $? "$fs: a first round of each, not counted"
	DD=""
	DDW=""
	WIRE=""
	PF=""
	PER=""
	bad=""
	for r in $(seq 1 "$ROUNDS"); do
		case $((r % 2)) in 1) order="dd pfs" ;; 0) order="pfs dd" ;; esac
		for w in $order; do
			rx0=$("$BOX" rx n1)
			if [ "$w" = dd ]; then
				a=$(dd_round) || { bad="dd round $r: $(tail -n 3 "$SCRATCH/dd.out" | tr '\n' ' ')"; break 2; }
				DDW="$DDW ${a#* }"
				a=${a% *}
				DD="$DD $a"
			else
				b=$(pfs_round "$fs-$r") || { bad="pfsread round $r: $(tail -n 5 "$SCRATCH/$fs-$r.out" | tr '\n' ' ')"; break 2; }
				PF="$PF $b"
			fi
			# cold means over the wire: the bytes n1 received while it read (cold: before)
			WIRE="$WIRE $(awk -v a="$rx0" -v b="$("$BOX" rx n1)" -v n="$BYTES" 'BEGIN { printf "%.3f", (b - a) / n }')"
		done
		PER="$PER $(ratio "$b" "$a")"
	done
	[ -z "$bad" ]
	ok_status $? "$fs: $ROUNDS rounds of dd and pfsread, each cold${bad:+ ($bad)}"
	if [ -n "$bad" ]; then
		box_down_clean "$fs: down leaves nothing"
		return
	fi
	wmin=$(echo "$WIRE" | tr ' ' '\n' | grep . | sort -g | head -n 1)
	figure "$fs: bytes on n1's link / bytes read" "$WIRE"
	ge "$wmin" 0.95
	ok_status $? "$fs: every read of dd and pfsread was cold: >= 0.95 of its bytes crossed the link ($wmin)"
	mdd=$(echo "$DD" | median)
	mpf=$(echo "$PF" | median)
	q=$(echo "$PER" | median)
	figure "$fs: dd, MB/s (rounds)" "$DD"
	figure "$fs: dd, loop wall time, MB/s (rounds)" "$DDW"
	figure "$fs: pfsread, MB/s (rounds)" "$PF"
	figure "$fs: pfsread / dd per round" "$PER"
	figure "$fs: medians pfsread / dd" "$mpf / $mdd = $(ratio "$mpf" "$mdd")"
	figure "$fs: median of the rounds' ratios" "$q"
	lmb=$(mbps "$LINK" 1)
	ge "$(awk -v m="$lmb" 'BEGIN { printf "%.4f", 0.8 * m }')" "$mdd"
	ok_status $? "$fs: the client binds, not the link: dd's median $mdd MB/s is below 0.8 of the link's $lmb MB/s (else raise BOX_CLIENT_LINK)"
	ge "$q" 0.97
	st=$?
	ok_status $st "$fs: pfsread reads at >= 0.97 of dd on the same node and files (median of the rounds' ratios $q)"
	[ $st -eq 0 ] || box_load

	# the report, given the client's ceiling: its share is pfsread / dd
	h=$(pfs_round "$fs-hw" "hardware: {node_client_MBps: $mdd}")
	ok_status $? "$fs: a pfsread run declaring hardware: {node_client_MBps: $mdd}"
	share=$(rep_json "$SCRATCH/$fs-hw.h5" "d['cells'][0]['ceiling']['client_share']")
	term=$(rep_json "$SCRATCH/$fs-hw.h5" "' '.join('%g' % t['MBps'] for t in d['cells'][0]['ceiling']['terms'] if t['resource'] == 'client reads')")
	lim=$(rep_json "$SCRATCH/$fs-hw.h5" "d['cells'][0]['ceiling']['limit']")
	figure "$fs: report's client share (limit)" "$share of $term MB/s ($lim; the run: $h MB/s)"
	within "$share" "$(ratio "$h" "$mdd")" 0.001 && within "$term" "$mdd" 0.0001
	ok_status $? "$fs: the report's json shows the run's share of 1 x node_client_MBps ($share)"
	box_down_clean "$fs: down leaves nothing"
}

one_fs glusterfs
one_fs moosefs
if orangefs_missing; then
	pass "# SKIP orangefs: $OFS_WHY"
else
	one_fs orangefs
fi
if command -v ceph-fuse >/dev/null 2>&1 && command -v ceph-osd >/dev/null 2>&1; then
	one_fs cephfs
else
	pass "# SKIP cephfs: Ceph is not installed (apt-get install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common)"
fi

done_testing
