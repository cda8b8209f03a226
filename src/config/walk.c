/* config: a YAML experiment file -> a validated struct experiment, through the libyaml document
 * API. Each mapping is read by one generic walker driven by a table of key -> handler. */
#include "config/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "config/sizes.h"
#include "util/stop.h"
#include "util/units.h"
#include "util/ydoc.h"

#define CFG_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CFG_MEMBER_SIZE(type, m) sizeof(((type *)0)->m)
#define CFG_FILE_MAX (16u << 20) /* configs are a few hundred bytes; refuse to slurp a device */
#define CFG_KEY_MAX 256          /* longest key path a message names */
#define CFG_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* What every handler needs: the document being read, where messages go, what is filled. */
struct cfg_ctx {
	const char *source;
	struct ydoc *yd;     /* the document, and where its aliases stood */
	struct experiment *x;
	struct pf_err *e;
};

/* Read node v, named key in messages, into dst (size bytes when it is a string). */
typedef int (*cfg_handler)(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size);

/* One allowed key of a mapping. */
struct cfg_field {
	const char *name;
	cfg_handler fn;
	size_t off;   /* of the destination inside the struct the mapping fills */
	size_t size;  /* of the destination, for strings */
	int required;
};

/* The key and value nodes met for each field of a table; NULL when the key is absent. at is
 * where the value was written: an alias's own place when it was one (the node's is its
 * anchor's). */
struct cfg_seen {
	struct ynode *key;
	struct ynode *val;
	struct cfg_pos at;
};

/* A sweep list: parse fills vals[i] (elem bytes each), *count says how many. */
struct cfg_list {
	cfg_handler parse;
	void *vals;
	size_t elem;
	size_t *count;
	struct cfg_pos *pos; /* per entry, or NULL when positions are not kept */
};

static const char *const cfg_cache_names[] = {
	[CFG_CACHE_NONE] = "none",
	[CFG_CACHE_DROP] = "drop",
	[CFG_CACHE_FADVISE] = "fadvise",
	[CFG_CACHE_SHIFT] = "shift",
	[CFG_CACHE_DIRECT] = "direct",
};

static const char *const cfg_pattern_names[] = {
	[CFG_PATTERN_PER_READER] = "per-reader",
	[CFG_PATTERN_SHARED] = "shared",
};

static const char *const cfg_decomp_names[] = {
	[CFG_DECOMP_BLOCK] = "block",
	[CFG_DECOMP_CYCLIC] = "cyclic",
};

static const char *const cfg_layout_names[] = {
	[CFG_LAYOUT_INDEXED] = "indexed",
	[CFG_LAYOUT_FLAT] = "flat",
	[CFG_LAYOUT_HASHED] = "hashed",
	[CFG_LAYOUT_TREE] = "tree",
	[CFG_LAYOUT_IN_PLACE] = "in-place",
};

static const char *const cfg_bool_names[] = {"false", "true"};

static const char *const cfg_order_names[] = {
	[CFG_ORDER_SORTED] = "sorted",
	[CFG_ORDER_REVERSE] = "reverse",
	[CFG_ORDER_RANDOM] = "random",
};

/* ---- messages ---- */

/* Keys and values quoted from the file may hold control characters ("\n", an escape
 * sequence): '?' for each keeps a message on one line and off the terminal's controls. */
