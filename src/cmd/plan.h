/* plan: the dry run's arguments, shared by plan (no MPI) and plan --pilot (under MPI: a
 * sample of every phase read, then the same dry run estimating from it). */
#ifndef PFSREAD_CMD_PLAN_H
#define PFSREAD_CMD_PLAN_H

#include <stdint.h>

#include "cmd/plan_estimate.h"
#include "util/err.h"

struct plan_args {
	const char *config;
	int ranks, nodes;          /* 0 with --pilot: the pilot's own */
	struct plan_est_opts est;
	int pilot;                 /* --pilot [N] */
	uint64_t pilot_files;      /* N, files per phase; 0: two per reader, at least 8 */
	const char *pilot_output;  /* --pilot-output FILE: keep the pilot's results there */
	const char *print;         /* --print KEY: after the checks, that one value alone */
};

/* plan's command line into a; usage errors (PF_USAGE) as the user typed them. */
int plan_parse(int argc, char **argv, struct plan_args *a, struct pf_err *e);

/* The dry run: the phases, the checks and the estimate, on this process alone. No MPI. */
int plan_show(const struct plan_args *a, struct pf_err *e);

struct experiment;

/* The checks plan makes (the config as run loads it, readers per node against ranks over
 * nodes, the backends, the cache, the data sets' directories, the room to generate), on this
 * process, printing nothing: 0 with the config in x, or -1 with e set as plan would fail.
 * The caller frees x (cfg_free) either way. */
int plan_check_quiet(const char *config, int ranks, int nodes, struct experiment *x,
		     struct pf_err *e);

/* The config left cache out: drop where this process may write /proc/sys/vm/drop_caches
 * (root), else fadvise, which needs no privilege and evicts only the files read (a given
 * cache: drop without root stays, and is refused). */
void plan_default_cache(struct experiment *x);

/* The keys x's config left out, with the values in force and what cache's default does;
 * nothing when it gives them all. */
void plan_print_defaults(const struct experiment *x);

/* `plan CONFIG --pilot [N]`: collective. Reads the first files of every phase's shares into a
 * results file next to the config's results, then rank 0 prints plan_show estimating from it
 * and removes it (unless --pilot-output). */
int plan_pilot_command(int argc, char **argv, const char *command_line, struct pf_err *e);

#endif
