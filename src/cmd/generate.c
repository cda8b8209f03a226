/* generate: make the data sets, in parallel. Files are block-decomposed over all ranks; each
 * is written at its name from its first byte to its last (a hashed one under a .part name,
 * moved to its name by generate_hashed.c), so a file at its name with its size is whole, and
 * an interrupted run resumes by keeping whole files and redoing the rest. The manifest says
 * "complete" only after every rank has finished. What it checks before writing anything is
 * generate_check.c. */
#include "cmd/generate.h"
#include "cmd/datasets.h"
#include "cmd/generate_hashed.h"
#include "cmd/locks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run/backends/posix.h"
#include "dataset/dataset.h"
#include "util/digest.h"
#include "dataset/fromtree.h"
#include "util/iobuf.h"
#include "run/plan.h"
#include "util/space.h"
#include "util/stop.h"
#include "dataset/tree.h"
#include "util/units.h"
#include "util/safe.h"

#define GEN_GUARD_BYTES_MAX (1ULL << 30) /* at most this written by a rank between guards */
#define GEN_GUARD_FILES_MAX 4096

/* What gen_make_file did. */
enum gen_outcome { GEN_KEPT, GEN_MADE };

static double gen_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rank 0, once every data set passed its checks and the space check: make the directory and
 * mark the manifest incomplete unless it already records this very data set as complete. */
