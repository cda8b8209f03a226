# shellcheck shell=bash
# shellcheck disable=SC2034 # WHY: read by box.sh's up_failed
# fs_orangefs.sh: OrangeFS (PVFS2) in the box, sourced by box.sh. Built once from the vendored
# source (BOX_ORANGEFS_SRC: build.sh and the tarball) into a cache outside the repository
# (BOX_ORANGEFS, default /var/cache/pfsread-box/orangefs-2.10.0) that later boxes reuse. Its
# servers (pvfs2-server, each a data and a metadata server on a capped image of its own) run
# on the server (--bricks of them, a port each) or, converged, one on every node; every node
# mounts it at /box/fs with the FUSE client pvfs2fuse (no kernel module), files striped over
# all servers in 64 KiB units (OrangeFS's default; BOX_ORANGEFS_DFILES=K: over K of them, the
# file system's DefaultNumDFiles, in turn from file to file). The hooks box.sh calls: fs_orangefs_prepare
# (the build, before anything of the box exists), fs_orangefs_up, fs_orangefs_env (what
# pvfs2-viewdist needs to name a file's servers: pfsread's storage targets).

OFS=${BOX_ORANGEFS:-/var/cache/pfsread-box/orangefs-2.10.0}
OFS_SRC=${BOX_ORANGEFS_SRC:-$BOX_HERE/../../../shared/vendor/orangefs}
OFS_PORT=3334
OFS_TAB=$B/etc/pvfs2tab
BOX_FS_LIST="$BOX_FS_LIST orangefs"
# processes that go with their mounts (down spares them until the mounts are gone)
BOX_FS_DAEMONS="$BOX_FS_DAEMONS pvfs2fuse pvfs2-server"

fs_orangefs_prepare() {
	local log=$OFS.build.log
	[ -x "$OFS/sbin/pvfs2-server" ] && [ -x "$OFS/bin/pvfs2fuse" ] && return 0
	[ -x "$OFS_SRC/build.sh" ] || {
		WHY="orangefs: not built in $OFS and no build.sh in $OFS_SRC (set BOX_ORANGEFS_SRC)"
		return 1
	}
	mkdir -p "$(dirname "$OFS")" || { WHY="orangefs: cannot make $(dirname "$OFS")"; return 1; }
	say "orangefs: building once into $OFS (about 4 minutes on 2 cores; log: $log)"
	T=1800 t "$OFS_SRC/build.sh" "$OFS" </dev/null >"$log" 2>&1 || {
		WHY="orangefs: the build failed ($log: $(tail -n 1 "$log"))"
		return 1
	}
	[ -x "$OFS/bin/pvfs2fuse" ] || { WHY="orangefs: the build made no pvfs2fuse ($log)"; return 1; }
}

# the servers, a line each: index, namespace (box-NAME), address, port
ofs_servers() {
	local i=0 n
	if [ "$(state converged)" = 1 ]; then
		for n in $(nodes); do
			i=$((i + 1))
			echo "$i $n $(node_ip "$n") $OFS_PORT"
		done
	else
		for i in $(seq "$(state bricks)"); do echo "$i srv $SRV_IP $((OFS_PORT + i - 1))"; done
	fi
}

# ofs_conf SPEC: the file system's configuration, each server's storage on its own image
# (genconfig gives every server the same directories: rewritten per server's alias)
ofs_conf() {
	local d=$B/srv/ofs
	T=30 t "$OFS/bin/pvfs2-genconfig" --quiet --protocol tcp --iospec "$1" --metaspec "$1" \
		--storage "$d/none" --metadata "$d/none" --logfile "$B/log/ofs-server.log" \
		--dbmaxsize 268435456 --filesystem-dbmaxsize 268435456 "$d/fs.conf.gen" \
		>"$B/log/ofs-genconfig.log" 2>&1 || return 1
	# map: address -> index; the conf's Alias lines name each server's address
	awk 'NR == FNR { idx["tcp://" $3 ":" $4] = $1; next }
		$1 == "Alias" { al[$2] = idx[$3] }
		$1 == "Server" { cur = al[$2] }
		$1 == "DataStorageSpace" && cur != "" { print "\tDataStorageSpace " B "/srv/brick" cur "/ofs/data"; next }
		$1 == "MetadataStorageSpace" && cur != "" { print "\tMetadataStorageSpace " B "/srv/brick" cur "/ofs/meta"; next }
		$1 == "LogFile" && cur != "" { print "\tLogFile " B "/log/ofs-server" cur ".log"; next }
		$1 == "<FileSystem>" && k != "" { print; print "\tDefaultNumDFiles " k; next }
		{ print }' B="$B" k="${BOX_ORANGEFS_DFILES:-}" "$d/servers" "$d/fs.conf.gen" >"$d/fs.conf" || return 1
	awk '$1 == "Alias" { print $2, $3 }' "$d/fs.conf" >"$d/aliases"
	[ "$(wc -l <"$d/aliases")" -eq "$(wc -l <"$d/servers")" ]
}

