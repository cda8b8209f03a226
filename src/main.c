/* main: the command line. Parses it, starts MPI only for the commands that need it, and is
 * the one place that prints errors and picks the exit status (0 ok, 1 run-time, 2 usage). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/backend.h"
#include "results/calib.h"
#include "config/config.h"
#include "dataset/dataset.h"
#include "util/err.h"
#include "dataset/fromtree.h"
#include "cmd/generate.h"
#include "run/plan.h"
#include "report/report.h"
#include "results/results.h"
#include "cmd/run.h"
#include "util/stop.h"
#include "util/units.h"

static const char usage_text[] =
	"usage: pfsread COMMAND ...\n"
	"  generate CONFIG                 create the data sets (resumable; under mpirun)\n"
	"  run CONFIG [-o FILE] [--force]  run every phase, write FILE (HDF5), print the table\n"
	"  report FILE... [--format text|markdown|csv|json] [--plot DIR] [--html FILE]\n"
	"                                  no MPI needed; FILEs: results, at most one calibration\n"
	"  calibrate CONFIG [-o FILE] [--force] [--disk-size S] [--mem-size S] [--msg-size S]\n"
	"                                  measure disk, memory copy, MPI links (under mpirun)\n"
	"  verify CONFIG                   check every file's size and content (under mpirun)\n"
	"  clean CONFIG                    remove the data sets generate made, nothing else\n"
	"  plan CONFIG --ranks N --nodes M dry run: phases, bytes, files per reader\n"
	"  --help | --version\n"
	"Exit status: 0 success, 1 run-time failure, 2 usage or configuration error.\n";

static int usage_error(struct pf_err *e, const char *fmt, const char *arg)
{
	pf_fail(e, PF_USAGE, fmt, arg);
	return -1;
}

/* ---- commands without MPI -------------------------------------------------------------- */

static int cmd_report(int argc, char **argv, struct pf_err *e)
{
	return report_command(argc, argv, e);
}

static int parse_count(const char *text, const char *what, int *out, struct pf_err *e)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || v < 1 || v > INT_MAX)
		return pf_fail(e, PF_USAGE, "plan: %s must be a positive integer, not '%s'", what, text);
	*out = (int)v;
	return 0;
}

/* The count, bytes and size spec line of plan_print_dataset. */
static void plan_print_dataset_sizes(const struct experiment *x, const struct cfg_dataset *d)
{
	char total[32], fsize[32], sizes[MANIFEST_SIZES_MAX];
	units_format_size(d->total_size, total, sizeof total);
	printf("data set %s: %llu files, %s (%llu B)", d->name, (unsigned long long)d->nfiles,
	       total, (unsigned long long)d->total_size);
	if (d->sizes == CFG_SIZES_FIXED) {
		printf(", every file %s", units_format_size_binary(d->file_size, fsize, sizeof fsize));
		if (d->twin_of > 0)
			printf(", the one-file twin of %s", x->datasets[d->twin_of - 1].name);
		printf("\n");
		return;
	}
	if (sizes_describe(d, sizes, sizeof sizes) != 0)
		sizes[0] = '\0';
	printf(", mean %.0f B, sizes %s\n", (double)d->total_size / (double)d->nfiles, sizes);
}

/* A flat, hashed or from_tree data set's layout, on lines of its own (indexed is the
 * default). */
static void plan_print_layout(const struct experiment *x, const struct cfg_dataset *d)
{
	const struct cfg_layout *l = &d->layout;
	fromtree_print(stdout, x, d);
	if (l->kind == CFG_LAYOUT_FLAT)
		printf("  layout flat: every file in %s/\n", d->name);
	else if (l->kind == CFG_LAYOUT_HASHED)
		printf("  layout hashed: named by the %s of their content, %llu levels of %llu hex "
		       "digits (the name list is %s%s)\n", digest_name(l->digest),
		       (unsigned long long)l->depth, (unsigned long long)l->width, DATASET_DIGESTS,
		       digest_name(l->digest));
}

/* A data set's exact count and bytes, and how its sizes are drawn (with the seed). */
static void plan_print_dataset(const struct experiment *x, const struct cfg_dataset *d)
{
	plan_print_dataset_sizes(x, d);
	plan_print_layout(x, d);
}

static void plan_print_phase(const struct experiment *x, const struct topo_map *t, uint64_t i)
{
	struct plan_point p;
	char fsize[32], bytes[32], xfer[32];
	plan_phase_at(x, i, &p);
	const struct cfg_dataset *d = &x->datasets[p.dataset];
	uint64_t readers = plan_reader_count(t, p.readers_per_node);
	uint64_t most = (d->nfiles + readers - 1) / readers, least = d->nfiles / readers;
	printf("%5llu  %-12s %10s %9llu %7d %8llu %7llu-%-7llu %-8s %9s %-8s %4d %12s\n",
	       (unsigned long long)i, d->name, units_format_size_binary(d->file_size, fsize, sizeof fsize),
	       (unsigned long long)d->nfiles, p.readers_per_node, (unsigned long long)readers,
	       (unsigned long long)least, (unsigned long long)most, x->backends[p.backend],
	       units_format_size_binary(p.transfer_size, xfer, sizeof xfer),
	       cfg_order_name(p.order), p.repetition, /* from 0, as run and report count */
	       units_format_size(d->total_size, bytes, sizeof bytes));
}

