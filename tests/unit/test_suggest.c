/* test_suggest: the edit distance and the "did you mean" choice: near typos suggested, far
 * words and exact names not. */
#include <string.h>

#include "util/suggest.h"
#include "tap.h"

static size_t dist(const char *a, const char *b)
{
	return suggest_distance(a, strlen(a), b, strlen(b));
}

static const char *near(const char *word, const char *const *cands)
{
	struct suggest s;
	suggest_init(&s, word, strlen(word));
	for (; *cands; cands++)
		suggest_offer(&s, *cands);
	return suggest_best(&s);
}

static int is(const char *got, const char *want)
{
	return got && want ? strcmp(got, want) == 0 : got == want;
}

int main(void)
{
	static const char *const cmds[] = {"generate", "run", "report", "calibrate", "verify",
					   "clean", "plan", "help", NULL};
	static const char *const keys[] = {"readers_per_node", "backend", "transfer_size",
					   "order", "pattern", "decomposition", NULL};
	static const char *const caches[] = {"none", "drop", "fadvise", "shift", "direct", NULL};
	ok(dist("", "") == 0, "empty to empty: 0");
	ok(dist("abc", "") == 3, "to empty: the length");
	ok(dist("kitten", "sitting") == 3, "kitten/sitting: 3");
	ok(dist("rnu", "run") == 1, "a swap of neighbours counts one");
	ok(dist("readers_per_nod", "readers_per_node") == 1, "a dropped letter: 1");
	ok(is(near("rnu", cmds), "run"), "rnu -> run");
	ok(is(near("reprot", cmds), "report"), "reprot -> report");
	ok(is(near("genrate", cmds), "generate"), "genrate -> generate");
	ok(is(near("frobnicate", cmds), NULL), "frobnicate: nothing near");
	ok(is(near("run", cmds), NULL), "an exact name is no typo");
	ok(is(near("readers_per_nod", keys), "readers_per_node"), "a key missing its last letter");
	ok(is(near("tranfser_size", keys), "transfer_size"), "a key with two letters swapped");
	ok(is(near("dorp", caches), "drop"), "dorp -> drop");
	ok(is(near("fadv", caches), "fadvise"), "a prefix of a value");
	ok(is(near("x", caches), NULL), "one letter suggests nothing");
	ok(is(near("ordr", keys), "order"), "ordr -> order");
	return tap_done();
}
