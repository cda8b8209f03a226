/* main: the command line. Parses it, starts MPI only for the commands that need it, dispatches
 * to the commands (src/cmd), and is the one place that prints errors and picks the exit status
 * (0 ok, 1 run-time, 2 usage). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "config/config.h" /* CFG_STARTUP_TIMEOUT_S: the watchdog before MPI_Init */
#include "util/err.h"
#include "util/stop.h"

static const char usage_text[] =
	"usage: pfsread COMMAND ...\n"
	"  generate CONFIG                 create the data sets (resumable; under mpirun)\n"
	"  run CONFIG [-o FILE] [--force]  run every phase, write FILE (HDF5), print the table\n"
	"      [--resume FILE]             continue FILE: keep its phases, run the others\n"
	"      [--time-budget DURATION]    start no phase that cannot end in time (exit 75)\n"
	"  report FILE... [--format text|markdown|csv|json] [--plot DIR] [--html FILE]\n"
	"                                  no MPI needed; FILEs: results, at most one calibration\n"
	"  calibrate CONFIG [-o FILE] [--force] [--disk-size S] [--mem-size S] [--msg-size S]\n"
	"                                  measure disk, memory copy, MPI links (under mpirun)\n"
	"  verify CONFIG                   check every file's size and content (under mpirun)\n"
	"  clean CONFIG                    remove the data sets generate made, nothing else\n"
	"  plan CONFIG --ranks N --nodes M dry run: phases, bytes, files per reader, checks\n"
	"      [--from RESULTS] [--walltime D]  estimate from a pilot's (or a part's) phases\n"
	"  --help | --version\n"
	"Exit status: 0 success, 1 run-time failure, 2 usage or configuration error,\n"
	"75 run stopped by --time-budget or SIGUSR1 with phases left (continue: --resume).\n";

/* ---- the commands under MPI: start it, dispatch, agree on the outcome -------------------- */

static void join_command_line(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

/* "rank 3 (n2)": which rank, on which host, for a message of that rank's own. */
static void rank_label(int rank, char *buf, size_t len)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown host");
	snprintf(buf, len, "rank %d (%s)", rank, host);
}

/* Every rank prints its own failure unless it is the one rank 0 prints; all agree on the
 * exit status (the worst). */
static int finish_mpi(int rank, int nranks, struct pf_err *e)
{
	char who[300];
	rank_label(rank, who, sizeof who);
	if (e->status == PF_HUNG) {
		fprintf(stderr, "pfsread: %s: %s\n", who, e->msg);
		MPI_Abort(MPI_COMM_WORLD, PF_RUNTIME);
		return PF_RUNTIME;
	}
	struct pf_err first = *e;
	int status = e->status, worst = status;
	if (MPI_Bcast(&first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
	    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		worst = PF_RUNTIME;
	if (e->status != PF_OK && (rank == 0 || strcmp(first.msg, e->msg) != 0)) {
		if (nranks > 1 && rank != 0)
			fprintf(stderr, "pfsread: %s: %s\n", who, e->msg);
		else
			fprintf(stderr, "pfsread: %s\n", e->msg);
	}
	MPI_Finalize();
	return worst;
}

static int main_mpi(const char *cmd, int argc, char **argv, int full_argc, char **full_argv)
{
	int rank = 0, nranks = 1;
	struct pf_err e = {0};
	char cmdline[4096];
	/* before MPI_Init, which can hang too; the config's startup_timeout replaces the default */
	if (stop_watchdog_arm(CFG_STARTUP_TIMEOUT_S) != 0) {
		fprintf(stderr, "pfsread: cannot set the start-up watchdog\n");
		return PF_RUNTIME;
	}
	stop_watchdog_stage("MPI_Init");
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		fprintf(stderr, "pfsread: MPI_Init failed\n");
		return PF_RUNTIME;
	}
	/* Errors come back as return codes, so that results are flushed before exiting. */
	if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
	    MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &nranks) != MPI_SUCCESS)
		pf_fail(&e, PF_RUNTIME, "MPI setup failed");
	stop_watchdog_rank(rank);
	join_command_line(full_argc, full_argv, cmdline, sizeof cmdline);
	if (e.status == PF_OK && stop_install() != 0)
		pf_fail(&e, PF_RUNTIME, "cannot install signal handlers");
	if (e.status == PF_OK)
		mpi_command(cmd, argc, argv, cmdline, &e);
	return finish_mpi(rank, nranks, &e);
}

int main(int argc, char **argv)
{
	struct pf_err e = {0};
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? PF_USAGE : PF_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("pfsread %s (git %s)\n", PFSREAD_VERSION, PFSREAD_GIT);
		return PF_OK;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "report") == 0)
		report_command(argc - 2, argv + 2, &e);
	else if (strcmp(cmd, "plan") == 0)
		plan_command(argc - 2, argv + 2, &e);
	else if (strcmp(cmd, "run") == 0 || strcmp(cmd, "generate") == 0 ||
		 strcmp(cmd, "calibrate") == 0 ||
		 strcmp(cmd, "verify") == 0 || strcmp(cmd, "clean") == 0)
		return main_mpi(cmd, argc - 2, argv + 2, argc, argv);
	else
		pf_fail(&e, PF_USAGE, "unknown command '%s' (try pfsread --help)", cmd);
	if (e.status != PF_OK)
		fprintf(stderr, "pfsread: %s\n", e.msg);
	return e.status;
}
