/* test_tree: from_tree data sets. A small tree built in a temporary directory is described
 * (counts, sizes, depth, links and special files skipped, sorted paths); the description reads
 * back the same; the twin has the same sizes multiset, the same directories per level and
 * files per directory, and the same depth; the config keys of from_tree refuse what makes no
 * sense with file:line:key. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "dataset/fromtree.h"
#include "config/sizes.h"
#include "dataset/tree.h"
#include "dataset/tree_build.h"
#include "tap.h"

static char top[64];

static int make_file(const char *rel, size_t size)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", top, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	int rc = ftruncate(fd, (off_t)size);
	return close(fd) == 0 ? rc : -1;
}

static int make_dir(const char *rel)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", top, rel);
	return mkdir(path, 0755);
}

/* top/: a 3 levels deep tree of 7 files (one empty, one named with a newline), 2 empty
 * directories, a symbolic link to a file, one to a directory, and a fifo. */
static int build_tree(void)
{
	char path[256], target[256];
	snprintf(top, sizeof top, "/tmp/pfsread-tree-XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	int rc = make_dir("src") | make_dir("src/lib") | make_dir("src/lib/deep") |
		 make_dir("docs") | make_dir("empty") | make_dir("docs/none");
	rc |= make_file("README", 100) | make_file("src/main.c", 4096) |
	      make_file("src/lib/a.c", 10) | make_file("src/lib/b.c", 10) |
	      make_file("src/lib/deep/x.h", 70000) | make_file("docs/__init__.py", 0) |
	      make_file("docs/new\nline", 3);
	snprintf(path, sizeof path, "%s/link", top);
	snprintf(target, sizeof target, "%s/src/main.c", top);
	rc |= symlink(target, path);
	snprintf(path, sizeof path, "%s/src/dirlink", top);
	rc |= symlink("lib", path);
	snprintf(path, sizeof path, "%s/fifo", top);
	rc |= mkfifo(path, 0644);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_scan(struct tree_desc *t)
{
	char why[512] = "";
	int rc = tree_scan(top, 1, t, why, sizeof why);
	ok(rc == 0, "scan the tree");
	if (rc != 0) {
		diag("%s", why);
		return;
	}
	ok(t->nfiles == 7, "7 regular files (%llu)", (unsigned long long)t->nfiles);
	ok(t->total == 100 + 4096 + 10 + 10 + 70000 + 0 + 3, "total bytes %llu",
	   (unsigned long long)t->total);
	ok(t->ndirs == 6, "6 directories, empty ones too (%llu)", (unsigned long long)t->ndirs);
	ok(t->depth == 3, "depth 3 (%llu)", (unsigned long long)t->depth);
	ok(t->symlinks == 2 && t->specials == 1, "2 links and 1 fifo skipped (%llu, %llu)",
	   (unsigned long long)t->symlinks, (unsigned long long)t->specials);
	ok(strcmp(tree_file_path(t, 0, 1), "README") == 0 &&
		   strcmp(tree_file_path(t, 1, 1), "docs/__init__.py") == 0 &&
		   strcmp(tree_file_path(t, 2, 1), "docs/new\nline") == 0 &&
		   strcmp(tree_file_path(t, 6, 1), "src/main.c") == 0,
	   "files in sorted path order");
	ok(t->size[0] == 100 && t->size[4] == 10 && t->size[5] == 70000 && t->size[6] == 4096,
	   "each size beside its path");
	ok(t->median == 10, "median by size (%llu)", (unsigned long long)t->median);
	for (uint64_t i = 1; i < t->nfiles; i++)
		if (strcmp(tree_file_path(t, i - 1, 1), tree_file_path(t, i, 1)) >= 0)
			ok(0, "file %llu out of order", (unsigned long long)i);
}

/* Levels (0: the top) and files per directory of a list of relative paths. */
static uint64_t levels(const char *rel)
{
	uint64_t n = 0;
	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

static void test_twin(const struct tree_desc *t)
{
	uint64_t src_dirs[8] = {0}, twin_dirs[8] = {0}, a[16], b[16];
	int same_files_per_dir = 1;
	for (uint64_t k = 0; k < t->ndirs; k++) {
		src_dirs[levels(tree_dir_path(t, k, 0))]++;
		twin_dirs[levels(tree_dir_path(t, k, 1))]++;
	}
	ok(memcmp(src_dirs, twin_dirs, sizeof src_dirs) == 0,
	   "the twin has as many directories on every level as the source");
	for (uint64_t i = 0; i < t->nfiles; i++) {
		a[i] = levels(tree_file_path(t, i, 1));
		b[i] = levels(tree_file_path(t, i, 0));
		/* the same directory: the twin directory of the source's directory */
		const char *s = tree_file_path(t, i, 1), *w = tree_file_path(t, i, 0);
		const char *ss = strrchr(s, '/'), *ws = strrchr(w, '/');
		if ((ss == NULL) != (ws == NULL))
			same_files_per_dir = 0;
		for (uint64_t k = 0; ss != NULL && ws != NULL && k < t->ndirs; k++)
			if (strncmp(tree_dir_path(t, k, 0), s, (size_t)(ss - s)) == 0 &&
			    tree_dir_path(t, k, 0)[ss - s] == '\0')
				same_files_per_dir &= strncmp(tree_dir_path(t, k, 1), w,
							      (size_t)(ws - w)) == 0;
	}
	ok(memcmp(a, b, t->nfiles * sizeof *a) == 0, "every twin file as deep as its source");
	ok(same_files_per_dir, "every twin file in the twin of its source's directory");
	ok(strcmp(tree_file_path(t, 5, 0), "d000003/d000004/d000005/f0000000005") == 0,
	   "twin names: dNNNNNN per directory, fNNNNNNNNNN per file (%s)",
	   tree_file_path(t, 5, 0));
}

static void test_parse(const struct tree_desc *t)
{
	struct tree_desc back;
	char why[256] = "";
	int rc = tree_parse(t->text, t->text_len, &back, why, sizeof why);
	ok(rc == 0, "the description reads back (%s)", why);
	if (rc != 0)
		return;
	int same = back.nfiles == t->nfiles && back.ndirs == t->ndirs && back.depth == t->depth &&
		   back.total == t->total && back.hash == t->hash &&
		   strcmp(back.source, t->source) == 0;
	for (uint64_t i = 0; same && i < t->nfiles; i++)
		same = back.size[i] == t->size[i] &&
		       strcmp(tree_file_path(&back, i, 1), tree_file_path(t, i, 1)) == 0 &&
		       strcmp(tree_file_path(&back, i, 0), tree_file_path(t, i, 0)) == 0;
	ok(same, "the same files, sizes, paths (a newline in a name too), twin and hash");
	tree_free(&back);
	char *cut = strdup(t->text);
	if (cut == NULL)
		return;
	char *end = strstr(cut, "end\n");
	if (end != NULL)
		*end = '\0';
	ok(tree_parse(cut, strlen(cut), &back, why, sizeof why) != 0 && strstr(why, "cut short"),
	   "a description cut short is refused (%s)", why);
	free(cut);
	const char bad[] = "pfsread-tree 1\nsource /x\nfiles 2\nbytes 3\ndirs 0\ndepth 0\n"
			   "f 1 a\nf 1 b\nend\n";
	ok(tree_parse(bad, sizeof bad - 1, &back, why, sizeof why) != 0 && strstr(why, "counts"),
	   "counts that differ from the lines are refused (%s)", why);
}

static void test_attach(struct tree_desc *t)
{
	struct cfg_dataset d;
	uint64_t sizes[16], want[16];
	memset(&d, 0, sizeof d);
	snprintf(d.name, sizeof d.name, "tw");
	d.layout.kind = CFG_LAYOUT_TREE;
	tree_attach(&d, t);
	for (uint64_t i = 0; i < d.nfiles; i++) {
		sizes[i] = dataset_file_size(&d, i);
		want[i] = t->size[i];
	}
	qsort(sizes, d.nfiles, sizeof *sizes, cmp_u64);
	qsort(want, d.nfiles, sizeof *want, cmp_u64);
	ok(d.nfiles == 7 && d.total_size == t->total && d.file_size == 10 &&
		   memcmp(sizes, want, d.nfiles * sizeof *sizes) == 0,
	   "the twin's sizes: the same multiset as the tree's");
	struct experiment x;
	char path[4200], buf[4200];
	memset(&x, 0, sizeof x);
	snprintf(x.root, sizeof x.root, "/r");
	ok(dataset_file_path(&x, &d, 5, buf, sizeof buf) == 0 &&
		   strcmp(buf, "/r/tw/d000003/d000004/d000005/f0000000005") == 0,
	   "a twin file lives under ROOT/NAME (%s)", buf);
	d.layout.kind = CFG_LAYOUT_IN_PLACE;
	snprintf(path, sizeof path, "%s/src/lib/deep/x.h", t->source);
	ok(dataset_file_path(&x, &d, 5, buf, sizeof buf) == 0 && strcmp(buf, path) == 0,
	   "an in-place file is the tree's own (%s)", buf);
	ok(sizes_describe(&d, buf, sizeof buf) == 0 && strncmp(buf, "tree nfiles=7 total=74219 "
							"dirs=6 depth=3 list=", 41) == 0,
	   "the manifest's sizes line (%s)", buf);
}

/* A config whose data set line is ds, with top standing for %s. */
static int load(const char *ds, const char *extra, struct experiment *x, struct pf_err *e)
{
	char yaml[1024];
	snprintf(yaml, sizeof yaml, "root: /nonexistent-pfsread-root/data\n%sdatasets:\n  - %s\n",
		 extra, ds);
	pf_err_clear(e);
	return cfg_parse("t.yaml", yaml, strlen(yaml), NULL, x, e);
}

/* twin: true with from_tree: NAME-onefile follows, its size unknown until the tree is
 * described, then the tree's total. */
static void test_one_file_twin(void)
{
	char ds[512];
	struct experiment x;
	struct pf_err e;
	snprintf(ds, sizeof ds, "{name: t, from_tree: %s, twin: true}", top);
	int rc = load(ds, "", &x, &e);
	ok(rc == 0 && x.ndatasets == 2 && strcmp(x.datasets[1].name, "t-onefile") == 0 &&
		   x.datasets[1].twin_of == 1 && x.datasets[1].nfiles == 1,
	   "from_tree with twin: true loads, t-onefile after it (%s)", e.msg);
	if (rc != 0)
		return;
	rc = fromtree_scan_all(&x, &e);
	ok(rc == 0 && x.datasets[0].total_size > 0 &&
		   x.datasets[1].file_size == x.datasets[0].total_size &&
		   x.datasets[1].total_size == x.datasets[0].total_size,
	   "once described, the one-file twin holds the tree's total (%llu B)",
	   (unsigned long long)x.datasets[0].total_size);
	cfg_free(&x);
}

static void expect_fail(const char *what, const char *ds_fmt, const char *extra, int line,
			const char *key, const char *part)
{
	char ds[512], prefix[32], keytext[128];
	struct experiment x;
	struct pf_err e;
	snprintf(ds, sizeof ds, ds_fmt, top);
	int rc = load(ds, extra, &x, &e);
	snprintf(prefix, sizeof prefix, "t.yaml:%d:", line);
	snprintf(keytext, sizeof keytext, "key '%s': ", key);
	ok(rc == -1 && e.status == PF_USAGE && strncmp(e.msg, prefix, strlen(prefix)) == 0 &&
		   strstr(e.msg, keytext) != NULL && (part == NULL || strstr(e.msg, part) != NULL),
	   "%s -> line %d, key %s", what, line, key);
	diag("%s", e.msg);
}

static void test_config(void)
{
	char ds[512];
	struct experiment x;
	struct pf_err e;
	snprintf(ds, sizeof ds, "{name: t, from_tree: %s}", top);
	int rc = load(ds, "", &x, &e);
	ok(rc == 0 && x.datasets[0].layout.kind == CFG_LAYOUT_TREE &&
		   x.datasets[0].sizes == CFG_SIZES_TREE && x.datasets[0].tree == NULL &&
		   strcmp(x.datasets[0].from_tree, top) == 0,
	   "from_tree loads as a twin, its tree not scanned at load (%s)", e.msg);
	if (rc == 0)
		cfg_free(&x);
	snprintf(ds, sizeof ds, "{name: t, from_tree: %s, in_place: true}", top);
	rc = load(ds, "", &x, &e);
	ok(rc == 0 && x.datasets[0].layout.kind == CFG_LAYOUT_IN_PLACE && x.datasets[0].in_place,
	   "in_place: true reads the tree itself");
	if (rc == 0)
		cfg_free(&x);
	rc = load("{name: t, from_tree: /nonexistent-pfsread-tree}", "", &x, &e);
	ok(rc == 0, "a missing tree is for the command that scans it (clean of a twin must work)");
	if (rc == 0)
		cfg_free(&x);
	expect_fail("from_tree a file", "{name: t, from_tree: %s/README}", "", 3,
		    "datasets[0].from_tree", "not a directory");
	expect_fail("from_tree empty", "{name: t, from_tree: ''}%.0s", "", 3,
		    "datasets[0].from_tree", "must not be empty");
	expect_fail("in_place without from_tree", "{name: t, file_size: 1MiB, file_count: 2, "
		    "in_place: true}%.0s", "", 3, "datasets[0].in_place", "needs from_tree");
	expect_fail("in_place not a bool", "{name: t, from_tree: %s, in_place: yes}", "", 3,
		    "datasets[0].in_place", "unknown value");
	expect_fail("from_tree with file_size", "{name: t, from_tree: %s, file_size: 1MiB}", "", 3,
		    "datasets[0].file_size", "not allowed with from_tree");
	expect_fail("from_tree with file_count", "{name: t, from_tree: %s, file_count: 3}", "", 3,
		    "datasets[0].file_count", "not allowed with from_tree");
	expect_fail("from_tree with total_size", "{name: t, from_tree: %s, total_size: 1GB}", "", 3,
		    "datasets[0].total_size", "not allowed with from_tree");
	expect_fail("from_tree with sizes", "{name: t, from_tree: %s, sizes: {histogram: "
		    "[[1KiB, 2]]}}", "", 3, "datasets[0].sizes", "not allowed with from_tree");
	test_one_file_twin();
	expect_fail("from_tree with layout", "{name: t, from_tree: %s, layout: flat}", "", 3,
		    "datasets[0].layout", "keeps the tree's directories");
	expect_fail("in place with verify: true", "{name: t, from_tree: %s, in_place: true}",
		    "verify: true\n", 4, "datasets[0].in_place", "verify: true");
	expect_fail("in place with process.digest", "{name: t, from_tree: %s, in_place: true}",
		    "process: {digest: xxh64}\n", 4, "datasets[0].in_place", "process.digest");
	expect_fail("layout: tree is not a layout one may give", "{name: t, file_size: 1KiB, "
		    "file_count: 1, layout: tree}%.0s", "", 3, "datasets[0].layout", "unknown value");
}

static void remove_tree(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		diag("could not remove %s", top);
}

/* Names around '/' in byte order ('-' and '.' sort before it, '0' after): the files come in
 * the order of their full paths, a directory's files between its neighbours' (the walk
 * sorts each directory's names, a directory's as if it ended in '/'). */
static void test_order_across_dirs(void)
{
	static const char *const want[] = {"a-b", "a.c", "a.d/x", "a/-", "a/z", "a0", "b/c/d"};
	int rc = make_dir("order") | make_dir("order/a") | make_dir("order/a.d") |
		 make_dir("order/b") | make_dir("order/b/c");
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "order/%s", want[i]);
		rc |= make_file(rel, i);
	}
	char sub[128], why[256] = "";
	struct tree_desc t;
	snprintf(sub, sizeof sub, "%s/order", top);
	rc |= tree_scan(sub, 0, &t, why, sizeof why);
	int same = rc == 0 && t.nfiles == sizeof want / sizeof want[0];
	for (uint64_t i = 0; same && i < t.nfiles; i++)
		same = strcmp(tree_file_path(&t, i, 1), want[i]) == 0 && t.size[i] == i;
	ok(same, "files in full-path byte order across directories, sizes carried along");
	ok(rc == 0 && t.ndirs == 4 && strcmp(tree_dir_path(&t, 0, 0), "a") == 0 &&
	   strcmp(tree_dir_path(&t, 1, 0), "a.d") == 0 && strcmp(tree_dir_path(&t, 2, 0), "b") == 0 &&
	   strcmp(tree_dir_path(&t, 3, 0), "b/c") == 0, "directories in byte order");
	for (uint64_t i = 0; rc == 0 && !same && i < t.nfiles; i++)
		diag("%s", tree_file_path(&t, i, 1));
	if (rc == 0)
		tree_free(&t);
}

/* tree_nth against a sort, on sizes drawn from few values (many alike) and from many. */
static void test_nth(void)
{
	enum { N = 1001 };
	static uint64_t a[N], b[N], c[N];
	int same = 1;
	uint64_t r = 88172645463325252ull;
	for (int round = 0; round < 40 && same; round++) {
		uint64_t n = 1 + (uint64_t)round * 25 % N, spread = round % 2 ? 3 : 1000000;
		for (uint64_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			a[i] = b[i] = r % spread;
		}
		qsort(b, n, sizeof *b, cmp_u64);
		for (uint64_t k = 0; k < n && same; k += 1 + n / 7) {
			memcpy(c, a, n * sizeof *c);
			same = tree_nth(c, n, k) == b[k];
		}
	}
	ok(same, "tree_nth picks what a sort puts at k (alike and spread values)");
}

/* The description's text, byte for byte (it is formatted by hand, not with printf): the
 * header, directories and files sorted, a newline in a name as %0A, sizes in decimal. */
static void test_text(const struct tree_desc *t)
{
	char want[CFG_PATH_MAX + 1024];
	snprintf(want, sizeof want,
		 "pfsread-tree 1\n# written by pfsread generate: the tree's files, never its "
		 "content\nsource %s\nfiles 7\nbytes 74219\ndirs 6\ndepth 3\nsymlinks 2\n"
		 "specials 1\nd docs\nd docs/none\nd empty\nd src\nd src/lib\nd src/lib/deep\n"
		 "f 100 README\nf 0 docs/__init__.py\nf 3 docs/new%%0Aline\nf 10 src/lib/a.c\n"
		 "f 10 src/lib/b.c\nf 70000 src/lib/deep/x.h\nf 4096 src/main.c\nend\n",
		 t->source);
	ok(t->text_len == strlen(want) && strcmp(t->text, want) == 0,
	   "the description's text is as specified, byte for byte");
	if (strcmp(t->text, want) != 0)
		diag("got:\n%s", t->text);
}

/* Readability from the mode alone only where the owner's bits decide it (the scan asks the
 * kernel only otherwise). */
static void test_owner_reads(void)
{
	struct stat st;
	memset(&st, 0, sizeof st);
	st.st_mode = S_IFREG | 0400;
	st.st_uid = 1000;
	ok(tree_owner_reads(&st, 1000) == 1, "owner with the owner's read bit: readable");
	ok(tree_owner_reads(&st, 1001) == 0, "another user: the kernel is asked");
	st.st_mode = S_IFREG | 0044;
	ok(tree_owner_reads(&st, 1000) == 0,
	   "owner without the owner's read bit (group and other have it): the kernel is asked");
	st.st_mode = S_IFREG | 0644;
	st.st_uid = 0;
	ok(tree_owner_reads(&st, 1000) == 0, "other bits alone (an ACL may deny): the kernel is asked");
	ok(tree_fs_local(0xEF53) && tree_fs_local(0x01021994) && tree_fs_local(0x58465342),
	   "ext4, tmpfs, xfs: the mode decides");
	ok(!tree_fs_local(0x6969) && !tree_fs_local(0x65735546) && !tree_fs_local(0x0BD00BD0) &&
		   !tree_fs_local(0),
	   "NFS (root squash), FUSE, Lustre, unknown: the kernel is asked");
}

int main(void)
{
	struct tree_desc t;
	memset(&t, 0, sizeof t);
	if (!ok(build_tree() == 0, "build a small tree in %s", top)) {
		remove_tree();
		return tap_done();
	}
	test_scan(&t);
	if (t.nfiles == 7) {
		test_twin(&t);
		test_text(&t);
		test_parse(&t);
		test_attach(&t);
	}
	test_config();
	test_owner_reads();
	test_order_across_dirs();
	test_nth();
	char why[256] = "";
	struct tree_desc none;
	char sub[128];
	snprintf(sub, sizeof sub, "%s/empty", top);
	ok(tree_scan(sub, 0, &none, why, sizeof why) == 0 && none.nfiles == 0,
	   "a tree without files scans to no files (the caller refuses it)");
	tree_free(&none);
	tree_free(&t);
	remove_tree();
	return tap_done();
}
