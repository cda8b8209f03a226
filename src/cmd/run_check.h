/* run_check: the checks of run before any timed read, also made by plan at submission. */
#ifndef PFSREAD_RUN_CHECK_H
#define PFSREAD_RUN_CHECK_H

#include "config/config.h"
#include "run/plan.h"
#include "run/topology.h"
#include "util/err.h"

/* The checks of a config that need no topology and no file (backends, cache: direct, process,
 * advice): run, generate, verify, clean and plan make them right after loading, before they
 * print or write anything. Names the key at file:line:col (PF_USAGE). 0 or -1. */
int run_check_config(const struct experiment *x, struct pf_err *e);

/* Usage errors that need the rank-to-node map: readers per node, backend names, cache modes
 * (drop without root), process and shift; each names the config key; with generated, the
 * root directory must exist. No MPI. 0 or -1. */
int run_check_experiment(const struct experiment *x, const struct topo_map *map, int generated,
			 struct pf_err *e);

/* Every data set was generated whole and as the config describes it (its manifest). No MPI:
 * run calls it on rank 0. 0 or -1 (PF_RUNTIME). */
int run_check_datasets(const struct experiment *x, struct pf_err *e);

/* Collective: each rank stats the files generate gave it (sizes, regular files). */
int run_check_files(const struct experiment *x, const struct topology *t, struct pf_err *e);

#endif
