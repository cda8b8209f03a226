/* generate: make, verify and clean data sets, in parallel. Files are block-decomposed over all
 * ranks; each is written under a .part name and renamed when whole, so an interrupted run
 * resumes by keeping whole files and redoing the rest. The manifest says "complete" only after
 * every rank has finished. */
#include "cmd/generate.h"

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

#define GEN_BLOCK (4u << 20) /* write and verify in 4 MiB blocks */
#define GEN_PATH (CFG_PATH_MAX + 64)

enum gen_verdict { GEN_SKIP, GEN_MAKE };

/* What generate finds in a data set's directory before it touches anything. */
enum gen_state {
	GEN_FRESH,      /* no directory, or an empty one: everything to make */
	GEN_RESUME,     /* the same files, not all made yet */
	GEN_DONE,       /* the same files, complete: only checked file by file */
	GEN_REDESCRIBE  /* a tree read in place that changed: described again */
};

#define GEN_GUARD_BYTES_MAX (1ULL << 30) /* at most this written by a rank between guards */
#define GEN_GUARD_FILES_MAX 4096

/* What gen_make_file did. */
enum gen_outcome { GEN_KEPT, GEN_MADE };

struct gen_ctx {
	const struct experiment *x;
	const struct cfg_dataset *d;
	int rank, nranks;
	uint64_t key;
	unsigned char *buf; /* GEN_BLOCK bytes */
	uint64_t first, count; /* this rank's files */
	/* progress, printed by rank 0 from its own share */
	double t_start, t_last;
	uint64_t done_files;
	uint64_t made_files; /* written by this rank, not found whole */
	uint64_t share_bytes, done_bytes, made_bytes; /* this rank's: all, so far, written */
	/* Digest lists: process.digest's kind and, for a hashed data set, its names' kind (the
	 * same list when the kinds agree). Each file's digest goes to its line of each list. */
	struct digest dg[DIGEST_KINDS]; /* opened for every kind once, used where kinds has it */
	unsigned kinds;      /* 1u << kind for the lists of the data set being made */
	int dfd[DIGEST_KINDS]; /* the lists, open on every rank while its files are made; -1 */
	/* space_check: the data set's file system (rank 0's probe, on every rank) and how much
	 * this rank writes between two looks at its free space */
	struct space_fs fs;
	uint64_t guard_bytes, guard_files; /* intervals */
	uint64_t since_bytes, since_files; /* written since the last look */
	char dsdir[GEN_PATH];
};

