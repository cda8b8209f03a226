/* plan: the plan command, a dry run on one process: the phases an experiment makes on N ranks
 * over M nodes, each data set's files and bytes, each phase's files per reader, the volume. */
#include "cmd/cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "dataset/fromtree.h"
#include "run/backend.h"
#include "cmd/datasets.h"
#include "cmd/plan.h"
#include "cmd/plan_estimate.h"
#include "cmd/run_check.h"
#include "run/plan.h"
#include "util/space.h"
#include "util/units.h"
#include "util/safe.h"

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
	printf("data set %s: %llu file%s, %s (%llu B)", d->name, (unsigned long long)d->nfiles,
	       units_s(d->nfiles), total, (unsigned long long)d->total_size);
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
	int rpn = x->readers_per_node[p.at[SWEEP_READERS]];
	uint64_t readers = plan_reader_count(t, rpn);
	uint64_t most = (d->nfiles + readers - 1) / readers, least = d->nfiles / readers;
	printf("%5llu  %-12s %10s %9llu %7d %8llu %7llu-%-7llu %-8s %9s %-8s %4d %12s\n",
	       (unsigned long long)i, d->name, units_format_size_binary(d->file_size, fsize, sizeof fsize),
	       (unsigned long long)d->nfiles, rpn, (unsigned long long)readers,
	       (unsigned long long)least, (unsigned long long)most,
	       x->backends[p.at[SWEEP_BACKEND]],
	       units_format_size_binary(x->transfer_sizes[p.at[SWEEP_TRANSFER]], xfer, sizeof xfer),
	       cfg_order_name(x->orders[p.at[SWEEP_ORDER]]),
	       p.repetition, /* from 0, as run and report count */
	       units_format_size(d->total_size, bytes, sizeof bytes));
}

/* What generate would do with d, and whether run could read it now: generate's refusals
 * (a directory not ours, another data set there) are plan's. *missing gets 1 when d is not
 * generated whole yet. */
static int plan_check_dataset(const struct experiment *x, const struct cfg_dataset *d,
			      int quiet, int *missing, struct pf_err *e)
{
	struct manifest have;
	int state = GEN_FRESH;
	*missing = 0;
	if (gen_classify(x, d, &state, &have, e) != 0)
		return -1;
	if (state == GEN_DONE || d->layout.kind == CFG_LAYOUT_IN_PLACE)
		return 0;
	*missing = 1;
	if (!quiet)
		printf("check: data set %s is %s: generate makes it (run alone would stop)\n", d->name,
		       state == GEN_RESUME ? "generated in part" : "not generated");
	return 0;
}

/* 1 when neither root nor its parent directory exists here: a login node without the file
 * system mounted, where the nearest existing parent would be another file system. */
static int plan_root_unseen(const struct experiment *x)
{
	char parent[CFG_PATH_MAX + 1];
	struct stat st;
	if (stat(x->root, &st) == 0)
		return 0;
	snprintf(parent, sizeof parent, "%s", x->root);
	char *slash = strrchr(parent, '/');
	if (slash == NULL)
		return 0; /* relative, in the working directory: that is here */
	slash[slash == parent] = '\0';
	return stat(parent, &st) != 0;
}

/* Every check run and generate would make before touching a file, here at submission: the
 * backends, the cache mode (drop needs root), readers per node against the ranks (above),
 * the data sets (generated or not, and what generate would refuse), and the room generate
 * needs for what is missing (space_check, as generate counts it, whole data sets). Quiet:
 * no "check:" lines, only the failure. */
