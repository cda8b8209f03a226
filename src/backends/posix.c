/* posix backend: open, a pread loop, close. The reference read path. */
#include "pfsread/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int posix_open(const char *path, struct bfile *f)
{
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	return f->fd < 0 ? -errno : 0;
}

/* Fill as much of buf as the file has: pread may return less than asked without EOF. */
static int posix_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

static int posix_close(struct bfile *f)
{
	int rc = close(f->fd);
	f->fd = -1;
	return rc == 0 ? 0 : -errno;
}

const struct backend posix_backend = {
	.name = "posix",
	.flags = 0,
	.open = posix_open,
	.read = posix_read,
	.close = posix_close,
};