static double gen_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every rank leaves with rank 0's verdict and, on failure, its message: one broadcast. */
static int gen_share_verdict(int rc, int *verdict, struct pf_err *e)
{
	struct {
		int rc, verdict;
		struct pf_err err;
	} v = {rc, *verdict, *e};
	if (MPI_Bcast(&v, sizeof v, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Bcast failed");
	*verdict = v.verdict;
	*e = v.err;
	return v.rc;
}

/* Any rank failed -> every rank returns -1; only the ranks that failed carry a message. */
static int gen_all_ok(int rc, struct pf_err *e)
{
	int mine = rc != 0, any = 0;
	if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Allreduce failed");
	return any ? -1 : 0;
}

/* 1 when path holds nothing but . and .., 0 when it holds something, -1 on error. */
static int gen_dir_is_empty(const char *path, struct pf_err *e)
{
	DIR *dir = opendir(path);
	if (dir == NULL)
		return pf_fail_errno(e, errno, "%s: cannot open directory", path);
	struct dirent *de;
	int empty = 1;
	while (empty && (de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(dir);
	return empty;
}

/* Rank 0, touching nothing: what generate will do in d's directory (*state; *have gets its
 * manifest when there is one), or -1 (PF_USAGE) where it must not write. */
static int gen_classify(const struct experiment *x, const struct cfg_dataset *d, int *state,
			struct manifest *have, struct pf_err *e)
{
	char dir[GEN_PATH];
	struct manifest want;
	struct stat st;
	*state = GEN_FRESH;
	manifest_from_config(x, d, &want);
	if (dataset_dir(x, d, dir, sizeof dir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", x->root);
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "%s", dir);
	if (!S_ISDIR(st.st_mode))
		return pf_fail(e, PF_USAGE, "%s: exists and is not a directory; refusing to write "
			       "there", dir);
	int found = manifest_read(dir, have, e);
	if (found < 0)
		return -1;
	if (found == 1) {
		int empty = gen_dir_is_empty(dir, e);
		if (empty < 0)
			return -1;
		if (!empty)
			return pf_fail(e, PF_USAGE,
				       "%s: directory is not empty and holds no pfsread manifest; "
				       "refusing to write into it",
				       dir);
	} else if (!manifest_same_files(&want, have) && want.layout == CFG_LAYOUT_IN_PLACE &&
		   have->layout == CFG_LAYOUT_IN_PLACE) {
		*state = GEN_REDESCRIBE; /* nothing here is data of ours */
	} else if (!manifest_same_files(&want, have)) {
		return pf_fail(e, PF_USAGE,
			       "%s: holds data set '%s' made with other parameters "
			       "(%" PRIu64 " files of %" PRIu64 " B, %" PRIu64 " per directory); "
			       "run 'pfsread clean' first",
			       dir, have->name, have->nfiles, have->file_size, have->files_per_dir);
	} else {
		*state = have->complete ? GEN_DONE : GEN_RESUME;
	}
	return 0;
}

/* Rank 0, once every data set passed its checks and the space check: make the directory and
 * mark the manifest incomplete unless it already records this very data set as complete. */
static int gen_decide(const struct gen_ctx *g, struct pf_err *e)
{
	char dir[GEN_PATH];
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
		       " now): described again\n", g->d->name, g->d->from_tree, have.nfiles,
		       want.nfiles);
	if (state == GEN_RESUME)
		want.digests = have.digests; /* lists of the same files stay valid */
	/* from_tree: the description beside the manifest, never in the tree */
	if (g->d->tree != NULL && fromtree_write(dir, g->d, e) != 0)
		return -1;
	return manifest_write(dir, &want, e);
}

/* The interrupted signal's message, in every stage of generate. */
static int gen_stopped(struct pf_err *e)
{
	return pf_fail(e, stop_status(), "generate: interrupted by signal %d; run generate again to "
		       "finish", stop_signal());
}

/* A twin's directories (the source's, renamed) that hold no file, after the files (which
 * made their own): block-decomposed over the ranks, mkdir -p (EEXIST is fine: most exist). */
static int gen_make_tree_dirs(const struct gen_ctx *g, struct pf_err *e)
{
	char path[GEN_PATH];
	uint64_t first, count;
	if (g->d->layout.kind != CFG_LAYOUT_TREE)
		return 0;
	plan_block(g->d->tree->ndirs, (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t k = first; k < first + count; k++) {
		if (stop_signal() != 0)
			return gen_stopped(e);
		if (snprintf(path, sizeof path, "%s/%s/%s", g->x->root, g->d->name,
			     tree_dir_path(g->d->tree, k, 1)) >= (int)sizeof path)
			return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		int rc = dataset_mkdirs(path);
		if (rc != 0)
			return pf_fail_errno(e, rc, "%s: cannot create directory", path);
	}
	return 0;
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

/* Create path for writing; its directory is made when it is missing: directories come into
 * being with their first file, never a whole tree up front (which could fill a file system's
 * inodes before a byte is written). fd, or -errno. */
static int gen_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	char dir[GEN_PATH];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		return -ENOENT;
	*slash = '\0';
	int rc = dataset_mkdirs(dir); /* ranks racing on one directory: EEXIST is fine */
	if (rc != 0)
		return rc;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return fd >= 0 ? fd : -errno;
}

/* Write one file's bytes into tmp, with large writes, digesting them on the way when there is
 * a digest list (tmp NULL: only digest, for a file kept whole: its content is the content
 * function's, so it need not be read back). Returns 0 or -errno. */
static int gen_write_file(struct gen_ctx *g, uint64_t file, const char *tmp)
{
	int fd = tmp != NULL ? gen_create(tmp) : -1;
	if (tmp != NULL && fd < 0)
		return fd;
	int rc = 0;
	for (int k = 1; k < DIGEST_KINDS && rc == 0; k++)
		if (g->kinds & (1u << k))
			rc = digest_init(&g->dg[k]);
	uint64_t size = dataset_file_size(g->d, file);
	for (uint64_t off = 0; off < size && rc == 0; off += GEN_BLOCK) {
		size_t len = size - off < GEN_BLOCK ? (size_t)(size - off) : GEN_BLOCK;
		dataset_fill(g->key, file, off, g->buf, len);
		for (int k = 1; k < DIGEST_KINDS; k++)
			if (g->kinds & (1u << k))
				digest_update(&g->dg[k], g->buf, len);
		rc = stop_now() ? -EINTR : fd >= 0 ? gen_write_all(fd, g->buf, len, off) : 0;
	}
	if (fd < 0)
		return rc;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
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

/* Where file's name is or will be: a hashed file's is its line of the name list (written
 * just before the rename); path gets "" when there is no line yet. */
static int gen_done_path(struct gen_ctx *g, uint64_t file, char *path, struct pf_err *e)
{
	char hex[DIGEST_HEX_MAX];
	path[0] = '\0';
	if (g->d->layout.kind != CFG_LAYOUT_HASHED)
		return dataset_file_path(g->x, g->d, file, path, GEN_PATH) == 0
			       ? 0 : pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int rc = dataset_read_line(g->dfd[g->d->layout.digest], g->d->layout.digest, file, hex);
	if (rc < 0)
		return pf_fail_errno(e, rc, "generate %s: cannot read the name list", g->d->name);
	if (rc == 0 && dataset_hashed_path(g->x, g->d, hex, path, GEN_PATH) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	return 0;
}

/* A hashed file: written to ROOT/NAME/fNNNNNNNNNN.part while digested, listed, then moved to
 * the directories of its name (made here: ranks may race on one, EEXIST is fine). Listed
 * before the rename: a run killed in between leaves a line whose file is missing, which the
 * next generate remakes (a listed file is whole when it exists with its size) and clean
 * skips; never a file no line names, which clean could not find. Two files never share a name: the content of every file depends on its index (the pattern
 * mixes the index into every 4 KiB block, even a 7-byte file differs), so equal digests would
 * need a hash collision. */
static int gen_make_hashed(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char tmp[GEN_PATH], path[GEN_PATH], hex[DIGEST_KINDS][DIGEST_HEX_MAX];
	if (snprintf(tmp, sizeof tmp, "%s/%s/f%010" PRIu64 ".part", g->x->root, g->d->name,
		     file) >= (int)sizeof tmp)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int rc = gen_write_file(g, file, tmp);
	if (rc != 0) {
		unlink(tmp);
		return gen_write_failed(rc, tmp, e);
	}
	if (gen_final_digests(g, file, hex, e) != 0 ||
	    dataset_hashed_path(g->x, g->d, hex[g->d->layout.digest], path, sizeof path) != 0) {
		unlink(tmp);
		return e->status != PF_OK ? -1 : pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	}
	if (gen_write_digests(g, file, hex, e) != 0) {
		unlink(tmp);
		return -1;
	}
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rc = dataset_mkdirs(path);
	*slash = '/';
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp);
		return pf_fail_errno(e, rc, "%s: cannot move to %s", tmp, path);
	}
	return 0;
}

/* A file already at its final name with the right size is whole: renames happen last. A kept
 * file's digest is computed from the content function (generate made those bytes). */
static int gen_make_file(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char path[GEN_PATH], tmp[GEN_PATH + 8];
	struct stat st;
	if (gen_done_path(g, file, path, e) != 0)
		return -1;
	if (path[0] != '\0' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == dataset_file_size(g->d, file)) {
		if (g->kinds == 0)
			return 0;
		int krc = gen_write_file(g, file, NULL);
		if (krc != 0)
			return pf_fail_errno(e, krc, "%s: cannot digest", path);
		return gen_write_digest(g, file, e);
	}
	g->made_files++;
	g->made_bytes += dataset_file_size(g->d, file);
	if (g->d->layout.kind == CFG_LAYOUT_HASHED)
		return gen_make_hashed(g, file, e);
	snprintf(tmp, sizeof tmp, "%s.part", path);
	int rc = gen_write_file(g, file, tmp);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp); /* never leave a partial file behind */
		return gen_write_failed(rc, path, e);
	}
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
		printf("\n");
		struct manifest have;
		manifest_from_config(g->x, g->d, &m);
		m.complete = 1;
		rc = dataset_dir(g->x, g->d, dir, sizeof dir) == 0 ? 0 : -1;
		if (rc == 0 && manifest_read(dir, &have, e) == 0) /* keep the lists made before */
			m.digests = have.digests;
		m.digests |= g->kinds;
		if (rc == 0)
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
	char dir[GEN_PATH];
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
			       g->d->total_size, g->d->tree->source, dir, TREE_FILE);
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
	if (gen_share_fs(g, e) != 0)
		return -1;
	if (gen_all_ok(gen_open_digests(g, e), e) != 0)
		return gen_close_digests(g, 0, e), -1;
	int made = gen_make_share(g, e);
	made = gen_close_digests(g, made, e);
	if (gen_all_ok(made, e) != 0 || gen_all_ok(gen_make_tree_dirs(g, e), e) != 0)
		return -1;
	return gen_finish(g, e);
}

/* ---- before anything is written ---- */

/* readers_per_node above what a node's ranks can give is refused here too, as by run: the
 * config is wrong for this job whatever command it runs. */
static int gen_check_readers(const struct experiment *x, struct pf_err *e)
{
	MPI_Comm node;
	int mine = 0, least = 0;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Comm_split_type failed");
	int rc = MPI_Comm_size(node, &mine);
	MPI_Comm_free(&node);
	if (rc != MPI_SUCCESS ||
	    MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Allreduce failed");
	return cfg_check_readers(x, least, e);
}

/* A resumed data set: the bytes (as allocated) and files of this rank's share that are whole
 * already, which need no new room. Hashed data sets are counted as if nothing were made
 * (their names are in a list this check does not open). */
static int gen_count_whole(struct gen_ctx *g, uint64_t out[2], struct pf_err *e)
{
	char path[GEN_PATH];
	struct stat st;
	out[0] = out[1] = 0;
	if (g->d->layout.kind == CFG_LAYOUT_HASHED || g->d->layout.kind == CFG_LAYOUT_IN_PLACE)
		return 0;
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	for (uint64_t f = g->first; f < g->first + g->count; f++) {
		if (stop_signal() != 0)
			return gen_stopped(e);
		if (dataset_file_path(g->x, g->d, f, path, sizeof path) != 0)
			return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == dataset_file_size(g->d, f)) {
			out[0] += (uint64_t)st.st_blocks * 512;
			out[1]++;
		}
	}
	return 0;
}

/* Rank 0: the space each data set still needs, summed per file system (a data set directory
 * may be a mount of its own), against what each has free. */
struct gen_fs_need {
	struct space_fs fs;
	struct space_need need;
};
#define GEN_FS_MAX 16

static int gen_space_verdict(const struct gen_ctx *g, const unsigned char *state,
			     const uint64_t (*whole)[2], struct pf_err *e)
{
	const struct experiment *x = g->x;
	struct gen_fs_need *fsn = calloc(GEN_FS_MAX, sizeof *fsn);
	char dir[GEN_PATH];
	size_t nfs = 1;
	int rc = fsn != NULL ? space_probe(x->root, &fsn[0].fs, e)
			     : pf_fail(e, PF_RUNTIME, "generate: out of memory");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		struct stat st;
		struct space_need need;
		size_t k = 0;
		if (state[i] == GEN_DONE)
			continue;
		if (dataset_dir(x, d, dir, sizeof dir) == 0 && stat(dir, &st) == 0 &&
		    st.st_dev != fsn[0].fs.dev) {
			while (k < nfs && fsn[k].fs.dev != st.st_dev)
				k++;
			if (k == nfs && nfs == GEN_FS_MAX)
				k = 0; /* so many mounts: counted against root's */
			else if (k == nfs && (rc = space_probe(dir, &fsn[nfs++].fs, e)) != 0)
				break;
		}
		dataset_space_need(x, d, fsn[k].fs.block, &need);
		need.bytes -= whole[i][0] < need.bytes ? whole[i][0] : need.bytes;
		need.inodes -= whole[i][1] < need.inodes ? whole[i][1] : need.inodes;
		space_add(&fsn[k].need, &need);
	}
	for (size_t k = 0; rc == 0 && k < nfs; k++)
		rc = space_check(&fsn[k].fs, &fsn[k].need, "generate", e);
	free(fsn);
	return rc;
}

/* Every data set's directory is looked at before any is written (one that must not be
 * written refuses the whole command, not after the others were made), then, with
 * space_check, what is left to make is held against the free space. Collective. */
static int gen_check_all(struct gen_ctx *g, struct pf_err *e)
{
	const struct experiment *x = g->x;
	unsigned char *state = calloc(x->ndatasets, 1);
	uint64_t (*whole)[2] = g->rank == 0 ? calloc(x->ndatasets, sizeof *whole) : NULL;
	int rc = state != NULL && (g->rank != 0 || whole != NULL)
			 ? 0 : pf_fail(e, PF_RUNTIME, "generate: out of memory");
	int verdict = 0;
	for (size_t i = 0; rc == 0 && g->rank == 0 && i < x->ndatasets; i++) {
		struct manifest have;
		int st = GEN_FRESH;
		if (stop_signal() != 0)
			rc = gen_stopped(e);
		else
			rc = gen_classify(x, &x->datasets[i], &st, &have, e);
		state[i] = (unsigned char)st;
	}
	rc = gen_share_verdict(rc, &verdict, e);
	if (rc == 0 && x->space_check &&
	    MPI_Bcast(state, (int)x->ndatasets, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "generate: MPI_Bcast failed");
	for (size_t i = 0; rc == 0 && x->space_check && i < x->ndatasets; i++) {
		uint64_t mine[2], sum[2];
		if (state[i] != GEN_RESUME)
			continue;
		g->d = &x->datasets[i];
		rc = gen_all_ok(gen_count_whole(g, mine, e), e);
		if (rc == 0 && MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) !=
				       MPI_SUCCESS)
			rc = pf_fail(e, PF_RUNTIME, "generate: MPI_Reduce failed");
		if (rc == 0 && g->rank == 0)
			memcpy(whole[i], sum, sizeof sum);
	}
	if (rc == 0 && x->space_check) {
		if (g->rank == 0)
			rc = gen_space_verdict(g, state, (const uint64_t(*)[2])whole, e);
		rc = gen_share_verdict(rc, &verdict, e);
	} else if (rc == 0 && g->rank == 0) {
		printf("generate: space_check: false: free space is neither checked nor watched\n");
	}
	free(state);
	free(whole);
	return rc;
}

static int gen_begin(struct gen_ctx *g, const struct experiment *x, struct pf_err *e)
{
	memset(g, 0, sizeof *g);
	g->x = x;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &g->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &g->nranks) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Comm_rank/size failed");
	for (int k = 0; k < DIGEST_KINDS; k++)
		g->dfd[k] = -1;
	int rc = iobuf_alloc(GEN_BLOCK, (void **)&g->buf);
	if (rc != 0)
		return pf_fail_errno(e, -rc, "generate: cannot allocate a %u-byte buffer", GEN_BLOCK);
	return 0;
}

