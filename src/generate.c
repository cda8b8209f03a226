/* generate: make, verify and clean data sets, in parallel. Files are block-decomposed over all
 * ranks; each is written under a .part name and renamed when whole, so an interrupted run
 * resumes by keeping whole files and redoing the rest. The manifest says "complete" only after
 * every rank has finished. */
#include "pfsread/generate.h"

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

#include "pfsread/backend_posix.h"
#include "pfsread/dataset.h"
#include "pfsread/digest.h"
#include "pfsread/plan.h"
#include "pfsread/stop.h"
#include "pfsread/units.h"

#define GEN_BLOCK (4u << 20) /* write and verify in 4 MiB blocks */
#define GEN_PATH (CFG_PATH_MAX + 64)

enum gen_verdict { GEN_SKIP, GEN_MAKE };

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
	/* process.digest: each file's digest goes to its line of the digest list */
	struct digest dg;    /* kind DIGEST_NONE: no list */
	int dfd;             /* the list, open on every rank while its files are made; -1 */
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

static int gen_mkdir(const char *path, struct pf_err *e)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return pf_fail_errno(e, errno, "%s: cannot create directory", path);
	return 0;
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

/* Rank 0: check that the directory is ours (or new), make it and mark the manifest incomplete
 * unless it already records this very data set as complete. */
