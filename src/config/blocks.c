/* blocks: the config's top-level keys that other modules own (each backend declares its own:
 * config.h, "blocks"). The loader is handed them, keeps each block's values (the owner's
 * struct, its defaults first) and reads a given block with the owner's table, through the same
 * walker and with the same messages as its own keys. */
#include "config/internal.h"

#include <stdlib.h>
#include <string.h>

#define CFG_OPTS_MAX 16 /* keys of one block */

int cfg_blocks_init(struct experiment *x, const struct cfg_block *const *blocks,
		    const char *source, struct pf_err *e)
{
	size_t n = 0;
	while (blocks != NULL && blocks[n] != NULL)
		n++;
	if (n == 0)
		return 0;
	if ((x->blocks = calloc(n, sizeof *x->blocks)) == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory", source);
	for (size_t i = 0; i < n; i++) {
		const struct cfg_block *b = blocks[i];
		x->blocks[i].block = b;
		x->nblocks = i + 1; /* counted first: cfg_blocks_free releases what it got */
		if (b->size == 0)
			continue; /* a block of no keys holds no values */
		if (b->nopts > CFG_OPTS_MAX || (x->blocks[i].values = malloc(b->size)) == NULL)
			return pf_fail(e, PF_RUNTIME, "%s: block '%s': out of memory", source, b->key);
		memcpy(x->blocks[i].values, b->defaults, b->size);
	}
	return 0;
}

void cfg_blocks_free(struct experiment *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; x->blocks != NULL && i < x->nblocks; i++)
		free(x->blocks[i].values);
	free(x->blocks);
	x->blocks = NULL;
	x->nblocks = 0;
}

const void *cfg_block_values(const struct experiment *x, const struct cfg_block *b)
{
	for (size_t i = 0; x != NULL && i < x->nblocks; i++)
		if (x->blocks[i].block == b)
			return x->blocks[i].values;
	return b->defaults;
}

/* The cfg_opt of the block being read that key (a path: "uring.queue_depth") names. */
static const struct cfg_opt *cfg_opt_of(const struct cfg_ctx *c, const char *key)
{
	const struct cfg_block *b = c->block->block;
	const char *name = strrchr(key, '.') != NULL ? strrchr(key, '.') + 1 : key;
	for (size_t i = 0; i < b->nopts; i++)
		if (strcmp(b->opts[i].name, name) == 0)
			return &b->opts[i];
	return &b->opts[0]; /* cannot happen: the walker found the name in this table */
}

/* One key of a block, as its cfg_opt says. */
static int cfg_h_opt(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const struct cfg_opt *o = cfg_opt_of(c, key);
	uint64_t u;
	(void)size;
	switch (o->kind) {
	case CFG_OPT_BOOL:
		return cfg_h_bool(c, key, v, dst, 0);
	case CFG_OPT_SIZE:
		return cfg_size_upto(c, key, v, o->max, o->what, dst);
	case CFG_OPT_ADVICE:
		return cfg_h_advice(c, key, v, dst, 0);
	case CFG_OPT_INT:
	default:
		if (cfg_uint(c, key, v, o->min, o->max, &u) != 0)
			return -1;
		*(int *)dst = (int)u;
		return 0;
	}
}

/* One pair of a block of free pairs: a scalar key not given before, a scalar value. */
static int cfg_pair_item(struct cfg_ctx *c, const char *prefix, const struct ypair *p,
			 const char *item, struct cfg_pairs *pairs)
{
	char key[CFG_KEY_MAX];
	struct ynode *k = cfg_node(c, p->key), *v = cfg_node(c, p->value);
	if (k == NULL || v == NULL)
		return -1;
	if (k->type != YAML_SCALAR_NODE)
		return cfg_fail(c, k, prefix, "a %s name must be a scalar, found %s", item,
				cfg_kind(k));
	cfg_path(key, sizeof key, prefix, (const char *)k->str);
	if (pairs->n == CFG_PAIRS_MAX)
		return cfg_fail(c, k, key, "too many %ss (at most %d)", item, CFG_PAIRS_MAX);
	for (size_t i = 0; i < pairs->n; i++)
		if (strcmp(pairs->pair[i].key, (const char *)k->str) == 0)
			return cfg_fail(c, k, key, "duplicate key");
	if (cfg_h_str(c, key, k, pairs->pair[pairs->n].key, sizeof pairs->pair[0].key) != 0 ||
	    cfg_h_str(c, key, v, pairs->pair[pairs->n].value, sizeof pairs->pair[0].value) != 0)
		return -1;
	pairs->n++;
	return 0;
}

int cfg_h_block(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const struct cfg_values *bv = c->x->blocks;
	struct cfg_field fields[CFG_OPTS_MAX];
	struct cfg_seen seen[CFG_OPTS_MAX];
	(void)dst;
	(void)size;
	while (strcmp(bv->block->key, key) != 0) /* the top level's table has it: it is there */
		bv++;
	const struct cfg_block *b = bv->block;
	if (b->opts == NULL) {
		if (cfg_expect(c, key, v, YAML_MAPPING_NODE) != 0)
			return -1;
		for (const struct ypair *p = v->pairs; p < v->pairs + v->n; p++)
			if (cfg_pair_item(c, key, p, b->item, bv->values) != 0)
				return -1;
		return 0;
	}
	for (size_t i = 0; i < b->nopts; i++)
		fields[i] = (struct cfg_field){.name = b->opts[i].name, .fn = cfg_h_opt,
					       .off = b->opts[i].offset};
	c->block = bv;
	int rc = cfg_walk(c, key, v, fields, b->nopts, bv->values, seen);
	c->block = NULL;
	return rc;
}
