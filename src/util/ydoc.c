/* ydoc: a document of compact nodes composed from libyaml's parser events, with bounds on
 * nesting and on what aliases expand to, anchors in a hash table, the places of aliases kept,
 * and a look at the stop flag every few thousand events. Linear in the input: no step looks
 * back over what came before, and nodes, texts and child lists each live in one array. */
#include "util/ydoc.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/stop.h"

/* One open collection: its node, where its children start on the pending stack, and the
 * expanded size of the document when it opened. */
struct ydoc_frame {
	int node;
	size_t pend_from;
	uint64_t total_before;
};

struct ydoc_ctx {
	yaml_parser_t parser;
	struct ydoc *d;
	struct ydoc_fail *f;
	const char *text;
	size_t len;
	struct ydoc_frame stack[YDOC_DEPTH_MAX];
	int depth;
	struct htab anchors; /* name -> node (struct ydoc_anchor); names taken from the events */
	/* the document being built, in arrays that grow by doubling */
	struct ynode *nodes;
	uint64_t *expanded; /* per node: its size with aliases expanded, 0 while still open */
	size_t nn, node_cap, exp_cap;
	char *strs;
	size_t nstrs, strs_cap;
	int *items;
	size_t nitems, items_cap;
	struct ypair *pairs;
	size_t npairs, pairs_cap;
	int *pend;          /* children of the open collections, innermost last */
	size_t npend, pend_cap;
	uint64_t total;     /* nodes of the document with every alias expanded, so far */
	int docs;           /* DOCUMENT-START events seen */
	unsigned long events;
};

/* ---- failures ---- */

static struct ydoc_pos ydoc_mark(yaml_mark_t m)
{
	struct ydoc_pos p = {m.line < INT_MAX ? (int)m.line + 1 : INT_MAX,
			     m.column < INT_MAX ? (int)m.column + 1 : INT_MAX};
	return p;
}

static void ydoc_at(struct ydoc_fail *f, int status, yaml_mark_t m)
{
	struct ydoc_pos p = ydoc_mark(m);
	f->status = status;
	f->line = p.line;
	f->col = p.col;
}

__attribute__((format(printf, 3, 4))) static int ydoc_say(struct ydoc_fail *f, int keep_pos,
							   const char *fmt, ...)
{
	va_list ap;
	if (!keep_pos)
		f->line = f->col = 0;
	va_start(ap, fmt);
	if (vsnprintf(f->msg, sizeof f->msg, fmt, ap) < 0)
		f->msg[0] = '\0';
	va_end(ap);
	return -1;
}

static int ydoc_nomem(struct ydoc_ctx *c)
{
	c->f->status = PF_RUNTIME;
	return ydoc_say(c->f, 0, "out of memory while parsing YAML");
}

/* Line and column of byte offset: reader errors (bad UTF-8) carry only an offset. */
static void ydoc_offset_pos(const struct ydoc_ctx *c, size_t offset, struct ydoc_fail *f)
{
	f->line = f->col = 1;
	for (size_t i = 0; i < offset && i < c->len; i++) {
		if (c->text[i] == '\n') {
			f->line++;
			f->col = 1;
		} else {
			f->col++;
		}
	}
}

static int ydoc_syntax(struct ydoc_ctx *c)
{
	const yaml_parser_t *p = &c->parser;
	const char *problem = p->problem != NULL ? p->problem : "unknown problem";
	if (p->error == YAML_MEMORY_ERROR)
		return ydoc_nomem(c);
	ydoc_at(c->f, PF_USAGE, p->problem_mark);
	if (p->error == YAML_READER_ERROR)
		ydoc_offset_pos(c, p->problem_offset, c->f);
	if (p->context == NULL)
		return ydoc_say(c->f, 1, "YAML syntax error: %s", problem);
	return ydoc_say(c->f, 1, "YAML syntax error: %s (%s at line %d)", problem, p->context,
			ydoc_mark(p->context_mark).line);
}

/* Room for need elements of elem bytes at *p (capacity *cap, doubled as it grows). */
static int ydoc_room(void *p, size_t *cap, size_t need, size_t elem)
{
	void **arr = p;
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / elem)
		return -1;
	void *more = realloc(*arr, n * elem);
	if (more == NULL)
		return -1;
	*arr = more;
	*cap = n;
	return 0;
}

/* ---- anchors: name -> node ---- */

struct ydoc_anchor {
	char *name; /* owned: taken from the event */
	int node;
};

static int ydoc_anchor_is(const void *val, const void *name)
{
	return strcmp(((const struct ydoc_anchor *)val)->name, name) == 0;
}