ofs_why() {
	local f line
	for f in "$B"/log/ofs-*.log; do
		line=$(grep -m 1 -i 'error\|fail\|denied' "$f" 2>/dev/null) && break
	done
	WHY="orangefs: $1${line:+ (${f##*/}: $line)}"
}

fs_orangefs_up() {
	local d=$B/srv/ofs i ns ip port alias spec="" n k s first
	mkdir -p "$d" "$B/img" "$B/log" "$B/etc"
	ofs_servers >"$d/servers"
	while read -r i ns ip port; do
		image "brick$i" ext4 "$B/srv/brick$i" </dev/null && mkdir -p "$B/srv/brick$i/ofs/data" \
			"$B/srv/brick$i/ofs/meta" || { WHY="orangefs: no image for server $i"; return 1; }
		spec="$spec,tcp://$ip:$port"
	done <"$d/servers"
	ofs_conf "${spec#,}" || { ofs_why "pvfs2-genconfig failed"; return 1; }
	while read -r i ns ip port; do
		alias=$(awk -v a="tcp://$ip:$port" '$2 == a { print $1 }' "$d/aliases")
		# -f makes the server's storage, then the server proper daemonizes
		nsenter --net="/run/netns/box-$ns" timeout 60 "$OFS/sbin/pvfs2-server" -f -a "$alias" \
			"$d/fs.conf" </dev/null >>"$B/log/ofs-start.log" 2>&1 &&
			nsenter --net="/run/netns/box-$ns" timeout 60 "$OFS/sbin/pvfs2-server" \
				-p "$d/server$i.pid" -a "$alias" "$d/fs.conf" </dev/null \
				>>"$B/log/ofs-start.log" 2>&1 || { ofs_why "pvfs2-server $i ($alias) failed"; return 1; }
		record_ns "box-$ns"
	done <"$d/servers"
	first=$(awk 'NR == 1 { print $3 ":" $4 }' "$d/servers")
	echo "tcp://$first/orangefs $B/fs pvfs2 defaults,noauto 0 0" >"$OFS_TAB"
	for i in $(seq 100); do
		PVFS2TAB_FILE=$OFS_TAB nsenter --net=/run/netns/box-head timeout 10 \
			"$OFS/bin/pvfs2-ping" -m "$B/fs" >"$B/log/ofs-ping.log" 2>&1 && break
		[ "$i" -lt 100 ] || { ofs_why "the servers did not answer pvfs2-ping in 20 s"; return 1; }
		sleep 0.2
	done
	s=$(wc -l <"$d/servers")
	k=0
	for n in $(nodes); do
		k=$((k + 1))
		# a node's own server when converged; else the servers in turn
		spec=$(awk -v i=$(((k - 1) % s + 1)) -v n="$n" -v c="$(state converged)" \
			'(c == 1 && $2 == n) || (c != 1 && $1 == i) { print $3 ":" $4 }' "$d/servers")
		# in the background, nsenter itself (it execs: $! is the client's pid)
		PVFS2TAB_FILE=$OFS_TAB nsenter --net="/run/netns/box-$n" --mount="$B/ns/$n.mnt" \
			"$OFS/bin/pvfs2fuse" "$B/fs" -f -o "fs_spec=tcp://$spec/orangefs" \
			</dev/null >>"$B/log/ofs-fuse-$n.log" 2>&1 &
		record_pid $!
	done
	for n in $(nodes); do
		for i in $(seq 100); do on "$n" timeout 5 ls "$B/fs/lost+found" >/dev/null 2>&1 && break; sleep 0.1; done
		on "$n" mountpoint -q "$B/fs" || { ofs_why "pvfs2fuse on $n did not mount"; return 1; }
	done
}

# what a process in the box needs for pvfs2-viewdist (pfsread's storage targets)
fs_orangefs_env() {
	export PATH="$OFS/bin:$PATH" PVFS2TAB_FILE="$OFS_TAB"
}

# storage directories for `cold`
fs_orangefs_cold_dirs() {
	ls -d "$B"/srv/brick*/ofs 2>/dev/null
}
