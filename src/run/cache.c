/* cache: take the page cache out of a measurement: drop it (root, once per node), or ask the
 * kernel to forget each file (fadvise), or leave it be on purpose (none). */
#include "run/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE_DROP_PATH "/proc/sys/vm/drop_caches"

int cache_check_allowed(enum cfg_cache c, struct pf_err *e)
{
	if (c != CFG_CACHE_DROP)
		return 0;
	if (access(CACHE_DROP_PATH, W_OK) != 0)
		return pf_fail_errno(e, errno,
				     "cache: drop needs root (write access to " CACHE_DROP_PATH
				     "); use cache: fadvise or run as root");
	return 0;
}

/* Write what ("3": the page cache, dentries and inodes; "2": dentries and inodes) to
 * drop_caches. */
static int cache_write_drop(const char *what, struct pf_err *e)
{
	int fd = open(CACHE_DROP_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return pf_fail_errno(e, errno, "cache: cannot open " CACHE_DROP_PATH);
	ssize_t n;
	do
		n = write(fd, what, 2);
	while (n < 0 && errno == EINTR);
	int saved = errno;
	close(fd);
	if (n != 2)
		return pf_fail_errno(e, n < 0 ? saved : EIO, "cache: cannot write " CACHE_DROP_PATH);
	return 0;
}

int cache_drop_node(struct pf_err *e)
{
	sync();
	return cache_write_drop("3\n", e);
}

int cache_drop_names_node(struct pf_err *e)
{
	return cache_write_drop("2\n", e);
}

/* Open path read-only for a probe or an fadvise, with O_NOATIME when asked and permitted
 * (owner or root; EPERM otherwise, then without): mmap marks a file accessed, so a probe
 * without it would update the atime that noatime: true promises to leave alone. */
static int cache_open(const char *path, int noatime)
{
	/* O_NONBLOCK: a named pipe must not stall the probe; the timed read will meet it */
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
	int fd = noatime ? open(path, flags | O_NOATIME) : -1;
	if (fd < 0)
		fd = open(path, flags);
	return fd;
}

int cache_fadvise_file(const char *path, int noatime, struct pf_err *e)
{
	int err, fd = cache_open(path, noatime);
	if (fd < 0) {
		err = errno;
		pf_fail_errno(e, err, "%s: cannot open", path);
		return -err;
	}
	/* DONTNEED skips dirty pages: write them back first (a file just generated is dirty). */
	if (fdatasync(fd) != 0) {
		err = errno;
		close(fd);
		pf_fail_errno(e, err, "%s: fdatasync", path);
		return -err;
	}
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err != 0)
		pf_fail_errno(e, err, "%s: posix_fadvise(DONTNEED)", path);
	return -err;
}

/* cachestat(2), Linux 6.5 on: its number is the same on every architecture listed (alpha's and
 * MIPS's tables differ); C libraries before glibc 2.38 do not name it. */
#if defined(SYS_cachestat)
#define CACHE_NR_CACHESTAT SYS_cachestat
#elif defined(__linux__) && !defined(__ILP32__) &&                                         \
	(defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) ||                     \
	 defined(__powerpc64__) || defined(__s390x__) || defined(__loongarch64))
#define CACHE_NR_CACHESTAT 451
#endif

/* The kernel's struct cachestat_range and struct cachestat, under names of our own: headers
 * before Linux 6.5 do not have them. */
struct cache_stat_range {
	uint64_t off, len;
};
struct cache_stat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* Pages of [start, start + len) in the page cache, by cachestat: the kernel counts them folio by
 * folio from the file's own index, without a mapping (a warm 1 GiB file on ext4 in 0.1 ms, where
 * mincore over a mapping looks up each of its 262,144 pages in 14 ms), and leaves the atime
 * alone. -errno where it cannot: ENOSYS before Linux 6.5, EPERM to a process that neither owns
 * the file nor may write it (the page cache is a side channel), EOPNOTSUPP on hugetlbfs. */
static int cache_stat_pages(int fd, uint64_t start, uint64_t len, uint64_t *pages)
{
#ifdef CACHE_NR_CACHESTAT
	struct cache_stat_range r = {.off = start, .len = len};
	struct cache_stat cs;
	if (syscall(CACHE_NR_CACHESTAT, fd, &r, &cs, 0) != 0)
		return -errno;
	*pages = cs.nr_cache;
	return 0;
#else
	(void)fd;
	(void)start;
	(void)len;
	(void)pages;
	return -ENOSYS;
#endif
}

/* Whether mincore tells this process the truth about path (st: its stat): the kernel answers
 * "every page resident" to a process that neither owns the file (nor is root) nor may write it,
 * a read-only mount included (the page cache is a side channel). */
static int cache_mincore_tells(const char *path, const struct stat *st)
{
	if (geteuid() == 0 || st->st_uid == geteuid())
		return 1;
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

/* Pages of [start, start + len) in the page cache, by mincore over a mapping: any kernel. */
static int cache_map_pages(int fd, uint64_t start, uint64_t len, uint64_t *pages)
{
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (map == MAP_FAILED)
		return -errno;
	long page = sysconf(_SC_PAGESIZE);
	size_t npages = (len + (uint64_t)page - 1) / (uint64_t)page;
	unsigned char *vec = malloc(npages);
	int rc = vec == NULL ? -ENOMEM : mincore(map, len, vec) == 0 ? 0 : -errno;
	*pages = 0;
	for (size_t i = 0; rc == 0 && i < npages; i++)
		*pages += vec[i] & 1;
	free(vec);
	munmap(map, len);
	return rc;
}

int cache_resident(const char *path, uint64_t offset, uint64_t len, int noatime,
		   uint64_t *resident, struct pf_err *e)
{
	*resident = 0;
	if (len == 0)
		return 0;
	int fd = cache_open(path, noatime);
	struct stat st;
	if (fd < 0)
		return 0; /* the timed read will name what is wrong with it */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), pages = 0;
	uint64_t start = offset / page * page, end = offset + len;
	int rc = cache_stat_pages(fd, start, end - start, &pages);
	if (rc == -EPERM || (rc != 0 && !cache_mincore_tells(path, &st))) {
		close(fd);
		return CACHE_UNTOLD;
	}
	if (rc != 0)
		rc = cache_map_pages(fd, start, end - start, &pages);
	close(fd);
	/* a file that cannot be mapped (ENODEV: a FUSE client in direct I/O, as pvfs2fuse is) has
	 * no pages in this node's page cache: none resident */
	if (rc == -ENODEV)
		return 0;
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: mincore", path);
	*resident = pages * page > len ? len : pages * page;
	return 0;
}

enum cache_state cache_state_of(double resident_fraction)
{
	if (isnan(resident_fraction))
		return CACHE_UNKNOWN;
	if (!(resident_fraction > CACHE_COLD_MAX))
		return CACHE_COLD;
	return resident_fraction >= CACHE_WARM_MIN ? CACHE_WARM : CACHE_MIXED;
}

const char *cache_state_name(enum cache_state s)
{
	static const char *const names[] = {"cold", "mixed", "warm", "unknown"};
	return s <= CACHE_UNKNOWN ? names[s] : "unknown";
}