int generate_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e);
	if (rc == 0)
		rc = gen_check_readers(x, e);
	if (rc == 0)
		rc = gen_check_all(&g, e);
	for (int k = 1; rc == 0 && k < DIGEST_KINDS; k++)
		if (digest_open(&g.dg[k], (enum digest_kind)k) != 0)
			rc = pf_fail(e, PF_RUNTIME, "generate: out of memory");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		g.key = dataset_key(g.d);
		g.done_files = g.made_files = 0;
		rc = gen_dataset(&g, e);
	}
	for (int k = 1; k < DIGEST_KINDS; k++)
		digest_close(&g.dg[k]);
	free(g.buf);
	return rc;
}

/* ---- verify ---------------------------------------------------------------------------- */

/* The posix backend's read loop, going on after a signal unless the run must stop. */
static int verify_read_block(int fd, unsigned char *buf, size_t len, uint64_t off, size_t *got)
{
	struct bfile f = {.fd = fd, .priv = NULL, .path = NULL, .noatime_used = 0};
	size_t done = 0, n = 0;
	int rc;
	while ((rc = posix_read(&f, buf + done, len - done, off + done, &n)) == -EINTR &&
	       !stop_now())
		done += n;
	*got = done + n;
	return rc;
}

/* A stop request in verify: what was checked so far stands; nothing is written. */
static int verify_stopped(struct pf_err *e)
{
	return stop_check(e, "verify");
}