static void cfg_printable(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static int cfg_vfail(struct pf_err *e, const char *source, struct cfg_pos pos, const char *key,
		     const char *fmt, va_list ap)
{
	char what[1536], k[CFG_KEY_MAX];
	if (vsnprintf(what, sizeof what, fmt, ap) < 0)
		what[0] = '\0';
	cfg_printable(what);
	if (key == NULL || key[0] == '\0')
		return pf_fail(e, PF_USAGE, "%s:%d:%d: %s", source, pos.line, pos.col, what);
	snprintf(k, sizeof k, "%s", key);
	cfg_printable(k);
	return pf_fail(e, PF_USAGE, "%s:%d:%d: key '%s': %s", source, pos.line, pos.col, k, what);
}

static struct cfg_pos cfg_ypos(struct ydoc_pos p)
{
	struct cfg_pos pos = {p.line, p.col};
	return pos;
}

static struct cfg_pos cfg_pos_of(const struct ynode *n)
{
	return cfg_ypos(n->pos);
}

/* Fail at node n about key (NULL or "" for none). */
__attribute__((format(printf, 4, 5))) static int cfg_fail(struct cfg_ctx *c, const struct ynode *n,
							   const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(c->e, c->source, cfg_pos_of(n), key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fail at pos about key, during the load (the source named whole). */
__attribute__((format(printf, 4, 5))) static int cfg_fail_here(struct cfg_ctx *c,
							       struct cfg_pos pos, const char *key,
							       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(c->e, c->source, pos, key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Where item slot of collection node parent was written: the alias's place when it was one. */
static struct cfg_pos cfg_slot_pos(struct cfg_ctx *c, const struct ynode *parent, size_t slot,
				   const struct ynode *item)
{
	return cfg_ypos(ydoc_slot_pos(c->yd, parent, slot, item));
}

/* Fail at pos with no key: syntax errors and the shape of the whole file. */
__attribute__((format(printf, 4, 5))) static int cfg_fail_pos(struct pf_err *e,
							       const char *source,
							       struct cfg_pos pos,
							       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(e, source, pos, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int cfg_fail_at(struct pf_err *e, const struct experiment *x, struct cfg_pos pos, const char *key,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(e, x->source, pos, key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Key paths only label messages, so a path cut short is acceptable. */
static void cfg_path(char *buf, size_t size, const char *prefix, const char *name)
{
	if (snprintf(buf, size, "%s%s%s", prefix, prefix[0] != '\0' ? "." : "", name) < 0)
		buf[0] = '\0';
}

static void cfg_append(char *buf, size_t size, const char *sep, const char *s)
{
	size_t used = strlen(buf);
	if (snprintf(buf + used, size - used, "%s%s", used > 0 ? sep : "", s) < 0)
		buf[used] = '\0';
}

/* ---- nodes ---- */

/* libyaml gives plain empty, ~ and null scalars for a key written without a value. */
static int cfg_is_null(const struct ynode *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	if (n->type != YAML_SCALAR_NODE || n->style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < CFG_LEN(nulls); i++)
		if (strcmp((const char *)n->str, nulls[i]) == 0)
			return 1;
	return 0;
}

static const char *cfg_kind(const struct ynode *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return cfg_is_null(n) ? "no value" : "a single value";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static int cfg_expect(struct cfg_ctx *c, const char *key, const struct ynode *v, yaml_node_type_t t)
{
	static const char *const want[] = {
		[YAML_SCALAR_NODE] = "a single value",
		[YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};
	if (v->type == t)
		return 0;
	return cfg_fail(c, v, key, "expected %s, found %s", want[t], cfg_kind(v));
}

/* The text of a scalar that has a value; *s stays valid as long as the document. */
static int cfg_scalar(struct cfg_ctx *c, const char *key, const struct ynode *v, const char **s)
{
	if (cfg_expect(c, key, v, YAML_SCALAR_NODE) != 0)
		return -1;
	if (cfg_is_null(v))
		return cfg_fail(c, v, key, "has no value");
	*s = (const char *)v->str;
	if (strlen(*s) != v->n)
		return cfg_fail(c, v, key, "contains a NUL character");
	return 0;
}

static struct ynode *cfg_node(struct cfg_ctx *c, int index)
{
	struct ynode *n = ydoc_node(c->yd, index);
	if (n == NULL)
		pf_fail(c->e, PF_USAGE, "%s: malformed YAML document (node %d missing)", c->source,
			index);
	return n;
}

/* ---- values ---- */

/* Decimal digits only, exactly: no sign, no base prefix, no exponent. */
static int cfg_digits(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int cfg_uint(struct cfg_ctx *c, const char *key, const struct ynode *v, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	const char *s;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (cfg_digits(s, out) == 0 && *out >= min && *out <= max)
		return 0;
	if (max == UINT64_MAX)
		return cfg_fail(c, v, key, "expected an integer >= %" PRIu64 ", got '%s'", min, s);
	return cfg_fail(c, v, key, "expected an integer from %" PRIu64 " to %" PRIu64 ", got '%s'",
			min, max, s);
}

static int cfg_enum(struct cfg_ctx *c, const char *key, const struct ynode *v,
		    const char *const *names, size_t n, int *out)
{
	char list[128] = "";
	const char *s;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
		cfg_append(list, sizeof list, ", ", names[i]);
	}
	return cfg_fail(c, v, key, "unknown value '%s' (use %s)", s, list);
}

/* Names become directory and file names, so keep them to a portable set. */
static int cfg_name_ok(const char *s)
{
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	return s[0] != '\0' && strspn(s, CFG_NAME_CHARS) == strlen(s);
}

/* ---- handlers: one per kind of value ---- */

static int cfg_h_str(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	size_t n = strlen(s);
	if (n == 0)
		return cfg_fail(c, v, key, "must not be empty");
	if (n >= size)
		return cfg_fail(c, v, key, "is too long (at most %zu characters)", size - 1);
	memcpy(dst, s, n + 1);
	return 0;
}

static int cfg_h_name(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	if (!cfg_name_ok(dst))
		return cfg_fail(c, v, key,
				"invalid name '%s' (use letters, digits, '.', '_' and '-'; "
				"not '.' or '..')",
				(const char *)dst);
	return 0;
}

/* A path's repeated and trailing slashes dropped ("/mnt//x/" is "/mnt/x"; "/" stays), so
 * that the paths built from it and printed read as the user would write them. */
static void cfg_tidy_path(char *p)
{
	char *out = p;
	for (const char *in = p; *in; in++)
		if (*in != '/' || out == p || out[-1] != '/')
			*out++ = *in;
	while (out > p + 1 && out[-1] == '/')
		out--;
	*out = '\0';
}

/* root: a missing directory is for the caller to judge, anything else in the way is not. */
static int cfg_h_root(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct stat st;
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	cfg_tidy_path(dst);
	c->x->root_pos = cfg_pos_of(v);
	if (stat(dst, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return cfg_fail(c, v, key, "cannot check '%s': %s", (const char *)dst,
				strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return cfg_fail(c, v, key, "'%s' exists but is not a directory", (const char *)dst);
	return 0;
}

static int cfg_is_placeholder(const char *p, size_t n)
{
	static const char *const ok[] = {"{name}", "{jobid}", "{time}"};
	for (size_t i = 0; i < CFG_LEN(ok); i++)
		if (strlen(ok[i]) == n && strncmp(ok[i], p, n) == 0)
			return 1;
	return 0;
}

static int cfg_h_results(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	for (const char *p = strchr(dst, '{'); p != NULL; p = strchr(p + 1, '{')) {
		const char *end = strchr(p, '}');
		if (end == NULL)
			return cfg_fail(c, v, key, "'{' without '}' in '%s'", (const char *)dst);
		size_t n = (size_t)(end - p) + 1;
		if (!cfg_is_placeholder(p, n))
			return cfg_fail(c, v, key,
					"unknown placeholder '%.*s' (use {name}, {jobid}, {time})",
					(int)n, p);
	}
	return 0;
}

/* file_count: 1 to CFG_FILES_MAX. */
static int cfg_h_file_count(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 1, CFG_FILES_MAX, dst);
}

/* files_per_dir: 1 to CFG_FANOUT_MAX. */
static int cfg_h_fanout(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 1, CFG_FANOUT_MAX, dst);
}

/* hardware.storage_servers, hardware.racks: 1 to CFG_HW_COUNT_MAX. */
static int cfg_h_hw_count(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 1, CFG_HW_COUNT_MAX, dst);
}

static int cfg_h_seed(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 0, UINT64_MAX, dst);
}

/* An int from 1 to max, into an int. */
static int cfg_int_upto(struct cfg_ctx *c, const char *key, struct ynode *v, int max, void *dst)
{
	uint64_t u;
	if (cfg_uint(c, key, v, 1, (uint64_t)max, &u) != 0)
		return -1;
	*(int *)dst = (int)u;
	return 0;
}

static int cfg_h_repetitions(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	(void)size;
	return cfg_int_upto(c, key, v, CFG_REPETITIONS_MAX, dst);
}

static int cfg_h_readers_one(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	(void)size;
	return cfg_int_upto(c, key, v, CFG_READERS_MAX, dst);
}

/* A size with a unit, from 1 byte to max, into *out; what says what max is the largest of. */
static int cfg_size_upto(struct cfg_ctx *c, const char *key, struct ynode *v, uint64_t max,
			 const char *what, uint64_t *out)
{
	const char *s, *why;
	char most[32];
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (units_parse_size(s, out, &why) != 0)
		return cfg_fail(c, v, key, "invalid size '%s': %s", s, why);
	if (*out == 0)
		return cfg_fail(c, v, key, "must be greater than zero, got '%s'", s);
	if (*out > max)
		return cfg_fail(c, v, key, "'%s' is more than %s, the largest %s pfsread accepts "
				"(README, Safety)", s, units_format_size_binary(max, most, sizeof most),
				what);
	return 0;
}

/* A file's size (file_size, a distribution's median, min and max, a histogram's sizes). */
static int cfg_h_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_FILE_SIZE_MAX, "file", dst);
}

static int cfg_h_total_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_DATASET_BYTES_MAX, "data set", dst);
}

/* A transfer size: a reader's buffer holds one, rounded up (an allocation that must succeed). */
static int cfg_h_transfer(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_TRANSFER_MAX, "transfer size", dst);
}

static int cfg_h_inflight(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_INFLIGHT_MAX, "uring pool", dst);
}

static int cfg_h_cache(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_cache_names, CFG_LEN(cfg_cache_names), &i) != 0)
		return -1;
	*(enum cfg_cache *)dst = (enum cfg_cache)i;
	c->x->cache_pos = cfg_pos_of(v);
	return 0;
}

/* shift_fallback: how a shifted phase empties the cache once every other node has read its
 * files (fadvise | drop | none), stored as the cache strategy it borrows. */
static int cfg_h_fallback(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	static const char *const names[] = {"none", "fadvise", "drop"};
	static const enum cfg_cache as[] = {CFG_CACHE_NONE, CFG_CACHE_FADVISE, CFG_CACHE_DROP};
	int i;
	(void)size;
	if (cfg_enum(c, key, v, names, CFG_LEN(names), &i) != 0)
		return -1;
	*(enum cfg_cache *)dst = as[i];
	c->x->shift_fallback_pos = cfg_pos_of(v);
	return 0;
}

static int cfg_h_order(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_order_names, CFG_LEN(cfg_order_names), &i) != 0)
		return -1;
	*(enum cfg_order *)dst = (enum cfg_order)i;
	return 0;
}

