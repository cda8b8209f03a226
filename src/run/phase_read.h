/* phase_read: the timed part of a phase, between its two barriers (phase_read.c), and what
 * the phase driver (phase.c) shares with it: the rank's work, the context of its reads, the
 * items' paths. Internal to src/run. */
#ifndef PFSREAD_PHASE_READ_H
#define PFSREAD_PHASE_READ_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "dataset/dataset.h"
#include "run/backend.h"
#include "run/phase.h"
#include "run/plan.h"
#include "util/digest.h"
#include "util/err.h"

#define PHASE_PATH (CFG_PATH_MAX + 64)

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

/* What the timed part works with. The clock pauses while verify checks content, so that the
 * checking time stays out of every time stamp (and is counted on its own). */
struct phase_run_ctx {
	const struct phase_spec *s;
	const struct topology *t;
	const struct phase_work *w;
	void *buf;
	struct bopen bo;
	struct dataset_content content; /* for verify */
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
	uint64_t done_bytes, files_done; /* the core's loop, for the progress lines */
	struct pf_err *e;
};

/* Item i's path (from its index, or for a hashed data set from its name); -1 with "path too
 * long" in e. */
int phase_path(const struct phase_spec *s, const struct phase_work *w, uint64_t i, char *buf,
	       size_t len, struct pf_err *e);
/* Item i's path for a message, or "file N" when it cannot be built. */
void phase_share_name(const struct phase_run_ctx *c, uint64_t i, char *buf, size_t len);

/* After the closing barrier: the message kept for the run names one failure; a rank with
 * several bad files in this phase (or whose earlier failure holds the message: earlier 1)
 * names them on stderr (phase_bad.c). */
void phase_name_bad(const struct phase_run_ctx *c, const struct phase_output *o, int earlier);

/* The phase's clock: the common base, less the time verify has paused it. */
double phase_now(const struct phase_run_ctx *c);

/* A backend that keeps several files in flight reads whole files itself. */
int phase_pipelined(const struct phase_spec *s);

/* After the timed part (phase_tally.c): this rank's bytes, wall time per step (acct: each
 * instant once, overlap apart) and first/last times of its own records. */
void phase_sum_rank(struct phase_output *o);

/* After the closing barrier, this rank alone (phase_tally.c): the provenance counters' growth
 * since before, the rank's figures (phase_sum_rank), the backend torn down, short files and
 * failed cache preparations marked on their rows (c->status PHASE_FAILED), several bad files
 * named (earlier: see phase_name_bad), the files' storage targets. */
void phase_tally(const struct phase_spec *s, struct phase_work *w, struct phase_run_ctx *c,
		 const struct prov_sample *before, struct phase_output *o, int earlier);

/* The timed part: this rank's items, in plan order. Stops at the first failure so that the
 * rank still reaches the closing barrier. 0, or -1 with the rank's first failure in c->e.
 * The CPU time the process spent in it goes into o->me (cpu_user_s, cpu_sys_s). */
int phase_read_share(struct phase_run_ctx *c, struct phase_output *o);

#endif