static int verify_content(struct gen_ctx *g, uint64_t file, int fd, const char *path,
			  struct pf_err *e)
{
	uint64_t size = dataset_file_size(g->d, file);
	for (uint64_t off = 0; off < size; off += GEN_BLOCK) {
		size_t want = size - off < GEN_BLOCK ? (size_t)(size - off) : GEN_BLOCK, got = 0;
		if (stop_signal() != 0)
			return verify_stopped(e);
		int rc = verify_read_block(fd, g->buf, want, off, &got);
		if (rc == -EINTR && stop_signal() != 0)
			return verify_stopped(e);
		if (rc != 0)
			return pf_fail_errno(e, rc, "%s: read failed at offset %" PRIu64, path, off);
		if (got != want)
			return pf_fail(e, PF_RUNTIME, "%s: file ends at %" PRIu64 ", expected %" PRIu64,
				       path, off + got, size);
		unsigned char expected = 0;
		int64_t bad = dataset_check(g->key, file, off, g->buf, got, &expected);
		if (bad >= 0)
			return pf_fail(e, PF_RUNTIME,
				       "data set %s: %s: offset %" PRIu64
				       ": expected byte 0x%02x, found 0x%02x",
				       g->d->name, path, off + (uint64_t)bad, expected, g->buf[bad]);
	}
	return 0;
}

static int verify_file(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char path[GEN_PATH];
	struct stat st;
	if (gen_done_path(g, file, path, e) != 0)
		return -1;
	if (path[0] == '\0')
		return pf_fail(e, PF_RUNTIME, "data set %s: file %" PRIu64 " has no name in the "
			       "name list (run 'pfsread generate' to finish it)", g->d->name, file);
	/* O_NONBLOCK: a FIFO in the file's place must not block the open (no effect on a
	 * regular file's reads) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pf_fail_errno(e, errno, "data set %s: %s: cannot open", g->d->name, path);
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = pf_fail_errno(e, errno, "%s: fstat", path);
	else if (dataset_not_regular(st.st_mode) != NULL)
		rc = pf_fail(e, PF_RUNTIME, "data set %s: %s: is %s, not a regular file", g->d->name,
			     path, dataset_not_regular(st.st_mode));
	else if ((uint64_t)st.st_size != dataset_file_size(g->d, file))
		rc = pf_fail(e, PF_RUNTIME, "data set %s: %s: size %lld bytes, expected %" PRIu64,
			     g->d->name, path, (long long)st.st_size, dataset_file_size(g->d, file));
	else if (g->d->layout.kind != CFG_LAYOUT_IN_PLACE) /* a tree's own bytes: not ours */
		rc = verify_content(g, file, fd, path, e);
	close(fd);
	return rc;
}