static int gen_decide(const struct gen_ctx *g, struct pf_err *e)
{
	char dir[GEN_PATH];
	struct manifest want, have;
	manifest_from_config(g->x, g->d, &want);
	if (dataset_dir(g->x, g->d, dir, sizeof dir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int rc = dataset_mkdirs(dir);
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: cannot create directory", dir);
	int found = manifest_read(dir, &have, e);
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
	} else if (!manifest_same_files(&want, &have)) {
		return pf_fail(e, PF_USAGE,
			       "%s: holds data set '%s' made with other parameters "
			       "(%" PRIu64 " files of %" PRIu64 " B, %" PRIu64 " per directory); "
			       "run 'pfsread clean' first",
			       dir, have.name, have.nfiles, have.file_size, have.files_per_dir);
	} else if (have.complete) {
		return 0; /* files are still checked one by one: one may have gone since */
	} else {
		want.digests = have.digests; /* lists of the same files stay valid */
	}
	return manifest_write(dir, &want, e);
}

/* The subdirectories are made once, block-decomposed over the ranks, before any file. */
static int gen_make_subdirs(const struct gen_ctx *g, struct pf_err *e)
{
	char path[GEN_PATH];
	uint64_t first, count;
	plan_block(dataset_ndirs(g->x, g->d), (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t i = first; i < first + count; i++) {
		if (dataset_subdir_path(g->x, g->d, i, path, sizeof path) != 0)
			return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		if (gen_mkdir(path, e) != 0)
			return -1;
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

/* Write one file's bytes into tmp, with large writes, digesting them on the way when there is
 * a digest list (fd -1: only digest, for a file kept whole: its content is the content
 * function's, so it need not be read back). Returns 0 or -errno. */
static int gen_write_file(struct gen_ctx *g, uint64_t file, const char *tmp)
{
	int fd = tmp != NULL ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (tmp != NULL && fd < 0)
		return -errno;
	int rc = g->dg.kind != DIGEST_NONE ? digest_init(&g->dg) : 0;
	uint64_t size = dataset_file_size(g->d, file);
	for (uint64_t off = 0; off < size && rc == 0; off += GEN_BLOCK) {
		size_t len = size - off < GEN_BLOCK ? (size_t)(size - off) : GEN_BLOCK;
		dataset_fill(g->key, file, off, g->buf, len);
		digest_update(&g->dg, g->buf, len);
		rc = stop_now() ? -EINTR : fd >= 0 ? gen_write_all(fd, g->buf, len, off) : 0;
	}
	if (fd < 0)
		return rc;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* The file's line of the digest list, at file x (hex length + 1): no rank waits for another. */
static int gen_write_digest(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char hex[DIGEST_HEX_MAX], line[DIGEST_HEX_MAX + 1];
	size_t width = digest_hex_len(g->dg.kind) + 1;
	if (g->dg.kind == DIGEST_NONE)
		return 0;
	if (digest_final_hex(&g->dg, hex) != 0)
		return pf_fail(e, PF_RUNTIME, "generate %s: %s digest of file %" PRIu64 " failed",
			       g->d->name, digest_name(g->dg.kind), file);
	snprintf(line, sizeof line, "%s\n", hex);
	int rc = gen_write_all(g->dfd, (const unsigned char *)line, width, file * width);
	if (rc != 0)
		return pf_fail_errno(e, rc, "generate %s: cannot write the %s digest list",
				     g->d->name, digest_name(g->dg.kind));
	return 0;
}

/* A file already at its final name with the right size is whole: renames happen last. A kept
 * file's digest is computed from the content function (generate made those bytes). */
static int gen_make_file(struct gen_ctx *g, uint64_t file, struct pf_err *e)
{
	char path[GEN_PATH], tmp[GEN_PATH + 8];
	struct stat st;
	if (dataset_file_path(g->x, g->d, file, path, sizeof path) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size == dataset_file_size(g->d, file)) {
		if (g->dg.kind == DIGEST_NONE)
			return 0;
		int krc = gen_write_file(g, file, NULL);
		if (krc != 0)
			return pf_fail_errno(e, krc, "%s: cannot digest", path);
		return gen_write_digest(g, file, e);
	}
	g->made_files++;
	snprintf(tmp, sizeof tmp, "%s.part", path);
	int rc = gen_write_file(g, file, tmp);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp); /* never leave a partial file behind */
		if (rc == -EINTR && stop_signal() != 0)
			return pf_fail(e, 128 + stop_signal(), "generate: interrupted by signal %d; "
				       "run generate again to finish", stop_signal());
		return pf_fail_errno(e, rc, "%s: cannot write", path);
	}
	return gen_write_digest(g, file, e);
}

/* Rank 0 extrapolates from its own share: shares differ by at most one file. */
static void gen_progress(struct gen_ctx *g, int last)
{
	double now = gen_now();
	if (g->rank != 0 || (!last && now - g->t_last < 2.0))
		return;
	g->t_last = now;
	double frac = g->count ? (double)g->done_files / (double)g->count : 1.0;
	double elapsed = now - g->t_start;
	double bytes = frac * (double)g->d->total_size;
	char done[32], total[32], rate[32], left[32];
	units_format_size((uint64_t)bytes, done, sizeof done);
	units_format_size(g->d->total_size, total, sizeof total);
	units_format_rate(elapsed > 0 ? bytes / elapsed : 0, rate, sizeof rate);
	units_format_duration(frac > 0 ? elapsed * (1 - frac) / frac : 0, left, sizeof left);
	printf("generate %s: %s of %s (%.0f%%, ~%" PRIu64 " of %" PRIu64 " files), %s, %s left\n",
	       g->d->name, done, total, frac * 100, (uint64_t)(frac * (double)g->d->nfiles),
	       g->d->nfiles, rate, left);
	fflush(stdout);
}

static int gen_make_share(struct gen_ctx *g, struct pf_err *e)
{
	g->t_start = g->t_last = gen_now();
	for (uint64_t i = 0; i < g->count; i++) {
		if (gen_make_file(g, g->first + i, e) != 0)
			return -1;
		g->done_files++;
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
	uint64_t made = 0;
	if (MPI_Reduce(&g->made_files, &made, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Reduce failed");
	if (g->rank == 0) {
		printf("generate %s: %" PRIu64 " files made, %" PRIu64 " kept (whole already)\n",
		       g->d->name, made, g->d->nfiles - made);
		struct manifest have;
		manifest_from_config(g->x, g->d, &m);
		m.complete = 1;
		rc = dataset_dir(g->x, g->d, dir, sizeof dir) == 0 ? 0 : -1;
		if (rc == 0 && manifest_read(dir, &have, e) == 0) /* keep the lists made before */
			m.digests = have.digests;
		if (g->dg.kind != DIGEST_NONE)
			m.digests |= 1u << g->dg.kind;
		if (rc == 0)
			rc = manifest_write(dir, &m, e);
	}
	return gen_share_verdict(rc, &verdict, e);
}

/* Every rank opens the list (created by whichever comes first) to write its own lines. */
static int gen_open_digests(struct gen_ctx *g, struct pf_err *e)
{
	char path[GEN_PATH];
	g->dfd = -1;
	if (g->dg.kind == DIGEST_NONE)
		return 0;
	if (dataset_digest_path(g->x, g->d, g->dg.kind, path, sizeof path) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	g->dfd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (g->dfd < 0)
		return pf_fail_errno(e, errno, "%s: cannot create", path);
	return 0;
}

/* Flush and close this rank's handle of the list; rc is what happened before (kept). */
static int gen_close_digests(struct gen_ctx *g, int rc, struct pf_err *e)
{
	if (g->dfd < 0)
		return rc;
	if ((fsync(g->dfd) != 0 || close(g->dfd) != 0) && rc == 0)
		rc = pf_fail_errno(e, errno, "generate %s: cannot write the %s digest list",
				   g->d->name, digest_name(g->dg.kind));
	g->dfd = -1;
	return rc;
}

static int gen_dataset(struct gen_ctx *g, struct pf_err *e)
{
	int verdict = GEN_MAKE, rc = g->rank == 0 ? gen_decide(g, e) : 0;
	if (gen_share_verdict(rc, &verdict, e) != 0)
		return -1;
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	if (gen_all_ok(gen_make_subdirs(g, e), e) != 0)
		return -1;
	if (gen_all_ok(gen_open_digests(g, e), e) != 0)
		return gen_close_digests(g, 0, e), -1;
	int made = gen_make_share(g, e);
	made = gen_close_digests(g, made, e);
	if (gen_all_ok(made, e) != 0)
		return -1;
	return gen_finish(g, e);
}

static int gen_begin(struct gen_ctx *g, const struct experiment *x, struct pf_err *e)
{
	memset(g, 0, sizeof *g);
	g->x = x;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &g->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &g->nranks) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Comm_rank/size failed");
	g->dfd = -1;
	if (posix_memalign((void **)&g->buf, 4096, GEN_BLOCK) != 0)
		return pf_fail(e, PF_RUNTIME, "generate: out of memory");
	return 0;
}

int generate_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e);
	if (rc == 0 && digest_open(&g.dg, x->process_digest) != 0)
		rc = pf_fail(e, PF_RUNTIME, "generate: out of memory");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		g.key = dataset_key(g.d);
		g.done_files = g.made_files = 0;
		rc = gen_dataset(&g, e);
	}
	digest_close(&g.dg);
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

static int verify_content(struct gen_ctx *g, uint64_t file, int fd, const char *path,
			  struct pf_err *e)
{
	uint64_t size = dataset_file_size(g->d, file);
	for (uint64_t off = 0; off < size; off += GEN_BLOCK) {
		size_t want = size - off < GEN_BLOCK ? (size_t)(size - off) : GEN_BLOCK, got = 0;
		int rc = verify_read_block(fd, g->buf, want, off, &got);
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
	if (dataset_file_path(g->x, g->d, file, path, sizeof path) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pf_fail_errno(e, errno, "data set %s: %s: cannot open", g->d->name, path);
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = pf_fail_errno(e, errno, "%s: fstat", path);
	else if ((uint64_t)st.st_size != dataset_file_size(g->d, file))
		rc = pf_fail(e, PF_RUNTIME, "data set %s: %s: size %lld bytes, expected %" PRIu64,
			     g->d->name, path, (long long)st.st_size, dataset_file_size(g->d, file));
	else
		rc = verify_content(g, file, fd, path, e);
	close(fd);
	return rc;
}

/* Each rank checks its block of files and stops at its first bad one. */
static int verify_dataset(struct gen_ctx *g, struct pf_err *e)
{
	int rc = 0;
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	for (uint64_t i = 0; i < g->count && rc == 0; i++)
		rc = verify_file(g, g->first + i, e);
	if (gen_all_ok(rc, e) != 0)
		return -1;
	if (g->rank == 0)
		printf("verify %s: %" PRIu64 " files, %" PRIu64 " B: all bytes as generated\n",
		       g->d->name, g->d->nfiles, g->d->total_size);
	return 0;
}

int verify_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e), failed = 0;
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		g.key = dataset_key(g.d);
		if (verify_dataset(&g, e) != 0)
			failed = 1; /* go on: the user wants every bad data set named */
	}
	free(g.buf);
	if (rc == 0 && failed && e->status == PF_OK)
		pf_fail(e, PF_RUNTIME, "verify: another rank found a mismatch (see its message)");
	return rc != 0 || failed ? -1 : 0;
}

/* ---- clean ----------------------------------------------------------------------------- */

/* Remove one name inside an already opened directory: unlinkat never follows a symbolic
 * link, so nothing outside the data set can be reached. */
static int clean_unlink(int dirfd, const char *name, int flags, const char *where, struct pf_err *e)
{
	if (unlinkat(dirfd, name, flags) == 0 || errno == ENOENT)
		return 0;
	if (flags == AT_REMOVEDIR && (errno == ENOTEMPTY || errno == EEXIST)) {
		fprintf(stderr, "pfsread: clean: %s/%s holds files pfsread did not make; kept\n",
			where, name);
		return 0;
	}
	if (flags == AT_REMOVEDIR && errno == ENOTDIR) {
		fprintf(stderr, "pfsread: clean: %s/%s is not a directory pfsread made; kept\n",
			where, name);
		return 0;
	}
	return pf_fail_errno(e, errno, "clean: cannot remove %s/%s", where, name);
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
		rc = clean_unlink(fd, name, 0, dsdir, e);
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		if (rc == 0)
			rc = clean_unlink(fd, name, 0, dsdir, e);
	}
	close(fd);
	return rc;
}

static int clean_dataset(struct gen_ctx *g, struct pf_err *e)
{
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
		else if (found == 0 && (strcmp(have.name, g->d->name) != 0 || have.files_per_dir == 0))
			rc = pf_fail(e, PF_USAGE,
				     "clean: %s: the manifest names data set '%s', not '%s'; refusing to "
				     "clean", dsdir, have.name, g->d->name);
		else if (found < 0)
			rc = -1;
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
	uint64_t first, count;
	plan_block((have.nfiles + have.files_per_dir - 1) / have.files_per_dir, (uint64_t)g->nranks,
		   (uint64_t)g->rank, &first, &count);
	for (uint64_t i = first; i < first + count && rc == 0; i++) {
		char sub[32];
		snprintf(sub, sizeof sub, "d%06" PRIu64, i);
		rc = clean_subdir(&have, dsfd, dsdir, i, e);
		if (rc == 0)
			rc = clean_unlink(dsfd, sub, AT_REMOVEDIR, dsdir, e);
	}
	if (gen_all_ok(rc, e) != 0) {
		if (dsfd >= 0)
			close(dsfd);
		return -1;
	}
	for (int k = 1; g->rank == 0 && rc == 0 && k < DIGEST_KINDS; k++) {
		char list[64];
		snprintf(list, sizeof list, "%s%s", DATASET_DIGESTS, digest_name((enum digest_kind)k));
		if (have.digests & (1u << k))
			rc = clean_unlink(dsfd, list, 0, dsdir, e);
	}
	if (g->rank == 0 && rc == 0) {
		rc = clean_unlink(dsfd, DATASET_MANIFEST, 0, dsdir, e);
		if (rc == 0)
			rc = clean_unlink(AT_FDCWD, dsdir, AT_REMOVEDIR, ".", e);
		if (rc == 0)
			printf("clean %s: removed the %" PRIu64 " files its manifest lists\n", g->d->name,
			       have.nfiles);
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
		rc = clean_dataset(&g, e);
	}
	free(g.buf);
	return rc;
}
