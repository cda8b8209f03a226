/* plan_defaults: what a config leaves out and what plan therefore runs with, shown by plan as
 * a short block (docs/config.md has the whole table), and the cache mode a config without
 * cache: gets, which depends on who runs it. */
#include "cmd/plan.h"

#include <stdio.h>
#include <string.h>

#include "config/sweep.h"
#include "run/cache.h"
#include "util/units.h"

void plan_default_cache(struct experiment *x)
{
	struct pf_err e = {0};
	if (!cfg_given(x, "cache") && x->cache == CFG_CACHE_DROP &&
	    cache_check_allowed(CFG_CACHE_DROP, &e) != 0)
		x->cache = CFG_CACHE_FADVISE;
}

/* The cache line: what the default does here, and what it costs others. */
static void plan_default_cache_line(const struct experiment *x)
{
	if (x->cache == CFG_CACHE_DROP)
		printf("  cache: drop (as root): before every phase, syncs and writes "
		       "/proc/sys/vm/drop_caches on every node of the job: it empties each node's "
		       "whole page cache, other users' and jobs' files too (cache: fadvise evicts "
		       "only the files read)\n");
	else
		printf("  cache: fadvise (not root: drop needs root): before every phase each reader "
		       "writes back and evicts only its own files; as root the default is drop, "
		       "which empties each node's whole page cache\n");
}

/* The sweep lists left out, as one flow mapping ("sweep: {backend: [posix], ...}"). */
static void plan_default_sweep(const struct experiment *x)
{
	const char *sep = "  sweep: {";
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		char key[48];
		snprintf(key, sizeof key, "sweep.%s", sweep_fields[k].name);
		if (sweep_fields[k].list == NULL || sweep_fields[k].dflt == NULL || cfg_given(x, key))
			continue;
		printf("%s%s: [%s]", sep, sweep_fields[k].name, sweep_fields[k].dflt);
		sep = ", ";
	}
	if (strcmp(sep, ", ") == 0)
		printf("}\n");
}

static const char *const plan_flags[] = {"verify", "noatime", "sequential_hint", "space_check"};

/* Whether x's config leaves out any key the block shows. */
static int plan_defaults_any(const struct experiment *x)
{
	static const char *const keys[] = {"cache", "repetitions", "phase_timeout",
					   "startup_timeout", "results"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (!cfg_given(x, keys[i]))
			return 1;
	for (size_t i = 0; i < sizeof plan_flags / sizeof *plan_flags; i++)
		if (!cfg_given(x, plan_flags[i]))
			return 1;
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		char key[48];
		snprintf(key, sizeof key, "sweep.%s", sweep_fields[k].name);
		if (sweep_fields[k].list != NULL && sweep_fields[k].dflt != NULL &&
		    !cfg_given(x, key))
			return 1;
	}
	return 0;
}

void plan_print_defaults(const struct experiment *x)
{
	const char *const *flags = plan_flags;
	const int flag_value[] = {x->verify, x->noatime, x->sequential_hint, x->space_check};
	const char *sep = "  ";
	char t[32];
	if (!plan_defaults_any(x))
		return;
	printf("defaults in force (keys the config leaves out; docs/config.md lists every "
	       "default):\n");
	if (!cfg_given(x, "cache"))
		plan_default_cache_line(x);
	if (!cfg_given(x, "repetitions"))
		printf("  repetitions: %d\n", x->repetitions);
	plan_default_sweep(x);
	if (!cfg_given(x, "phase_timeout"))
		printf("  phase_timeout: none (a phase runs as long as it takes)\n");
	if (!cfg_given(x, "startup_timeout"))
		printf("  startup_timeout: %s\n",
		       units_format_duration(x->startup_timeout, t, sizeof t));
	for (size_t i = 0; i < sizeof plan_flags / sizeof *plan_flags; i++)
		if (!cfg_given(x, flags[i])) {
			printf("%s%s: %s", sep, flags[i], flag_value[i] ? "true" : "false");
			sep = ", ";
		}
	if (strcmp(sep, ", ") == 0)
		printf("\n");
	if (!cfg_given(x, "results"))
		printf("  results: %s\n", x->results);
}
