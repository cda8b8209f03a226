/* ydoc: YAML text -> one document of compact nodes, composed here from libyaml's parser events
 * instead of by libyaml's loader. Why: the loader looks anchors up in a list (quadratic in
 * anchors), has no bound on nesting (10^5 nested '[' take libyaml's parser minutes, 64 take
 * nothing), no bound on what aliases expand to (an alias bomb), cannot be interrupted, forgets
 * where an alias stood (a duplicate brought in by an alias must be named at the alias's line,
 * not at its anchor's), and spends an allocation and 96 bytes on every node (200,000 data
 * sets are 1.4 million nodes). Pure: libyaml only (and the stop flag). */
#ifndef PFSREAD_YDOC_H
#define PFSREAD_YDOC_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "util/htab.h"

#define YDOC_DEPTH_MAX 64         /* nested collections; a config needs 7 */
#define YDOC_EXPAND_FACTOR 10     /* aliases may make the document this many times its nodes */
#define YDOC_EXPAND_FREE 10000    /* ... plus this many nodes */
#define YDOC_STOP_EVERY 4096      /* events between looks at the stop flag */

/* A place in the text, 1-based. */
struct ydoc_pos {
	int line, col;
};

/* A mapping's pair: node ids (1-based, as ydoc_node takes). */
struct ypair {
	int key, value;
};

/* One node. An alias is no node of its own: its place holds the id of the node it names. */
struct ynode {
	yaml_node_type_t type;   /* YAML_SCALAR_NODE, YAML_SEQUENCE_NODE or YAML_MAPPING_NODE */
	int style;               /* a scalar's yaml_scalar_style_t */
	struct ydoc_pos pos;     /* where the node starts */
	union {
		const char *str;           /* scalar: n bytes and a NUL (which may not be the first) */
		const int *kids;           /* sequence: the ids of its n items */
		const struct ypair *pairs; /* mapping: its n pairs */
		size_t off;                /* while composing: where those are in their array */
	};
	size_t n;
};

/* A loaded document and where its aliases stood. Owns everything it holds (ydoc_free). */
struct ydoc {
	struct ynode *nodes;          /* node id i is nodes[i - 1]; the first is the top */
	size_t nnodes;
	char *strs;                   /* every scalar's text, NUL-terminated */
	int *items;                   /* every sequence's items, one run each */
	struct ypair *pairs;          /* every mapping's pairs, one run each */
	struct htab uses;             /* alias uses: parent << 32 | slot + 1 -> the alias's own
				       * place (a struct ydoc_pos) */
};

/* Why a load failed. status is PF_USAGE (the input), PF_RUNTIME (memory) or 128 + a signal
 * (interrupted); line and col are 1-based, 0 when the message has no place in the file. */
struct ydoc_fail {
	int status;
	int line, col;
	char msg[768];
};

/* Compose text[0..len) (need not be NUL-terminated) into d. Exactly one document: anything
 * but the end of the stream after it is refused. 0, or -1 with f filled and d freed. */
int ydoc_load(struct ydoc *d, const char *text, size_t len, struct ydoc_fail *f);

/* The document's top node, or NULL for an empty stream. */
struct ynode *ydoc_root(const struct ydoc *d);

/* Node id (1-based), or NULL when there is none. */
struct ynode *ydoc_node(const struct ydoc *d, int id);

/* The id of node n of d. */
int ydoc_node_id(const struct ydoc *d, const struct ynode *n);

/* Where item slot of collection parent was written (a sequence's item, or the value of a
 * mapping's pair number slot): the alias's own place when it was one, else item's. */
struct ydoc_pos ydoc_slot_pos(const struct ydoc *d, const struct ynode *parent, size_t slot,
			      const struct ynode *item);

/* Release what d holds, leaving it empty; NULL, or a d already freed, is accepted. */
void ydoc_free(struct ydoc *d);

#endif