/* Anchor *name (taken over: *name becomes NULL) names node id. */
static int ydoc_anchor_add(struct ydoc_ctx *c, yaml_char_t **name, int id, yaml_mark_t m)
{
	const char *s = (const char *)*name;
	int added;
	if (s == NULL)
		return 0;
	struct ydoc_anchor *a = htab_put(&c->anchors, htab_hash_str(s), ydoc_anchor_is, s, &added);
	if (a == NULL)
		return ydoc_nomem(c);
	if (!added) {
		ydoc_at(c->f, PF_USAGE, m);
		return ydoc_say(c->f, 1, "YAML syntax error: found duplicate anchor '&%.64s' (first "
				"at line %d)", s, c->nodes[a->node - 1].pos.line);
	}
	a->name = (char *)*name;
	a->node = id;
	*name = NULL;
	return 0;
}

static int ydoc_anchor_find(const struct ydoc_ctx *c, const char *name)
{
	const struct ydoc_anchor *a = htab_find(&c->anchors, htab_hash_str(name), ydoc_anchor_is, name);
	return a != NULL ? a->node : 0;
}

/* ---- alias uses: (parent, slot) -> the alias's place ---- */

static uint64_t ydoc_use_key(int parent, size_t slot)
{
	return (uint64_t)(unsigned)parent << 32 | (uint64_t)(slot + 1);
}

static int ydoc_use_add(struct ydoc_ctx *c, int parent, size_t slot, yaml_mark_t m)
{
	int added;
	struct ydoc_pos *p = htab_put(&c->d->uses, ydoc_use_key(parent, slot), NULL, NULL, &added);
	if (p == NULL)
		return ydoc_nomem(c);
	*p = ydoc_mark(m);
	return 0;
}

/* ---- composing ---- */

/* The document with every alias expanded may be YDOC_EXPAND_FACTOR times what was written,
 * plus YDOC_EXPAND_FREE: a config that names a mapping a few times passes, a bomb does not. */
static int ydoc_check_total(struct ydoc_ctx *c, yaml_mark_t m)
{
	uint64_t limit = YDOC_EXPAND_FACTOR * (uint64_t)c->nn + YDOC_EXPAND_FREE;
	if (c->total <= limit)
		return 0;
	ydoc_at(c->f, PF_USAGE, m);
	return ydoc_say(c->f, 1, "aliases expand the document to more than %llu nodes (%llu "
			"written, at most %d times that plus %d): refused, an alias bomb is not a "
			"config", (unsigned long long)limit, (unsigned long long)c->nn,
			YDOC_EXPAND_FACTOR, YDOC_EXPAND_FREE);
}

/* Node id (or an alias to it, at *alias) goes into the open collection: a sequence's next
 * item, a mapping's key, or the value for the key before it. The first node is the top.
 * Children wait on one stack until their collection ends (collections nest, so their lists
 * cannot grow in place). */
static int ydoc_attach(struct ydoc_ctx *c, int id, const yaml_mark_t *alias)
{
	if (c->depth == 0)
		return 0;
	const struct ydoc_frame *fr = &c->stack[c->depth - 1];
	size_t at = c->npend - fr->pend_from;
	if (ydoc_room(&c->pend, &c->pend_cap, c->npend + 1, sizeof *c->pend) != 0)
		return ydoc_nomem(c);
	c->pend[c->npend++] = id;
	if (alias == NULL)
		return 0;
	if (c->nodes[fr->node - 1].type == YAML_SEQUENCE_NODE)
		return ydoc_use_add(c, fr->node, at, *alias);
	return at % 2 == 1 ? ydoc_use_add(c, fr->node, at / 2, *alias) : 0; /* values only */
}

/* A new node of type t: placed, anchored, counted, attached. Returns its id, or 0. */
static int ydoc_new(struct ydoc_ctx *c, yaml_node_type_t t, yaml_char_t **anchor,
		    const yaml_event_t *ev)
{
	if (c->nn >= INT_MAX - 1 ||
	    ydoc_room(&c->nodes, &c->node_cap, c->nn + 1, sizeof *c->nodes) != 0 ||
	    ydoc_room(&c->expanded, &c->exp_cap, c->nn + 1, sizeof *c->expanded) != 0) {
		ydoc_nomem(c);
		return 0;
	}
	c->nodes[c->nn] = (struct ynode){.type = t, .pos = ydoc_mark(ev->start_mark)};
	c->expanded[c->nn] = 0;
	int id = (int)++c->nn;
	c->total++;
	if (ydoc_anchor_add(c, anchor, id, ev->start_mark) != 0 || ydoc_attach(c, id, NULL) != 0)
		return 0;
	return id;
}