/* A hashed data set's name list, open for reading its lines. */
static int verify_open_names(struct gen_ctx *g, struct pf_err *e)
{
	char path[GEN_PATH];
	if (g->d->layout.kind != CFG_LAYOUT_HASHED)
		return 0;
	if (dataset_names_path(g->x, g->d, path, sizeof path) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	g->dfd[g->d->layout.digest] = open(path, O_RDONLY | O_CLOEXEC);
	if (g->dfd[g->d->layout.digest] < 0)
		return pf_fail_errno(e, errno, "data set %s: %s: cannot open the name list",
				     g->d->name, path);
	return 0;
}

/* Each rank checks its block of files and stops at its first bad one. */
static int verify_dataset(struct gen_ctx *g, struct pf_err *e)
{
	int rc = verify_open_names(g, e);
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	for (uint64_t i = 0; i < g->count && rc == 0; i++)
		rc = stop_signal() != 0 ? verify_stopped(e) : verify_file(g, g->first + i, e);
	for (int k = 1; k < DIGEST_KINDS; k++)
		if (g->dfd[k] >= 0) {
			close(g->dfd[k]);
			g->dfd[k] = -1;
		}
	if (gen_all_ok(rc, e) != 0)
		return -1;
	if (g->rank == 0 && g->d->layout.kind == CFG_LAYOUT_IN_PLACE)
		printf("verify %s: in place: %" PRIu64 " files, %" PRIu64 " B: every size as listed "
		       "(the content is the tree's own and is not checked)\n", g->d->name,
		       g->d->nfiles, g->d->total_size);
	else if (g->rank == 0)
		printf("verify %s: %" PRIu64 " files, %" PRIu64 " B: all bytes as generated\n",
		       g->d->name, g->d->nfiles, g->d->total_size);
	return 0;
}

int verify_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e), failed = 0;
	for (size_t i = 0; rc == 0 && i < x->ndatasets && stop_signal() == 0; i++) {
		g.d = &x->datasets[i];
		g.key = dataset_key(g.d);
		if (verify_dataset(&g, e) != 0)
			failed = 1; /* go on: the user wants every bad data set named */
	}
	if (rc == 0 && stop_signal() != 0) {
		failed = 1;
		verify_stopped(e); /* a rank that had no message yet gets this one */
	}
	free(g.buf);
	if (rc == 0 && failed && e->status == PF_OK)
		pf_fail(e, PF_RUNTIME, "verify: another rank found a mismatch (see its message)");
	return rc != 0 || failed ? -1 : 0;
}

/* ---- clean ----------------------------------------------------------------------------- */

/* SIGTERM or SIGINT in clean: it stops at the next name, with the manifest still there (it
 * goes last), so that clean run again finishes the job. 0 while no signal came. */
static int clean_stop(struct pf_err *e)
{
	if (stop_signal() == 0)
		return 0;
	return pf_fail(e, stop_status(), "clean: interrupted by signal %d; the manifest is kept: "
		       "run clean again to finish", stop_signal());
}

/* Remove one name inside an already opened directory: unlinkat never follows a symbolic
 * link, so nothing outside the data set can be reached. */
static int clean_unlink(int dirfd, const char *name, int flags, const char *where, struct pf_err *e)
{
	if (unlinkat(dirfd, name, flags) == 0 || errno == ENOENT)
		return 0;
	const char *sep = where != NULL ? "/" : ""; /* where NULL: name is a whole path */
	where = where != NULL ? where : "";
	if (flags == AT_REMOVEDIR && (errno == ENOTEMPTY || errno == EEXIST)) {
		fprintf(stderr, "pfsread: clean: %s%s%s holds files pfsread did not make; kept\n",
			where, sep, name);
		return 0;
	}
	if (flags == AT_REMOVEDIR && errno == ENOTDIR) {
		fprintf(stderr, "pfsread: clean: %s%s%s is not a directory pfsread made; kept\n",
			where, sep, name);
		return 0;
	}
	return pf_fail_errno(e, errno, "clean: cannot remove %s%s%s", where, sep, name);
}

/* The files the manifest m places in directory dir (clean goes by the manifest, not by the
 * config, which may have changed since). */
static int clean_subdir(const struct manifest *m, int dsfd, const char *dsdir, uint64_t dir,
			struct pf_err *e)
{
	char name[64], sub[32];
	snprintf(sub, sizeof sub, "d%06" PRIu64, dir);
	int fd = openat(dsfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		fprintf(stderr, "pfsread: clean: %s/%s is a symbolic link or not a directory; "
			"not followed\n", dsdir, sub);
		return 0;
	}
	if (fd < 0)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "clean: %s/%s", dsdir, sub);
	uint64_t first = dir * m->files_per_dir, last = first + m->files_per_dir;
	if (last > m->nfiles)
		last = m->nfiles;
	int rc = 0;
	for (uint64_t f = first; f < last && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64, f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(fd, name, 0, dsdir, e);
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		if (rc == 0)
			rc = clean_unlink(fd, name, 0, dsdir, e);
	}
	close(fd);
	return rc;
}

/* Flat: this rank's block of the files, and their .part names, straight in the data set's
 * directory. */
static int clean_flat(const struct manifest *m, int dsfd, const char *dsdir, int rank,
		      int nranks, struct pf_err *e)
{
	char name[64];
	uint64_t first, count;
	int rc = 0;
	plan_block(m->nfiles, (uint64_t)nranks, (uint64_t)rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64, f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(dsfd, name, 0, dsdir, e);
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		if (rc == 0)
			rc = clean_unlink(dsfd, name, 0, dsdir, e);
	}
	return rc;
}

/* One level down from fd (closed): part, opened without following a link; a link or a
 * non-directory there is said (not followed). The new descriptor, or -1. */
static int clean_descend(int fd, const char *part, const char *dsdir, const char *shown)
{
	int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0 && (errno == ELOOP || errno == ENOTDIR))
		fprintf(stderr, "pfsread: clean: %s/%s: a level is a symbolic link or not a "
			"directory; not followed\n", dsdir, shown);
	close(fd);
	return next;
}

/* Open the directory of a hashed name level by level from dsfd, never following a link.
 * Returns the directory's descriptor, or -1 (with a note when a level is a link: not
 * followed; or ENOENT: already gone). */
static int clean_open_hashed_dir(const struct manifest *m, int dsfd, const char *dsdir,
				 const char *hex)
{
	int fd = dup(dsfd);
	for (unsigned level = 0; fd >= 0 && level < m->depth; level++) {
		char part[CFG_HASH_WIDTH_MAX + 1];
		snprintf(part, sizeof part, "%.*s", (int)m->width, hex + level * m->width);
		fd = clean_descend(fd, part, dsdir, hex);
	}
	return fd;
}

/* Hashed: this rank's lines of the name list; each listed file unlinked inside its directory
 * (opened without following links), and the .part names in the data set's directory. */
