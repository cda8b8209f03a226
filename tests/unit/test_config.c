/* test_config: load YAML files written to a temporary directory; check every field of a valid
 * config and, for each kind of bad input, the status, FILE:LINE:COL and key of the message. */
#include <dirent.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "tap.h"

#define MIB (1024ULL * 1024ULL)

static char test_dir[64];

/* The lines most bad configs share: 1 root, 2-3 datasets. */
#define ROOT_LINE "root: /nonexistent-pfsread-root/data\n"
#define DS_LINES "datasets:\n  - {name: a, file_size: 1MiB, file_count: 4}\n"

static void path_in_dir(char *buf, size_t len, const char *name)
{
	if (snprintf(buf, len, "%s/%s", test_dir, name) >= (int)len) {
		fprintf(stderr, "path too long\n");
		exit(1);
	}
}

/* Write text to test_dir/name; path gets the full path. */
static int write_file(const char *name, const char *text, size_t len, char *path, size_t plen)
{
	path_in_dir(path, plen, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		return -1;
	size_t n = fwrite(text, 1, len, f);
	if (fclose(f) != 0 || n != len)
		return -1;
	return 0;
}

static int is_freed(const struct experiment *x)
{
	return x->yaml_text == NULL && x->datasets == NULL && x->ndatasets == 0;
}

/* Load yaml from file name and expect a usage error at line:col (col 0: any) naming key
 * (NULL: none) and containing part (NULL: nothing more). */
static void expect_fail_len(const char *what, const char *name, const char *yaml, size_t len,
			    int line, int col, const char *key, const char *part)
{
	char path[256], prefix[320], keytext[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (write_file(name, yaml, len, path, sizeof path) != 0) {
		ok(0, "%s: cannot write %s", what, path);
		return;
	}
	int rc = cfg_load(path, NULL, &x, &e);
	if (col > 0)
		snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, line, col);
	else
		snprintf(prefix, sizeof prefix, "%s:%d:", path, line);
	snprintf(keytext, sizeof keytext, "key '%s': ", key ? key : "");
	int pass = rc == -1 && e.status == PF_USAGE && is_freed(&x) &&
		   strncmp(e.msg, prefix, strlen(prefix)) == 0 &&
		   (key == NULL || strstr(e.msg, keytext) != NULL) &&
		   (key != NULL || strstr(e.msg, "key '") == NULL) &&
		   (part == NULL || strstr(e.msg, part) != NULL);
	ok(pass, "%s -> line %d%s%s", what, line, key ? ", key " : "", key ? key : "");
	diag("%s", e.msg);
}

static void expect_fail(const char *what, const char *name, const char *yaml, int line, int col,
			const char *key, const char *part)
{
	expect_fail_len(what, name, yaml, strlen(yaml), line, col, key, part);
}

static const char full_yaml_fmt[] =
	"# pfsread test config: every key\n"                          /* 1 */
	"name: full-test\n"                                            /* 2 */
	"root: %s\n"                                                   /* 3 */
	"results: out/{name}-{jobid}-{time}.h5\n"                      /* 4 */
	"layout: {files_per_dir: 50}\n"                                /* 5 */
	"datasets:\n"                                                  /* 6 */
	"  - {name: 64MiB, file_size: 64MiB, total_size: 512MiB}\n"    /* 7 */
	"  - name: small.2\n"                                          /* 8 */
	"    file_size: 2MiB\n"                                        /* 9 */
	"    file_count: 100\n"                                        /* 10 */
	"  - {name: odd_1-x, file_size: 3MB, total_size: 10MB}\n"      /* 11 */
	"sweep:\n"                                                     /* 12 */
	"  readers_per_node: [1, 2, 4]\n"                              /* 13 */
	"  backend: [posix, mmap]\n"                                   /* 14 */
	"  transfer_size: [4MiB, 1MB]\n"                               /* 15 */
	"  order: [sorted, reverse, random]\n"                         /* 16 */
	"repetitions: 3\n"                                             /* 17 */
	"cache: fadvise\n"                                             /* 18 */
	"seed: 42\n";                                                  /* 19 */

static int pos_is(struct cfg_pos p, int line, int col)
{
	return p.line == line && p.col == col;
}

static void check_full_datasets(const struct experiment *x)
{
	const struct cfg_dataset *d = x->datasets;
	ok(x->ndatasets == 3, "full: 3 data sets");
	if (x->ndatasets != 3)
		return;
	ok(strcmp(d[0].name, "64MiB") == 0 && d[0].file_size == 64 * MIB && d[0].nfiles == 8 &&
		   d[0].total_size == 512 * MIB && pos_is(d[0].pos, 7, 5),
	   "full: datasets[0] 64MiB x 8 at 7:5");
	ok(strcmp(d[1].name, "small.2") == 0 && d[1].file_size == 2 * MIB && d[1].nfiles == 100 &&
		   d[1].total_size == 200 * MIB && pos_is(d[1].pos, 8, 5),
	   "full: datasets[1] 2MiB x 100 (file_count) at 8:5");
	ok(strcmp(d[2].name, "odd_1-x") == 0 && d[2].file_size == 3000000 && d[2].nfiles == 3 &&
		   d[2].total_size == 9000000 && pos_is(d[2].pos, 11, 5),
	   "full: datasets[2] 10MB / 3MB rounds down to 3 files, total 9MB");
}

static void check_full_sweep(const struct experiment *x)
{
	ok(x->nreaders == 3 && x->readers_per_node[0] == 1 && x->readers_per_node[1] == 2 &&
		   x->readers_per_node[2] == 4,
	   "full: readers_per_node [1, 2, 4]");
	ok(pos_is(x->readers_pos[0], 13, 22) && pos_is(x->readers_pos[1], 13, 25) &&
		   pos_is(x->readers_pos[2], 13, 28),
	   "full: readers_per_node positions");
	ok(x->nbackends == 2 && strcmp(x->backends[0], "posix") == 0 &&
		   strcmp(x->backends[1], "mmap") == 0 && pos_is(x->backends_pos[0], 14, 13) &&
		   pos_is(x->backends_pos[1], 14, 20),
	   "full: backend [posix, mmap] with positions");
	ok(x->ntransfers == 2 && x->transfer_sizes[0] == 4 * MIB && x->transfer_sizes[1] == 1000000,
	   "full: transfer_size [4MiB, 1MB]");
	ok(x->norders == 3 && x->orders[0] == CFG_ORDER_SORTED &&
		   x->orders[1] == CFG_ORDER_REVERSE && x->orders[2] == CFG_ORDER_RANDOM,
	   "full: order [sorted, reverse, random]");
}

static void test_full(void)
{
	char yaml[2048], path[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	snprintf(yaml, sizeof yaml, full_yaml_fmt, test_dir);
	if (write_file("full.yaml", yaml, strlen(yaml), path, sizeof path) != 0)
		ok(0, "write full.yaml");
	int rc = cfg_load(path, NULL, &x, &e);
	ok(rc == 0 && e.status == PF_OK, "full: loads (%s)", e.msg);
	if (rc != 0)
		return;
	ok(strcmp(x.source, path) == 0, "full: source is the path as given");
	ok(x.yaml_len == strlen(yaml) && strcmp(x.yaml_text, yaml) == 0,
	   "full: yaml_text verbatim");
	ok(strcmp(x.name, "full-test") == 0, "full: name");
	ok(strcmp(x.root, test_dir) == 0 && pos_is(x.root_pos, 3, 7), "full: root at 3:7");
	ok(strcmp(x.results, "out/{name}-{jobid}-{time}.h5") == 0, "full: results");
	ok(x.files_per_dir == 50, "full: layout.files_per_dir");
	check_full_datasets(&x);
	check_full_sweep(&x);
	ok(x.repetitions == 3, "full: repetitions");
	ok(x.cache == CFG_CACHE_FADVISE && pos_is(x.cache_pos, 18, 8),
	   "full: cache fadvise at 18:8");
	ok(x.seed == 42, "full: seed");

	pf_err_clear(&e);
	ok(cfg_fail_at(&e, &x, x.readers_pos[2], "sweep.readers_per_node[2]",
		       "%d readers per node, but nodes have %d cores", 4, 2) == -1 &&
		   e.status == PF_USAGE,
	   "cfg_fail_at returns -1 with PF_USAGE");
	char want[512];
	snprintf(want, sizeof want,
		 "%s:13:28: key 'sweep.readers_per_node[2]': "
		 "4 readers per node, but nodes have 2 cores",
		 path);
	ok(strcmp(e.msg, want) == 0, "cfg_fail_at message: %s", e.msg);
	cfg_free(&x);
	ok(is_freed(&x), "cfg_free clears");
	cfg_free(&x);
	cfg_free(NULL);
	ok(1, "cfg_free twice and on NULL is harmless");
}

static void test_defaults(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES;
	char path[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (write_file("minimal.yaml", yaml, strlen(yaml), path, sizeof path) != 0)
		ok(0, "write minimal.yaml");
	int rc = cfg_load(path, NULL, &x, &e);
	ok(rc == 0, "minimal: loads with a missing root (%s)", e.msg);
	if (rc != 0)
		return;
	ok(strcmp(x.name, "minimal") == 0, "default name: base name without .yaml");
	ok(strcmp(x.results, "results/{name}-{jobid}-{time}.h5") == 0, "default results");
	ok(x.files_per_dir == 1000, "default files_per_dir 1000");
	ok(x.nreaders == 1 && x.readers_per_node[0] == 1, "default readers_per_node [1]");
	ok(x.nbackends == 1 && strcmp(x.backends[0], "posix") == 0, "default backend [posix]");
	ok(x.ntransfers == 1 && x.transfer_sizes[0] == 4 * MIB, "default transfer_size [4MiB]");
	ok(x.norders == 1 && x.orders[0] == CFG_ORDER_SORTED, "default order [sorted]");
	ok(x.repetitions == 1 && x.cache == CFG_CACHE_DROP && x.seed == 1,
	   "default repetitions 1, cache drop, seed 1");
	ok(x.ndatasets == 1 && x.datasets[0].nfiles == 4 && x.datasets[0].total_size == 4 * MIB,
	   "file_count gives total_size");
	ok(x.sequential_hint == 1 && x.noatime == 0, "default sequential_hint true, noatime false");
	ok(pos_is(x.readers_pos[0], 1, 1) && pos_is(x.cache_pos, 1, 1),
	   "defaults point at the top of the file");
	ok(cfg_given(&x, "root") && cfg_given(&x, "datasets") && !cfg_given(&x, "cache") &&
	   !cfg_given(&x, "repetitions") && !cfg_given(&x, "sweep.order") &&
	   !cfg_given(&x, "no_such_key"), "cfg_given: root and datasets given, the rest left out");
	cfg_free(&x);
}

/* cfg_given tells the keys a config gives from the defaults it leaves in force. */
static void test_given(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES "cache: none\nsweep: {order: [random]}\n";
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	int rc = cfg_parse("mem/given.yaml", yaml, strlen(yaml), NULL, &x, &e);
	ok(rc == 0, "given.yaml loads (%s)", e.msg);
	if (rc != 0)
		return;
	ok(cfg_given(&x, "cache") && cfg_given(&x, "sweep") && cfg_given(&x, "sweep.order"),
	   "cfg_given: cache, sweep and sweep.order given");
	ok(!cfg_given(&x, "sweep.backend") && !cfg_given(&x, "sweep.transfer_size") &&
	   !cfg_given(&x, "repetitions") && !cfg_given(&x, "sweep.dataset"),
	   "cfg_given: backend, transfer_size, repetitions left out; dataset is no sweep list");
	cfg_free(&x);
}

/* sequential_hint: a boolean, true unless turned off. */
static void test_sequential_hint(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES "sequential_hint: false\n";
	char path[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (write_file("nohint.yaml", yaml, strlen(yaml), path, sizeof path) != 0)
		ok(0, "write nohint.yaml");
	int rc = cfg_load(path, NULL, &x, &e);
	ok(rc == 0 && x.sequential_hint == 0, "sequential_hint: false turns the hint off (%s)",
	   e.msg);
	if (rc == 0)
		cfg_free(&x);
	expect_fail("sequential_hint: not a boolean", "badhint.yaml",
		    ROOT_LINE DS_LINES "sequential_hint: often\n", 4, 18, "sequential_hint", NULL);
}

static void test_scalar_lists(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES
		"sweep:\n"
		"  readers_per_node: 8   # one value for a list of one\n"
		"  backend: mmap\n"
		"  transfer_size: 1 MiB\n"
		"  order: random\n"
		"cache: none\n"
		"seed: 0\n";
	char path[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (write_file("lists.yml", yaml, strlen(yaml), path, sizeof path) != 0)
		ok(0, "write lists.yml");
	int rc = cfg_load(path, NULL, &x, &e);
	ok(rc == 0, "scalar lists: loads (%s)", e.msg);
	if (rc != 0)
		return;
	ok(strcmp(x.name, "lists") == 0, "default name: base name without .yml");
	ok(x.nreaders == 1 && x.readers_per_node[0] == 8 && pos_is(x.readers_pos[0], 5, 21),
	   "a scalar readers_per_node is a list of one");
	ok(x.nbackends == 1 && strcmp(x.backends[0], "mmap") == 0, "a scalar backend");
	ok(x.ntransfers == 1 && x.transfer_sizes[0] == MIB, "a scalar transfer_size");
	ok(x.norders == 1 && x.orders[0] == CFG_ORDER_RANDOM, "a scalar order");
	ok(x.cache == CFG_CACHE_NONE && x.seed == 0, "cache none, seed 0");
	cfg_free(&x);
}

/* cfg_parse must read exactly len bytes: the buffer here has no NUL after them. */
static void test_parse_memory(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES "repetitions: 2\n";
	size_t len = strlen(yaml);
	char *buf = malloc(len);
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (buf == NULL) {
		ok(0, "malloc");
		return;
	}
	memcpy(buf, yaml, len);
	int rc = cfg_parse("mem/exp.yaml", buf, len, NULL, &x, &e);
	ok(rc == 0 && x.repetitions == 2 && strcmp(x.name, "exp") == 0,
	   "cfg_parse on text without a NUL terminator (%s)", e.msg);
	ok(rc == 0 && x.yaml_len == len && x.yaml_text[len] == '\0' &&
		   memcmp(x.yaml_text, yaml, len) == 0,
	   "cfg_parse keeps a NUL-terminated copy");
	cfg_free(&x);

	/* Cut before "repetitions": the text after len must not be read. */
	pf_err_clear(&e);
	rc = cfg_parse("mem/exp.yaml", buf, len - strlen("repetitions: 2\n"), NULL, &x, &e);
	ok(rc == 0 && x.repetitions == 1, "cfg_parse stops at len");
	cfg_free(&x);

	pf_err_clear(&e);
	rc = cfg_parse("mem/cut.yaml", buf, strlen(ROOT_LINE), NULL, &x, &e);
	ok(rc == -1 && e.status == PF_USAGE &&
		   strcmp(e.msg, "mem/cut.yaml:1:1: key 'datasets': is required but missing") == 0,
	   "cfg_parse cut after root: %s", e.msg);
	ok(is_freed(&x), "failed cfg_parse leaves x freed");
	free(buf);
}

static void test_names(void)
{
	ok(strcmp(cfg_cache_name(CFG_CACHE_DROP), "drop") == 0 &&
		   strcmp(cfg_cache_name(CFG_CACHE_FADVISE), "fadvise") == 0 &&
		   strcmp(cfg_cache_name(CFG_CACHE_NONE), "none") == 0,
	   "cfg_cache_name");
	ok(strcmp(cfg_order_name(CFG_ORDER_SORTED), "sorted") == 0 &&
		   strcmp(cfg_order_name(CFG_ORDER_REVERSE), "reverse") == 0 &&
		   strcmp(cfg_order_name(CFG_ORDER_RANDOM), "random") == 0,
	   "cfg_order_name");
}

static void test_file_errors(void)
{
	char path[256], want[512];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	path_in_dir(path, sizeof path, "missing.yaml");
	int rc = cfg_load(path, NULL, &x, &e);
	snprintf(want, sizeof want, "%s: cannot read: No such file or directory", path);
	ok(rc == -1 && e.status == PF_USAGE && strcmp(e.msg, want) == 0 && is_freed(&x),
	   "missing file: %s", e.msg);

	pf_err_clear(&e);
	rc = cfg_load(test_dir, NULL, &x, &e);
	ok(rc == -1 && e.status == PF_USAGE && strstr(e.msg, ": cannot read: ") != NULL,
	   "a directory as config: %s", e.msg);

	expect_fail("empty file", "empty.yaml", "", 1, 1, NULL, "empty");
	expect_fail("only comments", "comments.yaml", "# nothing\n\n", 1, 1, NULL, "empty");
	expect_fail("top level a list", "list.yaml", "- a\n- b\n", 1, 1, NULL,
		    "top level must be a mapping of keys, found a list");
	expect_fail("top level a scalar", "scalar.yaml", "hello\n", 1, 1, NULL,
		    "top level must be a mapping");
	expect_fail("YAML syntax error", "syntax.yaml", "root: x\nname: a: b\n", 2, 8, NULL,
		    "YAML syntax error: mapping values are not allowed");
	expect_fail("YAML syntax error: unclosed flow list", "flow.yaml",
		    ROOT_LINE "datasets: [{name: a\n", 3, 0, NULL, "YAML syntax error");
	expect_fail("invalid UTF-8", "utf8.yaml", "root: x\nname: \xff\n", 2, 7, NULL,
		    "YAML syntax error");
	expect_fail("second document", "twodocs.yaml", ROOT_LINE DS_LINES "---\nseed: 3\n", 5, 1,
		    NULL, "second YAML document");
	expect_fail("missing root", "noroot.yaml", DS_LINES, 1, 1, "root", "required");
	expect_fail("missing datasets", "nodatasets.yaml", ROOT_LINE, 1, 1, "datasets",
		    "required");
}

static void test_key_errors(void)
{
	expect_fail("unknown top-level key", "unknown.yaml", ROOT_LINE DS_LINES "colour: blue\n", 4,
		    1, "colour",
		    "unknown key (allowed: name, root, results, layout, datasets, sweep, "
		    "repetitions, cache, shift_fallback, seed, ");
	expect_fail("unknown data set key", "unknownds.yaml",
		    ROOT_LINE "datasets:\n  - name: a\n    file_size: 1MiB\n    filecount: 4\n",
		    5, 5, "datasets[0].filecount",
		    "allowed: name, file_size, total_size, file_count");
	expect_fail("unknown layout key", "unknownlayout.yaml",
		    ROOT_LINE DS_LINES "layout:\n  files_per_directory: 10\n", 5, 3,
		    "layout.files_per_directory", "allowed: files_per_dir");
	expect_fail("unknown sweep key", "unknownsweep.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  readers: [1]\n", 5, 3, "sweep.readers",
		    "allowed: readers_per_node, backend, transfer_size, order");
	expect_fail("duplicate top-level key", "dupkey.yaml",
		    ROOT_LINE DS_LINES "root: /other\n", 4, 1, "root",
		    "duplicate key (first given at line 1)");
	expect_fail("duplicate data set key", "dupdskey.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, name: b, file_size: 1MiB, file_count: 1}\n",
		    3, 15, "datasets[0].name", "duplicate key");
	expect_fail("a list as a key", "listkey.yaml", ROOT_LINE DS_LINES "? [a]\n: 1\n", 4, 0,
		    NULL, "a key must be a name");
}

static void test_type_errors(void)
{
	expect_fail("mapping for repetitions", "type1.yaml",
		    ROOT_LINE DS_LINES "repetitions: {a: 1}\n", 4, 14, "repetitions",
		    "expected a single value, found a mapping");
	expect_fail("word for repetitions", "type2.yaml", ROOT_LINE DS_LINES "repetitions: two\n",
		    4, 14, "repetitions", "expected an integer from 1 to 100000, got 'two'");
	expect_fail("zero repetitions", "type3.yaml", ROOT_LINE DS_LINES "repetitions: 0\n", 4, 14,
		    "repetitions", "got '0'");
	expect_fail("mapping for datasets", "type4.yaml", ROOT_LINE "datasets: {name: a}\n", 2, 11,
		    "datasets", "expected a list, found a mapping");
	expect_fail("scalar for layout", "type5.yaml", ROOT_LINE DS_LINES "layout: 5\n", 4, 9,
		    "layout", "expected a mapping, found a single value");
	expect_fail("list inside a sweep list", "type6.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  readers_per_node: [1, [2]]\n", 5, 25,
		    "sweep.readers_per_node[1]", "expected a single value, found a list");
	expect_fail("list as a data set", "type7.yaml", ROOT_LINE "datasets:\n  - [a]\n", 3, 5,
		    "datasets[0]", "expected a mapping, found a list");
	expect_fail("negative seed", "type8.yaml", ROOT_LINE DS_LINES "seed: -1\n", 4, 7, "seed",
		    "expected an integer >= 0, got '-1'");
	expect_fail("fraction for file_count", "type9.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 1MiB, file_count: 2.5}\n", 3, 0,
		    "datasets[0].file_count", "expected an integer from 1 to 1000000000");
	expect_fail("zero readers_per_node", "type10.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  readers_per_node: 0\n", 5, 21,
		    "sweep.readers_per_node", "expected an integer from 1 to");
	expect_fail("files_per_dir with a unit", "type11.yaml",
		    ROOT_LINE DS_LINES "layout: {files_per_dir: 1K}\n", 4, 0,
		    "layout.files_per_dir", "got '1K'");
	expect_fail("null name", "type12.yaml", "name: ~\n" ROOT_LINE DS_LINES, 1, 7, "name",
		    "has no value");
	expect_fail_len("NUL inside a value", "type13.yaml", "name: \"a\\0b\"\n" ROOT_LINE DS_LINES,
			strlen("name: \"a\\0b\"\n" ROOT_LINE DS_LINES), 1, 7, "name",
			"NUL character");
}

static void test_size_errors(void)
{
	expect_fail("bad unit", "size1.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 64XB, file_count: 1}\n", 3, 26,
		    "datasets[0].file_size", "invalid size '64XB': unknown unit (use B, KB");
	expect_fail("zero total_size", "size2.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 1MiB, total_size: 0}\n", 3, 0,
		    "datasets[0].total_size", "must be greater than zero");
	expect_fail("zero file_size", "size3.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 0B, file_count: 3}\n", 3, 26,
		    "datasets[0].file_size", "must be greater than zero");
	expect_fail("zero file_count", "size4.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 1MiB, file_count: 0}\n", 3, 0,
		    "datasets[0].file_count", "expected an integer from 1 to 1000000000, got '0'");
	expect_fail("negative size", "size5.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: -1MB, file_count: 3}\n", 3, 26,
		    "datasets[0].file_size", "invalid size '-1MB': negative size");
	expect_fail("fraction of a byte", "size6.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 1.5B, file_count: 3}\n", 3, 26,
		    "datasets[0].file_size", "not a whole number of bytes");
	expect_fail("file_size > total_size", "size7.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 2GB, total_size: 1GB}\n", 3, 26,
		    "datasets[0].file_size", "file_size 2GB is larger than total_size 1GB");
	expect_fail("both total_size and file_count", "size8.yaml",
		    ROOT_LINE "datasets:\n  - name: a\n    file_size: 1MiB\n    total_size: 1GiB\n"
			      "    file_count: 3\n",
		    6, 5, "datasets[0].file_count", "not both");
	expect_fail("neither total_size nor file_count", "size9.yaml",
		    ROOT_LINE "datasets:\n  - name: a\n    file_size: 1MiB\n", 3, 5, "datasets[0]",
		    "needs total_size or file_count");
	expect_fail("missing file_size", "size10.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_count: 3}\n", 3, 5,
		    "datasets[0].file_size", "required");
	expect_fail("file_count x file_size overflows", "size11.yaml",
		    ROOT_LINE "datasets:\n  - {name: a, file_size: 1PiB, file_count: 100000}\n",
		    3, 0, "datasets[0].file_count", "is more than 1 EiB");
	expect_fail("zero transfer_size", "size12.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  transfer_size: [4MiB, 0]\n", 5, 25,
		    "sweep.transfer_size[1]", "must be greater than zero");
}

static void test_value_errors(void)
{
	expect_fail("bad order", "val1.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  order: [sorted, shuffled]\n", 5, 19,
		    "sweep.order[1]", "unknown value 'shuffled' (use sorted, reverse, random)");
	expect_fail("bad cache", "val2.yaml", ROOT_LINE DS_LINES "cache: purge\n", 4, 8, "cache",
		    "unknown value 'purge' (use none, drop, fadvise, shift, direct)");
	expect_fail("bad shift_fallback", "val2b.yaml",
		    ROOT_LINE DS_LINES "cache: shift\nshift_fallback: shift\n", 5, 17,
		    "shift_fallback", "unknown value 'shift' (use none, fadvise, drop)");
	expect_fail("bad startup_timeout", "val2c.yaml", ROOT_LINE DS_LINES "startup_timeout: 5 parsecs\n",
		    4, 18, "startup_timeout", NULL);
	expect_fail("empty root", "val3.yaml", "root: \"\"\n" DS_LINES, 1, 7, "root",
		    "must not be empty");
	expect_fail("data set name ../x", "val4.yaml",
		    ROOT_LINE "datasets:\n  - {name: ../x, file_size: 1MiB, file_count: 1}\n",
		    3, 12, "datasets[0].name", "invalid name '../x'");
	expect_fail("data set name a/b", "val5.yaml",
		    ROOT_LINE "datasets:\n  - {name: a/b, file_size: 1MiB, file_count: 1}\n", 3, 12,
		    "datasets[0].name", "invalid name 'a/b'");
	expect_fail("data set name ..", "val6.yaml",
		    ROOT_LINE "datasets:\n  - {name: .., file_size: 1MiB, file_count: 1}\n", 3, 12,
		    "datasets[0].name", "invalid name '..'");
	expect_fail("duplicate data set names", "val7.yaml",
		    ROOT_LINE DS_LINES "  - {name: a, file_size: 2MiB, file_count: 1}\n", 4, 12,
		    "datasets[1].name", "duplicate data set name 'a'");
	expect_fail("empty datasets", "val8.yaml", ROOT_LINE "datasets: []\n", 2, 11, "datasets",
		    "at least one");
	expect_fail("experiment name with a space", "val9.yaml",
		    "name: my run\n" ROOT_LINE DS_LINES, 1, 7, "name", "invalid name 'my run'");
	expect_fail("bad placeholder", "val10.yaml",
		    ROOT_LINE DS_LINES "results: out/{name}-{user}.h5\n", 4, 10, "results",
		    "unknown placeholder '{user}'");
	expect_fail("unclosed placeholder", "val11.yaml", ROOT_LINE DS_LINES "results: out/{name\n",
		    4, 10, "results", "'{' without '}'");
}

static void test_list_errors(void)
{
	char yaml[1024];
	size_t n = (size_t)snprintf(yaml, sizeof yaml, "%s", ROOT_LINE DS_LINES "sweep:\n"
							     "  readers_per_node: [");
	for (int i = 1; i <= CFG_LIST_MAX + 1; i++)
		n += (size_t)snprintf(yaml + n, sizeof yaml - n, "%s%d", i > 1 ? ", " : "", i);
	snprintf(yaml + n, sizeof yaml - n, "]\n");
	expect_fail("sweep list too long", "list1.yaml", yaml, 5, 21, "sweep.readers_per_node",
		    "has 33 entries, at most 32 allowed");
	expect_fail("duplicate readers_per_node", "list2.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  readers_per_node: [1, 2, 1]\n", 5, 28,
		    "sweep.readers_per_node[2]", "duplicate entry '1'");
	expect_fail("duplicate transfer_size in other units", "list3.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  transfer_size: [4MiB, 4194304]\n", 5, 25,
		    "sweep.transfer_size[1]", "duplicate entry '4194304'");
	expect_fail("duplicate backend", "list4.yaml",
		    ROOT_LINE DS_LINES "sweep:\n  backend: [posix, posix]\n", 5, 20,
		    "sweep.backend[1]", "duplicate entry 'posix'");
	expect_fail("empty sweep list", "list5.yaml", ROOT_LINE DS_LINES "sweep:\n  backend: []\n",
		    5, 12, "sweep.backend", "must not be empty");
}

static void test_root_file(void)
{
	char file[256], yaml[512], path[256];
	path_in_dir(file, sizeof file, "plain.txt");
	if (write_file("plain.txt", "x", 1, path, sizeof path) != 0)
		ok(0, "write plain.txt");
	snprintf(yaml, sizeof yaml, "root: %s\n" DS_LINES, file);
	expect_fail("root is a regular file", "rootfile.yaml", yaml, 1, 7, "root",
		    "exists but is not a directory");
	snprintf(yaml, sizeof yaml, "root: %s/sub\n" DS_LINES, file);
	expect_fail("root below a regular file", "rootsub.yaml", yaml, 1, 7, "root",
		    "Not a directory");
}

/* Remove what the tests wrote: every file is a direct child of test_dir. */
/* process: {digest, cpu_ns_per_byte}: defaults, values, and errors naming file:line:key. */
static void test_process(void)
{
	static const char yaml[] = ROOT_LINE DS_LINES "process: {digest: sha1, cpu_ns_per_byte: 200}\n";
	struct experiment x;
	struct pf_err e;
	char text[64];
	pf_err_clear(&e);
	int rc = cfg_parse("mem/process.yaml", yaml, strlen(yaml), NULL, &x, &e);
	cfg_process_describe(&x, text, sizeof text);
	ok(rc == 0 && x.process_digest == DIGEST_SHA1 && x.process_cpu_ns_per_byte == 200 &&
		   cfg_processes(&x) && strcmp(text, "sha1+200ns/B") == 0,
	   "process: sha1 and 200 ns/B read (%s) %s", text, e.msg);
	cfg_free(&x);
	rc = cfg_parse("mem/plain.yaml", ROOT_LINE DS_LINES, strlen(ROOT_LINE DS_LINES), NULL, &x, &e);
	cfg_process_describe(&x, text, sizeof text);
	ok(rc == 0 && x.process_digest == DIGEST_NONE && x.process_cpu_ns_per_byte == 0 &&
		   !cfg_processes(&x) && strcmp(text, "none") == 0,
	   "process defaults: no digest, 0 ns/B (%s)", text);
	cfg_free(&x);
	static const char zero[] = ROOT_LINE DS_LINES "process: {digest: xxh64, cpu_ns_per_byte: 0}\n";
	rc = cfg_parse("mem/zero.yaml", zero, strlen(zero), NULL, &x, &e);
	cfg_process_describe(&x, text, sizeof text);
	ok(rc == 0 && strcmp(text, "xxh64") == 0, "cpu_ns_per_byte: 0 is allowed (%s)", text);
	cfg_free(&x);
	expect_fail("unknown digest", "digest.yaml", ROOT_LINE DS_LINES "process: {digest: md5}\n",
		    4, 19, "process.digest", "unknown value 'md5' (use none, xxh64, sha1)");
	expect_fail("unknown process key", "prockey.yaml",
		    ROOT_LINE DS_LINES "process:\n  digests: sha1\n", 5, 3, "process.digests",
		    "allowed: digest, cpu_ns_per_byte");
	expect_fail("negative ns per byte", "procneg.yaml",
		    ROOT_LINE DS_LINES "process: {cpu_ns_per_byte: -5}\n", 4, 28,
		    "process.cpu_ns_per_byte", NULL);
	expect_fail("ns per byte with a unit", "procunit.yaml",
		    ROOT_LINE DS_LINES "process: {cpu_ns_per_byte: 5ns}\n", 4, 28,
		    "process.cpu_ns_per_byte", NULL);
	expect_fail("process not a mapping", "procscalar.yaml",
		    ROOT_LINE DS_LINES "process: sha1\n", 4, 10, "process", NULL);
}

/* An integer key: a whole config with %s where its value goes, and its range. */
struct int_key {
	const char *key; /* as messages name it */
	const char *yaml;
	uint64_t min, max;
};

#define ONE_DS(extra) "datasets:\n  - {name: a, file_size: 1KiB, file_count: 4" extra "}\n"

static const struct int_key int_keys[] = {
	{"repetitions", ROOT_LINE DS_LINES "repetitions: %s\n", 1, 100000},
	{"seed", ROOT_LINE DS_LINES "seed: %s\n", 0, UINT64_MAX},
	{"layout.files_per_dir", ROOT_LINE DS_LINES "layout: {files_per_dir: %s}\n", 1, 10000000},
	{"datasets[0].file_count",
	 ROOT_LINE "datasets:\n  - {name: a, file_size: 1KiB, file_count: %s}\n", 1, 1000000000},
	{"datasets[0].layout.files_per_dir",
	 ROOT_LINE ONE_DS(", layout: {kind: indexed, files_per_dir: %s}"), 1, 10000000},
	{"datasets[0].layout.depth", ROOT_LINE ONE_DS(", layout: {kind: hashed, depth: %s}"), 0, 8},
	{"datasets[0].layout.width", ROOT_LINE ONE_DS(", layout: {kind: hashed, width: %s}"), 1, 4},
	{"hardware.storage_servers", ROOT_LINE DS_LINES "hardware: {storage_servers: %s}\n", 1,
	 1000000},
	{"hardware.racks", ROOT_LINE DS_LINES "hardware: {racks: %s}\n", 1, 1000000},
	{"process.cpu_ns_per_byte", ROOT_LINE DS_LINES "process: {cpu_ns_per_byte: %s}\n", 0,
	 1000000000},
	{"sweep.readers_per_node", ROOT_LINE DS_LINES "sweep:\n  readers_per_node: %s\n", 1, 65536},
};

/* Load k's config with value; 0 when it loaded. x is freed; e keeps the message. */
static int int_key_load(const struct int_key *k, const char *value, struct experiment *x,
			struct pf_err *e)
{
	char yaml[512];
	snprintf(yaml, sizeof yaml, k->yaml, value);
	pf_err_clear(e);
	return cfg_parse("mem/int.yaml", yaml, strlen(yaml), NULL, x, e);
}

/* value is refused, the message naming k and its range. */
static void int_key_refused(const struct int_key *k, const char *value)
{
	char want[160];
	struct experiment x;
	struct pf_err e;
	if (k->max == UINT64_MAX)
		snprintf(want, sizeof want, "key '%s': expected an integer >= %" PRIu64 ", got '%s'",
			 k->key, k->min, value);
	else
		snprintf(want, sizeof want, "key '%s': expected an integer from %" PRIu64 " to %" PRIu64
			 ", got '%s'", k->key, k->min, k->max, value);
	int rc = int_key_load(k, value, &x, &e);
	ok(rc != 0 && e.status == PF_USAGE && strstr(e.msg, want) != NULL, "%s: %s refused (%s)",
	   k->key, value, e.msg);
	if (rc == 0)
		cfg_free(&x);
}

/* Every integer key reads its own range: one past either end is refused with the range in the
 * message; the ends themselves are not refused for their range (another check may refuse
 * them), and an int or a uint64_t holds what was written. */
static void test_integer_ranges(void)
{
	char v[32];
	struct experiment x;
	struct pf_err e;
	for (size_t i = 0; i < sizeof int_keys / sizeof int_keys[0]; i++) {
		const struct int_key *k = &int_keys[i];
		snprintf(v, sizeof v, "%" PRIu64, k->min - 1);
		int_key_refused(k, k->min > 0 ? v : "-1");
		snprintf(v, sizeof v, "%" PRIu64, k->max + 1);
		int_key_refused(k, k->max < UINT64_MAX ? v : "18446744073709551616");
		for (int end = 0; end < 2; end++) {
			snprintf(v, sizeof v, "%" PRIu64, end ? k->max : k->min);
			int rc = int_key_load(k, v, &x, &e);
			ok(rc == 0 || strstr(e.msg, "expected an integer") == NULL,
			   "%s: %s is in its range (%s)", k->key, v, rc == 0 ? "loaded" : e.msg);
			if (rc == 0)
				cfg_free(&x);
		}
	}
	int rc = int_key_load(&int_keys[0], "100000", &x, &e);
	ok(rc == 0 && x.repetitions == 100000, "repetitions: 100000 in its int (%s)", e.msg);
	if (rc == 0)
		cfg_free(&x);
	rc = int_key_load(&int_keys[1], "18446744073709551615", &x, &e);
	ok(rc == 0 && x.seed == UINT64_MAX, "seed: 2^64 - 1 in its uint64_t (%s)", e.msg);
	if (rc == 0)
		cfg_free(&x);
	rc = int_key_load(&int_keys[10], "[1, 65536]", &x, &e);
	ok(rc == 0 && x.nreaders == 2 && x.readers_per_node[0] == 1 &&
		   x.readers_per_node[1] == 65536,
	   "readers_per_node: [1, 65536] in its ints (%s)", e.msg);
	if (rc == 0)
		cfg_free(&x);
}

static void cleanup(void)
{
	char path[512];
	DIR *d = opendir(test_dir);
	struct dirent *ent;
	if (d == NULL)
		return;
	while ((ent = readdir(d)) != NULL) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		path_in_dir(path, sizeof path, ent->d_name);
		if (unlink(path) != 0)
			diag("cannot remove %s", path);
	}
	if (closedir(d) != 0 || rmdir(test_dir) != 0)
		diag("cannot remove %s", test_dir);
}

/* Per data set layouts: defaults from the top level, each kind, and errors at file:line:key. */
static void test_layouts(void)
{
	static const char yaml[] =
		ROOT_LINE
		"datasets:\n"
		"  - {name: a, file_size: 1KiB, file_count: 4}\n"
		"  - {name: b, file_size: 1KiB, file_count: 4, layout: {kind: indexed, files_per_dir: 3}}\n"
		"  - {name: c, file_size: 1KiB, file_count: 4, layout: {kind: flat}}\n"
		"  - {name: d, file_size: 1KiB, file_count: 4, layout: {kind: hashed, depth: 2, width: 4, digest: xxh64}}\n"
		"  - {name: e, file_size: 1KiB, file_count: 4, layout: hashed}\n"
		"  - {name: f, file_size: 1KiB, file_count: 4, layout: {kind: indexed}}\n"
		"layout: {files_per_dir: 7}\n";
	char path[256];
	struct experiment x;
	struct pf_err e;
	pf_err_clear(&e);
	if (write_file("layouts.yaml", yaml, strlen(yaml), path, sizeof path) != 0 ||
	    cfg_load(path, NULL, &x, &e) != 0) {
		ok(0, "layouts: load failed: %s", e.msg);
		return;
	}
	const struct cfg_dataset *d = x.datasets;
	ok(d[0].layout.kind == CFG_LAYOUT_INDEXED && d[0].layout.files_per_dir == 7,
	   "no layout: indexed with the top-level files_per_dir (given after the data sets)");
	ok(d[1].layout.kind == CFG_LAYOUT_INDEXED && d[1].layout.files_per_dir == 3,
	   "indexed with its own files_per_dir");
	ok(d[2].layout.kind == CFG_LAYOUT_FLAT && d[2].layout.files_per_dir == 0, "flat");
	ok(d[3].layout.kind == CFG_LAYOUT_HASHED && d[3].layout.depth == 2 &&
		   d[3].layout.width == 4 && d[3].layout.digest == DIGEST_XXH64,
	   "hashed depth 2 width 4 xxh64");
	ok(d[4].layout.kind == CFG_LAYOUT_HASHED && d[4].layout.depth == 3 &&
		   d[4].layout.width == 2 && d[4].layout.digest == DIGEST_SHA1,
	   "layout: hashed: depth 3, width 2, sha1 by default");
	ok(d[5].layout.files_per_dir == 7, "kind indexed without files_per_dir: the top level's");
	ok(strcmp(cfg_layout_name(CFG_LAYOUT_HASHED), "hashed") == 0, "cfg_layout_name");
	cfg_free(&x);

#define LY(rest) ROOT_LINE "datasets:\n  - {name: a, file_size: 1MiB, file_count: 4,\n     layout: " rest "}\n"
	expect_fail("depth above 8", "ly1.yaml", LY("{kind: hashed, depth: 9}"), 4, 0,
		    "datasets[0].layout.depth", "from 0 to 8");
	expect_fail("width 0", "ly2.yaml", LY("{kind: hashed, width: 0}"), 4, 0,
		    "datasets[0].layout.width", "from 1 to 4");
	expect_fail("width 5", "ly3.yaml", LY("{kind: hashed, width: 5}"), 4, 0,
		    "datasets[0].layout.width", "from 1 to 4");
	expect_fail("an unknown kind", "ly4.yaml", LY("{kind: tree}"), 4, 0,
		    "datasets[0].layout.kind", "use indexed, flat, hashed");
	expect_fail("digest none", "ly5.yaml", LY("{kind: hashed, digest: none}"), 4, 0,
		    "datasets[0].layout.digest", "use xxh64, sha1");
	expect_fail("depth with flat", "ly6.yaml", LY("{kind: flat, depth: 2}"), 4, 0,
		    "datasets[0].layout.depth", "only with hashed");
	expect_fail("files_per_dir with hashed", "ly7.yaml", LY("{kind: hashed, files_per_dir: 2}"), 4,
		    0, "datasets[0].layout.files_per_dir", "only with indexed");
	expect_fail("an unknown layout key", "ly8.yaml", LY("{kind: hashed, levels: 2}"), 4, 0,
		    "datasets[0].layout.levels", "allowed: kind");
	expect_fail("a scalar that is no kind", "ly9.yaml", LY("deep"), 4, 0, "datasets[0].layout",
		    "unknown value 'deep'");
	expect_fail("more levels than the digest has digits", "ly10.yaml",
		    LY("{kind: hashed, depth: 5, width: 4, digest: xxh64}"), 4, 0,
		    "datasets[0].layout.depth", "is 20 hex digits, more than a xxh64 name has (16)");
#undef LY
}

/* ---- blocks: keys another module owns, handed to the loader ---- */

struct widget {
	int on;
	int spokes;
	uint64_t pool;
};

static const struct widget widget_defaults = {1, 8, 1 << 20};
static const struct cfg_opt widget_opts[] = {
	{"on", CFG_OPT_BOOL, offsetof(struct widget, on), 0, 0, NULL},
	{"spokes", CFG_OPT_INT, offsetof(struct widget, spokes), 2, 64, NULL},
	{"pool", CFG_OPT_SIZE, offsetof(struct widget, pool), 1, 1 << 30, "widget pool"},
};
static const struct cfg_block widget_block = {"widget", widget_opts, 3, NULL,
					      sizeof(struct widget), &widget_defaults,
					      "a widget has no wheels"};
static const struct cfg_pairs no_labels;
static const struct cfg_block labels_block = {"labels", NULL, 0, "label",
					      sizeof(struct cfg_pairs), &no_labels, NULL};
static const struct cfg_block *const owned_blocks[] = {&widget_block, &labels_block, NULL};

/* The message of loading yaml with the test's blocks, or "" when it loads (into *w, *l). */
static const char *block_load(const char *yaml, struct widget *w, struct cfg_pairs *l,
			      struct pf_err *e)
{
	struct experiment x;
	pf_err_clear(e);
	if (cfg_parse("mem/b.yaml", yaml, strlen(yaml), owned_blocks, &x, e) != 0)
		return e->msg;
	*w = *(const struct widget *)cfg_block_values(&x, &widget_block);
	*l = *(const struct cfg_pairs *)cfg_block_values(&x, &labels_block);
	cfg_free(&x);
	return "";
}

static void test_blocks(void)
{
	struct widget w;
	struct cfg_pairs l;
	struct pf_err e;
	struct experiment x;
	const char *msg = block_load(ROOT_LINE DS_LINES, &w, &l, &e);
	ok(msg[0] == '\0' && w.on == 1 && w.spokes == 8 && w.pool == 1 << 20 && l.n == 0,
	   "a block not written keeps its owner's defaults %s", msg);
	msg = block_load(ROOT_LINE DS_LINES "widget: {on: false, spokes: 12, pool: 4KiB}\n"
			 "labels: {colour: red, size: \"5\"}\n", &w, &l, &e);
	ok(msg[0] == '\0' && w.on == 0 && w.spokes == 12 && w.pool == 4096 && l.n == 2 &&
		   strcmp(l.pair[1].key, "size") == 0 && strcmp(l.pair[1].value, "5") == 0,
	   "a block's keys read by its table, pairs as written %s", msg);
	msg = block_load(ROOT_LINE DS_LINES "widget: {spokes: 65}\n", &w, &l, &e);
	ok(strstr(msg, "mem/b.yaml:4:18: key 'widget.spokes': expected an integer from 2 to 64") ==
		   msg, "a block's key out of its range is named: %s", msg);
	msg = block_load(ROOT_LINE DS_LINES "widget: {pool: 2GiB}\n", &w, &l, &e);
	ok(strstr(msg, "more than 1 GiB, the largest widget pool") != NULL, "a size above its max: %s",
	   msg);
	msg = block_load(ROOT_LINE DS_LINES "widget: {wheels: 2}\n", &w, &l, &e);
	ok(strstr(msg, "key 'widget.wheels': unknown key (allowed: on, spokes, pool): a widget has "
		       "no wheels") != NULL,
	   "an unknown key of a block lists the block's keys, and its note: %s", msg);
	msg = block_load(ROOT_LINE DS_LINES "labels: {a: 1, a: 2}\n", &w, &l, &e);
	ok(strstr(msg, "key 'labels.a': duplicate key") != NULL, "a pair given twice: %s", msg);
	msg = block_load(ROOT_LINE DS_LINES "labels: {[a]: 1}\n", &w, &l, &e);
	ok(strstr(msg, "a label name must be a scalar") != NULL, "a pair's name not a scalar: %s",
	   msg);
	pf_err_clear(&e);
	ok(cfg_parse("mem/b.yaml", ROOT_LINE DS_LINES "widget: {on: true}\n",
		     strlen(ROOT_LINE DS_LINES "widget: {on: true}\n"), NULL, &x, &e) != 0 &&
		   strstr(e.msg, "key 'widget': unknown key") != NULL,
	   "a block the loader was not handed is an unknown key: %s", e.msg);
	memset(&x, 0, sizeof x);
	ok(cfg_block_values(&x, &widget_block) == &widget_defaults &&
		   cfg_block_values(NULL, &labels_block) == &no_labels,
	   "cfg_block_values: the defaults of a block the experiment does not hold");
	static const struct cfg_block root_block = {"root", NULL, 0, "x", sizeof(struct cfg_pairs),
						    &no_labels, NULL};
	static const struct cfg_block *const clash[] = {&root_block, NULL};
	pf_err_clear(&e);
	ok(cfg_parse("mem/b.yaml", ROOT_LINE DS_LINES, strlen(ROOT_LINE DS_LINES), clash, &x, &e) !=
			   0 && e.status == PF_RUNTIME && strstr(e.msg, "'root' is claimed twice"),
	   "a block whose key is the config's own is refused: %s", e.msg);
}

int main(void)
{
	snprintf(test_dir, sizeof test_dir, "/tmp/pfsread-test-config-XXXXXX");
	if (mkdtemp(test_dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_full();
	test_defaults();
	test_given();
	test_scalar_lists();
	test_sequential_hint();
	test_parse_memory();
	test_names();
	test_file_errors();
	test_key_errors();
	test_type_errors();
	test_size_errors();
	test_value_errors();
	test_list_errors();
	test_root_file();
	test_process();
	test_layouts();
	test_integer_ranges();
	test_blocks();
	cleanup();
	return tap_done();
}
