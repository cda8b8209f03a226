/* test_spread: how a phase's readers spread over its storage targets (report/spread.c) on
 * hand-made phases of 4 readers and 4 targets, one file per reader
 * per second: each reader on a target of its own, all four on one, half the time each, 8
 * readers two to a target, readers that finish early, one reader going from target to target,
 * targets not known, and the same phase streamed in chunks (the digest) as held whole; files
 * striped over every target, named in rotated order; the names of stripes and lists. */
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/report.h"
#include "report/spread.h"

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
	ok(spread_of_phase(&w->pd, &s) == 0, "spread worked out");
	diag("targets %d, used %.3f, could %.3f, share %.3f", s.servers, s.used, s.could, s.share);
	return s;
}

static void test_own_and_shared(void)
{
	struct world w;
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, (uint32_t)r + 1, 0, 1);
	struct target_spread s = spread(&w);
	ok(s.servers == 4 && fabs(s.used - 4) < 1e-9 && fabs(s.could - 4) < 1e-9 &&
	   fabs(s.share - 1) < 1e-9, "each reader on a target of its own: 4 of 4, share 1");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++) {
		file(&w, r, 1, 0, 0.5);
		file(&w, r, (uint32_t)r + 1, 0.5, 1); /* every target holds a file */
	}
	s = spread(&w);
	ok(s.servers == 4 && fabs(s.used - 2.5) < 1e-9 && fabs(s.could - 4) < 1e-9 &&
	   fabs(s.share - 0.625) < 1e-9,
	   "half the time all four on one target: 2.5 of 4 used, share 0.625");
	ok(fabs(s.heaviest - 0.625) < 1e-9, "... and target 1 holds 5 of the 8 files' bytes");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 4; k++)
			file(&w, r, 1 + (uint32_t)(k % 2), k * 0.25, (k + 1) * 0.25);
	s = spread(&w);
	ok(s.servers == 2 && fabs(s.used - 1) < 1e-9 && fabs(s.could - 2) < 1e-9 &&
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
	ok(s.servers == 4 && fabs(s.used - 1) < 1e-9 && fabs(s.could - 1) < 1e-9 &&
	   fabs(s.share - 1) < 1e-9, "one reader from target to target: it could use only one");
}

static void test_not_known(void)
{
	struct world w;
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, r < 2 ? 1 : NT + 1, 0, 1);
	struct target_spread s = spread(&w);
	ok(s.servers == 1 && isnan(s.share), "one known target and \"unknown: timeout\": no share");
	start(&w, 4, 1);
	for (int r = 0; r < 4; r++)
		file(&w, r, 0, 0, 1);
	s = spread(&w);
	ok(s.servers == 0 && isnan(s.share), "targets not looked up: no share");
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
	ok(report_take_rows(NULL, &w.pd, w.files, 3, &e) == 0 &&
	   report_take_rows(NULL, &w.pd, w.files + 3, w.pd.nfiles - 3, &e) == 0,
	   "rows taken in two chunks, as the report reads them");
	struct target_spread s = spread(&w);
	ok(s.servers == whole.servers && fabs(s.share - whole.share) < 1e-9 &&
	   fabs(whole.share - 0.625) < 1e-9, "streamed in chunks: the same share as held whole");
	free(w.pd.digest.secs);
	free(w.pd.digest.cells);
	free(w.pd.digest.use.bytes);
}

static void test_striped(void)
{
	static char striped[NT + 1][RECORD_TARGET_MAX] = {
		RECORD_TARGET_NONE, "10.0.0.1:3334,10.0.0.2:3334,10.0.0.3:3334,10.0.0.4:3334",
		"10.0.0.2:3334,10.0.0.3:3334,10.0.0.4:3334,10.0.0.1:3334",
		"10.0.0.3:3334,10.0.0.4:3334,10.0.0.1:3334,10.0.0.2:3334",
		"10.0.0.4:3334,10.0.0.1:3334,10.0.0.2:3334,10.0.0.3:3334"};
	struct world w;
	start(&w, 3, 1);
	w.pd.targets = (struct target_table){striped, NT + 1};
	for (int r = 0; r < 3; r++)
		file(&w, r, 1 + (r == 2), 0, 1); /* two readers on one stripe order, one on another */
	struct target_spread s = spread(&w);
	ok(s.servers == 4 && fabs(s.used - 4) < 1e-9 && fabs(s.could - 4) < 1e-9 &&
	   fabs(s.share - 1) < 1e-9,
	   "3 readers of files striped over all 4 servers: all 4 busy, all 4 they could keep busy");
	ok(fabs(s.heaviest - 0.25) < 1e-9, "... and a stripe's bytes shared evenly: a quarter on each");
	static char lustre[3][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "ost 0,1", "ost 2,3 +2"};
	start(&w, 4, 1);
	w.pd.targets = (struct target_table){lustre, 3};
	for (int r = 0; r < 4; r++)
		file(&w, r, 1, 0, 1);
	s = spread(&w);
	ok(s.servers == 2 && fabs(s.used - 2) < 1e-9 && fabs(s.could - 2) < 1e-9,
	   "four readers on files striped over OSTs 0 and 1: 2 of the 2 in use (OSTs 2, 3 hold none)");
}

static void test_names(void)
{
	char out[SPREAD_PARTS][RECORD_TARGET_MAX];
	size_t n = spread_servers("ost 3,4,5", out, SPREAD_PARTS);
	ok(n == 3 && strcmp(out[0], "ost 3") == 0 && strcmp(out[1], "ost 4") == 0 &&
	   strcmp(out[2], "ost 5") == 0, "\"ost 3,4,5\": ost 3, ost 4, ost 5");
	n = spread_servers("ost 3 +7", out, SPREAD_PARTS);
	ok(n == 1 && strcmp(out[0], "ost 3") == 0, "\"ost 3 +7\": ost 3 (seven not named)");
	n = spread_servers("n1:/b/1,n2:/b/1", out, SPREAD_PARTS);
	ok(n == 2 && strcmp(out[0], "n1:/b/1") == 0 && strcmp(out[1], "n2:/b/1") == 0,
	   "a replica set: both bricks");
	n = spread_servers("a:1,b:2,+3", out, SPREAD_PARTS);
	ok(n == 2 && strcmp(out[1], "b:2") == 0, "a list cut short: the servers it names");
	n = spread_servers("ceph pool data", out, SPREAD_PARTS);
	ok(n == 1 && strcmp(out[0], "ceph pool data") == 0, "a name with spaces: itself");
	ok(spread_servers("unknown: timeout", out, SPREAD_PARTS) == 0 &&
	   spread_servers(RECORD_TARGET_NONE, out, SPREAD_PARTS) == 0, "no server for a name not known");
	n = spread_servers("a,b,c", out, 2);
	ok(n == 2, "at most as many as there is room for");
}

int main(void)
{
	test_own_and_shared();
	test_more_readers_and_one();
	test_not_known();
	test_streamed();
	test_striped();
	test_names();
	return tap_done();
}
