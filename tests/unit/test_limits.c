/* test_limits: inputs that cannot be represented or are not sane are refused at load with the
 * key's FILE:LINE:COL (README "Safety"); the YAML composer refuses deep nesting and alias
 * bombs quickly and names a duplicate brought in by an alias at the alias; a config's load
 * time and memory grow linearly with its data sets. Times are compared as ratios measured side
 * by side, never against a fixed threshold (a shared, noisy machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "run/backend.h"
#include "util/space.h"
#include "tap.h"

#define ROOT "root: /nonexistent-pfsread-root/data\n"
#define DS "datasets:\n  - {name: a, file_size: 1MiB, file_count: 4}\n"

static const struct cfg_block *blocks[BACKEND_BLOCKS_MAX]; /* the backends' keys, as run has */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The message of a failed load of yaml, or NULL (and a failed test) when it loaded. */
static const char *load_fail(const char *yaml, size_t len, struct pf_err *e)
{
	struct experiment x;
	pf_err_clear(e);
	if (cfg_parse("mem/t.yaml", yaml, len, blocks, &x, e) == 0) {
		cfg_free(&x);
		return NULL;
	}
	return e->msg;
}

/* yaml must be refused with status 2, the message starting "mem/t.yaml:WHERE" and holding
 * key 'KEY' (NULL: no key) and part. */
static void refused(const char *what, const char *yaml, const char *where, const char *key,
		    const char *part)
{
	struct pf_err e;
	char prefix[64], keytext[160];
	const char *msg = load_fail(yaml, strlen(yaml), &e);
	snprintf(prefix, sizeof prefix, "mem/t.yaml:%s", where);
	snprintf(keytext, sizeof keytext, "key '%s': ", key ? key : "");
	int pass = msg != NULL && e.status == PF_USAGE && strncmp(msg, prefix, strlen(prefix)) == 0 &&
		   (key == NULL || strstr(msg, keytext) != NULL) && strstr(msg, part) != NULL;
	ok(pass, "%s: refused at %s%s%s", what, where, key ? ", key " : "", key ? key : "");
	diag("%s", msg ? msg : "(loaded)");
}

static void test_sizes(void)
{
	refused("file_size 2^63", ROOT "datasets:\n  - {name: a, file_size: 9223372036854775808, "
		"file_count: 1}\n", "3:26:", "datasets[0].file_size", "more than 1 PiB");
	refused("file_size 2^64-1", ROOT "datasets:\n  - {name: a, file_size: 18446744073709551615, "
		"file_count: 1}\n", "3:26:", "datasets[0].file_size", "more than 1 PiB");
	refused("file_size 2^64", ROOT "datasets:\n  - {name: a, file_size: 18446744073709551616, "
		"file_count: 1}\n", "3:26:", "datasets[0].file_size", "does not fit in 64 bits");
	refused("file_size 1e30", ROOT "datasets:\n  - {name: a, file_size: 1e30, file_count: 1}\n",
		"3:26:", "datasets[0].file_size", "invalid size '1e30'");
	refused("file_size negative", ROOT "datasets:\n  - {name: a, file_size: -4KiB, file_count: "
		"1}\n", "3:26:", "datasets[0].file_size", "negative size");
	refused("file_size zero", ROOT "datasets:\n  - {name: a, file_size: 0, file_count: 1}\n",
		"3:26:", "datasets[0].file_size", "greater than zero");
	refused("file_count 10^12 (more inodes than a 252 GB disk holds)", ROOT "datasets:\n  - {name: a, "
		"file_size: 1B, file_count: 1000000000000}\n", "3:42:", "datasets[0].file_count",
		"from 1 to 1000000000");
	refused("total_size / file_size > 10^9 files", ROOT "datasets:\n  - {name: a, file_size: 1B, "
		"total_size: 2GB}\n", "3:42:", "datasets[0].total_size", "2000000000 files");
	refused("total_size 2 EiB", ROOT "datasets:\n  - {name: a, file_size: 1GiB, total_size: "
		"2048PiB}\n", "3:44:", "datasets[0].total_size", "more than 1 EiB");
	refused("file_count x file_size > 1 EiB", ROOT "datasets:\n  - {name: a, file_size: 1PiB, "
		"file_count: 2000}\n", "3:44:", "datasets[0].file_count", "more than 1 EiB");
	refused("transfer_size 2^64-1 (12.3)", ROOT DS "sweep: {transfer_size: "
		"[18446744073709551615]}\n", "4:25:", "sweep.transfer_size[0]", "more than 1 GiB");
	refused("transfer_size 2 GiB", ROOT DS "sweep: {transfer_size: [4MiB, 2GiB]}\n", "4:31:",
		"sweep.transfer_size[1]", "more than 1 GiB");
	refused("uring.max_inflight 1 TiB", ROOT DS "uring: {max_inflight: 1TiB}\n", "4:23:",
		"uring.max_inflight", "more than 16 GiB");
	refused("a histogram size of 2 PiB", ROOT "datasets:\n  - {name: a, sizes: {histogram: "
		"[[2PiB, 1]]}}\n", "3:36:", "datasets[0].sizes.histogram[0][0]", "more than 1 PiB");
	refused("a lognormal max of 2 PiB", ROOT "datasets:\n  - {name: a, file_count: 3, sizes: "
		"{distribution: lognormal, median: 4KiB, sigma: 1, min: 1B, max: 2PiB}}\n", "3:",
		"datasets[0].sizes.max", "more than 1 PiB");
	refused("a one-file twin above 1 PiB", ROOT "datasets:\n  - {name: a, file_size: 1PiB, "
		"file_count: 2, twin: true}\n", "3:5:", "datasets[0].twin", "more than 1 PiB");
}

