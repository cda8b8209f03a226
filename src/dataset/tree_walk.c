/* tree_walk: tree_scan, the walk of an existing directory tree. Directories are opened
 * read-only without following links, each entry is stat'ed once, files are never opened.
 * Each directory's entries are sorted by name before its files are kept and its
 * subdirectories walked, so that the files come out in sorted path order and the sort of the
 * whole list (tree_settle) finds nothing left to do (issue 19: the sort of every full path
 * was a tenth of the scan's time; per directory the names are short and few). */
#include "dataset/tree.h"
#include "dataset/tree_build.h"

#include "util/stop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TREE_ENT_DIR UINT64_MAX /* the size of an entry that is a directory */

/* One entry of a directory being walked: its name (an offset in the names) and its size, or
 * TREE_ENT_DIR. Links and special files are counted at once and not kept. */
struct tree_ent {
	uint64_t name;
	uint64_t size;
};

/* One directory's files and subdirectories, in the order read, then sorted. */
struct tree_dirents {
	struct tree_ent *e;
	uint64_t n, cap;
	char *names;
	size_t len, room;
};

int tree_owner_reads(const struct stat *st, uid_t euid)
{
	/* The owner's bits are the owner's entry of a POSIX ACL too (looked at first), so this
	 * is what faccessat would say on a local file system; only a security module or a
	 * server deciding otherwise differs, and then the read fails at run time (exit 1)
	 * rather than at the scan. Anything else is asked of the kernel: a second system call
	 * per file, which halved the scan's rate against mdtest's stat phase (issue 19). */
	return st->st_uid == euid && (st->st_mode & S_IRUSR) != 0;
}

int tree_fs_local(long f_type)
{
	static const long local[] = {
		0xEF53,     /* ext2/3/4 */
		0x58465342, /* xfs */
		0x9123683E, /* btrfs */
		0xF2F52010, /* f2fs */
		0x01021994, /* tmpfs */
	};
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
		if (f_type == local[i])
			return 1;
	return 0;
}

/* Whether the scan may take a file's readability from its mode: on the top's local file
 * system, for its owner (tree_owner_reads). */
static int tree_mode_decides(const struct tree_scan_ctx *c, const struct stat *st)
{
	return c->mode_decides && st->st_dev == c->dev && tree_owner_reads(st, c->euid);
}

/* A directory below dirfd, read-only, never through a link; with O_NOATIME when asked and
 * permitted (only the owner or root may: EPERM otherwise, then without). */
static int tree_open_dir(int dirfd, const char *name, int noatime)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = noatime ? openat(dirfd, name, flags | O_NOATIME) : -1;
	if (fd < 0)
		fd = openat(dirfd, name, flags);
	return fd;
}

/* rel/name (rel "" at the top) into sub (CFG_PATH_MAX). 0, or -1 when too long. */
static int tree_join(char *sub, const char *rel, const char *name)
{
	size_t r = strlen(rel), n = strlen(name), len = r + (r > 0) + n;
	if (len >= CFG_PATH_MAX)
		return -1;
	memcpy(sub, rel, r);
	if (r > 0)
		sub[r] = '/';
	memcpy(sub + len - n, name, n + 1);
	return 0;
}

static int tree_ents_add(struct tree_dirents *d, const char *name, uint64_t size)
{
	size_t n = strlen(name) + 1;
	if (d->n == d->cap) {
		uint64_t cap = d->cap ? 2 * d->cap : 64;
		struct tree_ent *e = realloc(d->e, cap * sizeof *e);
		if (e == NULL)
			return -ENOMEM;
		d->e = e;
		d->cap = cap;
	}
	if (d->len + n > d->room) {
		size_t room = d->room ? 2 * d->room : 4096;
		while (room < d->len + n)
			room *= 2;
		char *p = realloc(d->names, room);
		if (p == NULL)
			return -ENOMEM;
		d->names = p;
		d->room = room;
	}
	memcpy(d->names + d->len, name, n);
	d->e[d->n].name = d->len;
	d->e[d->n++].size = size;
	d->len += n;
	return 0;
}

/* The order of two entries of one directory that is the order of their full paths (bytes,
 * as strcmp): a directory's paths below it continue its name with '/', a file's name ends. */
static int tree_ent_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tree_ent *a = pa, *b = pb;
	const unsigned char *x = (const unsigned char *)arg + a->name;
	const unsigned char *y = (const unsigned char *)arg + b->name;
	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	int cx = *x != '\0' ? *x : a->size == TREE_ENT_DIR ? '/' : 0;
	int cy = *y != '\0' ? *y : b->size == TREE_ENT_DIR ? '/' : 0;
	return cx - cy;
}