static int plan_checks(const struct experiment *x, const struct topo_map *t, int quiet,
		       struct pf_err *e)
{
	struct space_need need = {0, 0};
	struct space_fs fs;
	int any = 0;
	if (run_check_experiment(x, t, 0, e) != 0 ||
	    gen_check_root(x->root, "plan", " (clean refuses it: what generate made there could "
			   "not be removed)", e) != 0)
		return -1;
	if (plan_root_unseen(x)) {
		char root[SAFE_ROOM(CFG_PATH_MAX)];
		if (quiet)
			return 0;
		printf("check: %s and its parent are not here (not mounted on this machine?): the "
		       "data sets and the room to generate them are not checked\n",
		       safe_text(root, sizeof root, x->root, 0));
		return 0;
	}
	for (size_t i = 0; i < x->ndatasets; i++) {
		int missing = 0;
		if (plan_check_dataset(x, &x->datasets[i], quiet, &missing, e) != 0)
			return -1;
		any |= missing;
		if (missing && x->space_check) {
			struct space_need one;
			if (space_probe(x->root, &fs, e) != 0)
				return -1;
			dataset_space_need(x, &x->datasets[i], fs.alloc, &one);
			space_add(&need, &one);
		}
	}
	if (any && x->space_check && (space_probe(x->root, &fs, e) != 0 ||
				      space_check(&fs, &need, "generate", e) != 0))
		return -1;
	if (!quiet)
		printf("check: backends, cache, readers per node%s: ok\n",
		       any ? (x->space_check ? ", room to generate" : "") : ", data sets generated");
	return 0;
}

static int plan_print_value(const struct plan_args *a, struct pf_err *e);

int plan_parse(int argc, char **argv, struct plan_args *a, struct pf_err *e)
{
	memset(a, 0, sizeof *a);
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], "--ranks", &a->ranks, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
			if (parse_count(argv[++i], "--nodes", &a->nodes, e) != 0)
				return -1;
		} else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
			a->est.from = argv[++i];
		} else if (strcmp(argv[i], "--calibration") == 0 && i + 1 < argc) {
			a->est.calibration = argv[++i];
		} else if (strcmp(argv[i], "--walltime") == 0 && i + 1 < argc) {
			const char *why = NULL;
			if (units_parse_duration(argv[++i], &a->est.walltime, &why) != 0 ||
			    !(a->est.walltime > 0))
				return pf_fail(e, PF_USAGE, "plan: --walltime: '%s' is not a positive "
					       "duration", argv[i]);
		} else if (strcmp(argv[i], "--pilot") == 0) {
			int n = 0; /* --pilot [N]: a count right after it is the pilot's */
			a->pilot = 1;
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
				if (parse_count(argv[++i], "--pilot N", &n, e) != 0)
					return -1;
				a->pilot_files = (uint64_t)n;
			}
		} else if (strcmp(argv[i], "--print") == 0 && i + 1 < argc) {
			a->print = argv[++i];
		} else if (strcmp(argv[i], "--pilot-output") == 0 && i + 1 < argc) {
			a->pilot_output = argv[++i];
		} else if (argv[i][0] == '-' || a->config != NULL) {
			return pf_fail(e, PF_USAGE, "plan: unexpected argument '%s'", argv[i]);
		} else {
			a->config = argv[i];
		}
	}
	if (a->config == NULL || (!a->pilot && (a->ranks == 0 || a->nodes == 0)))
		return pf_fail(e, PF_USAGE, "plan: usage: pfsread plan CONFIG --ranks N --nodes M "
			       "(or under MPI: plan CONFIG --pilot [N])");
	if (a->print != NULL && a->pilot)
		return pf_fail(e, PF_USAGE, "plan: --print goes without --pilot");
	if (a->pilot_output != NULL && !a->pilot)
		return pf_fail(e, PF_USAGE, "plan: --pilot-output goes with --pilot");
	if (a->pilot && (a->est.from != NULL || a->est.calibration != NULL))
		return pf_fail(e, PF_USAGE, "plan: --pilot estimates from its own reads: not with "
			       "%s", a->est.from != NULL ? "--from" : "--calibration");
	return 0;
}

int plan_command(int argc, char **argv, struct pf_err *e)
{
	struct plan_args a;
	if (plan_parse(argc, argv, &a, e) != 0)
		return -1;
	if (a.pilot) /* main sends --pilot to MPI: not here */
		return pf_fail(e, PF_USAGE, "plan: --pilot runs under MPI (mpirun ... pfsread plan "
			       "CONFIG --pilot)");
	return a.print != NULL ? plan_print_value(&a, e) : plan_show(&a, e);
}

/* The config loaded into x (the caller frees it with cfg_free, also on failure) and checked
 * as run checks it at load, and an even map of ranks over nodes into t (freed by the caller):
 * what plan and job refuse before anything else. */