static int cfg_h_pattern(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_pattern_names, CFG_LEN(cfg_pattern_names), &i) != 0)
		return -1;
	*(enum cfg_pattern *)dst = (enum cfg_pattern)i;
	return 0;
}

static int cfg_h_decomp(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_decomp_names, CFG_LEN(cfg_decomp_names), &i) != 0)
		return -1;
	*(enum cfg_decomp *)dst = (enum cfg_decomp)i;
	return 0;
}

/* A duration > 0 ("90s", "10min", "2h", a bare number of seconds), into a double. */
static int cfg_h_duration(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	const char *s, *why;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (units_parse_duration(s, dst, &why) != 0)
		return cfg_fail(c, v, key, "invalid duration '%s': %s", s, why);
	if (*(double *)dst <= 0)
		return cfg_fail(c, v, key, "must be greater than zero, got '%s'", s);
	if (*(double *)dst > CFG_TIMEOUT_MAX)
		return cfg_fail(c, v, key, "'%s' is more than %g days, the longest pfsread accepts",
				s, CFG_TIMEOUT_MAX / 86400);
	return 0;
}

/* true or false, into an int. */
static int cfg_h_bool(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)size;
	return cfg_enum(c, key, v, cfg_bool_names, CFG_LEN(cfg_bool_names), dst);
}

/* ---- the generic mapping walker ---- */

