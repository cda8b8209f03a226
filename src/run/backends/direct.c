/* direct backend: O_DIRECT reads, aligned to what the file system says direct I/O needs. */
#include "run/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* statx(2) reports direct I/O alignment since Linux 6.1. glibc's struct statx (Debian 12) has
 * no fields for it, so read them at their fixed offsets in the kernel ABI (<linux/stat.h>:
 * stx_dio_mem_align at 0x98, stx_dio_offset_align at 0x9c of the 256-byte struct). */
#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x2000U
#endif
#define DIO_MEM_ALIGN_AT 0x98
#define DIO_OFFSET_ALIGN_AT 0x9c
_Static_assert(sizeof(struct statx) >= DIO_OFFSET_ALIGN_AT + sizeof(uint32_t),
	       "struct statx too small for the direct I/O alignment fields");

/* Where nothing tells us the alignment: 4096 is a multiple of every logical block size in
 * common use (512, 4096) and of the x86-64 page size Lustre's O_DIRECT wants, and an
 * over-aligned request is always accepted where an under-aligned one is refused. */
#define DIO_FALLBACK_ALIGN 4096

struct direct_priv {
	size_t mem_align; /* the buffer's address must be a multiple */
	size_t off_align; /* the file offset and the request length must be multiples */
};

/* tmpfs accepts O_DIRECT since Linux 6.6 but serves it from the page cache, where its files
 * live: a "direct" read there would time memory copies while claiming to bypass the cache.
 * Refuse it as older kernels do, so the core reports O_DIRECT as unsupported. */
static int direct_refuse_tmpfs(int fd)
{
	struct statfs sf;
	if (fstatfs(fd, &sf) != 0)
		return -errno;
	return sf.f_type == TMPFS_MAGIC ? -EINVAL : 0;
}

/* The kernel's own answer: 1 when statx reported the alignment, 0 when it could not (kernel
 * older than 6.1, or a file system that does not say), -errno on failure. */
static int direct_statx_align(int fd, struct direct_priv *p)
{
	struct statx stx;
	uint32_t mem, off;
	/* ENOSYS: a kernel before 4.11; EPERM: a container's seccomp filter that forbids statx. */
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0)
		return errno == ENOSYS || errno == EPERM ? 0 : -errno;
	if ((stx.stx_mask & STATX_DIOALIGN) == 0)
		return 0;
	memcpy(&mem, (const char *)&stx + DIO_MEM_ALIGN_AT, sizeof mem);
	memcpy(&off, (const char *)&stx + DIO_OFFSET_ALIGN_AT, sizeof off);
	/* statx(2): both 0 means direct I/O is not supported on this file. */
	if (mem == 0 || off == 0)
		return -EINVAL;
	p->mem_align = mem;
	p->off_align = off;
	return 1;
}

/* A sysfs number, or 0 when the file is missing or unreadable. */
static size_t direct_sysfs_size(const char *path)
{
	unsigned long v = 0;
	FILE *fp = fopen(path, "re");
	if (fp == NULL)
		return 0;
	if (fscanf(fp, "%lu", &v) != 1)
		v = 0;
	(void)fclose(fp); /* read-only: nothing to lose */
	return v;
}

/* The logical block size of the block device under fd's file, read from sysfs: unlike
 * BLKSSZGET it needs no device node (udev's /dev/block may be absent) and no root (the nodes
 * are 0600). A partition's directory has no queue/, its disk's (one up) does. Sets
 * DIO_FALLBACK_ALIGN where there is no block device (NFS, Lustre, FUSE, btrfs's anonymous
 * devices). 0 or -errno. */
