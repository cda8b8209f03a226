/* phase: one timed phase. Everything that is not the measured reads (planning, allocation,
 * cache preparation, residency, backend setup, agreeing on the outcome) happens outside the
 * two barriers. */
#include "run/phase.h"
#include "run/phase_read.h"
#include "run/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "run/cache.h"
#include "dataset/dataset.h"
#include "run/plan.h"
#include "util/stop.h"
#include "util/safe.h"

#define PHASE_RESIDENCY_SAMPLES 64 /* files probed when a share has more */
#define PHASE_SKEW_FLOOR_S 0.1     /* see phase_clock_bound */

/* An MPI call's return code as this module's error: 0, or -1 with e naming the call. */
static int phase_mpi(const struct phase_spec *s, struct pf_err *e, const char *call, int mpi_rc)
{
	if (mpi_rc == MPI_SUCCESS)
		return 0;
	return pf_fail(e, PF_RUNTIME, "phase %u: %s failed (MPI error %d)", s->index, call, mpi_rc);
}

static enum cfg_cache phase_cache_action(const struct phase_spec *s, const struct topology *t);

/* 1 once a step of the run was given up (guard.h): no collective call can complete. */
static int phase_lost(const struct phase_spec *s)
{
	return s->guard != NULL && s->guard->lost;
}

