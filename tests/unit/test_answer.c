/* test_answer: the report's opening lines from hand-built cells: the reference study (100 nodes
 * on 1 GbE, ceiling 11,818 MB/s by the reader links) gives its best and worst cell with their
 * share of the ceiling and ranks "round trips" above "metadata"; a cell above its ceiling is
 * said to contradict it; warm cells, cells of unknown cache state, a slow node, a read path below its peers and a run
 * without hardware each give their finding with its recommendation; readers that wait on round
 * trips are found in the step before the links bind; readers that meet on a few of the storage
 * targets are found with their figures. */
#include <math.h>
#include <string.h>

#include "report/answer.h"
#include "run/cache.h"
#include "tap.h"

static const struct ceil_hw reference = {
	.node_disk_MBps = 200, .node_link_MBps = 117, .storage_servers = 100,
	.data_on_compute_nodes = 1, .racks = 3, .rack_uplink_MBps = 5000,
};

static struct report_cell cell(const char *ds, int rpn, double mean, double meta)
{
	struct report_cell c;
	memset(&c, 0, sizeof c);
	snprintf(c.sweep.dataset, sizeof c.sweep.dataset, "%s", ds);
	c.sweep.readers_per_node = rpn;
	snprintf(c.sweep.backend, sizeof c.sweep.backend, "posix");
	snprintf(c.sweep.cache, sizeof c.sweep.cache, "drop");
	c.state = CACHE_COLD;
	c.n = 1;
	c.mean_MBps = mean;
	c.meta_fraction = meta;
	c.readers = 100 * rpn;
	c.reader_nodes = 100;
	c.resident_fraction = 0;
	c.files_per_s = 10;
	c.ceiling_MBps = c.efficiency = NAN;
	return c;
}

/* The index of the first line whose text holds s, or -1. */
static int find(const struct answer *a, const char *s)
{
	for (int i = 0; i < a->n; i++)
		if (strstr(a->line[i].text, s) != NULL)
			return i;
	return -1;
}

static void dump(const struct answer *a)
{
	for (int i = 0; i < a->n; i++)
		diag("%s", a->line[i].text);
}

static void test_reference(void)
{
	struct report_cell c[6] = {cell("1GB", 1, 660, 0), cell("1GB", 2, 1218, 0),
				   cell("1GB", 4, 1106, 0), cell("2MB", 1, 502, 0.239),
				   cell("2MB", 2, 549, 0.25), cell("2MB", 4, 587, 0.26)};
	struct answer a;
	for (int i = 0; i < 6; i++)
		report_cell_ceiling(&c[i], &reference, 100, NULL);
	struct answer_in in = {c, 6, 1, "declared", NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	ok(a.n >= 3 && a.n <= ANSWER_MAX, "at most %d lines (%d)", ANSWER_MAX, a.n);
	ok(find(&a, "best: 1GB x 2 readers/node: 1218 MB/s = 10.3% of 11,818 (reader links, "
		    "declared)") == 0, "the best cell first, its share of the ceiling and the limit");
	ok(find(&a, "worst: 2MB x 1 reader/node: 502 MB/s = 4.2% of 11,818") == 1,
	   "then the worst");
	int rt = find(&a, "readers wait on round trips: 1GB aggregate 1.85x from 1 to 2");
	int md = find(&a, "metadata-bound: 2MB x 4 readers/node spends 26.0%");
	ok(rt == 2, "round trips: the heaviest finding (line %d)", rt);
	ok(rt >= 0 && strstr(a.line[rt].text, "-> more requests in flight: larger transfers, "
					     "uring, more readers") != NULL,
	   "with its recommendation");
	ok(md > rt && strstr(a.line[md].text, "-> fewer, larger files; more readers") != NULL,
	   "metadata-bound small files below it, with theirs (line %d)", md);
	ok(find(&a, "contradicted") < 0 && find(&a, "page cache") < 0,
	   "no contradiction, no page cache");
	in.units = UNITS_RATE_BINARY; /* the same cells in MiB/s: the figures change, the shares not */
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "best: 1GB x 2 readers/node: 1162 MiB/s = 10.3% of 11,271 (reader links, "
		    "declared)") == 0, "binary units: 1218 MB/s is 1162 MiB/s, 11,818 is 11,271");
	ok(find(&a, "per reader flat (6.29 -> 5.81 MiB/s)") == 2 && find(&a, "MB/s") < 0,
	   "every rate of the answer in MiB/s, none in MB/s");
	in.units = UNITS_RATE_DECIMAL;
	c[1].mean_MBps = 2 * 1218; /* each reader twice as fast with twice the readers: not flat */
	c[2].mean_MBps = 1000;
	answer_build(&in, &a);
	ok(find(&a, "round trips") < 0, "a per-reader rate that grows is no sign of round trips");
	ok(strcmp(answer_thousands(11818.18, (char[32]){0}, 32), "11,818") == 0 &&
		   strcmp(answer_thousands(1234567, (char[32]){0}, 32), "1,234,567") == 0 &&
		   strcmp(answer_thousands(999, (char[32]){0}, 32), "999") == 0,
	   "thousands separated");
}

