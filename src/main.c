/* main: the command line. Parses it, starts MPI only for the commands that need it, dispatches
 * to the commands (src/cmd), and is the one place that prints errors and picks the exit status
 * (0 ok, 1 run-time, 2 usage). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/plan.h"
#include "config/config.h" /* CFG_STARTUP_TIMEOUT_S: the watchdog before MPI_Init */
#include "results/results.h"
#include "run/target.h"
#include "util/err.h"
#include "util/safe.h"
#include "util/stop.h"

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

/* "pfsread: [who: ]message": the message may quote a config, a results file or the system
 * (paths, host names), so it goes out by util/safe's rule, as who (a host name) does. */
static void main_print_err(const char *who, const struct pf_err *e)
{
	fputs("pfsread: ", stderr);
	if (who != NULL) {
		safe_fput(stderr, who, 0);
		fputs(": ", stderr);
	}
	safe_fput(stderr, e->msg, 0);
	fputc('\n', stderr);
}

/* Every rank prints its own failure unless it is the one rank 0 prints; all agree on the
 * exit status (the worst). */
static int finish_mpi(int rank, int nranks, struct pf_err *e)
{
	char who[300];
	rank_label(rank, who, sizeof who);
	if (e->status == PF_HUNG) {
		if (e->msg[0] != '\0') /* empty: a rank lost its peers and the reporter said it */
			main_print_err(who, e);
		MPI_Abort(MPI_COMM_WORLD, PF_RUNTIME);
		return PF_RUNTIME;
	}
	struct pf_err first = *e;
	int status = e->status, worst = status;
	if (MPI_Bcast(&first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
	    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		worst = PF_RUNTIME;
	if (e->status != PF_OK && (rank == 0 || strcmp(first.msg, e->msg) != 0))
		main_print_err(nranks > 1 && rank != 0 ? who : NULL, e);
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
	if (e.status == PF_OK && strcmp(cmd, "plan") == 0) /* only with --pilot: see dispatch */
		plan_pilot_command(argc, argv, cmdline, &e);
	else if (e.status == PF_OK)
		mpi_command(cmd, argc, argv, cmdline, &e);
	return finish_mpi(rank, nranks, &e);
}

/* `pfsread help [COMMAND] [--man | --completion]` */
static int help_command(int argc, char **argv, struct pf_err *e)
{
	const struct cli_cmd *c = NULL;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--man") == 0) {
			cli_print_man(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--completion") == 0) {
			cli_print_completion(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			c = cli_find("help");
		else if (c == NULL && (c = cli_find(argv[i])) == NULL)
			return cli_unknown_command(argv[i], e);
	}
	if (c)
		cli_print_help(stdout, c);
	else
		cli_print_usage(stdout);
	return 0;
}

/* 1 when the normalised arguments hold the option name. */
static int has_arg(int argc, char **argv, const char *name)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

/* Every command's arguments go through the table (cli.c) first: --key=value split, names
 * checked, --help answered without starting MPI. */
static int dispatch(int argc, char **argv, int quiet, struct pf_err *e)
{
	const char *cmd = argv[1];
	const struct cli_cmd *c = cli_find(cmd);
	if (c == NULL)
		return cli_unknown_command(cmd, e);
	if (cli_wants_help(c, argc - 2, argv + 2)) {
		if (!quiet)
			cli_print_help(stdout, c);
		return 0;
	}
	char **args = calloc((size_t)argc * 2 + 1, sizeof *args);
	int nargs = 0, rc;
	if (args == NULL)
		return pf_fail(e, PF_RUNTIME, "out of memory");
	if (strcmp(cmd, "help") == 0)
		rc = help_command(argc - 2, argv + 2, e);
	else if (cli_normalize(c, argc - 2, argv + 2, args, &nargs, e) != 0)
		rc = -1;
	else if (strcmp(cmd, "report") == 0)
		rc = report_command(nargs, args, e);
	else if (strcmp(cmd, "job") == 0)
		rc = job_command(nargs, args, e); /* the launcher's ranks run MPI, not this one */
	else if (strcmp(cmd, "plan") == 0 && !has_arg(nargs, args, "--pilot"))
		rc = plan_command(nargs, args, e); /* plan --pilot reads: under MPI, as run */
	else
		rc = main_mpi(cmd, nargs, args, argc, argv);
	free(args);
	return rc;
}

/* Under a launcher, only the first rank prints what every rank would say alike before MPI
 * starts (a usage error, a help text): mpirun -np 400 would print it 400 times. */
static int quiet_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					   "SLURM_PROCID"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v != NULL && *v != '\0')
			return strcmp(v, "0") != 0;
	}
	return 0;
}

/* Every message is one line; with stderr unbuffered, a line printed in parts (a prefix, a
 * path by util/safe's rule, one character at a time) leaves in many writes, and the lines of
 * ranks printing at once arrive mixed through the launcher. Line-buffered with room for the
 * longest message, each line is one write. */
static char main_stderr_buf[4 * sizeof(((struct pf_err *)0)->msg) + 1024];

int main(int argc, char **argv)
{
	struct pf_err e = {0};
	if (setvbuf(stderr, main_stderr_buf, _IOLBF, sizeof main_stderr_buf) != 0)
		return PF_RUNTIME;
	int quiet = quiet_rank();
	if (argc < 2) {
		if (!quiet)
			cli_print_usage(stderr);
		return PF_USAGE;
	}
	/* a rank's storage target helper (run/target.c), not a command: no MPI, no output */
	if (strcmp(argv[1], TARGET_HELPER_ARG) == 0)
		return target_helper_main(argc - 2, argv + 2);
	/* the watchdog's helper that closes a results file a stuck write left open (stop.h) */
	if (strcmp(argv[1], RESULTS_MARK_ARG) == 0)
		return results_mark_main(argc - 2, argv + 2);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_print_usage(stdout);
		return PF_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		cli_print_version(stdout);
		return PF_OK;
	}
	int rc = dispatch(argc, argv, quiet, &e);
	if (rc > 0)
		return rc; /* main_mpi's agreed exit status; it printed its failure */
	if (e.status != PF_OK && !quiet)
		main_print_err(NULL, &e);
	return e.status;
}
