/* run_phases: the run command's phases, in plan order, each a turn of steps from "may it
 * start" to "what the run does after it"; the read buffer and each phase's spec. */
#include "cmd/run_steps.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset/dataset.h"
#include "report/report.h"
#include "run/backend.h"
#include "run/cache.h"
#include "run/envinfo.h"
#include "util/iobuf.h"
#include "util/stop.h"

#define RUN_ATIME_LEN 16 /* "strictatime" and a NUL */

/* What every phase of the run reads with: the read buffer, and per data set its mount's atime
 * mode and its largest file. */
struct run_bufs {
	char (*atime_mode)[RUN_ATIME_LEN];
	uint64_t *largest;
	void *buf;
	size_t buflen;
};

/* One phase's turn, as its steps (run_turn_steps) see it. */
struct run_turn {
	const struct experiment *x;
	struct topology *t;
	const struct run_prov *prov;
	struct results **rp;
	struct run_limits *L;
	const struct run_bufs *b;
	enum run_status *status;  /* the run's, for the file */
	struct pf_err *e;
	uint64_t i, n;            /* the phase, of the plan's n */
	struct phase_spec s;
	struct phase_output out;
	int have_out;             /* out holds phase_run's output: freed when the turn ends */
	double t_start;
	struct pf_err werr;       /* the results write's failure */
	int rc;                   /* 0, or -1: the phase failed (the run may go on) */
};

/* A step of a turn: 0 to go on to the next, 1 when the run stops after it. stage: see
 * run_turn_steps. */
struct run_turn_step {
	const char *stage;
	int (*run)(struct run_turn *u, const char *stage);
};

/* largest: each data set's largest file (dataset_largest_file). */
static void run_phase_spec(const struct experiment *x, uint64_t index, const struct run_bufs *b,
			   const struct run_prov *prov, struct phase_spec *s)
{
	struct plan_point p;
	plan_phase_at(x, index, &p);
	s->point = p;
	s->pattern = x->patterns[p.at[SWEEP_PATTERN]];
	s->decomp = x->decomps[p.at[SWEEP_DECOMP]];
	s->shift_use = x->cache == CFG_CACHE_SHIFT ? plan_dataset_use(x, index) : 0;
	s->atime_mode = b->atime_mode[p.dataset];
	s->prov = &prov->src[p.dataset];
	s->provenance = prov->desc[p.dataset];
	s->targets = prov->tg;
	s->target_set = p.dataset;
	s->x = x;
	s->ds = &x->datasets[p.dataset];
	s->be = backend_find(x->backends[p.at[SWEEP_BACKEND]]);
	s->readers_per_node = x->readers_per_node[p.at[SWEEP_READERS]];
	s->transfer_size = x->transfer_sizes[p.at[SWEEP_TRANSFER]];
	s->io_size = b->largest[p.dataset] < s->transfer_size ? b->largest[p.dataset]
							       : s->transfer_size;
	if (s->io_size == 0)
		s->io_size = 1; /* empty files: a backend's buffers still need a size */
	s->order = x->orders[p.at[SWEEP_ORDER]];
	s->advice = backend_advice(s->be, x, x->advices[p.at[SWEEP_ADVICE]]);
	s->repetition = p.repetition;
	s->index = (uint32_t)index;
}

/* The read buffer's size: the most one read of any phase moves, min(transfer size, largest
 * file of its data set) (a 1 GiB transfer over 4 KiB files needs 4 KiB, not 1 GiB). Every
 * transfer size goes with every data set in the sweep. largest gets each data set's. */
static uint64_t run_max_read(const struct experiment *x, uint64_t *largest)
{
	uint64_t most = 0;
	for (size_t d = 0; d < x->ndatasets; d++) {
		largest[d] = dataset_largest_file(&x->datasets[d]);
		for (size_t i = 0; i < x->ntransfers; i++) {
			uint64_t t = x->transfer_sizes[i] < largest[d] ? x->transfer_sizes[i]
								      : largest[d];
			most = t > most ? t : most;
		}
	}
	return most > 0 ? most : 1;
}

