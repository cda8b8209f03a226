/* test_sizes: data sets with a size distribution: lognormal sizes reproducible from the seed,
 * inside their bounds and with the right median; histogram counts exact; totals exact
 * (file_count and total_size); twins; and every bad size spec refused with file:line:key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "config/sizes.h"
#include "tap.h"

#define ROOT "root: /nonexistent-pfsread-root/data\n"

static int load(const char *yaml, struct experiment *x, struct pf_err *e)
{
	pf_err_clear(e);
	return cfg_parse("s.yaml", yaml, strlen(yaml), NULL, x, e);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Expect a usage error at line (col 0: any) naming key and containing part. */
static void expect_fail(const char *what, const char *yaml, int line, const char *key,
			const char *part)
{
	char prefix[64], keytext[256];
	struct experiment x;
	struct pf_err e;
	int rc = load(yaml, &x, &e);
	snprintf(prefix, sizeof prefix, "s.yaml:%d:", line);
	snprintf(keytext, sizeof keytext, "key '%s': ", key);
	ok(rc == -1 && e.status == PF_USAGE && strncmp(e.msg, prefix, strlen(prefix)) == 0 &&
		   strstr(e.msg, keytext) != NULL && (part == NULL || strstr(e.msg, part) != NULL),
	   "%s -> line %d, key %s", what, line, key);
	diag("%s", e.msg);
	if (rc == 0)
		cfg_free(&x);
}

static const char lognormal_yaml[] =
	ROOT "seed: %d\n"
	"datasets:\n"
	"  - {name: src, sizes: {distribution: lognormal, median: 4KiB, sigma: 1.5, min: 7B, "
	"max: 175MB}, file_count: 100000}\n";

static void test_lognormal(void)
{
	char yaml[512];
	struct experiment a, b, c;
	struct pf_err e;
	snprintf(yaml, sizeof yaml, lognormal_yaml, 1);
	int ra = load(yaml, &a, &e), rb = load(yaml, &b, &e);
	snprintf(yaml, sizeof yaml, lognormal_yaml, 2);
	int rc = load(yaml, &c, &e);
	if (!ok(ra == 0 && rb == 0 && rc == 0, "lognormal configs load"))
		diag("%s", e.msg);
	if (ra || rb || rc)
		return;
	const struct cfg_dataset *da = &a.datasets[0], *db = &b.datasets[0], *dc = &c.datasets[0];
	uint64_t n = da->nfiles, same = 0, differ = 0, inside = 0, sum = 0;
	uint64_t *v = malloc(n * sizeof *v);
	for (uint64_t i = 0; i < n && v != NULL; i++) {
		v[i] = dataset_file_size(da, i);
		same += v[i] == dataset_file_size(db, i);
		differ += v[i] != dataset_file_size(dc, i);
		inside += v[i] >= 7 && v[i] <= 175000000;
		sum += v[i];
	}
	ok(n == 100000 && da->sizes == CFG_SIZES_LOGNORMAL && da->seed == 1, "100000 files, seed 1");
	ok(same == n, "the same config gives the same sizes twice (%llu of %llu)",
	   (unsigned long long)same, (unsigned long long)n);
	ok(differ > n * 9 / 10, "another seed gives other sizes (%llu of %llu differ)",
	   (unsigned long long)differ, (unsigned long long)n);
	ok(inside == n, "every size within [7 B, 175 MB]");
	ok(sum == da->total_size, "total_size is the exact sum (%llu B)", (unsigned long long)sum);
	ok(da->file_size == 4096, "file_size records the median parameter");
	if (v != NULL) {
		qsort(v, n, sizeof *v, cmp_u64);
		double med = (double)v[n / 2];
		ok(med > 4096 * 0.9 && med < 4096 * 1.1, "median of 100000 files %.0f B within 10%% of "
		   "4096", med);
		ok(v[0] >= 7 && v[0] < 100 && v[n - 1] > 1000000, "the tails are wide (%llu .. %llu B)",
		   (unsigned long long)v[0], (unsigned long long)v[n - 1]);
	}
	uint64_t again = 0;
	for (uint64_t i = n; i-- > 0;)
		again += dataset_file_size(da, i);
	ok(again == sum, "sizes are a pure function of the index (any order, same total)");
	free(v);
	cfg_free(&a);
	cfg_free(&b);
	cfg_free(&c);
}