static size_t cfg_find(const struct cfg_field *t, size_t nt, const struct ynode *k)
{
	for (size_t i = 0; i < nt; i++)
		if (strlen(t[i].name) == k->n &&
		    memcmp(t[i].name, k->str, k->n) == 0)
			return i;
	return nt;
}

static int cfg_unknown(struct cfg_ctx *c, const struct ynode *k, const char *key,
		       const struct cfg_field *t, size_t nt)
{
	char allowed[512] = "";
	for (size_t i = 0; i < nt; i++)
		cfg_append(allowed, sizeof allowed, ", ", t[i].name);
	return cfg_fail(c, k, key, "unknown key (allowed: %s)", allowed);
}

/* One key: value pair (pair number slot) of mapping map, read with table t into base. */
static int cfg_pair(struct cfg_ctx *c, const char *prefix, const struct ynode *map, size_t slot,
		    const struct cfg_field *t, size_t nt, void *base, struct cfg_seen *seen)
{
	const struct ypair *p = map->pairs + slot;
	char key[CFG_KEY_MAX];
	struct ynode *k = cfg_node(c, p->key), *v = cfg_node(c, p->value);
	if (k == NULL || v == NULL)
		return -1;
	if (k->type != YAML_SCALAR_NODE)
		return cfg_fail(c, k, prefix, "a key must be a name, found %s", cfg_kind(k));
	cfg_path(key, sizeof key, prefix, (const char *)k->str);
	size_t i = cfg_find(t, nt, k);
	if (i == nt)
		return cfg_unknown(c, k, key, t, nt);
	if (seen[i].key != NULL)
		return cfg_fail(c, k, key, "duplicate key (first given at line %d)",
				cfg_pos_of(seen[i].key).line);
	seen[i].key = k;
	seen[i].val = v;
	seen[i].at = cfg_slot_pos(c, map, slot, v);
	return t[i].fn(c, key, v, (char *)base + t[i].off, t[i].size);
}

/* Read mapping map, named prefix, with table t into base; seen[nt] says what was given. */
static int cfg_walk(struct cfg_ctx *c, const char *prefix, struct ynode *map,
		    const struct cfg_field *t, size_t nt, void *base, struct cfg_seen *seen)
{
	char key[CFG_KEY_MAX];
	if (cfg_expect(c, prefix, map, YAML_MAPPING_NODE) != 0)
		return -1;
	memset(seen, 0, nt * sizeof *seen);
	size_t n = map->n;
	for (size_t slot = 0; slot < n; slot++)
		if (cfg_pair(c, prefix, map, slot, t, nt, base, seen) != 0)
			return -1;
	for (size_t i = 0; i < nt; i++) {
		if (t[i].required && seen[i].key == NULL) {
			cfg_path(key, sizeof key, prefix, t[i].name);
			return cfg_fail(c, map, key, "is required but missing");
		}
	}
	return 0;
}

/* ---- sweep lists ---- */

/* Entry i of a list, written at pos (an alias's place when it was one). */
static int cfg_list_item(struct cfg_ctx *c, const char *key, struct ynode *v,
			 const struct cfg_list *l, size_t i, struct cfg_pos pos)
{
	char *slot = (char *)l->vals + i * l->elem;
	memset(slot, 0, l->elem); /* so that equal values compare equal byte for byte */
	if (l->parse(c, key, v, slot, l->elem) != 0)
		return -1;
	for (size_t j = 0; j < i; j++)
		if (memcmp(slot, (char *)l->vals + j * l->elem, l->elem) == 0)
			return cfg_fail_here(c, pos, key, "duplicate entry '%s' (same as entry %zu)",
					     (const char *)v->str, j);
	if (l->pos != NULL)
		l->pos[i] = pos;
	*l->count = i + 1;
	return 0;
}

/* A list of values, or one value standing for a list of one. */
static int cfg_list(struct cfg_ctx *c, const char *key, struct ynode *v, const struct cfg_list *l)
{
	char item[CFG_KEY_MAX];
	if (v->type == YAML_SCALAR_NODE)
		return cfg_list_item(c, key, v, l, 0, cfg_pos_of(v));
	if (cfg_expect(c, key, v, YAML_SEQUENCE_NODE) != 0)
		return -1;
	size_t n = v->n;
	if (n == 0)
		return cfg_fail(c, v, key, "must not be empty");
	if (n > CFG_LIST_MAX)
		return cfg_fail(c, v, key, "has %zu entries, at most %d allowed", n, CFG_LIST_MAX);
	for (size_t i = 0; i < n; i++) {
		struct ynode *it = cfg_node(c, v->kids[i]);
		if (snprintf(item, sizeof item, "%s[%zu]", key, i) < 0)
			item[0] = '\0';
		if (it == NULL || cfg_list_item(c, item, it, l, i, cfg_slot_pos(c, v, i, it)) != 0)
			return -1;
	}
	return 0;
}

/* The sweep handlers get the experiment itself as dst (their table offsets are 0). */
static int cfg_h_readers(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_readers_one, x->readers_per_node, sizeof x->readers_per_node[0],
				   &x->nreaders, x->readers_pos};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static int cfg_h_backends(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_str, x->backends, sizeof x->backends[0], &x->nbackends,
				   x->backends_pos};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static int cfg_h_transfers(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_transfer, x->transfer_sizes, sizeof x->transfer_sizes[0],
				   &x->ntransfers, NULL};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static int cfg_h_orders(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_order, x->orders, sizeof x->orders[0], &x->norders, NULL};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static int cfg_h_patterns(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_pattern, x->patterns, sizeof x->patterns[0], &x->npatterns,
				   NULL};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static int cfg_h_decomps(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	struct experiment *x = dst;
	const struct cfg_list l = {cfg_h_decomp, x->decomps, sizeof x->decomps[0], &x->ndecomps,
				   NULL};
	(void)size;
	return cfg_list(c, key, v, &l);
}

