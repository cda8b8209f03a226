/* datasets: the datasets: list. Each entry's keys (name, sizes fixed or drawn, the count or
 * the total, its layout, from_tree), which keys exclude which, and unique names. */
#include "config/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/sizes.h"
#include "util/digest.h"
#include "util/stop.h"

/* One histogram entry: [size, count], size > 0, count > 0, a size not given before. */
static int cfg_bucket(struct cfg_ctx *c, const char *key, struct ynode *v, struct cfg_dataset *d)
{
	char sub[CFG_KEY_MAX];
	struct cfg_bucket *b = &d->buckets[d->nbuckets];
	if (cfg_expect(c, key, v, YAML_SEQUENCE_NODE) != 0)
		return -1;
	if (v->n != 2)
		return cfg_fail(c, v, key, "expected [size, count]");
	struct ynode *sz = cfg_node(c, v->kids[0]);
	struct ynode *n = cfg_node(c, v->kids[1]);
	if (sz == NULL || n == NULL)
		return -1;
	if (snprintf(sub, sizeof sub, "%s[0]", key) < 0)
		sub[0] = '\0';
	if (cfg_h_size(c, sub, sz, &b->size, 0) != 0)
		return -1;
	if (snprintf(sub, sizeof sub, "%s[1]", key) < 0)
		sub[0] = '\0';
	if (cfg_uint(c, sub, n, 1, UINT64_MAX, &b->count) != 0)
		return -1;
	for (size_t j = 0; j < d->nbuckets; j++)
		if (d->buckets[j].size == b->size)
			return cfg_fail(c, sz, key, "size %" PRIu64 " B given twice (entry %zu)",
					b->size, j);
	uint64_t before = d->nbuckets > 0 ? d->buckets[d->nbuckets - 1].end : 0;
	if (b->count > SIZES_MAX_FILES - before)
		return cfg_fail(c, n, key, "more than %llu files in all",
				(unsigned long long)SIZES_MAX_FILES);
	b->end = before + b->count;
	if (b->count > (CFG_DATASET_BYTES_MAX - d->total_size) / b->size)
		return cfg_fail(c, v, key, "the data set would hold more than 1 EiB, the most pfsread "
				"accepts (README, Safety)");
	d->total_size += b->size * b->count;
	d->nbuckets++;
	return 0;
}

static int cfg_h_histogram(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size)
{
	char item[CFG_KEY_MAX];
	struct cfg_dataset *d = dst;
	(void)size;
	if (cfg_expect(c, key, v, YAML_SEQUENCE_NODE) != 0)
		return -1;
	size_t n = v->n;
	if (n == 0)
		return cfg_fail(c, v, key, "must not be empty");
	if (n > CFG_BUCKETS_MAX)
		return cfg_fail(c, v, key, "has %zu entries, at most %d allowed", n, CFG_BUCKETS_MAX);
	d->sizes = CFG_SIZES_HISTOGRAM;
	d->total_size = 0;
	if ((d->buckets = calloc(n, sizeof *d->buckets)) == NULL)
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory", c->source);
	for (size_t i = 0; i < n; i++) {
		struct ynode *it = cfg_node(c, v->kids[i]);
		if (snprintf(item, sizeof item, "%s[%zu]", key, i) < 0)
			item[0] = '\0';
		if (it == NULL || cfg_bucket(c, item, it, d) != 0)
			return -1;
	}
	d->nfiles = d->buckets[n - 1].end;
	return 0;
}

enum { SZ_DIST, SZ_MEDIAN, SZ_SIGMA, SZ_MIN, SZ_MAX, SZ_HISTOGRAM, SZ_NFIELDS };

/* The sizes mapping fills the data set itself (offsets into struct cfg_dataset). */
static const struct cfg_field cfg_sizes_fields[SZ_NFIELDS] = {
	[SZ_DIST] = {"distribution", cfg_h_distribution, offsetof(struct cfg_dataset, sizes), 0, 0},
	[SZ_MEDIAN] = {"median", cfg_h_size, offsetof(struct cfg_dataset, median), 0, 0},
	[SZ_SIGMA] = {"sigma", cfg_h_sigma, offsetof(struct cfg_dataset, sigma), 0, 0},
	[SZ_MIN] = {"min", cfg_h_size, offsetof(struct cfg_dataset, min), 0, 0},
	[SZ_MAX] = {"max", cfg_h_size, offsetof(struct cfg_dataset, max), 0, 0},
	[SZ_HISTOGRAM] = {"histogram", cfg_h_histogram, 0, 0, 0},
};