static int clean_hashed_files(const struct manifest *m, int dsfd, const char *dsdir, int rank,
			      int nranks, struct pf_err *e)
{
	char name[64], hex[DIGEST_HEX_MAX], list[64];
	uint64_t first, count;
	int rc = 0;
	snprintf(list, sizeof list, "%s%s", DATASET_DIGESTS,
		 digest_name((enum digest_kind)m->name_digest));
	int lfd = openat(dsfd, list, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0 && errno != ENOENT)
		return pf_fail_errno(e, errno, "clean: %s/%s", dsdir, list);
	plan_block(m->nfiles, (uint64_t)nranks, (uint64_t)rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(dsfd, name, 0, dsdir, e);
		int got = lfd >= 0 ? dataset_read_line(lfd, (enum digest_kind)m->name_digest, f, hex) : 1;
		if (rc != 0 || got != 0) {
			rc = rc != 0 ? rc : got < 0 ? pf_fail_errno(e, got, "clean: %s/%s", dsdir, list) : 0;
			continue;
		}
		int dfd = clean_open_hashed_dir(m, dsfd, dsdir, hex);
		if (dfd < 0)
			continue; /* gone already, or a link: nothing of ours to remove there */
		rc = clean_unlink(dfd, hex, 0, dsdir, e);
		close(dfd);
	}
	if (lfd >= 0)
		close(lfd);
	return rc;
}

/* 1 when name is width lower-case hex digits: a directory a hashed layout makes. */
static int clean_is_level(const char *name, unsigned width)
{
	return strlen(name) == width && strspn(name, "0123456789abcdef") == width;
}

/* The names in the directory open at fd that have the shape of a hashed level (at most 16^4
 * of them, width + 1 bytes each), into *names (malloc'ed; the caller frees it). */
static int clean_level_names(int fd, unsigned width, char **names, size_t *n)
{
	size_t cap = 0;
	*names = NULL;
	*n = 0;
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = rfd >= 0 ? fdopendir(rfd) : NULL;
	if (dir == NULL) {
		int err = errno;
		if (rfd >= 0)
			close(rfd);
		return -err;
	}
	int rc = 0;
	for (struct dirent *de; rc == 0 && (de = readdir(dir)) != NULL;) {
		if (de->d_type != DT_DIR || !clean_is_level(de->d_name, width))
			continue;
		if (*n == cap) {
			char *more = realloc(*names, (cap = cap ? 2 * cap : 64) * (width + 1));
			if (more == NULL) {
				rc = -ENOMEM;
				break;
			}
			*names = more;
		}
		memcpy(*names + (*n)++ * (width + 1), de->d_name, width + 1); /* width <= 4 */
	}
	closedir(dir);
	return rc;
}

/* Rank 0, after every file is gone: the hashed directories bottom-up, from the directory open
 * at fd, levels left of them. Only names of the layout's shape are looked at (read first, then
 * removed: removing while reading a directory is not reliable), never through a link; one that
 * still holds something (a file pfsread did not make) is kept and named. */
