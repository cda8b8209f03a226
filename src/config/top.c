/* top: the top-level keys of an experiment and their mappings (sweep, layout, process,
 * hardware; the blocks other modules own join them: blocks.c), their defaults, and the document: walk the top level, then
 * settle and check across keys (check.c). */
#include "config/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sweep.h"

static const struct cfg_field cfg_layout_fields[] = {
	{"files_per_dir", CFG_INTEGER, offsetof(struct experiment, files_per_dir),
	 CFG_MEMBER_SIZE(struct experiment, files_per_dir), 0, 1, CFG_FANOUT_MAX},
};

static int cfg_h_layout(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_layout_fields)];
	(void)dst;
	(void)size;
	return cfg_walk(c, key, v, cfg_layout_fields, CFG_LEN(cfg_layout_fields), c->x, seen);
}

static const struct cfg_field cfg_process_fields[] = {
	{"digest", cfg_h_digest, offsetof(struct experiment, process_digest), 0, 0, 0, 0},
	{"cpu_ns_per_byte", CFG_INTEGER, offsetof(struct experiment, process_cpu_ns_per_byte),
	 CFG_MEMBER_SIZE(struct experiment, process_cpu_ns_per_byte), 0, 0, CFG_NS_PER_BYTE_MAX},
};

static int cfg_h_process(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_process_fields)];
	(void)dst;
	(void)size;
	c->x->process_pos = cfg_pos_of(v);
	return cfg_walk(c, key, v, cfg_process_fields, CFG_LEN(cfg_process_fields), c->x, seen);
}

static const struct cfg_field cfg_hardware_fields[] = {
	{"node_disk_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_disk_MBps), 0, 0, 0, 0},
	{"node_link_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_link_MBps), 0, 0, 0, 0},
	{"node_memcpy_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_memcpy_MBps),
	 0, 0, 0, 0},
	{"reader_MBps", cfg_h_rate, offsetof(struct cfg_hardware, reader_MBps), 0, 0, 0, 0},
	{"storage_servers", CFG_INTEGER, offsetof(struct cfg_hardware, storage_servers),
	 CFG_MEMBER_SIZE(struct cfg_hardware, storage_servers), 0, 1, CFG_HW_COUNT_MAX},
	{"server_disk_MBps", cfg_h_rate, offsetof(struct cfg_hardware, server_disk_MBps),
	 0, 0, 0, 0},
	{"server_link_MBps", cfg_h_rate, offsetof(struct cfg_hardware, server_link_MBps),
	 0, 0, 0, 0},
	{"data_on_compute_nodes", cfg_h_bool,
	 offsetof(struct cfg_hardware, data_on_compute_nodes), 0, 0, 0, 0},
	{"racks", CFG_INTEGER, offsetof(struct cfg_hardware, racks),
	 CFG_MEMBER_SIZE(struct cfg_hardware, racks), 0, 1, CFG_HW_COUNT_MAX},
	{"rack_uplink_MBps", cfg_h_rate, offsetof(struct cfg_hardware, rack_uplink_MBps),
	 0, 0, 0, 0},
	{"node_client_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_client_MBps),
	 0, 0, 0, 0},
};

static int cfg_h_hardware(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_hardware_fields)];
	(void)dst;
	(void)size;
	c->x->hw.given = 1;
	return cfg_walk(c, key, v, cfg_hardware_fields, CFG_LEN(cfg_hardware_fields), &c->x->hw,
			seen);
}