static int cmd_plan(int argc, char **argv, struct pf_err *e)
{
	const char *config = NULL;
	int ranks = 0, nodes = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], "--ranks", &ranks, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], "--nodes", &nodes, e) != 0)
				return -1;
		} else if (argv[i][0] == '-' || config != NULL) {
			return usage_error(e, "plan: unexpected argument '%s'", argv[i]);
		} else {
			config = argv[i];
		}
	}
	if (config == NULL || ranks == 0 || nodes == 0)
		return usage_error(e, "plan: usage: pfsread plan CONFIG --ranks N --nodes M%s", "");
	if (nodes > ranks)
		return usage_error(e, "plan: more nodes than ranks%s", "");
	struct experiment x;
	struct topo_map t = {0};
	if (cfg_load(config, &x, e) != 0)
		return -1;
	/* one process: scanning the trees here is the exact count, and no storm */
	int rc = fromtree_scan_all(&x, e);
	if (rc == 0 && plan_even_map(ranks, nodes, &t) != 0)
		rc = pf_fail(e, PF_RUNTIME, "plan: out of memory");
	for (size_t i = 0; rc == 0 && i < x.nreaders; i++) {
		if (x.readers_per_node[i] <= plan_min_node_size(&t))
			continue;
		char key[64];
		snprintf(key, sizeof key, "sweep.readers_per_node[%zu]", i);
		rc = cfg_fail_at(e, &x, x.readers_pos[i], key,
				 "%d readers per node, but %d ranks on %d nodes give a node only %d",
				 x.readers_per_node[i], ranks, nodes, plan_min_node_size(&t));
	}
	if (rc == 0) {
		uint64_t n = plan_phase_count(&x), total = 0;
		char vol[32];
		printf("experiment %s: %llu phases on %d ranks over %d nodes, data sets under %s\n",
		       x.name, (unsigned long long)n, ranks, nodes, x.root);
		for (size_t i = 0; i < x.ndatasets; i++)
			plan_print_dataset(&x, &x.datasets[i]);
		if (x.cache == CFG_CACHE_SHIFT) {
			char shift[512];
			plan_shift_describe(&x, nodes, shift, sizeof shift);
			printf("%s\n", shift);
		}
		printf("%5s  %-12s %10s %9s %7s %8s %15s %-8s %9s %-8s %4s %12s\n", "phase",
		       "dataset", "file size", "files", "r/node", "readers", "files/reader",
		       "backend", "transfer", "order", "rep", "bytes");
		for (uint64_t i = 0; i < n; i++) {
			plan_print_phase(&x, &t, i);
			struct plan_point p;
			plan_phase_at(&x, i, &p);
			total += x.datasets[p.dataset].total_size;
		}
		printf("total volume read: %s (%llu B)\n", units_format_size(total, vol, sizeof vol),
		       (unsigned long long)total);
	}
	topo_map_free(&t);
	cfg_free(&x);
	return rc;
}

/* ---- commands under MPI ---------------------------------------------------------------- */

/* Rank 0 reads the config once and broadcasts its text; every rank parses the same bytes. */
static int load_config_everywhere(const char *path, int rank, struct experiment *x,
				  struct pf_err *e)
{
	long long len = -1;
	int rc = 0;
	if (rank == 0) {
		rc = cfg_load(path, x, e);
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
		rc = cfg_parse(path, text, (size_t)len, x, e);
	if (rank != 0)
		free(text);
	return rc;
}

static void join_command_line(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
}

static int run_mpi_command(const char *cmd, int argc, char **argv, int rank, char *cmdline,
			   struct pf_err *e)
{
	const char *config = NULL;
	struct run_opts o = {.output = NULL, .force = 0, .command_line = cmdline};
	for (int i = 0; i < argc; i++) {
		if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			o.output = argv[++i];
		else if (strcmp(cmd, "run") == 0 && strcmp(argv[i], "--force") == 0)
			o.force = 1;
		else if (argv[i][0] == '-' || config != NULL)
			return usage_error(e, "unexpected argument '%s'", argv[i]);
		else
			config = argv[i];
	}
	if (config == NULL)
		return usage_error(e, "%s: name a config file", cmd);
	struct experiment x;
	memset(&x, 0, sizeof x);
	stop_watchdog_stage("reading the config (MPI_Bcast from rank 0)");
	int rc = load_config_everywhere(config, rank, &x, e);
	if (rc == 0 && stop_watchdog_arm(x.startup_timeout) != 0)
		rc = pf_fail(e, PF_RUNTIME, "cannot set the start-up watchdog");
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
		rc = generate_all(&x, e);
	else if (rc == 0 && strcmp(cmd, "verify") == 0)
		rc = verify_all(&x, e);
	else if (rc == 0 && strcmp(cmd, "clean") == 0)
		rc = clean_all(&x, e);
	cfg_free(&x);
	return rc;
}

/* Every rank prints its own failure unless it is the one rank 0 prints; all agree on the
 * exit status (the worst). */
/* "rank 3 (n2)": which rank, on which host, for a message of that rank's own. */
static void rank_label(int rank, char *buf, size_t len)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown host");
	snprintf(buf, len, "rank %d (%s)", rank, host);
}

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
	if (e.status == PF_OK && backend_check_registry(&e) == 0 && strcmp(cmd, "calibrate") == 0)
		calibrate_command(argc, argv, cmdline, &e);
	else if (e.status == PF_OK)
		run_mpi_command(cmd, argc, argv, rank, cmdline, &e);
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
		cmd_report(argc - 2, argv + 2, &e);
	else if (strcmp(cmd, "plan") == 0)
		cmd_plan(argc - 2, argv + 2, &e);
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
