/* space: the capacity check and the guard. Figures come from statvfs (f_bavail, f_favail: what
 * an unprivileged user may still use) and, where the file system keeps one, from the user's
 * and group's quota (quotactl_fd on the directory itself, so no device name is needed). */
#include "util/space.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/units.h"

uint64_t space_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t space_mul_sat(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t space_alloc_unit(uint64_t block)
{
	return block < SPACE_ALLOC_MAX ? block : SPACE_ALLOC_MAX;
}

uint64_t space_blocks(uint64_t bytes, uint64_t block)
{
	uint64_t n = bytes / block + (bytes % block != 0);
	return space_mul_sat(n, block);
}

void space_add(struct space_need *a, const struct space_need *b)
{
	a->bytes = space_add_sat(a->bytes, b->bytes);
	a->inodes = space_add_sat(a->inodes, b->inodes);
}

void space_margin(uint64_t size, uint64_t inodes, uint64_t *bytes, uint64_t *nodes)
{
	*bytes = size / 100 * SPACE_MARGIN_PERCENT;
	*nodes = inodes / 100 * SPACE_MARGIN_PERCENT;
	if (*bytes < SPACE_MARGIN_MIN_BYTES)
		*bytes = SPACE_MARGIN_MIN_BYTES < size ? SPACE_MARGIN_MIN_BYTES : size;
	if (*nodes < SPACE_MARGIN_MIN_INODES)
		*nodes = SPACE_MARGIN_MIN_INODES < inodes ? SPACE_MARGIN_MIN_INODES : inodes;
}

void space_apply_quota(struct space_fs *fs, uint64_t blimit_kib, uint64_t used_bytes,
		       uint64_t ilimit, uint64_t used_inodes)
{
	if (blimit_kib != 0) {
		uint64_t limit = space_mul_sat(blimit_kib, 1024);
		uint64_t left = limit > used_bytes ? limit - used_bytes : 0;
		if (left < fs->free_bytes)
			fs->free_bytes = left;
		fs->quota = 1;
	}
	if (ilimit != 0) {
		uint64_t left = ilimit > used_inodes ? ilimit - used_inodes : 0;
		if (left < fs->free_inodes)
			fs->free_inodes = left;
		fs->quota = 1;
	}
}

/* The lower non-zero of a soft and a hard limit (the soft one is the one that counts). */
static uint64_t space_limit(uint64_t soft, uint64_t hard)
{
	if (soft == 0 || (hard != 0 && hard < soft))
		return hard;
	return soft;
}

/* The quota of id (a user or a group) on the file system of the directory open at fd, if
 * the file system keeps one; nothing otherwise (no quota, not supported, not permitted). */
static void space_quota(int fd, int type, unsigned id, struct space_fs *fs)
{
#ifdef SYS_quotactl_fd
	struct dqblk q;
	memset(&q, 0, sizeof q);
	/* QCMD shifts Q_GETQUOTA (0x800007) out of an int: the same bits, shifted unsigned */
	const int cmd = (int)(((unsigned)Q_GETQUOTA << SUBCMDSHIFT) | ((unsigned)type & SUBCMDMASK));
	if (syscall(SYS_quotactl_fd, fd, cmd, id, &q) != 0)
		return;
	space_apply_quota(fs, (q.dqb_valid & QIF_BLIMITS) ? space_limit(q.dqb_bsoftlimit,
									   q.dqb_bhardlimit) : 0,
			  q.dqb_curspace,
			  (q.dqb_valid & QIF_ILIMITS) ? space_limit(q.dqb_isoftlimit, q.dqb_ihardlimit)
						      : 0,
			  q.dqb_curinodes);
#else
	(void)fd;
	(void)type;
	(void)id;
	(void)fs;
#endif
}

/* The nearest existing directory at or above path, into buf. */
static int space_existing(const char *path, char *buf, size_t len, struct stat *st)
{
	if (snprintf(buf, len, "%s", path) >= (int)len)
		return -ENAMETOOLONG;
	for (;;) {
		if (stat(buf, st) == 0)
			return S_ISDIR(st->st_mode) ? 0 : -ENOTDIR;
		if (errno != ENOENT)
			return -errno;
		char *slash = strrchr(buf, '/');
		if (slash == NULL) {
			snprintf(buf, len, ".");
		} else if (slash == buf) {
			buf[1] = '\0';
		} else {
			*slash = '\0';
		}
		if (strcmp(buf, ".") == 0 || strcmp(buf, "/") == 0)
			return stat(buf, st) == 0 ? 0 : -errno;
	}
}

int space_probe(const char *path, struct space_fs *fs, struct pf_err *e)
{
	struct stat st;
	struct statvfs v;
	memset(fs, 0, sizeof *fs);
	int rc = space_existing(path, fs->path, sizeof fs->path, &st);
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: cannot tell its file system's free space", path);
	int fd = open(fs->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatvfs(fd, &v) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return pf_fail_errno(e, err, "%s: statvfs", fs->path);
	}
	fs->dev = st.st_dev;
	fs->block = v.f_frsize ? v.f_frsize : v.f_bsize ? v.f_bsize : 4096;
	fs->alloc = space_alloc_unit(fs->block);
	fs->size = space_mul_sat(v.f_blocks, fs->block);
	fs->inodes = v.f_files;
	fs->free_bytes = space_mul_sat(v.f_bavail, fs->block);
	fs->free_inodes = v.f_favail;
	if (geteuid() != 0) { /* root is not held to quotas (CAP_SYS_RESOURCE) */
		space_quota(fd, USRQUOTA, (unsigned)geteuid(), fs);
		space_quota(fd, GRPQUOTA, (unsigned)getegid(), fs);
	}
	close(fd);
	space_margin(fs->size, fs->inodes, &fs->margin_bytes, &fs->margin_inodes);
	return 0;
}

/* "1.2 TB" for messages. */
static const char *space_bytes(uint64_t b, char *buf, size_t len)
{
	return units_format_size(b, buf, len);
}

/* "4100" or "1.0e6": a count of inodes, exact while it is short. */
static const char *space_count(uint64_t n, char *buf, size_t len)
{
	if (n < 100000) {
		snprintf(buf, len, "%" PRIu64, n);
		return buf;
	}
	char tmp[16], *e;
	snprintf(tmp, sizeof tmp, "%.1e", (double)n); /* at most "1.8e+19" */
	e = strchr(tmp, 'e');
	if (e == NULL) {
		snprintf(buf, len, "%s", tmp);
		return buf;
	}
	*e = '\0';
	const char *exp = e + 1;
	if (*exp == '+')
		exp++;
	while (*exp == '0' && exp[1] != '\0')
		exp++;
	snprintf(buf, len, "%se%s", tmp, exp);
	return buf;
}

int space_check(const struct space_fs *fs, const struct space_need *need, const char *what,
		struct pf_err *e)
{
	char nb[32], ni[32], mb[32], mi[32], fb[32], fi[32];
	uint64_t bytes = space_add_sat(need->bytes, fs->margin_bytes);
	uint64_t inodes = space_add_sat(need->inodes, fs->margin_inodes);
	if (bytes <= fs->free_bytes && inodes <= fs->free_inodes)
		return 0;
	return pf_fail(e, PF_USAGE,
		       "%s needs %s and %s inodes, and a margin of %s and %s inodes stays free; "
		       "%s has %s and %s inodes free%s: refusing to start (for a file system that "
		       "misreports its free space: space_check: false)",
		       what, space_bytes(need->bytes, nb, sizeof nb),
		       space_count(need->inodes, ni, sizeof ni),
		       space_bytes(fs->margin_bytes, mb, sizeof mb),
		       space_count(fs->margin_inodes, mi, sizeof mi), fs->path,
		       space_bytes(fs->free_bytes, fb, sizeof fb),
		       space_count(fs->free_inodes, fi, sizeof fi),
		       fs->quota ? " for you (quota)" : "");
}

int space_guard(const char *path, const struct space_fs *fs, struct pf_err *e)
{
	struct space_fs now;
	char fb[32], mb[32];
	if (space_probe(path, &now, e) != 0)
		return -1;
	if (now.free_bytes > fs->margin_bytes / 2 && now.free_inodes > fs->margin_inodes / 2)
		return 0;
	return pf_fail(e, PF_RUNTIME,
		       "stopped before the file system fills: %s has %s and %" PRIu64 " inodes "
		       "free, within the margin of %s and %" PRIu64 " inodes kept free (something "
		       "else is writing there too?); nothing half-written is left, run again "
		       "once there is room",
		       now.path, space_bytes(now.free_bytes, fb, sizeof fb), now.free_inodes,
		       space_bytes(fs->margin_bytes, mb, sizeof mb), fs->margin_inodes);
}
