/* config/internal: what the loader's files share (the one internal header of src/config/).
 * walk.c reads a mapping with a table of key -> handler and fails with FILE:LINE:COL: key;
 * names.c and values.c hold the handlers of single values; datasets.c the data sets; top.c
 * the top level and the document; blocks.c the keys other modules own (the backends');
 * check.c what is settled and checked across keys after the document; load.c reads the file
 * and frees what was loaded. Not an interface for other modules. */
#ifndef PFSREAD_CONFIG_INTERNAL_H
#define PFSREAD_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "config/config.h"
#include "util/err.h"
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
	const struct cfg_values *block; /* the block being read (blocks.c), or NULL */
};

/* Read node v, named key in messages, into dst (size bytes when it is a string). */
typedef int (*cfg_handler)(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			   size_t size);

/* fn of a field that is an integer from min to max: cfg_read reads it (cfg_uint's messages). */
#define CFG_INTEGER NULL

/* One allowed key of a mapping, or what each entry of a list is. */
struct cfg_field {
	const char *name;
	cfg_handler fn;     /* reads the value; CFG_INTEGER: an integer from min to max */
	size_t off;         /* of the destination inside the struct the mapping fills */
	size_t size;        /* of the destination: a string's; CFG_INTEGER: sizeof(int) for an
			     * int, sizeof(uint64_t) for a uint64_t */
	int required;
	uint64_t min, max;  /* CFG_INTEGER: the range */
};

/* The key and value nodes met for each field of a table; NULL when the key is absent. at is
 * where the value was written: an alias's own place when it was one (the node's is its
 * anchor's). */
struct cfg_seen {
	struct ynode *key;
	struct ynode *val;
	struct cfg_pos at;
};

/* A sweep list: entry says how each is read into vals[i] (entry->size bytes each), *count
 * says how many. */
struct cfg_list {
	const struct cfg_field *entry;
	void *vals;
	size_t *count;
	struct cfg_pos *pos; /* per entry, or NULL when positions are not kept */
};

/* ---- walk.c: messages ---- */

