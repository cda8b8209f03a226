/* calibrate_read: the uncached sequential read calibrate times (calibrate_read.h). */
#include "cmd/calibrate_read.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/stop.h"

int calrd_open(const char *path, int *direct)
{
	int fd = open(path, O_RDONLY | O_DIRECT);
	*direct = fd >= 0;
	if (fd < 0 && errno == EINVAL) {
		fd = open(path, O_RDONLY);
		if (fd >= 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
			int err = errno;
			close(fd);
			errno = err;
			return -1;
		}
	}
	return fd;
}

uint64_t calrd_transfer(const struct experiment *x)
{
	uint64_t most = 4096;
	for (size_t i = 0; i < x->ntransfers; i++)
		if (x->transfer_sizes[i] > most)
			most = x->transfer_sizes[i];
	return (most + 4095) / 4096 * 4096;
}

int64_t calrd_all(int fd, void *buf, uint64_t len, uint64_t transfer)
{
	uint64_t done = 0;
	while (done < len) {
		size_t want = (size_t)(len - done < transfer ? len - done : transfer);
		want = (want + 4095) / 4096 * 4096; /* whole blocks; the tail may come back short */
		if (stop_signal() != 0)
			return -EINTR; /* a signal: no figure, and promptly */
		ssize_t n = pread(fd, buf, want, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	return (int64_t)(done < len ? done : len);
}
