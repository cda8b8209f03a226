/* calibrate: `pfsread calibrate CONFIG` under mpirun. On every node its first rank (the node
 * leader) measures, --repetitions times each, a large sequential O_DIRECT read (a data set file
 * when one is large enough, else a temporary file under root that it removes), memory-copy
 * bandwidth, and MPI point-to-point bandwidth with other node leaders, pair by pair. Rank 0
 * gathers every repetition, writes them with calib_write, prints the medians with their spread
 * and a warning for each figure whose repetitions are far apart. A failed measurement on a node
 * becomes NaN and a note, so that no rank is left waiting in a collective. */
#include "cmd/cmd.h"

#include <mpi.h>

#include "cmd/calibrate_fs.h"
#include "cmd/calibrate_read.h"
#include "cmd/calibrate_mem.h"
#include "results/calib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "report/report.h"
#include "util/space.h"
#include "util/stop.h"
#include "run/backend.h"
#include "run/cache.h"
#include "run/guard.h"
#include "run/topology.h"
#include "util/units.h"
#include "util/safe.h"

#define CAL_CHUNK CALRD_CHUNK /* bytes per write call of the temporary file */
#define CAL_NOTE 256
/* smaller data set files are not read: a temporary file of --disk-size is (the disk rule) */
#define CAL_MIN_DATASET_FILE CALIB_DISK_MIN

struct cal_opts {
	const char *config, *output;
	int force;
	int reps;
	uint64_t disk_bytes, mem_bytes, msg_bytes;
	uint64_t transfer;    /* bytes per read call of the disk figure (calrd_transfer) */
	struct calfs_opts fs; /* --through-fs DATASET, --fs-size */
};

/* One direction of one node pair, every repetition (MB/s on the sender). */
struct cal_sent {
	int32_t from, to; /* -1 when unused */
	double MBps[CALIB_REPS_MAX];
};

/* What a node leader measured, as sent to rank 0: every repetition, NaN where none. */
struct cal_mine {
	double disk_MBps[CALIB_REPS_MAX], memcpy_MBps[CALIB_REPS_MAX];
	double resident;           /* the most of the disk file in the page cache before a read */
	uint64_t disk_bytes;       /* read for the disk figure */
	struct cal_sent sent[2];   /* one per pairing round */
	char note[CAL_NOTE];       /* what the disk read, or why it failed */
	char method[64];
};

/* ---- options ---- */

static int cal_size(const char *text, const char *what, uint64_t *out, struct pf_err *e)
{
	const char *why = NULL;
	if (units_parse_size(text, out, &why) != 0 || *out < 4096 || *out > (1ull << 40))
		return pf_fail(e, PF_USAGE, "calibrate: %s: bad size '%s'%s%s (4 KiB to 1 TiB)",
			       what, text, why ? ": " : "", why ? why : "");
	*out = *out / 4096 * 4096; /* O_DIRECT wants whole blocks */
	return 0;
}