static void phase_fill_info(const struct phase_spec *s, const struct topology *t,
			    struct phase_info *p)
{
	const struct experiment *x = s->x;
	struct sweep_point *k = &p->sweep;
	memset(p, 0, sizeof *p);
	p->index = s->index;
	/* the sweep lists' keys as the plan point says; then those that are not lists */
	cfg_sweep_record(x, s->point.at, k);
	snprintf(k->dataset, sizeof k->dataset, "%s", s->ds->name);
	k->file_size = s->ds->file_size;
	snprintf(k->cache, sizeof k->cache, "%s", cfg_cache_name(x->cache));
	k->queue_depth = phase_pipelined(s) && s->be->queue_depth != NULL ? s->be->queue_depth(x)
									  : 1;
	p->nfiles = s->ds->nfiles;
	p->active_readers = (int32_t)plan_reader_count(&t->map, s->readers_per_node);
	if (x->cache == CFG_CACHE_SHIFT && phase_cache_action(s, t) != CFG_CACHE_SHIFT &&
	    phase_cache_action(s, t) != CFG_CACHE_NONE)
		snprintf(p->cache_evict, sizeof p->cache_evict, "%s",
			 cfg_cache_name(phase_cache_action(s, t)));
	snprintf(p->atime_mode, sizeof p->atime_mode, "%s", s->atime_mode ? s->atime_mode : "");
	snprintf(p->provenance, sizeof p->provenance, "%s", s->provenance ? s->provenance : "");
	cfg_process_describe(x, p->process, sizeof p->process);
	p->repetition = s->repetition;
	p->seed = x->seed;
	backend_record(x, p);
	/* the hint this phase's backend gives, resolved: the label is what was done */
	snprintf(k->advice, sizeof k->advice, "%s", cfg_advice_name(s->advice));
	if (s->be->hints != NULL)
		s->be->hints(x, s->advice, p->hints, sizeof p->hints);
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
	w->collective = s->pattern == CFG_PATTERN_SHARED &&
			(backend_flags(s->be, s->x) & BACKEND_COLLECTIVE);
	if (w->collective)
		rc = phase_mpi(s, e, "MPI_Comm_split",
			       MPI_Comm_split(MPI_COMM_WORLD, w->reader >= 0 ? 0 : MPI_UNDEFINED,
					      t->rank, &w->comm));
	if (rc != 0)
		goto out;
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
	if (rc == 0 && s->pilot) /* plan --pilot: the first files of the share, as read */
		plan_share_sample(&w->sh, plan_pilot_limit(s->pilot_files, w->readers,
							   s->pattern == CFG_PATTERN_SHARED));
out:
	return rc;
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

/* How much of this rank's share is in the page cache now; many files are sampled. NaN when the
 * kernel would not tell for a file: a part told would pass for the whole. */
static int phase_residency(const struct phase_spec *s, const struct phase_work *w,
			   double *fraction, struct pf_err *e)
{
	char path[PHASE_PATH];
	uint64_t step = w->sh.n > PHASE_RESIDENCY_SAMPLES ? w->sh.n / PHASE_RESIDENCY_SAMPLES : 1;
	uint64_t probed = 0, resident = 0;
	for (uint64_t i = 0; i < w->sh.n; i += step) {
		uint64_t r;
		if (phase_path(s, w, i, path, sizeof path, e) != 0)
			return -1;
		int rc = cache_resident(path, w->sh.offset[i], w->sh.length[i], s->x->noatime, &r, e);
		if (rc < 0)
			return -1;
		if (rc == CACHE_UNTOLD) {
			*fraction = NAN;
			return 0;
		}
		probed += w->sh.length[i];
		resident += r;
	}
	*fraction = probed ? (double)resident / (double)probed : 0;
	return 0;
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
 * all ranks. what: the step, as the guard names it. */
static int phase_agree(const struct phase_spec *s, const struct topology *t, double opened,
		       int status, int noatime, const char *what, struct phase_output *o,
		       struct pf_err *e)
{
	int rc = 0, worst = 0, all_noatime = 0;
	double base, latest, first = o->nfiles ? o->me.start : 1e300, last = o->nfiles ? o->me.end : -1e300;
	double resident[2] = {o->me.resident_fraction * (double)o->me.bytes, (double)o->me.bytes};
	uint64_t bytes = 0;
	MPI_Request q[8];
	/* one reduction per figure, all in flight at once */
	const struct { const void *in; void *out; int n; MPI_Datatype type; MPI_Op op; } sum[8] = {
		{&opened, &base, 1, MPI_DOUBLE, MPI_MIN},
		{&opened, &latest, 1, MPI_DOUBLE, MPI_MAX},
		{MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MIN},
		{MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX},
		{&o->me.bytes, &bytes, 1, MPI_UINT64_T, MPI_SUM},
		{&status, &worst, 1, MPI_INT, MPI_MAX},
		{&noatime, &all_noatime, 1, MPI_INT, MPI_MIN},
		{MPI_IN_PLACE, resident, 2, MPI_DOUBLE, MPI_SUM},
	};
	for (int i = 0; i < 8 && rc == 0; i++)
		rc = phase_mpi(s, e, "MPI_Iallreduce",
			       MPI_Iallreduce(sum[i].in, sum[i].out, sum[i].n, sum[i].type, sum[i].op,
					      MPI_COMM_WORLD, &q[i]));
	if (rc != 0)
		goto out;
	if (guard_wait(s->guard, t, MPI_COMM_WORLD, q, 8, guard_wait_s(s->x->phase_timeout), what,
		       e) != 0)
		return -1;
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
	o->info.origin_s = base;
	o->info.clock_bound_s = phase_clock_bound(t);
	o->info.bytes = bytes;
	o->info.noatime = all_noatime;
	o->info.resident_fraction = resident[1] > 0 ? resident[0] / resident[1] : 0;
	snprintf(o->info.cache_state, sizeof o->info.cache_state, "%s",
		 cache_state_name(cache_state_of(o->info.resident_fraction)));
	o->info.elapsed_s = last > first ? last - first : 0;
	o->info.bandwidth_MBps = o->info.elapsed_s > 0 ? (double)bytes / o->info.elapsed_s / 1e6 : 0;
	o->info.status = worst;
	phase_flags(&o->info);
	if (s->pilot) { /* the sample's files (a shared file counts once), and the mark */
		uint64_t mine = o->nfiles, all = 0;
		rc = phase_mpi(s, e, "MPI_Iallreduce",
			       MPI_Iallreduce(&mine, &all, 1, MPI_UINT64_T,
					      s->pattern == CFG_PATTERN_SHARED ? MPI_MAX : MPI_SUM,
					      MPI_COMM_WORLD, &q[0]));
		if (rc != 0)
			goto out;
		if (guard_wait(s->guard, t, MPI_COMM_WORLD, q, 1,
			       guard_wait_s(s->x->phase_timeout), "counting the pilot's files",
			       e) != 0)
			return -1;
		o->info.nfiles = all;
		size_t used = strlen(o->info.flags);
		snprintf(o->info.flags + used, sizeof o->info.flags - used, "%spilot",
			 used ? "," : "");
	}
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

/* After the probe of a node whose cache was dropped: the probe's opens looked up the names and
 * attributes of the files it sampled (every file of a share of up to PHASE_RESIDENCY_SAMPLES),
 * which the timed opens would then find cached. Dropped again, every file is opened as on a
 * node that never saw it, whatever the share's size. The node's ranks all probe first, failed
 * or not. rc: what the preparation came to so far. 0, or -1 with the message in e. */
static int phase_forget_names(const struct phase_spec *s, const struct topology *t, int rc,
			      struct pf_err *e)
{
	if (guard_barrier(s->guard, t, t->node_comm, guard_wait_s(2 * s->x->phase_timeout),
			  "the node's barrier after the cache probe", e) != 0 ||
	    phase_lost(s))
		return -1;
	if (rc != 0)
		return rc;
	return t->local_rank == 0 ? cache_drop_names_node(e) : 0;
}

/* Outside the timed region: plan, allocate, prepare the cache, probe it, set the backend up.
 * what: the node's barrier between, as the guard names it. */
static int phase_prepare(const struct phase_spec *s, const struct topology *t,
			 struct phase_work *w, struct phase_output *o, struct phase_run_ctx *c,
			 const char *what, struct pf_err *e)
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
	if (guard_barrier(s->guard, t, t->node_comm, guard_wait_s(2 * s->x->phase_timeout), what,
			  e) != 0)
		rc = -1;
	if (phase_lost(s))
		return -1;
	if (rc == 0)
		rc = phase_residency(s, w, &o->me.resident_fraction, e);
	if (phase_cache_action(s, t) == CFG_CACHE_DROP && phase_forget_names(s, t, rc, e) != 0)
		rc = -1;
	/* a backend's phase state: always, but a pipeline's only where it reads the share */
	if (rc == 0 && s->be->setup != NULL && w->sh.n > 0 &&
	    (phase_pipelined(s) || s->be->read_share == NULL)) {
		int src = s->be->setup(s->x, s->io_size, &w->backend_state);
		if (src != 0)
			rc = pf_fail_errno(e, src, "phase %u: %s backend setup", s->index, s->be->name);
	}
	return rc;
}

struct phase_tick { const struct phase_spec *s; const struct phase_run_ctx *c; };

/* While a rank waits at the closing barrier it keeps taking part in the progress sums. */
static void phase_tick(void *arg)
{
	const struct phase_tick *k = arg;
	progress_tick(k->s->progress, k->c->done_bytes, k->c->files_done);
}

/* The closing barrier, waited for with naps that grow (GUARD_NAP_IDLE_S: its exit is not
 * timed): ranks that are done (or never read) leave the cores to the readers still at work
 * and to a file system client's threads, which matters when ranks outnumber cores. With a
 * time limit every rank should be here the grace (guard_wait_s) after the limit counted from
 * the opening barrier (the reading ones were woken by their timer at the limit): past that a
 * rank is stuck where no signal reaches it, or stopped, and is named (guard.h) at what. */
static int phase_close_barrier(const struct phase_spec *s, const struct topology *t,
			       const struct phase_run_ctx *c, double opened, const char *what,
			       struct pf_err *e)
{
	struct phase_tick k = {s, c};
	double limit = s->x->phase_timeout, wait = 0;
	if (limit > 0) {
		wait = opened + guard_wait_s(limit) - phase_now(c);
		if (wait < GUARD_GRACE_S)
			wait = GUARD_GRACE_S;
	}
	if (s->guard != NULL) {
		s->guard->tick = phase_tick;
		s->guard->tick_arg = &k;
		s->guard->nap_max_s = GUARD_NAP_IDLE_S;
	}
	int rc = guard_barrier(s->guard, t, MPI_COMM_WORLD, wait, what, e);
	if (s->guard != NULL) {
		s->guard->tick = NULL;
		s->guard->nap_max_s = 0;
	}
	return rc;
}

/* A phase given up at a step after its reads: what this rank knows of it, for the reporter
 * to record (times from its own opening barrier exit, its own bytes), marked timeout and
 * "lost" (some ranks' rows are missing). */
static void phase_lost_output(const struct topology *t, double opened, struct phase_output *o)
{
	for (uint64_t i = 0; i < o->nfiles; i++) {
		o->files[i].open_start -= opened;
		o->files[i].open_end -= opened;
		o->files[i].read_end -= opened;
		o->files[i].close_end -= opened;
		o->files[i].target = 0; /* "not looked up": the table was never merged */
	}
	if (o->nfiles > 0) {
		o->me.start -= opened;
		o->me.end -= opened;
	}
	o->me.clock_offset_s = t->rank_offset_s[t->rank];
	o->me.clock_error_s = t->rank_error_s[t->rank];
	o->info.clock_bound_s = phase_clock_bound(t);
	o->info.origin_s = opened;
	o->info.resident_fraction = o->me.resident_fraction;
	snprintf(o->info.cache_state, sizeof o->info.cache_state, "%s",
		 cache_state_name(cache_state_of(o->info.resident_fraction)));
	o->info.bytes = o->me.bytes;
	o->info.elapsed_s = o->me.end > o->me.start ? o->me.end - o->me.start : 0;
	o->info.bandwidth_MBps = 0; /* the missing ranks' bytes are unknown */
	o->info.status = PHASE_TIMEOUT;
	snprintf(o->info.flags, sizeof o->info.flags, "lost");
}

/* One phase as its steps (phase_steps) see it. */
struct phase_job {
	const struct phase_spec *s;
	const struct topology *t;
	struct phase_output *o;
	size_t buflen;
	struct phase_work w;
	struct phase_run_ctx c;
	struct prov_sample before; /* the provenance counters before the opening barrier */
	double opened;            /* this rank's exit from the opening barrier, phase clock */
	int read;                 /* the timed part is over */
	int summed;               /* this rank's figures are summed (phase_sum_rank) */
	int earlier;              /* the run's message names an earlier failure */
	int rc;                   /* the agreed outcome: 0, or -1 when the phase failed */
	struct pf_err *e;
};

/* A step of the phase: 0 to go on, -1 when a collective step failed and the phase ends (e
 * says why). A failure of this rank alone marks c.status and the phase goes on, so that every
 * rank meets every collective call. stage: see phase_steps. */
struct phase_step {
	const char *stage;
	int (*run)(struct phase_job *j, const char *stage);
};

static void phase_job_init(struct phase_job *j, const struct phase_spec *s,
			   const struct topology *t, void *buf, size_t buflen,
			   struct phase_output *o, struct pf_err *e)
{
	*j = (struct phase_job){.s = s, .t = t, .o = o, .buflen = buflen, .e = e,
				.w = {.comm = MPI_COMM_NULL}, .earlier = e->status != PF_OK};
	char *at = (char *)buf + backend_buffer_offset(s->be, s->x); /* where reads land */
	j->c = (struct phase_run_ctx){.s = s, .t = t, .w = &j->w, .buf = at, .paused = 0,
				      .noatime = s->x->noatime, .status = PHASE_COMPLETE, .e = e,
				      .process_on = cfg_processes(s->x), .digesting = UINT64_MAX,
				      .ns_per_byte = s->x->process_cpu_ns_per_byte};
	dataset_content_init(&j->c.content, s->ds);
	memset(o, 0, sizeof *o);
	phase_fill_info(s, t, &o->info);
	o->me.rank = t->rank;
	o->me.node = t->node;
	o->me.active = plan_reader_index(&t->map, t->rank, s->readers_per_node) >= 0;
}

static void phase_job_free(struct phase_job *j)
{
	if (j->w.backend_state != NULL) /* set up before a barrier that failed */
		j->s->be->teardown(j->w.backend_state);
	digest_close(&j->c.dg);
	free(j->c.want);
	phase_free_work(&j->w);
}

/* Outside the timed region: the read buffer checked, the phase prepared (stage: the node's
 * barrier in it), the provenance counters read. */
static int phase_step_prepare(struct phase_job *j, const char *stage)
{
	const struct phase_spec *s = j->s;
	if (j->buflen < s->io_size || s->io_size > s->transfer_size) {
		pf_fail(j->e, PF_RUNTIME, "phase %u: buffer smaller than a read", s->index);
		j->c.status = PHASE_FAILED;
	} else if (phase_prepare(s, j->t, &j->w, j->o, &j->c, stage, j->e) != 0) {
		j->c.status = PHASE_FAILED;
	}
	j->c.bo = (struct bopen){s->ds->file_size, s->x->noatime, /* size: set per item */
				 j->w.collective ? j->w.comm : MPI_COMM_SELF, s->x, s->advice,
				 j->w.backend_state};
	if (s->prov != NULL)
		prov_sample(s->prov, &j->before); /* outside the timed region, as after is */
	return 0;
}

/* The preparation may take as long as a phase: twice the limit before a rank is blamed. */
static int phase_step_open(struct phase_job *j, const char *stage)
{
	if (guard_barrier(j->s->guard, j->t, MPI_COMM_WORLD,
			  guard_wait_s(2 * j->s->x->phase_timeout), stage, j->e) != 0)
		return -1;
	j->opened = phase_now(&j->c);
	return 0;
}

/* The timed part: this rank's share, under the phase's time limit. */
static int phase_step_read(struct phase_job *j, const char *stage)
{
	const struct phase_spec *s = j->s;
	struct phase_run_ctx *c = &j->c;
	(void)stage;
	if (stop_arm(s->x->phase_timeout) != 0 && c->status == PHASE_COMPLETE) {
		pf_fail_errno(j->e, errno, "phase %u: cannot start the phase timer", s->index);
		c->status = PHASE_FAILED;
	}
	if (c->status == PHASE_COMPLETE && phase_read_share(c, j->o) != 0 &&
	    c->status == PHASE_COMPLETE)
		c->status = PHASE_FAILED;
	if (stop_arm(0) != 0 && c->status == PHASE_COMPLETE) {
		pf_fail_errno(j->e, errno, "phase %u: cannot stop the phase timer", s->index);
		c->status = PHASE_FAILED;
	}
	j->read = 1;
	return 0;
}

static int phase_step_close(struct phase_job *j, const char *stage)
{
	return phase_close_barrier(j->s, j->t, &j->c, j->opened, stage, j->e) != 0 ? -1 : 0;
}

/* After the closing barrier, this rank alone (phase_tally). */
static int phase_step_tally(struct phase_job *j, const char *stage)
{
	(void)stage;
	phase_tally(j->s, &j->w, &j->c, &j->before, j->o, j->earlier);
	j->summed = 1;
	return 0;
}

/* The outcome agreed by all ranks; a failed phase goes on to the targets' table all the same. */
static int phase_step_agree(struct phase_job *j, const char *stage)
{
	j->rc = phase_agree(j->s, j->t, j->opened, j->c.status, j->c.noatime, stage, j->o, j->e);
	return 0;
}

/* One table of storage targets for all ranks; a failure leaves every row "not looked up",
 * never the run. */
static int phase_step_targets(struct phase_job *j, const char *stage)
{
	struct phase_output *o = j->o;
	(void)stage;
	if (target_merge(j->s->targets, o->files, o->nfiles, MPI_COMM_WORLD, &o->targets) != 0 &&
	    j->t->rank == 0)
		fprintf(stderr, "pfsread: phase %u: the storage targets were not gathered (MPI or "
			"memory); the rows say \"%s\"\n", j->s->index, RECORD_TARGET_NONE);
	return 0;
}

/* A step was given up (guard.h): no collective call can complete any more. The reporter
 * records what this rank knows: what it read (phase_lost_output), or before the reads
 * nothing. Freeing a communicator is a collective call: it is left to the abort that follows. */
static void phase_give_up(struct phase_job *j)
{
	struct phase_output *o = j->o;
	if (j->read && !j->summed)
		phase_sum_rank(o);
	if (j->read) {
		phase_lost_output(j->t, j->opened, o);
	} else {
		o->info.status = PHASE_TIMEOUT;
		snprintf(o->info.flags, sizeof o->info.flags, "lost");
	}
	j->w.comm = MPI_COMM_NULL;
}

/* The phase in order. stage: what the guard names when a rank does not arrive at the step's
 * collective call; NULL for a step of this rank alone. */
static const struct phase_step phase_steps[] = {
	{"the node's barrier before the cache probe", phase_step_prepare},
	{"the opening barrier", phase_step_open},
	{NULL, phase_step_read},
	{"the closing barrier", phase_step_close},
	{NULL, phase_step_tally},
	{"agreeing on the phase's outcome", phase_step_agree},
	{NULL, phase_step_targets},
};

int phase_run(const struct phase_spec *s, const struct topology *t, void *buf, size_t buflen,
	      struct phase_output *o, struct pf_err *e)
{
	struct phase_job j;
	int rc = 0;
	phase_job_init(&j, s, t, buf, buflen, o, e);
	for (size_t k = 0; rc == 0 && k < sizeof phase_steps / sizeof phase_steps[0]; k++) {
		rc = phase_steps[k].run(&j, phase_steps[k].stage);
		if (phase_lost(s)) {
			phase_give_up(&j);
			rc = -1;
		} else if (rc != 0) {
			o->info.status = PHASE_FAILED; /* a collective step failed: no agreed outcome */
		}
	}
	phase_job_free(&j);
	return rc != 0 ? rc : j.rc;
}

void phase_output_free(struct phase_output *o)
{
	if (o == NULL)
		return;
	free(o->files);
	o->files = NULL;
	o->nfiles = 0;
	target_table_free(&o->targets);
}
