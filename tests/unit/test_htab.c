/* test_htab: the small hash table (util/htab) and ydoc's two uses of it: anchors by name,
 * and the places of aliases by (parent, slot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/htab.h"
#include "util/ydoc.h"

struct named {
	const char *name;
	int v;
};

static int named_is(const void *val, const void *arg)
{
	return strcmp(((const struct named *)val)->name, arg) == 0;
}

/* Integer keys 1..n with value k * 3, through several doublings; every one found again. */
static void test_ints(void)
{
	struct htab t;
	int added, bad = 0;
	htab_init(&t, sizeof(int));
	ok(htab_find(&t, 7, NULL, NULL) == NULL, "an empty table finds nothing");
	for (uint64_t k = 1; k <= 5000; k++) {
		int *v = htab_put(&t, k << 32 | 1, NULL, NULL, &added);
		if (v == NULL || !added || *v != 0)
			bad++;
		else
			*v = (int)k * 3;
	}
	ok(bad == 0 && t.n == 5000, "5000 keys put, each new and zeroed (%d bad, n %zu)", bad,
	   t.n);
	ok(t.cap >= 2 * t.n && (t.cap & (t.cap - 1)) == 0,
	   "the table stays at most half full, a power of two (cap %zu)", t.cap);
	for (uint64_t k = 1; k <= 5000; k++) {
		const int *v = htab_find(&t, k << 32 | 1, NULL, NULL);
		if (v == NULL || *v != (int)k * 3)
			bad++;
	}
	ok(bad == 0, "every key found with its value after growing (%d bad)", bad);
	ok(htab_find(&t, 5001ull << 32 | 1, NULL, NULL) == NULL, "a key never put is not found");
	int *again = htab_put(&t, 17ull << 32 | 1, NULL, NULL, &added);
	ok(again != NULL && !added && *again == 51 && t.n == 5000,
	   "putting a key again gives its entry back, not a new one");
	size_t seen = 0;
	for (size_t i = 0; i < t.cap; i++)
		seen += htab_at(&t, i) != NULL;
	ok(seen == 5000, "htab_at visits every entry once (%zu)", seen);
	ok(htab_find(&t, 0, NULL, NULL) == NULL, "hash 0 is not an empty slot's match");
	int *zero = htab_put(&t, 0, NULL, NULL, &added);
	ok(zero != NULL && added && htab_find(&t, 0, NULL, NULL) == zero, "hash 0 is a key too");
	htab_free(&t);
	ok(t.cap == 0 && t.n == 0 && t.hash == NULL && htab_find(&t, 17ull << 32 | 1, NULL, NULL) ==
	   NULL, "htab_free empties the table");
	htab_free(&t);
	htab_free(NULL);
	ok(1, "htab_free twice, and of NULL, is harmless");
}

/* Keys sharing one hash are told apart by eq. */
static void test_collisions(void)
{
	static const char *const names[] = {"a", "b", "c", "d", "e"};
	struct htab t;
	int added, bad = 0;
	htab_init(&t, sizeof(struct named));
	for (int i = 0; i < 5; i++) {
		struct named *e = htab_put(&t, 42, named_is, names[i], &added);
		if (e == NULL || !added)
			bad++;
		else
			*e = (struct named){names[i], i};
	}
	for (int i = 0; i < 5; i++) {
		const struct named *e = htab_find(&t, 42, named_is, names[i]);
		if (e == NULL || e->v != i)
			bad++;
	}
	ok(bad == 0 && t.n == 5, "five names of one hash, each its own entry (%d bad)", bad);
	ok(htab_find(&t, 42, named_is, "f") == NULL, "a sixth name of that hash is not found");
	htab_free(&t);
}

static int load(struct ydoc *d, const char *text, struct ydoc_fail *f)
{
	return ydoc_load(d, text, strlen(text), f);
}

/* ydoc's anchors (many, to grow the table) and the places of aliases. */
static void test_ydoc(void)
{
	struct ydoc d;
	struct ydoc_fail f;
	char *text = malloc(200 * 40);
	size_t len = 0;
	if (text == NULL) {
		ok(0, "out of memory");
		return;
	}
	len += (size_t)sprintf(text + len, "defs:\n");
	for (int i = 0; i < 200; i++)
		len += (size_t)sprintf(text + len, "  - &a%d %d\n", i, i);
	len += (size_t)sprintf(text + len, "uses:\n  - *a150\n  - 7\n  - *a3\n");
	int rc = ydoc_load(&d, text, len, &f);
	ok(rc == 0, "200 anchors and two aliases load (%s)", rc == 0 ? "" : f.msg);
	if (rc == 0) {
		const struct ynode *top = ydoc_root(&d);
		const struct ynode *uses = ydoc_node(&d, top->pairs[1].value);
		const struct ynode *i0 = ydoc_node(&d, uses->kids[0]);
		const struct ynode *i2 = ydoc_node(&d, uses->kids[2]);
		ok(uses->n == 3 && strcmp(i0->str, "150") == 0 && strcmp(i2->str, "3") == 0,
		   "each alias names its own anchor's node");
		struct ydoc_pos p0 = ydoc_slot_pos(&d, uses, 0, i0);
		struct ydoc_pos p1 = ydoc_slot_pos(&d, uses, 1, ydoc_node(&d, uses->kids[1]));
		struct ydoc_pos p2 = ydoc_slot_pos(&d, uses, 2, i2);
		ok(p0.line == 203 && p0.col == 5 && p1.line == 204 && p2.line == 205,
		   "an alias's place is its own, not its anchor's (%d:%d, %d, %d)", p0.line, p0.col,
		   p1.line, p2.line);
		ok(i0->pos.line == 152, "the node keeps its anchor's place (%d)", i0->pos.line);
		ydoc_free(&d);
	}
	free(text);
	rc = load(&d, "a: &x 1\nb: &x 2\n", &f);
	ok(rc != 0 && strstr(f.msg, "duplicate anchor '&x' (first at line 1)") != NULL &&
	   f.line == 2, "a duplicate anchor is refused at its second place (%d: %s)", f.line,
	   f.msg);
	rc = load(&d, "a: &x 1\nb: *y\n", &f);
	ok(rc != 0 && strstr(f.msg, "undefined alias '*y'") != NULL && f.line == 2,
	   "an undefined alias is refused (%d: %s)", f.line, f.msg);
}

int main(void)
{
	test_ints();
	test_collisions();
	test_ydoc();
	return tap_done();
}
