/* cache: take the page cache out of a measurement: drop it (root, once per node), or ask the
 * kernel to forget each file (fadvise), or leave it be on purpose (none). */
#include "pfsread/cache.h"

#include <errno.h>
#include <fcntl.h>
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

int cache_drop_node(struct pf_err *e)
{
	sync();
	int fd = open(CACHE_DROP_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return pf_fail_errno(e, errno, "cache: cannot open " CACHE_DROP_PATH);
	ssize_t n;
	do
		n = write(fd, "3\n", 2);
	while (n < 0 && errno == EINTR);
	int saved = errno;
	close(fd);
	if (n != 2)
		return pf_fail_errno(e, n < 0 ? saved : EIO, "cache: cannot write " CACHE_DROP_PATH);
	return 0;
}

int cache_fadvise_file(const char *path, struct pf_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pf_fail_errno(e, errno, "%s: cannot open", path);
	/* DONTNEED skips dirty pages: write them back first (a file just generated is dirty). */
	if (fdatasync(fd) != 0) {
		int saved = errno;
		close(fd);
		return pf_fail_errno(e, saved, "%s: fdatasync", path);
	}
	int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: posix_fadvise(DONTNEED)", path);
	return 0;
}
