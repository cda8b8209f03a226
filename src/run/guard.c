/* guard: nonblocking collectives polled against a deadline, and the names of the ranks that
 * did not come (guard.h). */
#include "run/guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD_TAG_BASE 4096    /* arrivals: GUARD_TAG_BASE + the step's number */
#define GUARD_TAG_STEPS 4096   /* step numbers wrap here (Open MPI's tag bound is far above) */
#define GUARD_TAG_SETTLED 4095 /* the reporter's word that the loss is recorded */
#define GUARD_NAP_S 0.0002     /* the shortest nap between two tests of a wait */

double guard_wait_s(double phase_timeout)
{
	double grace = phase_timeout * GUARD_GRACE_SHARE;
	if (phase_timeout <= 0)
		return 0;
	return phase_timeout + (grace > GUARD_GRACE_S ? grace : GUARD_GRACE_S);
}

/* The arrivals of one step: comm's rank 0 receives one from every other rank and sends its
 * own to comm's rank 1, which receives it; all other ranks send theirs to rank 0. */
struct guard_arrivals {
	MPI_Request *req;
	int n, rank, size;
};

static int guard_announce(struct guard_arrivals *a, MPI_Comm comm, int tag)
{
	static char none;
	a->n = 0;
	if (MPI_Comm_rank(comm, &a->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &a->size) != MPI_SUCCESS)
		return -1;
	if ((a->req = calloc((size_t)a->size + 1, sizeof *a->req)) == NULL)
		return -1;
	if (a->size < 2)
		return 0;
	if (a->rank == 0) {
		for (int r = 1; r < a->size; r++)
			if (MPI_Irecv(&none, 0, MPI_BYTE, r, tag, comm, &a->req[a->n++]) != MPI_SUCCESS)
				return -1;
		return MPI_Isend(&none, 0, MPI_BYTE, 1, tag, comm, &a->req[a->n++]) == MPI_SUCCESS
			       ? 0 : -1;
	}
	if (MPI_Isend(&none, 0, MPI_BYTE, 0, tag, comm, &a->req[a->n++]) != MPI_SUCCESS)
		return -1;
	if (a->rank == 1 &&
	    MPI_Irecv(&none, 0, MPI_BYTE, 0, tag, comm, &a->req[a->n++]) != MPI_SUCCESS)
		return -1;
	return 0;
}

/* World rank and host of comm's rank r, appended to who. */
static void guard_name(struct guard *g, const struct topology *t, MPI_Comm comm, int r,
		       size_t *used)
{
	MPI_Group mine, world;
	int w = -1;
	if (MPI_Comm_group(comm, &mine) == MPI_SUCCESS) {
		if (MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
			if (MPI_Group_translate_ranks(mine, 1, &r, world, &w) != MPI_SUCCESS)
				w = -1;
			(void)MPI_Group_free(&world);
		}
		(void)MPI_Group_free(&mine);
	}
	if (w < 0 || w >= t->nranks || *used + 1 >= sizeof g->who)
		return;
	int k = snprintf(g->who + *used, sizeof g->who - *used, "%s%d (%s)", *used ? ", " : "",
			 w, t->hostnames[t->map.node_of_rank[w]]);
	*used += k > 0 ? (size_t)k : 0;
	if (*used >= sizeof g->who)
		*used = sizeof g->who - 1;
	if (w == 0 && t->rank == 1)
		g->reporter = 1; /* rank 0 is the one missing: rank 1 records it */
}

/* After the deadline: which ranks' arrivals this rank expected and has not had, each
 * tested once more. Rank 0 hears every rank; rank 1 hears rank 0; the others nobody. */
