/* sweep: the sweep key table (sweep.h) and what works from it: the config's sweep: lists (read,
 * defaulted, counted, recorded), the comparison of two sweep points, and a key's value and
 * heading for people. */
#include "config/sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/internal.h"
#include "util/units.h"

#define SWEEP_AT(m) offsetof(struct sweep_point, m), sizeof(((struct sweep_point *)0)->m)
#define CFG_AT(m) offsetof(struct experiment, m)

/* An enum list's entries are read and written as ints. */
_Static_assert(sizeof(enum cfg_order) == sizeof(int) && sizeof(enum cfg_pattern) == sizeof(int) &&
		       sizeof(enum cfg_decomp) == sizeof(int) && sizeof(enum cfg_advice) == sizeof(int),
	       "enum lists hold ints");

/* The config's side of a sweep list: x's array of entries, their count and places. */
struct cfg_sweep_list {
	struct cfg_field entry; /* one entry, as the config writes it; entry.size: its bytes (an
				 * int, also an enum's; a uint64_t; a string) */
	size_t values;      /* offsetof the array in struct experiment */
	size_t count;       /* offsetof its count (a size_t) */
	size_t pos;         /* offsetof its entries' places (struct cfg_pos), or SIZE_MAX */
	const struct cfg_enum_names *names; /* an enum's entries: their names; NULL otherwise */
};

static const struct cfg_sweep_list cfg_readers_list = {
	{.fn = CFG_INTEGER, .size = sizeof(int), .min = 1, .max = CFG_READERS_MAX},
	CFG_AT(readers_per_node), CFG_AT(nreaders), CFG_AT(readers_pos), NULL};
static const struct cfg_sweep_list cfg_backends_list = {
	{.fn = cfg_h_str, .size = CFG_MEMBER_SIZE(struct experiment, backends[0])},
	CFG_AT(backends), CFG_AT(nbackends), CFG_AT(backends_pos), NULL};
static const struct cfg_sweep_list cfg_transfers_list = {
	{.fn = cfg_h_transfer, .size = sizeof(uint64_t)},
	CFG_AT(transfer_sizes), CFG_AT(ntransfers), SIZE_MAX, NULL};
static const struct cfg_sweep_list cfg_orders_list = {
	{.fn = cfg_h_order, .size = sizeof(enum cfg_order)},
	CFG_AT(orders), CFG_AT(norders), SIZE_MAX, &cfg_order_enum};
static const struct cfg_sweep_list cfg_patterns_list = {
	{.fn = cfg_h_pattern, .size = sizeof(enum cfg_pattern)},
	CFG_AT(patterns), CFG_AT(npatterns), SIZE_MAX, &cfg_pattern_enum};
static const struct cfg_sweep_list cfg_decomps_list = {
	{.fn = cfg_h_decomp, .size = sizeof(enum cfg_decomp)},
	CFG_AT(decomps), CFG_AT(ndecomps), SIZE_MAX, &cfg_decomp_enum};
static const struct cfg_sweep_list cfg_advices_list = {
	{.fn = cfg_h_advice, .size = sizeof(enum cfg_advice)},
	CFG_AT(advices), CFG_AT(nadvices), CFG_AT(advices_pos), &cfg_advice_enum};

/* name, label, kind, place, flags, show, format, heading, default, since, list */
const struct sweep_field sweep_fields[SWEEP_NKEYS] = {
	[SWEEP_DATASET] = {"dataset", "data set", SWEEP_STR, SWEEP_AT(dataset), SWEEP_AXIS,
			   SWEEP_AS_IS, "%s", NULL, NULL, 1, NULL},
	[SWEEP_FILE_SIZE] = {"file_size", "file size", SWEEP_U64, SWEEP_AT(file_size),
			     SWEEP_AXIS | SWEEP_PART | SWEEP_BYTES, SWEEP_SIZE, " (%s files)", NULL,
			     NULL, 1, NULL},
	[SWEEP_READERS] = {"readers_per_node", "readers/node", SWEEP_I32,
			   SWEEP_AT(readers_per_node), SWEEP_AXIS, SWEEP_AS_IS, "%s", NULL, "1", 1,
			   &cfg_readers_list},
	[SWEEP_BACKEND] = {"backend", "backend", SWEEP_STR, SWEEP_AT(backend), 0, SWEEP_AS_IS,
			   "%s", "%s backend", "posix", 1, &cfg_backends_list},
	[SWEEP_TRANSFER] = {"transfer_size", "transfer", SWEEP_U64, SWEEP_AT(transfer_size),
			    SWEEP_BYTES, SWEEP_SIZE_BINARY, "%s", "%s transfers", "4MiB", 1,
			    &cfg_transfers_list},
	[SWEEP_ORDER] = {"order", "order", SWEEP_STR, SWEEP_AT(order), 0, SWEEP_AS_IS, "%s",
			 "%s order", "sorted", 1, &cfg_orders_list},
	[SWEEP_CACHE] = {"cache", "cache", SWEEP_STR, SWEEP_AT(cache), 0, SWEEP_AS_IS, "%s",
			 "cache %s", NULL, 1, NULL},
	[SWEEP_PATTERN] = {"pattern", "pattern", SWEEP_STR, SWEEP_AT(pattern),
			   SWEEP_CSV_LATE | SWEEP_QUIET, SWEEP_AS_IS, "%s", "%s pattern",
			   "per-reader", 1, &cfg_patterns_list},
	[SWEEP_DECOMP] = {"decomposition", "decomposition", SWEEP_STR, SWEEP_AT(decomposition),
			  SWEEP_CSV_LATE | SWEEP_QUIET, SWEEP_AS_IS, "%s", "%s decomposition",
			  "block", 1, &cfg_decomps_list},
	[SWEEP_QDEPTH] = {"queue_depth", "queue depth", SWEEP_I32, SWEEP_AT(queue_depth),
			  SWEEP_CSV_LATE | SWEEP_QUIET, SWEEP_AS_IS, "%s", "queue depth %s", "1", 1,
			  NULL},
	/* recorded as what the backend gave ("none", "sequential"), never "default" */
	[SWEEP_ADVICE] = {"advice", "advice", SWEEP_STR, SWEEP_AT(advice), SWEEP_CSV_LATE,
			  SWEEP_AS_IS, "%s", "%s advice", "default", 4, &cfg_advices_list},
};