static void test_counts(void)
{
	refused("repetitions 10^9", ROOT DS "repetitions: 1000000000\n", "4:14:", "repetitions",
		"from 1 to 100000");
	refused("readers_per_node 0", ROOT DS "sweep: {readers_per_node: [1, 0]}\n", "4:31:",
		"sweep.readers_per_node[1]", "from 1 to 65536");
	refused("readers_per_node 10^6", ROOT DS "sweep: {readers_per_node: 1000000}\n", "4:27:",
		"sweep.readers_per_node", "from 1 to 65536");
	refused("files_per_dir 10^8", ROOT DS "layout: {files_per_dir: 100000000}\n", "4:25:",
		"layout.files_per_dir", "from 1 to 10000000");
	refused("storage_servers 10^7", ROOT DS "hardware: {storage_servers: 10000000}\n", "4:29:",
		"hardware.storage_servers", "from 1 to 1000000");
	refused("phase_timeout 100 days", ROOT DS "phase_timeout: 2400h\n", "4:16:", "phase_timeout",
		"more than 30 days");
	refused("10^8 directories of one file", ROOT "layout: {files_per_dir: 1}\ndatasets:\n  - "
		"{name: a, file_size: 1B, file_count: 100000000}\n", "4:5:", "datasets[0]",
		"100000000 directories");
	refused("2x10^7 files flat", ROOT "datasets:\n  - {name: a, file_size: 1B, file_count: "
		"20000000, layout: flat}\n", "3:5:", "datasets[0]", "layout flat");
	refused("2x10^7 files hashed with depth 0", ROOT "datasets:\n  - {name: a, file_size: 1B, "
		"file_count: 20000000, layout: {kind: hashed, depth: 0}}\n", "3:5:", "datasets[0]",
		"hashed layout");
	refused("10^5 repetitions x 32 readers: phases", ROOT DS "repetitions: 100000\nsweep: "
		"{readers_per_node: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n", "4:1:", "repetitions",
		"more than 1000000 phases");
	refused("phases reading more than 8 EiB", ROOT "datasets:\n  - {name: a, file_size: 1PiB, "
		"file_count: 1024}\nrepetitions: 9\n", "4:1:", "repetitions", "more than 8 EiB");
	refused("two distributions of 6x10^6 files (load time)", ROOT "datasets:\n"
		"  - {name: a, file_count: 6000000, sizes: {distribution: lognormal, median: 4KiB, "
		"sigma: 1, min: 1B, max: 1MiB}}\n"
		"  - {name: b, file_count: 6000000, sizes: {distribution: lognormal, median: 4KiB, "
		"sigma: 1, min: 1B, max: 1MiB}}\n", "4:5:", "datasets[1].sizes",
		"more than 10000000 files in all");
}

