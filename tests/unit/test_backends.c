/* test_backends: every file backend reads real files whole and byte for byte, at several
 * transfer sizes, and reports errors as -errno. Files live under /var/tmp, not /tmp, which
 * may be tmpfs, where O_DIRECT is refused. No MPI_Init: these backends never call MPI. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "run/backend.h"
#include "tap.h"

#define MIB ((size_t)1 << 20)
#define BIG_SIZE (3 * MIB + 1234) /* a multiple of no alignment */
#define BEYOND_EOF ((uint64_t)4 * MIB) /* past BIG_SIZE, and aligned for O_DIRECT */

static const char *const names[] = {"posix", "direct", "mmap"};
static const size_t transfers[] = {4096, 65536, MIB};

static char dir[] = "/var/tmp/pfsread-test-backends-XXXXXX";
static char big[128], empty[128], missing[128];
static unsigned char *expect; /* [BIG_SIZE]: what big holds */

/* A TAP "ok N # skip why" line: the test could not run here, which is not a failure. */
__attribute__((format(printf, 1, 2))) static void skip(const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	printf("ok %d # skip ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Not periodic at any power of two up to a few MiB, so a misplaced block shows. */
static unsigned char pattern(size_t i)
{
	return (unsigned char)(((i * 2654435761u) >> 11) ^ (i >> 12) ^ (i >> 20));
}

/* A buffer as the core allocates one (BACKEND_BUF_ALIGN); free() it. */
static unsigned char *buf_alloc(size_t len)
{
	void *p = NULL;
	size_t room = (len + BACKEND_BUF_ALIGN - 1) / BACKEND_BUF_ALIGN * BACKEND_BUF_ALIGN;
	if (posix_memalign(&p, BACKEND_BUF_ALIGN, room + BACKEND_BUF_ALIGN) != 0)
		return NULL;
	return p;
}

static int write_file(const char *path, const unsigned char *data, size_t len)
{
	size_t done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

static int make_files(void)
{
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(big, sizeof big, "%s/big", dir);
	snprintf(empty, sizeof empty, "%s/empty", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	expect = malloc(BIG_SIZE);
	if (expect == NULL)
		return -1;
	for (size_t i = 0; i < BIG_SIZE; i++)
		expect[i] = pattern(i);
	if (write_file(big, expect, BIG_SIZE) != 0 || write_file(empty, expect, 0) != 0)
		return -1;
	return 0;
}

static void remove_files(void)
{
	unlink(big);
	unlink(empty);
	rmdir(dir);
	free(expect);
}

static int bopen_file(const struct backend *b, const char *path, int noatime, struct bfile *f)
{
	const struct bopen o = {.size = 0, .noatime = noatime, .comm = MPI_COMM_SELF, .x = NULL};
	f->fd = -1;
	f->priv = NULL;
	f->path = path;
	f->noatime_used = -1;
	return b->open(path, &o, f);
}

/* Read big from start to end in t-byte requests, as the core would, checking each answer. */
static int read_whole(const struct backend *b, struct bfile *f, size_t t, unsigned char *buf,
		      uint64_t *total)
{
	uint64_t off = 0;
	*total = 0;
	while (off < BIG_SIZE) {
		size_t got = SIZE_MAX, want = BIG_SIZE - off < t ? BIG_SIZE - off : t;
		memset(buf, 0xa5, t);
		int rc = b->read(f, buf, t, off, &got);
		if (rc != 0) {
			diag("%s: read %zu at %llu: %s", b->name, t, (unsigned long long)off,
			     strerror(-rc));
			return -1;
		}
		if (got != want) {
			diag("%s: read %zu at %llu got %zu, want %zu", b->name, t,
			     (unsigned long long)off, got, want);
			return -1;
		}
		for (size_t i = 0; i < got; i++)
			if (buf[i] != expect[off + i]) {
				diag("%s: byte %llu is %#x, want %#x", b->name,
				     (unsigned long long)(off + i), buf[i], expect[off + i]);
				return -1;
			}
		off += got;
		*total = off;
	}
	return 0;
}

static void test_whole(const struct backend *b, size_t t)
{
	struct bfile f;
	uint64_t total = 0;
	unsigned char *buf = buf_alloc(t);
	int rc = buf == NULL ? -ENOMEM : bopen_file(b, big, 0, &f);
	ok(rc == 0, "%s opens the file for transfer %zu (%s)", b->name, t, strerror(-rc));
	if (rc != 0) {
		free(buf);
		return;
	}
	rc = read_whole(b, &f, t, buf, &total);
	ok(rc == 0 && total == BIG_SIZE,
	   "%s reads %zu bytes whole and exact with transfer %zu (total %llu)", b->name,
	   (size_t)BIG_SIZE, t, (unsigned long long)total);
	ok(b->close(&f) == 0, "%s closes after transfer %zu", b->name, t);
	free(buf);
}

/* Past end of file a read succeeds with 0 bytes; a short request gets no more than it asked. */
static void test_edges(const struct backend *b, unsigned char *buf)
{
	struct bfile f;
	size_t got = SIZE_MAX;
	int rc = bopen_file(b, big, 0, &f);
	ok(rc == 0, "%s opens the file for edge reads", b->name);
	if (rc != 0)
		return;
	rc = b->read(&f, buf, 4096, BEYOND_EOF, &got);
	ok(rc == 0 && got == 0, "%s reads 0 bytes past end of file (rc %d, got %zu)", b->name, rc,
	   got);
	got = SIZE_MAX;
	rc = b->read(&f, buf, 1000, 0, &got);
	ok(rc == 0 && got == 1000 && memcmp(buf, expect, 1000) == 0,
	   "%s reads exactly 1000 bytes when asked for 1000 (rc %d, got %zu)", b->name, rc, got);
	got = SIZE_MAX;
	rc = b->read(&f, buf, MIB, 3 * MIB, &got);
	ok(rc == 0 && got == 1234 && memcmp(buf, expect + 3 * MIB, 1234) == 0,
	   "%s reads the unaligned 1234-byte tail in one request (rc %d, got %zu)", b->name, rc,
	   got);
	ok(b->close(&f) == 0, "%s closes after edge reads", b->name);
}

/* O_DIRECT's rules are the backend's to enforce: misaligned requests are -EINVAL. */
static void test_direct_alignment(const struct backend *b, unsigned char *buf)
{
	struct bfile f;
	size_t got = 0;
	if (bopen_file(b, big, 0, &f) != 0) {
		ok(0, "%s opens the file for alignment checks", b->name);
		return;
	}
	ok(b->read(&f, buf, 4096, 1, &got) == -EINVAL, "%s refuses an unaligned offset", b->name);
	ok(b->read(&f, buf + 1, 4096, 0, &got) == -EINVAL, "%s refuses an unaligned buffer",
	   b->name);
	ok(b->close(&f) == 0, "%s closes after alignment checks", b->name);
}

static void test_empty(const struct backend *b, unsigned char *buf)
{
	struct bfile f;
	size_t got = SIZE_MAX;
	int rc = bopen_file(b, empty, 0, &f);
	ok(rc == 0, "%s opens an empty file (%s)", b->name, strerror(-rc));
	if (rc != 0)
		return;
	rc = b->read(&f, buf, 4096, 0, &got);
	ok(rc == 0 && got == 0, "%s reads 0 bytes from an empty file (rc %d, got %zu)", b->name, rc,
	   got);
	ok(b->close(&f) == 0, "%s closes an empty file", b->name);
}

static void test_missing(const struct backend *b)
{
	struct bfile f;
	int rc = bopen_file(b, missing, 0, &f);
	ok(rc == -ENOENT, "%s: a missing file is -ENOENT (rc %d)", b->name, rc);
	if (rc == 0)
		b->close(&f);
}

/* O_NOATIME is permitted to the file's owner and to root; we made the file, so it takes. */
static void test_noatime(const struct backend *b)
{
	struct bfile f;
	for (int want = 0; want <= 1; want++) {
		int rc = bopen_file(b, big, want, &f);
		ok(rc == 0 && f.noatime_used == want, "%s: noatime %d gives noatime_used %d", b->name,
		   want, f.noatime_used);
		if (rc == 0)
			ok(b->close(&f) == 0, "%s closes after noatime %d", b->name, want);
	}
}

/* tmpfs must refuse the direct backend (old kernels refuse O_DIRECT; newer accept it but serve
 * it from the page cache), so the core can say O_DIRECT is not supported there. */
static void test_direct_tmpfs(void)
{
	const struct backend *b = backend_find("direct");
	char path[] = "/dev/shm/pfsread-test-backends-XXXXXX";
	struct statfs sf;
	struct bfile f;
	int fd, rc;
	if (b == NULL || statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC) {
		skip("/dev/shm is not tmpfs here");
		return;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		skip("cannot make a file in /dev/shm: %s", strerror(errno));
		return;
	}
	close(fd);
	rc = bopen_file(b, path, 0, &f);
	ok(rc == -EINVAL, "direct on tmpfs is -EINVAL (rc %d)", rc);
	if (rc == 0)
		b->close(&f);
	unlink(path);
}

/* Every test for one backend; all skipped when it cannot open the file here (O_DIRECT). */
static void test_backend(const char *name, unsigned char *buf)
{
	const struct backend *b = backend_find(name);
	struct bfile f;
	int rc;
	if (!ok(b != NULL, "backend %s is registered", name))
		return;
	test_missing(b);
	rc = bopen_file(b, big, 0, &f);
	if (rc == -EINVAL && (b->flags & BACKEND_BYPASSES_CACHE)) {
		skip("%s: O_DIRECT refused by the file system under %s", name, dir);
		return;
	}
	if (rc == 0)
		b->close(&f);
	for (size_t i = 0; i < sizeof transfers / sizeof transfers[0]; i++)
		test_whole(b, transfers[i]);
	test_edges(b, buf);
	test_empty(b, buf);
	test_noatime(b);
	if (b->flags & BACKEND_BYPASSES_CACHE)
		test_direct_alignment(b, buf);
}

/* ---- a backend's own advice: posix|uring|mmap: {advice: A} in the config ---- */

#define ADV_HEAD "root: /nonexistent-pfsread-root\ndatasets: [{name: a, file_size: 1KiB, " \
		 "file_count: 1}]\n"

/* What backend name gives for sweep advice asked under config yaml; -1 when the config is
 * refused (its message in e). */
static int advice_under(const char *yaml, const char *name, enum cfg_advice asked,
			struct pf_err *e)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	struct experiment x;
	backend_config(blocks, BACKEND_BLOCKS_MAX);
	memset(e, 0, sizeof *e);
	if (cfg_parse("mem/adv.yaml", yaml, strlen(yaml), blocks, &x, e) != 0)
		return -1;
	int a = (int)backend_advice(backend_find(name), &x, asked);
	cfg_free(&x);
	return a;
}

static void test_advice_blocks(void)
{
	struct pf_err e;
	const enum cfg_advice D = CFG_ADVICE_DEFAULT;
	ok(advice_under(ADV_HEAD, "mmap", D, &e) == CFG_ADVICE_NONE &&
		   advice_under(ADV_HEAD, "posix", D, &e) == CFG_ADVICE_SEQUENTIAL,
	   "without a block: mmap none, posix sequential");
	ok(advice_under(ADV_HEAD "mmap: {advice: sequential}\n", "mmap", D, &e) ==
		   CFG_ADVICE_SEQUENTIAL, "mmap: {advice: sequential} is mmap's default advice");
	ok(advice_under(ADV_HEAD "mmap: {advice: sequential}\n", "mmap", CFG_ADVICE_NONE, &e) ==
		   CFG_ADVICE_NONE, "the sweep's advice wins over the block's");
	ok(advice_under(ADV_HEAD "mmap: {advice: willneed}\n", "posix", D, &e) ==
		   CFG_ADVICE_SEQUENTIAL, "mmap's block leaves posix alone");
	ok(advice_under(ADV_HEAD "posix: {advice: none}\n", "posix", D, &e) == CFG_ADVICE_NONE,
	   "posix: {advice: none}");
	ok(advice_under(ADV_HEAD "sequential_hint: false\nposix: {advice: willneed}\n", "posix", D,
			&e) == CFG_ADVICE_WILLNEED,
	   "posix's block wins over sequential_hint: false");
	ok(advice_under(ADV_HEAD "sequential_hint: false\nposix: {advice: default}\n", "posix", D,
			&e) == CFG_ADVICE_NONE,
	   "posix: {advice: default} keeps sequential_hint's say");
	ok(advice_under(ADV_HEAD "mmap: {advice: default}\n", "mmap", D, &e) == CFG_ADVICE_NONE,
	   "mmap: {advice: default} is none");
#ifdef HAVE_LIBURING
	ok(advice_under(ADV_HEAD "uring: {advice: none}\n", "uring", D, &e) == CFG_ADVICE_NONE &&
		   advice_under(ADV_HEAD "uring: {advice: none}\n", "posix", D, &e) ==
			   CFG_ADVICE_SEQUENTIAL,
	   "uring: {advice: none}, posix unchanged");
#else
	skip("built without liburing");
#endif
	ok(advice_under(ADV_HEAD "mmap: {advice: sequentail}\n", "mmap", D, &e) < 0 &&
		   strstr(e.msg, "mem/adv.yaml:3:16: key 'mmap.advice': unknown value 'sequentail'"),
	   "a misspelt advice: file:line:col, the key (%s)", e.msg);
	ok(advice_under(ADV_HEAD "mpiio: {advice: none}\n", "mpiio", D, &e) < 0 &&
		   strstr(e.msg, "mem/adv.yaml:3:9: key 'mpiio.advice': unknown key (allowed: "
				 "collective)"),
	   "mpiio gives no advice: its block refuses the key (%s)", e.msg);
	ok(advice_under(ADV_HEAD "mpiio: {advice: none}\n", "mpiio", D, &e) < 0 &&
		   strstr(e.msg, "its hints go under mpiio_hints"),
	   "mpiio's refusal says where its hints go (%s)", e.msg);
	ok(advice_under(ADV_HEAD "direct: {advice: none}\n", "direct", D, &e) < 0 &&
		   strstr(e.msg, "mem/adv.yaml:3:10: key 'direct.advice': unknown key: the direct "
				 "backend takes no options and gives no access hint"),
	   "direct gives no advice, and says why (%s)", e.msg);
	ok(advice_under(ADV_HEAD "null: {advice: none}\n", "null", D, &e) < 0 &&
		   strstr(e.msg, "key 'null.advice': unknown key: the null backend reads no file"),
	   "null gives no advice, and says why (%s)", e.msg);
	ok(advice_under(ADV_HEAD "direct: {}\n", "direct", D, &e) == CFG_ADVICE_NONE,
	   "an empty direct block is no error");
}

int main(void)
{
	struct statfs sf;
	unsigned char *buf = buf_alloc(MIB);
	if (buf == NULL || make_files() != 0) {
		printf("Bail out! cannot make test files under %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (statfs(dir, &sf) == 0)
		diag("%s: file system type %#lx%s", dir, (unsigned long)sf.f_type,
		     sf.f_type == TMPFS_MAGIC ? " (tmpfs: direct will skip)" : "");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		test_backend(names[i], buf);
	test_direct_tmpfs();
	test_advice_blocks();
	remove_files();
	free(buf);
	return tap_done();
}
