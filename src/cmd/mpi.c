/* mpi: the commands that run on a config under MPI (run, generate, verify, clean; calibrate
 * reads its own; plan --pilot loads with mpi_load_config). Rank 0 reads the config once and
 * broadcasts its text, every rank parses the same bytes; the from_tree data sets are
 * described once; then the command. */
#include "cmd/cmd.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/generate.h"
#include "cmd/locks.h"
#include "cmd/plan.h"
#include "cmd/run.h"
#include "cmd/run_check.h"
#include "config/config.h"
#include "dataset/fromtree.h"
#include "run/backend.h"
#include "run/progress.h"
#include "util/stop.h"
#include "util/units.h"

int mpi_load_config(const char *path, int rank, struct experiment *x, struct pf_err *e)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	long long len = -1;
	int rc = 0;
	backend_config(blocks, BACKEND_BLOCKS_MAX);
	if (rank == 0) {
		rc = cfg_load(path, blocks, x, e);
		if (rc == 0)
			plan_default_cache(x); /* rank 0 decides for all: broadcast below */
		if (rc == 0) /* what run refuses, every command refuses before it writes */
			rc = run_check_config(x, e);
		if (rc != 0)
			cfg_free(x);
		len = rc == 0 ? (long long)x->yaml_len : -1;
	}
	if (MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "MPI_Bcast failed");
	if (len < 0) {
		if (MPI_Bcast(e, sizeof *e, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
			return pf_fail(e, PF_RUNTIME, "MPI_Bcast failed");
		return -1;
	}
	char *text = rank == 0 ? x->yaml_text : malloc((size_t)len + 1);
	if (text == NULL)
		return pf_fail(e, PF_RUNTIME, "out of memory");
	if (MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "MPI_Bcast failed");
	if (rank != 0 && rc == 0)
		rc = cfg_parse(path, text, (size_t)len, blocks, x, e);
	if (rank != 0)
		free(text);
	int cache = (int)x->cache; /* a rank whose parse failed still takes part */
	if (MPI_Bcast(&cache, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS && rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "MPI_Bcast failed");
	x->cache = (enum cfg_cache)cache;
	return rc;
}

static int config_command(const char *cmd, int argc, char **argv, int rank, const char *cmdline,
			  struct pf_err *e)
{
	const char *config = NULL;
	struct run_opts o = {.output = NULL, .force = 0, .command_line = cmdline,
			     .progress_s = PROGRESS_DEFAULT_S};
	for (int i = 0; i < argc; i++) {
		if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			o.output = argv[++i];
		else if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "--force") == 0)
			o.force = 1;
		else if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "--no-table") == 0)
			o.no_table = 1;
		else if (strcmp(argv[i], "--progress") == 0 && i + 1 < argc) {
			const char *why = NULL;
			if (units_parse_duration(argv[++i], &o.progress_s, &why) != 0 ||
			    o.progress_s < 0)
				return pf_fail(e, PF_USAGE, "--progress: '%s' is not a duration (0 "
					       "turns the progress lines off)%s%s", argv[i],
					       why ? ": " : "", why ? why : "");
		} else if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "--resume") == 0 && i + 1 < argc)
			o.resume = argv[++i];
		else if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "--time-budget") == 0 &&
			 i + 1 < argc) {
			const char *why = NULL;
			if (units_parse_duration(argv[++i], &o.time_budget, &why) != 0 ||
			    !(o.time_budget > 0))
				return pf_fail(e, PF_USAGE, "--time-budget: '%s' is not a positive "
					       "duration%s%s", argv[i], why ? ": " : "", why ? why : "");
		}
		else if (argv[i][0] == '-' || config != NULL)
			return pf_fail(e, PF_USAGE, "unexpected argument '%s'", argv[i]);
		else
			config = argv[i];
	}
	if (config == NULL)
		return pf_fail(e, PF_USAGE, "%s: name a config file", cmd);
	if (o.resume != NULL && (o.output != NULL || o.force))
		return pf_fail(e, PF_USAGE, "run: --resume FILE continues FILE: not with -o or --force");
	struct experiment x;
	memset(&x, 0, sizeof x);
	stop_watchdog_stage("reading the config (MPI_Bcast from rank 0)");
	int rc = mpi_load_config(config, rank, &x, e);
	if (rc == 0 && stop_watchdog_arm(x.startup_timeout) != 0)
		rc = pf_fail(e, PF_RUNTIME, "cannot set the start-up watchdog");
	/* before anything is read or written in the data sets, from_tree's descriptions too */
	struct lock_held held = {""};
	if (rc == 0)
		stop_watchdog_stage("taking the data sets' lock (rank 0)");
	if (rc == 0)
		rc = locks_datasets(&x, cmd, rank, &held, e);
	if (rc == 0 && x.ndatasets > 0)
		stop_watchdog_stage("describing trees (from_tree)");
	/* from_tree: generate scans (rank 0); the others read what generate described */
	if (rc == 0)
		rc = fromtree_share(&x, strcmp(cmd, "generate") == 0 ? FROMTREE_SCAN
					: strcmp(cmd, "clean") == 0 ? FROMTREE_READ_IF_THERE
								    : FROMTREE_READ, e);
	if (rc == 0 && strcmp(cmd, "run") == 0)
		rc = run_experiment(&x, &o, e); /* disarms the watchdog at its first phase */
	else if (rc == 0 && stop_watchdog_arm(0) != 0)
		rc = pf_fail(e, PF_RUNTIME, "cannot stop the start-up watchdog");
	else if (rc == 0 && strcmp(cmd, "generate") == 0)
		rc = generate_all(&x, o.progress_s, &held, e);
	else if (rc == 0 && strcmp(cmd, "verify") == 0)
		rc = verify_all(&x, o.progress_s, e);
	else if (rc == 0 && strcmp(cmd, "clean") == 0)
		rc = clean_all(&x, e);
	lock_release(&held);
	cfg_free(&x);
	return rc;
}

int mpi_command(const char *cmd, int argc, char **argv, const char *command_line,
		struct pf_err *e)
{
	int rank = 0;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "MPI_Comm_rank failed");
	if (backend_check_registry(e) != 0)
		return -1;
	if (strcmp(cmd, "calibrate") == 0)
		return calibrate_command(argc, argv, command_line, e);
	return config_command(cmd, argc, argv, rank, command_line, e);
}