/* 13.6: a duplicate brought in by an alias is named where the alias stands. */
static void test_alias_places(void)
{
	refused("a duplicate data set through an alias", ROOT "datasets:\n"
		"  - &d {name: a, file_size: 1MiB, file_count: 1}\n"
		"  - {name: b, file_size: 1MiB, file_count: 1}\n"
		"  - *d\n", "5:5:", "datasets[2].name", "duplicate data set name 'a' (datasets[0], "
		"line 3)");
	refused("a duplicate name through an alias", ROOT "datasets:\n"
		"  - {name: &n a, file_size: 1MiB, file_count: 1}\n"
		"  - {name: *n, file_size: 2MiB, file_count: 1}\n", "4:12:", "datasets[1].name",
		"duplicate data set name 'a'");
	refused("a duplicate sweep entry through an alias", ROOT DS "sweep: {transfer_size: "
		"[&t 4MiB, 1MiB, *t]}\n", "4:40:", "sweep.transfer_size[2]", "duplicate entry");
	refused("a duplicate without alias: at its name", ROOT "datasets:\n"
		"  - {name: a, file_size: 1MiB, file_count: 1}\n"
		"  - {name: a, file_size: 1MiB, file_count: 1}\n", "4:12:", "datasets[1].name",
		"duplicate data set name");
	/* an alias to a data set that is fine: it loads, placed at the alias */
	struct experiment x;
	struct pf_err e;
	static const char yaml[] = ROOT "defs: x\ndatasets:\n"
		"  - &d {name: a, file_size: 1MiB, file_count: 1}\n";
	pf_err_clear(&e);
	ok(cfg_parse("mem/t.yaml", yaml, strlen(yaml), blocks, &x, &e) != 0 && strstr(e.msg, "'defs'"),
	   "an unknown key is still refused (%s)", e.msg);
	if (e.status == PF_OK)
		cfg_free(&x);
}

/* A text of n bytes or so: a valid config with data sets padded by a comment. */
static char *config_of(size_t ndatasets, const char *sweep)
{
	size_t cap = 256 + ndatasets * 64 + strlen(sweep), used = 0;
	char *s = malloc(cap);
	if (s == NULL)
		return NULL;
	used += (size_t)snprintf(s + used, cap - used, ROOT "%sdatasets:\n", sweep);
	for (size_t i = 0; i < ndatasets; i++)
		used += (size_t)snprintf(s + used, cap - used,
					 "  - {name: d%zu, file_size: 1MiB, file_count: 4}\n", i);
	return s;
}

/* Seconds to load text (best of reps: the machine is shared). */
static double load_time(const char *text, int reps, int *loaded)
{
	double best = 1e9;
	*loaded = 1;
	for (int r = 0; r < reps; r++) {
		struct experiment x;
		struct pf_err e = {0};
		double t0 = now();
		int rc = cfg_parse("mem/t.yaml", text, strlen(text), blocks, &x, &e);
		double t = now() - t0;
		if (rc == 0)
			cfg_free(&x);
		else
			*loaded = 0;
		best = t < best ? t : best;
	}
	return best;
}

/* 13.5: hostile shapes are refused about as fast as a plain config of the same size loads. */
static void test_hostile_shapes(void)
{
	size_t n = 100000;
	char *deep = malloc(2 * n + 64), *plain = config_of(n * 2 / 48, "");
	if (deep == NULL || plain == NULL)
		return;
	int m = snprintf(deep, 64, ROOT "sweep: ");
	memset(deep + m, '[', n);
	memset(deep + m + n, ']', n);
	deep[m + 2 * n] = '\0';
	int loaded;
	double tp = load_time(plain, 3, &loaded), td = load_time(deep, 3, &loaded);
	struct pf_err e;
	const char *msg = load_fail(deep, strlen(deep), &e);
	ok(msg != NULL && strstr(msg, "mem/t.yaml:2:") && strstr(msg, "nested more than 64") &&
		   e.status == PF_USAGE, "10^5 nested lists: refused at the 65th (%s)", msg);
	ok(td < 5 * tp + 0.01, "and as fast as a plain config of the same size loads (%.4f s "
	   "against %.4f s; libyaml's loader took minutes)", td, tp);
	/* 10,000 nested mappings */
	size_t cap = 10000 * 6 + 128, used = 0;
	char *maps = malloc(cap);
	if (maps != NULL) {
		used += (size_t)snprintf(maps, cap, ROOT "sweep: ");
		for (int i = 0; i < 10000; i++)
			used += (size_t)snprintf(maps + used, cap - used, "{a: ");
		used += (size_t)snprintf(maps + used, cap - used, "x");
		for (int i = 0; i < 10000; i++)
			maps[used++] = '}';
		maps[used] = '\0';
		msg = load_fail(maps, used, &e);
		ok(msg != NULL && strstr(msg, "nested more than 64 levels deep"),
		   "10,000 nested mappings: refused (%s)", msg);
		free(maps);
	}
	/* a billion laughs: nine levels of ten aliases each */
	char bomb[2048];
	used = (size_t)snprintf(bomb, sizeof bomb, ROOT "a0: &a0 [x]\n");
	for (int l = 1; l < 10; l++) {
		used += (size_t)snprintf(bomb + used, sizeof bomb - used, "a%d: &a%d [", l, l);
		for (int k = 0; k < 10; k++)
			used += (size_t)snprintf(bomb + used, sizeof bomb - used, "%s*a%d",
						 k ? ", " : "", l - 1);
		used += (size_t)snprintf(bomb + used, sizeof bomb - used, "]\n");
	}
	msg = load_fail(bomb, used, &e);
	ok(msg != NULL && strstr(msg, "an alias bomb is not a config") && e.status == PF_USAGE,
	   "an alias bomb (10^9 nodes expanded): refused (%s)", msg);
	/* many anchors and aliases: linear, where libyaml's list of anchors is quadratic */
	size_t na = 50000;
	char *anch = malloc(na * 40 + 128);
	if (anch != NULL) {
		used = (size_t)snprintf(anch, 128, ROOT DS "defs:\n");
		for (size_t i = 0; i < na; i++)
			used += (size_t)sprintf(anch + used, "  - &a%zu %zu\n", i, i);
		used += (size_t)sprintf(anch + used, "uses:\n");
		for (size_t i = 0; i < na; i++)
			used += (size_t)sprintf(anch + used, "  - *a%zu\n", i);
		char *same = config_of(used / 48, "");
		double ta = load_time(anch, 3, &loaded), ts = same ? load_time(same, 3, &loaded) : 0;
		msg = load_fail(anch, used, &e);
		ok(msg != NULL && strstr(msg, "key 'defs': unknown key"), "50,000 anchors and "
		   "aliases: read through, then the unknown key refused (%s)", msg);
		ok(ta < 5 * ts + 0.01, "in about the time a plain config of that size takes (%.4f s "
		   "against %.4f s; libyaml's loader took 10 s)", ta, ts);
		free(same);
		free(anch);
	}
	free(deep);
	free(plain);
}