static int ydoc_scalar(struct ydoc_ctx *c, yaml_event_t *ev)
{
	size_t len = ev->data.scalar.length;
	int id = ydoc_new(c, YAML_SCALAR_NODE, &ev->data.scalar.anchor, ev);
	if (id == 0)
		return -1;
	if (len > SIZE_MAX - c->nstrs - 1 ||
	    ydoc_room(&c->strs, &c->strs_cap, c->nstrs + len + 1, 1) != 0)
		return ydoc_nomem(c);
	memcpy(c->strs + c->nstrs, ev->data.scalar.value, len);
	c->strs[c->nstrs + len] = '\0';
	struct ynode *n = &c->nodes[id - 1];
	n->style = (int)ev->data.scalar.style;
	n->off = c->nstrs;
	n->n = len;
	c->expanded[id - 1] = 1;
	c->nstrs += len + 1;
	return ydoc_check_total(c, ev->start_mark);
}

static int ydoc_open(struct ydoc_ctx *c, yaml_event_t *ev)
{
	int seq = ev->type == YAML_SEQUENCE_START_EVENT;
	if (c->depth == YDOC_DEPTH_MAX) {
		ydoc_at(c->f, PF_USAGE, ev->start_mark);
		return ydoc_say(c->f, 1, "lists and mappings nested more than %d levels deep: "
				"refused", YDOC_DEPTH_MAX);
	}
	uint64_t before = c->total;
	int id = ydoc_new(c, seq ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE,
			  seq ? &ev->data.sequence_start.anchor : &ev->data.mapping_start.anchor, ev);
	if (id == 0)
		return -1;
	c->stack[c->depth++] = (struct ydoc_frame){id, c->npend, before};
	return ydoc_check_total(c, ev->start_mark);
}

/* The collection ends: its children move from the stack into their run of items or pairs. */
static int ydoc_close(struct ydoc_ctx *c)
{
	const struct ydoc_frame *fr = &c->stack[--c->depth];
	struct ynode *n = &c->nodes[fr->node - 1];
	size_t k = c->npend - fr->pend_from;
	c->expanded[fr->node - 1] = c->total - fr->total_before;
	n->off = 0;
	n->n = 0;
	if (k == 0)
		return 0; /* empty: nothing to move (and the arrays may not exist yet) */
	const int *kids = c->pend + fr->pend_from;
	if (n->type == YAML_SEQUENCE_NODE) {
		if (ydoc_room(&c->items, &c->items_cap, c->nitems + k, sizeof *c->items) != 0)
			return ydoc_nomem(c);
		memcpy(c->items + c->nitems, kids, k * sizeof *kids);
		n->off = c->nitems;
		n->n = k;
		c->nitems += k;
	} else {
		if (ydoc_room(&c->pairs, &c->pairs_cap, c->npairs + k / 2, sizeof *c->pairs) != 0)
			return ydoc_nomem(c);
		for (size_t i = 0; i + 1 < k; i += 2)
			c->pairs[c->npairs + i / 2] = (struct ypair){kids[i], kids[i + 1]};
		n->off = c->npairs;
		n->n = k / 2;
		c->npairs += k / 2;
	}
	c->npend = fr->pend_from;
	return 0;
}

static int ydoc_alias(struct ydoc_ctx *c, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	int id = ydoc_anchor_find(c, name);
	ydoc_at(c->f, PF_USAGE, ev->start_mark);
	if (id == 0)
		return ydoc_say(c->f, 1, "YAML syntax error: found undefined alias '*%.64s'", name);
	if (c->expanded[id - 1] == 0)
		return ydoc_say(c->f, 1, "alias '*%.64s' inside the node it names: refused (it "
				"would never end)", name);
	c->total += c->expanded[id - 1];
	if (ydoc_check_total(c, ev->start_mark) != 0)
		return -1;
	return ydoc_attach(c, id, &ev->start_mark);
}

/* A second document: refused at its first node (a bare "---" is an empty node too). */
static int ydoc_second(struct ydoc_ctx *c, const yaml_event_t *ev)
{
	ydoc_at(c->f, PF_USAGE, ev->start_mark);
	return ydoc_say(c->f, 1, "a second YAML document; the file must hold exactly one");
}

