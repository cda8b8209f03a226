/* suggest: "did you mean ...?" for a mistyped name (command, option, config key, enum value):
 * the candidate nearest by edit distance, when it is near enough to be a typo. */
#ifndef PFSREAD_SUGGEST_H
#define PFSREAD_SUGGEST_H

#include <stddef.h>

/* Candidates are offered one by one; the caller owns every string, which must outlive s. */
struct suggest {
	const char *word; /* what was typed (need not be NUL-terminated) */
	size_t len;
	const char *best; /* the nearest candidate so far, NULL if none */
	size_t dist;      /* its edit distance */
};

void suggest_init(struct suggest *s, const char *word, size_t len);

/* Offer one candidate (NULL is ignored). */
void suggest_offer(struct suggest *s, const char *cand);

/* The nearest candidate if it is a plausible typo of the word (distance at most 1 for short
 * words, 2 from 5 characters, 3 from 9; a candidate the word is a prefix of also counts),
 * else NULL. */
const char *suggest_best(const struct suggest *s);

/* Levenshtein distance (insert, delete, substitute, and a swap of two neighbours), capped at
 * 63: pure, for the tests. */
size_t suggest_distance(const char *a, size_t alen, const char *b, size_t blen);

#endif