static void test_lognormal_total(void)
{
	struct experiment x;
	struct pf_err e;
	int rc = load(ROOT "datasets:\n  - {name: t, sizes: {distribution: lognormal, median: 4KiB, "
			   "sigma: 1, min: 1KiB, max: 1MiB}, total_size: 10MB}\n",
		      &x, &e);
	if (!ok(rc == 0, "lognormal by total_size loads"))
		diag("%s", e.msg);
	if (rc != 0)
		return;
	const struct cfg_dataset *d = &x.datasets[0];
	uint64_t sum = 0;
	for (uint64_t i = 0; i < d->nfiles; i++)
		sum += dataset_file_size(d, i);
	ok(d->total_size == 10000000 && sum == 10000000,
	   "total_size 10MB: %llu files summing to exactly 10000000 B",
	   (unsigned long long)d->nfiles);
	uint64_t last = dataset_file_size(d, d->nfiles - 1);
	ok(last > 0 && last <= sizes_lognormal(d, d->nfiles - 1), "the last file is trimmed (%llu B)",
	   (unsigned long long)last);
	cfg_free(&x);
}

static void test_histogram(void)
{
	struct experiment x;
	struct pf_err e;
	int rc = load(ROOT "datasets:\n  - {name: h, sizes: {histogram: [[4KiB, 1000], [1MiB, 20], "
			   "[7B, 333]]}, twin: true}\n  - {name: f, file_size: 1MiB, file_count: 3}\n",
		      &x, &e);
	if (!ok(rc == 0, "histogram with a twin loads"))
		diag("%s", e.msg);
	if (rc != 0)
		return;
	const struct cfg_dataset *d = &x.datasets[0];
	uint64_t n4k = 0, n1m = 0, n7 = 0, other = 0, sum = 0, small_first = 0;
	for (uint64_t i = 0; i < d->nfiles; i++) {
		uint64_t s = dataset_file_size(d, i);
		n4k += s == 4096;
		n1m += s == 1048576;
		n7 += s == 7;
		other += s != 4096 && s != 1048576 && s != 7;
		sum += s;
		if (i < 100)
			small_first += s == 7;
	}
	ok(d->nfiles == 1353 && n4k == 1000 && n1m == 20 && n7 == 333 && other == 0,
	   "histogram counts exact (1000 x 4KiB, 20 x 1MiB, 333 x 7B)");
	ok(sum == d->total_size && sum == 1000ull * 4096 + 20ull * 1048576 + 333ull * 7,
	   "histogram total exact (%llu B)", (unsigned long long)sum);
	ok(small_first > 5 && small_first < 50, "buckets interleave: %llu of the first 100 files "
	   "are 7 B", (unsigned long long)small_first);
	ok(d->file_size == 4096, "file_size records the median file's size");
	ok(x.ndatasets == 3 && strcmp(x.datasets[1].name, "h-onefile") == 0 &&
		   x.datasets[1].nfiles == 1 && x.datasets[1].file_size == d->total_size &&
		   x.datasets[1].twin_of == 1 && strcmp(x.datasets[2].name, "f") == 0,
	   "twin h-onefile follows h: one file of the same total");
	char buf[MANIFEST_SIZES_MAX];
	ok(sizes_describe(d, buf, sizeof buf) == 0 &&
		   strcmp(buf, "histogram 4096x1000,1048576x20,7x333 total=25069851") == 0,
	   "manifest line: %s", buf);
	cfg_free(&x);
	for (uint64_t n = 1; n < 2000; n++) {
		uint64_t s = sizes_histogram_stride(n), a = n, b = s;
		while (b) {
			uint64_t t = a % b;
			a = b;
			b = t;
		}
		if (a != 1) {
			ok(0, "stride %llu for %llu files is not coprime", (unsigned long long)s,
			   (unsigned long long)n);
			return;
		}
	}
	ok(1, "the histogram stride is coprime with every count below 2000 (a permutation)");
}

static void test_manifest(void)
{
	struct experiment x, y;
	struct pf_err e;
	struct manifest a, b;
	const char *one = ROOT "seed: 3\ndatasets:\n  - {name: s, sizes: {distribution: lognormal, "
			  "median: 4KiB, sigma: 1.5, min: 7B, max: 1MiB}, file_count: 50}\n";
	const char *two = ROOT "seed: 3\ndatasets:\n  - {name: s, sizes: {distribution: lognormal, "
			  "median: 4KiB, sigma: 1.25, min: 7B, max: 1MiB}, file_count: 50}\n";
	if (load(one, &x, &e) != 0 || load(two, &y, &e) != 0) {
		ok(0, "manifest configs load: %s", e.msg);
		return;
	}
	manifest_from_config(&x, &x.datasets[0], &a);
	manifest_from_config(&y, &y.datasets[0], &b);
	ok(strncmp(a.sizes, "lognormal median=4096 sigma=1.5 min=7 max=1048576 seed=3 nfiles=50",
		   60) == 0, "the manifest records the spec and seed: %s", a.sizes);
	ok(!manifest_same_files(&a, &b), "another sigma is other parameters");
	char dir[] = "/tmp/pfsread-sizes-XXXXXX";
	if (mkdtemp(dir) != NULL) {
		struct manifest r;
		int w = manifest_write(dir, &a, &e), rd = manifest_read(dir, &r, &e);
		ok(w == 0 && rd == 0 && manifest_same_files(&a, &r), "the sizes line reads back");
		char p[128];
		snprintf(p, sizeof p, "%s/%s", dir, DATASET_MANIFEST);
		unlink(p);
		rmdir(dir);
	}
	cfg_free(&x);
	cfg_free(&y);
}

