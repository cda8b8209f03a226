/* check: what is settled and checked across keys once the whole document is read: sizes need
 * the seed, twins the totals, layouts the top level's default; then the limits of a directory,
 * of a run's phases and volume, and the readers per node against a real topology. */
#include "config/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sizes.h"
#include "config/sweep.h"
#include "util/units.h"
#include "util/stop.h"

/* A lognormal data set by file_count: sum its sizes; by total_size: draw sizes until the
 * total is reached, the last file trimmed so that the total is exact. O(nfiles), at most
 * budget files (what is left of SIZES_MAX_FILES for the whole config). 0; -1 when the files
 * would be more than budget or the total more than CFG_DATASET_BYTES_MAX; -2 when a signal
 * asked to stop. */
static int cfg_lognormal_totals(struct cfg_dataset *d, uint64_t want, uint64_t budget)
{
	uint64_t sum = 0;
	if (want == 0) {
		if (d->nfiles > budget)
			return -1;
		for (uint64_t i = 0; i < d->nfiles; i++) {
			if (i % 65536 == 0 && stop_signal() != 0)
				return -2;
			uint64_t s = sizes_lognormal(d, i);
			if (s > CFG_DATASET_BYTES_MAX - sum)
				return -1;
			sum += s;
		}
		d->total_size = sum;
		return 0;
	}
	for (uint64_t i = 0; i < budget; i++) {
		if (i % 65536 == 0 && stop_signal() != 0)
			return -2;
		uint64_t s = sizes_lognormal(d, i);
		if (s >= want - sum) {
			d->nfiles = i + 1;
			d->last_size = s == want - sum ? 0 : want - sum;
			return 0;
		}
		sum += s;
	}
	return -1;
}

/* Copy the seed into each data set; count and sum what a distribution makes (*drawn: the
 * lognormal files of the data sets before, all of which count against SIZES_MAX_FILES: the
 * load must stay short); the median of a histogram. */
int cfg_settle_sizes(struct cfg_ctx *c, size_t i, uint64_t *drawn)
{
	char key[CFG_KEY_MAX];
	struct cfg_dataset *d = &c->x->datasets[i];
	d->seed = c->x->seed;
	if (snprintf(key, sizeof key, "datasets[%zu].sizes", i) < 0)
		key[0] = '\0';
	if (d->sizes == CFG_SIZES_HISTOGRAM) {
		d->stride = sizes_histogram_stride(d->nfiles);
		d->file_size = sizes_histogram_median(d);
		return 0;
	}
	if (d->sizes != CFG_SIZES_LOGNORMAL)
		return 0;
	uint64_t want = d->nfiles > 0 ? 0 : d->total_size; /* file_count left nfiles set */
	int rc = cfg_lognormal_totals(d, want, SIZES_MAX_FILES - *drawn);
	if (rc == -2)
		return stop_check(c->e, c->source);
	if (rc != 0 && want == 0 && d->nfiles <= SIZES_MAX_FILES - *drawn)
		return cfg_fail_at(c->e, c->x, d->pos, key, "%llu files of this distribution hold "
				   "more than 1 EiB, the most pfsread accepts in a data set",
				   (unsigned long long)d->nfiles);
	if (rc != 0)
		return cfg_fail_at(c->e, c->x, d->pos, key, "the size distributions of this config "
				   "need more than %llu files in all (%llu before this data set): "
				   "the most pfsread draws at load (README, Safety)",
				   (unsigned long long)SIZES_MAX_FILES, (unsigned long long)*drawn);
	*drawn += d->nfiles;
	return 0;
}

/* Twin t's name is taken: named at its data set's twin key (the index as written). */
static int cfg_twin_clash(struct cfg_ctx *c, size_t t)
{
	char key[CFG_KEY_MAX];
	const struct cfg_dataset *all = c->x->datasets;
	size_t parent = (size_t)all[t].twin_of - 1, before = 0;
	for (size_t i = 0; i < parent; i++)
		before += all[i].twin_of != 0;
	if (snprintf(key, sizeof key, "datasets[%zu].twin", parent - before) < 0)
		key[0] = '\0';
	return cfg_fail_at(c->e, c->x, all[t].pos, key,
			   "the twin '%s' has the name of another data set", all[t].name);
}