static int clean_hashed_dirs(const struct manifest *m, int fd, const char *where,
			     unsigned levels, struct pf_err *e)
{
	char *names = NULL;
	size_t n = 0;
	if (levels == 0)
		return 0;
	int rc = clean_level_names(fd, m->width, &names, &n);
	if (rc != 0) {
		free(names);
		return pf_fail_errno(e, rc, "clean: %s", where);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char sub[GEN_PATH];
		const char *name = names + i * (m->width + 1);
		if (clean_stop(e) != 0) {
			rc = -1;
			break;
		}
		if (snprintf(sub, sizeof sub, "%s/%s", where, name) >= (int)sizeof sub)
			sub[sizeof sub - 1] = '\0'; /* only names it in messages */
		int cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue; /* a link (d_type said dir: raced) or gone */
		rc = clean_hashed_dirs(m, cfd, sub, levels - 1, e);
		close(cfd);
		if (rc != 0 || unlinkat(fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			continue;
		if (errno == ENOTEMPTY || errno == EEXIST)
			fprintf(stderr, "pfsread: clean: %s holds files pfsread did not make; kept\n",
				sub);
		else
			rc = pf_fail_errno(e, errno, "clean: cannot remove %s", sub);
	}
	free(names);
	return rc;
}

/* The directory holding rel (a path below the data set's directory; cut at its last '/'),
 * opened level by level from dsfd without following a link; *leaf gets rel's last name.
 * -1 when a level is gone, or is a link or not a directory (said so: not followed). */
static int clean_open_parent(int dsfd, const char *dsdir, char *rel, const char **leaf)
{
	char *save = NULL, *slash = strrchr(rel, '/');
	int fd = dup(dsfd);
	*leaf = slash != NULL ? slash + 1 : rel;
	if (slash == NULL)
		return fd;
	*slash = '\0';
	for (char *part = strtok_r(rel, "/", &save); fd >= 0 && part != NULL;
	     part = strtok_r(NULL, "/", &save))
		fd = clean_descend(fd, part, dsdir, part);
	return fd;
}

/* A twin: this rank's block of the files its description lists (and their .part names),
 * each unlinked inside its directory. The description must be the one the manifest names. */
static int clean_tree_files(struct gen_ctx *g, const struct manifest *have, int dsfd,
			    const char *dsdir, struct pf_err *e)
{
	char want[MANIFEST_SIZES_MAX], rel[GEN_PATH], part[GEN_PATH + 8];
	const struct tree_desc *t = g->d->tree;
	uint64_t first, count;
	int rc = 0;
	if (t == NULL)
		return pf_fail(e, PF_RUNTIME, "clean: %s: %s is missing, so the twin's files are "
			       "unknown; nothing removed", dsdir, TREE_FILE);
	if (sizes_describe(g->d, want, sizeof want) != 0 || strcmp(want, have->sizes) != 0)
		return pf_fail(e, PF_RUNTIME, "clean: %s: %s does not match the manifest; refusing "
			       "to remove anything", dsdir, TREE_FILE);
	plan_block(t->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		const char *leaf;
		if (clean_stop(e) != 0)
			return -1;
		snprintf(rel, sizeof rel, "%s", tree_file_path(t, f, 0));
		int fd = clean_open_parent(dsfd, dsdir, rel, &leaf);
		if (fd < 0)
			continue; /* gone already, or a link: nothing of ours there */
		snprintf(part, sizeof part, "%s.part", leaf);
		rc = clean_unlink(fd, leaf, 0, dsdir, e);
		if (rc == 0)
			rc = clean_unlink(fd, part, 0, dsdir, e);
		close(fd);
	}
	return rc;
}

/* Rank 0, after every file is gone: the twin's directories, deepest first (a child sorts
 * after its parent); one that still holds something pfsread did not make is kept and named. */
static int clean_tree_dirs(const struct tree_desc *t, int dsfd, const char *dsdir,
			   struct pf_err *e)
{
	char rel[GEN_PATH];
	int rc = 0;
	for (uint64_t k = t->ndirs; k > 0 && rc == 0; k--) {
		const char *leaf;
		if (clean_stop(e) != 0)
			return -1;
		snprintf(rel, sizeof rel, "%s", tree_dir_path(t, k - 1, 1));
		int fd = clean_open_parent(dsfd, dsdir, rel, &leaf);
		if (fd < 0)
			continue;
		rc = clean_unlink(fd, leaf, AT_REMOVEDIR, dsdir, e);
		close(fd);
	}
	return rc;
}

/* The files of the manifest's layout, this rank's share. */
static int clean_files(struct gen_ctx *g, const struct manifest *have, int dsfd,
		       const char *dsdir, struct pf_err *e)
{
	int rc = 0;
	uint64_t first, count;
	if (have->layout == CFG_LAYOUT_IN_PLACE)
		return 0; /* the tree is not ours: only the description and the manifest go */
	if (have->layout == CFG_LAYOUT_TREE)
		return clean_tree_files(g, have, dsfd, dsdir, e);
	if (have->layout == CFG_LAYOUT_FLAT)
		return clean_flat(have, dsfd, dsdir, g->rank, g->nranks, e);
	if (have->layout == CFG_LAYOUT_HASHED)
		return clean_hashed_files(have, dsfd, dsdir, g->rank, g->nranks, e);
	plan_block((have->nfiles + have->files_per_dir - 1) / have->files_per_dir,
		   (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t i = first; i < first + count && rc == 0; i++) {
		char sub[32];
		snprintf(sub, sizeof sub, "d%06" PRIu64, i);
		rc = clean_stop(e) != 0 ? -1 : clean_subdir(have, dsfd, dsdir, i, e);
		if (rc == 0)
			rc = clean_unlink(dsfd, sub, AT_REMOVEDIR, dsdir, e);
	}
	return rc;
}

/* What a data set's directory holds, counted without following a link: files with the
 * names pfsread's layouts give (fNNNNNNNNNN, their .part, and hashed names of 16 or 40 hex
 * digits) and everything else but pfsread's own top-level files (manifest, description,
 * lists). Rank 0 reads the directories (no stat where readdir gives the type): 800 reads
 * of a directory for 800,000 files, beside their 800,000 unlinks. Counted before and after clean removes what the manifest lists: what went is the
 * difference, and files with pfsread's names that stay mean the manifest does not list them
 * (it was changed), so it must stay too. */
struct clean_survey {
	uint64_t ours, parts, foreign;
};

#define CLEAN_SURVEY_DEPTH (TREE_DEPTH_MAX + 1)

static int clean_ours_name(const char *n, int *part)
{
	size_t len = strlen(n), hex = strspn(n, "0123456789abcdef");
	*part = 0;
	if ((len == 16 || len == 40) && hex == len)
		return 1;
	if (n[0] != 'f' || strspn(n + 1, "0123456789") != 10)
		return 0;
	*part = strcmp(n + 11, ".part") == 0;
	return n[11] == '\0' || *part;
}

/* Counts what lies below the directory open at fd (closed here), depth levels down at most
 * (deeper is foreign: no layout goes there). top: fd is the data set's own directory. */
static void clean_survey_dir(int fd, int top, unsigned depth, struct clean_survey *s)
{
	DIR *dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return;
	}
	/* a signal ends the survey: its caller stops too, before it decides anything from it */
	for (struct dirent *de; stop_signal() == 0 && (de = readdir(dir)) != NULL;) {
		const char *n = de->d_name;
		unsigned char type = de->d_type;
		struct stat st;
		int part;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    (top && (strcmp(n, DATASET_MANIFEST) == 0 || strcmp(n, TREE_FILE) == 0 ||
			     strncmp(n, DATASET_DIGESTS, strlen(DATASET_DIGESTS)) == 0)))
			continue;
		/* the entry's type from readdir: a stat only where the file system does not say */
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue; /* gone meanwhile */
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type == DT_DIR && depth > 0) {
			int sub = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				clean_survey_dir(sub, 0, depth - 1, s);
		} else if (type == DT_REG && clean_ours_name(n, &part)) {
			s->ours += !part;
			s->parts += (uint64_t)part;
		} else if (type != DT_DIR) {
			s->foreign++;
		}
	}
	closedir(dir);
}

