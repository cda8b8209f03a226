/* resume: run --resume FILE. Opens a results file to continue, refuses one whose phases
 * could not be compared with the ones this run would add, and begins the new part. */
#ifndef PFSREAD_RESUME_H
#define PFSREAD_RESUME_H

#include "config/config.h"
#include "results/results.h"
#include "run/topology.h"
#include "util/err.h"

/* Collective. Opens path, compares it with the experiment and the topology (the config
 * verbatim, the rank and node shape, the kept phases' data sets), and begins a new part:
 * *p says which phases are kept (skipped by the run). Exit status 2 (PF_USAGE) naming the
 * difference when they differ; the file is then left as it was. */
int resume_open(const struct experiment *x, const struct topology *t, const char *path,
		const struct run_meta *m, struct results **r, struct results_prior *p,
		struct pf_err *e);

/* The first line where two texts differ, for a message: "line N: 'A' here, 'B' there".
 * Pure. Returns 0 when they are equal, 1 otherwise. */
int resume_text_diff(const char *a, const char *b, char *buf, size_t len);

/* The job's node names, comma-separated, for its part of the results file. Caller frees;
 * NULL when out of memory. */
char *resume_hosts(const struct topology *t);

/* Rank 0, resuming: what the file holds and what this part will do, one line. */
void resume_print(const char *path, const struct results_prior *p);

#endif