/* A child process loads text: how long it took and its peak memory (KiB). Each load in a
 * fresh process, so that neither reuses memory the other freed (page faults count for both).
 * 0, or -1 when the child failed. */
static int child_load(const char *text, double *secs, long *rss_kib)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct experiment x;
		struct pf_err e = {0};
		struct rusage ru;
		double t0 = now();
		int rc = cfg_parse("mem/t.yaml", text, strlen(text), blocks, &x, &e);
		double out[2] = {now() - t0, 0};
		getrusage(RUSAGE_SELF, &ru);
		out[1] = (double)ru.ru_maxrss;
		if (rc != 0 || write(fd[1], out, sizeof out) != (ssize_t)sizeof out)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	double in[2];
	int st = 0;
	ssize_t n = pid > 0 ? read(fd[0], in, sizeof in) : -1;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    n != (ssize_t)sizeof in)
		return -1;
	*secs = in[0];
	*rss_kib = (long)in[1];
	return 0;
}

/* 13.5: 200,000 data sets load in time and memory linear in the count: twenty times the
 * data sets of 10,000 take about twenty times as long, where the quadratic duplicate check
 * made it 400; the memory per data set stays small. 10^6 sweep cells load like one. Loads
 * alternate, each in a process of its own, best of three. */
static void test_linear(void)
{
	char *small = config_of(10000, ""), *big = config_of(200000, "");
	double t1 = 1e9, t2 = 1e9;
	long r1 = 0, r2 = 0;
	int loaded = 1;
	if (small == NULL || big == NULL)
		return;
	for (int r = 0; r < 3; r++) {
		double a, b;
		if (child_load(small, &a, &r1) != 0 || child_load(big, &b, &r2) != 0) {
			loaded = 0;
			break;
		}
		t1 = a < t1 ? a : t1;
		t2 = b < t2 ? b : t2;
	}
	ok(loaded, "10,000 and 200,000 data sets load");
	ok(loaded && t2 < 60 * t1, "200,000 data sets: %.3f s, 10,000: %.3f s, ratio %.1f "
	   "(linear: ~20, quadratic: 400)", t2, t1, t2 / t1);
	ok(loaded && (double)(r2 - r1) / 190000 < 2.0, "memory: %ld MiB for 10,000, %ld MiB for 200,000 data "
	   "sets (under 2 KiB each; before: about 7 KiB)", r1 / 1024, r2 / 1024);
	free(small);
	free(big);
	int l1, l2;
	/* 32 readers x 32 transfers x 976 data sets: 999,424 sweep cells */
	char sweep[1024];
	size_t u = (size_t)snprintf(sweep, sizeof sweep, "sweep:\n  readers_per_node: [");
	for (int i = 1; i <= 32; i++)
		u += (size_t)snprintf(sweep + u, sizeof sweep - u, "%s%d", i > 1 ? ", " : "", i);
	u += (size_t)snprintf(sweep + u, sizeof sweep - u, "]\n  transfer_size: [");
	for (int i = 1; i <= 32; i++)
		u += (size_t)snprintf(sweep + u, sizeof sweep - u, "%s%dKiB", i > 1 ? ", " : "", i);
	snprintf(sweep + u, sizeof sweep - u, "]\n");
	char *cells = config_of(976, sweep), *one = config_of(976, "");
	if (cells == NULL || one == NULL)
		return;
	double tc = load_time(cells, 3, &l1), to = load_time(one, 3, &l2);
	ok(l1 && l2 && tc < 3 * to + 0.01, "999,424 sweep cells load like one (%.4f s against "
	   "%.4f s)", tc, to);
	free(cells);
	free(one);
}

