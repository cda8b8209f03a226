/* tree_walk: tree_scan, the walk of an existing directory tree. Directories are opened
 * read-only without following links, each entry is stat'ed once, files are never opened.
 * Each directory's entries are sorted by name before its files are kept and its
 * subdirectories walked, so that the files come out in sorted path order and the sort of the
 * whole list (tree_settle) finds nothing left to do (a sort of every full path costs a tenth
 * of the scan's time; per directory the names are short and few). */
#include "dataset/tree.h"
#include "dataset/tree_build.h"

#include "util/stop.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define TREE_ENT_DIR UINT64_MAX /* the size of an entry that is a directory */
#define TREE_PAR_MIN 256        /* entries of a directory from which its stats run in threads */
#define TREE_THREADS_MAX 8      /* threads that stat one directory's entries at most */

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
	 * per file, which halves the scan's rate against mdtest's stat phase. */
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

/* What fstatat said of one entry (err: its errno, or 0) and, for a file whose mode does not
 * settle it, faccessat (acc: its errno, or 0). */
struct tree_st {
	struct stat st;
	int err, acc;
};

/* A slice of one directory's entries for one thread to stat. */
struct tree_slice {
	const struct tree_scan_ctx *c;
	int fd;
	const struct tree_dirents *d;
	struct tree_st *out;
	uint64_t from, to;
};

static void *tree_stat_slice(void *arg)
{
	struct tree_slice *s = arg;
	for (uint64_t i = s->from; i < s->to; i++) {
		struct tree_st *o = &s->out[i];
		const char *name = s->d->names + s->d->e[i].name;
		o->err = fstatat(s->fd, name, &o->st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
		o->acc = o->err == 0 && S_ISREG(o->st.st_mode) && !tree_mode_decides(s->c, &o->st) &&
				 faccessat(s->fd, name, R_OK, AT_EACCESS) != 0
			 ? errno : 0;
	}
	return NULL;
}

/* Stat every entry of d (in the directory at fd) into out[] (and ask the kernel whether a file
 * is readable where its mode does not settle it), in threads for a large directory:
 * a stat is a path lookup, on a network file system a round trip, and one after the other they
 * leave the other cores and the servers idle.
 * A thread that cannot be started leaves its slice to this one. */
static int tree_stat_all(const struct tree_scan_ctx *c, int fd, const struct tree_dirents *d,
			 struct tree_st *out)
{
	struct tree_slice sl[TREE_THREADS_MAX];
	pthread_t th[TREE_THREADS_MAX];
	int started[TREE_THREADS_MAX] = {0}, rc = 0;
	int t = d->n >= TREE_PAR_MIN ? c->nthreads : 1;
	for (int i = 0; i < t; i++)
		sl[i] = (struct tree_slice){c, fd, d, out, d->n * (uint64_t)i / (uint64_t)t,
					    d->n * (uint64_t)(i + 1) / (uint64_t)t};
	for (int i = 1; i < t; i++)
		started[i] = pthread_create(&th[i], NULL, tree_stat_slice, &sl[i]) == 0;
	tree_stat_slice(&sl[0]);
	for (int i = 1; i < t; i++) {
		if (!started[i])
			tree_stat_slice(&sl[i]);
		else if (pthread_join(th[i], NULL) != 0)
			rc = -1;
	}
	return rc;
}

/* Entry i of d as the stat found it (o): 1 to keep (its size set: a file's bytes or
 * TREE_ENT_DIR), 0 to leave out (a link or a special file, counted), -1 on failure (why). */
static int tree_judge(struct tree_scan_ctx *c, const char *rel, struct tree_dirents *d,
		      uint64_t i, const struct tree_st *o)
{
	char sub[CFG_PATH_MAX];
	const char *name = d->names + d->e[i].name;
	if (tree_join(sub, rel, name) != 0)
		return tree_why(c->why, c->whylen, "%s/%s/%s: path too long (more than %d bytes "
				"below the tree's top)", c->t->source, rel, name, CFG_PATH_MAX - 1);
	if (o->err != 0)
		return tree_why(c->why, c->whylen, "%s/%s: cannot stat: %s", c->t->source, sub,
				strerror(o->err));
	if (S_ISLNK(o->st.st_mode)) {
		c->t->symlinks++;
		return 0;
	}
	if (o->acc != 0)
		return tree_why(c->why, c->whylen, "%s/%s: not readable: %s", c->t->source, sub,
				strerror(o->acc));
	if (!S_ISREG(o->st.st_mode) && !S_ISDIR(o->st.st_mode)) {
		c->t->specials++;
		return 0;
	}
	d->e[i].size = S_ISDIR(o->st.st_mode) ? TREE_ENT_DIR : (uint64_t)o->st.st_size;
	return 1;
}

/* d's entries stat'ed and judged in the order read; the kept ones moved to the front. */
static int tree_stat_dir(struct tree_scan_ctx *c, int fd, const char *rel, struct tree_dirents *d)
{
	struct tree_st *out = d->n > 0 ? malloc(d->n * sizeof *out) : NULL;
	if (d->n > 0 && out == NULL)
		return tree_why(c->why, c->whylen, "%s: out of memory", c->t->source);
	if (tree_stat_all(c, fd, d, out) != 0) {
		free(out);
		return tree_why(c->why, c->whylen, "%s/%s: a stat thread could not be joined",
				c->t->source, rel);
	}
	uint64_t kept = 0;
	int rc = 0;
	for (uint64_t i = 0; rc >= 0 && i < d->n; i++) {
		rc = tree_judge(c, rel, d, i, &out[i]);
		if (rc > 0)
			d->e[kept++] = d->e[i];
	}
	free(out);
	d->n = kept;
	return rc < 0 ? -1 : 0;
}

/* Every entry of the directory read from dir into d (names only), then stat'ed. */
static int tree_read_dir(struct tree_scan_ctx *c, DIR *dir, const char *rel,
			 struct tree_dirents *d)
{
	struct dirent *de;
	errno = 0;
	while ((de = readdir(dir)) != NULL) {
		if (stop_signal() != 0) /* a tree of millions of entries: SIGTERM is not kept waiting */
			return tree_why(c->why, c->whylen, "%s: interrupted by signal %d", c->t->source,
					stop_signal());
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    tree_ents_add(d, de->d_name, 0) != 0)
			return tree_why(c->why, c->whylen, "%s: out of memory", c->t->source);
		errno = 0;
	}
	if (errno != 0)
		return tree_why(c->why, c->whylen, "%s/%s: cannot read directory: %s", c->t->source,
				rel, strerror(errno));
	return tree_stat_dir(c, dirfd(dir), rel, d);
}

static int tree_walk(struct tree_scan_ctx *c, int fd, const char *rel, uint64_t depth);

/* Entry e of the directory at fd, in sorted order: a file kept, a directory walked. */
static int tree_take(struct tree_scan_ctx *c, int fd, const char *rel, const char *name,
		     uint64_t size, uint64_t depth)
{
	char sub[CFG_PATH_MAX];
	if (tree_join(sub, rel, name) != 0)
		return -1; /* cannot be: tree_judge checked the length */
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
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct tree_scan_ctx c = {.t = t, .noatime = noatime, .euid = geteuid(), .why = why,
				  .whylen = whylen,
				  .nthreads = cpus < 1 ? 1 : cpus > TREE_THREADS_MAX ? TREE_THREADS_MAX
										  : (int)cpus};
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
