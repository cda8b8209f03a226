/* run_steps: the run command's steps around its phases: whether the next phase starts (time
 * budget, SIGUSR1), the clock resynchronisation, the progress label, the results writes'
 * watchdog and what a run does when a rank was lost (guard.h). */
#include "cmd/run_steps.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/stop.h"

/* With a time limit, a results write stuck for twice the limit (at least RUN_WRITE_WAIT_MIN
 * seconds) ends the process: a rank stopped inside a parallel HDF5 call, or a write that
 * failed on one rank without an error (Open MPI's OMPIO drops it) and left the ranks in
 * different collective calls, which no signal interrupts. Rank 0's watchdog first closes the
 * file (run_words); the other ranks' wait RUN_WORDS_WAIT_S longer, so that the launcher does
 * not end rank 0 before (a rank that ends ends the job). Without a time limit there is no
 * deadline (a stalled file system may come back). A watchdog that cannot be armed is only a
 * lost safeguard: not an error. */
void run_watchdog(const struct experiment *x, const struct topology *t, struct run_words *w,
		  const char *where, uint32_t written, const char *what)
{
	double wait = fmax(2 * x->phase_timeout, RUN_WRITE_WAIT_MIN);
	if (x->phase_timeout <= 0)
		return;
	snprintf(w->stage, sizeof w->stage, "%s%s%s", where, where[0] ? ": " : "", what);
	if (t->rank == 0) {
		snprintf(w->phases, sizeof w->phases, "%u", (unsigned)written);
		snprintf(w->why, sizeof w->why, "%s: stuck for %g s (some rank did not finish it)",
			 w->stage, wait);
		char *argv[] = {"/proc/self/exe", RESULTS_MARK_ARG, w->path, "timeout", w->phases,
				w->why, NULL};
		memcpy(w->argv, argv, sizeof argv);
		stop_watchdog_last_words(w->argv);
	} else {
		wait += RUN_WORDS_WAIT_S;
	}
	(void)stop_watchdog_step(wait, w->stage);
}

/* The step is over: no watchdog, no last words. 0 or -1 (errno set). */
int run_watchdog_end(void)
{
	int rc = stop_watchdog_step(0, NULL);
	stop_watchdog_last_words(NULL);
	return rc;
}


/* After a collective step was given up (guard.h: a rank stopped or stuck, named in e): the
 * reporter records the phase out (NULL: between phases, the run only) as timed out through a
 * handle of its own, the other ranks drop theirs, and it tells them when that is done, so
 * that none ends the job before. The reporter's message says where the file stands; the
 * others, once told, say nothing (e's message emptied): one line for the whole loss. */
void run_lost(const struct experiment *x, const struct topology *t, struct guard *g,
	      struct results **r, const struct phase_output *out, struct pf_err *e)
{
	size_t used = strlen(e->msg);
	if (!g->reporter) {
		results_drop(*r);
		*r = NULL;
		/* the reporter may still be waiting at a step of its own, then writing */
		if (guard_settle(g, t, 2 * guard_wait_s(x->phase_timeout) + RUN_WRITE_WAIT_MIN))
			e->msg[0] = '\0';
		return;
	}
	struct phase_info info;
	struct rank_rec me;
	struct pf_err werr = {0};
	char why[sizeof e->msg];
	snprintf(why, sizeof why, "%s", e->msg);
	if (out != NULL) {
		info = out->info;
		me = out->me;
		info.status = PHASE_TIMEOUT;
		snprintf(info.flags, sizeof info.flags, "lost");
		/* the other ranks' rows are not known (zero): nor is the spread of the opening
		 * barrier's exits, written 0 as theirs */
		info.start_skew_s = 0;
		me.barrier_s = 0;
	}
	int rc = *r == NULL ? 0
		 : results_record_lost(*r, out != NULL ? &info : NULL,
				       out != NULL ? &me : NULL, out != NULL ? out->files : NULL,
				       out != NULL ? out->nfiles : 0,
				       out != NULL ? &out->targets : NULL, t->map.node_of_rank,
				       results_run_status_name(RUN_TIMEOUT), why, &werr);
	if (*r != NULL && used < sizeof e->msg)
		snprintf(e->msg + used, sizeof e->msg - used, rc == 0
			 ? "; the results file is closed, status timeout%s"
			 : "; the results file could not be closed: %s",
			 rc == 0 ? (out != NULL ? ", the phase marked timeout" : "") : werr.msg);
	*r = NULL;
	(void)guard_settle(g, t, 0);
}

/* Clocks drift apart (tens of ppm without NTP: tens of milliseconds an hour), so a long study
 * measures the offsets again, between phases, once RUN_CLOCK_RESYNC_S have passed. Rank 0
 * decides, so that all ranks enter the collective together. */