struct cfg_pos cfg_pos_of(const struct ynode *n);
/* Fail at node n about key (NULL or "" for none). */
int cfg_fail(struct cfg_ctx *c, const struct ynode *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Fail at pos about key, during the load (the source named whole). */
int cfg_fail_here(struct cfg_ctx *c, struct cfg_pos pos, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Fail at pos with no key: syntax errors and the shape of the whole file. */
int cfg_fail_pos(struct pf_err *e, const char *source, struct cfg_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Where item slot of collection node parent was written: the alias's place when it was one. */
struct cfg_pos cfg_slot_pos(struct cfg_ctx *c, const struct ynode *parent, size_t slot,
			    const struct ynode *item);
/* prefix.name into buf (key paths only label messages: a path cut short is acceptable). */
void cfg_path(char *buf, size_t size, const char *prefix, const char *name);

/* ---- walk.c: nodes and values ---- */

/* "a single value", "a list", "a mapping", "no value": what node n is, for messages. */
const char *cfg_kind(const struct ynode *n);
/* 0 when v is of type t, else -1 with "expected ..., found ...". */
int cfg_expect(struct cfg_ctx *c, const char *key, const struct ynode *v, yaml_node_type_t t);
/* The text of a scalar that has a value; *s stays valid as long as the document. */
int cfg_scalar(struct cfg_ctx *c, const char *key, const struct ynode *v, const char **s);
/* Node index of the document, or NULL with a message. */
struct ynode *cfg_node(struct cfg_ctx *c, int index);
/* An integer from min to max, decimal digits only. */
int cfg_uint(struct cfg_ctx *c, const char *key, const struct ynode *v, uint64_t min,
	     uint64_t max, uint64_t *out);
/* One of names[0..n): its index into *out. */
int cfg_enum(struct cfg_ctx *c, const char *key, const struct ynode *v,
	     const char *const *names, size_t n, int *out);

/* ---- walk.c: mappings and lists ---- */

/* Read mapping map, named prefix, with table t into base; seen[nt] says what was given. */
int cfg_walk(struct cfg_ctx *c, const char *prefix, struct ynode *map,
	     const struct cfg_field *t, size_t nt, void *base, struct cfg_seen *seen);
/* Read v into dst as f says: with its handler, or as an integer from f->min to f->max. */
int cfg_read(struct cfg_ctx *c, const char *key, struct ynode *v, const struct cfg_field *f,
	     void *dst);
/* A list of values, or one value standing for a list of one. */
int cfg_list(struct cfg_ctx *c, const char *key, struct ynode *v, const struct cfg_list *l);

/* ---- names.c: the enum name tables ---- */

/* An enum's names, in the order of its values. */
struct cfg_enum_names {
	const char *const *name;
	size_t n;
};
extern const struct cfg_enum_names cfg_order_enum, cfg_pattern_enum, cfg_decomp_enum,
	cfg_advice_enum;

/* ---- names.c and values.c: handlers of single values ---- */

int cfg_h_cache(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_fallback(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_order(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_pattern(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_decomp(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_advice(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_bool(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_distribution(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
		       size_t size);
int cfg_h_layout_kind(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
		      size_t size);
int cfg_h_name_digest(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
		      size_t size);

int cfg_h_str(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_name(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_root(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_results(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_total_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
		     size_t size);
int cfg_h_transfer(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_duration(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_rate(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
int cfg_h_sigma(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
/* A size with a unit, from 1 byte to max, into *out; what says what max is the largest of. */
int cfg_size_upto(struct cfg_ctx *c, const char *key, struct ynode *v, uint64_t max,
		  const char *what, uint64_t *out);

/* ---- blocks.c: the keys other modules own ---- */

/* x holds blocks (NULL-terminated, or NULL) with their defaults. 0, or -1 (out of memory). */
int cfg_blocks_init(struct experiment *x, const struct cfg_block *const *blocks,
		    const char *source, struct pf_err *e);
/* The handler of a top-level key that is a block's (found in c->x by the key). */
int cfg_h_block(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
/* Release the blocks' values x holds; NULL is accepted. */
void cfg_blocks_free(struct experiment *x);

/* ---- sweep.c: the sweep: lists, from the sweep key table ---- */

/* The sweep: mapping. */
int cfg_h_sweep(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);
/* Each list not given takes its key's default, placed at pos (the top of the file). */
void cfg_sweep_defaults(struct experiment *x, struct cfg_pos pos);

/* ---- datasets.c ---- */

/* The datasets: list. */
int cfg_h_datasets(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size);

/* Data set names seen so far, so that a duplicate is found in O(1) (a linear search made
 * 200,000 data sets take minutes): open addressing over the names, slots hold index + 1. */
struct cfg_names {
	size_t *slot;
	size_t cap; /* a power of two, at least twice the names */
};
int cfg_names_init(struct cfg_names *t, size_t n);
/* The slot of name: the index + 1 of the data set that has it, or an empty one (0). */
size_t *cfg_names_slot(const struct cfg_names *t, const struct cfg_dataset *all,
		       const char *name);

/* ---- check.c: after the whole document ---- */

/* Copy the seed into each data set; count and sum what a distribution makes (*drawn: the
 * lognormal files of the data sets before, all of which count against SIZES_MAX_FILES: the
 * load must stay short); the median of a histogram. */
int cfg_settle_sizes(struct cfg_ctx *c, size_t i, uint64_t *drawn);
/* twin: true: insert NAME-onefile after NAME, one file of NAME's total bytes. */
int cfg_add_twins(struct cfg_ctx *c);
/* A data set without a layout of its own (a twin too: one file) takes the top level's:
 * indexed with the top-level files_per_dir, whichever order the keys came in. */
void cfg_settle_layouts(struct experiment *x);
/* An in-place tree holds its own bytes, not pfsread's pattern, and has no digest list:
 * verify: true and process.digest cannot check it (cpu_ns_per_byte alone can run). */
int cfg_check_in_place(struct cfg_ctx *c);
/* No directory gets more entries than CFG_FANOUT_MAX. */
int cfg_check_fanout(struct cfg_ctx *c);

/* ---- top.c: the document ---- */

/* Defaults that a key overwrites when given. */
void cfg_defaults(struct experiment *x, const char *source);
/* The whole document: the top-level keys, then what check.c settles and checks. */
int cfg_document(struct cfg_ctx *c);

#endif
