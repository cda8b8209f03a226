/* run_steps: the run command's steps around its phases (cmd/run.c): whether the next phase
 * starts, the clock resynchronisation, the progress label, the results writes' watchdog and
 * what a run does when a rank was lost (guard.h); the phases' loop (run_phases.c). Shared by
 * run.c, run_steps.c and run_phases.c only. */
#ifndef PFSREAD_CMD_RUN_STEPS_H
#define PFSREAD_CMD_RUN_STEPS_H

#include <stdint.h>

#include "config/config.h"
#include "results/results.h"
#include "run/budget.h"
#include "run/guard.h"
#include "run/phase.h"
#include "run/progress.h"
#include "run/provenance.h"
#include "run/topology.h"
#include "util/err.h"

#define RUN_PATH (CFG_PATH_MAX + 64)
#define RUN_CLOCK_RESYNC_S 60.0 /* see run_resync_clocks */
#define RUN_WRITE_WAIT_MIN 10.0 /* see run_watchdog */
#define RUN_WORDS_WAIT_S 15.0   /* the other ranks' watchdogs wait longer: see run_watchdog */

/* What rank 0's watchdog runs before it ends the process (stop_watchdog_last_words): this
 * program again, which closes the results file serially with status timeout. */
struct run_words {
	char path[RUN_PATH];
	char phases[16];  /* the phases this run wrote */
	char stage[160];  /* "phase 3: writing the phase to the results file" */
	char why[320];
	char *argv[7];
};

/* Why a run stops before a phase: the time budget (rank 0's estimate) or SIGUSR1 (the job's
 * time is nearly up). Ordered so that the ranks agree on the larger (MPI_MAX): the signal. */
enum run_stop { RUN_GOES_ON, RUN_STOP_BUDGET, RUN_STOP_WRAP_UP };

/* What decides whether the next phase starts: the phases a resumed file keeps, the time
 * budget (rank 0 decides from its estimate) and SIGUSR1 (any rank that got it). */
struct run_limits {
	const struct results_prior *prior; /* the file continued, or NULL */
	double budget_s, t0;               /* --time-budget (0: none); rank 0's MPI_Wtime at start */
	struct budget_phase *done;         /* [phases] timed, rank 0: the estimates' base */
	size_t ndone;
	uint64_t stopped_at;               /* the first phase not started, or UINT64_MAX */
	enum run_stop reason;              /* why it stopped at stopped_at */
	struct progress progress;          /* the lines during a phase */
	uint64_t bytes_done;               /* rank 0: read by this run's phases so far, and */
	double wall_done;                  /* the time they took (the study's ETA) */
	int pilot;                         /* plan --pilot: a sample of each phase */
	uint64_t pilot_files;
	struct guard guard;                /* the deadline of every collective step of a phase */
	struct run_words words;            /* rank 0's watchdog's, at a results write or close */
	uint32_t written;                  /* phases this run wrote */
	int *peer_rank, *peer_pid, npeers; /* the other ranks of this node (run_peers) */
};

/* Collective: every rank's pid, and this node's other ranks handed to the watchdog, which
 * names those stopped (stop_watchdog_peers). Only a lost safeguard when it fails: -1. */
int run_peers(const struct topology *t, struct run_limits *L);

/* Take them back from the watchdog and free them; NULL is accepted (nothing is done). */
void run_peers_free(struct run_limits *L);

/* Count the watchdog from now for the collective results step what (see run_steps.c). */
void run_watchdog(const struct experiment *x, const struct topology *t, struct run_words *w,
		  const char *where, uint32_t written, const char *what);

/* The step is over: no watchdog, no last words. 0 or -1 (errno set). */
int run_watchdog_end(void);

/* After a collective step was given up: record it (the reporter) or wait for that (see
 * run_steps.c). out: the phase given up, or NULL between phases. */
void run_lost(const struct experiment *x, const struct topology *t, struct guard *g,
	      struct results **r, const struct phase_output *out, struct pf_err *e);

/* Collective: measure the clock offsets again once RUN_CLOCK_RESYNC_S have passed. what: the
 * step, as the guard names it when a rank does not arrive. */
int run_resync_clocks(const struct experiment *x, struct topology *t, struct guard *g,
		      const char *what, struct pf_err *e);

/* Before phase i: its progress label and what the study has left after it. */
void run_progress_begin(const struct experiment *x, struct run_limits *L,
			const struct phase_spec *s, uint64_t i, uint64_t n);

/* Rank 0: the phases a resumed file keeps are the first base of the estimates. */
void run_limits_seed(const struct experiment *x, struct run_limits *L);

/* Collective, between phases: 1 when phase i may start, 0 when the run stops before it, -1
 * on an MPI failure or a lost rank. what: the step, as the guard names it. */
int run_may_start(const struct experiment *x, const struct topology *t, struct run_limits *L,
		  uint64_t i, const char *what, struct pf_err *e);

/* Each data set's counters of where the bytes came from (this rank's own: a node's route to
 * the servers is its own) and rank 0's description of them, for the record. */
struct run_prov {
	struct prov_source *src;
	char (*desc)[PROV_DESC_MAX];
	struct target_ctx *tg; /* storage target lookups; NULL (none) when out of memory */
};

/* Collective: the phases, in plan order (run_phases.c). A failed phase (an I/O error, a short
 * file) is kept, marked, and the run goes on: the other phases are unaffected. A time limit or
 * a signal ends the run after the phase in progress is written. *status gets the run's status
 * for the file. 0 when every phase run completed, -1 otherwise (e set). */
int run_phases(const struct experiment *x, struct topology *t, const struct run_prov *prov,
	       struct results **rp, struct run_limits *L, enum run_status *status,
	       struct pf_err *e);

#endif