static const struct cfg_field cfg_sweep_fields[] = {
	{"readers_per_node", cfg_h_readers, 0, 0, 0},
	{"backend", cfg_h_backends, 0, 0, 0},
	{"transfer_size", cfg_h_transfers, 0, 0, 0},
	{"order", cfg_h_orders, 0, 0, 0},
	{"pattern", cfg_h_patterns, 0, 0, 0},
	{"decomposition", cfg_h_decomps, 0, 0, 0},
};

static int cfg_h_sweep(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_sweep_fields)];
	(void)dst;
	(void)size;
	return cfg_walk(c, key, v, cfg_sweep_fields, CFG_LEN(cfg_sweep_fields), c->x, seen);
}

static const struct cfg_field cfg_layout_fields[] = {
	{"files_per_dir", cfg_h_fanout, offsetof(struct experiment, files_per_dir), 0, 0},
};

static int cfg_h_layout(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_layout_fields)];
	(void)dst;
	(void)size;
	return cfg_walk(c, key, v, cfg_layout_fields, CFG_LEN(cfg_layout_fields), c->x, seen);
}

/* ---- backend options ---- */

/* A queue depth: an int from 1 to 4096 (io_uring's largest ring). */
static int cfg_h_depth(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	uint64_t u;
	(void)size;
	if (cfg_uint(c, key, v, 1, 4096, &u) != 0)
		return -1;
	*(int *)dst = (int)u;
	return 0;
}

static const struct cfg_field cfg_uring_fields[] = {
	{"queue_depth", cfg_h_depth, offsetof(struct experiment, uring_queue_depth), 0, 0},
	{"max_inflight", cfg_h_inflight, offsetof(struct experiment, uring_max_inflight), 0, 0},
};

static int cfg_h_uring(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_uring_fields)];
	(void)dst;
	(void)size;
	return cfg_walk(c, key, v, cfg_uring_fields, CFG_LEN(cfg_uring_fields), c->x, seen);
}

/* ---- read-and-process phases ---- */

static const char *const cfg_digest_names[] = {"none", "xxh64", "sha1"}; /* enum digest_kind */

static int cfg_h_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_digest_names, CFG_LEN(cfg_digest_names), &i) != 0)
		return -1;
	*(enum digest_kind *)dst = (enum digest_kind)i;
	return 0;
}

/* CPU time per byte in ns: an integer >= 0 (at most a second per byte). */
static int cfg_h_ns_per_byte(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 0, 1000000000, dst);
}