static void test_errors(void)
{
	expect_fail("sigma 0", ROOT "datasets:\n  - name: a\n    sizes: {distribution: lognormal, "
		    "median: 4KiB, sigma: 0, min: 7B, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.sigma", "above 0");
	expect_fail("sigma negative", ROOT "datasets:\n  - name: a\n    sizes: {distribution: "
		    "lognormal, median: 4KiB, sigma: -1, min: 7B, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.sigma", NULL);
	expect_fail("min above max", ROOT "datasets:\n  - name: a\n    sizes: {distribution: "
		    "lognormal, median: 4KiB, sigma: 1, min: 2MiB, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.min", "above max");
	expect_fail("median outside", ROOT "datasets:\n  - name: a\n    sizes: {distribution: "
		    "lognormal, median: 4MiB, sigma: 1, min: 1B, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.median", "outside");
	expect_fail("histogram with file_count", ROOT "datasets:\n  - name: a\n    sizes: "
		    "{histogram: [[4KiB, 10]]}\n    file_count: 4\n",
		    5, "datasets[0].file_count", "not allowed with a size histogram");
	expect_fail("histogram with total_size", ROOT "datasets:\n  - name: a\n    sizes: "
		    "{histogram: [[4KiB, 10]]}\n    total_size: 1MB\n",
		    5, "datasets[0].total_size", "not allowed");
	expect_fail("zero count", ROOT "datasets:\n  - name: a\n    sizes: {histogram: [[4KiB, 10], "
		    "[1MiB, 0]]}\n", 4, "datasets[0].sizes.histogram[1][1]", "integer >= 1");
	expect_fail("zero size", ROOT "datasets:\n  - name: a\n    sizes: {histogram: [[0, 10]]}\n",
		    4, "datasets[0].sizes.histogram[0][0]", "greater than zero");
	expect_fail("histogram entry not a pair", ROOT "datasets:\n  - name: a\n    sizes: "
		    "{histogram: [[4KiB]]}\n", 4, "datasets[0].sizes.histogram[0]", "[size, count]");
	expect_fail("histogram and distribution", ROOT "datasets:\n  - name: a\n    sizes: "
		    "{histogram: [[4KiB, 1]], distribution: lognormal}\n", 4,
		    "datasets[0].sizes.distribution", "not allowed with histogram");
	expect_fail("missing sigma", ROOT "datasets:\n  - name: a\n    sizes: {distribution: "
		    "lognormal, median: 4KiB, min: 7B, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.sigma", "required");
	expect_fail("unknown distribution", ROOT "datasets:\n  - name: a\n    sizes: {distribution: "
		    "pareto, median: 4KiB, sigma: 1, min: 7B, max: 1MiB}\n    file_count: 4\n",
		    4, "datasets[0].sizes.distribution", "lognormal");
	expect_fail("file_size and sizes", ROOT "datasets:\n  - name: a\n    file_size: 1MiB\n"
		    "    sizes: {histogram: [[4KiB, 1]]}\n", 5, "datasets[0].sizes", "not both");
	expect_fail("lognormal without a count", ROOT "datasets:\n  - name: a\n    sizes: "
		    "{distribution: lognormal, median: 4KiB, sigma: 1, min: 7B, max: 1MiB}\n",
		    3, "datasets[0]", "needs total_size or file_count");
	expect_fail("twin name taken", ROOT "datasets:\n  - {name: a, file_size: 1MiB, file_count: 2, "
		    "twin: true}\n  - {name: a-onefile, file_size: 1MiB, file_count: 1}\n",
		    3, "datasets[0].twin", "has the name of another data set");
}

int main(void)
{
	test_lognormal();
	test_lognormal_total();
	test_histogram();
	test_manifest();
	test_errors();
	return tap_done();
}
