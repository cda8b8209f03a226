/* phase_read: the timed part of a phase, between its barriers: this rank's items opened, read
 * with the transfer size and closed by the core's loop, or handed whole to a backend that keeps
 * several in flight (read_share). verify pauses the clock; a process step runs on it. Nothing
 * here allocates, logs or talks to other ranks beyond what is measured (a collective backend's
 * agreement to stop between files). */
#include "run/phase_read.h"
#include "run/progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dataset/dataset.h"
#include "run/cpu.h"
#include "run/topology.h"
#include "util/stop.h"

/* Item i's path: from its index, or for a hashed data set from its name. */
static int phase_item_path(const struct phase_spec *s, const struct phase_work *w, uint64_t i,
			   char *buf, size_t len)
{
	return dataset_path(s->x, s->ds, w->sh.file[i], w->nm.names ? w->nm.names + i * w->nm.len : NULL,
			    buf, len);
}

int phase_path(const struct phase_spec *s, const struct phase_work *w, uint64_t i,
		      char *buf, size_t len, struct pf_err *e)
{
	if (phase_item_path(s, w, i, buf, len) != 0)
		return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
	return 0;
}

double phase_now(const struct phase_run_ctx *c)
{
	return topology_now(c->t) - c->paused;
}

static int phase_share_path(const void *core, uint64_t i, char *buf, size_t len)
{
	const struct phase_run_ctx *c = core;
	return phase_item_path(c->s, c->w, i, buf, len);
}

/* Item i's path for a message, or "file N" when it cannot be built. */
void phase_share_name(const struct phase_run_ctx *c, uint64_t i, char *buf, size_t len)
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
	int64_t bad = dataset_check(&c->content, c->w->sh.file[i], off, buf, got, &want);
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

/* Whether each read call is timed on its own: only when verify or a process step runs between
 * the calls. Otherwise a file's span from its open's end to its last read's end is all reads,
 * and io_s takes that span (phase_read_item): a clock read costs about 0.1 us on a virtual
 * machine, against some 4 us of CPU for a whole warm 4 KiB file. */
static int phase_time_calls(const struct phase_run_ctx *c)
{
	return c->s->x->verify || c->process_on;
}

/* Read item i of an open file with the transfer size. A collective backend makes the same
 * number of calls on every reader (nreads), some of them empty, even past a short file's end.
 * Returns 0 or -errno (the message is in c->e). */
static int phase_read_range(struct phase_run_ctx *c, struct bfile *f, uint64_t i,
			    uint64_t nreads, uint64_t *done)
{
	const struct phase_spec *s = c->s;
	uint64_t off = c->w->sh.offset[i], end = off + c->w->sh.length[i];
	int timed = phase_time_calls(c);
	*done = 0;
	for (uint64_t k = 0; nreads ? k < nreads : off < end; k++) {
		size_t want = end - off < s->transfer_size ? (size_t)(end - off) : s->transfer_size;
		size_t got = 0;
		double t0 = timed ? phase_now(c) : 0;
		int rc = s->be->read(f, c->buf, want, off, &got);
		if (timed)
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

/* open, again after an EINTR unless the run is stopping (its time is the file's record's). */
static int phase_open(struct phase_run_ctx *c, const char *path, struct bfile *f)
{
	int rc;
	while ((rc = c->s->be->open(path, &c->bo, f)) == -EINTR && !stop_now())
		;
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
	c->io += r->open_end - r->open_start;
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
	if (!phase_time_calls(c))
		c->io += r->read_end - r->open_end;
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
		c->done_bytes += o->files[i].bytes;
		c->files_done = o->me.files;
		progress_tick(c->s->progress, c->done_bytes, c->files_done);
	}
	if (stop_now() && c->status < PHASE_TIMEOUT)
		phase_stopped_between(c, i, c->w->sh.n);
	return failed || c->status != PHASE_COMPLETE ? -1 : 0;
}

static double phase_share_now(const void *core)
{
	return phase_now(core);
}

/* The progress lines with a pipelining backend: what it has done so far (kept for the ticks
 * of the closing barrier's wait, after the last batch). */
static void phase_share_progress(const void *core, uint64_t bytes, uint64_t items)
{
	struct phase_run_ctx *c = (struct phase_run_ctx *)core;
	c->done_bytes = bytes;
	c->files_done = items;
	progress_tick(c->s->progress, bytes, items);
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
		.open = &c->bo, .transfer = c->s->io_size, .recs = o->files, .failed = 0,
		.stop = stop_now, .consume = c->s->x->verify ? phase_share_consume : NULL,
		.progress = c->s->progress != NULL ? phase_share_progress : NULL,
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

/* A backend that keeps several files in flight reads whole files itself. */
int phase_pipelined(const struct phase_spec *s)
{
	return s->be->read_share != NULL && s->pattern == CFG_PATTERN_PER_READER;
}

/* The timed part: this rank's items, in plan order. Stops at the first failure so that the
 * rank still reaches the closing barrier. */
int phase_read_share(struct phase_run_ctx *c, struct phase_output *o)
{
	struct cpu_mark from, to;
	cpu_mark(&from);
	int rc = phase_pipelined(c->s) ? phase_read_pipelined(c, o) : phase_read_items(c, o);
	cpu_mark(&to);
	cpu_between(&from, &to, &o->me.cpu_user_s, &o->me.cpu_sys_s);
	return rc;
}
