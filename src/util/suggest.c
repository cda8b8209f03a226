/* suggest: the nearest name by edit distance, for "did you mean ...?" in usage errors. */
#include "util/suggest.h"

#include <string.h>

#define SUGGEST_MAX 64 /* longer names are compared on their first 63 characters */

size_t suggest_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	/* three rows of the table: two back (for the swap), one back, this one */
	size_t r0[SUGGEST_MAX], r1[SUGGEST_MAX], r2[SUGGEST_MAX];
	if (alen >= SUGGEST_MAX)
		alen = SUGGEST_MAX - 1;
	if (blen >= SUGGEST_MAX)
		blen = SUGGEST_MAX - 1;
	for (size_t j = 0; j <= blen; j++)
		r1[j] = j;
	for (size_t i = 1; i <= alen; i++) {
		r2[0] = i;
		for (size_t j = 1; j <= blen; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = r1[j - 1] + cost;
			if (r1[j] + 1 < d)
				d = r1[j] + 1;
			if (r2[j - 1] + 1 < d)
				d = r2[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    r0[j - 2] + 1 < d)
				d = r0[j - 2] + 1;
			r2[j] = d;
		}
		memcpy(r0, r1, sizeof r0);
		memcpy(r1, r2, sizeof r1);
	}
	return r1[blen] < SUGGEST_MAX ? r1[blen] : SUGGEST_MAX - 1;
}

void suggest_init(struct suggest *s, const char *word, size_t len)
{
	s->word = word;
	s->len = len;
	s->best = NULL;
	s->dist = SUGGEST_MAX;
}

/* A word that begins a candidate ("--for" of "--force") is as good as one edit away. */
static size_t suggest_score(const struct suggest *s, const char *cand)
{
	size_t n = strlen(cand);
	size_t d = suggest_distance(s->word, s->len, cand, n);
	if (s->len >= 3 && s->len < n && strncmp(cand, s->word, s->len) == 0 && d > 1)
		d = 1;
	return d;
}

void suggest_offer(struct suggest *s, const char *cand)
{
	if (cand == NULL || cand[0] == '\0')
		return;
	size_t d = suggest_score(s, cand);
	if (d < s->dist) {
		s->dist = d;
		s->best = cand;
	}
}

const char *suggest_best(const struct suggest *s)
{
	size_t limit = s->len >= 9 ? 3 : s->len >= 5 ? 2 : 1;
	if (s->best == NULL || s->dist == 0 || s->dist > limit)
		return NULL;
	return s->best;
}