static const struct cfg_field cfg_process_fields[] = {
	{"digest", cfg_h_digest, offsetof(struct experiment, process_digest), 0, 0},
	{"cpu_ns_per_byte", cfg_h_ns_per_byte, offsetof(struct experiment, process_cpu_ns_per_byte),
	 0, 0},
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

static const struct cfg_field cfg_mpiio_fields[] = {
	{"collective", cfg_h_bool, offsetof(struct experiment, mpiio_collective), 0, 0},
};

static int cfg_h_mpiio(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct cfg_seen seen[CFG_LEN(cfg_mpiio_fields)];
	(void)dst;
	(void)size;
	return cfg_walk(c, key, v, cfg_mpiio_fields, CFG_LEN(cfg_mpiio_fields), c->x, seen);
}

/* A rate in MB/s: a decimal number > 0 ("117", "117.5"), into a double. */
static int cfg_h_rate(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	char *end = NULL;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	errno = 0;
	double r = strtod(s, &end);
	if (strspn(s, "0123456789.") != strlen(s) || end == s || *end != '\0' || errno != 0 ||
	    !(r > 0) || r > 1e12)
		return cfg_fail(c, v, key, "expected a rate in MB/s greater than zero, got '%s'", s);
	*(double *)dst = r;
	return 0;
}

static const struct cfg_field cfg_hardware_fields[] = {
	{"node_disk_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_disk_MBps), 0, 0},
	{"node_link_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_link_MBps), 0, 0},
	{"node_memcpy_MBps", cfg_h_rate, offsetof(struct cfg_hardware, node_memcpy_MBps), 0, 0},
	{"reader_MBps", cfg_h_rate, offsetof(struct cfg_hardware, reader_MBps), 0, 0},
	{"storage_servers", cfg_h_hw_count, offsetof(struct cfg_hardware, storage_servers), 0, 0},
	{"server_disk_MBps", cfg_h_rate, offsetof(struct cfg_hardware, server_disk_MBps), 0, 0},
	{"server_link_MBps", cfg_h_rate, offsetof(struct cfg_hardware, server_link_MBps), 0, 0},
	{"data_on_compute_nodes", cfg_h_bool,
	 offsetof(struct cfg_hardware, data_on_compute_nodes), 0, 0},
	{"racks", cfg_h_hw_count, offsetof(struct cfg_hardware, racks), 0, 0},
	{"rack_uplink_MBps", cfg_h_rate, offsetof(struct cfg_hardware, rack_uplink_MBps), 0, 0},
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

/* mpiio_hints: any keys (MPI_Info passes them through), scalar values kept as written. */
static int cfg_hint(struct cfg_ctx *c, const char *prefix, const struct ypair *p)
{
	char key[CFG_KEY_MAX];
	struct experiment *x = c->x;
	struct ynode *k = cfg_node(c, p->key), *v = cfg_node(c, p->value);
	if (k == NULL || v == NULL)
		return -1;
	if (k->type != YAML_SCALAR_NODE)
		return cfg_fail(c, k, prefix, "a hint name must be a scalar, found %s", cfg_kind(k));
	cfg_path(key, sizeof key, prefix, (const char *)k->str);
	if (x->nhints == CFG_HINTS_MAX)
		return cfg_fail(c, k, key, "too many hints (at most %d)", CFG_HINTS_MAX);
	struct cfg_hint *h = &x->mpiio_hints[x->nhints];
	for (size_t i = 0; i < x->nhints; i++)
		if (strcmp(x->mpiio_hints[i].key, (const char *)k->str) == 0)
			return cfg_fail(c, k, key, "duplicate key");
	if (cfg_h_str(c, key, k, h->key, sizeof h->key) != 0 ||
	    cfg_h_str(c, key, v, h->value, sizeof h->value) != 0)
		return -1;
	x->nhints++;
	return 0;
}

static int cfg_h_hints(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)dst;
	(void)size;
	if (cfg_expect(c, key, v, YAML_MAPPING_NODE) != 0)
		return -1;
	for (const struct ypair *p = v->pairs; p < v->pairs + v->n; p++)
		if (cfg_hint(c, key, p) != 0)
			return -1;
	return 0;
}

/* ---- data sets ---- */

/* sigma: a decimal number > 0 and at most 10 (e^10 spans more than 64 bits). */
static int cfg_h_sigma(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	char *end = NULL;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	errno = 0;
	double r = strtod(s, &end);
	if (strspn(s, "0123456789.") != strlen(s) || end == s || *end != '\0' || errno != 0 ||
	    !(r > 0) || r > 10)
		return cfg_fail(c, v, key, "expected a decimal number above 0 and at most 10, got '%s'",
				s);
	*(double *)dst = r;
	return 0;
}

static int cfg_h_distribution(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			      size_t size)
{
	static const char *const names[] = {"lognormal"};
	int i;
	(void)size;
	if (cfg_enum(c, key, v, names, CFG_LEN(names), &i) != 0)
		return -1;
	*(enum cfg_sizes_kind *)dst = CFG_SIZES_LOGNORMAL;
	return 0;
}

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

/* ---- a data set's layout ---- */

static int cfg_h_layout_kind(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_layout_names, CFG_LAYOUT_GIVEN, &i) != 0)
		return -1;
	*(enum cfg_layout_kind *)dst = (enum cfg_layout_kind)i;
	return 0;
}

static int cfg_h_hash_depth(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 0, CFG_HASH_DEPTH_MAX, dst);
}

static int cfg_h_hash_width(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	(void)size;
	return cfg_uint(c, key, v, 1, CFG_HASH_WIDTH_MAX, dst);
}

/* A name digest: xxh64 or sha1 (none names nothing). */
static int cfg_h_name_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	static const char *const names[] = {"xxh64", "sha1"};
	int i;
	(void)size;
	if (cfg_enum(c, key, v, names, CFG_LEN(names), &i) != 0)
		return -1;
	*(enum digest_kind *)dst = i == 0 ? DIGEST_XXH64 : DIGEST_SHA1;
	return 0;
}

enum { LY_KIND, LY_FPD, LY_DEPTH, LY_WIDTH, LY_DIGEST, LY_NFIELDS };

static const struct cfg_field cfg_ds_layout_fields[LY_NFIELDS] = {
	[LY_KIND] = {"kind", cfg_h_layout_kind, offsetof(struct cfg_layout, kind), 0, 0},
	[LY_FPD] = {"files_per_dir", cfg_h_fanout, offsetof(struct cfg_layout, files_per_dir), 0, 0},
	[LY_DEPTH] = {"depth", cfg_h_hash_depth, offsetof(struct cfg_layout, depth), 0, 0},
	[LY_WIDTH] = {"width", cfg_h_hash_width, offsetof(struct cfg_layout, width), 0, 0},
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
				cfg_layout_names[l->kind], i == LY_FPD ? "indexed" : "hashed");
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
	[DS_FILE_COUNT] = {"file_count", cfg_h_file_count, offsetof(struct cfg_dataset, nfiles), 0, 0},
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

/* Data set names seen so far, so that a duplicate is found in O(1) (a linear search made
 * 200,000 data sets take minutes): open addressing over the names, slots hold index + 1. */
struct cfg_names {
	size_t *slot;
	size_t cap; /* a power of two, at least twice the names */
};

static int cfg_names_init(struct cfg_names *t, size_t n)
{
	t->cap = 16;
	while (t->cap < 2 * n + 2)
		t->cap *= 2;
	t->slot = calloc(t->cap, sizeof *t->slot);
	return t->slot != NULL ? 0 : -1;
}