/* Each data set's mount atime mode, from rank 0: the root's, or an in-place tree's own
 * (another mount, maybe). mode has RUN_ATIME_LEN bytes per data set. */
static int run_atime_mode(const struct experiment *x, const struct topology *t,
			  char (*mode)[RUN_ATIME_LEN], struct pf_err *e)
{
	struct pf_err ignored = {0};
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		struct mount_info m;
		snprintf(mode[i], RUN_ATIME_LEN, "unknown");
		if (t->rank == 0 && envinfo_mount(d->in_place ? d->from_tree : x->root, &m,
						  &ignored) == 0)
			snprintf(mode[i], RUN_ATIME_LEN, "%s", m.atime_mode);
	}
	if (MPI_Bcast(mode, (int)(x->ndatasets * RUN_ATIME_LEN), MPI_CHAR, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	return 0;
}

static void run_bufs_free(struct run_bufs *b)
{
	free(b->buf);
	free(b->atime_mode);
	free(b->largest);
	memset(b, 0, sizeof *b);
}

/* Collective: the read buffer, with room for an O_DIRECT tail read rounded up (see
 * BACKEND_BUF_ALIGN), and the data sets' atime modes. The config keeps transfers to
 * CFG_TRANSFER_MAX; the sum is checked all the same, since a wrapped size would be a buffer
 * smaller than a read. 0, or -1 with e set and nothing held. */
static int run_bufs_alloc(const struct experiment *x, const struct topology *t,
			  struct run_bufs *b, struct pf_err *e)
{
	memset(b, 0, sizeof *b);
	b->atime_mode = calloc(x->ndatasets, RUN_ATIME_LEN);
	b->largest = calloc(x->ndatasets ? x->ndatasets : 1, sizeof *b->largest);
	if (b->atime_mode == NULL || b->largest == NULL) {
		run_bufs_free(b);
		return pf_fail(e, PF_RUNTIME, "run: out of memory");
	}
	uint64_t most = run_max_read(x, b->largest);
	int rc = 0;
	b->buflen = (size_t)most;
	if (most > CFG_TRANSFER_MAX || most > SIZE_MAX - 2 * BACKEND_BUF_ALIGN)
		rc = pf_fail(e, PF_USAGE, "run: a transfer size of %llu B cannot be allocated",
			     (unsigned long long)most);
	size_t alloc = (b->buflen + BACKEND_BUF_ALIGN - 1) / BACKEND_BUF_ALIGN * BACKEND_BUF_ALIGN +
		       BACKEND_BUF_ALIGN;
	if (rc == 0)
		rc = run_atime_mode(x, t, b->atime_mode, e);
	if (rc == 0 && (rc = iobuf_alloc(alloc, &b->buf)) != 0)
		rc = pf_fail_errno(e, -rc, "run: cannot allocate a %zu-byte buffer", b->buflen);
	if (rc != 0)
		run_bufs_free(b);
	return rc;
}

/* Rank 0, after each phase: one line, and a warning when the cache served the reads. */
static void run_print_phase(const struct experiment *x, const struct phase_info *p, uint64_t i,
			    uint64_t n)
{
	printf("[%llu/%llu] ", (unsigned long long)i + 1, (unsigned long long)n);
	report_phase_line(stdout, p);
	enum cache_state state = cache_state_of(p->resident_fraction);
	if (state == CACHE_UNKNOWN)
		printf("  warning: cache state unknown: the kernel says what of a file is in the "
		       "page cache only to its owner, root or a user who may write it\n");
	else if (x->cache != CFG_CACHE_NONE && state != CACHE_COLD)
		printf("  warning: %.0f%% of the phase's bytes were in the page cache before it "
		       "started: this measures memory, not storage\n",
		       p->resident_fraction * 100);
	if (strstr(p->flags, "clock") != NULL)
		printf("  warning: the ranks left the opening barrier %.3g s apart, more than their "
		       "clocks allow (%.3g s): a rank's clock disagrees, the times are in doubt\n",
		       p->start_skew_s, p->clock_bound_s);
	fflush(stdout);
}

/* Whether phase i starts (the budget, SIGUSR1); a run stopped before it is partial (earlier
 * failed phases keep their own status). */
static int run_turn_may_start(struct run_turn *u, const char *stage)
{
	struct run_limits *L = u->L;
	snprintf(L->guard.where, sizeof L->guard.where, "phase %llu", (unsigned long long)u->i);
	int go = run_may_start(u->x, u->t, L, u->i, stage, u->e);
	if (L->guard.lost) {
		run_lost(u->x, u->t, &L->guard, u->rp, NULL, u->e);
		u->rc = -1;
		return 1;
	}
	if (go > 0)
		return 0;
	u->rc = go;
	if (go == 0)
		*u->status = RUN_PARTIAL;
	return 1;
}

/* The phase's spec and its progress label. */
static int run_turn_describe(struct run_turn *u, const char *stage)
{
	(void)stage;
	u->t_start = MPI_Wtime();
	run_phase_spec(u->x, u->i, u->b, u->prov, &u->s);
	u->s.progress = &u->L->progress;
	u->s.pilot = u->L->pilot;
	u->s.pilot_files = u->L->pilot_files;
	u->s.guard = &u->L->guard;
	run_progress_begin(u->x, u->L, &u->s, u->i, u->n);
	return 0;
}

static int run_turn_resync(struct run_turn *u, const char *stage)
{
	if (run_resync_clocks(u->x, u->t, &u->L->guard, stage, u->e) == 0)
		return 0;
	if (u->L->guard.lost)
		run_lost(u->x, u->t, &u->L->guard, u->rp, NULL, u->e);
	u->rc = -1;
	return 1;
}

/* The phase itself (phase_run names its own stages). */
static int run_turn_read(struct run_turn *u, const char *stage)
{
	(void)stage;
	u->rc = phase_run(&u->s, u->t, u->b->buf, u->b->buflen, &u->out, u->e);
	u->have_out = 1;
	return 0;
}

/* Every rank here before the results write (progress_end's sum too). */
static int run_turn_settle(struct run_turn *u, const char *stage)
{
	struct run_limits *L = u->L;
	if (!L->guard.lost && u->e->status != PF_HUNG)
		(void)guard_barrier(&L->guard, u->t, MPI_COMM_WORLD,
				    guard_wait_s(u->x->phase_timeout), stage, u->e);
	if (L->guard.lost) {
		run_lost(u->x, u->t, &L->guard, u->rp, &u->out, u->e);
		u->rc = -1;
		return 1;
	}
	return u->e->status == PF_HUNG; /* nothing collective can be done any more */
}

static int run_turn_progress_end(struct run_turn *u, const char *stage)
{
	(void)stage;
	if (progress_end(&u->L->progress) == 0)
		return 0;
	u->rc = pf_fail(u->e, PF_RUNTIME, "run: the progress sums failed (MPI)");
	return 1;
}

/* The phase into the results file, under the watchdog; a run whose file cannot be written
 * any more ends (main aborts). */
static int run_turn_write(struct run_turn *u, const char *stage)
{
	struct run_limits *L = u->L;
	run_watchdog(u->x, u->t, &L->words, L->guard.where, L->written, stage);
	int wrc = results_write_phase(*u->rp, &u->out.info, &u->out.me, u->out.files,
				      u->out.nfiles, &u->out.targets, &u->werr);
	if (run_watchdog_end() != 0 && wrc == 0)
		wrc = pf_fail_errno(&u->werr, errno, "run: cannot stop the watchdog");
	if (wrc == 0)
		L->written++;
	if (wrc != 0) {
		if (u->werr.status == PF_HUNG)
			pf_fail_lost(u->e, "%s", u->werr.msg);
		else
			pf_fail(u->e, u->werr.status, "%s", u->werr.msg);
		u->rc = -1;
	}
	return u->e->status == PF_HUNG;
}

/* Rank 0: the phase's line, and its time as a base of the budget's estimates. */
static int run_turn_account(struct run_turn *u, const char *stage)
{
	struct run_limits *L = u->L;
	const struct phase_spec *s = &u->s;
	(void)stage;
	if (u->t->rank != 0)
		return 0;
	run_print_phase(u->x, &u->out.info, u->i, u->n);
	L->done[L->ndone++] = (struct budget_phase){
		s->point.dataset, s->pilot ? u->out.info.bytes : s->ds->total_size,
		s->pilot ? u->out.info.nfiles : s->ds->nfiles, MPI_Wtime() - u->t_start};
	L->bytes_done += s->ds->total_size;
	L->wall_done += MPI_Wtime() - u->t_start;
	return 0;
}

/* A phase stopped by its time limit or a signal, or one the file did not take, ends the run;
 * a failed one is kept, marked, and the run goes on. */
static int run_turn_verdict(struct run_turn *u, const char *stage)
{
	int ended = u->out.info.status == PHASE_TIMEOUT ||
		    u->out.info.status == PHASE_INTERRUPTED;
	(void)stage;
	if (u->rc != 0 && ended && u->werr.status == PF_OK)
		*u->status = u->out.info.status == PHASE_TIMEOUT ? RUN_TIMEOUT : RUN_INTERRUPTED;
	else if (u->rc != 0)
		*u->status = RUN_FAILED;
	return ended || u->werr.status != PF_OK;
}

/* A phase's turn, in order. stage: what the guard (or the results write's watchdog) names
 * when a rank does not arrive at the step's collective call; NULL for a step of this rank
 * alone, or one that names its own (phase_run). */
static const struct run_turn_step run_turn_steps[] = {
	{"agreeing to start the phase", run_turn_may_start},
	{NULL, run_turn_describe},
	{"the clock synchronisation", run_turn_resync},
	{NULL, run_turn_read},
	{"before writing the phase to the results file", run_turn_settle},
	{NULL, run_turn_progress_end},
	{"writing a phase to the results file", run_turn_write},
	{NULL, run_turn_account},
	{NULL, run_turn_verdict},
};

/* Phase u->i's turn: 1 when the run stops after it. */
static int run_turn(struct run_turn *u)
{
	int end = 0;
	for (size_t k = 0; !end && k < sizeof run_turn_steps / sizeof run_turn_steps[0]; k++)
		end = run_turn_steps[k].run(u, run_turn_steps[k].stage);
	if (u->have_out)
		phase_output_free(&u->out);
	return end;
}

int run_phases(const struct experiment *x, struct topology *t, const struct run_prov *prov,
	       struct results **rp, struct run_limits *L, enum run_status *status,
	       struct pf_err *e)
{
	struct run_bufs b;
	int failed = 0, end = 0;
	*status = RUN_FAILED;
	if (run_bufs_alloc(x, t, &b, e) != 0)
		return -1;
	*status = RUN_COMPLETE;
	if (stop_watchdog_arm(0) != 0) {
		run_bufs_free(&b);
		return pf_fail(e, PF_RUNTIME, "run: cannot stop the start-up watchdog");
	}
	uint64_t n = plan_phase_count(x);
	for (uint64_t i = 0; !end && i < n; i++) {
		struct run_turn u = {.x = x, .t = t, .prov = prov, .rp = rp, .L = L, .b = &b,
				     .status = status, .e = e, .i = i, .n = n};
		if (L->prior != NULL && L->prior->kept[i])
			continue; /* measured by an earlier part of the run */
		end = run_turn(&u);
		failed |= u.rc != 0;
	}
	run_bufs_free(&b);
	return failed ? -1 : 0;
}