static const struct cfg_field cfg_top_fields[] = {
	{"name", cfg_h_name, offsetof(struct experiment, name),
	 CFG_MEMBER_SIZE(struct experiment, name), 0, 0, 0},
	{"root", cfg_h_root, offsetof(struct experiment, root),
	 CFG_MEMBER_SIZE(struct experiment, root), 1, 0, 0},
	{"results", cfg_h_results, offsetof(struct experiment, results),
	 CFG_MEMBER_SIZE(struct experiment, results), 0, 0, 0},
	{"layout", cfg_h_layout, 0, 0, 0, 0, 0},
	{"datasets", cfg_h_datasets, 0, 0, 1, 0, 0},
	{"sweep", cfg_h_sweep, 0, 0, 0, 0, 0},
	{"repetitions", CFG_INTEGER, offsetof(struct experiment, repetitions),
	 CFG_MEMBER_SIZE(struct experiment, repetitions), 0, 1, CFG_REPETITIONS_MAX},
	{"cache", cfg_h_cache, offsetof(struct experiment, cache), 0, 0, 0, 0},
	{"shift_fallback", cfg_h_fallback, offsetof(struct experiment, shift_fallback), 0, 0, 0, 0},
	{"seed", CFG_INTEGER, offsetof(struct experiment, seed),
	 CFG_MEMBER_SIZE(struct experiment, seed), 0, 0, UINT64_MAX},
	{"noatime", cfg_h_bool, offsetof(struct experiment, noatime), 0, 0, 0, 0},
	{"sequential_hint", cfg_h_bool, offsetof(struct experiment, sequential_hint), 0, 0, 0, 0},
	{"verify", cfg_h_bool, offsetof(struct experiment, verify), 0, 0, 0, 0},
	{"phase_timeout", cfg_h_duration, offsetof(struct experiment, phase_timeout), 0, 0, 0, 0},
	{"startup_timeout", cfg_h_duration, offsetof(struct experiment, startup_timeout),
	 0, 0, 0, 0},
	{"hardware", cfg_h_hardware, 0, 0, 0, 0, 0},
	{"process", cfg_h_process, 0, 0, 0, 0, 0},
	{"space_check", cfg_h_bool, offsetof(struct experiment, space_check), 0, 0, 0, 0},
};

_Static_assert(CFG_LEN(cfg_top_fields) <= 32, "top_given has a bit per top-level key");

/* The default name: the file's base name without .yaml or .yml. */
static void cfg_default_name(char *name, size_t size, const char *source)
{
	const char *base = strrchr(source, '/');
	base = base != NULL ? base + 1 : source;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
		n -= 4;
	if (n == 0) {
		base = "pfsread";
		n = strlen(base);
	}
	if (n >= size)
		n = size - 1;
	memcpy(name, base, n);
	name[n] = '\0';
}

/* Defaults that a key overwrites when given. */
void cfg_defaults(struct experiment *x, const char *source)
{
	static const char results[] = "results/{name}-{jobid}-{time}.h5";
	cfg_default_name(x->name, sizeof x->name, source);
	memcpy(x->results, results, sizeof results);
	x->files_per_dir = 1000;
	x->repetitions = 1;
	x->cache = CFG_CACHE_DROP;
	x->shift_fallback = CFG_CACHE_FADVISE;
	x->startup_timeout = CFG_STARTUP_TIMEOUT_S;
	x->seed = 1;
	x->sequential_hint = 1;
	x->space_check = 1;
}

/* Defaults of what was not given, placed at pos (the top of the file) for later messages. */
static void cfg_late_defaults(struct experiment *x, struct cfg_pos pos)
{
	cfg_sweep_defaults(x, pos);
	if (x->cache_pos.line == 0)
		x->cache_pos = pos;
	if (x->shift_fallback_pos.line == 0)
		x->shift_fallback_pos = pos;
}

int cfg_given(const struct experiment *x, const char *key)
{
	if (strncmp(key, "sweep.", 6) == 0) {
		for (int k = 0; k < SWEEP_NKEYS; k++)
			if (sweep_fields[k].list != NULL && strcmp(sweep_fields[k].name, key + 6) == 0)
				return (int)((x->sweep_given >> k) & 1u);
		return 0;
	}
	for (size_t i = 0; i < CFG_LEN(cfg_top_fields); i++)
		if (strcmp(cfg_top_fields[i].name, key) == 0)
			return (int)((x->top_given >> i) & 1u);
	return 0;
}

