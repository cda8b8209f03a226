/* test_spread: how a phase's readers spread over its storage targets (report/analyze.c:
 * analyze_target_spread) on hand-made phases of 4 readers and 4 targets, one file per reader
 * per second: each reader on a target of its own, all four on one, half the time each, 8
 * readers two to a target, readers that finish early, one reader going from target to target,
 * targets not known, and the same phase streamed in chunks (the digest) as held whole. */
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"

#define NR 8
#define NT 4
#define MAXF 64

static char names[NT + 2][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "n1:/b/1", "n2:/b/2",
						"n3:/b/3", "n4:/b/4", "unknown: timeout"};

struct world {
	struct phase_data pd;
	struct rank_rec ranks[NR];
	struct file_rec files[MAXF];
};

/* nr readers, each from 0 to secs seconds. */
static void start(struct world *w, int nr, double secs)
{
	memset(w, 0, sizeof *w);
	for (int r = 0; r < nr; r++)
		w->ranks[r] = (struct rank_rec){.rank = r, .node = r, .active = 1, .files = 1,
						.start = 0, .end = secs};
	w->pd.info.status = PHASE_COMPLETE;
	w->pd.ranks = w->ranks;
	w->pd.nranks = (size_t)nr;
	w->pd.files = w->files;
	w->pd.targets = (struct target_table){names, NT + 2};
}

/* Rank r reads a file on target t from a to b. */
static void file(struct world *w, int r, uint32_t t, double a, double b)
{
	size_t i = w->pd.nfiles++;
	w->files[i] = (struct file_rec){i, r, a, a, b, b, 1000000, 0, t};
}

static struct target_spread spread(const struct world *w)
{
	struct target_spread s;
	ok(analyze_target_spread(&w->pd, &s) == 0, "spread worked out");
	diag("targets %d, used %.3f, could %.3f, share %.3f", s.targets, s.used, s.could, s.share);
	return s;
}

static void test_own_and_shared(void)
{
	struct world w;
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, (uint32_t)r + 1, 0, 1);
	struct target_spread s = spread(&w);
	ok(s.targets == 4 && fabs(s.used - 4) < 1e-9 && fabs(s.could - 4) < 1e-9 &&
	   fabs(s.share - 1) < 1e-9, "each reader on a target of its own: 4 of 4, share 1");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++) {
		file(&w, r, 1, 0, 0.5);
		file(&w, r, (uint32_t)r + 1, 0.5, 1); /* every target holds a file */
	}
	s = spread(&w);
	ok(s.targets == 4 && fabs(s.used - 2.5) < 1e-9 && fabs(s.could - 4) < 1e-9 &&
	   fabs(s.share - 0.625) < 1e-9,
	   "half the time all four on one target: 2.5 of 4 used, share 0.625");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 4; k++)
			file(&w, r, 1 + (uint32_t)(k % 2), k * 0.25, (k + 1) * 0.25);
	s = spread(&w);
	ok(s.targets == 2 && fabs(s.used - 1) < 1e-9 && fabs(s.could - 2) < 1e-9 &&
	   fabs(s.share - 0.5) < 1e-9, "four readers in step on 2 targets: 1 of 2 at a time");
}

static void test_more_readers_and_one(void)
{
	struct world w;
	start(&w, 8, 1);
	for (int r = 0; r < 8; r++)
		file(&w, r, (uint32_t)(r % 4) + 1, 0, 1);
	struct target_spread s = spread(&w);
	ok(fabs(s.could - 4) < 1e-9 && fabs(s.share - 1) < 1e-9,
	   "8 readers two to a target: every target busy, share 1");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, (uint32_t)r + 1, 0, r == 0 ? 1 : 0.5);
	s = spread(&w);
	ok(fabs(s.used - 2.5) < 1e-9 && fabs(s.could - 2.5) < 1e-9 && fabs(s.share - 1) < 1e-9,
	   "three of four readers done at half time: the tail is not counted as meeting");
	start(&w, 1, 4);
	for (int k = 0; k < 4; k++)
		file(&w, 0, (uint32_t)k + 1, k, k + 1);
	s = spread(&w);
	ok(s.targets == 4 && fabs(s.used - 1) < 1e-9 && fabs(s.could - 1) < 1e-9 &&
	   fabs(s.share - 1) < 1e-9, "one reader from target to target: it could use only one");
}

static void test_not_known(void)
{
	struct world w;
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, r < 2 ? 1 : NT + 1, 0, 1);
	struct target_spread s = spread(&w);
	ok(s.targets == 1 && isnan(s.share), "one known target and \"unknown: timeout\": no share");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, 0, 0, 1);
	s = spread(&w);
	ok(s.targets == 0 && isnan(s.share), "targets not looked up: no share");
	start(&w, 4, 1);
	w.pd.targets.n = 0; /* a file before targets */
	for (int r = 0; r < 4; r++)
		file(&w, r, 1, 0, 1);
	s = spread(&w);
	ok(isnan(s.share), "a file before targets: no share");
}

static void test_streamed(void)
{
	struct world w;
	struct pf_err e;
	start(&w, 4, 2);
	for (int r = 0; r < 4; r++) {
		file(&w, r, 1, 0, 1);
		file(&w, r, (uint32_t)r + 1, 1, 2);
	}
	struct target_spread whole = spread(&w);
	w.pd.files = NULL; /* streamed: the digest holds what the rows said */
	ok(analyze_take_rows(NULL, &w.pd, w.files, 3, &e) == 0 &&
	   analyze_take_rows(NULL, &w.pd, w.files + 3, w.pd.nfiles - 3, &e) == 0,
	   "rows taken in two chunks");
	struct target_spread s = spread(&w);
	ok(s.targets == whole.targets && fabs(s.share - whole.share) < 1e-9 &&
	   fabs(whole.share - 0.625) < 1e-9, "streamed in chunks: the same share as held whole");
	free(w.pd.digest.secs);
	free(w.pd.digest.cells);
	free(w.pd.digest.use.on);
	free(w.pd.digest.use.readers);
	free(w.pd.digest.use.seen);
}

int main(void)
{
	test_own_and_shared();
	test_more_readers_and_one();
	test_not_known();
	test_streamed();
	return tap_done();
}
