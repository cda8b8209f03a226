/* test_attrib: who is slow, a node or a storage target (report/attrib.c), on hand-made phases:
 * three nodes x three targets, 10 files per pair, each file's time 1 s times its node's and its
 * target's factor: a slow node, a slow target, both, neither, one slow file; then two phases of
 * different speeds, a streamed phase (digest cells), a single target and a file before targets;
 * files striped over the same servers in different orders, and over different servers. */
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/report.h"

#define NN 3
#define NT 3
#define PER 10

static char names[NT + 1][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "srv1:/b/b1", "srv2:/b/b2",
						"srv3:/b/b3"};
static char hosts[NN][RECORD_HOST_MAX] = {"n1", "n2", "n3"};
static int32_t node_of_rank[NN] = {0, 1, 2};

struct world {
	struct run_data run;
	struct phase_data pd[2];
	struct rank_rec ranks[NN];
	struct file_rec files[2][NN * NT * PER];
};

/* Phase p: node n reads PER files from each target t, each nf[n] * tf[t] * scale seconds; the
 * file `outlier` (or none, -1) takes 50 times as long. */
static void phase(struct world *w, size_t p, const double *nf, const double *tf, double scale,
		  long outlier, uint32_t ntargets)
{
	struct phase_data *pd = &w->pd[p];
	size_t i = 0;
	memset(pd, 0, sizeof *pd);
	pd->info.status = PHASE_COMPLETE;
	pd->ranks = w->ranks;
	pd->nranks = NN;
	for (int n = 0; n < NN; n++)
		for (uint32_t t = 0; t < ntargets; t++)
			for (int k = 0; k < PER; k++, i++) {
				double s = nf[n] * tf[t] * scale * ((long)i == outlier ? 50 : 1);
				w->files[p][i] = (struct file_rec){i, n, 0, 0.001, s, s, 1000000, 0,
								   t + 1};
			}
	pd->files = w->files[p];
	pd->nfiles = i;
	pd->targets = (struct target_table){names, ntargets + 1};
}

static void world(struct world *w, size_t nphases)
{
	memset(&w->run, 0, sizeof w->run);
	for (int r = 0; r < NN; r++)
		w->ranks[r] = (struct rank_rec){.rank = r, .node = r, .active = 1};
	w->run.nnodes = NN;
	w->run.nranks = NN;
	w->run.node_of_rank = node_of_rank;
	w->run.hostnames = hosts;
	w->run.phases = w->pd;
	w->run.nphases = nphases;
}

static const double flat[NT] = {1, 1, 1};

static int slow_targets(const struct report_attrib *a)
{
	int n = 0;
	for (size_t t = 0; t < a->ntargets; t++)
		n += a->targets[t].slow_all;
	return n;
}

static int slow_nodes(const struct report_attrib *a)
{
	int n = 0;
	for (int k = 0; k < a->nnodes; k++)
		n += a->node_slow[k];
	return n;
}

static void test_cases(void)
{
	static struct world w;
	struct report_attrib a;
	int rc;
	const double slow_n2[NN] = {1, 3, 1}, slow_b3[NT] = {1, 1, 4};

	world(&w, 1);
	phase(&w, 0, flat, flat, 1, -1, NT);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.ntargets == NT && a.known == NT &&
		   slow_nodes(&a) == 0 && slow_targets(&a) == 0 &&
		   strstr(a.verdict, "no node is slow on every target and no target") != NULL,
	   "neither: %s", a.verdict);
	ok(a.targets[0].files == NN * PER && a.targets[0].bytes == NN * PER * 1000000ull &&
		   fabs(a.targets[0].rel - 1) < 1e-9 && fabs(a.targets[0].MBps - 1) < 1e-9,
	   "a target's files, bytes, rate (%g MB/s) and time against the median (%g)",
	   a.targets[0].MBps, a.targets[0].rel);
	report_attrib_free(&a);

	phase(&w, 0, slow_n2, flat, 1, -1, NT);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.node_slow[1] && slow_nodes(&a) == 1 &&
		   slow_targets(&a) == 0 && fabs(a.node_ratio[1] - 3) < 1e-9 &&
		   strstr(a.verdict, "node n2 (3.00x the other nodes) is slow on every target") != NULL,
	   "a slow node, not a target: %s", a.verdict);
	report_attrib_free(&a);

	phase(&w, 0, flat, slow_b3, 1, -1, NT);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && slow_nodes(&a) == 0 && slow_targets(&a) == 1 &&
		   a.targets[2].slow_all && fabs(a.targets[2].ratio - 4) < 1e-9 &&
		   strstr(a.verdict, "target srv3:/b/b3 (4.00x the other targets) is slow from "
			  "every node") != NULL,
	   "a slow target, not a node: %s", a.verdict);
	ok(a.targets[2].nslow == REPORT_TARGET_SLOW_FILES && a.targets[0].nslow > 0 &&
		   a.targets[2].slow[0].slower > a.targets[0].slow[0].slower,
	   "its slowest files are its own and slower than the others'");
	report_attrib_free(&a);

	phase(&w, 0, slow_n2, slow_b3, 1, -1, NT);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.node_slow[1] && slow_nodes(&a) == 1 &&
		   a.targets[2].slow_all && slow_targets(&a) == 1 &&
		   strstr(a.verdict, "node n2") != NULL && strstr(a.verdict, "target srv3") != NULL,
	   "both, told apart: %s", a.verdict);
	report_attrib_free(&a);

	/* file 0 (n1 on srv1) takes 50 s, the rest 1 s: that pair's mean is 5.9 s */
	phase(&w, 0, flat, flat, 1, 0, NT);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && slow_nodes(&a) == 0 && slow_targets(&a) == 0 &&
		   a.targets[0].slow[0].file == 0 && fabs(a.targets[0].slow[0].slower - 50) < 1e-9 &&
		   fabs(a.cell[0] - 5.9) < 1e-9,
	   "one slow file: neither a node nor a target, the file named (%s)", a.verdict);
	report_attrib_free(&a);
}

