/* plan_estimate: plan's estimate of every phase and of the study, and its warning when the
 * study outlasts the job: from a results file (--from: a pilot's or a study's first parts), a
 * calibration file (--calibration) or the config's hardware: section, in that order. No MPI. */
#ifndef PFSREAD_PLAN_ESTIMATE_H
#define PFSREAD_PLAN_ESTIMATE_H

#include "config/config.h"
#include "run/plan.h"
#include "util/err.h"

struct plan_est_opts {
	const char *from;        /* results file, or NULL */
	const char *calibration; /* calibration file, or NULL */
	double walltime;         /* --walltime, 0: from the batch system when inside a job */
	int pilot;               /* from is plan --pilot's sample (the message says so) */
	uint64_t pilot_files;    /* its files per phase, 0: plan_pilot_limit's default */
};

/* Print the estimate (or how to get one) and the warning. 0 or -1 with e set. */
int plan_estimate(const struct experiment *x, const struct topo_map *t,
		  const struct plan_est_opts *o, struct pf_err *e);

#endif