/* ---- a sweep point ---- */

uint64_t sweep_number(const struct sweep_point *p, int k)
{
	const struct sweep_field *f = &sweep_fields[k];
	const char *at = (const char *)p + f->offset;
	int32_t i;
	uint64_t u;
	if (f->kind == SWEEP_I32) {
		memcpy(&i, at, sizeof i);
		return (uint64_t)(int64_t)i;
	}
	if (f->kind == SWEEP_U64) {
		memcpy(&u, at, sizeof u);
		return u;
	}
	return 0;
}

const char *sweep_string(const struct sweep_point *p, int k)
{
	return (const char *)p + sweep_fields[k].offset;
}

unsigned sweep_keys_with(unsigned flags)
{
	unsigned keys = 0;
	for (int k = 0; k < SWEEP_NKEYS; k++)
		if (sweep_fields[k].flags & flags)
			keys |= 1u << k;
	return keys;
}

int sweep_same(const struct sweep_point *a, const struct sweep_point *b, unsigned except)
{
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		const struct sweep_field *f = &sweep_fields[k];
		if (except >> k & 1u)
			continue;
		if (f->kind == SWEEP_STR ? strncmp(sweep_string(a, k), sweep_string(b, k), f->size) != 0
					 : sweep_number(a, k) != sweep_number(b, k))
			return 0;
	}
	return 1;
}

/* Key k's own value for people, without its PART keys. */
static char *sweep_shown(const struct sweep_point *p, int k, char *buf, size_t len)
{
	const struct sweep_field *f = &sweep_fields[k];
	if (f->kind == SWEEP_STR)
		snprintf(buf, len, "%.*s", (int)f->size, sweep_string(p, k));
	else if (f->show == SWEEP_SIZE)
		units_format_size(sweep_number(p, k), buf, len);
	else if (f->show == SWEEP_SIZE_BINARY)
		units_format_size_binary(sweep_number(p, k), buf, len);
	else if (f->kind == SWEEP_I32)
		snprintf(buf, len, "%d", (int)(int64_t)sweep_number(p, k));
	else
		snprintf(buf, len, "%" PRIu64, sweep_number(p, k));
	return buf;
}

char *sweep_value(const struct sweep_point *p, int k, char *buf, size_t len)
{
	char one[160];
	size_t used;
	snprintf(buf, len, sweep_fields[k].format, sweep_shown(p, k, one, sizeof one));
	for (int j = k + 1; j < SWEEP_NKEYS && (sweep_fields[j].flags & SWEEP_PART); j++) {
		used = strlen(buf);
		snprintf(buf + used, len - used, sweep_fields[j].format,
			 sweep_shown(p, j, one, sizeof one));
	}
	return buf;
}

/* A SWEEP_QUIET key at its default, or with no value (0, ""): left out of headings. */
static int sweep_quiet(const struct sweep_point *p, int k)
{
	const struct sweep_field *f = &sweep_fields[k];
	if (!(f->flags & SWEEP_QUIET))
		return 0;
	if (f->kind == SWEEP_STR)
		return sweep_string(p, k)[0] == '\0' || strcmp(sweep_string(p, k), f->dflt) == 0;
	return (int64_t)sweep_number(p, k) <= strtoll(f->dflt, NULL, 10); /* 0: not recorded */
}

void sweep_heading(const struct sweep_point *p, char *buf, size_t len)
{
	char one[160];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < SWEEP_NKEYS && used < len; k++) {
		if (sweep_fields[k].heading == NULL || sweep_quiet(p, k) ||
		    (sweep_fields[k].kind == SWEEP_STR && sweep_string(p, k)[0] == '\0'))
			continue; /* quiet, or not recorded (a key newer than the file) */
		if (used > 0)
			used += (size_t)snprintf(buf + used, len - used, ", ");
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, sweep_fields[k].heading,
						 sweep_shown(p, k, one, sizeof one));
	}
}

