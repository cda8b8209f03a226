/* test_uring: the uring backend's read_share pipeline (queue depths, transfer sizes, bytes in
 * flight, slices, short files, errors without fd leaks), its ordered mode for read-and-process
 * (each file's bytes handed over once, in order, intact, items in order) and its per-file
 * hooks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/backend.h"
#include "tap.h"

#ifdef HAVE_LIBURING
#include "run/backends/uring.h"
extern const struct backend uring_backend;
static const struct backend *const uring = &uring_backend;
#else
static const struct backend *const uring = NULL;
#endif

#define MIB ((uint64_t)1 << 20)
#define NFILES 42
#define NSIZES 7
#define MAXITEMS 64
#define NO_PATH UINT64_MAX /* an item whose path does not fit */

static const uint64_t sizes[NSIZES] = {0, 1, 4095, 4096, 2 * MIB, 2 * MIB + 17, 5 * MIB + 3};

static char dir[64];

/* What the core would be: the item -> file index map behind path(), and for ordered calls
 * what the consumer saw. */
struct core {
	const uint64_t *file;
	const uint64_t *off, *len;
	uint64_t nitems;
	uint64_t item;        /* the item being consumed */
	uint64_t at;          /* the next offset expected of it */
	uint64_t done;        /* items ended through item_done */
	uint64_t spin;        /* ns of busy work per block: lets completions pile up behind */
	uint64_t fail_item;   /* item_done says no for this one (UINT64_MAX: never) */
	int bad;
	char why[160];
};