static int direct_blockdev_align(int fd, struct direct_priv *p)
{
	static const char *const fmt[] = {
		"/sys/dev/block/%u:%u/queue/logical_block_size",
		"/sys/dev/block/%u:%u/../queue/logical_block_size",
	};
	struct stat st;
	char path[128];
	size_t lbs = 0;
	if (fstat(fd, &st) != 0)
		return -errno;
	for (size_t i = 0; i < sizeof fmt / sizeof fmt[0] && lbs == 0; i++) {
		snprintf(path, sizeof path, fmt[i], major(st.st_dev), minor(st.st_dev));
		lbs = direct_sysfs_size(path);
	}
	p->mem_align = p->off_align = lbs != 0 ? lbs : DIO_FALLBACK_ALIGN;
	return 0;
}

/* The core's buffers are aligned to BACKEND_BUF_ALIGN with room for len rounded up to it:
 * that covers any power-of-two alignment up to BACKEND_BUF_ALIGN, and nothing else. */
static int direct_align_fits(size_t a)
{
	return a != 0 && (a & (a - 1)) == 0 && a <= BACKEND_BUF_ALIGN;
}

static int direct_alignment(int fd, const struct bopen *o, void *priv)
{
	struct direct_priv *p = priv;
	(void)o;
	int rc = direct_refuse_tmpfs(fd);
	if (rc == 0)
		rc = direct_statx_align(fd, p);
	if (rc == 0)
		rc = direct_blockdev_align(fd, p);
	if (rc < 0)
		return rc;
	return direct_align_fits(p->mem_align) && direct_align_fits(p->off_align) ? 0 : -EINVAL;
}

/* -EINVAL when the file system refuses O_DIRECT (the core says so). f->priv owns the
 * alignment until close. */
static int direct_open(const char *path, const struct bopen *o, struct bfile *f)
{
	return posix_open_with(path, O_RDONLY | O_DIRECT | O_CLOEXEC, o, f,
			       sizeof(struct direct_priv), direct_alignment);
}

/* offset and buf must be aligned; the request is len rounded up to the offset alignment, which
 * the core's buffer has room for, so a file's unaligned tail still arrives in one read. */
static int direct_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	const struct direct_priv *p = f->priv;
	size_t want, done = 0;
	if (offset % p->off_align != 0 || (uintptr_t)buf % p->mem_align != 0)
		return -EINVAL;
	if (len > SIZE_MAX - p->off_align)
		return -EINVAL;
	want = (len + p->off_align - 1) / p->off_align * p->off_align;
	while (done < want) {
		ssize_t n = pread(f->fd, (char *)buf + done, want - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR) {
			/* the core decides whether to go on, from an aligned offset */
			done = done / p->off_align * p->off_align;
			*got = done < len ? done : len;
			return -EINTR;
		}
		if (n < 0)
			return -errno;
		done += (size_t)n;
		/* Only end of file ends a direct read off a block boundary; asking again from there
		 * would be an unaligned request (EINVAL), not an answer of 0. */
		if (n == 0 || done % p->off_align != 0)
			break;
	}
	*got = done < len ? done : len;
	return 0;
}

static int direct_close(struct bfile *f)
{
	free(f->priv);
	f->priv = NULL;
	return posix_close(f);
}

/* O_DIRECT gives the kernel no advice (no page cache, no read-ahead): the one hint is the
 * flag itself and the alignment it forces. */
static void direct_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len)
{
	(void)x;
	(void)a;
	snprintf(buf, len, "O_DIRECT; requests aligned to the file's direct-I/O alignment (statx "
		 "STATX_DIOALIGN, else the device's logical block size)");
}

/* direct: takes no keys; the block is there to say why, to whoever writes one. */
static const struct cfg_opt direct_no_opts[1];
static const struct cfg_block direct_block = {
	.key = "direct", .opts = direct_no_opts, .nopts = 0,
	.note = "the direct backend takes no options and gives no access hint (advice): O_DIRECT "
		"reads bypass the page cache, so there is no read-ahead to steer",
};

static const struct cfg_block *const direct_config[] = {&direct_block, NULL};

const struct backend direct_backend = {
	.name = "direct",
	.config = direct_config,
	.flags = BACKEND_BYPASSES_CACHE,
	.open = direct_open,
	.read = direct_read,
	.close = direct_close,
	.hints = direct_hints,
};
