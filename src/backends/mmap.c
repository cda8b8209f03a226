/* mmap backend: map the whole file and copy out of the mapping, as a consumer of mapped data
 * would. The page faults and the kernel's readahead for them are what it measures. */
#include "pfsread/backend_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* The mapping of one open file; size is the file's size at open. */
struct mmap_priv {
	void *base; /* NULL for an empty file: mmap refuses length 0 */
	size_t size;
};

/* Map the whole of fd read-only and ask for sequential readahead. 0 or -errno; on failure
 * nothing stays mapped. */
static int mmap_map(int fd, void *priv)
{
	struct mmap_priv *p = priv;
	struct stat st;
	void *m;
	p->base = NULL;
	if (fstat(fd, &st) != 0)
		return -errno;
	p->size = (size_t)st.st_size;
	if (p->size == 0)
		return 0;
	m = mmap(NULL, p->size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	/* Without the hint the readahead differs from a read path's: fail rather than time it. */
	if (madvise(m, p->size, MADV_SEQUENTIAL) != 0) {
		int rc = -errno;
		(void)munmap(m, p->size); /* the madvise failure is the one to report */
		return rc;
	}
	p->base = m;
	return 0;
}

static int mmap_open(const char *path, const struct bopen *o, struct bfile *f)
{
	return posix_open_with(path, O_RDONLY | O_CLOEXEC, o, f,
			       sizeof(struct mmap_priv), mmap_map);
}

/* memcpy touches every byte, as a consumer would, rather than one per page. A file that
 * shrank since open would raise SIGBUS here on the pages past its new end: the core compares
 * sizes before it starts timing. */
static int mmap_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	const struct mmap_priv *p = f->priv;
	size_t n = 0;
	if (offset < p->size) {
		n = p->size - (size_t)offset;
		if (n > len)
			n = len;
		memcpy(buf, (const char *)p->base + offset, n);
	}
	*got = n;
	return 0;
}

/* Unmap, then close; the first failure is the one returned. */
static int mmap_close(struct bfile *f)
{
	struct mmap_priv *p = f->priv;
	int rc = 0, crc;
	if (p != NULL && p->base != NULL && munmap(p->base, p->size) != 0)
		rc = -errno;
	free(p);
	f->priv = NULL;
	crc = posix_close(f);
	return rc != 0 ? rc : crc;
}

const struct backend mmap_backend = {
	.name = "mmap",
	.flags = 0,
	.open = mmap_open,
	.read = mmap_read,
	.close = mmap_close,
};