static void guard_missing(struct guard *g, const struct topology *t, MPI_Comm comm,
			  struct guard_arrivals *a)
{
	size_t used = 0;
	g->who[0] = '\0';
	for (int i = 0; i < a->n; i++) {
		int from = a->rank == 0 ? i + 1 : 0, flag = 1;
		int receiving = a->rank == 0 ? i < a->size - 1 : i == 1;
		if (!receiving)
			continue;
		if (MPI_Test(&a->req[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
			continue;
		guard_name(g, t, comm, from, &used);
	}
}

/* 1 when every request is complete (each tested once in this pass), 0 when not yet, -1 on
 * an MPI error. */
static int guard_test_all(MPI_Request *reqs, int n)
{
	int all = 1;
	for (int i = 0; i < n; i++) {
		int flag = 0;
		if (MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		all &= flag != 0;
	}
	return all;
}

static double guard_clock(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep between two tests of a wait that has lasted waited seconds: 0.2 ms, short enough
 * that a rank leaves a barrier with the others, long enough to leave the cores to the ranks
 * at work; up to g->nap_max_s as the wait grows, where the waiting ranks' exit is not timed
 * (each test of a request drives MPI's progress, tens of microseconds of CPU on TCP). */
static void guard_nap(const struct guard *g, double waited)
{
	double most = g != NULL ? fmax(g->nap_max_s, GUARD_NAP_S) : GUARD_NAP_S;
	double s = fmin(fmax(waited / 8, GUARD_NAP_S), most);
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	nanosleep(&ts, NULL);
}

/* Test the n requests until all are complete or the clock passes deadline; at the deadline
 * they are tested once more, so that a rank that came during the last nap is not blamed.
 * 1 all complete, 0 not, -1 on an MPI error. */
static int guard_poll(const struct guard *g, MPI_Request *reqs, int n, double deadline)
{
	double start = guard_clock(), now = start;
	int done = 0;
	while (done == 0 && now < deadline) {
		done = guard_test_all(reqs, n);
		if (g != NULL && g->tick != NULL)
			g->tick(g->tick_arg);
		if (done == 0)
			guard_nap(g, now - start);
		now = guard_clock();
	}
	if (done == 0)
		done = guard_test_all(reqs, n);
	return done;
}

static int guard_lost(struct guard *g, const struct topology *t, MPI_Comm comm,
		      struct guard_arrivals *a, double wait_s, const char *stage, struct pf_err *e)
{
	g->lost = 1;
	g->stage = stage;
	g->waited_s = wait_s;
	g->reporter = t->rank == 0;
	guard_missing(g, t, comm, a);
	const char *many = strchr(g->who, ',') != NULL ? "s" : "";
	const char *sep = g->where[0] != '\0' ? ": " : "";
	if (g->who[0] != '\0')
		return pf_fail_lost(e, "%s%s%s: rank%s %s did not arrive within %.3g s; giving up",
				    g->where, sep, stage, many, g->who, wait_s);
	return pf_fail_lost(e, "%s%s%s: some rank did not arrive within %.3g s (rank 0 names it); "
			    "giving up", g->where, sep, stage, wait_s);
}

int guard_wait(struct guard *g, const struct topology *t, MPI_Comm comm, MPI_Request *reqs,
	       int n, double wait_s, const char *stage, struct pf_err *e)
{
	struct guard_arrivals a = {NULL, 0, 0, 0};
	int rc = 0, done;
	if (g == NULL) {
		for (int i = 0; i < n; i++)
			if (MPI_Wait(&reqs[i], MPI_STATUS_IGNORE) != MPI_SUCCESS)
				return pf_fail(e, PF_RUNTIME, "%s: MPI_Wait failed", stage);
		return 0;
	}
	if (wait_s <= 0) /* no deadline: naps all the same */
		return guard_poll(g, reqs, n, HUGE_VAL) == 1
			       ? 0 : pf_fail(e, PF_RUNTIME, "%s: MPI_Test failed", stage);
	int tag = GUARD_TAG_BASE + (int)(g->seq++ % GUARD_TAG_STEPS);
	if (guard_announce(&a, comm, tag) != 0) {
		rc = pf_fail(e, PF_RUNTIME, "%s: cannot tell rank 0 of this rank's arrival (MPI or "
			     "memory)", stage);
		goto out;
	}
	/* the step, then the arrivals (announced just after the step was started, so a rank
	 * stopped in between is waited for, and named, all the same) */
	double deadline = guard_clock() + wait_s;
	done = guard_poll(g, reqs, n, deadline);
	if (done == 1)
		done = guard_poll(g, a.req, a.n, deadline);
	if (done < 0)
		rc = pf_fail(e, PF_RUNTIME, "%s: MPI_Test failed", stage);
	else if (done == 0)
		rc = guard_lost(g, t, comm, &a, wait_s, stage, e);
out:
	free(a.req);
	return rc;
}

int guard_barrier(struct guard *g, const struct topology *t, MPI_Comm comm, double wait_s,
		  const char *stage, struct pf_err *e)
{
	MPI_Request req;
	if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "%s: MPI_Ibarrier failed", stage);
	return guard_wait(g, t, comm, &req, 1, wait_s, stage, e);
}

int guard_settle(struct guard *g, const struct topology *t, double wait_s)
{
	static char none;
	MPI_Request req;
	if (g->reporter) {
		for (int r = 0; r < t->nranks; r++)
			if (r != t->rank &&
			    MPI_Isend(&none, 0, MPI_BYTE, r, GUARD_TAG_SETTLED, MPI_COMM_WORLD,
				      &req) == MPI_SUCCESS)
				(void)MPI_Request_free(&req); /* the abort follows: nobody waits */
		return 0;
	}
	if (MPI_Irecv(&none, 0, MPI_BYTE, MPI_ANY_SOURCE, GUARD_TAG_SETTLED, MPI_COMM_WORLD,
		      &req) != MPI_SUCCESS)
		return 0;
	return guard_poll(NULL, &req, 1, guard_clock() + wait_s) == 1;
}
