/* test_calib_stats: a calibration's repetitions summarised (median, quartiles, extremes,
 * max/min), judged stable or not with the reason in one line, every node's and the pooled
 * spread from a file's repetitions, a calibration file written and read back with them (and
 * one of version 1, without them); and the CPU time between two marks. Values by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/calib.h"
#include "run/cpu.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static void test_spread(void)
{
	/* sorted 100 110 120 130 200: median 120, q1 110, q3 130, max/min 2 */
	const double v[] = {130, 100, NAN, 200, 110, 120};
	struct calib_spread s;
	calib_spread_of(v, 6, &s);
	ok(s.n == 5 && near(s.median, 120) && near(s.min, 100) && near(s.max, 200),
	   "5 finite of 6: median 120, min 100, max 200 (n %d, median %g)", s.n, s.median);
	ok(near(s.q1, 110) && near(s.q3, 130), "quartiles 110 and 130 (%g, %g)", s.q1, s.q3);
	ok(near(s.ratio, 2.0) && calib_spread_wide(&s), "max/min 2: wide (above %.2f)", CALIB_WIDE);
	const double even[] = {500, 520, 540, 560};
	calib_spread_of(even, 4, &s);
	ok(near(s.median, 530) && near(s.ratio, 1.12) && calib_spread_wide(&s),
	   "500..560: median 530 between ranks, max/min 1.12: a spread over 10%%, not stable");
	const double calm[] = {500, 520, 540};
	calib_spread_of(calm, 3, &s);
	ok(near(s.ratio, 1.08) && !calib_spread_wide(&s), "500..540: max/min 1.08, stable");
	const double edge[] = {100, 110};
	calib_spread_of(edge, 2, &s);
	ok(!calib_spread_wide(&s), "max/min exactly 1.10 is still stable");
	const double one[] = {42};
	calib_spread_of(one, 1, &s);
	ok(s.n == 1 && near(s.median, 42) && isnan(s.ratio) && !calib_spread_wide(&s),
	   "one measurement: a median, no ratio, not called wide");
	calib_spread_of(one, 0, &s);
	ok(s.n == 0 && isnan(s.median) && isnan(s.min), "nothing: all NaN");
	const double zero[] = {0, 100, 110};
	calib_spread_of(zero, 3, &s);
	ok(isnan(s.ratio) && calib_spread_wide(&s), "a repetition of 0 MB/s: no ratio, wide");
}

static void test_text(void)
{
	char buf[256];
	const double v[] = {540, 563, 590, 550, 570};
	struct calib_spread s;
	calib_spread_of(v, 5, &s);
	ok(strcmp(calib_spread_text(&s, UNITS_RATE_DECIMAL, buf, sizeof buf),
		  "563 MB/s (median of 5: 540.0-590.0, max/min 1.09)") == 0, "text: '%s'", buf);
	calib_spread_of(v, 1, &s);
	ok(strcmp(calib_spread_text(&s, UNITS_RATE_DECIMAL, buf, sizeof buf), "540 MB/s (one measurement)") == 0,
	   "text of one: '%s'", buf);
	calib_spread_of(v, 0, &s);
	ok(strcmp(calib_spread_text(&s, UNITS_RATE_DECIMAL, buf, sizeof buf), "-") == 0, "text of none: '-'");
}