static void test_space_maths(void)
{
	uint64_t b, n;
	space_margin(64ULL << 20, 20000, &b, &n);
	ok(b == (1ULL << 20) && n == 200, "margin of a 64 MiB, 20,000-inode tmpfs: 1 MiB (the "
	   "least) and 200 inodes (1%%)");
	space_margin(1ULL << 50, 1000000000, &b, &n);
	ok(b == (1ULL << 50) / 100 && n == 10000000, "margin of 1 PiB: 1%%");
	space_margin(1000, 4, &b, &n);
	ok(b == 1000 && n == 4, "a file system smaller than the least margin: all of it");
	struct space_fs fs;
	memset(&fs, 0, sizeof fs);
	fs.free_bytes = 1ULL << 40;
	fs.free_inodes = 1000000;
	space_apply_quota(&fs, 1024 * 1024, 1ULL << 29, 100, 40);
	ok(fs.quota && fs.free_bytes == (1ULL << 29) && fs.free_inodes == 60,
	   "a quota of 1 GiB with 512 MiB used and 100 inodes with 40 used leaves 512 MiB and 60");
	space_apply_quota(&fs, 0, 0, 0, 0);
	ok(fs.free_bytes == (1ULL << 29), "no limit: nothing changes");
	/* a data set's need: fixed sizes rounded to blocks, one block per directory */
	struct experiment x;
	struct pf_err e = {0};
	static const char yaml[] = ROOT "layout: {files_per_dir: 10}\ndatasets:\n"
				   "  - {name: a, file_size: 5000, file_count: 25}\n";
	if (cfg_parse("mem/t.yaml", yaml, strlen(yaml), blocks, &x, &e) != 0) {
		ok(0, "load: %s", e.msg);
		return;
	}
	struct space_need need;
	dataset_space_need(&x, &x.datasets[0], 4096, &need);
	ok(need.bytes == 25 * 8192 + 4 * 4096 + 4096 && need.inodes == 25 + 4 + 4,
	   "25 files of 5000 B in 4 KiB blocks, 3 directories and the data set's: %llu B, %llu "
	   "inodes", (unsigned long long)need.bytes, (unsigned long long)need.inodes);
	ok(space_alloc_unit(4096) == 4096 && space_alloc_unit(4ULL << 20) == SPACE_ALLOC_MAX &&
	   space_alloc_unit(SPACE_ALLOC_MAX) == SPACE_ALLOC_MAX,
	   "files round up to the file system's block, at most %llu B",
	   (unsigned long long)SPACE_ALLOC_MAX);
	struct space_need big;
	dataset_space_need(&x, &x.datasets[0], space_alloc_unit(4ULL << 20), &big);
	ok(big.bytes == 25 * 65536 + 4 * 65536 + 65536,
	   "a 4 MiB f_frsize (OrangeFS's client) counts a 5000 B file as 64 KiB, not 4 MiB: %llu B",
	   (unsigned long long)big.bytes);
	struct space_fs tiny;
	memset(&tiny, 0, sizeof tiny);
	snprintf(tiny.path, sizeof tiny.path, "/scratch");
	tiny.free_bytes = 100000;
	tiny.free_inodes = 10;
	tiny.margin_bytes = 1000;
	tiny.margin_inodes = 2;
	pf_err_clear(&e);
	ok(space_check(&tiny, &need, "generate", &e) != 0 && e.status == PF_USAGE &&
		   strstr(e.msg, "generate needs 225.3 KB and 33 inodes, and a margin of 1 KB "
				 "and 2 inodes stays free; /scratch has 100 KB and 10 inodes free"),
	   "space_check names both sides: %s", e.msg);
	cfg_free(&x);
}

int main(void)
{
	backend_config(blocks, BACKEND_BLOCKS_MAX);
	test_sizes();
	test_counts();
	test_alias_places();
	test_hostile_shapes();
	test_linear();
	test_space_maths();
	return tap_done();
}