/* Stat one entry of the directory at fd (rel: its path below the top) into d. */
static int tree_stat_entry(struct tree_scan_ctx *c, int fd, const char *rel, const char *name,
			   struct tree_dirents *d)
{
	char sub[CFG_PATH_MAX];
	struct stat st;
	if (tree_join(sub, rel, name) != 0)
		return tree_why(c->why, c->whylen, "%s/%s/%s: path too long (more than %d bytes "
				"below the tree's top)", c->t->source, rel, name, CFG_PATH_MAX - 1);
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return tree_why(c->why, c->whylen, "%s/%s: cannot stat: %s", c->t->source, sub,
				strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		c->t->symlinks++;
		return 0;
	}
	if (S_ISREG(st.st_mode) && !tree_mode_decides(c, &st) &&
	    faccessat(fd, name, R_OK, AT_EACCESS) != 0)
		return tree_why(c->why, c->whylen, "%s/%s: not readable: %s", c->t->source, sub,
				strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		c->t->specials++;
		return 0;
	}
	if (tree_ents_add(d, name, S_ISDIR(st.st_mode) ? TREE_ENT_DIR : (uint64_t)st.st_size) != 0)
		return tree_why(c->why, c->whylen, "%s: out of memory", c->t->source);
	return 0;
}

/* Every entry of the directory read from dir, stat'ed into d. */
static int tree_read_dir(struct tree_scan_ctx *c, DIR *dir, const char *rel,
			 struct tree_dirents *d)
{
	int rc = 0;
	struct dirent *de;
	errno = 0;
	while (rc == 0 && (de = readdir(dir)) != NULL) {
		if (stop_signal() != 0) /* a tree of millions of entries: SIGTERM is not kept waiting */
			return tree_why(c->why, c->whylen, "%s: interrupted by signal %d", c->t->source,
					stop_signal());
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = tree_stat_entry(c, dirfd(dir), rel, de->d_name, d);
		errno = 0;
	}
	if (rc == 0 && errno != 0)
		rc = tree_why(c->why, c->whylen, "%s/%s: cannot read directory: %s", c->t->source,
			      rel, strerror(errno));
	return rc;
}

static int tree_walk(struct tree_scan_ctx *c, int fd, const char *rel, uint64_t depth);

/* Entry e of the directory at fd, in sorted order: a file kept, a directory walked. */
static int tree_take(struct tree_scan_ctx *c, int fd, const char *rel, const char *name,
		     uint64_t size, uint64_t depth)
{
	char sub[CFG_PATH_MAX];
	if (tree_join(sub, rel, name) != 0)
		return -1; /* cannot be: tree_stat_entry checked the length */
	if (size != TREE_ENT_DIR)
		return tree_add_file(c, sub, size) == 0
			       ? 0 : tree_why(c->why, c->whylen, "%s: out of memory", c->t->source);
	if (depth + 1 > TREE_DEPTH_MAX)
		return tree_why(c->why, c->whylen, "%s/%s: more than %d levels deep", c->t->source,
				sub, TREE_DEPTH_MAX);
	if (tree_strs_add(&c->t->dirs, sub, strlen(sub)) != 0)
		return tree_why(c->why, c->whylen, "%s: out of memory", c->t->source);
	if (depth + 1 > c->t->depth)
		c->t->depth = depth + 1;
	int sfd = tree_open_dir(fd, name, c->noatime);
	if (sfd < 0)
		return tree_why(c->why, c->whylen, "%s/%s: cannot open directory: %s", c->t->source,
				sub, strerror(errno));
	return tree_walk(c, sfd, sub, depth + 1);
}

/* Every entry of the directory open at fd (taken over: closed here), in sorted order. */
static int tree_walk(struct tree_scan_ctx *c, int fd, const char *rel, uint64_t depth)
{
	DIR *dir = fdopendir(fd);
	if (dir == NULL) {
		int err = errno;
		close(fd);
		return tree_why(c->why, c->whylen, "%s/%s: cannot read directory: %s", c->t->source,
				rel, strerror(err));
	}
	struct tree_dirents d = {0};
	int rc = tree_read_dir(c, dir, rel, &d);
	if (rc == 0 && d.n > 1)
		qsort_r(d.e, d.n, sizeof *d.e, tree_ent_cmp, d.names);
	for (uint64_t i = 0; rc == 0 && i < d.n; i++)
		rc = tree_take(c, dirfd(dir), rel, d.names + d.e[i].name, d.e[i].size, depth);
	free(d.e);
	free(d.names);
	closedir(dir);
	return rc;
}

int tree_scan(const char *path, int noatime, struct tree_desc *t, char *why, size_t whylen)
{
	struct tree_scan_ctx c = {.t = t, .noatime = noatime, .euid = geteuid(), .why = why,
				  .whylen = whylen};
	struct statfs sf;
	struct stat st;
	memset(t, 0, sizeof *t);
	if (realpath(path, t->source) == NULL)
		return tree_why(why, whylen, "%s: %s", path, strerror(errno));
	int fd = tree_open_dir(AT_FDCWD, t->source, noatime);
	if (fd >= 0 && fstatfs(fd, &sf) == 0 && fstat(fd, &st) == 0) {
		c.mode_decides = tree_fs_local((long)sf.f_type);
		c.dev = st.st_dev;
	}
	int rc = fd < 0 ? tree_why(why, whylen, "%s: cannot open directory: %s", t->source,
				   strerror(errno))
			: tree_walk(&c, fd, "", 0);
	t->size = c.size;
	if (rc == 0 && tree_settle(t, 1) != 0)
		rc = tree_why(why, whylen, "%s: out of memory or a path too long", t->source);
	if (rc != 0)
		tree_free(t);
	return rc;
}