/* The slot of name: the index + 1 of the data set that has it, or an empty one (0). */
static size_t *cfg_names_slot(const struct cfg_names *t, const struct cfg_dataset *all,
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

static int cfg_h_datasets(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
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

/* ---- the document ---- */

static const struct cfg_field cfg_top_fields[] = {
	{"name", cfg_h_name, offsetof(struct experiment, name),
	 CFG_MEMBER_SIZE(struct experiment, name), 0},
	{"root", cfg_h_root, offsetof(struct experiment, root),
	 CFG_MEMBER_SIZE(struct experiment, root), 1},
	{"results", cfg_h_results, offsetof(struct experiment, results),
	 CFG_MEMBER_SIZE(struct experiment, results), 0},
	{"layout", cfg_h_layout, 0, 0, 0},
	{"datasets", cfg_h_datasets, 0, 0, 1},
	{"sweep", cfg_h_sweep, 0, 0, 0},
	{"repetitions", cfg_h_repetitions, offsetof(struct experiment, repetitions), 0, 0},
	{"cache", cfg_h_cache, offsetof(struct experiment, cache), 0, 0},
	{"shift_fallback", cfg_h_fallback, offsetof(struct experiment, shift_fallback), 0, 0},
	{"seed", cfg_h_seed, offsetof(struct experiment, seed), 0, 0},
	{"noatime", cfg_h_bool, offsetof(struct experiment, noatime), 0, 0},
	{"sequential_hint", cfg_h_bool, offsetof(struct experiment, sequential_hint), 0, 0},
	{"verify", cfg_h_bool, offsetof(struct experiment, verify), 0, 0},
	{"phase_timeout", cfg_h_duration, offsetof(struct experiment, phase_timeout), 0, 0},
	{"startup_timeout", cfg_h_duration, offsetof(struct experiment, startup_timeout), 0, 0},
	{"uring", cfg_h_uring, 0, 0, 0},
	{"mpiio", cfg_h_mpiio, 0, 0, 0},
	{"mpiio_hints", cfg_h_hints, 0, 0, 0},
	{"hardware", cfg_h_hardware, 0, 0, 0},
	{"process", cfg_h_process, 0, 0, 0},
	{"space_check", cfg_h_bool, offsetof(struct experiment, space_check), 0, 0},
};

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
static void cfg_defaults(struct experiment *x, const char *source)
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
	x->mpiio_collective = 1;
	x->uring_queue_depth = 16;
	x->uring_max_inflight = 64ULL << 20;
	x->space_check = 1;
}

/* Defaults of what was not given, placed at pos (the top of the file) for later messages. */
static void cfg_late_defaults(struct experiment *x, struct cfg_pos pos)
{
	static const char posix[] = "posix";
	if (x->nreaders == 0) {
		x->readers_per_node[0] = 1;
		x->readers_pos[0] = pos;
		x->nreaders = 1;
	}
	if (x->nbackends == 0) {
		memcpy(x->backends[0], posix, sizeof posix);
		x->backends_pos[0] = pos;
		x->nbackends = 1;
	}
	if (x->ntransfers == 0) {
		x->transfer_sizes[0] = 4ULL << 20;
		x->ntransfers = 1;
	}
	if (x->norders == 0) {
		x->orders[0] = CFG_ORDER_SORTED;
		x->norders = 1;
	}
	if (x->npatterns == 0) {
		x->patterns[0] = CFG_PATTERN_PER_READER;
		x->npatterns = 1;
	}
	if (x->ndecomps == 0) {
		x->decomps[0] = CFG_DECOMP_BLOCK;
		x->ndecomps = 1;
	}
	if (x->cache_pos.line == 0)
		x->cache_pos = pos;
	if (x->shift_fallback_pos.line == 0)
		x->shift_fallback_pos = pos;
}

/* ---- after the whole document: sizes need the seed, twins the totals ---- */

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
static int cfg_settle_sizes(struct cfg_ctx *c, size_t i, uint64_t *drawn)
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
static int cfg_add_twins(struct cfg_ctx *c)
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
static void cfg_settle_layouts(struct experiment *x)
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
static int cfg_check_in_place(struct cfg_ctx *c)
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

static int cfg_check_fanout(struct cfg_ctx *c)
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

int cfg_check_volume(const struct experiment *x, struct pf_err *e)
{
	uint64_t cells = (uint64_t)x->nreaders * x->nbackends * x->ntransfers * x->norders *
			 x->npatterns * x->ndecomps; /* each list <= CFG_LIST_MAX: < 2^30 */
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

static int cfg_document(struct cfg_ctx *c)
{
	struct cfg_seen seen[CFG_LEN(cfg_top_fields)];
	const struct cfg_pos start = {1, 1};
	struct ynode *top = ydoc_root(c->yd);
	if (top == NULL)
		return cfg_fail_pos(c->e, c->source, start, "the file is empty (expected a mapping "
				    "with at least root and datasets)");
	if (top->type != YAML_MAPPING_NODE)
		return cfg_fail(c, top, NULL, "the top level must be a mapping of keys, found %s",
				cfg_kind(top));
	if (cfg_walk(c, "", top, cfg_top_fields, CFG_LEN(cfg_top_fields), c->x, seen) != 0)
		return -1;
	cfg_late_defaults(c->x, cfg_pos_of(top));
	cfg_volume_place(c->x, seen);
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

/* Compose the text (ydoc: bounded nesting and aliases, interruptible) and read it. */
static int cfg_parse_yaml(const char *source, const char *text, size_t len, struct experiment *x,
			  struct pf_err *e)
{
	struct ydoc yd;
	struct ydoc_fail f;
	struct cfg_ctx c = {source, &yd, x, e};
	if (ydoc_load(&yd, text, len, &f) != 0) {
		struct cfg_pos pos = {f.line, f.col};
		if (f.line > 0 && f.status == PF_USAGE)
			return cfg_fail_pos(e, source, pos, "%s", f.msg);
		return pf_fail(e, f.status, "%s: %s", source, f.msg);
	}
	int rc = cfg_document(&c);
	ydoc_free(&yd);
	return rc;
}

int cfg_parse(const char *source, const char *text, size_t len, struct experiment *x,
	      struct pf_err *e)
{
	size_t n = strlen(source);
	memset(x, 0, sizeof *x);
	if (len == 0)
		text = ""; /* libyaml wants an input pointer even for no input */
	if (len > CFG_FILE_MAX)
		return pf_fail(e, PF_USAGE, "%s: larger than %u bytes, not a config", source,
			       CFG_FILE_MAX);
	/* A longer path is cut in x->source only; messages during the load use it whole. */
	memcpy(x->source, source, n < sizeof x->source ? n : sizeof x->source - 1);
	x->yaml_text = malloc(len + 1);
	if (x->yaml_text == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory for %zu bytes of YAML", source,
			       len);
	memcpy(x->yaml_text, text, len);
	x->yaml_text[len] = '\0';
	x->yaml_len = len;
	cfg_defaults(x, source);
	if (cfg_parse_yaml(source, text, len, x, e) != 0) {
		cfg_free(x);
		return -1;
	}
	return 0;
}

/* The whole file into a malloc'ed buffer (*text, *len), up to CFG_FILE_MAX bytes. */
static int cfg_read_file(const char *path, char **text, size_t *len, struct pf_err *e)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = -1;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
	while (!feof(f)) {
		if (n == cap) {
			char *grown = realloc(buf, cap = cap > 0 ? cap * 2 : 4096);
			if (grown == NULL) {
				pf_fail(e, PF_RUNTIME, "%s: out of memory reading it", path);
				goto out;
			}
			buf = grown;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f) && stop_signal() != 0) { /* a pipe that is slow to deliver */
			stop_check(e, path);
			goto out;
		}
		if (ferror(f)) {
			pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (n > CFG_FILE_MAX) {
			pf_fail(e, PF_USAGE, "%s: cannot read: larger than %u bytes, not a config",
				path, CFG_FILE_MAX);
			goto out;
		}
	}
	rc = 0;
out:
	if (fclose(f) != 0 && rc == 0) /* nothing to lose on a read stream, but say so */
		rc = pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
	if (rc != 0) {
		free(buf);
		return -1;
	}
	*text = buf;
	*len = n;
	return 0;
}

int cfg_load(const char *path, struct experiment *x, struct pf_err *e)
{
	char *text = NULL;
	size_t len = 0;
	memset(x, 0, sizeof *x);
	if (cfg_read_file(path, &text, &len, e) != 0)
		return -1;
	int rc = cfg_parse(path, text, len, x, e);
	free(text);
	return rc;
}

void cfg_free(struct experiment *x)
{
	if (x == NULL)
		return;
	free(x->yaml_text);
	for (size_t i = 0; x->datasets != NULL && i < x->ndatasets; i++) {
		if (x->datasets[i].tree != NULL && x->datasets[i].tree_release != NULL)
			x->datasets[i].tree_release(x->datasets[i].tree);
		free(x->datasets[i].from_tree);
		free(x->datasets[i].buckets);
	}
	free(x->datasets);
	memset(x, 0, sizeof *x);
}

const char *cfg_cache_name(enum cfg_cache c)
{
	return (size_t)c < CFG_LEN(cfg_cache_names) ? cfg_cache_names[c] : "unknown";
}

const char *cfg_order_name(enum cfg_order o)
{
	return (size_t)o < CFG_LEN(cfg_order_names) ? cfg_order_names[o] : "unknown";
}

const char *cfg_pattern_name(enum cfg_pattern p)
{
	return (size_t)p < CFG_LEN(cfg_pattern_names) ? cfg_pattern_names[p] : "unknown";
}

const char *cfg_layout_name(enum cfg_layout_kind k)
{
	return (unsigned)k < CFG_LEN(cfg_layout_names) ? cfg_layout_names[k] : "unknown";
}

const char *cfg_decomp_name(enum cfg_decomp d)
{
	return (size_t)d < CFG_LEN(cfg_decomp_names) ? cfg_decomp_names[d] : "unknown";
}

int cfg_processes(const struct experiment *x)
{
	return x->process_digest != DIGEST_NONE || x->process_cpu_ns_per_byte > 0;
}

void cfg_process_describe(const struct experiment *x, char *buf, size_t len)
{
	int d = x->process_digest != DIGEST_NONE, n = x->process_cpu_ns_per_byte > 0;
	if (!d && !n)
		snprintf(buf, len, "none");
	else if (!n)
		snprintf(buf, len, "%s", digest_name(x->process_digest));
	else
		snprintf(buf, len, "%s%s%" PRIu64 "ns/B", d ? digest_name(x->process_digest) : "",
			 d ? "+" : "", x->process_cpu_ns_per_byte);
}

int cfg_check_readers(const struct experiment *x, int least, struct pf_err *e)
{
	for (size_t i = 0; i < x->nreaders; i++) {
		if (x->readers_per_node[i] <= least)
			continue;
		char key[64];
		snprintf(key, sizeof key, "sweep.readers_per_node[%zu]", i);
		return cfg_fail_at(e, x, x->readers_pos[i], key,
				   "%d readers per node, but a node has only %d ranks "
				   "(launch more ranks per node)",
				   x->readers_per_node[i], least);
	}
	return 0;
}