static void test_warning(void)
{
	char buf[640];
	const double calm[] = {540, 563, 580}, wild[] = {210, 563, 400, 300, 500};
	struct calib_spread s;
	calib_spread_of(calm, 3, &s);
	ok(calib_warning(CALIB_DISK, &s, 1ull << 30, 0, UNITS_RATE_DECIMAL, buf, sizeof buf) == 0 && buf[0] == '\0',
	   "a stable figure: no warning");
	calib_spread_of(wild, 5, &s);
	ok(calib_warning(CALIB_DISK, &s, 64ull << 20, 0, UNITS_RATE_DECIMAL, buf, sizeof buf) == 1, "wide: a warning");
	diag("%s", buf);
	ok(strstr(buf, "warning: the disk figure is not stable: 210.0-563.0 MB/s over 5 repetitions "
		       "(max/min 2.68, above 1.10)") == buf,
	   "it says which figure, the range, how many and max/min");
	ok(strstr(buf, "a read of 64 MiB may be served by a drive's or controller's cache") &&
		   strstr(buf, "--disk-size 1 GiB"),
	   "a disk read below 256 MiB: the drive's cache, and the size to give");
	ok(strchr(buf, '\n') == NULL, "one line");
	ok(calib_warning(CALIB_DISK, &s, 1ull << 30, 0, UNITS_RATE_DECIMAL, buf, sizeof buf) == 1 &&
		   strstr(buf, "the machine is busy") && !strstr(buf, "cache"),
	   "a large disk read: a busy machine");
	ok(calib_warning(CALIB_MEMCPY, &s, 8ull << 20, 32ull << 20, UNITS_RATE_DECIMAL, buf, sizeof buf) == 1 &&
		   strstr(buf, "memory copy figure") && strstr(buf, "CPU's 32 MiB cache") &&
		   strstr(buf, "--mem-size 128 MiB"),
	   "a copy below 4 x the last-level cache: that cache, and the size to give");
	ok(calib_warning(CALIB_MEMCPY, &s, 256ull << 20, 32ull << 20, UNITS_RATE_DECIMAL, buf, sizeof buf) == 1 &&
		   strstr(buf, "busy"),
	   "a copy of 8 x the cache: a busy machine");
	ok(calib_warning(CALIB_LINK, &s, 64ull << 20, 0, UNITS_RATE_DECIMAL, buf, sizeof buf) == 1 &&
		   strstr(buf, "the link figure is not stable"),
	   "the link figure by name");
}

/* Two nodes, three repetitions each: node 0 calm, node 1 not. */
static void fill(struct calib_data *c, struct calib_node *nodes, double *reps[CALIB_NFIG])
{
	static const double disk[] = {100, 110, 120, 90, 300, 200};
	static const double mem[] = {5000, 5100, 5200, 5000, 5050, 5100};
	static const double link[] = {1000, 1000, 1000, 1100, 1100, 1100};
	const double *src[CALIB_NFIG] = {disk, mem, link};
	memset(c, 0, sizeof *c);
	memset(nodes, 0, 2 * sizeof *nodes);
	snprintf(nodes[0].host, sizeof nodes[0].host, "n0");
	snprintf(nodes[1].host, sizeof nodes[1].host, "n1");
	nodes[0] = (struct calib_node){.host = "n0", .disk_MBps = 110, .memcpy_MBps = 5100,
				       .link_MBps = 1000};
	nodes[1] = (struct calib_node){.host = "n1", .disk_MBps = 200, .memcpy_MBps = 5050,
				       .link_MBps = 1100};
	for (int f = 0; f < CALIB_NFIG; f++) {
		reps[f] = malloc(6 * sizeof *reps[f]);
		memcpy(reps[f], src[f], 6 * sizeof *reps[f]);
		c->reps_MBps[f] = reps[f];
	}
	c->nnodes = 2;
	c->reps = 3;
	c->nodes = nodes;
	c->config_path = "c.yaml";
	c->start_time = "2026-01-01T00:00:00Z";
	c->command_line = "pfsread calibrate c.yaml";
	c->disk_source = "temporary file /x";
	c->disk_method = "O_DIRECT";
	c->disk_bytes = 1ull << 30;
	c->mem_bytes = 256ull << 20;
	c->msg_bytes = 64ull << 20;
	c->llc_bytes = 32ull << 20;
}