static void clean_survey(int dsfd, struct clean_survey *s)
{
	memset(s, 0, sizeof *s);
	int fd = openat(dsfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		clean_survey_dir(fd, 1, CLEAN_SURVEY_DEPTH, s);
}

/* Rank 0, after the files the manifest lists are gone: what was removed and what stays,
 * counted. 0 when nothing with pfsread's names stays (the manifest may go); else -1: the
 * manifest is kept, since without it those files could not be cleaned any more. */
static int clean_account(const struct gen_ctx *g, const struct manifest *have, int dsfd,
			 const char *dsdir, const struct clean_survey *before, struct pf_err *e)
{
	struct clean_survey after;
	clean_survey(dsfd, &after);
	if (clean_stop(e) != 0)
		return -1; /* a survey cut short proves nothing: the manifest stays */
	uint64_t removed = before->ours > after.ours ? before->ours - after.ours : 0;
	uint64_t parts = before->parts > after.parts ? before->parts - after.parts : 0;
	if (have->layout == CFG_LAYOUT_IN_PLACE && after.ours == 0 && after.parts == 0)
		return 0;
	printf("clean %s: removed %" PRIu64 " files (the manifest lists %" PRIu64 ")", g->d->name,
	       removed, have->nfiles);
	if (parts > 0)
		printf(" and %" PRIu64 " partial files", parts);
	if (after.foreign > 0)
		printf("; kept %" PRIu64 " files pfsread did not make", after.foreign);
	printf("\n");
	if (after.ours == 0 && after.parts == 0)
		return 0;
	return pf_fail(e, PF_RUNTIME, "clean: %s still holds %" PRIu64 " files with the names "
		       "pfsread gives that its manifest does not list (was the manifest changed?); "
		       "the manifest is kept: remove them by hand, or put the manifest back as "
		       "generate wrote it and clean again", dsdir, after.ours + after.parts);
}

static int clean_dataset(struct gen_ctx *g, struct pf_err *e)
{
	struct clean_survey before = {0, 0, 0};
	char dsdir[GEN_PATH];
	struct manifest have;
	int rc = 0, verdict = GEN_MAKE;
	memset(&have, 0, sizeof have);
	if (dataset_dir(g->x, g->d, dsdir, sizeof dsdir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	if (g->rank == 0) {
		int found = manifest_read(dsdir, &have, e);
		struct stat st;
		if (found == 1 && lstat(dsdir, &st) != 0)
			verdict = GEN_SKIP; /* nothing there */
		else if (found == 1)
			rc = pf_fail(e, PF_USAGE,
				     "clean: %s holds no pfsread manifest; refusing to remove anything",
				     dsdir);
		else if (found == 0 && (strcmp(have.name, g->d->name) != 0 ||
					(have.layout == CFG_LAYOUT_INDEXED && have.files_per_dir == 0)))
			rc = pf_fail(e, PF_USAGE,
				     "clean: %s: the manifest names data set '%s', not '%s'; refusing to "
				     "clean", dsdir, have.name, g->d->name);
		else if (found < 0)
			rc = -1;
		int sfd = rc == 0 && verdict == GEN_MAKE
				  ? open(dsdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sfd >= 0) { /* before any rank removes anything: the verdict below waits */
			clean_survey(sfd, &before);
			close(sfd);
		}
	}
	if (gen_share_verdict(rc, &verdict, e) != 0 ||
	    MPI_Bcast(&have, sizeof have, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return -1;
	if (verdict == GEN_SKIP) {
		if (g->rank == 0)
			printf("clean %s: %s does not exist, nothing to remove\n", g->d->name, dsdir);
		return 0;
	}
	int dsfd = open(dsdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dsfd < 0)
		rc = pf_fail_errno(e, errno, "clean: %s", dsdir);
	if (rc == 0)
		rc = clean_files(g, &have, dsfd, dsdir, e);
	if (gen_all_ok(rc, e) != 0) {
		if (dsfd >= 0)
			close(dsfd);
		return -1;
	}
	if (g->rank == 0 && have.layout == CFG_LAYOUT_HASHED)
		rc = clean_hashed_dirs(&have, dsfd, dsdir, have.depth, e);
	if (g->rank == 0 && rc == 0)
		rc = clean_stop(e); /* the manifest and lists stay for the next clean */
	if (g->rank == 0 && have.layout == CFG_LAYOUT_TREE)
		rc = clean_tree_dirs(g->d->tree, dsfd, dsdir, e);
	if (g->rank == 0 && rc == 0)
		rc = clean_account(g, &have, dsfd, dsdir, &before, e);
	if (g->rank == 0 && rc == 0 &&
	    (have.layout == CFG_LAYOUT_TREE || have.layout == CFG_LAYOUT_IN_PLACE))
		rc = clean_unlink(dsfd, TREE_FILE, 0, dsdir, e);
	for (int k = 1; g->rank == 0 && rc == 0 && k < DIGEST_KINDS; k++) {
		char list[64];
		snprintf(list, sizeof list, "%s%s", DATASET_DIGESTS, digest_name((enum digest_kind)k));
		if (have.digests & (1u << k))
			rc = clean_unlink(dsfd, list, 0, dsdir, e);
	}
	if (g->rank == 0 && rc == 0) {
		rc = clean_unlink(dsfd, DATASET_MANIFEST, 0, dsdir, e);
		if (rc == 0)
			rc = clean_unlink(AT_FDCWD, dsdir, AT_REMOVEDIR, NULL, e);
		if (rc == 0 && have.layout == CFG_LAYOUT_IN_PLACE)
			printf("clean %s: in place: removed pfsread's description and manifest in %s; "
			       "the tree itself is untouched\n", g->d->name, dsdir);
	}
	close(dsfd);
	return gen_share_verdict(rc, &verdict, e);
}

/* A root that is a system directory, a home directory or a mount point itself is refused:
 * a typo there must not put anything of value one manifest away from deletion. */
static int clean_check_root(const struct experiment *x, struct pf_err *e)
{
	char real[PATH_MAX], parent[PATH_MAX + 4];
	static const char *const refused[] = {"/", "/home", "/root", "/tmp", "/var", "/usr",
					      "/etc", "/mnt", "/scratch", "/lustre"};
	struct stat st, up;
	const char *home = getenv("HOME");
	if (realpath(x->root, real) == NULL)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "clean: %s", x->root);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (strcmp(real, refused[i]) == 0)
			return pf_fail(e, PF_USAGE, "clean: refusing root %s: a system directory", real);
	if (home != NULL && *home != '\0') {
		char rhome[PATH_MAX];
		if (realpath(home, rhome) != NULL && strcmp(rhome, real) == 0)
			return pf_fail(e, PF_USAGE, "clean: refusing root %s: your home directory", real);
	}
	snprintf(parent, sizeof parent, "%s/..", real);
	if (stat(real, &st) != 0 || stat(parent, &up) != 0)
		return pf_fail_errno(e, errno, "clean: %s", real);
	if (st.st_dev != up.st_dev)
		return pf_fail(e, PF_USAGE,
			       "clean: refusing root %s: it is a mount point; give a directory inside it",
			       real);
	return 0;
}

int clean_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e);
	if (rc == 0 && g.rank == 0)
		rc = clean_check_root(x, e);
	int verdict = 0;
	rc = gen_share_verdict(rc, &verdict, e);
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		rc = clean_stop(e) != 0 ? -1 : clean_dataset(&g, e);
	}
	free(g.buf);
	return rc;
}