/* Phases of other speeds add up by their medians; streamed rows give the same answer. */
static void test_phases(void)
{
	static struct world w;
	struct report_attrib a, b;
	int rc;
	const double slow_b3[NT] = {1, 1, 4};
	world(&w, 2);
	phase(&w, 0, flat, slow_b3, 1, -1, NT);
	phase(&w, 1, flat, flat, 100, -1, NT); /* a phase 100 times slower, all alike */
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && slow_targets(&a) == 1 && a.targets[2].slow_all &&
		   fabs(a.targets[2].ratio - 2.5) < 1e-9,
	   "a slow phase does not drown a target slow in another: (4 + 1) / 2 = %.2fx",
	   a.targets[2].ratio);
	/* the same phases streamed: rows through analyze_take_rows, none kept */
	for (size_t p = 0; p < 2; p++) {
		struct phase_data *pd = &w.pd[p];
		struct pf_err e = {0};
		const struct file_rec *rows = pd->files;
		pd->files = NULL;
		rc = analyze_take_rows(NULL, pd, rows, pd->nfiles, &e);
		ok(rc == 0 && pd->digest.cells != NULL,
		   "phase %zu streamed into its digest's cells", p);
	}
	rc = report_attrib(&w.run, &b);
	ok(rc == 0 && b.ntargets == a.ntargets &&
		   fabs(b.targets[2].ratio - a.targets[2].ratio) < 1e-9 && b.targets[2].slow_all &&
		   strcmp(a.verdict, b.verdict) == 0,
	   "streamed: the same verdict (%s)", b.verdict);
	report_attrib_free(&a);
	report_attrib_free(&b);
	for (size_t p = 0; p < 2; p++) {
		free(w.pd[p].digest.secs);
		free(w.pd[p].digest.cells);
	}
}

static void test_limits(void)
{
	static struct world w;
	struct report_attrib a;
	int rc;
	const double slow_n2[NN] = {1, 3, 1};
	world(&w, 1);
	phase(&w, 0, slow_n2, flat, 1, -1, 1);
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.known == 1 && a.node_slow[1] &&
		   slow_targets(&a) == 0 && strstr(a.verdict, "one known target") != NULL,
	   "one target: the slow node is named, no target can be (%s)", a.verdict);
	report_attrib_free(&a);
	phase(&w, 0, slow_n2, flat, 1, -1, NT);
	w.pd[0].targets.n = 0; /* a file before schema 5 */
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.ntargets == 0 && slow_nodes(&a) == 0 &&
		   strstr(a.verdict, "no storage target is known") != NULL,
	   "no targets recorded: says so (%s)", a.verdict);
	report_attrib_free(&a);
	phase(&w, 0, flat, flat, 1, -1, NT);
	w.pd[0].info.status = PHASE_FAILED;
	rc = report_attrib(&w.run, &a);
	ok(rc == 0 && a.ntargets == 0, "a failed phase counts nowhere");
	report_attrib_free(&a);
}

/* OrangeFS's or Lustre's names: each file striped over the servers, starting on another. */
static void test_one_stripe(void)
{
	static char rotated[NT + 1][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "a:1,b:1,c:1",
							  "b:1,c:1,a:1", "c:1,a:1,b:1"};
	static char apart[NT + 1][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "a:1,b:1", "c:1,d:1",
							"e:1,f:1"};
	static struct world w;
	struct report_attrib a;
	const double slow_b3[NT] = {1, 1, 4};
	world(&w, 1);
	phase(&w, 0, flat, slow_b3, 1, -1, NT);
	w.pd[0].targets.name = rotated;
	ok(report_attrib(&w.run, &a) == 0 && a.one_stripe && slow_targets(&a) == 0 &&
		   strstr(a.verdict, "striped over the same servers") != NULL,
	   "one stripe over the same servers in three orders: no target judged (%s)", a.verdict);
	report_attrib_free(&a);
	w.pd[0].targets.name = apart;
	ok(report_attrib(&w.run, &a) == 0 && !a.one_stripe && slow_targets(&a) == 1 &&
		   a.targets[2].slow_all,
	   "stripes over different servers: the slow one named (%s)", a.verdict);
	report_attrib_free(&a);
}

int main(void)
{
	test_cases();
	test_one_stripe();
	test_phases();
	test_limits();
	return tap_done();
}