/* Where a message about the whole run's size goes: repetitions, else sweep, else datasets. */
static void cfg_volume_place(struct experiment *x, const struct cfg_seen *top)
{
	static const char *const keys[] = {"repetitions", "sweep", "datasets"};
	for (size_t k = 0; k < CFG_LEN(keys); k++)
		for (size_t i = 0; i < CFG_LEN(cfg_top_fields); i++)
			if (strcmp(cfg_top_fields[i].name, keys[k]) == 0 && top[i].key != NULL) {
				x->volume_pos = cfg_pos_of(top[i].key);
				snprintf(x->volume_key, sizeof x->volume_key, "%s", keys[k]);
				return;
			}
}

/* The top level's keys: the config's own, then each block handed to the loader (a block whose
 * key is taken is the caller's mistake, refused as such). *fields and *seen are malloc'ed. */
static int cfg_top_table(struct cfg_ctx *c, struct cfg_field **fields, struct cfg_seen **seen,
			 size_t *n)
{
	const size_t own = CFG_LEN(cfg_top_fields);
	*n = own + c->x->nblocks;
	*fields = malloc(*n * sizeof **fields);
	*seen = malloc(*n * sizeof **seen);
	if (*fields == NULL || *seen == NULL)
		return pf_fail(c->e, PF_RUNTIME, "%s: out of memory", c->source);
	memcpy(*fields, cfg_top_fields, sizeof cfg_top_fields);
	for (size_t i = 0; i < c->x->nblocks; i++) {
		const char *key = c->x->blocks[i].block->key;
		for (size_t k = 0; k < own + i; k++)
			if (strcmp((*fields)[k].name, key) == 0)
				return pf_fail(c->e, PF_RUNTIME, "%s: the config key '%s' is claimed twice "
					       "(by a block the loader was handed)", c->source, key);
		(*fields)[own + i] = (struct cfg_field){.name = key, .fn = cfg_h_block};
	}
	return 0;
}

/* Walk the top level with the table of cfg_top_table. */
static int cfg_top(struct cfg_ctx *c, struct ynode *top)
{
	struct cfg_field *fields = NULL;
	struct cfg_seen *seen = NULL;
	size_t n = 0;
	int rc = cfg_top_table(c, &fields, &seen, &n);
	if (rc == 0)
		rc = cfg_walk(c, "", top, fields, n, c->x, seen);
	for (size_t i = 0; rc == 0 && i < CFG_LEN(cfg_top_fields); i++)
		if (seen[i].key != NULL)
			c->x->top_given |= UINT32_C(1) << i;
	if (rc == 0) {
		cfg_late_defaults(c->x, cfg_pos_of(top));
		cfg_volume_place(c->x, seen); /* the config's own keys come first in seen */
	}
	free(fields);
	free(seen);
	return rc;
}

int cfg_document(struct cfg_ctx *c)
{
	const struct cfg_pos start = {1, 1};
	struct ynode *top = ydoc_root(c->yd);
	if (top == NULL)
		return cfg_fail_pos(c->e, c->source, start, "the file is empty (expected a mapping "
				    "with at least root and datasets)");
	if (top->type != YAML_MAPPING_NODE)
		return cfg_fail(c, top, NULL, "the top level must be a mapping of keys, found %s",
				cfg_kind(top));
	if (cfg_top(c, top) != 0)
		return -1;
	uint64_t drawn = 0;
	for (size_t i = 0; i < c->x->ndatasets; i++)
		if (cfg_settle_sizes(c, i, &drawn) != 0)
			return -1;
	if (cfg_add_twins(c) != 0)
		return -1;
	cfg_settle_layouts(c->x);
	if (cfg_check_in_place(c) != 0 || cfg_check_fanout(c) != 0)
		return -1;
	return cfg_check_volume(c->x, c->e);
}
