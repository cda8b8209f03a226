/* walk: the loader's generic parts. A mapping is read by one walker driven by a table of
 * key -> handler (unknown and duplicate keys refused by name), a sweep list by one list reader;
 * every message names the file, line, column and key path, the alias's own place when a value
 * came through one. */
#include "config/internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/safe.h"
#include "util/suggest.h"

/* Keys and values quoted from the file may hold control characters ("\n", an escape
 * sequence, C1): util/safe's \xNN for each keeps a message on one line and off the
 * terminal's controls. */
static int cfg_vfail(struct pf_err *e, const char *source, struct cfg_pos pos, const char *key,
		     const char *fmt, va_list ap)
{
	char raw[1536], what[1536], k[CFG_KEY_MAX];
	if (vsnprintf(raw, sizeof raw, fmt, ap) < 0)
		raw[0] = '\0';
	safe_text(what, sizeof what, raw, 0);
	if (key == NULL || key[0] == '\0')
		return pf_fail(e, PF_USAGE, "%s:%d:%d: %s", source, pos.line, pos.col, what);
	safe_text(k, sizeof k, key, 0);
	return pf_fail(e, PF_USAGE, "%s:%d:%d: key '%s': %s", source, pos.line, pos.col, k, what);
}

static struct cfg_pos cfg_ypos(struct ydoc_pos p)
{
	struct cfg_pos pos = {p.line, p.col};
	return pos;
}

struct cfg_pos cfg_pos_of(const struct ynode *n)
{
	return cfg_ypos(n->pos);
}

/* Fail at node n about key (NULL or "" for none). */
int cfg_fail(struct cfg_ctx *c, const struct ynode *n, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(c->e, c->source, cfg_pos_of(n), key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fail at pos about key, during the load (the source named whole). */
int cfg_fail_here(struct cfg_ctx *c, struct cfg_pos pos, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cfg_vfail(c->e, c->source, pos, key, fmt, ap);
	va_end(ap);
	return -1;
}

/* Where item slot of collection node parent was written: the alias's place when it was one. */
struct cfg_pos cfg_slot_pos(struct cfg_ctx *c, const struct ynode *parent, size_t slot,
				   const struct ynode *item)
{
	return cfg_ypos(ydoc_slot_pos(c->yd, parent, slot, item));
}

/* Fail at pos with no key: syntax errors and the shape of the whole file. */
int cfg_fail_pos(struct pf_err *e, const char *source, struct cfg_pos pos, const char *fmt, ...)
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
void cfg_path(char *buf, size_t size, const char *prefix, const char *name)
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

const char *cfg_kind(const struct ynode *n)
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

int cfg_expect(struct cfg_ctx *c, const char *key, const struct ynode *v, yaml_node_type_t t)
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
int cfg_scalar(struct cfg_ctx *c, const char *key, const struct ynode *v, const char **s)
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

struct ynode *cfg_node(struct cfg_ctx *c, int index)
{
	struct ynode *n = ydoc_node(c->yd, index);
	if (n == NULL)
		pf_fail(c->e, PF_USAGE, "%s: malformed YAML document (node %d missing)", c->source,
			index);
	return n;
}

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

int cfg_uint(struct cfg_ctx *c, const char *key, const struct ynode *v, uint64_t min,
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

int cfg_enum(struct cfg_ctx *c, const char *key, const struct ynode *v,
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
	struct suggest near;
	suggest_init(&near, s, strlen(s));
	for (size_t i = 0; i < n; i++)
		suggest_offer(&near, names[i]);
	const char *best = suggest_best(&near);
	if (best)
		return cfg_fail(c, v, key, "unknown value '%s': did you mean '%s'? (use %s)", s,
				best, list);
	return cfg_fail(c, v, key, "unknown value '%s' (use %s)", s, list);
}

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
	struct suggest near;
	suggest_init(&near, (const char *)k->str, k->n);
	for (size_t i = 0; i < nt; i++) {
		cfg_append(allowed, sizeof allowed, ", ", t[i].name);
		suggest_offer(&near, t[i].name);
	}
	const char *best = suggest_best(&near);
	const char *note = c->block != NULL ? c->block->block->note : NULL;
	if (nt == 0)
		return cfg_fail(c, k, key, "unknown key: %s", note ? note : "this takes no keys");
	if (best)
		return cfg_fail(c, k, key, "unknown key: did you mean '%s'? (allowed: %s)%s%s", best,
				allowed, note ? ": " : "", note ? note : "");
	return cfg_fail(c, k, key, "unknown key (allowed: %s)%s%s", allowed, note ? ": " : "",
			note ? note : "");
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
	return cfg_read(c, key, v, &t[i], (char *)base + t[i].off);
}

/* The one reader of integer fields: from f->min to f->max, into an int when f->size is an
 * int's (the tables give an int field a range an int holds), else into a uint64_t. */
static int cfg_integer(struct cfg_ctx *c, const char *key, const struct ynode *v,
		       const struct cfg_field *f, void *dst)
{
	uint64_t u;
	if (cfg_uint(c, key, v, f->min, f->max, &u) != 0)
		return -1;
	if (f->size == sizeof(int))
		*(int *)dst = (int)u;
	else
		*(uint64_t *)dst = u;
	return 0;
}

int cfg_read(struct cfg_ctx *c, const char *key, struct ynode *v, const struct cfg_field *f,
	     void *dst)
{
	if (f->fn == CFG_INTEGER)
		return cfg_integer(c, key, v, f, dst);
	return f->fn(c, key, v, dst, f->size);
}

/* Read mapping map, named prefix, with table t into base; seen[nt] says what was given. */
int cfg_walk(struct cfg_ctx *c, const char *prefix, struct ynode *map,
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

/* Entry i of a list, written at pos (an alias's place when it was one). */
static int cfg_list_item(struct cfg_ctx *c, const char *key, struct ynode *v,
			 const struct cfg_list *l, size_t i, struct cfg_pos pos)
{
	size_t size = l->entry->size;
	char *slot = (char *)l->vals + i * size;
	memset(slot, 0, size); /* so that equal values compare equal byte for byte */
	if (cfg_read(c, key, v, l->entry, slot) != 0)
		return -1;
	for (size_t j = 0; j < i; j++)
		if (memcmp(slot, (char *)l->vals + j * size, size) == 0)
			return cfg_fail_here(c, pos, key, "duplicate entry '%s' (same as entry %zu)",
					     (const char *)v->str, j);
	if (l->pos != NULL)
		l->pos[i] = pos;
	*l->count = i + 1;
	return 0;
}

/* A list of values, or one value standing for a list of one. */
int cfg_list(struct cfg_ctx *c, const char *key, struct ynode *v, const struct cfg_list *l)
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
