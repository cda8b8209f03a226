/* target_parse: what a file system says about where a file lives, read (target_lookup) and
 * parsed by hand into a short name: GlusterFS pathinfo, Lustre's layout (lov_mds_md as
 * lustre_user.h documents it; no liblustreapi), CephFS's pool, OrangeFS's datafile servers
 * (pvfs2-viewdist's output), a local block device. */
#include "run/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

/* statfs f_type of the file systems that say where a file lives (linux/magic.h and theirs) */
#define TP_FUSE 0x65735546u
#define TP_LUSTRE 0x0BD00BD0u
#define TP_CEPH 0x00c36400u
#define TP_NFS 0x6969u
#define TP_BEEGFS 0x19830326u
#define TP_GPFS 0x47504653u

/* lov_mds_md magics and sizes (lustre_user.h): v1 header 32 bytes, v3 48 (a 16-byte pool
 * name), 24 bytes per stripe with the OST index in its last 4; a composite layout (PFL,
 * FLR): a 32-byte header with the entry count at 14, 48-byte entries with the component's
 * offset from the header's start at 24. Little-endian on the wire. */
#define TP_LOV_V1 0x0BD10BD0u
#define TP_LOV_V3 0x0BD30BD0u
#define TP_LOV_COMP 0x0BD60BD0u

static uint32_t tp_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t tp_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

