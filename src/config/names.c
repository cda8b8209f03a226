/* names: the enum name tables of the config (cache, order, pattern, decomposition, layout,
 * digest, bool), the handlers that read a value by them and the functions that print it. */
#include "config/internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/digest.h"

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

static const char *const cfg_advice_names[] = {
	[CFG_ADVICE_DEFAULT] = "default",
	[CFG_ADVICE_NONE] = "none",
	[CFG_ADVICE_SEQUENTIAL] = "sequential",
	[CFG_ADVICE_WILLNEED] = "willneed",
};
_Static_assert(CFG_LEN(cfg_advice_names) == CFG_ADVICE_N, "one name per advice");

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

const struct cfg_enum_names cfg_order_enum = {cfg_order_names, CFG_LEN(cfg_order_names)};
const struct cfg_enum_names cfg_pattern_enum = {cfg_pattern_names, CFG_LEN(cfg_pattern_names)};
const struct cfg_enum_names cfg_decomp_enum = {cfg_decomp_names, CFG_LEN(cfg_decomp_names)};
const struct cfg_enum_names cfg_advice_enum = {cfg_advice_names, CFG_LEN(cfg_advice_names)};

int cfg_h_cache(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
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
int cfg_h_fallback(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
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

int cfg_h_order(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_order_names, CFG_LEN(cfg_order_names), &i) != 0)
		return -1;
	*(enum cfg_order *)dst = (enum cfg_order)i;
	return 0;
}

int cfg_h_pattern(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_pattern_names, CFG_LEN(cfg_pattern_names), &i) != 0)
		return -1;
	*(enum cfg_pattern *)dst = (enum cfg_pattern)i;
	return 0;
}

int cfg_h_decomp(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_decomp_names, CFG_LEN(cfg_decomp_names), &i) != 0)
		return -1;
	*(enum cfg_decomp *)dst = (enum cfg_decomp)i;
	return 0;
}

int cfg_h_advice(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
		 size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_advice_names, CFG_LEN(cfg_advice_names), &i) != 0)
		return -1;
	*(enum cfg_advice *)dst = (enum cfg_advice)i;
	return 0;
}

/* true or false, into an int. */
int cfg_h_bool(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)size;
	return cfg_enum(c, key, v, cfg_bool_names, CFG_LEN(cfg_bool_names), dst);
}

static const char *const cfg_digest_names[] = {"none", "xxh64", "sha1"}; /* enum digest_kind */

int cfg_h_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_digest_names, CFG_LEN(cfg_digest_names), &i) != 0)
		return -1;
	*(enum digest_kind *)dst = (enum digest_kind)i;
	return 0;
}

int cfg_h_distribution(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
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

int cfg_h_layout_kind(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			     size_t size)
{
	int i;
	(void)size;
	if (cfg_enum(c, key, v, cfg_layout_names, CFG_LAYOUT_GIVEN, &i) != 0)
		return -1;
	*(enum cfg_layout_kind *)dst = (enum cfg_layout_kind)i;
	return 0;
}

/* A name digest: xxh64 or sha1 (none names nothing). */
int cfg_h_name_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
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

const char *cfg_advice_name(enum cfg_advice a)
{
	return (size_t)a < CFG_LEN(cfg_advice_names) ? cfg_advice_names[a] : "unknown";
}

int cfg_advice_of(const char *name)
{
	for (size_t i = 0; i < CFG_LEN(cfg_advice_names); i++)
		if (strcmp(cfg_advice_names[i], name) == 0)
			return (int)i;
	return -1;
}
