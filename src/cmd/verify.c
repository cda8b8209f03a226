/* verify: check every file of the data sets against the content pattern (or, for a tree read
 * in place, its size as described), in parallel: each rank its block of each data set. */
#include "cmd/generate.h"
#include "cmd/datasets.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/backends/posix.h"
#include "run/plan.h"
#include "util/stop.h"

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
		int64_t bad = dataset_check(&g->content, file, off, g->buf, got, &expected);
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
	char label[CFG_NAME_MAX + 16];
	uint64_t bytes = 0;
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	snprintf(label, sizeof label, "verify %s", g->d->name);
	progress_begin(&g->progress, label, g->d->total_size, g->d->nfiles);
	for (uint64_t i = 0; i < g->count && rc == 0; i++) {
		rc = stop_signal() != 0 ? verify_stopped(e) : verify_file(g, g->first + i, e);
		bytes += dataset_file_size(g->d, g->first + i);
		progress_tick(&g->progress, bytes, i + 1);
	}
	if (progress_end(&g->progress) != 0 && rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "verify: the progress sums failed (MPI)");
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

int verify_all(const struct experiment *x, double progress_s, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e), failed = 0;
	g.progress.comm = MPI_COMM_NULL;
	if (rc == 0 && progress_init(&g.progress, progress_s) != 0)
		rc = pf_fail(e, PF_RUNTIME, "verify: cannot set up the progress lines");
	for (size_t i = 0; rc == 0 && i < x->ndatasets && stop_signal() == 0; i++) {
		g.d = &x->datasets[i];
		dataset_content_init(&g.content, g.d);
		if (verify_dataset(&g, e) != 0)
			failed = 1; /* go on: the user wants every bad data set named */
	}
	if (rc == 0 && stop_signal() != 0) {
		failed = 1;
		verify_stopped(e); /* a rank that had no message yet gets this one */
	}
	progress_free(&g.progress);
	free(g.buf);
	if (rc == 0 && failed && e->status == PF_OK)
		pf_fail(e, PF_RUNTIME, "verify: another rank found a mismatch (see its message)");
	return rc != 0 || failed ? -1 : 0;
}