void target_clean(char *s)
{
	size_t n = strnlen(s, RECORD_TARGET_MAX - 1);
	s[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
}

/* Append "sep item" to out (used bytes so far in *at); 0, or -1 when it does not fit. */
static int tp_append(char *out, size_t len, size_t *at, const char *sep, const char *item,
		     size_t n)
{
	size_t s = *at ? strlen(sep) : 0;
	if (*at + s + n + 1 > len)
		return -1;
	memcpy(out + *at, sep, s);
	memcpy(out + *at + s, item, n);
	*at += s + n;
	out[*at] = '\0';
	return 0;
}

/* out holds kept of total items, separated by ','; the rest did not fit. Drop items from the
 * end until " +N" (N: the items not named) fits in len. 0, or -1 when not even one fits. */
static int tp_more(char *out, size_t len, size_t kept, size_t total)
{
	char more[32];
	for (;;) {
		snprintf(more, sizeof more, " +%zu", total - kept);
		if (strlen(out) + strlen(more) + 1 <= len) {
			strcat(out, more);
			return 0;
		}
		char *comma = strrchr(out, ',');
		if (comma == NULL || kept <= 1)
			return -1;
		*comma = '\0';
		kept--;
	}
}

int target_parse_gluster(const char *pathinfo, char *out, size_t len)
{
	size_t at = 0, bricks = 0;
	const char *p = pathinfo;
	if (len == 0)
		return -1;
	out[0] = '\0';
	while ((p = strstr(p, "<POSIX(")) != NULL) {
		const char *brick = p + 7, *close = strchr(brick, ')');
		if (close == NULL || close[1] != ':')
			return -1;
		const char *host = close + 2, *colon = strchr(host, ':');
		if (colon == NULL || colon == host || close == brick)
			return -1;
		char item[RECORD_TARGET_MAX];
		int w = snprintf(item, sizeof item, "%.*s:%.*s", (int)(colon - host), host,
				 (int)(close - brick), brick);
		if (w < 0 || (size_t)w >= sizeof item)
			return -1;
		/* a replica set that does not fit keeps its first bricks and says how many more */
		if (tp_append(out, len, &at, ",", item, (size_t)w) != 0) {
			size_t n = bricks;
			for (const char *q = p; (q = strstr(q, "<POSIX(")) != NULL; q += 7)
				n++;
			return bricks ? tp_more(out, len, bricks, n) : -1;
		}
		bricks++;
		p = colon;
	}
	return bricks ? 0 : -1;
}

int target_parse_viewdist(const char *text, char *out, size_t len)
{
	size_t at = 0, named = 0, total = 0;
	int full = 0;
	if (len == 0)
		return -1;
	out[0] = '\0';
	for (const char *p = text; *p != '\0';) {
		size_t n = strcspn(p, "\n");
		const char *eol = p + n, *dash = strstr(p, " - ");
		if (strncmp(p, "Datafile ", 9) == 0) {
			if (dash == NULL || dash > eol)
				return -1;
			const char *host = dash + 3, *scheme = strstr(host, "://");
			if (scheme != NULL && scheme < eol)
				host = scheme + 3;
			size_t h = strcspn(host, ", \n");
			if (h == 0)
				return -1;
			total++;
			if (!full && tp_append(out, len, &at, ",", host, h) != 0)
				full = 1;
			else if (!full)
				named++;
		}
		p = *eol ? eol + 1 : eol;
	}
	if (total == 0)
		return -1;
	return full ? (named ? tp_more(out, len, named, total) : -1) : 0;
}

int target_parse_mountinfo(const char *line, unsigned maj, unsigned min, char *out, size_t len)
{
	unsigned a, b;
	const char *sep = strstr(line, " - ");
	if (sscanf(line, "%*u %*u %u:%u", &a, &b) != 2 || sep == NULL)
		return -1;
	if (a != maj || b != min)
		return 0;
	const char *type = sep + 3;
	size_t n = strcspn(type, " \n"), m = type[n] == ' ' ? strcspn(type + n + 1, " \n") : 0;
	if (n == 0 || n + 1 + m >= len)
		return -1;
	memcpy(out, type, n + 1 + m); /* the type, a space, the source */
	out[n + 1 + m] = '\0';
	out[n] = ' ';
	return 1;
}

/* The stripes of one plain layout at buf[0..n): "ost A,B,..." into out. */
static int tp_lov_plain(const unsigned char *b, size_t n, char *out, size_t len)
{
	uint32_t magic = n >= 4 ? tp_le32(b) : 0;
	size_t head = magic == TP_LOV_V1 ? 32 : magic == TP_LOV_V3 ? 48 : 0;
	if (head == 0 || n < head)
		return -1;
	uint16_t count = tp_le16(b + 28);
	if (count == 0 || count == 0xffff || n < head + (size_t)count * 24)
		return -1; /* no stripes yet (a released or unallocated file) */
	size_t at = 0;
	if (tp_append(out, len, &at, "", "ost ", 4) != 0)
		return -1;
	for (uint16_t i = 0; i < count; i++) {
		char idx[16];
		int w = snprintf(idx, sizeof idx, "%u", tp_le32(b + head + (size_t)i * 24 + 20));
		if (tp_append(out, len, &at, i ? "," : "", idx, (size_t)w) != 0)
			return i ? tp_more(out, len, i, count) : -1;
	}
	return 0;
}

int target_parse_lov(const void *buf, size_t n, char *out, size_t len)
{
	const unsigned char *b = buf;
	if (len == 0 || n < 4)
		return -1;
	out[0] = '\0';
	if (tp_le32(b) != TP_LOV_COMP)
		return tp_lov_plain(b, n, out, len);
	/* a composite layout: the first component holds the file's start */
	if (n < 32 + 48 || tp_le16(b + 14) == 0)
		return -1;
	uint32_t off = tp_le32(b + 32 + 24), size = tp_le32(b + 32 + 28);
	if (off >= n || size > n - off)
		return -1;
	return tp_lov_plain(b + off, size, out, len);
}

int target_parse_blockdev(const char *link, char *out, size_t len)
{
	const char *slash = strrchr(link, '/'), *name = slash ? slash + 1 : link;
	if (*name == '\0' || len == 0 || strlen(name) >= len)
		return -1;
	strcpy(out, name);
	return 0;
}

/* The value of extended attribute name of path into buf (NUL-terminated when text), its
 * length, or -errno. */
static ssize_t tp_xattr(const char *path, const char *name, char *buf, size_t len)
{
	ssize_t n = getxattr(path, name, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

static void tp_gluster(const char *path, char *out, size_t len)
{
	char v[4096];
	ssize_t n = tp_xattr(path, "trusted.glusterfs.pathinfo", v, sizeof v);
	if (n >= 0 && target_parse_gluster(v, out, len) == 0)
		return;
	/* MooseFS and other FUSE file systems have no such attribute */
	snprintf(out, len, "unknown: a FUSE file system that names no brick (%s)",
		 n < 0 ? strerror((int)-n) : "pathinfo not understood");
}

/* The type and source of the file system holding path ("fuse pvfs2fuse#tcp://..."), from
 * /proc/self/mountinfo by st_dev: 0, or -1 when not found. */
static int tp_fstype(const char *path, char *out, size_t len)
{
	struct stat st;
	char line[4096];
	int rc = -1;
	if (stat(path, &st) != 0)
		return -1;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -1;
	while (rc != 0 && fgets(line, sizeof line, f) != NULL)
		if (target_parse_mountinfo(line, major(st.st_dev), minor(st.st_dev), out, len) == 1)
			rc = 0;
	fclose(f);
	return rc;
}

/* Whether a mount's "type source" is pvfs2fuse's: type "fuse", source
 * "pvfs2fuse#tcp://host:port/fs", whose '#' mountinfo writes as "\043" (or a subtype). */
static int tp_is_pvfs2fuse(const char *type_source)
{
	return strncmp(type_source, "fuse.pvfs2fuse ", 15) == 0 ||
	       strncmp(type_source, "fuse pvfs2fuse#", 15) == 0 ||
	       strncmp(type_source, "fuse pvfs2fuse\\043", 18) == 0;
}

/* pvfs2-viewdist -f path's output into text (at most len - 1 bytes, NUL-terminated): its
 * exit status (127: not found in PATH), or -errno when it could not be run. It finds the
 * file system through PVFS2TAB_FILE (or /etc/pvfs2tab), which must name the FUSE mount. */
static int tp_viewdist(const char *path, char *text, size_t len)
{
	int fd[2], status;
	size_t n = 0;
	if (pipe2(fd, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fd[0]);
		close(fd[1]);
		return -e;
	}
	if (pid == 0) {
		/* killed with its parent (the helper a rank gives up on) */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(fd[1], STDOUT_FILENO) < 0 ||
		    dup2(null, STDERR_FILENO) < 0)
			_exit(126);
		execlp("pvfs2-viewdist", "pvfs2-viewdist", "-f", path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		ssize_t r = read(fd[0], text + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == len - 1)
			break;
	}
	text[n] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void tp_orangefs(const char *path, char *out, size_t len)
{
	char text[8192];
	int st = tp_viewdist(path, text, sizeof text);
	if (st < 0)
		snprintf(out, len, "unknown: OrangeFS: pvfs2-viewdist: %s", strerror(-st));
	else if (st == 127)
		snprintf(out, len, "unknown: OrangeFS: no pvfs2-viewdist in PATH");
	else if (target_parse_viewdist(text, out, len) != 0)
		snprintf(out, len, "unknown: OrangeFS: pvfs2-viewdist named no server (exit %d)", st);
}

static void tp_lustre(const char *path, char *out, size_t len)
{
	char v[65536];
	ssize_t n = tp_xattr(path, "lustre.lov", v, sizeof v);
	if (n < 0)
		snprintf(out, len, "unknown: lustre.lov: %s", strerror((int)-n));
	else if (target_parse_lov(v, (size_t)n, out, len) != 0)
		snprintf(out, len, "unknown: a Lustre layout this version cannot read");
}

static void tp_ceph(const char *path, char *out, size_t len)
{
	char v[256];
	ssize_t n = tp_xattr(path, "ceph.file.layout.pool", v, sizeof v);
	if (n < 0)
		snprintf(out, len, "unknown: ceph.file.layout.pool: %s", strerror((int)-n));
	else
		snprintf(out, len, "ceph pool %s", v);
}

/* A local file: the block device of its file system, on this host. */
static void tp_block(const char *path, const char *host, const char *fs, char *out, size_t len)
{
	struct stat st;
	char sys[64], link[PATH_MAX], name[64];
	if (stat(path, &st) != 0) {
		snprintf(out, len, "unknown: %s", strerror(errno));
		return;
	}
	snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	ssize_t n = readlink(sys, link, sizeof link - 1);
	if (n < 0) {
		snprintf(out, len, "unknown: %s has no per-file target interface", fs);
		return;
	}
	link[n] = '\0';
	if (target_parse_blockdev(link, name, sizeof name) != 0)
		snprintf(out, len, "unknown: %s", sys);
	else
		snprintf(out, len, "%s:/dev/%s", host, name);
}

int target_lookup(const char *path, const char *host, char *out, size_t len)
{
	struct statfs sf;
	int per_file = 0;
	if (statfs(path, &sf) != 0) {
		snprintf(out, len, "unknown: %s", strerror(errno));
		return 0;
	}
	switch ((uint32_t)sf.f_type) {
	case TP_FUSE:
		if (tp_fstype(path, out, len) == 0 && tp_is_pvfs2fuse(out))
			tp_orangefs(path, out, len);
		else
			tp_gluster(path, out, len);
		per_file = 1;
		break;
	case TP_LUSTRE:
		tp_lustre(path, out, len);
		per_file = 1;
		break;
	case TP_CEPH:
		tp_ceph(path, out, len);
		per_file = 1;
		break;
	case TP_NFS:
		tp_block(path, host, "NFS", out, len);
		break;
	case TP_BEEGFS:
		snprintf(out, len, "unknown: BeeGFS (no documented per-file target interface used)");
		break;
	case TP_GPFS:
		snprintf(out, len, "unknown: GPFS (no documented per-file target interface used)");
		break;
	default:
		tp_block(path, host, "this file system", out, len);
		break;
	}
	target_clean(out);
	return per_file ? 0 : 1;
}
