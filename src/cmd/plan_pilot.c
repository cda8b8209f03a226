/* plan_pilot: `plan CONFIG --pilot [N]` under MPI. Every phase of the plan is run once (its
 * first repetition's settings, as run would do it) reading only the first files of each
 * reader's share (phase_spec.pilot), into a results file next to the config's results; rank 0
 * then prints plan's dry run estimating from that file (plan --from) and removes it. */
#include "cmd/plan.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "config/config.h"
#include "cmd/locks.h"
#include "dataset/fromtree.h"
#include "run/backend.h"
#include "run/topology.h"
#include "util/safe.h"

#define PILOT_PATH (CFG_PATH_MAX + 64)

/* Rank 0: where the pilot's results go: --pilot-output, else the config's results path with
 * ".pilot" after it (the same directory, so the same file system's room and rights). An
 * existing file is refused here: the pilot removes its file afterwards, never another's. */
static int pilot_path(const struct experiment *x, const struct plan_args *a, char *path,
		      struct pf_err *e)
{
	char stamp[32], base[PILOT_PATH];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	const char *job = *run_job_id() ? run_job_id() : "local";
	if (a->pilot_output != NULL)
		snprintf(path, PILOT_PATH, "%s", a->pilot_output);
	else if (run_expand_results_path(x->results, x->name, job, stamp, base, sizeof base) != 0 ||
		 snprintf(path, PILOT_PATH, "%s.pilot", base) >= PILOT_PATH)
		return pf_fail(e, PF_USAGE, "plan --pilot: results path too long");
	if (access(path, F_OK) == 0)
		return pf_fail(e, PF_USAGE, "plan --pilot: %s exists (remove it, or name another "
			       "with --pilot-output)", path);
	return 0;
}

/* The job's shape when --ranks and --nodes are not given: the pilot's own. Collective. */
static int pilot_shape(struct plan_args *a, struct pf_err *e)
{
	struct topology t;
	if (a->ranks > 0 && a->nodes > 0)
		return 0;
	if (topology_discover(&t, e) != 0)
		return -1;
	if (a->ranks == 0)
		a->ranks = t.nranks;
	if (a->nodes == 0)
		a->nodes = t.nnodes < a->ranks ? t.nnodes : a->ranks;
	topology_free(&t);
	return 0;
}

int plan_pilot_command(int argc, char **argv, const char *command_line, struct pf_err *e)
{
	struct plan_args a;
	struct experiment x;
	char path[PILOT_PATH] = "", shown[SAFE_ROOM(PILOT_PATH)];
	int rank = 0;
	if (plan_parse(argc, argv, &a, e) != 0)
		return -1;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "MPI_Comm_rank failed");
	if (backend_check_registry(e) != 0)
		return -1;
	memset(&x, 0, sizeof x);
	struct lock_held held = {""}; /* the pilot reads the data sets as a run does */
	int rc = mpi_load_config(a.config, rank, &x, e);
	if (rc == 0)
		rc = locks_datasets(&x, "run", rank, &held, e);
	if (rc == 0)
		rc = fromtree_share(&x, FROMTREE_READ, e);
	if (rc == 0)
		rc = run_share_verdict(rank == 0 ? pilot_path(&x, &a, path, e) : 0, e);
	if (rc == 0)
		rc = pilot_shape(&a, e);
	if (rc != 0) {
		lock_release(&held);
		cfg_free(&x);
		return -1;
	}
	struct run_opts o = {.output = path, .command_line = command_line, .no_table = 1,
			     .pilot = 1, .pilot_files = a.pilot_files};
	rc = run_experiment(&x, &o, e); /* only rank 0's path counts: it broadcasts it */
	lock_release(&held);
	cfg_free(&x);
	if (rank != 0)
		return rc;
	if (rc == 0) {
		printf("\n");
		a.est.from = path;
		a.est.pilot = 1;
		a.est.pilot_files = a.pilot_files;
		rc = plan_show(&a, e);
	}
	if (a.pilot_output == NULL && unlink(path) != 0 && errno != ENOENT && rc == 0)
		rc = pf_fail_errno(e, errno, "plan --pilot: cannot remove %s", path);
	else if (a.pilot_output != NULL && access(path, F_OK) == 0)
		printf("pilot results kept: %s\n", safe_text(shown, sizeof shown, path, 0));
	return rc;
}