static int gen_decide(const struct gen_ctx *g, struct pf_err *e)
{
	char dir[GEN_PATH], shown[SAFE_ROOM(CFG_PATH_MAX)];
	struct manifest want, have;
	int state;
	if (gen_classify(g->x, g->d, &state, &have, e) != 0)
		return -1;
	manifest_from_config(g->x, g->d, &want);
	if (dataset_dir(g->x, g->d, dir, sizeof dir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int rc = dataset_mkdirs(dir);
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: cannot create directory", dir);
	if (state == GEN_DONE)
		return 0; /* files are still checked one by one: one may have gone since */
	if (state == GEN_REDESCRIBE)
		printf("generate %s: %s changed since it was described (%" PRIu64 " files then, %" PRIu64
		       " now): described again\n", g->d->name,
		       safe_text(shown, sizeof shown, g->d->from_tree, 0), have.nfiles, want.nfiles);
	if (state == GEN_RESUME)
		want.digests = have.digests; /* lists of the same files stay valid */
	/* from_tree: the description beside the manifest, never in the tree */
	if (g->d->tree != NULL && fromtree_write(dir, g->d, e) != 0)
		return -1;
	return manifest_write(dir, &want, e);
}

/* Only one rank ever makes a given directory: two nodes that make one directory at once can
 * leave it unusable from both on a shared file system (GlusterFS: one mkdir says EEXIST, then
 * creates in it fail with ENOENT on either node for good). An indexed data set's directory
 * that holds files of this rank alone is made by it just before its first file: directories
 * come into being with their files, never a whole data set's up front (a stopped generate
 * leaves no empty tree, and the first bytes are written at once). */

/* Directory k of an indexed data set holds files of this rank's block alone. */
static int gen_dir_mine(const struct gen_ctx *g, uint64_t k)
{
	uint64_t fpd = g->d->layout.files_per_dir, start = k * fpd;
	uint64_t end = start + fpd < g->d->nfiles ? start + fpd : g->d->nfiles;
	return start >= g->first && end <= g->first + g->count;
}

/* Directory k: an indexed data set's dNNNNNN, or a twin's (nested as in its source).
 * Resumed: it may be there, EEXIST is fine. */
static int gen_make_dir(const struct gen_ctx *g, uint64_t k, struct pf_err *e)
{
	char path[GEN_PATH];
	int rc;
	if (g->d->layout.kind == CFG_LAYOUT_TREE)
		rc = snprintf(path, sizeof path, "%s/%s/%s", g->x->root, g->d->name,
			      tree_dir_path(g->d->tree, k, 1)) >= (int)sizeof path;
	else
		rc = dataset_subdir_path(g->x, g->d, k, path, sizeof path);
	if (rc != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return pf_fail_errno(e, errno, "%s: cannot create directory", path);
	return 0;
}

/* The levels of a twin's directory k below the data set's own. */
static uint64_t gen_tree_level(const struct gen_ctx *g, uint64_t k)
{
	uint64_t level = 1;
	for (const char *p = tree_dir_path(g->d->tree, k, 1); *p != '\0'; p++)
		level += *p == '/';
	return level;
}

/* A twin's directories, its empty ones too, before its files: files in sorted path order
 * share directories with no pattern a rank could own. Level by level, a level's directories
 * dealt round-robin over the ranks, every rank agreeing that a level is made before the next
 * (their parents) begins. The space check counted them with the files. */
static int gen_make_tree_dirs(const struct gen_ctx *g, struct pf_err *e)
{
	for (uint64_t level = 1; level <= g->d->tree->depth; level++) {
		int rc = 0;
		uint64_t dealt = 0;
		for (uint64_t k = 0; k < g->d->tree->ndirs && rc == 0; k++) {
			if (gen_tree_level(g, k) != level ||
			    dealt++ % (uint64_t)g->nranks != (uint64_t)g->rank)
				continue;
			rc = stop_signal() != 0 ? gen_stopped(e) : gen_make_dir(g, k, e);
		}
		if (gen_all_ok(rc, e) != 0)
			return -1;
	}
	return 0;
}

/* Before file: its directory, when it is the first file there and the directory holds this
 * rank's files alone. */
static int gen_make_own_dir(const struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	uint64_t fpd = g->d->layout.files_per_dir;
	if (g->d->layout.kind != CFG_LAYOUT_INDEXED || fpd == 0 || file % fpd != 0 ||
	    !gen_dir_mine(g, file / fpd))
		return 0;
	return gen_make_dir(g, file / fpd, e);
}

/* Before any file: a twin's directories; an indexed data set's directories that hold files
 * of more than one rank, each made by the rank of its first file (the directory of its last,
 * when that goes on past its block). */
static int gen_make_shared_dirs(const struct gen_ctx *g, struct pf_err *e)
{
	uint64_t fpd = g->d->layout.files_per_dir, k;
	int rc = 0;
	if (g->d->layout.kind == CFG_LAYOUT_TREE)
		return gen_make_tree_dirs(g, e);
	if (g->d->layout.kind != CFG_LAYOUT_INDEXED || fpd == 0)
		return 0;
	k = g->count > 0 ? (g->first + g->count - 1) / fpd : 0;
	if (g->count > 0 && k * fpd >= g->first && !gen_dir_mine(g, k))
		rc = gen_make_dir(g, k, e);
	return gen_all_ok(rc, e);
}

static int gen_write_all(int fd, const unsigned char *buf, size_t len, uint64_t offset)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, buf, len, (off_t)offset);
		if (n < 0 && errno == EINTR && !stop_now())
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

#define GEN_OPEN_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC)
/* A file new at its name: nothing was there (not even a link, which O_EXCL does not follow) */
#define GEN_NEW_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/* Create path for writing (flags: GEN_OPEN_FLAGS or GEN_NEW_FLAGS) in a directory that is
 * made already (the data set's own, or one of its directories): never made here, where ranks
 * on other nodes could race to make it. A symbolic link at the name is replaced, never
 * written through (O_NOFOLLOW): what it points to is not ours. fd, or -errno (-EEXIST with
 * GEN_NEW_FLAGS: something is at the name). */
static int gen_create(const char *path, int flags)
{
	int fd = open(path, flags, 0644);
	if (fd < 0 && errno == ELOOP && unlink(path) == 0)
		fd = open(path, flags, 0644);
	for (int k = 0; fd < 0 && errno == ENOENT && gen_lag_again(k); k++)
		fd = open(path, flags, 0644);
	return fd >= 0 ? fd : -errno;
}

/* Write one file's bytes into tmp, GEN_WRITE at a time, digesting them on the way when there is
 * a digest list (tmp NULL: only digest, for a file kept whole: its content is the content
 * function's, so it need not be read back). fd: tmp already open for writing (gen_make_file's
 * new file), or -1 to open it here. A file this wrote and could not finish is removed: never
 * a partial file left behind. Returns 0 or -errno. */
static int gen_write_file(struct gen_ctx *g, uint64_t file, const char *tmp, int fd)
{
	if (tmp != NULL && fd < 0)
		fd = gen_create(tmp, GEN_OPEN_FLAGS);
	if (tmp != NULL && fd < 0)
		return fd;
	int rc = 0;
	for (int k = 1; k < DIGEST_KINDS && rc == 0; k++)
		if (g->kinds & (1u << k))
			rc = digest_init(&g->dg[k]);
	uint64_t size = dataset_file_size(g->d, file);
	for (uint64_t off = 0; off < size && rc == 0; off += GEN_WRITE) {
		size_t len = size - off < GEN_WRITE ? (size_t)(size - off) : GEN_WRITE;
		dataset_fill(&g->content, file, off, g->buf, len);
		for (int k = 1; k < DIGEST_KINDS; k++)
			if (g->kinds & (1u << k))
				digest_update(&g->dg[k], g->buf, len);
		rc = stop_now() ? -EINTR : fd >= 0 ? gen_write_all(fd, g->buf, len, off) : 0;
	}
	if (fd < 0)
		return rc;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* The file's digests, one per list, into hex[kind] (after gen_write_file). */
static int gen_final_digests(struct gen_ctx *g, uint64_t file, char hex[][DIGEST_HEX_MAX],
			     struct pf_err *e)
{
	for (int k = 1; k < DIGEST_KINDS; k++)
		if ((g->kinds & (1u << k)) && digest_final_hex(&g->dg[k], hex[k]) != 0)
			return pf_fail(e, PF_RUNTIME, "generate %s: %s digest of file %" PRIu64
				       " failed", g->d->name, digest_name((enum digest_kind)k), file);
	return 0;
}

/* The file's line of each digest list, at file x (hex length + 1): no rank waits for another.
 * For a hashed data set this is also the line of the name list, written before the rename:
 * a listed file is whole when it is there with its size. */
static int gen_write_digests(struct gen_ctx *g, uint64_t file, char hex[][DIGEST_HEX_MAX],
			     struct pf_err *e)
{
	char line[DIGEST_HEX_MAX + 1];
	for (int k = 1; k < DIGEST_KINDS; k++) {
		size_t width = digest_hex_len((enum digest_kind)k) + 1;
		if (!(g->kinds & (1u << k)))
			continue;
		snprintf(line, sizeof line, "%s\n", hex[k]);
		int rc = gen_write_all(g->dfd[k], (const unsigned char *)line, width, file * width);
		if (rc != 0)
			return pf_fail_errno(e, rc, "generate %s: cannot write the %s digest list",
					     g->d->name, digest_name((enum digest_kind)k));
	}
	return 0;
}

/* Digests computed by gen_write_file, finished and written to their lines. */
static int gen_write_digest(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char hex[DIGEST_KINDS][DIGEST_HEX_MAX];
	if (g->kinds == 0)
		return 0;
	if (gen_final_digests(g, file, hex, e) != 0)
		return -1;
	return gen_write_digests(g, file, hex, e);
}

/* The interrupted signal's message, or a write failure's. */
static int gen_write_failed(int rc, const char *path, struct pf_err *e)
{
	if (rc == -EINTR && stop_signal() != 0)
		return gen_stopped(e);
	return pf_fail_errno(e, rc, "%s: cannot write", path);
}

/* A hashed file: written to ROOT/NAME/fNNNNNNNNNN.part while digested, listed, and left
 * there for gen_hashed_move, which makes the directories of every rank's names and moves it
 * to its own. Listed before the move: a run killed in between leaves a line whose file is
 * missing, which the next generate remakes (a listed file is whole when it exists with its
 * size) and clean skips; never a file no line names, which clean could not find. Two files
 * never share a name: the content of every file depends on its index (the pattern mixes the
 * index into every 4 KiB block, even a 7-byte file differs), so equal digests would need a
 * collision. */
static int gen_make_hashed(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char tmp[GEN_PATH], hex[DIGEST_KINDS][DIGEST_HEX_MAX];
	if (gen_hashed_part_path(g, file, tmp, e) != 0)
		return -1;
	int rc = gen_write_file(g, file, tmp, -1);
	if (rc != 0) {
		unlink(tmp);
		return gen_write_failed(rc, tmp, e);
	}
	if (gen_final_digests(g, file, hex, e) != 0 || gen_write_digests(g, file, hex, e) != 0) {
		unlink(tmp);
		return -1;
	}
	if (gen_hashed_pending(g, file, hex[g->d->layout.digest]) != 0) {
		unlink(tmp);
		return pf_fail(e, PF_RUNTIME, "generate %s: out of memory", g->d->name);
	}
	return 0;
}

/* A file already at its final name with the right size is whole: its bytes are written in
 * order (the size grows only as they land), so a killed generate leaves a shorter file, which
 * is made again; no rename per file, which costs a metadata operation (a round trip to the
 * metadata server on a parallel file system) and was a tenth of the time of a 4 KiB file. A
 * kept file's digest is computed from the content function (generate made those bytes). */
static int gen_make_file(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char path[GEN_PATH];
	struct stat st;
	if (gen_done_path(g, file, path, e) != 0 || gen_make_own_dir(g, file, e) != 0)
		return -1;
	/* The common case, a file not there yet, costs one open (O_EXCL) rather than a failed
	 * stat and an open: a path lookup less per file, a round trip on a network file system */
	int fd = g->d->layout.kind == CFG_LAYOUT_HASHED ? -EEXIST : gen_create(path, GEN_NEW_FLAGS);
	if (fd < 0 && fd != -EEXIST)
		return gen_write_failed(fd, path, e);
	if (fd == -EEXIST && path[0] != '\0' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == dataset_file_size(g->d, file)) {
		if (g->kinds == 0)
			return 0;
		int krc = gen_write_file(g, file, NULL, -1);
		if (krc != 0)
			return pf_fail_errno(e, krc, "%s: cannot digest", path);
		return gen_write_digest(g, file, e);
	}
	g->made_files++;
	g->made_bytes += dataset_file_size(g->d, file);
	if (g->d->layout.kind == CFG_LAYOUT_HASHED)
		return gen_make_hashed(g, file, e);
	int rc = gen_write_file(g, file, path, fd);
	if (rc != 0)
		return gen_write_failed(rc, path, e);
	return gen_write_digest(g, file, e);
}

/* Rank 0 extrapolates from its own share: shares differ by at most one file. The rate is
 * that of the bytes written: files kept whole cost a stat, and counting them would print
 * rates no disk has. */
static void gen_progress(struct gen_ctx *g, int last)
{
	double now = gen_now();
	if (g->rank != 0 || (!last && now - g->t_last < 2.0))
		return;
	g->t_last = now;
	double frac = g->share_bytes ? (double)g->done_bytes / (double)g->share_bytes : 1.0;
	double scale = g->share_bytes ? (double)g->d->total_size / (double)g->share_bytes : 0;
	double files = g->count ? (double)g->d->nfiles / (double)g->count : 0;
	double elapsed = now - g->t_start, written = (double)g->made_bytes * scale;
	double bytes = frac * (double)g->d->total_size;
	char done[32], total[32], rate[32], left[32];
	units_format_size((uint64_t)bytes, done, sizeof done);
	units_format_size(g->d->total_size, total, sizeof total);
	units_format_rate(elapsed > 0 ? written / elapsed : 0, rate, sizeof rate);
	units_format_duration(frac > 0 ? elapsed * (1 - frac) / frac : 0, left, sizeof left);
	printf("generate %s: %s of %s (%.0f%%, ~%" PRIu64 " of %" PRIu64 " files, ~%" PRIu64
	       " kept whole), writing %s, %s left\n", g->d->name, done, total, frac * 100,
	       (uint64_t)((double)g->done_files * files), g->d->nfiles,
	       (uint64_t)((double)(g->done_files - g->made_files) * files), rate, left);
	fflush(stdout);
}

/* space_check: before a file that would take this rank past its interval, a look at the
 * file system's free space; generation stops while half the margin is still free. */
static int gen_guard(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	if (!g->x->space_check)
		return 0;
	g->since_bytes += dataset_file_size(g->d, file);
	g->since_files++;
	if (g->since_bytes <= g->guard_bytes && g->since_files <= g->guard_files)
		return 0;
	g->since_bytes = dataset_file_size(g->d, file);
	g->since_files = 1;
	if (space_guard(g->dsdir, &g->fs, e) != 0)
		return pf_fail(e, PF_RUNTIME, "generate %s: %s", g->d->name, e->msg);
	return 0;
}

static int gen_make_share(struct gen_ctx *g, struct pf_err *e)
{
	g->t_start = g->t_last = gen_now();
	g->since_bytes = g->guard_bytes + 1; /* a look before the first file */
	g->share_bytes = g->done_bytes = g->made_bytes = 0;
	for (uint64_t i = 0; i < g->count; i++)
		g->share_bytes += dataset_file_size(g->d, g->first + i);
	for (uint64_t i = 0; i < g->count; i++) {
		if (stop_signal() != 0)
			return gen_stopped(e);
		if (gen_guard(g, g->first + i, e) != 0 || gen_make_file(g, g->first + i, e) != 0)
			return -1;
		g->done_files++;
		g->done_bytes += dataset_file_size(g->d, g->first + i);
		gen_progress(g, 0);
		progress_tick(&g->progress, g->done_bytes, g->done_files);
	}
	gen_progress(g, 1);
	return 0;
}

static int gen_finish(const struct gen_ctx *g, struct pf_err *e)
{
	char dir[GEN_PATH];
	struct manifest m;
	int rc = 0, verdict = 0;
	uint64_t mine[2] = {g->made_files, g->made_bytes}, made[2] = {0, 0};
	double elapsed = gen_now() - g->t_start;
	if (MPI_Reduce(mine, made, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Reduce failed");
	if (g->rank == 0) {
		char bytes[32], rate[32];
		printf("generate %s: %" PRIu64 " files made, %" PRIu64 " kept (whole already)",
		       g->d->name, made[0], g->d->nfiles - made[0]);
		if (made[1] > 0 && elapsed > 0)
			printf("; wrote %s at %s", units_format_size(made[1], bytes, sizeof bytes),
			       units_format_rate((double)made[1] / elapsed, rate, sizeof rate));
		struct manifest have;
		manifest_from_config(g->x, g->d, &m);
		m.complete = 1;
		rc = dataset_dir(g->x, g->d, dir, sizeof dir) == 0 ? 0 : -1;
		int had = rc == 0 && manifest_read(dir, &have, e) == 0;
		if (had) /* keep the lists made before */
			m.digests = have.digests;
		m.digests |= g->kinds;
		/* nothing made and the manifest says so already: nothing to write (a read-only
		 * mount of a whole data set is fine) */
		int same = had && made[0] == 0 && have.complete && have.digests == m.digests;
		printf("%s\n", same ? "; complete" : "");
		if (rc == 0 && !same)
			rc = manifest_write(dir, &m, e);
	}
	return gen_share_verdict(rc, &verdict, e);
}

/* Every rank opens the lists (created by whichever comes first) to write its own lines;
 * read too: a hashed data set's name list says which files are made already. */
static int gen_open_digests(struct gen_ctx *g, struct pf_err *e)
{
	char path[GEN_PATH];
	g->kinds = 0;
	if (g->x->process_digest != DIGEST_NONE)
		g->kinds |= 1u << g->x->process_digest;
	if (g->d->layout.kind == CFG_LAYOUT_HASHED)
		g->kinds |= 1u << g->d->layout.digest;
	for (int k = 1; k < DIGEST_KINDS; k++) {
		if (!(g->kinds & (1u << k)))
			continue;
		if (dataset_digest_path(g->x, g->d, (enum digest_kind)k, path, sizeof path) != 0)
			return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		g->dfd[k] = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (g->dfd[k] < 0)
			return pf_fail_errno(e, errno, "%s: cannot create", path);
	}
	return 0;
}

/* Flush and close this rank's handles of the lists; rc is what happened before (kept). */
static int gen_close_digests(struct gen_ctx *g, int rc, struct pf_err *e)
{
	for (int k = 1; k < DIGEST_KINDS; k++) {
		if (g->dfd[k] < 0)
			continue;
		if ((fsync(g->dfd[k]) != 0 || close(g->dfd[k]) != 0) && rc == 0)
			rc = pf_fail_errno(e, errno, "generate %s: cannot write the %s digest list",
					   g->d->name, digest_name((enum digest_kind)k));
		g->dfd[k] = -1;
	}
	return rc;
}

/* A tree read in place: gen_decide wrote its description; the manifest says complete. Not a
 * byte is written in the tree. */
static int gen_in_place(const struct gen_ctx *g, struct pf_err *e)
{
	char dir[GEN_PATH], src[SAFE_ROOM(CFG_PATH_MAX)], shown[SAFE_ROOM(GEN_PATH)];
	struct manifest m;
	int rc = 0, verdict = 0;
	if (g->rank == 0) {
		manifest_from_config(g->x, g->d, &m);
		m.complete = 1;
		rc = dataset_dir(g->x, g->d, dir, sizeof dir) == 0
			     ? manifest_write(dir, &m, e)
			     : pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		if (rc == 0)
			printf("generate %s: in place: %" PRIu64 " files (%" PRIu64 " B) of %s listed "
			       "in %s/%s; nothing written in the tree\n", g->d->name, g->d->nfiles,
			       g->d->total_size, safe_text(src, sizeof src, g->d->tree->source, 0),
			       safe_text(shown, sizeof shown, dir, 0), TREE_FILE);
	}
	return gen_share_verdict(rc, &verdict, e);
}

/* space_check: rank 0's look at the data set's file system (its directory exists now), for
 * every rank's guard; the intervals keep what all ranks write between two looks to a quarter
 * of the margin, so half of it is still free when the guard stops them. */
static int gen_share_fs(struct gen_ctx *g, struct pf_err *e)
{
	int rc = 0, verdict = 0;
	if (!g->x->space_check)
		return 0;
	if (dataset_dir(g->x, g->d, g->dsdir, sizeof g->dsdir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	if (g->rank == 0)
		rc = space_probe(g->dsdir, &g->fs, e);
	if (gen_share_verdict(rc, &verdict, e) != 0)
		return -1;
	if (MPI_Bcast(&g->fs, sizeof g->fs, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Bcast failed");
	uint64_t ranks = (uint64_t)g->nranks;
	g->guard_bytes = g->fs.margin_bytes / (4 * ranks);
	g->guard_files = g->fs.margin_inodes / (4 * ranks);
	if (g->guard_bytes > GEN_GUARD_BYTES_MAX)
		g->guard_bytes = GEN_GUARD_BYTES_MAX;
	if (g->guard_files > GEN_GUARD_FILES_MAX)
		g->guard_files = GEN_GUARD_FILES_MAX;
	return 0;
}

static int gen_dataset(struct gen_ctx *g, struct pf_err *e)
{
	int verdict = GEN_MAKE, rc = g->rank == 0 ? gen_decide(g, e) : 0;
	if (g->rank == 0 && g->d->tree != NULL)
		fromtree_print(stdout, g->x, g->d);
	if (gen_share_verdict(rc, &verdict, e) != 0)
		return -1;
	if (g->d->layout.kind == CFG_LAYOUT_IN_PLACE)
		return gen_in_place(g, e);
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	if (gen_share_fs(g, e) != 0 || gen_make_shared_dirs(g, e) != 0)
		return -1;
	if (gen_all_ok(gen_open_digests(g, e), e) != 0)
		return gen_close_digests(g, 0, e), -1;
	char label[CFG_NAME_MAX + 16];
	snprintf(label, sizeof label, "generate %s", g->d->name);
	progress_begin(&g->progress, label, g->d->total_size, g->d->nfiles);
	int made = gen_make_share(g, e);
	if (progress_end(&g->progress) != 0 && made == 0)
		made = pf_fail(e, PF_RUNTIME, "generate: the progress sums failed (MPI)");
	if (g->d->layout.kind == CFG_LAYOUT_HASHED)
		made = gen_hashed_move(g, made, e);
	made = gen_close_digests(g, made, e);
	if (gen_all_ok(made, e) != 0)
		return -1;
	return gen_finish(g, e);
}

int generate_all(const struct experiment *x, double progress_s, struct lock_held *held,
		 struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e);
	g.progress.comm = MPI_COMM_NULL;
	if (rc == 0 && progress_init(&g.progress, progress_s) != 0)
		rc = pf_fail(e, PF_RUNTIME, "generate: cannot set up the progress lines");
	if (rc == 0)
		rc = gen_check_readers(x, e);
	if (rc == 0)
		rc = gen_check_all(&g, e);
	if (rc == 0)
		rc = locks_generate_root(x, g.rank, held, e);
	for (int k = 1; rc == 0 && k < DIGEST_KINDS; k++)
		if (digest_open(&g.dg[k], (enum digest_kind)k) != 0)
			rc = pf_fail(e, PF_RUNTIME, "generate: out of memory");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		dataset_content_init(&g.content, g.d);
		g.done_files = g.made_files = 0;
		rc = gen_dataset(&g, e);
	}
	for (int k = 1; k < DIGEST_KINDS; k++)
		digest_close(&g.dg[k]);
	gen_hashed_free(&g);
	progress_free(&g.progress);
	free(g.buf);
	return rc;
}
