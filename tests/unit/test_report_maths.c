/* test_report_maths: the report's figures from a hand-made run with known timings: first-finisher
 * (stonewall) bandwidth and spread, files per second, metadata share, cells with their
 * statistics and cold apart from warm, time split per file size, node bandwidths, stragglers,
 * the matching of two runs, the time outside each phase's reads; and records that make no
 * sense do no harm. Every expected number
 * is worked out by hand in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/report.h"
#include "tap.h"

/* 4 ranks on 2 nodes: ranks 0, 1 on node 0 ("alpha"), 2, 3 on node 1 ("beta"). */
static int32_t node_of_rank[4] = {0, 0, 1, 1};
static char hosts[2][RECORD_HOST_MAX] = {"alpha", "beta"};

/* Phase "big": ranks 0 and 1 read, 100 MB files.
 *   rank 0: f0 open 0-0.1, read to 1.0, close 1.1; f1 open 1.1-1.2, read to 2.0, close 2.0
 *   rank 1: f2 open 0-0.5, read to 3.0, close 3.0 (300 MB)
 * first finisher: rank 0 at 2.0; by then f0, f1 whole (200 MB) and f2 (2.0-0.5)/(3.0-0.5)
 * = 0.6 of 300 MB = 180 MB: 380 MB / 2.0 s = 190 MB/s; spread 3.0 - 2.0 = 1.0 s;
 * open 0.2 + 0.5, read 1.7 + 2.5, close 0.1 + 0: metadata (0.7 + 0.1) / 5.0 = 0.16. */
