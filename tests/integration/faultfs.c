/* faultfs: a read-only FUSE view of a directory that fails on command, for the fault tests
 * (hostile.t). Files read as the originals do, except where a line of the rules file says:
 *
 *   RELPATH open ERRNO          open fails with ERRNO (say 13, EACCES)
 *   RELPATH read OFFSET ERRNO   a read request that reaches OFFSET fails with ERRNO (say 5,
 *                               EIO), as one over a bad sector there; those before succeed
 *   RELPATH pathinfo TEXT       getxattr trusted.glusterfs.pathinfo answers TEXT (the rest of
 *                               the line), as a GlusterFS client does (target.t)
 *   RELPATH getxattr SECONDS    any getxattr waits SECONDS, then finds no attribute (a hung
 *                               server); RELPATH * matches every file
 *   RELPATH delay MS            each read request waits MS milliseconds before it is served
 *                               (a slow device: reads that wait on storage, on any machine);
 *                               RELPATH * matches every file
 *   RELPATH lookup MS           each getattr request (the kernel looking the name up, or its
 *                               attributes) waits MS milliseconds: a slow metadata server, which
 *                               a name the kernel holds in its caches never meets
 *
 * RELPATH is the file's path below the top, without a leading slash. The rules file is read
 * again at every open and read, so a test can change it while a run goes on. No data is
 * cached across opens (the kernel drops a file's pages when it is opened again), so a rule
 * takes effect at the next open.
 *
 * usage: faultfs SOURCE RULES MOUNTPOINT [-f] [-o OPTIONS]   (libfuse3; unmount: umount)
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char ff_source[4096];
static char ff_rules[4096];

/* The rule for path and kind ("open" or "read"): 1 with *err (and *offset) set, else 0. */
static int ff_rule(const char *path, const char *kind, long long *offset, int *err)
{
	char line[4608], rel[4096], what[16];
	int found = 0;
	FILE *f = fopen(ff_rules, "r");
	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		long long off = 0;
		int e = 0;
		if (sscanf(line, "%4095s %15s", rel, what) != 2 || strcmp(rel, path + 1) != 0 ||
		    strcmp(what, kind) != 0)
			continue;
		if (strcmp(kind, "read") == 0 ? sscanf(line, "%*s %*s %lld %d", &off, &e) == 2
					      : sscanf(line, "%*s %*s %d", &e) == 1) {
			*offset = off;
			*err = e;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* The rest of the line of the rule for path (or "*") and kind, into text. 1 when found. */
static int ff_text_rule(const char *path, const char *kind, char *text, size_t len)
{
	char line[4608], rel[4096], what[16];
	int found = 0, at = 0;
	FILE *f = fopen(ff_rules, "r");
	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "%4095s %15s %n", rel, what, &at) != 2 || strcmp(what, kind) != 0 ||
		    (strcmp(rel, path + 1) != 0 && strcmp(rel, "*") != 0))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(text, len, "%s", line + at);
		found = 1;
	}
	fclose(f);
	return found;
}

/* Hold the request ms milliseconds (a rule's wait), the whole time even across signals. */
static void ff_pause_ms(long ms)
{
	struct timespec left = {ms > 0 ? ms / 1000 : 0, ms > 0 ? ms % 1000 * 1000000L : 0};
	while (nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

static int ff_getxattr(const char *path, const char *name, char *value, size_t size)
{
	char text[4096];
	if (ff_text_rule(path, "getxattr", text, sizeof text)) {
		ff_pause_ms(atol(text) * 1000);
		return -ENODATA;
	}
	if (strcmp(name, "trusted.glusterfs.pathinfo") != 0 ||
	    !ff_text_rule(path, "pathinfo", text, sizeof text))
		return -ENODATA;
	size_t n = strlen(text);
	if (size == 0)
		return (int)n;
	if (size < n)
		return -ERANGE;
	memcpy(value, text, n);
	return (int)n;
}

static int ff_real(const char *path, char *buf, size_t len)
{
	return snprintf(buf, len, "%s%s", ff_source, path) < (int)len ? 0 : -ENAMETOOLONG;
}

static int ff_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	char real[8192], text[64];
	(void)fi;
	if (ff_real(path, real, sizeof real) != 0)
		return -ENAMETOOLONG;
	if (ff_text_rule(path, "lookup", text, sizeof text))
		ff_pause_ms(atol(text));
	return lstat(real, st) == 0 ? 0 : -errno;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	char real[8192];
	struct dirent *de;
	(void)off;
	(void)fi;
	(void)flags;
	if (ff_real(path, real, sizeof real) != 0)
		return -ENAMETOOLONG;
	DIR *d = opendir(real);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL)
		if (fill(buf, de->d_name, NULL, 0, 0) != 0)
			break;
	closedir(d);
	return 0;
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	char real[8192];
	long long off;
	int err;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	if (ff_rule(path, "open", &off, &err))
		return -err;
	if (ff_real(path, real, sizeof real) != 0)
		return -ENAMETOOLONG;
	int fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->keep_cache = 0; /* every open reads through us again */
	return 0;
}

static int ff_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	long long bad;
	int err;
	/* a request that reaches the bad offset fails whole, as one over a bad sector does (a
	 * short answer would tell the kernel the file ends there) */
	if (ff_rule(path, "read", &bad, &err) && (long long)(off + (off_t)size) > bad)
		return -err;
	char text[64];
	if (ff_text_rule(path, "delay", text, sizeof text))
		ff_pause_ms(atol(text));
	ssize_t n = pread((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int ff_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static int ff_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	return 0; /* read-only: nothing to write back */
}

static int ff_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return statvfs(ff_source, st) == 0 ? 0 : -errno;
}

static const struct fuse_operations ff_ops = {
	.getattr = ff_getattr,
	.readdir = ff_readdir,
	.open = ff_open,
	.read = ff_read,
	.release = ff_release,
	.fsync = ff_fsync,
	.statfs = ff_statfs,
	.getxattr = ff_getxattr,
};

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: faultfs SOURCE RULES MOUNTPOINT [fuse options]\n");
		return 2;
	}
	if (realpath(argv[1], ff_source) == NULL || realpath(argv[2], ff_rules) == NULL) {
		perror("faultfs: SOURCE or RULES");
		return 2;
	}
	argv[2] = argv[0]; /* fuse_main gets: faultfs MOUNTPOINT [options] */
	return fuse_main(argc - 2, argv + 2, &ff_ops, NULL);
}
