/* phase: one timed phase. Everything that is not the measured reads (planning, allocation,
 * cache preparation, residency, backend setup, agreeing on the outcome) happens outside the
 * two barriers. */
#include "run/phase.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "run/cache.h"
#include "dataset/dataset.h"
#include "run/plan.h"
#include "util/stop.h"

#define PHASE_PATH (CFG_PATH_MAX + 64)
#define PHASE_RESIDENCY_SAMPLES 64 /* files probed with mincore when a share has more */
#define PHASE_SKEW_FLOOR_S 0.1     /* see phase_clock_bound */
#define PHASE_TAG_ARRIVED 17       /* see phase_close_barrier */

#define PHASE_MPI(call)                                                                 \
	do {                                                                            \
		int phase_rc_ = (call);                                                 \
		if (phase_rc_ != MPI_SUCCESS) {                                         \
			rc = pf_fail(e, PF_RUNTIME, "phase %u: %s failed (MPI error %d)", \
				     s->index, #call, phase_rc_);                       \
			goto out;                                                       \
		}                                                                       \
	} while (0)

/* How a phase ended, worst last: the phase's status is the worst of its ranks'. */
enum phase_status { PHASE_COMPLETE, PHASE_FAILED, PHASE_TIMEOUT, PHASE_INTERRUPTED };

static const char *const phase_status_names[] = {"complete", "failed", "timeout", "interrupted"};

/* This rank's share (plan.h) and what the phase keeps beside it. */
struct phase_work {
	struct plan_share sh;
	int64_t reader;           /* -1 when this rank waits */
	uint64_t readers;
	MPI_Comm comm;            /* the readers, for collective backends with pattern shared */
	int collective;
	void *backend_state;
	/* a hashed data set: item i's name (its line of the name list), read before the opening
	 * barrier, so paths are one snprintf each; nm.names NULL otherwise */
	struct plan_names nm;
	int32_t *prep_error;      /* NULL, or [n]: errno of a file's cache preparation (fadvise) */
};

static enum cfg_cache phase_cache_action(const struct phase_spec *s, const struct topology *t);

static void phase_fill_info(const struct phase_spec *s, const struct topology *t,
			    struct phase_info *p)
{
	const struct experiment *x = s->x;
	memset(p, 0, sizeof *p);
	p->index = s->index;
	snprintf(p->dataset, sizeof p->dataset, "%s", s->ds->name);
	p->file_size = s->ds->file_size;
	p->nfiles = s->ds->nfiles;
	p->readers_per_node = s->readers_per_node;
	p->active_readers = (int32_t)plan_reader_count(&t->map, s->readers_per_node);
	snprintf(p->backend, sizeof p->backend, "%s", s->be->name);
	p->transfer_size = s->transfer_size;
	snprintf(p->order, sizeof p->order, "%s", cfg_order_name(s->order));
	snprintf(p->cache, sizeof p->cache, "%s", cfg_cache_name(x->cache));
	if (x->cache == CFG_CACHE_SHIFT && phase_cache_action(s, t) != CFG_CACHE_SHIFT &&
	    phase_cache_action(s, t) != CFG_CACHE_NONE)
		snprintf(p->cache_evict, sizeof p->cache_evict, "%s",
			 cfg_cache_name(phase_cache_action(s, t)));
	snprintf(p->pattern, sizeof p->pattern, "%s", cfg_pattern_name(s->pattern));
	snprintf(p->decomposition, sizeof p->decomposition, "%s", cfg_decomp_name(s->decomp));
	snprintf(p->atime_mode, sizeof p->atime_mode, "%s", s->atime_mode ? s->atime_mode : "");
	cfg_process_describe(x, p->process, sizeof p->process);
	p->repetition = s->repetition;
	p->seed = x->seed;
	p->queue_depth = s->be->read_share != NULL && s->pattern == CFG_PATTERN_PER_READER
				 ? x->uring_queue_depth : 1;
	for (size_t i = 0, used = 0; i < x->nhints; i++)
		used += (size_t)snprintf(p->mpiio_hints + used, sizeof p->mpiio_hints - used, "%s%s=%s",
					 i ? "," : "", x->mpiio_hints[i].key, x->mpiio_hints[i].value);
}

static void phase_free_work(struct phase_work *w)
{
	free(w->prep_error);
	free(w->nm.names);
	plan_share_free(&w->sh);
	if (w->comm != MPI_COMM_NULL)
		MPI_Comm_free(&w->comm);
}

/* A hashed data set: each item's line of the name list, one pread each, by this rank alone
 * (no list passes through rank 0). */
static int phase_load_names(const struct phase_spec *s, struct phase_work *w, struct pf_err *e)
{
	char path[PHASE_PATH];
	enum digest_kind kind = s->ds->layout.digest;
	if (s->ds->layout.kind != CFG_LAYOUT_HASHED || w->sh.n == 0)
		return 0;
	w->nm.len = digest_hex_len(kind) + 1;
	if ((w->nm.names = malloc(w->sh.n * w->nm.len)) == NULL)
		return pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	if (dataset_names_path(s->x, s->ds, path, sizeof path) != 0)
		return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	if (fd < 0)
		return pf_fail_errno(e, errno, "%s: cannot open the name list", path);
	for (uint64_t i = 0; i < w->sh.n && rc == 0; i++) {
		int got = dataset_read_line(fd, kind, w->sh.file[i], w->nm.names + i * w->nm.len);
		if (got < 0)
			rc = pf_fail_errno(e, got, "%s: cannot read", path);
		else if (got > 0)
			rc = pf_fail(e, PF_RUNTIME, "%s: no name for file %llu (run 'pfsread generate' "
				     "again)", path, (unsigned long long)w->sh.file[i]);
	}
	close(fd);
	return rc;
}

/* Collective: the share of this rank, and the readers' communicator where a collective
 * backend reads shared files. */
static int phase_plan(const struct phase_spec *s, const struct topology *t, struct phase_work *w,
		      struct pf_err *e)
{
	int rc = 0;
	memset(w, 0, sizeof *w);
	w->comm = MPI_COMM_NULL;
	w->reader = plan_reader_index(&t->map, t->rank, s->readers_per_node);
	w->readers = plan_reader_count(&t->map, s->readers_per_node);
	w->collective = s->pattern == CFG_PATTERN_SHARED && (s->be->flags & BACKEND_COLLECTIVE) &&
			s->x->mpiio_collective;
	if (w->collective)
		PHASE_MPI(MPI_Comm_split(MPI_COMM_WORLD, w->reader >= 0 ? 0 : MPI_UNDEFINED, t->rank,
					 &w->comm));
	const struct plan_rule rule = {s->readers_per_node, s->decomp, s->order, s->x->seed,
				       s->shift_use};
	if ((s->pattern == CFG_PATTERN_SHARED
		     ? plan_share_shared(s->ds, s->order, s->x->seed, w->readers, w->reader, &w->sh)
		     : plan_share_per_reader(&t->map, t->rank, s->ds, &rule, &w->sh)) != 0)
		rc = pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	if (rc == 0)
		rc = phase_load_names(s, w, e);
	if (rc == 0 && w->nm.names != NULL && s->order != CFG_ORDER_RANDOM)
		rc = plan_share_sort_by_name(&w->sh, &w->nm, s->order == CFG_ORDER_REVERSE) == 0
			     ? 0 : pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
out:
	return rc;
}

/* Item i's path: from its index, or for a hashed data set from its name. */
static int phase_item_path(const struct phase_spec *s, const struct phase_work *w, uint64_t i,
			   char *buf, size_t len)
{
	return dataset_path(s->x, s->ds, w->sh.file[i], w->nm.names ? w->nm.names + i * w->nm.len : NULL,
			    buf, len);
}

static int phase_path(const struct phase_spec *s, const struct phase_work *w, uint64_t i,
		      char *buf, size_t len, struct pf_err *e)
{
	if (phase_item_path(s, w, i, buf, len) != 0)
		return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
	return 0;
}

/* What empties the cache before this phase: the experiment's strategy, but cache: shift has
 * only nnodes - 1 cold uses of a data set (use nnodes brings each file back to the node that
 * wrote it, later ones to nodes that read it), after which shift_fallback evicts on the
 * reading node. */
static enum cfg_cache phase_cache_action(const struct phase_spec *s, const struct topology *t)
{
	if (s->x->cache != CFG_CACHE_SHIFT)
		return s->x->cache;
	return plan_shift_is_cold(s->shift_use, t->nnodes) ? CFG_CACHE_SHIFT : s->x->shift_fallback;
}

/* Before the opening barrier: empty the cache the way the experiment asks. */
static int phase_prepare_cache(const struct phase_spec *s, const struct topology *t,
			       struct phase_work *w, struct pf_err *e)
{
	char path[PHASE_PATH];
	enum cfg_cache action = phase_cache_action(s, t);
	if (action == CFG_CACHE_DROP && t->local_rank == 0)
		return cache_drop_node(e);
	if (action != CFG_CACHE_FADVISE)
		return 0;
	for (uint64_t i = 0; i < w->sh.n; i++) {
		if (phase_path(s, w, i, path, sizeof path, e) != 0)
			return -1;
		/* a file that cannot be emptied from the cache is that file's failure (its row
		 * gets the errno after the phase), not the phase's: the others are still read */
		int rc = cache_fadvise_file(path, s->x->noatime, e);
		if (rc != 0 && w->prep_error == NULL &&
		    (w->prep_error = calloc(w->sh.n, sizeof *w->prep_error)) == NULL)
			return pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
		if (rc != 0)
			w->prep_error[i] = -rc;
	}
	return 0;
}

/* After the closing barrier: a file whose cache preparation failed keeps that errno on its
 * row unless its read failed too. -1 when there was one (the message is in e already). */
static int phase_prep_errors(const struct phase_work *w, struct phase_output *o)
{
	int rc = 0;
	for (uint64_t i = 0; w->prep_error != NULL && i < o->me.files; i++)
		if (w->prep_error[i] != 0) {
			if (o->files[i].error == 0)
				o->files[i].error = w->prep_error[i];
			rc = -1;
		}
	return rc;
}

/* How much of this rank's share is in the page cache now; many files are sampled. */
static int phase_residency(const struct phase_spec *s, const struct phase_work *w,
			   double *fraction, struct pf_err *e)
{
	char path[PHASE_PATH];
	uint64_t step = w->sh.n > PHASE_RESIDENCY_SAMPLES ? w->sh.n / PHASE_RESIDENCY_SAMPLES : 1;
	uint64_t probed = 0, resident = 0;
	for (uint64_t i = 0; i < w->sh.n; i += step) {
		uint64_t r;
		if (phase_path(s, w, i, path, sizeof path, e) != 0 ||
		    cache_resident(path, w->sh.offset[i], w->sh.length[i], s->x->noatime, &r, e) != 0)
			return -1;
		probed += w->sh.length[i];
		resident += r;
	}
	*fraction = probed ? (double)resident / (double)probed : 0;
	return 0;
}

/* What the timed part works with. The clock pauses while verify checks content, so that the
 * checking time stays out of every time stamp (and is counted on its own). */
struct phase_run_ctx {
	const struct phase_spec *s;
	const struct topology *t;
	const struct phase_work *w;
	void *buf;
	struct bopen bo;
	uint64_t key;             /* the data set's content key, for verify */
	int process_on;           /* the experiment processes what it reads */
	double paused;            /* seconds spent verifying so far */
	/* process: each block digested and/or CPU spent on it, on the clock */
	struct digest dg;         /* kind DIGEST_NONE: no digest */
	char *want;               /* [w->sh.n x (hex + 1)]: each item's line of the digest list */
	uint64_t digesting;       /* a pipelining backend: the item dg holds, or UINT64_MAX */
	uint64_t ns_per_byte;
	double io;                /* seconds in open, read and close calls */
	double process;           /* seconds digesting and spinning */
	int noatime;              /* every open so far used O_NOATIME */
	int abandoned;            /* a pipelining backend gave the share up at a failure */
	int status;               /* enum phase_status of this rank */
	struct pf_err *e;
};

static double phase_now(const struct phase_run_ctx *c)
{
	return topology_now(c->t) - c->paused;
}

static int phase_share_path(const void *core, uint64_t i, char *buf, size_t len)
{
	const struct phase_run_ctx *c = core;
	return phase_item_path(c->s, c->w, i, buf, len);
}

/* Item i's path for a message, or "file N" when it cannot be built. */
static void phase_share_name(const struct phase_run_ctx *c, uint64_t i, char *buf, size_t len)
{
	if (phase_share_path(c, i, buf, len) != 0)
		snprintf(buf, len, "file %llu", (unsigned long long)c->w->sh.file[i]);
}

/* verify: true: the block just read against the content pattern, off the clock (path NULL:
 * built only for the message). */
static int phase_verify_block(struct phase_run_ctx *c, uint64_t i, uint64_t off,
			      const void *buf, size_t got, const char *path)
{
	double t0 = topology_now(c->t);
	unsigned char want = 0;
	int64_t bad = dataset_check(c->key, c->w->sh.file[i], off, buf, got, &want);
	c->paused += topology_now(c->t) - t0;
	char name[PHASE_PATH];
	if (bad < 0)
		return 0;
	if (path == NULL) { /* named only when it failed: no formatting per block */
		phase_share_name(c, i, name, sizeof name);
		path = name;
	}
	return pf_fail(c->e, PF_RUNTIME, "data set %s: %s: offset %llu: expected byte 0x%02x, found 0x%02x",
		       c->s->ds->name, path, (unsigned long long)(off + (uint64_t)bad), want,
		       ((const unsigned char *)buf)[bad]);
}

/* Spend ns of this thread's CPU time: a busy loop on CLOCK_THREAD_CPUTIME_ID, so that what is
 * spent is CPU (a rank that shares its core with others takes longer by the wall clock, as real
 * processing would). A stop request (time limit, signal) ends it: no system call is there to
 * be interrupted, and a block at a large cpu_ns_per_byte can take minutes. */
static void phase_spin(uint64_t ns)
{
	struct timespec ts;
	if (ns == 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return;
	uint64_t end = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + ns, now;
	do {
		if (stop_now() || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
			return;
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	} while (now < end);
}

/* process: the block just read, digested and/or paid for in CPU, on the clock. */
static void phase_process_block(struct phase_run_ctx *c, const void *buf, size_t got)
{
	double t0 = phase_now(c);
	digest_update(&c->dg, buf, got);
	phase_spin(got * c->ns_per_byte);
	c->process += phase_now(c) - t0;
}

/* process.digest: item i read whole; its digest against its line of the list (path NULL:
 * built only for the message). */
static int phase_check_digest(struct phase_run_ctx *c, uint64_t i, const char *path)
{
	char hex[DIGEST_HEX_MAX], name[PHASE_PATH];
	size_t len = digest_hex_len(c->dg.kind);
	const char *want = c->want + i * (len + 1);
	double t0 = phase_now(c);
	int rc = digest_final_hex(&c->dg, hex);
	c->process += phase_now(c) - t0;
	if (rc == 0 && strncmp(hex, want, len) == 0)
		return 0;
	if (path == NULL) { /* named only when it failed */
		phase_share_name(c, i, name, sizeof name);
		path = name;
	}
	if (rc != 0)
		return pf_fail_errno(c->e, rc, "%s: %s digest failed", path, digest_name(c->dg.kind));
	pf_fail(c->e, PF_RUNTIME, "data set %s: %s: %s digest %s, the digest list says %.*s",
		c->s->ds->name, path, digest_name(c->dg.kind), hex, (int)len, want);
	return -EILSEQ;
}

/* The run must stop (time limit, signal): "time limit of 2 s reached" or "interrupted by
 * signal 15", for the message of a rank that stopped. */
static void phase_stop_why(const struct phase_run_ctx *c, char *buf, size_t len)
{
	if (stop_timed_out())
		snprintf(buf, len, "time limit of %g s reached", c->s->x->phase_timeout);
	else
		snprintf(buf, len, "interrupted by signal %d", stop_signal());
}

/* The run must stop in the middle of file path (done bytes of it read, the file's row keeps
 * them): say where this rank was. Returns -1. */
static int phase_stopped(struct phase_run_ctx *c, const char *path, uint64_t done)
{
	char why[64];
	phase_stop_why(c, why, sizeof why);
	c->status = stop_timed_out() ? PHASE_TIMEOUT : PHASE_INTERRUPTED;
	return pf_fail(c->e, PF_RUNTIME,
		       "phase %u: %s; rank %d on %s had not finished file %s after %llu bytes",
		       c->s->index, why, c->t->rank, c->t->hostnames[c->t->node], path,
		       (unsigned long long)done);
}

/* The run must stop between two files: nread of the rank's n items were read. */
static void phase_stopped_between(struct phase_run_ctx *c, uint64_t nread, uint64_t n)
{
	char why[64];
	phase_stop_why(c, why, sizeof why);
	c->status = stop_timed_out() ? PHASE_TIMEOUT : PHASE_INTERRUPTED;
	pf_fail(c->e, PF_RUNTIME, "phase %u: %s; rank %d on %s stopped between files, %llu of its "
		"%llu read", c->s->index, why, c->t->rank, c->t->hostnames[c->t->node],
		(unsigned long long)nread, (unsigned long long)n);
}

/* Read item i of an open file with the transfer size. A collective backend makes the same
 * number of calls on every reader (nreads), some of them empty, even past a short file's end.
 * Returns 0 or -errno (the message is in c->e). */
static int phase_read_range(struct phase_run_ctx *c, struct bfile *f, uint64_t i,
			    uint64_t nreads, uint64_t *done)
{
	const struct phase_spec *s = c->s;
	uint64_t off = c->w->sh.offset[i], end = off + c->w->sh.length[i];
	*done = 0;
	for (uint64_t k = 0; nreads ? k < nreads : off < end; k++) {
		size_t want = end - off < s->transfer_size ? (size_t)(end - off) : s->transfer_size;
		size_t got = 0;
		double t0 = phase_now(c);
		int rc = s->be->read(f, c->buf, want, off, &got);
		c->io += phase_now(c) - t0;
		if (rc != 0 && rc != -EINTR) {
			pf_fail_errno(c->e, rc, "%s: read failed at offset %llu", f->path,
				      (unsigned long long)off);
			return rc;
		}
		if (s->x->verify && got > 0 && phase_verify_block(c, i, off, c->buf, got, f->path) != 0)
			return -EILSEQ;
		if (c->process_on && got > 0)
			phase_process_block(c, c->buf, got);
		off += got;
		*done += got;
		/* after every transfer, not only after an EINTR: reads served from memory are not
		 * interrupted, and a file of many transfers would run on long past a time limit.
		 * A collective backend's calls must match on every reader: it stops between files
		 * only, where the readers agree (phase_read_items). */
		if (stop_now() && (rc == -EINTR || (nreads == 0 && off < end))) {
			phase_stopped(c, f->path, *done);
			return -EINTR;
		}
		if (rc == -EINTR) {
			k--; /* not a call of its own: the same read goes on */
			continue;
		}
		if (got == 0 && want > 0 && nreads == 0)
			return 0; /* end of file: phase_check_bytes names the short file */
	}
	return 0;
}

/* open, again after an EINTR unless the run is stopping. */
static int phase_open(struct phase_run_ctx *c, const char *path, struct bfile *f)
{
	int rc;
	double t0 = phase_now(c);
	while ((rc = c->s->be->open(path, &c->bo, f)) == -EINTR && !stop_now())
		;
	c->io += phase_now(c) - t0;
	if (rc == -EINTR)
		phase_stopped(c, path, 0);
	else if (rc != 0)
		pf_fail_errno(c->e, rc, "%s: cannot open", path);
	return rc;
}

/* Open, read item i with the transfer size, close; times on the common clock. A failure is
 * recorded in r->error; the message of the rank's first failure is kept in c->e. */
static int phase_read_item(struct phase_run_ctx *c, uint64_t i, struct file_rec *r)
{
	char path[PHASE_PATH];
	const struct phase_spec *s = c->s;
	struct bfile f = {.fd = -1, .priv = NULL, .path = path, .noatime_used = 0};
	uint64_t nreads = 0, done = 0;
	if (phase_path(s, c->w, i, path, sizeof path, c->e) != 0)
		return r->error = ENAMETOOLONG;
	c->bo.size = c->w->sh.size != NULL ? c->w->sh.size[i] : c->w->sh.length[i];
	if (c->w->collective) {
		uint64_t blocks = (c->bo.size + PLAN_SLICE_ALIGN - 1) / PLAN_SLICE_ALIGN;
		uint64_t slice = (blocks + c->w->readers - 1) / c->w->readers * PLAN_SLICE_ALIGN;
		nreads = (slice + s->transfer_size - 1) / s->transfer_size;
	}
	r->rank = c->t->rank;
	r->open_start = phase_now(c);
	int rc = phase_open(c, path, &f);
	r->open_end = phase_now(c);
	if (rc != 0) {
		r->read_end = r->close_end = r->open_end;
		return r->error = -rc;
	}
	if (c->dg.kind != DIGEST_NONE && (rc = digest_init(&c->dg)) != 0)
		pf_fail_errno(c->e, rc, "%s: %s digest failed", path, digest_name(c->dg.kind));
	if (rc == 0)
		rc = phase_read_range(c, &f, i, nreads, &done);
	if (rc == 0 && c->dg.kind != DIGEST_NONE && done == c->w->sh.length[i])
		rc = phase_check_digest(c, i, path);
	r->read_end = phase_now(c);
	int crc = s->be->close(&f);
	r->close_end = phase_now(c);
	c->io += r->close_end - r->read_end;
	r->bytes = done;
	c->noatime &= f.noatime_used;
	if (rc == 0 && crc != 0) {
		pf_fail_errno(c->e, crc, "%s: close failed", path);
		rc = crc;
	}
	r->error = -rc;
	return r->error;
}

/* Whether to stop before the next file. Readers of a shared file with a collective backend
 * decide together (one small allreduce among them per file, next to the collective open's own
 * traffic): one of them stopping alone would leave the others waiting in a collective call. */
static int phase_stop_next(const struct phase_run_ctx *c)
{
	int mine = stop_now(), any = mine;
	if (c->w->collective &&
	    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, c->w->comm) != MPI_SUCCESS)
		return 1; /* cannot agree: stop, the closing barrier's deadline ends the rest */
	return any;
}

/* The core's loop: one item at a time. A file that fails is recorded and the rest are still
 * read (the user learns about every bad file); a stop request ends the loop, in the middle of
 * a file (its row keeps the bytes read so far, error EINTR) or between two. */
static int phase_read_items(struct phase_run_ctx *c, struct phase_output *o)
{
	int failed = 0;
	uint64_t i = 0;
	for (; i < c->w->sh.n && !phase_stop_next(c); i++) {
		failed |= phase_read_item(c, i, &o->files[i]) != 0;
		o->me.files++;
	}
	if (stop_now() && c->status < PHASE_TIMEOUT)
		phase_stopped_between(c, i, c->w->sh.n);
	return failed || c->status != PHASE_COMPLETE ? -1 : 0;
}

static double phase_share_now(const void *core)
{
	return phase_now(core);
}

/* verify: true with a pipelining backend: each block as it completes, in any order. */
static int phase_share_consume(const void *core, uint64_t i, uint64_t offset, const void *buf,
			       size_t len)
{
	return phase_verify_block((struct phase_run_ctx *)core, i, offset, buf, len, NULL);
}

/* process with a pipelining backend: item i's digest starts with its first block, or at its
 * end for a file without any. */
static int phase_share_begin(struct phase_run_ctx *c, uint64_t i)
{
	char path[PHASE_PATH];
	if (c->digesting == i || c->dg.kind == DIGEST_NONE)
		return 0;
	c->digesting = i;
	double t0 = phase_now(c);
	int rc = digest_init(&c->dg);
	c->process += phase_now(c) - t0;
	if (rc == 0)
		return 0;
	phase_share_name(c, i, path, sizeof path);
	return pf_fail_errno(c->e, rc, "%s: %s digest failed", path, digest_name(c->dg.kind));
}

/* process with a pipelining backend: item i's blocks, in offset order (the backend is
 * BACKEND_IN_ORDER), verified off the clock and processed on it, as by the core's own loop. */
static int phase_share_process(const void *core, uint64_t i, uint64_t offset, const void *buf,
			       size_t len)
{
	struct phase_run_ctx *c = (struct phase_run_ctx *)core;
	if (c->s->x->verify && phase_share_consume(core, i, offset, buf, len) != 0)
		return -1;
	if (phase_share_begin(c, i) != 0)
		return -1;
	phase_process_block(c, buf, len);
	return 0;
}

/* process with a pipelining backend: item i had all its blocks; a whole file's digest against
 * its line of the list (a short one is left to phase_check_bytes, as in the core's loop). */
static int phase_share_item_done(const void *core, uint64_t i, uint64_t bytes)
{
	struct phase_run_ctx *c = (struct phase_run_ctx *)core;
	if (c->dg.kind == DIGEST_NONE)
		return 0;
	if (phase_share_begin(c, i) != 0)
		return -1;
	c->digesting = UINT64_MAX;
	if (bytes != c->w->sh.length[i])
		return 0;
	return phase_check_digest(c, i, NULL) != 0 ? -1 : 0;
}

/* A pipelining backend reads the whole share itself; the core only names the failure. With a
 * process step it hands the blocks back in file order and says how long it waited for I/O. */
static int phase_read_pipelined(struct phase_run_ctx *c, struct phase_output *o)
{
	char path[PHASE_PATH];
	const struct phase_work *w = c->w;
	struct bshare sh = {
		.nitems = w->sh.n, .offset = w->sh.offset, .length = w->sh.length,
		.path = phase_share_path, .now = phase_share_now, .core = c,
		.open = &c->bo, .transfer = c->s->transfer_size, .recs = o->files, .failed = 0,
		.stop = stop_now, .consume = c->s->x->verify ? phase_share_consume : NULL,
	};
	if (c->process_on) {
		sh.ordered = 1;
		sh.consume = phase_share_process;
		sh.item_done = phase_share_item_done;
	}
	if (w->sh.n == 0)
		return 0; /* no share, no setup: nothing to call */
	int rc = c->s->be->read_share(w->backend_state, &sh);
	c->io += sh.wait_s;
	c->abandoned = rc != 0;
	/* started items are a prefix; the rest were never opened and keep zero times */
	o->me.files = w->sh.n;
	while (rc != 0 && o->me.files > 0 && o->files[o->me.files - 1].open_start == 0)
		o->me.files--;
	/* the pipeline says nothing per file about O_NOATIME: it drops it only on EPERM */
	if (rc == 0)
		return 0;
	if (rc == -EILSEQ)
		return -1; /* verify or the digest named the file */
	if (rc == -EINTR && stop_now() && sh.failed < w->sh.n &&
	    phase_share_path(c, sh.failed, path, sizeof path) == 0)
		return phase_stopped(c, path, o->files[sh.failed].bytes);
	if (sh.failed < w->sh.n && phase_share_path(c, sh.failed, path, sizeof path) == 0)
		return pf_fail_errno(c->e, rc, "%s: read failed (%s backend)", path, c->s->be->name);
	return pf_fail_errno(c->e, rc, "phase %u: %s backend failed", c->s->index, c->s->be->name);
}

/* After the closing barrier: a file read short of what its item should hold (it shrank, or
 * ended early) gets RECORD_SHORT on its row, as an I/O error gets its errno, so that the row
 * alone says it is bad; the first such file is named. Where a pipelining backend gave the
 * share up (abandoned), its unfinished files get RECORD_ABANDONED instead: they were not
 * short, their reads were cancelled. -1 when there was one. */
static int phase_check_bytes(const struct phase_spec *s, const struct phase_work *w,
			     struct phase_output *o, int abandoned, struct pf_err *e)
{
	char path[PHASE_PATH];
	int rc = 0;
	for (uint64_t i = 0; i < o->me.files; i++) {
		struct file_rec *r = &o->files[i];
		if (r->bytes == w->sh.length[i] || r->error != 0)
			continue;
		r->error = abandoned ? RECORD_ABANDONED : RECORD_SHORT;
		if (rc != 0 || abandoned)
			continue;
		if (phase_path(s, w, i, path, sizeof path, e) != 0)
			return -1;
		rc = pf_fail(e, PF_RUNTIME, "%s: short file: %llu bytes at offset %llu, expected %llu",
			     path, (unsigned long long)(w->sh.offset[i] + r->bytes),
			     (unsigned long long)w->sh.offset[i],
			     (unsigned long long)(w->sh.offset[i] + w->sh.length[i]));
	}
	return abandoned ? -1 : rc;
}

#define PHASE_BAD_SHOWN 50 /* bad files named per rank and phase */

/* After the closing barrier: the message kept for the run names one failure; a rank with
 * several bad files in this phase (or whose earlier failure holds the message) names each,
 * at most PHASE_BAD_SHOWN, on stderr. */
static void phase_name_bad(const struct phase_run_ctx *c, const struct phase_output *o,
			   int earlier)
{
	char path[PHASE_PATH];
	uint64_t bad = 0, shown = 0;
	for (uint64_t i = 0; i < o->me.files; i++)
		bad += o->files[i].error != 0;
	if (bad == 0 || (bad == 1 && !earlier))
		return;
	fprintf(stderr, "pfsread: rank %d (%s): phase %u: %llu bad file%s:\n", c->t->rank,
		c->t->hostnames[c->t->node], c->s->index, (unsigned long long)bad,
		bad == 1 ? "" : "s");
	for (uint64_t i = 0; i < o->me.files && shown < PHASE_BAD_SHOWN; i++) {
		const struct file_rec *r = &o->files[i];
		if (r->error == 0)
			continue;
		phase_share_name(c, i, path, sizeof path);
		if (r->error == RECORD_SHORT)
			fprintf(stderr, "pfsread: rank %d:   %s: short: %llu of %llu bytes\n",
				c->t->rank, path, (unsigned long long)r->bytes,
				(unsigned long long)c->w->sh.length[i]);
		else
			fprintf(stderr, "pfsread: rank %d:   %s: %s\n", c->t->rank, path,
				r->error == EILSEQ ? "content differs (verify or digest)"
				: r->error == RECORD_ABANDONED ? "not finished: its reads were "
								 "cancelled at another file's failure"
				: r->error == EINTR ? "not finished: the phase was stopped"
						    : strerror(r->error));
		shown++;
	}
	if (bad > shown)
		fprintf(stderr, "pfsread: rank %d:   and %llu more (the files table's error column "
			"has every one)\n", c->t->rank, (unsigned long long)(bad - shown));
}

/* A backend that keeps several files in flight reads whole files itself. */
static int phase_pipelined(const struct phase_spec *s)
{
	return s->be->read_share != NULL && s->pattern == CFG_PATTERN_PER_READER;
}

/* The timed part: this rank's items, in plan order. Stops at the first failure so that the
 * rank still reaches the closing barrier. */
static int phase_read_share(struct phase_run_ctx *c, struct phase_output *o)
{
	return phase_pipelined(c->s) ? phase_read_pipelined(c, o) : phase_read_items(c, o);
}

/* After the timed part, still on this rank: sums and first/last times of its own records. */
static void phase_sum_rank(struct phase_output *o)
{
	o->nfiles = o->me.files;
	for (uint64_t i = 0; i < o->nfiles; i++) {
		const struct file_rec *r = &o->files[i];
		o->me.bytes += r->bytes;
		o->me.open_s += r->open_end - r->open_start;
		o->me.read_s += r->read_end - r->open_end;
		o->me.close_s += r->close_end - r->read_end;
	}
	if (o->nfiles > 0) {
		o->me.start = o->files[0].open_start;
		o->me.end = o->files[0].close_end;
		for (uint64_t i = 1; i < o->nfiles; i++) {
			if (o->files[i].open_start < o->me.start)
				o->me.start = o->files[i].open_start;
			if (o->files[i].close_end > o->me.end)
				o->me.end = o->files[i].close_end;
		}
	}
}

/* The most the opening barrier's exits may differ by when every clock is right: twice the
 * worst offset error (two ranks, each wrong by up to its error) plus what a barrier's release
 * takes to reach every rank, a descheduled one included (PHASE_SKEW_FLOOR_S). A clock that is
 * off by a start-up time (seconds) is far beyond it. */
static double phase_clock_bound(const struct topology *t)
{
	double worst = 0;
	for (int r = 0; r < t->nranks; r++)
		if (t->rank_error_s[r] > worst)
			worst = t->rank_error_s[r];
	return PHASE_SKEW_FLOOR_S + 2 * worst;
}

/* The phase's doubts, from its agreed figures: "clock" when the ranks' clocks disagreed at the
 * opening barrier by more than they can. */
static void phase_flags(struct phase_info *p)
{
	p->flags[0] = '\0';
	if (p->start_skew_s > p->clock_bound_s)
		snprintf(p->flags, sizeof p->flags, "clock");
}

/* After the closing barrier: times relative to the earliest barrier exit, and the phase's
 * outcome (bytes, first start, last end, residency, failure, the barrier's skew) agreed by
 * all ranks. */
static int phase_agree(const struct phase_spec *s, const struct topology *t, double opened,
		       int status, int noatime, struct phase_output *o, struct pf_err *e)
{
	int rc = 0, worst = 0, all_noatime = 0;
	double base, latest, first = o->nfiles ? o->me.start : 1e300, last = o->nfiles ? o->me.end : -1e300;
	double resident[2] = {o->me.resident_fraction * (double)o->me.bytes, (double)o->me.bytes};
	uint64_t bytes = 0;
	PHASE_MPI(MPI_Allreduce(&opened, &base, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&opened, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&o->me.bytes, &bytes, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&noatime, &all_noatime, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(MPI_IN_PLACE, resident, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	for (uint64_t i = 0; i < o->nfiles; i++) {
		o->files[i].open_start -= base;
		o->files[i].open_end -= base;
		o->files[i].read_end -= base;
		o->files[i].close_end -= base;
	}
	if (o->nfiles > 0) {
		o->me.start -= base;
		o->me.end -= base;
	}
	o->me.barrier_s = opened - base;
	o->me.clock_offset_s = t->rank_offset_s[t->rank];
	o->me.clock_error_s = t->rank_error_s[t->rank];
	o->info.start_skew_s = latest - base;
	o->info.clock_bound_s = phase_clock_bound(t);
	o->info.bytes = bytes;
	o->info.noatime = all_noatime;
	o->info.resident_fraction = resident[1] > 0 ? resident[0] / resident[1] : 0;
	snprintf(o->info.cache_state, sizeof o->info.cache_state, "%s",
		 cache_state_name(cache_state_of(o->info.resident_fraction)));
	o->info.elapsed_s = last > first ? last - first : 0;
	o->info.bandwidth_MBps = o->info.elapsed_s > 0 ? (double)bytes / o->info.elapsed_s / 1e6 : 0;
	snprintf(o->info.status, sizeof o->info.status, "%s", phase_status_names[worst]);
	phase_flags(&o->info);
	if (worst != PHASE_COMPLETE)
		rc = -1; /* the ranks that failed say why */
out:
	return rc;
}

/* process.digest: this reader's lines of the digest list, one pread each, kept per item. */
static int phase_load_digests(const struct phase_spec *s, const struct phase_work *w,
			      struct phase_run_ctx *c, struct pf_err *e)
{
	char path[PHASE_PATH];
	size_t width = digest_hex_len(s->x->process_digest) + 1;
	if (s->x->process_digest == DIGEST_NONE || w->sh.n == 0)
		return 0;
	if (digest_open(&c->dg, s->x->process_digest) != 0 ||
	    (c->want = malloc(w->sh.n * width)) == NULL)
		return pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	if (dataset_digest_path(s->x, s->ds, s->x->process_digest, path, sizeof path) != 0)
		return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	if (fd < 0)
		return pf_fail_errno(e, errno, "%s: cannot open the digest list", path);
	for (uint64_t i = 0; i < w->sh.n && rc == 0; i++) {
		ssize_t n = pread(fd, c->want + i * width, width, (off_t)(w->sh.file[i] * width));
		if (n < 0)
			rc = pf_fail_errno(e, errno, "%s: cannot read", path);
		else if ((size_t)n != width || c->want[i * width + width - 1] != '\n')
			rc = pf_fail(e, PF_RUNTIME, "%s: no whole line for file %llu (run 'pfsread "
				     "generate' again)", path, (unsigned long long)w->sh.file[i]);
	}
	close(fd);
	return rc;
}

/* Outside the timed region: plan, allocate, prepare the cache, probe it, set the backend up. */
static int phase_prepare(const struct phase_spec *s, const struct topology *t,
			 struct phase_work *w, struct phase_output *o, struct phase_run_ctx *c,
			 struct pf_err *e)
{
	int rc = phase_plan(s, t, w, e);
	if (rc == 0)
		rc = phase_load_digests(s, w, c, e);
	if (rc == 0 && w->sh.n > 0 && (o->files = calloc(w->sh.n, sizeof *o->files)) == NULL)
		rc = pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	for (uint64_t i = 0; rc == 0 && i < w->sh.n; i++) {
		o->files[i].file = w->sh.file[i];
		o->files[i].rank = t->rank; /* a pipelining backend fills only times and bytes */
	}
	if (rc == 0)
		rc = phase_prepare_cache(s, t, w, e);
	/* every rank of the node, failed or not: the node's drop must be over before its ranks
	 * probe the cache */
	if (MPI_Barrier(t->node_comm) != MPI_SUCCESS && rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "phase %u: MPI_Barrier on the node failed", s->index);
	if (rc == 0)
		rc = phase_residency(s, w, &o->me.resident_fraction, e);
	/* a backend's phase state: always, but a pipeline's only where it reads the share */
	if (rc == 0 && s->be->setup != NULL && w->sh.n > 0 &&
	    (phase_pipelined(s) || s->be->read_share == NULL)) {
		int src = s->be->setup(s->x, s->transfer_size, &w->backend_state);
		if (src != 0)
			rc = pf_fail_errno(e, src, "phase %u: %s backend setup", s->index, s->be->name);
	}
	return rc;
}

/* " 5 (n2), 6 (n2)": the ranks whose arrival rank 0 has not heard of, into buf. */
static void phase_missing_ranks(const struct topology *t, MPI_Request *arrived, char *buf,
				size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int r = 1; r < t->nranks && used + 1 < len; r++) {
		int flag = 1;
		if (MPI_Test(&arrived[r - 1], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
			continue;
		int w = snprintf(buf + used, len - used, "%s%d (%s)", used ? ", " : " ", r,
				 t->hostnames[t->map.node_of_rank[r]]);
		used += w > 0 ? (size_t)w : 0;
	}
}

/* The closing barrier, waited for with naps: ranks that are done (or never read) leave the
 * cores to the readers still at work, which matters when ranks outnumber cores. With a time
 * limit they wait at most twice the limit (the stuck ones were woken by their timer at the
 * limit and should have come): past that a rank is stuck where no signal reaches it, and the
 * run must be aborted. Every rank tells rank 0 it has arrived (an empty message), so that
 * rank 0 can name the ranks and hosts that never came. */
static int phase_close_barrier(const struct phase_spec *s, const struct topology *t,
			       struct pf_err *e)
{
	static char none;
	int rc = 0, done = 0, n = t->rank == 0 ? t->nranks - 1 : 1;
	MPI_Request req, *arrived = calloc(n > 0 ? (size_t)n : 1, sizeof *arrived);
	double limit = s->x->phase_timeout, deadline = MPI_Wtime() + 2 * limit + 5;
	const struct timespec nap = {0, 200000}; /* 0.2 ms */
	char who[1024] = "";
	if (arrived == NULL)
		return pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	for (int r = 1; t->rank == 0 && r < t->nranks; r++)
		PHASE_MPI(MPI_Irecv(&none, 0, MPI_BYTE, r, PHASE_TAG_ARRIVED, MPI_COMM_WORLD,
				    &arrived[r - 1]));
	if (t->rank != 0)
		PHASE_MPI(MPI_Isend(&none, 0, MPI_BYTE, 0, PHASE_TAG_ARRIVED, MPI_COMM_WORLD,
				    &arrived[0]));
	PHASE_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
	while (!done && (limit <= 0 || MPI_Wtime() < deadline)) {
		PHASE_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
		if (!done)
			nanosleep(&nap, NULL);
	}
	if (done && (t->rank != 0 || n > 0))
		PHASE_MPI(MPI_Waitall(n, arrived, MPI_STATUSES_IGNORE));
	if (!done && t->rank == 0)
		phase_missing_ranks(t, arrived, who, sizeof who);
	if (!done) /* over an earlier failure too: main must abort, not finalize */
		rc = pf_fail_lost(e, "phase %u: %s%s %s still stuck %g s after the time limit of "
				  "%g s (the ranks that said why are above); aborting the run",
				  s->index, !who[0] ? "some rank" : strchr(who, ',') ? "ranks" : "rank",
				  who, strchr(who, ',') ? "are" : "is", limit + 5, limit);
out:
	free(arrived);
	return rc;
}

int phase_run(const struct phase_spec *s, const struct topology *t, void *buf, size_t buflen,
	      struct phase_output *o, struct pf_err *e)
{
	int rc = 0;
	struct phase_work w = {.comm = MPI_COMM_NULL};
	struct phase_run_ctx c = {.s = s, .t = t, .w = &w, .buf = buf, .key = dataset_key(s->ds),
				  .paused = 0, .noatime = s->x->noatime, .status = PHASE_COMPLETE,
				  .e = e, .process_on = cfg_processes(s->x), .digesting = UINT64_MAX,
				  .ns_per_byte = s->x->process_cpu_ns_per_byte};
	int earlier = e->status != PF_OK; /* the run's message names an earlier failure */
	memset(o, 0, sizeof *o);
	phase_fill_info(s, t, &o->info);
	o->me.rank = t->rank;
	o->me.node = t->node;
	o->me.active = plan_reader_index(&t->map, t->rank, s->readers_per_node) >= 0;
	if (buflen < s->transfer_size) {
		pf_fail(e, PF_RUNTIME, "phase %u: buffer smaller than transfer size", s->index);
		c.status = PHASE_FAILED;
	} else if (phase_prepare(s, t, &w, o, &c, e) != 0)
		c.status = PHASE_FAILED;
	c.bo = (struct bopen){s->ds->file_size, s->x->noatime, /* size: set per item */
			      w.collective ? w.comm : MPI_COMM_SELF, s->x};

	PHASE_MPI(MPI_Barrier(MPI_COMM_WORLD));
	double opened = phase_now(&c);
	if (stop_arm(s->x->phase_timeout) != 0 && c.status == PHASE_COMPLETE) {
		pf_fail_errno(e, errno, "phase %u: cannot start the phase timer", s->index);
		c.status = PHASE_FAILED;
	}
	if (c.status == PHASE_COMPLETE && phase_read_share(&c, o) != 0 && c.status == PHASE_COMPLETE)
		c.status = PHASE_FAILED;
	if (stop_arm(0) != 0 && c.status == PHASE_COMPLETE) {
		pf_fail_errno(e, errno, "phase %u: cannot stop the phase timer", s->index);
		c.status = PHASE_FAILED;
	}
	if (phase_close_barrier(s, t, e) != 0)
		return -1; /* PF_HUNG: no collective call can complete any more */

	o->me.verify_s = c.paused;
	o->me.process_s = c.process;
	o->me.io_s = c.io;
	if (w.backend_state != NULL)
		s->be->teardown(w.backend_state);
	phase_sum_rank(o);
	/* its calls overlap and, without a process step, all of its span is I/O; with one, io_s
	 * is what it said it waited */
	if (phase_pipelined(s) && !c.process_on)
		o->me.io_s = o->me.end - o->me.start;
	/* a stopped phase's last files are partial on purpose: only a finished one is checked */
	if (c.status < PHASE_TIMEOUT && phase_check_bytes(s, &w, o, c.abandoned, e) != 0)
		c.status = PHASE_FAILED;
	if (phase_prep_errors(&w, o) != 0 && c.status == PHASE_COMPLETE)
		c.status = PHASE_FAILED;
	phase_name_bad(&c, o, earlier);
	rc = phase_agree(s, t, opened, c.status, c.noatime, o, e);
out:
	digest_close(&c.dg);
	free(c.want);
	phase_free_work(&w);
	return rc;
}

void phase_output_free(struct phase_output *o)
{
	free(o->files);
	o->files = NULL;
	o->nfiles = 0;
}