static struct file_rec big_files[3] = {
	{0, 0, 0.0, 0.1, 1.0, 1.1, 100000000, 0, 0},
	{1, 0, 1.1, 1.2, 2.0, 2.0, 100000000, 0, 0},
	{2, 1, 0.0, 0.5, 3.0, 3.0, 300000000, 0, 0},
};
static struct rank_rec big_ranks[4] = {
	{0, 0, 1, 0.0, 2.0, 200000000, 2, 0.2, 1.7, 0.1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 0, 1, 0.0, 3.0, 300000000, 1, 0.5, 2.5, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

/* Phase "small": every rank reads one 2 MB file from 0; ends 1, 1, 2, 4 s.
 * node 0: 4 MB / 1.0 s = 4 MB/s; node 1: 4 MB / 4.0 s = 1 MB/s; median node 2.5 MB/s, so node 1
 * is 2.5x slower. File times 1, 1, 2, 4: median 1.5; file 13 is 4 / 1.5 = 2.667x slower. */
static struct file_rec small_files[4] = {
	{10, 0, 0, 0, 1.0, 1.0, 2000000, 0, 0},
	{11, 1, 0, 0, 1.0, 1.0, 2000000, 0, 0},
	{12, 2, 0, 0, 2.0, 2.0, 2000000, 0, 0},
	{13, 3, 0, 0, 4.0, 4.0, 2000000, 0, 0},
};
static struct rank_rec small_ranks[4] = {
	{0, 0, 1, 0, 1.0, 2000000, 1, 0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{1, 0, 1, 0, 1.0, 2000000, 1, 0, 1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{2, 1, 1, 0, 2.0, 2000000, 1, 0, 2.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{3, 1, 1, 0, 4.0, 2000000, 1, 0, 4.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

#define NPH 6
static struct phase_data phases[NPH];

static void phase(size_t i, const char *ds, uint64_t fsize, int rpn, int rep, const char *cache,
		  double resident, double elapsed, uint64_t bytes, const char *status)
{
	struct phase_info *p = &phases[i].info;
	memset(p, 0, sizeof *p);
	p->index = (uint32_t)i;
	snprintf(p->sweep.dataset, sizeof p->sweep.dataset, "%s", ds);
	p->sweep.file_size = fsize;
	p->sweep.readers_per_node = rpn;
	snprintf(p->sweep.backend, sizeof p->sweep.backend, "posix");
	p->sweep.transfer_size = 1 << 20;
	snprintf(p->sweep.order, sizeof p->sweep.order, "sorted");
	snprintf(p->sweep.cache, sizeof p->sweep.cache, "%s", cache);
	snprintf(p->sweep.pattern, sizeof p->sweep.pattern, "per-reader");
	snprintf(p->sweep.decomposition, sizeof p->sweep.decomposition, "block");
	p->sweep.queue_depth = 1;
	p->repetition = rep;
	p->resident_fraction = resident;
	p->bytes = bytes;
	p->elapsed_s = elapsed;
	p->bandwidth_MBps = (double)bytes / elapsed / 1e6;
	p->status = results_phase_status_parse(status);
	int big = strcmp(ds, "big") == 0;
	phases[i].ranks = big ? big_ranks : small_ranks;
	phases[i].nranks = 4;
	phases[i].files = big ? big_files : small_files;
	phases[i].nfiles = big ? 3 : 4;
}

/* big x 1 reader/node: rep 0 in 3.0 s (166.667 MB/s), rep 1 in 2.0 s (250 MB/s), rep 2 mixed
 * (60% resident with cache drop), a failed rep 3; small x 2 readers/node once; big with cache
 * none, whose second repetition found 99.7% of its data in the page cache. */
static void build(struct run_data *run)
{
	phase(0, "big", 100000000, 1, 0, "drop", 0.0, 3.0, 500000000, "complete");
	phase(1, "big", 100000000, 1, 1, "drop", 0.01, 2.0, 500000000, "complete");
	phase(2, "big", 100000000, 1, 2, "drop", 0.6, 1.0, 500000000, "complete");
	phase(3, "big", 100000000, 1, 3, "drop", 0.0, 1.0, 500000000, "failed");
	phase(4, "small", 2000000, 2, 0, "drop", 0.0, 4.0, 8000000, "complete");
	phase(5, "big", 100000000, 1, 1, "none", 0.997, 1.0, 500000000, "complete");
	memset(run, 0, sizeof *run);
	run->path = "maths.h5";
	run->nranks = 4;
	run->nnodes = 2;
	run->node_of_rank = node_of_rank;
	run->hostnames = hosts;
	run->phases = phases;
	run->nphases = NPH;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) + 1);
}

static void test_phase(void)
{
	struct phase_summary s;
	analyze_phase(&phases[0], &s);
	ok(s.readers == 2 && s.first_rank == 0 && s.last_rank == 1 && near(s.first_end, 2.0) &&
		   near(s.last_end, 3.0),
	   "big: 2 readers, rank 0 first at 2.0 s, rank 1 last at 3.0 s");
	ok(near(s.stonewall_bytes, 380e6) && near(s.stonewall_MBps, 190),
	   "stonewall: 200 MB whole + 0.6 x 300 MB = 380 MB in 2.0 s = 190 MB/s (got %.3f)",
	   s.stonewall_MBps);
	ok(near(s.spread_s, 1.0), "spread between first and last finisher: 1.0 s");
	ok(s.files == 3 && near(s.files_per_s, 1.0), "3 files in 3.0 s: 1 file/s");
	ok(near(s.meta_fraction, 0.16), "open+close 0.8 s of 5.0 s of reader time: 16%% (got %.4f)",
	   s.meta_fraction);
	ok(near(analyze_bytes_by(big_files, 3, 0.75), 0.65 / 0.9 * 100e6 + 0.25 / 2.5 * 300e6),
	   "bytes by 0.75 s: f0 (0.75-0.1)/0.9 and f2 (0.75-0.5)/2.5 pro rata");
	struct phase_data no_files = phases[0];
	no_files.files = NULL;
	analyze_phase(&no_files, &s);
	ok(near(s.stonewall_bytes, 200e6 + 300e6 * 2.0 / 3.0) && s.files == 3,
	   "without file records: readers pro rata of their own span (200 + 200 MB)");
}

/* CPU per GB: the ranks' user + system seconds summed over the phase's bytes; unknown when a
 * rank that read has none (an older file), not 0. */
static void test_cpu(void)
{
	struct phase_summary s;
	struct phase_data pd = phases[0]; /* 500 MB read by ranks 0 and 1 */
	struct rank_rec r[4];
	memcpy(r, big_ranks, sizeof r);
	r[0].cpu_user_s = 0.25, r[0].cpu_sys_s = 0.125;
	r[1].cpu_user_s = 0.5, r[1].cpu_sys_s = 0.125;
	r[2].cpu_user_s = 0.001, r[2].cpu_sys_s = 0; /* waited: a little, counted too */
	r[3].cpu_user_s = NAN, r[3].cpu_sys_s = NAN; /* read nothing: its figure does not matter */
	pd.ranks = r;
	pd.info.bytes = 500000000;
	analyze_phase(&pd, &s);
	ok(near(s.cpu_user_s, 0.751) && near(s.cpu_sys_s, 0.25) && near(s.cpu_s_per_GB, 1.001 / 0.5),
	   "1.001 CPU s over 0.5 GB: %.4f s/GB", s.cpu_s_per_GB);
	r[1].cpu_sys_s = NAN;
	analyze_phase(&pd, &s);
	ok(isnan(s.cpu_s_per_GB), "a rank that read has no figure: unknown");
	r[1].cpu_sys_s = 0.125;
	pd.info.bytes = 0;
	analyze_phase(&pd, &s);
	ok(isnan(s.cpu_s_per_GB), "nothing read: unknown");
}

static void test_nodes(void)
{
	struct node_bw bw[2];
	ok(analyze_nodes(&phases[4], 2, bw) == 2 && near(bw[0].MBps, 4) && near(bw[1].MBps, 1) &&
		   bw[0].readers == 2 && bw[1].bytes == 4000000,
	   "small: node 0 4 MB in 1 s = 4 MB/s, node 1 4 MB in 4 s = 1 MB/s");
	ok(analyze_nodes(&phases[0], 2, bw) == 1 && near(bw[0].MBps, 500.0 / 3) &&
		   isnan(bw[1].MBps),
	   "big: only node 0 read, 500 MB in 3 s = 166.67 MB/s");
}

static const struct report_cell *cell(const struct report_cell *c, long n, const char *ds,
				      const char *cache, enum cache_state state)
{
	for (long i = 0; i < n; i++)
		if (strcmp(c[i].sweep.dataset, ds) == 0 && strcmp(c[i].sweep.cache, cache) == 0 &&
		    c[i].state == state)
			return &c[i];
	return NULL;
}

static void test_cells(const struct run_data *run)
{
	struct report_cell *c = NULL;
	long n = report_cells(run, 0, &c);
	ok(n == 4, "4 cells: big cold, big mixed, small, big with cache none (got %ld)", n);
	const struct report_cell *k = cell(c, n, "big", "drop", CACHE_COLD);
	/* 166.667 and 250: mean 208.333, sd 83.333 / sqrt 2 = 58.926, ci 12.706 x 58.926 / sqrt 2 */
	ok(k && k->n == 2 && near(k->mean_MBps, 625.0 / 3) && near(k->min_MBps, 500.0 / 3) &&
		   near(k->max_MBps, 250) && near(k->median_MBps, 625.0 / 3),
	   "big cold: 2 repetitions (the warm and the failed one left out), mean 208.333");
	ok(k && near(k->sd_MBps, 58.925565) && near(k->ci95_MBps, 529.416667),
	   "big cold: sd 58.9256, 95%% CI +/- 529.4167 (t = 12.706 at 1 df)");
	ok(k && near(k->stonewall_MBps, 190) && near(k->spread_s, 1.0) &&
		   near(k->files_per_s, 1.25) && near(k->meta_fraction, 0.16),
	   "big cold: stonewall 190 MB/s, spread 1 s, (1 + 1.5) / 2 files/s, 16%% metadata");
	ok(k && k->readers == 2 && k->reader_nodes == 1, "big cold: 2 readers on 1 node");
	ok(k && strcmp(k->repetitions, "1-2") == 0, "big cold: repetitions 1-2 (got %s)",
	   k ? k->repetitions : "-");
	k = cell(c, n, "big", "drop", CACHE_MIXED);
	ok(k && k->n == 1 && near(k->mean_MBps, 500) && isnan(k->sd_MBps) &&
		   near(k->resident_fraction, 0.6) && strcmp(k->repetitions, "3") == 0,
	   "big mixed (60%% resident): its own cell, repetition 3, 500 MB/s, no sd");
	k = cell(c, n, "big", "none", CACHE_WARM);
	ok(k && k->n == 1 && strcmp(k->repetitions, "2") == 0,
	   "cache none: a second repetition 99.7%% resident is a warm cell of its own, labelled "
	   "so, whatever the strategy meant");
	ok(cell(c, n, "big", "none", CACHE_COLD) == NULL, "and no cold cell of cache none pools it");
	free(c);
	ok(report_phase_state(&phases[2].info) == CACHE_MIXED &&
		   report_phase_state(&phases[1].info) == CACHE_COLD &&
		   report_phase_state(&phases[5].info) == CACHE_WARM,
	   "state from the resident fraction (older files): cold <= 5%%, mixed, warm >= 95%%");
	struct phase_info rec = phases[2].info;
	snprintf(rec.cache_state, sizeof rec.cache_state, "cold");
	ok(report_phase_state(&rec) == CACHE_COLD, "a recorded state wins over the fraction");
}

/* The list of a cell's repetitions: ranges joined, cut with "..." when long. */
static void test_repetitions(void)
{
	static struct phase_data many[40];
	struct run_data run = {.path = "reps.h5", .nranks = 4, .nnodes = 2, .phases = many,
			       .nphases = 40};
	struct report_cell *c = NULL;
	for (int i = 0; i < 40; i++) {
		many[i] = phases[0];
		many[i].info.repetition = i < 5 ? i : 2 * i; /* 1-5, then 11, 13, ..., 79 */
	}
	long n = report_cells(&run, 0, &c);
	ok(n == 1 && strncmp(c[0].repetitions, "1-5,11,13,", 10) == 0 &&
		   strcmp(c[0].repetitions + strlen(c[0].repetitions) - 3, "...") == 0 &&
		   strlen(c[0].repetitions) < sizeof c[0].repetitions,
	   "40 repetitions: '%s'", n == 1 ? c[0].repetitions : "-");
	free(c);
}

static void test_sizes(const struct run_data *run)
{
	struct report_size_class *k = NULL;
	long n = report_size_classes(run, &k);
	/* big: 3 complete phases (cold, cold, warm; not cache none? yes, 4 with it) */
	ok(n == 2 && k[0].file_size == 100000000 && k[0].phases == 4 && k[0].files == 12,
	   "2 file sizes; 100 MB: 4 completed phases, 12 files");
	ok(n == 2 && near(k[0].open_s, 0.7 / 3) && near(k[0].read_s, 1.4) &&
		   near(k[0].close_s, 0.1 / 3) && near(k[0].meta_fraction, 0.16),
	   "100 MB files: open 0.233 s, read 1.4 s, close 0.033 s per file, 16%% metadata");
	ok(n == 2 && k[1].files == 4 && near(k[1].read_s, 2.0) && near(k[1].meta_fraction, 0),
	   "2 MB files: read 8 s / 4 files = 2 s each, no metadata time");
	free(k);
}

static void test_stragglers(const struct run_data *run)
{
	struct report_straggler sn[5], sf[5];
	struct report_node nodes[2];
	size_t nn = 9, nf = 9;
	ok(report_stragglers(run, 5, sn, &nn, sf, &nf, nodes) == 0, "stragglers found");
	ok(nn == 1 && sn[0].node == 1 && sn[0].phase == 4 && near(sn[0].value, 1) &&
		   near(sn[0].median, 2.5) && near(sn[0].slower, 2.5),
	   "slowest node: beta in the small phase, 1 MB/s, 2.5x slower than the median 2.5");
	/* big's file times 1.1, 0.9, 3.0 (median 1.1): f2 is 2.727x in each of its 4 phases */
	ok(nf == 5 && sf[0].file == 2 && near(sf[0].slower, 3.0 / 1.1) && sf[0].rank == 1 &&
		   sf[0].node == 0 && sf[3].file == 2,
	   "slowest files: f2 at 3.0 / 1.1 = 2.727x, in each big phase, worst first");
	ok(nf == 5 && sf[4].file == 13 && sf[4].rank == 3 && sf[4].node == 1 &&
		   near(sf[4].slower, 4 / 1.5) && near(sf[4].median, 1.5),
	   "then file 13 of the small phase: 4.0 / 1.5 = 2.667x, rank 3 on beta");
	/* node 0: 4 big phases at 166.67 (rel 1) and small at 4 (4 / 2.5 = 1.6) */
	ok(nodes[0].phases == 5 && near(nodes[0].rel_mean, (4 + 1.6) / 5) &&
		   near(nodes[0].rel_worst, 1) && near(nodes[0].mean_MBps, (4 * 500.0 / 3 + 4) / 5) &&
		   nodes[0].ranks == 2,
	   "alpha: 5 phases, 1.12x the median on average, worst 1.0");
	ok(nodes[1].phases == 1 && near(nodes[1].rel_mean, 0.4) && near(nodes[1].mean_MBps, 1),
	   "beta: 1 phase, 0.4x the median");
}

/* Two nodes 0.3% apart and files 10% apart: noise, so no straggler is named. */
static void test_straggler_threshold(void)
{
	static struct file_rec f[2] = {{0, 0, 0, 0.1, 1.0, 1.0, 100000000, 0, 0},
				       {1, 1, 0, 0.1, 1.003, 1.1, 100000000, 0, 0}};
	static struct rank_rec r[2] = {
		{0, 0, 1, 0, 1.0, 100000000, 1, 0.1, 0.9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{1, 1, 1, 0, 1.003, 100000000, 1, 0.1, 0.903, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
	static int32_t map[2] = {0, 1};
	struct phase_data pd = phases[0];
	struct report_straggler sn[5], sf[5];
	struct report_node nodes[2];
	size_t nn = 9, nf = 9;
	pd.ranks = r;
	pd.nranks = 2;
	pd.files = f;
	pd.nfiles = 2;
	struct run_data run = {.path = "noise.h5", .nranks = 2, .nnodes = 2, .node_of_rank = map,
			       .hostnames = hosts, .phases = &pd, .nphases = 1};
	ok(report_stragglers(&run, 5, sn, &nn, sf, &nf, nodes) == 0 && nn == 0 && nf == 0,
	   "a node 1.003x and a file 1.1x slower than the median are noise: none named "
	   "(%zu nodes, %zu files)", nn, nf);
}

static void test_compare(void)
{
	struct report_cell a[3], b[3];
	struct report_cmp cmp;
	memset(a, 0, sizeof a);
	memset(b, 0, sizeof b);
	const char *ds[3] = {"X", "X", "Y"};
	const int ra[3] = {1, 2, 1}, rb[3] = {1, 2, 4};
	for (int i = 0; i < 3; i++) {
		snprintf(a[i].sweep.dataset, sizeof a[i].sweep.dataset, "%s", ds[i]);
		snprintf(b[i].sweep.dataset, sizeof b[i].sweep.dataset, "X");
		a[i].sweep.readers_per_node = ra[i];
		b[i].sweep.readers_per_node = rb[i];
		snprintf(a[i].sweep.cache, sizeof a[i].sweep.cache, "drop");
		snprintf(b[i].sweep.cache, sizeof b[i].sweep.cache, "fadvise");
		a[i].sweep.file_size = b[i].sweep.file_size = 1000;
	}
	a[0] = (struct report_cell){.n = 3, .mean_MBps = 100, .ci95_MBps = 5};
	snprintf(a[0].sweep.dataset, sizeof a[0].sweep.dataset, "X");
	snprintf(a[0].sweep.cache, sizeof a[0].sweep.cache, "drop");
	a[0].sweep.readers_per_node = 1;
	a[0].sweep.file_size = 1000;
	b[0].n = 3, b[0].mean_MBps = 110, b[0].ci95_MBps = 4;
	a[1].n = 3, a[1].mean_MBps = 200, a[1].ci95_MBps = 10;
	b[1].n = 1, b[1].mean_MBps = 150, b[1].ci95_MBps = NAN;
	ok(report_compare(a, 3, b, 3, &cmp) == 0, "compare ran");
	ok(cmp.differ == 1u << SWEEP_CACHE && !(cmp.matched & 1u << SWEEP_CACHE) &&
		   (cmp.matched & 1u << SWEEP_DATASET) && (cmp.matched & 1u << SWEEP_READERS),
	   "cache drop vs fadvise: one value each, said to differ, compared anyway");
	ok(cmp.npairs == 2 && cmp.pairs[0].a == 0 && cmp.pairs[0].b == 0 &&
		   near(cmp.pairs[0].ratio, 1.1) && cmp.pairs[0].overlap == 0,
	   "X x 1: 110 / 100 = 1.1, beyond noise (95..105 vs 106..114)");
	ok(cmp.npairs == 2 && near(cmp.pairs[1].ratio, 0.75) && cmp.pairs[1].overlap == -1,
	   "X x 2: 150 / 200 = 0.75, one repetition in b: no noise estimate");
	ok(cmp.nonly_a == 1 && cmp.only_a[0] == 2 && cmp.nonly_b == 1 && cmp.only_b[0] == 2,
	   "only in a: Y x 1; only in b: X x 4");
	report_cmp_free(&cmp);
}

/* Records that name ranks and nodes that do not exist, or hold NaN, change no figure they do
 * not belong to and crash nothing (the sanitizer build checks the second half). */
static void test_nonsense(void)
{
	struct file_rec f[2] = {{0, 99, NAN, NAN, NAN, NAN, 5, 0, 0}, {1, -3, 0, 0, 1, 1, 1000000, 0, 0}};
	struct rank_rec r[4] = {
		{0, -5, 1, 0, 1, 1000000, 1, NAN, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{1, 7, 1, 0, 2, 1000000, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{2, 1, 1, NAN, 1, 1000000, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{3, 1, 1, 2, 1, 1000000, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* ends before it starts */
	};
	struct phase_data pd = phases[4];
	struct run_data run;
	struct node_bw bw[2];
	struct report_straggler sn[2], sf[2];
	struct report_node nodes[2];
	size_t nn, nf;
	pd.files = f;
	pd.nfiles = 2;
	pd.ranks = r;
	build(&run);
	run.phases = &pd;
	run.nphases = 1;
	run.node_of_rank = NULL;
	ok(analyze_nodes(&pd, 2, bw) == 0 && isnan(bw[0].MBps) && isnan(bw[1].MBps),
	   "nodes out of range and reversed times: no node bandwidth");
	ok(report_stragglers(&run, 2, sn, &nn, sf, &nf, nodes) == 0 && nn == 0,
	   "stragglers of nonsense: none, no crash");
	struct report_cell *c = NULL;
	ok(report_cells(&run, 0, &c) == 1, "a cell all the same");
	free(c);
}

/* Time zeros 100, 103, 110 and 120 s, reads of 1, 2, 3 and 4 s: outside 2 and 5 s, the last
 * phase of a part none; two parts of 2 phases: phase 1 (the first part's last) none either. */
static void test_outside(void)
{
	struct phase_data pd[4];
	struct run_part parts[2] = {{.phases_written = 2}, {.phases_written = 2}};
	struct run_data run = {.path = "o.h5", .schema_version = 7, .phases = pd, .nphases = 4};
	memset(pd, 0, sizeof pd);
	for (int i = 0; i < 4; i++) {
		static const double origin[4] = {100, 103, 110, 120};
		pd[i].info.origin_s = origin[i];
		pd[i].info.elapsed_s = i + 1;
	}
	ok(near(analyze_outside_s(&run, 0), 2) && near(analyze_outside_s(&run, 1), 5) &&
		   near(analyze_outside_s(&run, 2), 7) && isnan(analyze_outside_s(&run, 3)),
	   "outside: the gap to the next time zero less the reads; the last phase none");
	ok(near(analyze_outside_median(&run), 5), "outside: the median of 2, 5 and 7 is 5");
	run.parts = parts;
	run.nparts = 2;
	ok(near(analyze_outside_s(&run, 0), 2) && isnan(analyze_outside_s(&run, 1)) &&
		   near(analyze_outside_s(&run, 2), 7),
	   "outside: two parts (two jobs' clocks): none across them");
	parts[0].phases_count = RESULTS_PART_UNKNOWN;
	ok(isnan(analyze_outside_s(&run, 0)), "outside: parts of unknown length: none");
	run.nparts = 0;
	pd[1].info.origin_s = 100.5;
	ok(isnan(analyze_outside_s(&run, 0)), "outside: a gap shorter than the reads: none");
	run.schema_version = 6;
	ok(isnan(analyze_outside_s(&run, 2)) && isnan(analyze_outside_median(&run)),
	   "outside: a file before schema 7: none");
}

int main(void)
{
	struct run_data run;
	build(&run);
	test_phase();
	test_cpu();
	test_nodes();
	test_cells(&run);
	test_repetitions();
	test_sizes(&run);
	test_stragglers(&run);
	test_straggler_threshold();
	test_compare();
	test_nonsense();
	test_outside();
	return tap_done();
}
