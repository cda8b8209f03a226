/* enospc: an LD_PRELOAD shim for the fault tests (hostile.t). Writes to a file whose path ends
 * with $ENOSPC_SUFFIX fail with ENOSPC, as on a full file system, once they would reach
 * $ENOSPC_AT bytes; only in the process whose Open MPI rank (OMPI_COMM_WORLD_RANK) is
 * $ENOSPC_RANK when that is set. A file system that fills between pfsread's check of the room
 * left and the write itself, on one rank: the case no check can rule out.
 *
 * build: cc -shared -fPIC -o enospc.so enospc.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* 1 when a write of len bytes at off to fd must fail. */
static int enospc_hits(int fd, off_t off, size_t len)
{
	const char *suffix = getenv("ENOSPC_SUFFIX"), *at = getenv("ENOSPC_AT");
	const char *rank = getenv("ENOSPC_RANK"), *mine = getenv("OMPI_COMM_WORLD_RANK");
	char link[64], path[4096];
	if (suffix == NULL || at == NULL || (rank != NULL && (mine == NULL || strcmp(rank, mine))))
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	size_t ls = strlen(suffix);
	if ((size_t)n < ls || strcmp(path + n - ls, suffix) != 0)
		return 0;
	return (long long)off + (long long)len > atoll(at);
}

static size_t enospc_iov_len(const struct iovec *iov, int n)
{
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

#define ENOSPC_REAL(type, name, args) static type(*real) args; \
	if (real == NULL) real = (type(*) args)dlsym(RTLD_NEXT, name)

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ENOSPC_REAL(ssize_t, "pwrite", (int, const void *, size_t, off_t));
	if (enospc_hits(fd, off, len)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	ENOSPC_REAL(ssize_t, "pwrite64", (int, const void *, size_t, off_t));
	if (enospc_hits(fd, off, len)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, len, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	ENOSPC_REAL(ssize_t, "pwritev", (int, const struct iovec *, int, off_t));
	if (enospc_hits(fd, off, enospc_iov_len(iov, n))) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	ENOSPC_REAL(ssize_t, "pwritev64", (int, const struct iovec *, int, off_t));
	if (enospc_hits(fd, off, enospc_iov_len(iov, n))) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, n, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	ENOSPC_REAL(ssize_t, "write", (int, const void *, size_t));
	if (enospc_hits(fd, lseek(fd, 0, SEEK_CUR), len)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, len);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	ENOSPC_REAL(ssize_t, "writev", (int, const struct iovec *, int));
	if (enospc_hits(fd, lseek(fd, 0, SEEK_CUR), enospc_iov_len(iov, n))) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, n);
}