static int cal_parse(int argc, char **argv, struct cal_opts *o, struct pf_err *e)
{
	for (int i = 0; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "-o") == 0 && next)
			o->output = argv[++i];
		else if (strcmp(argv[i], "--force") == 0)
			o->force = 1;
		else if (strcmp(argv[i], "--disk-size") == 0 && next) {
			if (cal_size(argv[++i], "--disk-size", &o->disk_bytes, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--mem-size") == 0 && next) {
			if (cal_size(argv[++i], "--mem-size", &o->mem_bytes, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--through-fs") == 0 && next) {
			o->fs.dataset = argv[++i];
		} else if (strcmp(argv[i], "--fs-size") == 0 && next) {
			if (cal_size(argv[++i], "--fs-size", &o->fs.bytes, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--msg-size") == 0 && next) {
			if (cal_size(argv[++i], "--msg-size", &o->msg_bytes, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--repetitions") == 0 && next) {
			char *end = NULL;
			long n = strtol(argv[++i], &end, 10);
			if (end == argv[i] || *end != '\0' || n < CALIB_REPS_MIN || n > CALIB_REPS_MAX)
				return pf_fail(e, PF_USAGE, "calibrate: --repetitions: bad count '%s' "
					       "(%d to %d: a median and a spread need %d)", argv[i],
					       CALIB_REPS_MIN, CALIB_REPS_MAX, CALIB_REPS_MIN);
			o->reps = (int)n;
		} else if (argv[i][0] == '-' || o->config != NULL)
			return pf_fail(e, PF_USAGE, "calibrate: unexpected argument '%s'", argv[i]);
		else
			o->config = argv[i];
	}
	if (o->config == NULL)
		return pf_fail(e, PF_USAGE, "calibrate: name a config file");
	o->fs.reps = o->reps;
	if (o->msg_bytes > INT_MAX)
		return pf_fail(e, PF_USAGE, "calibrate: --msg-size at most 2 GiB - 1");
	return 0;
}

/* ---- disk: one large sequential read ---- */

/* A data set file of at least CAL_MIN_DATASET_FILE bytes (one per node, spread over the
 * data set), or "" when there is none. */
static void cal_dataset_file(const struct experiment *x, int node, char *path, size_t len,
			     uint64_t *size)
{
	const struct cfg_dataset *best = NULL;
	struct manifest m;
	struct pf_err e = {0};
	char dir[CFG_PATH_MAX + CFG_NAME_MAX + 2];
	path[0] = '\0';
	for (size_t i = 0; i < x->ndatasets; i++)
		if (x->datasets[i].sizes == CFG_SIZES_FIXED && /* only fixed: file_size is exact */
		    x->datasets[i].layout.kind != CFG_LAYOUT_HASHED && /* names need the list */
		    x->datasets[i].file_size >= CAL_MIN_DATASET_FILE &&
		    (best == NULL || x->datasets[i].file_size > best->file_size))
			best = &x->datasets[i];
	if (best == NULL || dataset_dir(x, best, dir, sizeof dir) != 0 ||
	    manifest_read(dir, &m, &e) != 0 || !m.complete)
		return;
	if (dataset_file_path(x, best, (uint64_t)node % best->nfiles, path, len) != 0)
		path[0] = '\0';
	*size = best->file_size;
}

/* Write a temporary file of len bytes at path, on stable storage and out of the cache. On
 * failure (a signal too) the file is removed: nothing half-written stays under root. */
static int cal_make_temp(const char *path, void *buf, uint64_t len, struct pf_err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600), rc = 0;
	if (fd < 0)
		return pf_fail_errno(e, errno, "cannot create %s", path);
	memset(buf, 0x5a, CAL_CHUNK);
	for (uint64_t done = 0; done < len && rc == 0;) {
		size_t n = len - done < CAL_CHUNK ? (size_t)(len - done) : CAL_CHUNK;
		if (stop_check(e, "calibrate") != 0) {
			rc = -1;
			break;
		}
		ssize_t w = pwrite(fd, buf, n, (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = pf_fail_errno(e, w < 0 ? errno : EIO, "writing %s", path);
		else
			done += (uint64_t)w;
	}
	if (rc == 0 && (fsync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0))
		rc = pf_fail_errno(e, errno, "flushing %s", path);
	if (close(fd) != 0 && rc == 0)
		rc = pf_fail_errno(e, errno, "closing %s", path);
	if (rc != 0)
		unlink(path);
	return rc;
}

/* Open for the measurement: O_DIRECT, or buffered with the cache dropped when refused; then
 * how much of the file is in the page cache still (m->resident keeps the most). */
static int cal_open_read(const char *path, uint64_t len, uint64_t transfer, struct cal_mine *m,
			 struct pf_err *e)
{
	int direct;
	uint64_t in = 0;
	char size[32];
	int fd = calrd_open(path, &direct);
	if (fd < 0)
		return pf_fail_errno(e, errno, "cannot open %s or drop it from the cache", path);
	snprintf(m->method, sizeof m->method, "%s, %s reads",
		 direct ? "O_DIRECT" : "buffered after POSIX_FADV_DONTNEED",
		 units_format_size_binary(transfer, size, sizeof size));
	int told = direct ? 0 : cache_resident(path, 0, len, 0, &in, e);
	if (told < 0) {
		close(fd);
		return -1;
	}
	if (told == CACHE_UNTOLD)
		m->resident = NAN; /* and it stays so: NaN is never below a fraction */
	else if (!direct && len > 0 && (double)in / (double)len > m->resident)
		m->resident = (double)in / (double)len;
	return fd;
}

/* One repetition: the read of len bytes, timed, into *MBps. */
static int cal_time_read(const char *path, void *buf, uint64_t len, uint64_t transfer,
			 struct cal_mine *m, double *MBps, struct pf_err *e)
{
	int fd = cal_open_read(path, len, transfer, m, e);
	if (fd < 0)
		return -1;
	double t0 = MPI_Wtime();
	int64_t got = calrd_all(fd, buf, len, transfer);
	double t1 = MPI_Wtime();
	if (close(fd) != 0 && got >= 0)
		got = -errno;
	if (got == -EINTR)
		return stop_check(e, "calibrate");
	if (got < 0)
		return pf_fail_errno(e, (int)-got, "reading %s", path);
	if (got == 0 || t1 <= t0)
		return pf_fail(e, PF_RUNTIME, "%s: nothing read", path);
	*MBps = (double)got / (t1 - t0) / 1e6;
	m->disk_bytes = (uint64_t)got;
	return 0;
}

/* The file to read: a data set file, or a temporary one made now (*temp set). */
static int cal_disk_file(const struct experiment *x, const struct cal_opts *o, int node,
			 void *buf, char *path, size_t len, uint64_t *bytes, int *temp,
			 struct pf_err *e)
{
	uint64_t size = 0;
	*bytes = o->disk_bytes;
	cal_dataset_file(x, node, path, len, &size);
	if (path[0] != '\0') {
		*bytes = size < *bytes ? size : *bytes;
		return 0;
	}
	snprintf(path, len, "%s/.pfsread-calibrate-%d-%ld", x->root, node, (long)getpid());
	if (cal_make_temp(path, buf, *bytes, e) != 0)
		return -1;
	*temp = 1;
	return 0;
}

/* The root, made by the first node's leader before any other creates in it (every leader
 * waits for it): two nodes that make one directory at once can break it on a shared file
 * system (GlusterFS: creates in it fail with ENOENT on both). */
static int cal_disk_root(const struct experiment *x, int node, MPI_Comm leaders,
			 struct pf_err *e)
{
	int err = node == 0 ? dataset_mkdirs(x->root) : 0;
	if (MPI_Barrier(leaders) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Barrier failed");
	return err == 0 ? 0 : pf_fail_errno(e, err, "cannot make %s", x->root);
}

/* Every leader reaches the barrier before each repetition, ready or not, so that all read at
 * the same time (and none waits for a partner that gave up). */
static int cal_disk(const struct experiment *x, const struct cal_opts *o, int node,
		    MPI_Comm leaders, struct cal_mine *m, struct pf_err *e)
{
	char path[CFG_PATH_MAX + 256] = "";
	uint64_t len = 0;
	void *buf = NULL;
	int temp = 0, rc = cal_disk_root(x, node, leaders, e);
	/* room for a write call of the temporary file and for a read call */
	if (posix_memalign(&buf, 4096, o->transfer > CAL_CHUNK ? o->transfer : CAL_CHUNK) != 0)
		buf = NULL;
	if (rc == 0 && buf == NULL)
		rc = pf_fail(e, PF_RUNTIME, "out of memory for the disk buffer");
	if (rc == 0)
		rc = cal_disk_file(x, o, node, buf, path, sizeof path, &len, &temp, e);
	if (rc == 0)
		snprintf(m->note, sizeof m->note, "%s%s", temp ? "temporary file " : "data set file ",
			 path);
	for (int r = 0; r < o->reps; r++) {
		if (MPI_Barrier(leaders) != MPI_SUCCESS && rc == 0)
			rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Barrier failed");
		if (rc == 0)
			rc = cal_time_read(path, buf, len, o->transfer, m, &m->disk_MBps[r], e);
	}
	if (temp && unlink(path) != 0 && rc == 0)
		rc = pf_fail_errno(e, errno, "cannot remove %s", path);
	free(buf);
	return rc;
}

static double cal_median(const double *v, int n)
{
	struct calib_spread s;
	calib_spread_of(v, (size_t)n, &s);
	return s.median;
}

/* ---- MPI point to point between node leaders ---- */

/* One direction: me sends to peer (or receives from it); the sender times each message until
 * the receiver's empty acknowledgement: an untimed one first (a connection made on first use),
 * then reps into MBps (the sender's). Returns 0, or -1 when MPI failed. */
static int cal_one_way(MPI_Comm c, int peer, int sender, char *buf, int bytes, int reps,
		       double *MBps)
{
	for (int k = -1; k < reps; k++) {
		char z = 0;
		if (MPI_Sendrecv(&z, 0, MPI_CHAR, peer, 1, &z, 0, MPI_CHAR, peer, 1, c,
				 MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		double t0 = MPI_Wtime();
		int rc = sender ? MPI_Send(buf, bytes, MPI_CHAR, peer, 2, c)
				: MPI_Recv(buf, bytes, MPI_CHAR, peer, 2, c, MPI_STATUS_IGNORE);
		if (rc == MPI_SUCCESS)
			rc = sender ? MPI_Recv(&z, 0, MPI_CHAR, peer, 3, c, MPI_STATUS_IGNORE)
				    : MPI_Send(&z, 0, MPI_CHAR, peer, 3, c);
		if (rc != MPI_SUCCESS)
			return -1;
		double t = MPI_Wtime() - t0;
		if (sender && k >= 0)
			MBps[k] = t > 0 ? (double)bytes / t / 1e6 : NAN;
	}
	return 0;
}

/* Round r pairs leader i with i+1 for i even (r = 0) or odd (r = 1). */
static int cal_partner(int me, int n, int round)
{
	int first = (me - round) % 2 == 0; /* me is the lower of its pair */
	int peer = first ? me + 1 : me - 1;
	if (round == 1 && n == 2)
		return -1; /* the same pair again */
	if (peer < round || peer >= n || me < round)
		return -1;
	return peer;
}

static void cal_links(MPI_Comm leaders, int me, int n, uint64_t bytes, int reps,
		      struct cal_mine *m)
{
	char *buf = malloc(bytes ? bytes : 1);
	for (int round = 0; round < 2; round++) {
		int peer = cal_partner(me, n, round);
		if (peer < 0 || buf == NULL)
			continue;
		/* the lower sends first, then the higher */
		for (int lower_sends = 1; lower_sends >= 0; lower_sends--) {
			int sender = (me < peer) == lower_sends;
			double *to = m->sent[round].MBps;
			if (cal_one_way(leaders, peer, sender, buf, (int)bytes, reps, to) != 0)
				for (int k = 0; sender && k < reps; k++)
					to[k] = NAN;
			if (sender) {
				m->sent[round].from = me;
				m->sent[round].to = peer;
			}
		}
	}
	free(buf);
}

/* ---- gathering and writing on rank 0 ---- */

/* Node n's link in repetition r: the mean of the rates of its pairs, either direction. */
static double cal_node_link(const struct cal_mine *all, int nnodes, int n, int r)
{
	double sum = 0;
	int k = 0;
	for (int i = 0; i < nnodes; i++)
		for (int round = 0; round < 2; round++) {
			const struct cal_sent *p = &all[i].sent[round];
			if (p->from >= 0 && (p->from == n || p->to == n) && isfinite(p->MBps[r])) {
				sum += p->MBps[r];
				k++;
			}
		}
	return k ? sum / k : NAN;
}

/* Fill c (every repetition, the nodes' medians, the pairs' medians) from every leader's
 * cal_mine, gathered in node order. */
static int cal_assemble(const struct cal_mine *all, const struct topology *t, int reps,
			struct calib_data *c, struct pf_err *e)
{
	size_t nn = (size_t)t->nnodes, nr = (size_t)reps;
	c->nnodes = t->nnodes;
	c->reps = reps;
	c->nodes = calloc(nn, sizeof *c->nodes);
	c->pairs = calloc(2 * nn, sizeof *c->pairs);
	for (int f = 0; f < CALIB_NFIG; f++)
		c->reps_MBps[f] = calloc(nn * nr, sizeof *c->reps_MBps[f]);
	if (c->nodes == NULL || c->pairs == NULL || c->reps_MBps[CALIB_DISK] == NULL ||
	    c->reps_MBps[CALIB_MEMCPY] == NULL || c->reps_MBps[CALIB_LINK] == NULL)
		return pf_fail(e, PF_RUNTIME, "calibrate: out of memory");
	for (size_t n = 0; n < nn; n++) {
		double *disk = c->reps_MBps[CALIB_DISK] + n * nr, *mem = c->reps_MBps[CALIB_MEMCPY] + n * nr;
		double *link = c->reps_MBps[CALIB_LINK] + n * nr;
		memcpy(c->nodes[n].host, t->hostnames[n], RECORD_HOST_MAX);
		for (size_t r = 0; r < nr; r++) {
			disk[r] = all[n].disk_MBps[r];
			mem[r] = all[n].memcpy_MBps[r];
			link[r] = cal_node_link(all, t->nnodes, (int)n, (int)r);
		}
		c->nodes[n].disk_MBps = cal_median(disk, reps);
		c->nodes[n].memcpy_MBps = cal_median(mem, reps);
		c->nodes[n].link_MBps = cal_median(link, reps);
		c->disk_resident = isnan(all[n].resident) || isnan(c->disk_resident)
					   ? NAN
					   : fmax(c->disk_resident, all[n].resident);
		for (int round = 0; round < 2; round++)
			if (all[n].sent[round].from >= 0)
				c->pairs[c->npairs++] = (struct calib_pair){
					all[n].sent[round].from, all[n].sent[round].to,
					cal_median(all[n].sent[round].MBps, reps)};
	}
	return 0;
}

static void cal_stamp(char *iso, size_t ilen, char *compact, size_t clen)
{
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) == NULL)
		memset(&tm, 0, sizeof tm);
	strftime(iso, ilen, "%Y-%m-%dT%H:%M:%SZ", &tm);
	strftime(compact, clen, "%Y%m%dT%H%M%SZ", &tm);
}

/* Rank 0, before measuring: the output path (-o, or results/NAME-calibration-TIME.h5), which
 * must not exist unless --force. */
static int cal_output(const struct experiment *x, const struct cal_opts *o, char *path,
		      size_t len, char *iso, size_t ilen, struct pf_err *e)
{
	char stamp[32];
	cal_stamp(iso, ilen, stamp, sizeof stamp);
	if (o->output != NULL && snprintf(path, len, "%s", o->output) >= (int)len)
		return pf_fail(e, PF_USAGE, "calibrate: output path too long");
	if (o->output == NULL) {
		snprintf(path, len, "results/%s-calibration-%s.h5", x->name, stamp);
		int err = dataset_mkdirs("results");
		if (err != 0)
			return pf_fail_errno(e, err, "calibrate: cannot make results/");
	}
	if (!o->force && access(path, F_OK) == 0)
		return pf_fail(e, PF_USAGE, "%s exists; give --force to overwrite it", path);
	return 0;
}

/* Rank 0: the file, then what it says, then the nodes whose disk could not be measured. */
static int cal_write(const struct experiment *x, const struct cal_opts *o,
		     const struct cal_mine *all, const struct topology *t, const char *cmdline,
		     const char *path, const char *iso, struct calib_data *fs, struct pf_err *e)
{
	char src[CAL_NOTE + 64], host[SAFE_ROOM(RECORD_HOST_MAX)], note[SAFE_ROOM(CAL_NOTE)];
	struct calib_data c = {0}, back;
	snprintf(src, sizeof src, "%s (node 0; one file per node)", all[0].note);
	c.config_path = (char *)x->source;
	c.start_time = (char *)iso;
	c.command_line = (char *)cmdline;
	c.disk_source = src;
	c.disk_method = (char *)all[0].method;
	c.disk_bytes = all[0].disk_bytes ? all[0].disk_bytes : o->disk_bytes;
	c.mem_bytes = o->mem_bytes;
	c.msg_bytes = o->msg_bytes;
	c.llc_bytes = calmem_llc();
	c.fs_dataset = fs->fs_dataset; /* the read through the file system, when measured */
	c.fs_bytes = fs->fs_bytes;
	c.fs_nsteps = fs->fs_nsteps;
	memcpy(c.fs_step, fs->fs_step, sizeof c.fs_step);
	c.fs_readers = fs->fs_readers;
	c.fs_flat = fs->fs_flat;
	c.fs_reps_MBps = fs->fs_reps_MBps;
	int rc = cal_assemble(all, t, o->reps, &c, e);
	if (rc == 0)
		rc = calib_write(path, 1, &c, x->yaml_text, e); /* checked by cal_output */
	free(c.nodes);
	free(c.pairs);
	for (int f = 0; f < CALIB_NFIG; f++)
		free(c.reps_MBps[f]);
	if (rc != 0 || calib_read(path, &back, e) != 0)
		return -1;
	rc = report_write_calib(stdout, &back, e);
	calib_free(&back);
	for (int n = 0; n < t->nnodes && rc == 0; n++)
		if (!isfinite(cal_median(all[n].disk_MBps, o->reps)))
			printf("calibrate: node %d (%s): disk not measured: %s\n", n,
			       safe_text(host, sizeof host, t->hostnames[n], 0),
			       safe_text(note, sizeof note, all[n].note, 0));
	return rc;
}

/* ---- the command ---- */

static int cal_measure(const struct experiment *x, const struct cal_opts *o,
		       const struct topology *t, MPI_Comm leaders, struct cal_mine *m)
{
	struct pf_err err = {0};
	int me = 0, n = 1;
	if (MPI_Comm_rank(leaders, &me) != MPI_SUCCESS || MPI_Comm_size(leaders, &n) != MPI_SUCCESS)
		return -1;
	for (int r = 0; r < CALIB_REPS_MAX; r++)
		m->disk_MBps[r] = m->memcpy_MBps[r] = m->sent[0].MBps[r] = m->sent[1].MBps[r] = NAN;
	m->sent[0].from = m->sent[0].to = m->sent[1].from = m->sent[1].to = -1;
	if (cal_disk(x, o, t->node, leaders, m, &err) != 0 &&
	    snprintf(m->note, sizeof m->note, "%s", err.msg) < 0)
		m->note[0] = '\0';
	/* a signal on any node ends the measurements on all: a leader left alone would wait
	 * for its partner in the link measurement forever */
	int mine = stop_signal() != 0, any = 0;
	if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, leaders) != MPI_SUCCESS)
		return -1;
	if (any)
		return 0;
	calmem_measure(o->mem_bytes, o->reps, m->memcpy_MBps);
	cal_links(leaders, me, n, o->msg_bytes, o->reps, m);
	return 0;
}

/* Rank 0, space_check: when no data set file is there to read, every node leader writes a
 * temporary file of --disk-size under root: counted as if all of them shared root's file
 * system (the usual case on a cluster). */
static int cal_check_space(const struct experiment *x, const struct cal_opts *o, int nnodes,
			   struct pf_err *e)
{
	char probe[CFG_PATH_MAX + 256];
	uint64_t size = 0;
	struct space_fs fs;
	if (!x->space_check)
		return 0;
	cal_dataset_file(x, 0, probe, sizeof probe, &size);
	if (probe[0] != '\0')
		return 0; /* reads a data set file: writes nothing */
	struct space_need need = {o->disk_bytes, 1};
	need.bytes = need.bytes > UINT64_MAX / (uint64_t)nnodes ? UINT64_MAX
								: need.bytes * (uint64_t)nnodes;
	need.inodes = (uint64_t)nnodes;
	if (space_probe(x->root, &fs, e) != 0)
		return -1;
	return space_check(&fs, &need, "calibrate (a temporary file of --disk-size per node)", e);
}

/* Rank 0 settles the output path; every rank learns whether to go on (its error if not). */
static int cal_agree(const struct experiment *x, const struct cal_opts *o, int rank, int nnodes,
		     char *path, size_t len, char *iso, size_t ilen, struct pf_err *e)
{
	struct pf_err mine = {0};
	if (rank == 0 && cal_output(x, o, path, len, iso, ilen, &mine) != 0)
		*e = mine;
	else if (rank == 0 && cal_check_space(x, o, nnodes, &mine) != 0)
		*e = mine;
	if (MPI_Bcast(&mine, sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Bcast failed");
	if (mine.status != PF_OK) {
		*e = mine;
		return -1;
	}
	return 0;
}

static int cal_run(const struct experiment *x, const struct cal_opts *o, const char *cmdline,
		   struct pf_err *e)
{
	struct topology t;
	struct cal_mine mine;
	struct cal_mine *all = NULL;
	char path[CFG_PATH_MAX] = "", iso[32] = "";
	MPI_Comm leaders = MPI_COMM_NULL;
	memset(&mine, 0, sizeof mine);
	if (stop_watchdog_arm(x->startup_timeout) != 0)
		return pf_fail(e, PF_RUNTIME, "calibrate: cannot set the start-up watchdog");
	if (topology_discover(&t, e) != 0)
		return -1;
	if (stop_watchdog_arm(0) != 0) {
		topology_free(&t);
		return pf_fail(e, PF_RUNTIME, "calibrate: cannot stop the start-up watchdog");
	}
	if (cal_agree(x, o, t.rank, t.nnodes, path, sizeof path, iso, sizeof iso, e) != 0) {
		topology_free(&t);
		return -1;
	}
	int lead = t.local_rank == 0, rc = 0;
	if (MPI_Comm_split(MPI_COMM_WORLD, lead ? 0 : MPI_UNDEFINED, t.rank, &leaders) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Comm_split failed");
	if (rc == 0 && lead && cal_measure(x, o, &t, leaders, &mine) != 0)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI failed between node leaders");
	if (rc == 0 && t.rank == 0 && (all = calloc((size_t)t.nnodes, sizeof *all)) == NULL)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: out of memory");
	if (rc == 0 && lead &&
	    MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, leaders) !=
		    MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Gather failed");
	/* the other ranks of a node wait for its leader napping, not spinning in MPI: a node
	 * with fewer cores than ranks would measure its own idle ranks otherwise */
	struct guard idle = {.nap_max_s = GUARD_NAP_IDLE_S};
	if (rc == 0 && guard_barrier(&idle, &t, MPI_COMM_WORLD, 0, "calibrate", e) != 0)
		rc = -1;
	struct calib_data fs;
	char fs_note[CAL_NOTE] = "";
	memset(&fs, 0, sizeof fs);
	if (rc == 0 && o->fs.dataset != NULL) /* every rank: each node's first ranks read */
		rc = calfs_measure(x, &o->fs, &t, &fs, fs_note, sizeof fs_note, e);
	int mine_stop = stop_signal() != 0, any_stop = 0;
	if (rc == 0 && MPI_Allreduce(&mine_stop, &any_stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) !=
			       MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Allreduce failed");
	if (rc == 0 && any_stop)
		rc = stop_check(e, "calibrate") != 0 ? -1
			 : pf_fail(e, PF_RUNTIME, "calibrate: interrupted on another rank");
	if (rc == 0 && t.rank == 0)
		rc = cal_write(x, o, all, &t, cmdline, path, iso, &fs, e);
	if (rc == 0 && fs_note[0] != '\0')
		printf("calibrate: %s\n", fs_note);
	free(fs.fs_dataset);
	free(fs.fs_reps_MBps);
	free(all);
	if (leaders != MPI_COMM_NULL && MPI_Comm_free(&leaders) != MPI_SUCCESS && rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Comm_free failed");
	topology_free(&t);
	return rc;
}

int calibrate_command(int argc, char **argv, const char *command_line, struct pf_err *e)
{
	struct cal_opts o = {NULL, NULL, 0, CALIB_REPS_DEFAULT, 4 * CALIB_DISK_MIN, 0,
			     64ull << 20, 0, {NULL, CALFS_BYTES_DEFAULT, 0, CALIB_REPS_DEFAULT}};
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	struct experiment x;
	backend_config(blocks, BACKEND_BLOCKS_MAX);
	if (cal_parse(argc, argv, &o, e) != 0 || cfg_load(o.config, blocks, &x, e) != 0)
		return -1;
	if (o.mem_bytes == 0)
		o.mem_bytes = calmem_default();
	o.transfer = o.fs.transfer = calrd_transfer(&x);
	if (calfs_check(&x, &o.fs, e) != 0) {
		cfg_free(&x);
		return -1;
	}
	int rc = cal_run(&x, &o, command_line, e);
	cfg_free(&x);
	return rc;
}
