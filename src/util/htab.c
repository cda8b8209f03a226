/* htab: open addressing on a 64-bit hash kept per slot, so that growing never calls back
 * into the caller. */
#include "util/htab.h"

#include <stdlib.h>
#include <string.h>

#define HTAB_FIRST_CAP 64

/* Keys with structure in their low bits (packed ids) spread by the multiplicative step. */
static size_t htab_home(const struct htab *t, uint64_t h)
{
	return (size_t)(h * 0x9e3779b97f4a7c15ull >> 17) & (t->cap - 1);
}

static uint64_t htab_stored(uint64_t h)
{
	return h != 0 ? h : 1;
}

/* The slot of the key, or the empty slot where it would go. t->cap > 0. */
static size_t htab_slot(const struct htab *t, uint64_t h, htab_eq eq, const void *arg)
{
	size_t i = htab_home(t, h);
	while (t->hash[i] != 0 &&
	       (t->hash[i] != h || (eq != NULL && !eq(t->val + i * t->elem, arg))))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Double the capacity, moving every entry to its place in the larger table. 0 or -1. */
static int htab_grow(struct htab *t)
{
	struct htab g = *t;
	g.cap = t->cap ? 2 * t->cap : HTAB_FIRST_CAP;
	if (g.cap > SIZE_MAX / (t->elem ? t->elem : 1))
		return -1;
	g.hash = calloc(g.cap, sizeof *g.hash);
	g.val = calloc(g.cap, t->elem ? t->elem : 1);
	if (g.hash == NULL || g.val == NULL) {
		free(g.hash);
		free(g.val);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (t->hash[i] == 0)
			continue;
		size_t j = htab_home(&g, t->hash[i]);
		while (g.hash[j] != 0) /* keys are distinct: the first free slot is theirs */
			j = (j + 1) & (g.cap - 1);
		g.hash[j] = t->hash[i];
		memcpy(g.val + j * g.elem, t->val + i * t->elem, t->elem);
	}
	free(t->hash);
	free(t->val);
	*t = g;
	return 0;
}

uint64_t htab_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void htab_init(struct htab *t, size_t elem)
{
	memset(t, 0, sizeof *t);
	t->elem = elem;
}

void *htab_find(const struct htab *t, uint64_t h, htab_eq eq, const void *arg)
{
	if (t->cap == 0)
		return NULL;
	h = htab_stored(h);
	size_t i = htab_slot(t, h, eq, arg);
	return t->hash[i] != 0 ? t->val + i * t->elem : NULL;
}

void *htab_put(struct htab *t, uint64_t h, htab_eq eq, const void *arg, int *added)
{
	void *v = htab_find(t, h, eq, arg);
	*added = 0;
	if (v != NULL)
		return v;
	if (2 * (t->n + 1) > t->cap && htab_grow(t) != 0)
		return NULL;
	h = htab_stored(h);
	size_t i = htab_slot(t, h, eq, arg);
	t->hash[i] = h;
	t->n++;
	*added = 1;
	return t->val + i * t->elem;
}

void *htab_at(const struct htab *t, size_t i)
{
	return i < t->cap && t->hash[i] != 0 ? t->val + i * t->elem : NULL;
}

void htab_free(struct htab *t)
{
	if (t == NULL)
		return;
	free(t->hash);
	free(t->val);
	htab_init(t, t->elem);
}