/* twin: true: insert NAME-onefile after NAME, one file of NAME's total bytes. */
int cfg_add_twins(struct cfg_ctx *c)
{
	struct experiment *x = c->x;
	size_t n = x->ndatasets, more = 0;
	for (size_t i = 0; i < n; i++)
		more += x->datasets[i].twin != 0;
	if (more == 0)
		return 0;
	struct cfg_dataset *all = calloc(n + more, sizeof *all);
	if (all == NULL)
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory for data sets", c->source);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		all[k++] = *d;
		if (!d->twin)
			continue;
		struct cfg_dataset *t = &all[k++];
		if (d->sizes != CFG_SIZES_TREE && d->total_size > CFG_FILE_SIZE_MAX) {
			char key[CFG_KEY_MAX];
			free(all);
			if (snprintf(key, sizeof key, "datasets[%zu].twin", i) < 0)
				key[0] = '\0';
			return cfg_fail_at(c->e, x, d->pos, key, "the one-file twin would be one "
					   "file of %llu B, more than 1 PiB, the largest file pfsread "
					   "makes", (unsigned long long)d->total_size);
		}
		t->pos = d->pos;
		t->seed = d->seed;
		t->sizes = CFG_SIZES_FIXED;
		t->file_size = t->total_size = d->total_size;
		t->nfiles = 1;
		t->twin_of = (int)(k - 1); /* 1 + the index of d, which sits just before */
		if (snprintf(t->name, sizeof t->name, "%s-onefile", d->name) >= (int)sizeof t->name) {
			char key[CFG_KEY_MAX];
			free(all);
			if (snprintf(key, sizeof key, "datasets[%zu].twin", i) < 0)
				key[0] = '\0';
			return cfg_fail_at(c->e, x, d->pos, key, "data set name '%s' is too long "
					   "for a twin named NAME-onefile", d->name);
		}
	}
	free(x->datasets);
	x->datasets = all;
	x->ndatasets = n + more;
	struct cfg_names names;
	if (cfg_names_init(&names, x->ndatasets) != 0)
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory for data sets", c->source);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		size_t *slot = cfg_names_slot(&names, x->datasets, x->datasets[i].name);
		if (*slot != 0)
			rc = cfg_twin_clash(c, x->datasets[i].twin_of ? i : *slot - 1);
		*slot = i + 1;
	}
	free(names.slot);
	return rc;
}

/* A data set without a layout of its own (a twin too: one file) takes the top level's:
 * indexed with the top-level files_per_dir, whichever order the keys came in. */
void cfg_settle_layouts(struct experiment *x)
{
	for (size_t i = 0; i < x->ndatasets; i++) {
		struct cfg_layout *l = &x->datasets[i].layout;
		if (!l->given)
			l->kind = CFG_LAYOUT_INDEXED;
		if (x->datasets[i].from_tree != NULL)
			l->kind = x->datasets[i].in_place ? CFG_LAYOUT_IN_PLACE : CFG_LAYOUT_TREE;
		if (l->kind == CFG_LAYOUT_INDEXED && !l->fpd_given)
			l->files_per_dir = x->files_per_dir;
		if (l->kind != CFG_LAYOUT_INDEXED)
			l->files_per_dir = 0;
		if (l->kind != CFG_LAYOUT_HASHED) {
			l->depth = l->width = 0;
			l->digest = DIGEST_NONE;
		}
	}
}

/* An in-place tree holds its own bytes, not pfsread's pattern, and has no digest list:
 * verify: true and process.digest cannot check it (cpu_ns_per_byte alone can run). */
int cfg_check_in_place(struct cfg_ctx *c)
{
	char key[CFG_KEY_MAX];
	const struct experiment *x = c->x;
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		if (!d->in_place || (!x->verify && x->process_digest == DIGEST_NONE))
			continue;
		if (snprintf(key, sizeof key, "datasets[%zu].in_place", d->entry) < 0)
			key[0] = '\0';
		return cfg_fail_at(c->e, x, d->tree_pos, key, "%s checks pfsread's own content, "
				   "and a tree read in place holds its own",
				   x->verify ? "verify: true" : "process.digest");
	}
	return 0;
}