static int plan_prepare(const char *config, int ranks, int nodes, struct experiment *x,
			struct topo_map *t, struct pf_err *e)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	memset(x, 0, sizeof *x);
	if (nodes > ranks)
		return pf_fail(e, PF_USAGE, "plan: more nodes than ranks");
	backend_config(blocks, BACKEND_BLOCKS_MAX);
	if (cfg_load(config, blocks, x, e) != 0)
		return -1;
	/* before any line of the table: what run refuses at load, plan refuses */
	plan_default_cache(x);
	int rc = run_check_config(x, e);
	/* one process: scanning the trees here is the exact count, and no storm */
	if (rc == 0)
		rc = fromtree_scan_all(x, e);
	if (rc == 0 && plan_even_map(ranks, nodes, t) != 0)
		rc = pf_fail(e, PF_RUNTIME, "plan: out of memory");
	for (size_t i = 0; rc == 0 && i < x->nreaders; i++) {
		if (x->readers_per_node[i] <= plan_min_node_size(t))
			continue;
		char key[64];
		snprintf(key, sizeof key, "sweep.readers_per_node[%zu]", i);
		rc = cfg_fail_at(e, x, x->readers_pos[i], key,
				 "%d reader%s per node, but %d rank%s on %d node%s give a node only %d",
				 x->readers_per_node[i], units_s((unsigned long long)x->readers_per_node[i]),
				 ranks, units_s((unsigned long long)ranks), nodes,
				 units_s((unsigned long long)nodes), plan_min_node_size(t));
	}
	return rc;
}

int plan_check_quiet(const char *config, int ranks, int nodes, struct experiment *x,
		     struct pf_err *e)
{
	struct topo_map t = {0};
	int rc = plan_prepare(config, ranks, nodes, x, &t, e);
	if (rc == 0)
		rc = plan_checks(x, &t, 1, e);
	topo_map_free(&t);
	return rc;
}

/* --print KEY: plan's checks, quiet, then one value on its own line, for a script to take
 * whole (the sweep over node counts): the experiment's name, or its largest readers_per_node. */
static int plan_print_value(const struct plan_args *a, struct pf_err *e)
{
	struct experiment x;
	int rc = plan_check_quiet(a->config, a->ranks, a->nodes, &x, e), most = 0;
	if (rc == 0 && strcmp(a->print, "name") == 0) {
		printf("%s\n", x.name);
	} else if (rc == 0 && strcmp(a->print, "readers-per-node-max") == 0) {
		for (size_t i = 0; i < x.nreaders; i++)
			most = x.readers_per_node[i] > most ? x.readers_per_node[i] : most;
		printf("%d\n", most);
	} else if (rc == 0) {
		rc = pf_fail(e, PF_USAGE, "plan: --print takes name or readers-per-node-max, not "
			     "'%s'", a->print);
	}
	cfg_free(&x);
	return rc;
}

/* The table's head line, the data sets and the defaults in force. */
static void plan_print_head(const struct experiment *x, int ranks, int nodes, uint64_t n)
{
	char root[SAFE_ROOM(CFG_PATH_MAX)];
	printf("experiment %s: %llu phase%s on %d rank%s over %d node%s, data sets under %s\n",
	       x->name, (unsigned long long)n, n == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s",
	       nodes, nodes == 1 ? "" : "s", safe_text(root, sizeof root, x->root, 0));
	for (size_t i = 0; i < x->ndatasets; i++)
		plan_print_dataset(x, &x->datasets[i]);
	if (x->cache == CFG_CACHE_SHIFT) {
		char shift[512];
		plan_shift_describe(x, nodes, shift, sizeof shift);
		printf("%s\n", shift);
	}
	plan_print_defaults(x);
}

int plan_show(const struct plan_args *a, struct pf_err *e)
{
	struct experiment x;
	struct topo_map t = {0};
	int rc = plan_prepare(a->config, a->ranks, a->nodes, &x, &t, e);
	if (rc == 0) {
		uint64_t n = plan_phase_count(&x), total = 0;
		char vol[32];
		plan_print_head(&x, a->ranks, a->nodes, n);
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
		rc = plan_checks(&x, &t, 0, e);
		if (rc == 0)
			rc = plan_estimate(&x, &t, &a->est, e);
	}
	topo_map_free(&t);
	cfg_free(&x);
	return rc;
}
