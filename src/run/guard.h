/* guard: the deadline of a phase's collective steps. Each step that all ranks must reach (a
 * barrier, the agreement on the outcome, the results write, the clock sync) is a nonblocking
 * collective polled against a deadline derived from phase_timeout, so that a rank that never
 * comes (stopped, swapped out for good, its node frozen) cannot hold the others forever. Every
 * rank also tells rank 0 (and rank 0 tells rank 1) that it has arrived, so that the ranks and
 * hosts that did not come can be named. */
#ifndef PFSREAD_RUN_GUARD_H
#define PFSREAD_RUN_GUARD_H

#include <mpi.h>

#include "run/topology.h"
#include "util/err.h"

/* Beyond the limit, the grace: a rank woken by its timer finishes the read in flight (a large
 * transfer from a slow file system may take seconds): GUARD_GRACE_S, or GUARD_GRACE_SHARE of
 * the limit when that is longer. */
#define GUARD_GRACE_S 5.0
#define GUARD_GRACE_SHARE 0.1
#define GUARD_WHO_MAX 1024
/* nap_max_s of a wait whose ranks' exit is not timed (they do not measure next) */
#define GUARD_NAP_IDLE_S 0.01

/* What a run knows after a step was given up: which step, who did not come, and whether
 * this rank is the one that records it (rank 0; rank 1 when rank 0 is the missing one).
 * Owned by the run; zeroed at its start. */
struct guard {
	int lost;                  /* a step was given up: no collective call can complete */
	int reporter;              /* this rank records the loss in the results file */
	double waited_s;           /* how long it was waited for */
	const char *stage;         /* the step, a string that outlives the run */
	char who[GUARD_WHO_MAX];   /* "1 (n2)" or "1 (n2), 3 (n2)": ranks; "" unknown */
	unsigned seq;              /* steps waited for so far: the arrivals' tags */
	char where[32];            /* "phase 3", before the step's name in the message */
	void (*tick)(void *);      /* called between tests while waiting, or NULL */
	void *tick_arg;
	double nap_max_s;          /* a wait's naps grow to this, an eighth of the time waited
				    * so far, where a late exit costs nothing; 0: 0.2 ms each */
};

/* The wait of a step after which the phase's readers should all have come: the limit and the
 * grace, or 0 (no deadline) when the experiment has no phase_timeout. */
double guard_wait_s(double phase_timeout);

/* Wait for the n nonblocking collective requests reqs, started on comm by every rank of comm
 * (a sub-communicator of MPI_COMM_WORLD or it), for at most wait_s seconds from now (0: no
 * deadline; t may then be NULL: nobody is named), napping between tests. Before its last
 * test a request is tested once more.
 * Returns 0 when all completed; on an MPI error -1 with e set (PF_RUNTIME); when the
 * deadline passed -1 with g filled and e set to PF_HUNG: "STAGE: rank R (HOST) did not
 * arrive within N s". g may be NULL (no deadline then). The requests of a step given up are
 * left to the abort that follows. */
int guard_wait(struct guard *g, const struct topology *t, MPI_Comm comm, MPI_Request *reqs,
	       int n, double wait_s, const char *stage, struct pf_err *e);

/* An MPI_Ibarrier on comm, waited for as guard_wait says. */
int guard_barrier(struct guard *g, const struct topology *t, MPI_Comm comm, double wait_s,
		  const char *stage, struct pf_err *e);

/* After a step was given up, the reporter: tell every rank that did arrive that the loss is
 * recorded (they end quietly then). The others: wait for that word, at most wait_s seconds
 * (so that none of them ends the job while the reporter still writes). 1 when the word came
 * (this rank need not say anything more), 0 otherwise. */
int guard_settle(struct guard *g, const struct topology *t, double wait_s);

#endif
