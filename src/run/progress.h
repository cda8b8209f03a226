/* progress: one line on rank 0 every N seconds while a long step runs (a phase, generate,
 * verify, clean): bytes and files done over all ranks, the current rate, the ETAs. Nothing
 * that waits: each rank posts a non-blocking sum (MPI_Iallreduce on a communicator of its
 * own) when its clock passes the next tick and tests it later, from its own loop; no barrier
 * and no blocking collective enter the timed region. The step's end (outside the timed
 * region) completes the sums every rank posted. */
#ifndef PFSREAD_PROGRESS_H
#define PFSREAD_PROGRESS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define PROGRESS_DEFAULT_S 30.0

struct progress {
	MPI_Comm comm;        /* a duplicate of MPI_COMM_WORLD: only these sums */
	int rank;
	double every_s;       /* 0: off */
	/* this step */
	char label[256];      /* "phase 12/40 big x 2 readers/node" */
	uint64_t total_bytes, total_files;
	double start, next, check_at;      /* CLOCK_MONOTONIC_COARSE: the start, next tick, test */
	MPI_Request req;
	uint64_t mine[2], sum[2];          /* bytes, files: this rank's, and all ranks' */
	uint64_t posted;
	double last_t;                     /* rank 0: when the last sum came back, and its bytes */
	uint64_t last_bytes;
	/* the study around the step (run): what is left after it, at which rate (0: unknown) */
	uint64_t after_bytes;
	double study_rate;
	uint64_t lines;                    /* rank 0: lines printed, for tests */
};

/* Collective: every_s seconds between lines (0: off). 0 or -1 with e set. */
int progress_init(struct progress *p, double every_s);
/* Release p's communicator; NULL is accepted. */
void progress_free(struct progress *p);

/* Before a step (outside its timed region): what it is and what it will do. */
void progress_begin(struct progress *p, const char *label, uint64_t total_bytes,
		    uint64_t total_files);

/* From the step's loop, with this rank's bytes and files done so far: cheap (one clock read)
 * until a tick is due. Never waits. */
void progress_tick(struct progress *p, uint64_t bytes, uint64_t files);

/* Collective, after the step (outside its timed region), with progress off too: the ranks
 * agree on how many sums were posted, post the missing ones and wait for all, napping (a rank
 * done early does not spin while the others work). 0 or -1 (an MPI failure). */
int progress_end(struct progress *p);

/* The line rank 0 prints, for tests: pure. */
void progress_format(char *buf, size_t len, const char *label, uint64_t bytes, uint64_t files,
		     uint64_t total_bytes, uint64_t total_files, double rate, double elapsed,
		     uint64_t after_bytes, double study_rate);

#endif