/* Either histogram alone, or distribution with all of median, sigma, min and max. */
static int cfg_sizes_check(struct cfg_ctx *c, const char *key, struct ynode *v,
			   struct cfg_dataset *d, const struct cfg_seen *seen)
{
	char k[CFG_KEY_MAX];
	if (seen[SZ_HISTOGRAM].key != NULL) {
		for (size_t i = 0; i < SZ_NFIELDS; i++) {
			if (i == SZ_HISTOGRAM || seen[i].key == NULL)
				continue;
			cfg_path(k, sizeof k, key, cfg_sizes_fields[i].name);
			return cfg_fail(c, seen[i].key, k, "not allowed with histogram");
		}
		return 0;
	}
	if (seen[SZ_DIST].key == NULL) {
		cfg_path(k, sizeof k, key, "distribution");
		return cfg_fail(c, v, k, "is required but missing (or give histogram)");
	}
	for (size_t i = SZ_MEDIAN; i <= SZ_MAX; i++) {
		if (seen[i].key != NULL)
			continue;
		cfg_path(k, sizeof k, key, cfg_sizes_fields[i].name);
		return cfg_fail(c, v, k, "is required but missing for distribution lognormal");
	}
	cfg_path(k, sizeof k, key, "min");
	if (d->min > d->max)
		return cfg_fail(c, seen[SZ_MIN].val, k, "min %" PRIu64 " B is above max %" PRIu64 " B",
				d->min, d->max);
	cfg_path(k, sizeof k, key, "median");
	if (d->median < d->min || d->median > d->max)
		return cfg_fail(c, seen[SZ_MEDIAN].val, k,
				"median %" PRIu64 " B is outside [min, max] = [%" PRIu64 ", %" PRIu64
				"] B",
				d->median, d->min, d->max);
	return 0;
}

static int cfg_h_sizes(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct cfg_seen seen[SZ_NFIELDS];
	(void)size;
	if (cfg_walk(c, key, v, cfg_sizes_fields, SZ_NFIELDS, dst, seen) != 0)
		return -1;
	return cfg_sizes_check(c, key, v, dst, seen);
}

enum { LY_KIND, LY_FPD, LY_DEPTH, LY_WIDTH, LY_DIGEST, LY_NFIELDS };

static const struct cfg_field cfg_ds_layout_fields[LY_NFIELDS] = {
	[LY_KIND] = {"kind", cfg_h_layout_kind, offsetof(struct cfg_layout, kind), 0, 0},
	[LY_FPD] = {"files_per_dir", CFG_INTEGER, offsetof(struct cfg_layout, files_per_dir),
		    CFG_MEMBER_SIZE(struct cfg_layout, files_per_dir), 0, 1, CFG_FANOUT_MAX},
	[LY_DEPTH] = {"depth", CFG_INTEGER, offsetof(struct cfg_layout, depth),
		      CFG_MEMBER_SIZE(struct cfg_layout, depth), 0, 0, CFG_HASH_DEPTH_MAX},
	[LY_WIDTH] = {"width", CFG_INTEGER, offsetof(struct cfg_layout, width),
		      CFG_MEMBER_SIZE(struct cfg_layout, width), 0, 1, CFG_HASH_WIDTH_MAX},
	[LY_DIGEST] = {"digest", cfg_h_name_digest, offsetof(struct cfg_layout, digest), 0, 0},
};

/* Keys that belong to another kind are refused by name: files_per_dir only with indexed,
 * depth, width and digest only with hashed. */
static int cfg_layout_check(struct cfg_ctx *c, const char *key, const struct cfg_layout *l,
			    const struct cfg_seen *seen)
{
	char k[CFG_KEY_MAX];
	for (size_t i = LY_FPD; i < LY_NFIELDS; i++) {
		int fits = i == LY_FPD ? l->kind == CFG_LAYOUT_INDEXED : l->kind == CFG_LAYOUT_HASHED;
		if (seen[i].key == NULL || fits)
			continue;
		cfg_path(k, sizeof k, key, cfg_ds_layout_fields[i].name);
		return cfg_fail(c, seen[i].key, k, "not allowed with kind %s (only with %s)",
				cfg_layout_name(l->kind), i == LY_FPD ? "indexed" : "hashed");
	}
	/* each level takes the next width digits of the name */
	size_t digits = digest_hex_len(l->digest);
	if (l->kind == CFG_LAYOUT_HASHED && l->depth * l->width > digits) {
		size_t i = seen[LY_DEPTH].key != NULL ? LY_DEPTH
			   : seen[LY_WIDTH].key != NULL ? LY_WIDTH : LY_DIGEST;
		cfg_path(k, sizeof k, key, cfg_ds_layout_fields[i].name);
		return cfg_fail(c, seen[i].key, k, "depth %" PRIu64 " x width %" PRIu64 " is %" PRIu64
				" hex digits, more than a %s name has (%zu)", l->depth, l->width,
				l->depth * l->width, digest_name(l->digest), digits);
	}
	return 0;
}