static void test_summarise(void)
{
	struct calib_data c;
	struct calib_node nodes[2];
	double *reps[CALIB_NFIG];
	fill(&c, nodes, reps);
	calib_summarise(&c);
	ok(near(c.nodes[0].spread[CALIB_DISK].median, 110) &&
		   near(c.nodes[0].spread[CALIB_DISK].ratio, 120.0 / 100) &&
		   near(c.nodes[1].spread[CALIB_DISK].ratio, 300.0 / 90),
	   "each node's disk repetitions: node 0 max/min 1.2, node 1 3.33");
	ok(c.spread[CALIB_DISK].n == 6 && near(c.spread[CALIB_DISK].min, 90) &&
		   near(c.spread[CALIB_DISK].max, 300) && calib_spread_wide(&c.spread[CALIB_DISK]),
	   "pooled: 6 repetitions, 90-300, wide");
	ok(!calib_spread_wide(&c.spread[CALIB_MEMCPY]) &&
		   near(c.spread[CALIB_LINK].ratio, 1.1),
	   "memory copy and link stable (link max/min 1.1 over the nodes)");
	for (int f = 0; f < CALIB_NFIG; f++)
		c.reps_MBps[f] = NULL;
	calib_summarise(&c);
	ok(c.nodes[1].spread[CALIB_DISK].n == 1 && c.spread[CALIB_DISK].n == 2 &&
		   near(c.spread[CALIB_DISK].min, 110) && near(c.spread[CALIB_DISK].max, 200),
	   "without repetitions (a version 1 file): each node one measurement, pooled the nodes'");
	for (int f = 0; f < CALIB_NFIG; f++)
		free(reps[f]);
}

static void test_file(void)
{
	struct calib_data c, back;
	struct calib_node nodes[2];
	double *reps[CALIB_NFIG];
	struct pf_err e = {0};
	char path[] = "/tmp/test_calib_stats-XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0, "a scratch file");
	if (fd < 0)
		return;
	close(fd);
	fill(&c, nodes, reps);
	ok(calib_write(path, 1, &c, "name: c\n", &e) == 0, "written (%s)", e.msg);
	ok(calib_read(path, &back, &e) == 0, "read back (%s)", e.msg);
	ok(back.version == CALIB_SCHEMA_VERSION && back.reps == 3 && back.reps_MBps[CALIB_DISK] &&
		   near(back.reps_MBps[CALIB_DISK][4], 300) && back.llc_bytes == (32ull << 20),
	   "version %d, 3 repetitions, every one kept, the cache size", CALIB_SCHEMA_VERSION);
	ok(near(back.disk_MBps, 155) && near(back.spread[CALIB_DISK].max, 300) &&
		   calib_spread_wide(&back.spread[CALIB_DISK]),
	   "the mean of the node medians 155, the pooled spread wide");
	calib_free(&back);
	unlink(path);
	for (int f = 0; f < CALIB_NFIG; f++)
		free(reps[f]);
	/* a version 1 file (before repetitions), as an earlier pfsread wrote it */
	const char *old = "tests/fuzz/corpus/results/calibration-np2.h5";
	if (access(old, R_OK) != 0) {
		ok(1, "# skip: %s not found (run from the source tree)", old);
		return;
	}
	ok(calib_read(old, &back, &e) == 0 && back.version == 1 && back.reps == 1 &&
		   back.reps_MBps[CALIB_DISK] == NULL && back.nodes[0].spread[CALIB_DISK].n == 1,
	   "a version 1 file reads: one measurement per figure (%s)", e.msg);
	if (e.status == PF_OK)
		calib_free(&back);
}

/* The rise rule: the readers double while the rate rises by more than 10% on the best so far. */
static void test_fs_rule(void)
{
	struct calib_data c;
	memset(&c, 0, sizeof c);
	ok(calib_fs_rising(NAN, 30), "the first step rises");
	ok(calib_fs_rising(30, 50) && !calib_fs_rising(50, 54) && !calib_fs_rising(50, 55),
	   "30 to 50: a rise; 50 to 54 or 55 (10%%): flat");
	ok(calib_fs_rising(50, 55.1) && !calib_fs_rising(50, NAN), "55.1: a rise; NaN: none");
	c.fs_nsteps = 3;
	c.fs_step[0] = (struct calib_fs_step){1, 30};
	c.fs_step[1] = (struct calib_fs_step){2, 50};
	c.fs_step[2] = (struct calib_fs_step){4, 49};
	ok(calib_fs_best(&c) == 1, "the best step: 2 readers/node at 50");
	c.fs_step[1].MBps = NAN;
	ok(calib_fs_best(&c) == 2, "a step without a figure is not the best");
	c.fs_nsteps = 0;
	ok(calib_fs_best(&c) == -1, "no step: none");
}