static int core_path(const void *core, uint64_t i, char *buf, size_t len)
{
	const struct core *c = core;
	int n;
	if (c->file[i] == NO_PATH)
		return -1;
	n = snprintf(buf, len, "%s/f%03llu", dir, (unsigned long long)c->file[i]);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static double core_now(const void *core)
{
	struct timespec ts;
	(void)core;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t file_size(uint64_t f)
{
	return sizes[f % NSIZES];
}

static unsigned char pattern(uint64_t f, uint64_t off)
{
	return (unsigned char)((f * 31 + off) & 0xff);
}

static void core_fail(struct core *c, const char *why, uint64_t i, uint64_t off)
{
	if (!c->bad)
		snprintf(c->why, sizeof c->why, "%s (item %llu offset %llu)", why,
			 (unsigned long long)i, (unsigned long long)off);
	c->bad = 1;
}

static void busy(uint64_t ns)
{
	double end = core_now(NULL) + (double)ns * 1e-9;
	while (core_now(NULL) < end)
		;
}

/* Ordered: item i's next bytes, exactly where the last block ended, as the file holds them. */
static int core_consume(const void *core, uint64_t i, uint64_t off, const void *buf, size_t len)
{
	struct core *c = (struct core *)core;
	const unsigned char *p = buf;
	if (i != c->item || off != c->at || len == 0)
		core_fail(c, "a block out of order", i, off);
	for (size_t k = 0; k < len && !c->bad; k++)
		if (p[k] != pattern(c->file[i], off + k))
			core_fail(c, "a byte not as the file holds it", i, off + k);
	c->at = off + len;
	busy(c->spin);
	return 0;
}

/* Ordered: item i ended, in its turn, after all that arrived of it. */
static int core_item_done(const void *core, uint64_t i, uint64_t bytes)
{
	struct core *c = (struct core *)core;
	if (i != c->item || bytes != c->at - c->off[i])
		core_fail(c, "an item ended out of turn or early", i, c->at);
	c->done++;
	c->item = i + 1;
	c->at = i + 1 < c->nitems ? c->off[i + 1] : 0;
	return i == c->fail_item;
}

static int write_file(uint64_t f, uint64_t size)
{
	char path[128];
	unsigned char *buf = malloc(size ? size : 1);
	int fd, rc = -1;
	if (buf == NULL)
		return -1;
	for (uint64_t o = 0; o < size; o++)
		buf[o] = pattern(f, o);
	snprintf(path, sizeof path, "%s/f%03llu", dir, (unsigned long long)f);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 && write(fd, buf, size) == (ssize_t)size)
		rc = 0;
	if (fd >= 0 && close(fd) != 0)
		rc = -1;
	free(buf);
	return rc;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static void remove_tree(void)
{
	char path[sizeof dir + sizeof ((struct dirent *)0)->d_name + 1];
	DIR *d = opendir(dir);
	struct dirent *e;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (unlink(path) != 0)
			rmdir(path);
	}
	closedir(d);
	rmdir(dir);
}

/* An experiment whose uring block holds depth and inflight (values a config would refuse too:
 * setup's own checks are tested). The values live in statics: one experiment at a time. */
static struct experiment make_x(int depth, uint64_t inflight)
{
#ifndef HAVE_LIBURING
	struct experiment none;
	(void)depth;
	(void)inflight;
	memset(&none, 0, sizeof none);
	return none; /* never used: the test skips */
#else
	static struct uring_opts opts;
	static struct cfg_values block = {&uring_options, &opts};
	struct experiment x;
	memset(&x, 0, sizeof x);
	opts.queue_depth = depth;
	opts.max_inflight = inflight;
	x.blocks = &block;
	x.nblocks = 1;
	return x;
#endif
}

/* One share: items n, their files, offsets and lengths. */
struct share {
	uint64_t n;
	uint64_t file[MAXITEMS];
	uint64_t off[MAXITEMS];
	uint64_t len[MAXITEMS];
	struct file_rec recs[MAXITEMS];
	uint64_t failed;
};

static int share_read(void *state, struct share *sh, size_t transfer, int noatime)
{
	struct core c = {.file = sh->file};
	struct bopen o = {.size = 0, .noatime = noatime, .comm = MPI_COMM_SELF, .x = NULL};
	struct bshare s = {
		.nitems = sh->n, .offset = sh->off, .length = sh->len, .path = core_path,
		.now = core_now, .core = &c, .open = &o, .transfer = transfer, .recs = sh->recs,
		.failed = NO_PATH,
	};
	int rc;
	memset(sh->recs, 0, sizeof sh->recs);
	rc = uring->read_share(state, &s);
	sh->failed = s.failed;
	return rc;
}

/* stop() for the ordered calls: 1 once it was asked stop_calls times (0: never). */
static int stop_calls;

static int stop_after(void)
{
	return stop_calls > 0 && --stop_calls == 0 ? (stop_calls = -1, 1) : stop_calls < 0;
}

/* An ordered call (read-and-process): the blocks go to core_consume, the ends to
 * core_item_done; *wait gets the time the backend says it waited for I/O. */
static int share_read_ordered(void *state, struct share *sh, size_t transfer, struct core *c,
			      double *wait)
{
	struct bopen o = {.size = 0, .noatime = 0, .comm = MPI_COMM_SELF, .x = NULL};
	struct bshare s = {
		.nitems = sh->n, .offset = sh->off, .length = sh->len, .path = core_path,
		.now = core_now, .core = c, .open = &o, .transfer = transfer, .recs = sh->recs,
		.failed = NO_PATH, .stop = stop_after, .consume = core_consume, .ordered = 1,
		.item_done = core_item_done, .wait_s = -1,
	};
	int rc;
	c->file = sh->file;
	c->off = sh->off;
	c->len = sh->len;
	c->nitems = sh->n;
	c->item = 0;
	c->at = sh->n > 0 ? sh->off[0] : 0;
	c->done = 0;
	c->bad = 0;
	c->why[0] = '\0';
	memset(sh->recs, 0, sizeof sh->recs);
	rc = uring->read_share(state, &s);
	sh->failed = s.failed;
	*wait = s.wait_s;
	return rc;
}

static void share_add(struct share *sh, uint64_t f, uint64_t off, uint64_t len)
{
	sh->file[sh->n] = f;
	sh->off[sh->n] = off;
	sh->len[sh->n] = len;
	sh->n++;
}

/* Every file whole, in order. */
static void share_all(struct share *sh)
{
	sh->n = 0;
	for (uint64_t f = 0; f < NFILES; f++)
		share_add(sh, f, 0, file_size(f));
}

/* Slices: inside a file, across a short file's end, a whole file, an empty one, reversed. */
static void share_slices(struct share *sh)
{
	sh->n = 0;
	share_add(sh, 4, 1000, 5000);  /* 2 MiB file */
	share_add(sh, 2, 1000, 5000);  /* 4095 bytes: 3095 arrive */
	share_add(sh, 6, 4096, 5 * MIB); /* 5 MiB+3: 5 MiB - 4093 arrive */
	share_add(sh, 0, 0, 0);
	for (uint64_t f = NFILES; f-- > NFILES - 8;)
		share_add(sh, f, 0, file_size(f));
}

static uint64_t expect(uint64_t f, uint64_t off, uint64_t len)
{
	uint64_t size = file_size(f);
	if (off >= size)
		return 0;
	return size - off < len ? size - off : len;
}

/* Bytes as the files hold them, and time stamps in order, for every item. */
static int share_good(const struct share *sh, char *why, size_t whylen)
{
	for (uint64_t i = 0; i < sh->n; i++) {
		const struct file_rec *r = &sh->recs[i];
		uint64_t want = expect(sh->file[i], sh->off[i], sh->len[i]);
		if (r->bytes != want) {
			snprintf(why, whylen, "item %llu: %llu bytes, want %llu", (unsigned long long)i,
				 (unsigned long long)r->bytes, (unsigned long long)want);
			return 0;
		}
		if (!(r->open_start > 0 && r->open_start <= r->open_end &&
		      r->open_end <= r->read_end && r->read_end <= r->close_end)) {
			snprintf(why, whylen, "item %llu: times %.9f %.9f %.9f %.9f",
				 (unsigned long long)i, r->open_start, r->open_end, r->read_end,
				 r->close_end);
			return 0;
		}
		if (r->error != 0) {
			snprintf(why, whylen, "item %llu: error %d", (unsigned long long)i, r->error);
			return 0;
		}
	}
	return 1;
}

/* The matrix: each state reads every file, then slices, so it is also reused. */
static void test_matrix(void)
{
	static const int depths[] = {1, 4, 64};
	static const size_t transfers[] = {4096, 128 << 10, 1 << 20};
	static const uint64_t inflights[] = {64 * MIB, 256 << 10};
	static struct share sh;
	char why[256];
	for (size_t d = 0; d < 3; d++)
		for (size_t t = 0; t < 3; t++)
			for (size_t m = 0; m < 2; m++) {
				struct experiment x = make_x(depths[d], inflights[m]);
				void *st = NULL;
				int fds = count_fds(), rc1 = -1, rc2 = -1, good1 = 0, good2 = 0;
				int rc = uring->setup(&x, transfers[t], &st);
				why[0] = '\0';
				if (rc == 0) {
					share_all(&sh);
					rc1 = share_read(st, &sh, transfers[t], (int)m);
					good1 = rc1 == 0 && share_good(&sh, why, sizeof why);
					share_slices(&sh);
					rc2 = share_read(st, &sh, transfers[t], 0);
					good2 = rc2 == 0 && (good1 ? share_good(&sh, why, sizeof why) : 1);
				}
				uring->teardown(st);
				ok(rc == 0 && good1 && good2 && count_fds() == fds,
				   "depth %d transfer %zu max_inflight %llu: all files and slices (%d %d %d) %s",
				   depths[d], transfers[t], (unsigned long long)inflights[m], rc, rc1,
				   rc2, why);
			}
}

/* The first open_start to the last close_end of a share. */
static double share_span(const struct share *sh)
{
	return sh->n > 0 ? sh->recs[sh->n - 1].close_end - sh->recs[0].open_start : 0;
}

/* Ordered, one share: every byte handed over once, in order, intact, every item ended in
 * its turn, the records as unordered calls fill them, the wait within the span. */
static int ordered_good(void *st, struct share *sh, size_t transfer, struct core *c,
			char *why, size_t whylen)
{
	double wait = -1;
	int rc = share_read_ordered(st, sh, transfer, c, &wait);
	if (rc != 0 || c->bad || c->done != sh->n) {
		snprintf(why, whylen, "rc %d, %llu of %llu items ended: %s", rc,
			 (unsigned long long)c->done, (unsigned long long)sh->n, c->why);
		return 0;
	}
	if (!share_good(sh, why, whylen))
		return 0;
	if (!(wait >= 0 && wait <= share_span(sh) + 1e-6)) {
		snprintf(why, whylen, "waited %.9f s in a span of %.9f s", wait, share_span(sh));
		return 0;
	}
	return 1;
}

/* Ordered calls across depths, transfers and bytes in flight, with a consumer slower than
 * the reads now and then (completions then arrive while it works and wait for it). */
static void test_ordered(void)
{
	static const int depths[] = {1, 4, 64};
	static const size_t transfers[] = {4096, 128 << 10, 1 << 20};
	static const uint64_t inflights[] = {64 * MIB, 256 << 10};
	static struct share sh;
	char why[256];
	for (size_t d = 0; d < 3; d++)
		for (size_t t = 0; t < 3; t++)
			for (size_t m = 0; m < 2; m++) {
				struct experiment x = make_x(depths[d], inflights[m]);
				struct core c = {.spin = m == 1 && t == 1 ? 20000 : 0, .fail_item = NO_PATH};
				void *st = NULL;
				int fds = count_fds(), good = 0;
				int rc = uring->setup(&x, transfers[t], &st);
				why[0] = '\0';
				if (rc == 0) {
					share_all(&sh);
					good = ordered_good(st, &sh, transfers[t], &c, why, sizeof why);
					share_slices(&sh);
					good = good && ordered_good(st, &sh, transfers[t], &c, why, sizeof why);
				}
				uring->teardown(st);
				ok(rc == 0 && good && count_fds() == fds,
				   "ordered: depth %d transfer %zu max_inflight %llu%s: every byte in order, "
				   "items in turn (%d) %s",
				   depths[d], transfers[t], (unsigned long long)inflights[m],
				   c.spin ? ", slow consumer" : "", rc, why);
			}
}

/* Ordered: an unreadable item, a consumer that rejects an item (a digest mismatch), a short
 * file and a stop request each end the call as they should, with no fd left open. */
static void test_ordered_errors(void)
{
	struct experiment x = make_x(16, 256 << 10);
	static struct share sh;
	struct core c = {.spin = 0, .fail_item = NO_PATH};
	void *st = NULL;
	double wait;
	int rc = uring->setup(&x, 64 << 10, &st), fds = count_fds(); /* the ring's fd counted */
	if (rc != 0) {
		ok(0, "ordered errors: setup (%d)", rc);
		return;
	}
	share_all(&sh);
	sh.file[5] = 998;
	rc = share_read_ordered(st, &sh, 64 << 10, &c, &wait);
	ok(rc == -EISDIR && sh.failed == 5 && sh.recs[5].error == EISDIR && !c.bad &&
		   count_fds() == fds,
	   "ordered: a directory at item 5 -> %d, failed %llu, nothing out of order %s", rc,
	   (unsigned long long)sh.failed, c.why);
	share_all(&sh);
	c.fail_item = 3;
	rc = share_read_ordered(st, &sh, 64 << 10, &c, &wait);
	ok(rc == -EILSEQ && sh.failed == 3 && sh.recs[3].error == EILSEQ && c.done == 4 && !c.bad &&
		   sh.recs[3].read_end <= sh.recs[3].close_end && count_fds() == fds,
	   "ordered: item 3 rejected by its item_done -> %d, failed %llu, 4 items ended (%llu)", rc,
	   (unsigned long long)sh.failed, (unsigned long long)c.done);
	c.fail_item = NO_PATH;
	sh.n = 0;
	share_add(&sh, 997, 0, 4096);
	share_add(&sh, 4, 0, 2 * MIB);
	rc = share_read_ordered(st, &sh, 64 << 10, &c, &wait);
	ok(rc == 0 && !c.bad && c.done == 2 && sh.recs[0].bytes == 100 && sh.recs[1].bytes == 2 * MIB,
	   "ordered: a short file ends with the bytes it had (%d: %llu) %s", rc,
	   (unsigned long long)sh.recs[0].bytes, c.why);
	share_all(&sh);
	c.spin = 50000;
	stop_calls = 10;
	rc = share_read_ordered(st, &sh, 4096, &c, &wait);
	stop_calls = 0;
	ok(rc == -EINTR && c.done < sh.n && !c.bad && count_fds() == fds,
	   "ordered: a stop request while processing ends the call with -EINTR (%d, %llu items)", rc,
	   (unsigned long long)c.done);
	c.spin = 0;
	share_all(&sh);
	char why[256] = "";
	ok(ordered_good(st, &sh, 64 << 10, &c, why, sizeof why) && count_fds() == fds,
	   "ordered: after all that, the state still reads every file in order %s", why);
	uring->teardown(st);
}

/* An item that cannot be read fails the call with its -errno and index, after everything
 * in flight finished and every file opened was closed. */
static void test_failure(int depth, uint64_t bad_file, uint64_t bad_item, int want)
{
	struct experiment x = make_x(depth, 64 * MIB);
	static struct share sh;
	void *st = NULL;
	int fds = count_fds(), rc;
	share_all(&sh);
	sh.file[bad_item] = bad_file;
	rc = uring->setup(&x, 128 << 10, &st);
	if (rc == 0)
		rc = share_read(st, &sh, 128 << 10, 0);
	uring->teardown(st);
	ok(rc == want && sh.failed == bad_item && sh.recs[bad_item].error == -want &&
	   sh.recs[bad_item].open_start <= sh.recs[bad_item].close_end && count_fds() == fds,
	   "depth %d: item %llu unreadable -> %d (want %d), failed %llu, its error %d, no fd leaked",
	   depth, (unsigned long long)bad_item, rc, want, (unsigned long long)sh.failed,
	   sh.recs[bad_item].error);
}

/* A file shorter than its item is not an error: bytes tell the core what arrived. */
static void test_short(int depth)
{
	struct experiment x = make_x(depth, 1 * MIB);
	static struct share sh;
	void *st = NULL;
	int rc;
	sh.n = 0;
	share_add(&sh, 997, 0, 4096);
	share_add(&sh, 996, 0, 2 * MIB);
	share_add(&sh, 4, 0, 2 * MIB);
	rc = uring->setup(&x, 64 << 10, &st);
	if (rc == 0)
		rc = share_read(st, &sh, 64 << 10, 0);
	uring->teardown(st);
	ok(rc == 0 && sh.recs[0].bytes == 100 && sh.recs[1].bytes == MIB &&
	   sh.recs[2].bytes == 2 * MIB,
	   "depth %d: truncated files report their real sizes (%d: %llu %llu %llu)", depth, rc,
	   (unsigned long long)sh.recs[0].bytes, (unsigned long long)sh.recs[1].bytes,
	   (unsigned long long)sh.recs[2].bytes);
}

static void test_arguments(void)
{
	struct experiment x = make_x(0, 64 * MIB);
	static struct share sh;
	void *st = NULL;
	int rc = uring->setup(&x, 4096, &st);
	ok(rc == -EINVAL && st == NULL, "queue depth 0 is refused (%d)", rc);
	x = make_x(4, 0);
	rc = uring->setup(&x, 4096, &st);
	ok(rc == 0, "max_inflight 0 still gets one buffer (%d)", rc);
	if (rc == 0) {
		share_all(&sh);
		rc = share_read(st, &sh, 8192, 0);
		ok(rc == -EINVAL, "transfer above setup's is refused (%d)", rc);
		rc = share_read(st, &sh, 4096, 0);
		ok(rc == 0, "and the state still reads afterwards (%d)", rc);
		sh.n = 0;
		rc = share_read(st, &sh, 4096, 0);
		ok(rc == 0, "an empty share reads nothing (%d)", rc);
	}
	uring->teardown(st);
	uring->teardown(NULL);
}

/* Without privilege O_NOATIME on a file owned by another user gives EPERM: the open is
 * retried without it. Also runs with RLIMIT_MEMLOCK in force, so buffers may not register. */
static void test_noatime_fallback(void)
{
	pid_t pid;
	int status = 0;
	if (geteuid() != 0) {
		ok(1, "# SKIP needs root to drop to another user");
		return;
	}
	pid = fork();
	if (pid == 0) {
		static struct share sh;
		struct experiment x = make_x(8, 64 * MIB);
		void *st = NULL;
		char why[256];
		int rc;
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		rc = uring->setup(&x, 1 << 20, &st);
		if (rc == -EPERM || rc == -ENOSYS)
			_exit(77);
		share_all(&sh);
		if (rc == 0)
			rc = share_read(st, &sh, 1 << 20, 1);
		uring->teardown(st);
		_exit(rc == 0 && share_good(&sh, why, sizeof why) ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		ok(0, "fork for the noatime test");
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		ok(1, "# SKIP io_uring not allowed for an unprivileged user");
	else
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "noatime refused with EPERM falls back to a plain open (status %d)", status);
}

/* The per-file hooks read a file exactly. */
static void test_hooks(void)
{
	char path[128];
	struct bopen o = {.size = file_size(5), .noatime = 1, .comm = MPI_COMM_SELF, .x = NULL};
	struct bfile f = {.fd = -1, .priv = NULL, .path = path, .noatime_used = 0};
	unsigned char *buf = NULL;
	uint64_t off = 0;
	int rc, same = 1, fds = count_fds();
	snprintf(path, sizeof path, "%s/f005", dir);
	ok(uring->open && uring->read && uring->close && uring->setup && uring->teardown &&
	   uring->read_share && uring->flags == BACKEND_IN_ORDER,
	   "uring fills every hook, flags: in order only");
	if (posix_memalign((void **)&buf, BACKEND_BUF_ALIGN, BACKEND_BUF_ALIGN) != 0) {
		ok(0, "buffer");
		return;
	}
	rc = uring->open(path, &o, &f);
	while (rc == 0) {
		size_t got = 0;
		rc = uring->read(&f, buf, 1 << 20, off, &got);
		if (rc != 0 || got == 0)
			break;
		for (size_t k = 0; k < got; k++)
			same &= buf[k] == pattern(5, off + k);
		off += got;
	}
	if (f.fd >= 0 && uring->close(&f) != 0)
		rc = -1;
	ok(rc == 0 && same && off == file_size(5) && f.noatime_used && count_fds() == fds,
	   "open/read/close read the 2 MiB+17 file exactly (%d, %llu bytes)", rc,
	   (unsigned long long)off);
	free(buf);
}

/* The data set: NFILES files of the sizes above, a 100-byte f997 and a 1 MiB f996 read as
 * longer items, and a directory f998 whose reads fail. */
static int make_tree(void)
{
	char path[128];
	snprintf(dir, sizeof dir, "/var/tmp/pfsread-uring-XXXXXX");
	if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0)
		return -1;
	for (uint64_t f = 0; f < NFILES; f++)
		if (write_file(f, file_size(f)) != 0)
			return -1;
	if (write_file(997, 100) != 0 || write_file(996, MIB) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/f998", dir);
	return mkdir(path, 0755);
}

#ifdef HAVE_LIBURING
/* The window of buffers in use (uring_window_next), and after a whole share within the pool. */
static void test_window(void)
{
	struct experiment x = make_x(16, 16 * MIB);
	static struct share sh;
	char why[160] = "";
	void *st = NULL;
	ok(uring_window_next(16, 1, 16, 0, 16) == 1 && uring_window_next(16, 4, 16, 0, 20) == 4,
	   "a pool's worth of reads in a row served at submission: the floor");
	ok(uring_window_next(16, 1, 16, 0, 15) == 16 && uring_window_next(2, 1, 16, 0, 3) == 2,
	   "fewer in a row: the window stays");
	ok(uring_window_next(1, 1, 16, 1, 0) == 2 && uring_window_next(4, 4, 16, 3, 0) == 8 &&
	   uring_window_next(8, 1, 16, 8, 0) == 16 && uring_window_next(16, 1, 16, 3, 0) == 16 &&
	   uring_window_next(2, 1, 3, 1, 0) == 3 && uring_window_next(1, 1, 1, 1, 0) == 1,
	   "a read left waiting: the window doubles, up to the pool and no further");
	int rc = uring->setup(&x, MIB, &st);
	if (rc == 0) {
		const struct uring_state *u = st;
		share_all(&sh);
		rc = share_read(st, &sh, MIB, 0);
		ok(rc == 0 && share_good(&sh, why, sizeof why) && u->window >= 1 &&
		   u->window <= u->nbufs, "a whole share: intact, window %u of %u (%d%s%s)",
		   u->window, u->nbufs, rc, why[0] ? ": " : "", why);
	} else {
		ok(0, "setup at depth 16 (%d)", rc);
	}
	uring->teardown(st);
}
#else
static void test_window(void) {}
#endif

/* io_uring may be compiled out, or refused by the kernel (seccomp, io_uring_disabled). */
static const char *unavailable(void)
{
	struct experiment x = make_x(4, MIB);
	void *st = NULL;
	int rc;
	if (uring == NULL)
		return "built without liburing";
	rc = uring->setup(&x, 4096, &st);
	uring->teardown(st);
	if (rc == -ENOSYS || rc == -EPERM)
		return "io_uring unavailable";
	return NULL;
}

int main(void)
{
	const char *skip = unavailable();
	if (skip != NULL) {
		printf("1..0 # SKIP %s\n", skip);
		return 0;
	}
	if (make_tree() != 0) {
		ok(0, "make the test files under /var/tmp: %s", strerror(errno));
		remove_tree();
		return tap_done();
	}
	test_matrix();
	test_ordered();
	test_ordered_errors();
	test_failure(1, 999, 5, -ENOENT);
	test_failure(4, 999, 5, -ENOENT);
	test_failure(64, 999, 0, -ENOENT);
	test_failure(64, 999, NFILES - 1, -ENOENT);
	test_failure(4, 998, 3, -EISDIR);
	test_failure(64, 998, 6, -EISDIR);
	test_failure(16, NO_PATH, 7, -ENAMETOOLONG);
	test_short(1);
	test_short(64);
	test_arguments();
	test_noatime_fallback();
	test_hooks();
	test_window();
	remove_tree();
	return tap_done();
}
