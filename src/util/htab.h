/* htab: a small hash table of fixed-size entries, open addressing with linear probing, its
 * capacity a power of two and at most half full. The caller hashes its keys to 64 bits and,
 * when two keys may share a hash (strings), tells entries apart with an eq function. */
#ifndef PFSREAD_UTIL_HTAB_H
#define PFSREAD_UTIL_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab {
	uint64_t *hash;     /* [cap]; 0: the slot is empty (a hash of 0 is kept as 1: without
			     * eq, hashes 0 and 1 are one key) */
	unsigned char *val; /* [cap][elem]: each entry's bytes, the caller's to interpret */
	size_t elem;        /* bytes of one entry */
	size_t cap, n;      /* slots, and entries in them */
};

/* Does the entry val hold the key arg? NULL for tables whose hash is the whole key. */
typedef int (*htab_eq)(const void *val, const void *arg);

/* A string key's hash (FNV-1a), for tables of strings told apart by an eq function. */
uint64_t htab_hash_str(const char *s);

/* An empty table of elem-byte entries: no allocation until the first htab_put. */
void htab_init(struct htab *t, size_t elem);

/* The entry of key (hash h; eq(entry, arg) when eq is given), or NULL when none. */
void *htab_find(const struct htab *t, uint64_t h, htab_eq eq, const void *arg);

/* The entry of key h, arg: the one already there (*added = 0), or a new one of elem zero
 * bytes for the caller to fill (*added = 1). NULL when out of memory (t unchanged). The
 * pointer holds until the next htab_put. */
void *htab_put(struct htab *t, uint64_t h, htab_eq eq, const void *arg, int *added);

/* Slot i's entry, or NULL when the slot is empty: to visit every entry, i < t->cap. */
void *htab_at(const struct htab *t, size_t i);

/* Release what t holds, leaving it empty (as htab_init); NULL is accepted. */
void htab_free(struct htab *t);

#endif
