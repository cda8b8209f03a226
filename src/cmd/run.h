/* run: the run command. Discovers the topology, checks the experiment against it, then drives
 * every phase and hands each outcome to the results file; rank 0 prints progress and the table. */
#ifndef PFSREAD_RUN_H
#define PFSREAD_RUN_H

#include <stdint.h>

#include "config/config.h"
#include "util/err.h"

struct run_opts {
	const char *output;       /* -o FILE, or NULL for the config's results pattern */
	int force;                /* overwrite an existing results file */
	const char *command_line; /* as typed, for the results file */
	const char *resume;       /* --resume FILE: continue that results file, or NULL */
	double time_budget;       /* --time-budget: seconds from start; 0 for none */
	double progress_s;        /* --progress: seconds between progress lines; 0 for none */
	int no_table;             /* --no-table: no summary at the end (a job script reports) */
	int pilot;                /* plan --pilot: each phase reads a sample (phase_spec) */
	uint64_t pilot_files;     /* its files per phase, 0: plan_pilot_limit's default */
};

/* Collective. Returns 0 when every phase completed; -1 with e set otherwise. */
int run_experiment(const struct experiment *x, const struct run_opts *o, struct pf_err *e);

/* Expand {name} {jobid} {time} in pattern into buf. Pure. Returns 0 or -1 (too long). */
int run_expand_results_path(const char *pattern, const char *name, const char *jobid,
			    const char *time, char *buf, size_t len);

/* Collective: every rank returns rank 0's rc, and gets its message in e. */
int run_share_verdict(int rc, struct pf_err *e);

/* The batch job id from SLURM_JOB_ID or PBS_JOBID, or "" outside a job. */
const char *run_job_id(void);

#endif