/* ---- the config's sweep lists ---- */

static size_t *cfg_sweep_n(const struct experiment *x, const struct cfg_sweep_list *l)
{
	return (size_t *)((char *)x + l->count);
}

size_t cfg_sweep_count(const struct experiment *x, int k)
{
	const struct cfg_sweep_list *l = sweep_fields[k].list;
	return l != NULL ? *cfg_sweep_n(x, l) : 1;
}

uint64_t cfg_sweep_cells(const struct experiment *x)
{
	uint64_t cells = 1; /* each list <= CFG_LIST_MAX entries: < 2^30 */
	for (int k = 0; k < SWEEP_NKEYS; k++)
		cells *= cfg_sweep_count(x, k);
	return cells;
}

void cfg_sweep_record(const struct experiment *x, const size_t *at, struct sweep_point *p)
{
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		const struct sweep_field *f = &sweep_fields[k];
		const struct cfg_sweep_list *l = f->list;
		if (l == NULL)
			continue;
		const char *entry = (const char *)x + l->values + at[k] * l->entry.size;
		char *to = (char *)p + f->offset;
		int i = 0;
		if (f->kind == SWEEP_STR && l->names == NULL) {
			snprintf(to, f->size, "%s", entry);
			continue;
		}
		if (f->kind == SWEEP_U64) {
			memcpy(to, entry, sizeof(uint64_t));
			continue;
		}
		memcpy(&i, entry, sizeof i);
		if (f->kind == SWEEP_I32)
			memcpy(to, &(int32_t){i}, sizeof(int32_t));
		else
			snprintf(to, f->size, "%s", i >= 0 && (size_t)i < l->names->n
							 ? l->names->name[i] : "unknown");
	}
}

/* Key k's default into entry 0 of its list (the list holds none). */
static void cfg_sweep_default(struct experiment *x, int k, struct cfg_pos pos)
{
	const struct sweep_field *f = &sweep_fields[k];
	const struct cfg_sweep_list *l = f->list;
	char *entry = (char *)x + l->values;
	const char *why;
	uint64_t u = 0;
	int i = 0;
	memset(entry, 0, l->entry.size);
	if (f->kind == SWEEP_STR && l->names == NULL) {
		snprintf(entry, l->entry.size, "%s", f->dflt);
	} else if (f->kind == SWEEP_U64) {
		if (units_parse_size(f->dflt, &u, &why) != 0)
			u = 0; /* cannot happen: the table's defaults parse */
		memcpy(entry, &u, sizeof u);
	} else {
		if (f->kind == SWEEP_I32)
			i = (int)strtol(f->dflt, NULL, 10);
		else
			while ((size_t)i < l->names->n && strcmp(l->names->name[i], f->dflt) != 0)
				i++;
		memcpy(entry, &i, sizeof i);
	}
	if (l->pos != SIZE_MAX)
		((struct cfg_pos *)((char *)x + l->pos))[0] = pos;
	*cfg_sweep_n(x, l) = 1;
}

_Static_assert(SWEEP_NKEYS <= 32, "sweep_given has a bit per sweep key");

void cfg_sweep_defaults(struct experiment *x, struct cfg_pos pos)
{
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		if (sweep_fields[k].list == NULL)
			continue;
		if (*cfg_sweep_n(x, sweep_fields[k].list) == 0)
			cfg_sweep_default(x, k, pos);
		else
			x->sweep_given |= UINT32_C(1) << k;
	}
}

/* One sweep: list, the key's row found by the key ("sweep.order"). */
static int cfg_h_sweep_list(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	const char *name = strrchr(key, '.') != NULL ? strrchr(key, '.') + 1 : key;
	struct experiment *x = c->x;
	int k = 0;
	(void)dst;
	(void)size;
	while (k + 1 < SWEEP_NKEYS && (sweep_fields[k].list == NULL ||
				       strcmp(sweep_fields[k].name, name) != 0))
		k++; /* the walker found the name among the lists: it is there */
	const struct cfg_sweep_list *sl = sweep_fields[k].list;
	const struct cfg_list l = {&sl->entry, (char *)x + sl->values, cfg_sweep_n(x, sl),
				   sl->pos != SIZE_MAX ? (struct cfg_pos *)((char *)x + sl->pos)
						       : NULL};
	return cfg_list(c, key, v, &l);
}

int cfg_h_sweep(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct cfg_field fields[SWEEP_NKEYS];
	struct cfg_seen seen[SWEEP_NKEYS];
	size_t n = 0;
	(void)dst;
	(void)size;
	for (int k = 0; k < SWEEP_NKEYS; k++)
		if (sweep_fields[k].list != NULL)
			fields[n++] = (struct cfg_field){.name = sweep_fields[k].name,
							 .fn = cfg_h_sweep_list};
	return cfg_walk(c, key, v, fields, n, c->x, seen);
}