/* The read through the file system written and read back, its figure the mean of the node
 * medians: node 0 50, node 1 40. */
static void test_fs_file(void)
{
	struct calib_data c, back;
	struct calib_node nodes[2];
	double *reps[CALIB_NFIG], fs[6] = {49, 50, 51, 40, 41, 39};
	struct pf_err e = {0};
	char path[] = "/tmp/test_calib_stats-XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0, "a scratch file");
	if (fd < 0)
		return;
	close(fd);
	fill(&c, nodes, reps);
	c.fs_dataset = "big";
	c.fs_bytes = 1u << 20;
	c.fs_nsteps = 2;
	c.fs_step[0] = (struct calib_fs_step){1, 30};
	c.fs_step[1] = (struct calib_fs_step){2, 45};
	c.fs_readers = 2;
	c.fs_flat = 0;
	c.fs_reps_MBps = fs;
	ok(calib_write(path, 1, &c, "name: c\n", &e) == 0, "written (%s)", e.msg);
	ok(calib_read(path, &back, &e) == 0, "read back (%s)", e.msg);
	ok(back.fs_dataset && strcmp(back.fs_dataset, "big") == 0 && back.fs_nsteps == 2 &&
		   back.fs_step[1].readers == 2 && near(back.fs_step[1].MBps, 45) &&
		   back.fs_readers == 2 && !back.fs_flat && back.fs_bytes == (1u << 20),
	   "the data set, the steps, the readers of the figure, not flat");
	ok(near(back.nodes[0].fs_read_MBps, 50) && near(back.nodes[1].fs_read_MBps, 40) &&
		   near(back.fs_read_MBps, 45) && near(back.fs_spread.ratio, 51.0 / 39),
	   "node medians 50 and 40, their mean 45, the pooled spread 51/39");
	calib_free(&back);
	c.fs_dataset = NULL;
	ok(calib_write(path, 1, &c, "name: c\n", &e) == 0 && calib_read(path, &back, &e) == 0 &&
		   back.fs_dataset == NULL && back.fs_nsteps == 0 && isnan(back.fs_read_MBps),
	   "not measured: nothing written, NaN read");
	calib_free(&back);
	unlink(path);
	for (int f = 0; f < CALIB_NFIG; f++)
		free(reps[f]);
}

static void test_cpu(void)
{
	struct cpu_mark a = {{1, 500000}, {0, 250000}, 1}, b = {{3, 0}, {0, 750000}, 1};
	double user, sys;
	cpu_between(&a, &b, &user, &sys);
	ok(near(user, 1.5) && near(sys, 0.5), "user 1.5 s, system 0.5 s between the marks");
	b.ok = 0;
	cpu_between(&a, &b, &user, &sys);
	ok(isnan(user) && isnan(sys), "a failed mark: unknown");
	b = (struct cpu_mark){{1, 0}, {0, 0}, 1};
	cpu_between(&a, &b, &user, &sys);
	ok(isnan(user) && isnan(sys), "time that ran backwards: unknown");
	cpu_mark(&a);
	volatile double x = 0;
	for (long i = 0; i < 20000000; i++)
		x += (double)i;
	cpu_mark(&b);
	cpu_between(&a, &b, &user, &sys);
	ok(a.ok && b.ok && user >= 0 && sys >= 0, "getrusage marks around a loop: user %g s", user);
}

int main(void)
{
	test_spread();
	test_text();
	test_warning();
	test_summarise();
	test_file();
	test_fs_rule();
	test_fs_file();
	test_cpu();
	return tap_done();
}