/* layout: {kind: indexed|flat|hashed, ...}, or just the kind's name (layout: hashed). */
static int cfg_h_ds_layout(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size)
{
	struct cfg_seen seen[LY_NFIELDS];
	struct cfg_layout *l = dst;
	(void)size;
	l->given = 1;
	l->depth = 3;
	l->width = 2;
	l->digest = DIGEST_SHA1;
	if (v->type == YAML_SCALAR_NODE)
		return cfg_h_layout_kind(c, key, v, &l->kind, 0);
	if (cfg_walk(c, key, v, cfg_ds_layout_fields, LY_NFIELDS, l, seen) != 0)
		return -1;
	l->fpd_given = seen[LY_FPD].key != NULL;
	return cfg_layout_check(c, key, l, seen);
}

enum { DS_NAME, DS_FILE_SIZE, DS_TOTAL_SIZE, DS_FILE_COUNT, DS_SIZES, DS_TWIN, DS_LAYOUT,
       DS_FROM_TREE, DS_IN_PLACE, DS_NFIELDS };

/* from_tree: a directory; a missing one is for the command that scans it to judge (clean
 * of a twin must work after its source is gone), anything else in the way is not. */
static int cfg_h_from_tree(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size)
{
	struct stat st;
	struct cfg_dataset *d = dst;
	char path[CFG_PATH_MAX];
	(void)size;
	if (cfg_h_str(c, key, v, path, sizeof path) != 0)
		return -1;
	if ((d->from_tree = strdup(path)) == NULL)
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory", c->source);
	d->tree_pos = cfg_pos_of(v);
	if (stat(d->from_tree, &st) != 0)
		return errno == ENOENT ? 0 : cfg_fail(c, v, key, "cannot check '%s': %s",
						      d->from_tree, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cfg_fail(c, v, key, "'%s' is not a directory", d->from_tree);
	return 0;
}

/* file_count is read into nfiles, total_size into total_size; cfg_dataset_count settles both. */
static const struct cfg_field cfg_dataset_fields[DS_NFIELDS] = {
	[DS_NAME] = {"name", cfg_h_name, offsetof(struct cfg_dataset, name),
		     CFG_MEMBER_SIZE(struct cfg_dataset, name), 1},
	[DS_FILE_SIZE] = {"file_size", cfg_h_size, offsetof(struct cfg_dataset, file_size), 0, 0},
	[DS_TOTAL_SIZE] = {"total_size", cfg_h_total_size, offsetof(struct cfg_dataset, total_size), 0,
			   0},
	[DS_FILE_COUNT] = {"file_count", CFG_INTEGER, offsetof(struct cfg_dataset, nfiles),
			   CFG_MEMBER_SIZE(struct cfg_dataset, nfiles), 0, 1, CFG_FILES_MAX},
	[DS_SIZES] = {"sizes", cfg_h_sizes, 0, 0, 0},
	[DS_TWIN] = {"twin", cfg_h_bool, offsetof(struct cfg_dataset, twin), 0, 0},
	[DS_LAYOUT] = {"layout", cfg_h_ds_layout, offsetof(struct cfg_dataset, layout), 0, 0},
	[DS_FROM_TREE] = {"from_tree", cfg_h_from_tree, 0, 0, 0},
	[DS_IN_PLACE] = {"in_place", cfg_h_bool, offsetof(struct cfg_dataset, in_place), 0, 0},
};

/* from_tree: the tree gives the files, their sizes and their directories, so every key that
 * would say so too is refused by name; in_place needs a tree to read. */
static int cfg_dataset_tree(struct cfg_ctx *c, const char *path, const struct cfg_seen *seen,
			    struct cfg_dataset *d)
{
	static const int refused[] = {DS_FILE_SIZE, DS_TOTAL_SIZE, DS_FILE_COUNT, DS_SIZES,
				      DS_LAYOUT};
	char key[CFG_KEY_MAX];
	if (seen[DS_FROM_TREE].key == NULL) {
		if (seen[DS_IN_PLACE].key == NULL)
			return 1;
		cfg_path(key, sizeof key, path, "in_place");
		return cfg_fail(c, seen[DS_IN_PLACE].key, key,
				"needs from_tree: PATH (the tree to read in place)");
	}
	for (size_t i = 0; i < CFG_LEN(refused); i++) {
		if (seen[refused[i]].key == NULL)
			continue;
		cfg_path(key, sizeof key, path, cfg_dataset_fields[refused[i]].name);
		return cfg_fail(c, seen[refused[i]].key, key,
				"not allowed with from_tree (%s)",
				refused[i] == DS_LAYOUT ? "the twin keeps the tree's directories"
							: "the tree gives the files and their sizes");
	}
	d->sizes = CFG_SIZES_TREE;
	return 0;
}

/* A histogram counts its own files: file_count and total_size are refused with it. */
static int cfg_dataset_histogram(struct cfg_ctx *c, const char *path, const struct cfg_seen *seen)
{
	char key[CFG_KEY_MAX];
	for (int i = DS_TOTAL_SIZE; i <= DS_FILE_COUNT; i++) {
		if (seen[i].key == NULL)
			continue;
		cfg_path(key, sizeof key, path, cfg_dataset_fields[i].name);
		return cfg_fail(c, seen[i].key, key,
				"not allowed with a size histogram (its counts are the files)");
	}
	return 0;
}

/* Exactly one of file_size and sizes, and of total_size and file_count (but for a
 * histogram); then, for a fixed size, nfiles and the exact total_size. Lognormal data sets
 * are counted by cfg_settle_sizes once the seed is known. */
static int cfg_dataset_count(struct cfg_ctx *c, const char *path, const struct ynode *entry,
			     struct cfg_dataset *d, const struct cfg_seen *seen)
{
	char key[CFG_KEY_MAX];
	const struct ynode *total = seen[DS_TOTAL_SIZE].val, *count = seen[DS_FILE_COUNT].val;
	if (seen[DS_FILE_SIZE].key != NULL && seen[DS_SIZES].key != NULL) {
		cfg_path(key, sizeof key, path, "sizes");
		return cfg_fail(c, seen[DS_SIZES].key, key, "give file_size or sizes, not both");
	}
	if (seen[DS_FILE_SIZE].key == NULL && seen[DS_SIZES].key == NULL) {
		cfg_path(key, sizeof key, path, "file_size");
		return cfg_fail(c, entry, key, "is required but missing (or give sizes)");
	}
	if (d->sizes == CFG_SIZES_HISTOGRAM)
		return cfg_dataset_histogram(c, path, seen);
	if (total != NULL && count != NULL) {
		cfg_path(key, sizeof key, path, "file_count");
		return cfg_fail(c, seen[DS_FILE_COUNT].key, key,
				"give total_size or file_count, not both");
	}
	if (total == NULL && count == NULL)
		return cfg_fail(c, entry, path, "needs total_size or file_count");
	if (d->sizes == CFG_SIZES_LOGNORMAL) {
		d->file_size = d->median;
		if (count != NULL && d->nfiles > SIZES_MAX_FILES) {
			cfg_path(key, sizeof key, path, "file_count");
			return cfg_fail(c, count, key, "at most %llu files with a size distribution",
					(unsigned long long)SIZES_MAX_FILES);
		}
		return 0;
	}
	if (total != NULL) {
		const struct ynode *fs = seen[DS_FILE_SIZE].val;
		cfg_path(key, sizeof key, path, "file_size");
		if (d->file_size > d->total_size)
			return cfg_fail(c, fs, key, "file_size %s is larger than total_size %s",
					(const char *)fs->str,
					(const char *)total->str);
		d->nfiles = d->total_size / d->file_size; /* a remainder is dropped on purpose */
		cfg_path(key, sizeof key, path, "total_size");
		if (d->nfiles > CFG_FILES_MAX)
			return cfg_fail(c, total, key, "total_size / file_size makes %" PRIu64 " files, "
					"more than %llu, the most pfsread accepts in a data set "
					"(README, Safety)", d->nfiles, (unsigned long long)CFG_FILES_MAX);
		d->total_size = d->nfiles * d->file_size; /* <= the total given: no overflow */
		return 0;
	}
	/* only with file_count: count != NULL; nfiles <= CFG_FILES_MAX, file_size <=
	 * CFG_FILE_SIZE_MAX, so the product fits in 64 bits, and must fit the data set limit */
	if (d->nfiles > CFG_DATASET_BYTES_MAX / d->file_size) {
		cfg_path(key, sizeof key, path, "file_count");
		return cfg_fail(c, count, key, "file_count x file_size is more than 1 EiB, the most "
				"pfsread accepts in a data set (README, Safety)");
	}
	d->total_size = d->nfiles * d->file_size;
	return 0;
}

int cfg_names_init(struct cfg_names *t, size_t n)
{
	t->cap = 16;
	while (t->cap < 2 * n + 2)
		t->cap *= 2;
	t->slot = calloc(t->cap, sizeof *t->slot);
	return t->slot != NULL ? 0 : -1;
}

/* The slot of name: the index + 1 of the data set that has it, or an empty one (0). */
size_t *cfg_names_slot(const struct cfg_names *t, const struct cfg_dataset *all,
			      const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = name; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	size_t i = (size_t)h & (t->cap - 1);
	while (t->slot[i] != 0 && strcmp(all[t->slot[i] - 1].name, name) != 0)
		i = (i + 1) & (t->cap - 1);
	return &t->slot[i];
}

/* Data set i's name against those before it: a duplicate is named where it was written (the
 * alias's line when the entry or its name came through one, not the anchor's). */
static int cfg_dataset_unique(struct cfg_ctx *c, struct cfg_names *names, size_t i,
			      const char *path, struct cfg_pos at)
{
	char key[CFG_KEY_MAX];
	const struct cfg_dataset *d = c->x->datasets;
	size_t *slot = cfg_names_slot(names, d, d[i].name);
	if (*slot == 0) {
		*slot = i + 1;
		return 0;
	}
	size_t j = *slot - 1;
	cfg_path(key, sizeof key, path, "name");
	return cfg_fail_here(c, at, key, "duplicate data set name '%s' (datasets[%zu], line %d)",
			     d[i].name, j, d[j].pos.line);
}

/* Entry i of the datasets list, written at pos (an alias's, when it was one). */
static int cfg_dataset(struct cfg_ctx *c, struct cfg_names *names, size_t i, struct ynode *entry,
		       struct cfg_pos pos)
{
	char path[CFG_KEY_MAX];
	struct cfg_seen seen[DS_NFIELDS];
	struct cfg_dataset *d = &c->x->datasets[i];
	if (snprintf(path, sizeof path, "datasets[%zu]", i) < 0)
		path[0] = '\0';
	d->pos = pos;
	d->entry = i;
	if (cfg_walk(c, path, entry, cfg_dataset_fields, DS_NFIELDS, d, seen) != 0)
		return -1;
	int plain = cfg_dataset_tree(c, path, seen, d);
	if (plain < 0 || (plain && cfg_dataset_count(c, path, entry, d, seen) != 0))
		return -1;
	int aliased = pos.line != entry->pos.line || pos.col != entry->pos.col;
	return cfg_dataset_unique(c, names, i, path, aliased ? d->pos : seen[DS_NAME].at);
}

int cfg_h_datasets(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	struct experiment *x = c->x;
	struct cfg_names names;
	int rc = 0;
	(void)dst;
	(void)size;
	if (cfg_expect(c, key, v, YAML_SEQUENCE_NODE) != 0)
		return -1;
	size_t n = v->n;
	if (n == 0)
		return cfg_fail(c, v, key, "must list at least one data set");
	x->datasets = calloc(n, sizeof *x->datasets);
	if (x->datasets == NULL || cfg_names_init(&names, n) != 0) {
		free(x->datasets);
		x->datasets = NULL;
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory for %zu data sets", c->source,
			       n);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct ynode *entry = cfg_node(c, v->kids[i]);
		x->ndatasets = i + 1; /* counted before it is read: cfg_free releases what it got */
		if (i % 4096 == 0 && stop_check(c->e, c->source) != 0)
			rc = -1;
		else if (entry == NULL ||
			 cfg_dataset(c, &names, i, entry, cfg_slot_pos(c, v, i, entry)) != 0)
			rc = -1;
	}
	free(names.slot);
	return rc;
}