static void test_above_and_warm(void)
{
	struct ceil_hw hw = {.node_link_MBps = 1, .storage_servers = 100, .server_disk_MBps = 200,
			     .server_link_MBps = 117};
	struct report_cell c[3] = {cell("big", 1, 150, 0), cell("big", 2, 90, 0),
				   cell("big", 2, 5000, 0)};
	struct answer a;
	c[2].state = CACHE_WARM;
	c[2].resident_fraction = 0.97;
	for (int i = 0; i < 3; i++)
		report_cell_ceiling(&c[i], &hw, 100, NULL);
	struct answer_in in = {c, 3, 1, "declared", NULL, "n7 (ranks 28-31)", 2.5, NULL, 0, NULL,
			       UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	int above = find(&a, "ABOVE it, the ceiling is contradicted");
	ok(above >= 0 && strstr(a.line[above].text, "big x 1 reader/node: 150 MB/s = 150% of 100") !=
				 NULL,
	   "a cell at 150%% of its ceiling is said to contradict it");
	int f = find(&a, "ceiling contradicted: the declared figure 100 MB/s (reader links)");
	ok(f >= 0 && a.line[f].kind == ANSWER_FINDING && a.line[f].weight == 1.0,
	   "and the contradiction is the first finding");
	ok(f >= 0 && (f == a.n - 1 || a.line[f + 1].weight <= 1.0) &&
		   find(&a, "-> correct hardware: or run pfsread calibrate") == f,
	   "with what to do");
	int w = find(&a, "page cache: 1 of 3 cells warm or mixed (big x 2 readers/node (warm): 97%");
	ok(w > f && strstr(a.line[w].text, "-> cache: drop or fadvise") != NULL,
	   "warm repetitions: cache: drop or fadvise");
	int s = find(&a, "slow node: n7 (ranks 28-31) read 2.5x slower");
	ok(s > f && s < w, "the slow node, named with its ratio, weighs more than 1 warm in 3");
	ok(find(&a, "warm: only cell: big x 2 readers/node (warm)") >= 0,
	   "a table per cache state, labelled");
}

/* A cell whose cache state the kernel would not tell (a user who neither owns the files nor may
 * write them): its own table, its own finding, never counted warm. */
static void test_unknown_cache(void)
{
	struct report_cell c[2] = {cell("big", 1, 150, 0), cell("big", 1, 400, 0)};
	struct answer a;
	ok(cache_state_of(NAN) == CACHE_UNKNOWN && strcmp(cache_state_name(CACHE_UNKNOWN),
							   "unknown") == 0 &&
		   cache_state_of(0.5) == CACHE_MIXED && cache_state_of(0) == CACHE_COLD,
	   "a resident fraction of NaN is the state unknown");
	c[1].state = cache_state_of(NAN);
	c[1].resident_fraction = NAN;
	struct answer_in in = {c, 2, 1, NULL, NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	int u = find(&a, "page cache: 1 of 2 cells of unknown cache state");
	ok(u >= 0 && a.line[u].kind == ANSWER_FINDING &&
		   strstr(a.line[u].text, "-> run as the files' owner or root") != NULL,
	   "unknown cells: a finding that says who the kernel tells");
	ok(find(&a, "warm or mixed") < 0, "an unknown cell is not counted warm");
	ok(find(&a, "unknown: only cell: big x 1 reader/node (cache unknown)") >= 0,
	   "a table of its own, labelled");
}

/* On a node whose host takes back freed memory, the cold cells read through the page cache
 * are named; O_DIRECT ones, warm ones and another node's runs are not. */
static void test_host_reclaim(void)
{
	struct report_cell c[4] = {cell("big", 1, 150, 0), cell("big", 2, 300, 0),
				   cell("big", 1, 400, 0), cell("big", 2, 700, 0)};
	struct answer a;
	snprintf(c[1].sweep.backend, sizeof c[1].sweep.backend, "mmap");
	snprintf(c[2].sweep.backend, sizeof c[2].sweep.backend, "direct");
	c[3].state = CACHE_WARM;
	c[3].resident_fraction = 1;
	struct answer_in in = {c, 4, 1, NULL, NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 1};
	answer_build(&in, &a);
	dump(&a);
	int h = find(&a, "host memory: 2 of 4 cells read cold through the page cache of a node that "
			 "hands the memory it frees back to its host");
	ok(h >= 0 && a.line[h].kind == ANSWER_FINDING &&
		   strstr(a.line[h].text, "-> backend direct for the storage's figure") != NULL,
	   "a host that takes back freed memory: the cold buffered cells, and what to read with");
	in.host_reclaims = 0;
	answer_build(&in, &a);
	ok(find(&a, "host memory") < 0, "a node that keeps its memory: no such finding");
	in.host_reclaims = 1;
	in.ncells = 1;
	answer_build(&in, &a);
	ok(find(&a, "host memory: the only cell read cold through the page cache") >= 0,
	   "one cell: the only cell, never \"1 of 1 cells\"");
	in.ncells = 4;
	snprintf(c[0].sweep.cache, sizeof c[0].sweep.cache, "direct");
	snprintf(c[1].sweep.backend, sizeof c[1].sweep.backend, "direct");
	in.host_reclaims = 1;
	answer_build(&in, &a);
	ok(find(&a, "host memory") < 0, "cells read with O_DIRECT (backend or cache direct): none");
}

static void test_read_path_and_no_ceiling(void)
{
	struct ceil_hw hw = {.node_link_MBps = 100, .data_remote = 1};
	struct report_cell c[2] = {cell("small", 1, 190, 0), cell("small", 1, 125, 0)};
	struct report_fs fs = {1, 1};
	struct answer a;
	snprintf(c[1].sweep.backend, sizeof c[1].sweep.backend, "mmap");
	for (int i = 0; i < 2; i++) {
		c[i].readers = c[i].reader_nodes = 2;
		report_cell_ceiling(&c[i], &hw, 2, NULL);
	}
	for (int i = 0; i < 2; i++)
		report_cell_shortfall(&c[i], c, 2, &fs);
	struct answer_in in = {c, 2, 1, "declared", NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	int r = find(&a, "read path below its peers: small x 1 reader/node, backend mmap, 62% of "
			 "its ceiling, while backend posix reached 95% of it (likely "
			 "mmap-page-faults) -> read() (backend posix)");
	ok(r >= 0, "mmap below posix on the same ceiling: the read path, with the fix");
	const char *source[2] = {"calibrated", NULL};
	in.source = source;
	answer_build(&in, &a);
	ok(find(&a, "small x 1 reader/node: 190 MB/s = 95.0% of 200 (reader links, calibrated)") >=
			   0 &&
		   find(&a, "small x 1 reader/node: 125 MB/s = 62.5% of 200 (reader links, declared)") >=
			   0,
	   "each cell's limit says where its figure came from (else the run's source)");

	struct answer_in none = {c, 2, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	for (int i = 0; i < 2; i++) {
		c[i].ceiling_MBps = c[i].efficiency = NAN;
		c[i].shortfall[0] = c[i].cause[0] = '\0';
	}
	answer_build(&none, &a);
	dump(&a);
	ok(find(&a, "(no ceiling known)") >= 0, "no hardware: the cells without a share");
	ok(find(&a, "-> declare hardware: {node_link_MBps: N, storage_servers: S, "
		    "server_disk_MBps: D} in the config, or give a pfsread calibrate file") >= 0,
	   "and exactly what to give, in one line");

	struct answer_in empty = {NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	answer_build(&empty, &a);
	ok(a.n == 1 && find(&a, "no completed phases") == 0, "no cells: one line says so");
}

static void test_many_tables(void)
{
	struct report_cell c[8];
	struct answer a;
	static const char *const backends[] = {"posix", "mmap", "direct", "uring"};
	for (int i = 0; i < 8; i++) {
		c[i] = cell("d", 1 + i % 2, 100 + 10 * i, 0);
		snprintf(c[i].sweep.backend, sizeof c[i].sweep.backend, "%s", backends[i / 2]);
	}
	struct answer_in in = {c, 8, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	ok(a.n <= ANSWER_MAX && find(&a, "backend uring: best of all: d x 2 readers/node: 170") == 0 &&
		   find(&a, "backend posix: worst of all: d x 1 reader/node: 100") == 1,
	   "four tables: the best and the worst of all, named by their table");
}

/* A calibrated ceiling carries how far its repetitions were apart: in the cell lines, and in
 * the contradiction, which says whether the repetitions agreed. */
static void test_calibrated_spread(void)
{
	struct ceil_hw hw = {.node_disk_MBps = 100, .node_disk_spread = 1.45};
	struct report_cell c[2] = {cell("big", 1, 150, 0), cell("big", 2, 90, 0)};
	const double spread[2] = {1.45, 1.45};
	const char *source[2] = {"calibrated", "calibrated"};
	struct answer a;
	for (int i = 0; i < 2; i++) {
		c[i].reader_nodes = 1; /* one node: its disk, 100 MB/s, is the ceiling */
		c[i].readers = c[i].sweep.readers_per_node;
		report_cell_ceiling(&c[i], &hw, 1, NULL);
	}
	struct answer_in in = {c, 2, 1, "calibrated", source, NULL, 0, NULL, 0, spread,
			       UNITS_RATE_DECIMAL, 0};
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "(node disks, calibrated, repetitions max/min 1.45: NOT STABLE): ABOVE it") >= 0,
	   "the cell above its ceiling: the limit, where from and its repetitions' spread");
	ok(find(&a, "ceiling contradicted: the calibrated figure 100 MB/s (node disks; its "
		    "repetitions were far apart: max/min 1.45) is contradicted") >= 0,
	   "the contradiction says the calibration was not stable");
	const double calm[2] = {1.05, 1.05};
	in.spread = calm;
	answer_build(&in, &a);
	ok(find(&a, "(node disks; its repetitions agreed: max/min 1.05)") >= 0,
	   "a stable calibration that is contradicted all the same: said so");
	ok(find(&a, "calibration not stable") < 0 && find(&a, "NOT STABLE") < 0,
	   "repetitions within 10%%: not called unstable");
	const double mid[2] = {1.2, 1.2}; /* over 10%, under the 30% calibrate once warned at */
	in.spread = mid;
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "calibration not stable: the node disks figure that sets big x 1 reader/node's "
		    "ceiling moved 20% over its repetitions (max/min 1.20, above 1.10)") >= 0,
	   "a spread of 20%%: a finding that the calibration is not stable, with the threshold");
	ok(find(&a, "repetitions max/min 1.20: NOT STABLE") >= 0,
	   "and the cell lines flag the limit's figure");
	in.spread = NULL;
	answer_build(&in, &a);
	ok(find(&a, "max/min") < 0, "no spread known: none said");
}

/* The box's latency-bound readers (2 nodes, links of 47.88 MB/s, 5 ms a link each way): 1 -> 2
 * readers per node nearly doubles the aggregate, 4 reaches the links and each reader slows.
 * The best cell of the row is then no sign of round trips; the step 1 -> 2 still is. */
static void test_round_trips_until_bound(void)
{
	struct ceil_hw hw = {.node_link_MBps = 47.88, .storage_servers = 1,
			     .server_link_MBps = 100000};
	struct report_cell c[3] = {cell("lat", 1, 36.1, 0), cell("lat", 2, 64.4, 0),
				   cell("lat", 4, 69.6, 0)};
	for (int i = 0; i < 3; i++) {
		c[i].readers = 2 * c[i].sweep.readers_per_node;
		c[i].reader_nodes = 2;
		report_cell_ceiling(&c[i], &hw, 2, NULL);
	}
	struct answer_in in = {c, 3, 1, "declared", NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	struct answer a;
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "readers wait on round trips: lat aggregate 1.78x from 1 to 2 readers/node, "
		    "per reader flat (18.05 -> 16.10 MB/s)") >= 0,
	   "round trips: the step 1 -> 2 readers/node, though 4 has the best aggregate");
	c[1].mean_MBps = 40; /* more readers barely more than 1: no step shows it */
	c[2].mean_MBps = 44;
	answer_build(&in, &a);
	ok(find(&a, "round trips") < 0, "no step that nearly doubles: no round-trip finding");
}

/* Converged GlusterFS in the box: 4 nodes, each file whole on one node's brick, readers meet
 * on a few of them at a time. */
static void test_crowded_targets(void)
{
	struct ceil_hw hw = {.node_link_MBps = 4.78, .storage_servers = 4,
			     .data_on_compute_nodes = 1};
	struct report_cell c[2] = {cell("64MiB", 1, 13.4, 0), cell("64MiB", 2, 14.9, 0)};
	for (int i = 0; i < 2; i++) {
		c[i].readers = 4 * c[i].sweep.readers_per_node;
		c[i].reader_nodes = 4;
		c[i].targets = 4;
		report_cell_ceiling(&c[i], &hw, 4, NULL);
	}
	c[0].targets_used = 2.21;
	c[0].targets_could = 4;
	c[0].target_share = 0.5525;
	c[1].targets_used = 2.9;
	c[1].targets_could = 4;
	c[1].target_share = 0.725;
	struct answer_in in = {c, 2, 1, "declared", NULL, NULL, 0, NULL, 0, NULL, UNITS_RATE_DECIMAL, 0};
	struct answer a;
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "readers meet on few targets: 64MiB x 1 reader/node read from 2.2 of its 4 "
		    "targets at a time, where its readers could use 4.0 (55%)") >= 0,
	   "crowded targets: the cell that used fewest of what it could, with the figures");
	ok(find(&a, "-> stripe files over the targets") >= 0, "with what to do");
	c[0].target_share = c[1].target_share = 0.9;
	answer_build(&in, &a);
	ok(find(&a, "few targets") < 0, "readers spread over the targets: no such finding");
	c[0].target_share = 0.5525;
	c[0].mean_MBps = 0.95 * c[0].ceiling_MBps;
	c[0].efficiency = 0.95;
	answer_build(&in, &a);
	ok(find(&a, "few targets") < 0, "a cell at its ceiling: crowding cost it nothing");
	c[0].efficiency = 0.5;
	c[0].state = CACHE_WARM;
	answer_build(&in, &a);
	ok(find(&a, "few targets") < 0, "a warm cell: not read from the targets");
	c[0].state = CACHE_COLD;
	c[0].target_share = NAN;
	answer_build(&in, &a);
	ok(find(&a, "few targets") < 0, "targets not known: no finding");
	c[0].target_share = c[1].target_share = 0.9;
	c[0].target_heaviest = c[1].target_heaviest = 0.34;
	answer_build(&in, &a);
	dump(&a);
	ok(find(&a, "uneven placement: one of 64MiB's 4 targets holds 34% of its bytes (even: 25%), "
		    "so while the targets bind 64MiB x 1 reader/node reads at most 74% of their "
		    "combined rate") >= 0, "uneven placement: the busiest target's share of the bytes");
	c[0].target_heaviest = c[1].target_heaviest = 0.29;
	answer_build(&in, &a);
	ok(find(&a, "uneven") < 0, "the busiest target under 1.2 x an even share: no finding");
}

int main(void)
{
	test_reference();
	test_above_and_warm();
	test_unknown_cache();
	test_host_reclaim();
	test_calibrated_spread();
	test_read_path_and_no_ceiling();
	test_many_tables();
	test_round_trips_until_bound();
	test_crowded_targets();
	return tap_done();
}