/* The most entries one directory of d gets: an indexed data set's directories (and each one's
 * files), a flat one's files, a hashed leaf's files (names are uniform). 0 when d's layout
 * is not known at load (a tree's: the tree has it). */
static uint64_t cfg_fanout(const struct cfg_dataset *d, const char **what)
{
	const struct cfg_layout *l = &d->layout;
	if (l->kind == CFG_LAYOUT_INDEXED) {
		*what = "directories in the data set's directory (raise files_per_dir)";
		return (d->nfiles + l->files_per_dir - 1) / l->files_per_dir; /* fpd: the larger */
	}
	if (l->kind == CFG_LAYOUT_FLAT) {
		*what = "files in one directory (layout flat; use indexed or hashed)";
		return d->nfiles;
	}
	if (l->kind != CFG_LAYOUT_HASHED)
		return 0;
	*what = "files in each directory of the hashed layout (more depth or width)";
	uint64_t bits = 4 * l->width * l->depth, leaves = bits >= 63 ? UINT64_MAX : 1ULL << bits;
	return d->nfiles / leaves + (d->nfiles % leaves != 0);
}

int cfg_check_fanout(struct cfg_ctx *c)
{
	char key[CFG_KEY_MAX];
	const struct experiment *x = c->x;
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		const char *what = "";
		uint64_t most = cfg_fanout(d, &what);
		if (most <= CFG_FANOUT_MAX)
			continue;
		if (snprintf(key, sizeof key, "datasets[%zu]", d->entry) < 0)
			key[0] = '\0';
		return cfg_fail_at(c->e, x, d->pos, key, "%llu files make %llu %s: more than %llu, "
				   "the most pfsread puts in one directory (README, Safety)",
				   (unsigned long long)d->nfiles, (unsigned long long)most, what,
				   (unsigned long long)CFG_FANOUT_MAX);
	}
	return 0;
}

int cfg_check_volume(const struct experiment *x, struct pf_err *e)
{
	uint64_t cells = cfg_sweep_cells(x); /* each list <= CFG_LIST_MAX: < 2^30 */
	uint64_t per_rep = 0, bytes = 0;
	int too_many = x->ndatasets > CFG_PHASES_MAX / cells;
	if (!too_many) {
		per_rep = cells * x->ndatasets;
		too_many = (uint64_t)x->repetitions > CFG_PHASES_MAX / per_rep;
	}
	if (too_many)
		return cfg_fail_at(e, x, x->volume_pos, x->volume_key,
				   "%d repetitions x %zu data sets x %llu combinations of the sweep "
				   "lists make more than %llu phases, the most pfsread runs (README, "
				   "Safety)", x->repetitions, x->ndatasets, (unsigned long long)cells,
				   (unsigned long long)CFG_PHASES_MAX);
	for (size_t i = 0; i < x->ndatasets && bytes <= CFG_VOLUME_MAX; i++)
		bytes = x->datasets[i].total_size > CFG_VOLUME_MAX - bytes
				? CFG_VOLUME_MAX + 1 : bytes + x->datasets[i].total_size;
	uint64_t times = cells * (uint64_t)x->repetitions; /* <= CFG_PHASES_MAX */
	if (bytes > CFG_VOLUME_MAX || (bytes > 0 && times > CFG_VOLUME_MAX / bytes))
		return cfg_fail_at(e, x, x->volume_pos, x->volume_key,
				   "the phases would read more than 8 EiB in all, the most pfsread "
				   "counts (README, Safety)");
	return 0;
}

int cfg_check_readers(const struct experiment *x, int least, struct pf_err *e)
{
	for (size_t i = 0; i < x->nreaders; i++) {
		if (x->readers_per_node[i] <= least)
			continue;
		char key[64];
		snprintf(key, sizeof key, "sweep.readers_per_node[%zu]", i);
		return cfg_fail_at(e, x, x->readers_pos[i], key,
				   "%d reader%s per node, but a node has only %d rank%s "
				   "(launch more ranks per node)",
				   x->readers_per_node[i],
				   units_s((unsigned long long)x->readers_per_node[i]), least,
				   units_s((unsigned long long)least));
	}
	return 0;
}