/* One event; *done once the stream ends. */
static int ydoc_event(struct ydoc_ctx *c, yaml_event_t *ev, int *done)
{
	if (++c->events % YDOC_STOP_EVERY == 0 && stop_signal() != 0) {
		c->f->status = stop_status();
		return ydoc_say(c->f, 0, "interrupted by signal %d while reading it", stop_signal());
	}
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		c->docs++;
		return 0;
	case YAML_STREAM_END_EVENT:
		*done = 1;
		return 0;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
	case YAML_ALIAS_EVENT:
		if (c->docs > 1)
			return ydoc_second(c, ev);
		if (ev->type == YAML_SCALAR_EVENT)
			return ydoc_scalar(c, ev);
		return ev->type == YAML_ALIAS_EVENT ? ydoc_alias(c, ev) : ydoc_open(c, ev);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return ydoc_close(c);
	default: /* stream start, document end, no event */
		return 0;
	}
}

/* Hand the arrays to d and point every node at its text or its run of children (the arrays
 * moved while they grew, so runs were kept as offsets until now). */
static void ydoc_finish(struct ydoc_ctx *c, struct ydoc *d)
{
	static const int no_items[1];
	static const struct ypair no_pairs[1];
	for (size_t i = 0; i < c->nn; i++) {
		struct ynode *n = &c->nodes[i];
		size_t off = n->off;
		/* an array never grown is NULL (only empty collections point into it) */
		if (n->type == YAML_SCALAR_NODE)
			n->str = c->strs + off; /* every scalar put its text there */
		else if (n->type == YAML_SEQUENCE_NODE)
			n->kids = n->n > 0 ? c->items + off : no_items;
		else
			n->pairs = n->n > 0 ? c->pairs + off : no_pairs;
	}
	d->nodes = c->nodes;
	d->nnodes = c->nn;
	d->strs = c->strs;
	d->items = c->items;
	d->pairs = c->pairs;
	c->nodes = NULL;
	c->strs = NULL;
	c->items = NULL;
	c->pairs = NULL;
}

/* Release what c holds (the parser too); NULL is accepted. */
static void ydoc_ctx_free(struct ydoc_ctx *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->anchors.cap; i++) {
		struct ydoc_anchor *a = htab_at(&c->anchors, i);
		if (a != NULL)
			free(a->name);
	}
	htab_free(&c->anchors);
	free(c->nodes);
	free(c->expanded);
	free(c->strs);
	free(c->items);
	free(c->pairs);
	free(c->pend);
	yaml_parser_delete(&c->parser);
}

int ydoc_load(struct ydoc *d, const char *text, size_t len, struct ydoc_fail *f)
{
	struct ydoc_ctx c;
	int rc = 0, done = 0;
	memset(d, 0, sizeof *d);
	memset(f, 0, sizeof *f);
	memset(&c, 0, sizeof c);
	htab_init(&c.anchors, sizeof(struct ydoc_anchor));
	htab_init(&d->uses, sizeof(struct ydoc_pos));
	c.d = d;
	c.f = f;
	c.text = text;
	c.len = len;
	if (!yaml_parser_initialize(&c.parser)) {
		f->status = PF_RUNTIME;
		return ydoc_say(f, 0, "cannot initialize the YAML parser");
	}
	yaml_parser_set_input_string(&c.parser, (const unsigned char *)(len ? text : ""), len);
	while (rc == 0 && !done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&c.parser, &ev)) {
			rc = ydoc_syntax(&c);
			break;
		}
		rc = ydoc_event(&c, &ev, &done);
		yaml_event_delete(&ev);
	}
	if (rc == 0)
		ydoc_finish(&c, d);
	ydoc_ctx_free(&c);
	if (rc != 0)
		ydoc_free(d);
	return rc;
}

struct ynode *ydoc_root(const struct ydoc *d)
{
	return d->nnodes > 0 ? d->nodes : NULL;
}

struct ynode *ydoc_node(const struct ydoc *d, int id)
{
	return id > 0 && (size_t)id <= d->nnodes ? &d->nodes[id - 1] : NULL;
}

int ydoc_node_id(const struct ydoc *d, const struct ynode *n)
{
	return (int)(n - d->nodes) + 1;
}

struct ydoc_pos ydoc_slot_pos(const struct ydoc *d, const struct ynode *parent, size_t slot,
			      const struct ynode *item)
{
	const struct ydoc_pos *p =
		htab_find(&d->uses, ydoc_use_key(ydoc_node_id(d, parent), slot), NULL, NULL);
	return p != NULL ? *p : item->pos;
}

void ydoc_free(struct ydoc *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	free(d->strs);
	free(d->items);
	free(d->pairs);
	htab_free(&d->uses);
	memset(d, 0, sizeof *d);
}