int run_resync_clocks(const struct experiment *x, struct topology *t, struct guard *g,
		      const char *what, struct pf_err *e)
{
	MPI_Request q;
	int again = t->rank == 0 && topology_clock() - t->synced_at > RUN_CLOCK_RESYNC_S;
	if (MPI_Ibcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD, &q) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Ibcast failed");
	if (guard_wait(g, t, MPI_COMM_WORLD, &q, 1, guard_wait_s(x->phase_timeout), what, e) != 0)
		return -1;
	return again ? topology_sync_clocks(t, e) : 0;
}


/* Before phase i: its progress label and what the study has left after it. */
void run_progress_begin(const struct experiment *x, struct run_limits *L,
			const struct phase_spec *s, uint64_t i, uint64_t n)
{
	char label[sizeof L->progress.label + 160];
	uint64_t after = 0;
	for (uint64_t k = i + 1; k < n; k++) {
		struct plan_point p;
		if (L->prior != NULL && L->prior->kept[k])
			continue;
		plan_phase_at(x, k, &p);
		after += x->datasets[p.dataset].total_size;
	}
	snprintf(label, sizeof label, "phase %llu/%llu %s x %d r/node",
		 (unsigned long long)i + 1, (unsigned long long)n, s->ds->name, s->readers_per_node);
	L->progress.after_bytes = after;
	L->progress.study_rate = L->wall_done > 0 ? (double)L->bytes_done / L->wall_done : 0;
	progress_begin(&L->progress, label, s->ds->total_size, s->ds->nfiles);
}

/* Rank 0: the phases a resumed file keeps are the first base of the estimates. Their
 * elapsed_s leaves out the phase's setup and write: a little optimistic at first. */
void run_limits_seed(const struct experiment *x, struct run_limits *L)
{
	for (uint64_t i = 0; L->prior != NULL && i < L->prior->nphases; i++) {
		struct plan_point p;
		if (!L->prior->kept[i])
			continue;
		plan_phase_at(x, i, &p);
		L->done[L->ndone++] = (struct budget_phase){p.dataset, x->datasets[p.dataset].total_size,
							    x->datasets[p.dataset].nfiles,
							    L->prior->elapsed_s[i]};
	}
}

/* Collective, between phases: 1 when phase i may start, 0 when the run stops before it (the
 * budget says it cannot end in time, or SIGUSR1 came), -1 on an MPI failure. */
int run_may_start(const struct experiment *x, const struct topology *t, struct run_limits *L,
		  uint64_t i, const char *what, struct pf_err *e)
{
	int why = stop_wrap_up() ? RUN_STOP_WRAP_UP : RUN_GOES_ON, agreed = RUN_GOES_ON;
	if (t->rank == 0 && L->budget_s > 0 && why == RUN_GOES_ON) {
		struct plan_point p;
		plan_phase_at(x, i, &p);
		const struct cfg_dataset *d = &x->datasets[p.dataset];
		double used = MPI_Wtime() - L->t0;
		double est = budget_estimate(L->done, L->ndone, p.dataset, d->total_size, d->nfiles);
		if (!budget_allows(L->budget_s, used, est)) {
			why = RUN_STOP_BUDGET;
			char need[48] = "no time measured yet";
			if (est >= 0)
				snprintf(need, sizeof need, "needs about %.1f s", est);
			printf("time budget: phase %llu %s, %.1f s are left of %.0f s (margin %.1f "
			       "s): not started\n", (unsigned long long)i, need, L->budget_s - used,
			       L->budget_s, budget_margin(L->budget_s));
		}
	}
	MPI_Request q;
	if (MPI_Iallreduce(&why, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Iallreduce failed");
	if (guard_wait(&L->guard, t, MPI_COMM_WORLD, &q, 1, guard_wait_s(x->phase_timeout), what,
		       e) != 0)
		return -1;
	if (agreed == RUN_GOES_ON)
		return 1;
	L->stopped_at = i;
	L->reason = (enum run_stop)agreed;
	return 0;
}

int run_peers(const struct topology *t, struct run_limits *L)
{
	int me = (int)getpid(), rc = 0;
	int *pid = calloc((size_t)t->nranks, sizeof *pid);
	L->peer_rank = calloc((size_t)t->nranks, sizeof *L->peer_rank);
	L->peer_pid = calloc((size_t)t->nranks, sizeof *L->peer_pid);
	L->npeers = 0;
	if (pid == NULL || L->peer_rank == NULL || L->peer_pid == NULL ||
	    MPI_Allgather(&me, 1, MPI_INT, pid, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = -1;
	for (int r = 0; rc == 0 && r < t->nranks; r++)
		if (r != t->rank && t->map.node_of_rank[r] == t->node) {
			L->peer_rank[L->npeers] = r;
			L->peer_pid[L->npeers++] = pid[r];
		}
	free(pid);
	if (rc == 0)
		stop_watchdog_peers(L->peer_rank, L->peer_pid, L->npeers);
	return rc;
}

void run_peers_free(struct run_limits *L)
{
	if (L == NULL)
		return;
	stop_watchdog_peers(NULL, NULL, 0);
	free(L->peer_rank);
	free(L->peer_pid);
	L->peer_rank = L->peer_pid = NULL;
	L->npeers = 0;
}
