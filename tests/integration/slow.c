/* slow: an LD_PRELOAD shim for stop.t. It makes the calls named in PFSREAD_SLOW slow
 * ("stat:2,unlinkat:2": milliseconds each), so that a stage made of many of them (a resume's
 * stat of every file, clean's unlinks, verify's reads) lasts long enough for a signal to land
 * inside it, on any machine and without filling anything. Path calls are slowed only under
 * PFSREAD_SLOW_UNDER; PFSREAD_SLOW_LOG names a file created at the first slowed call (the
 * test's cue that the stage has begun). A sleep cut short by a signal is not resumed.
 * PFSREAD_KILL_AT=pwrite:N kills the process (SIGKILL, at once) at its Nth pwrite, before
 * it writes: a run killed in the middle of writing its results file, at the same point every
 * time (resume.t). PFSREAD_HOLD_UNTIL=FILE makes each slowed call wait, instead of its
 * milliseconds, until FILE exists (or a signal comes): a command held mid-way for as long as
 * the test needs, then let go (locks.t). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long slow_ms(const char *name)
{
	const char *spec = getenv("PFSREAD_SLOW"), *p;
	size_t n = strlen(name);
	for (p = spec; p != NULL && (p = strstr(p, name)) != NULL; p += n)
		if ((p == spec || p[-1] == ',') && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return 0;
}

static void slow(const char *name, const char *path)
{
	const char *under = getenv("PFSREAD_SLOW_UNDER"), *log = getenv("PFSREAD_SLOW_LOG");
	long ms = slow_ms(name);
	if (ms <= 0 || (path != NULL && under != NULL && strncmp(path, under, strlen(under)) != 0))
		return;
	if (log != NULL) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	const char *until = getenv("PFSREAD_HOLD_UNTIL");
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000}, tick = {0, 20000000};
	if (until == NULL)
		nanosleep(&ts, NULL);
	while (until != NULL && access(until, F_OK) != 0 && nanosleep(&tick, NULL) == 0)
		;
}

/* The Nth pwrite of PFSREAD_KILL_AT=pwrite:N is never written: SIGKILL first. */
static void kill_at_pwrite(void)
{
	static long calls;
	const char *at = getenv("PFSREAD_KILL_AT");
	if (at != NULL && strncmp(at, "pwrite:", 7) == 0 && ++calls == strtol(at + 7, NULL, 10))
		raise(SIGKILL);
}

typedef int (*stat_fn)(const char *, struct stat *);
typedef int (*mkdir_fn)(const char *, mode_t);
typedef int (*unlinkat_fn)(int, const char *, int);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

#define REAL(name, type) type real = (type)dlsym(RTLD_NEXT, name)

int stat(const char *path, struct stat *st)
{
	REAL("stat", stat_fn);
	slow("stat", path);
	return real(path, st);
}

int mkdir(const char *path, mode_t mode)
{
	REAL("mkdir", mkdir_fn);
	slow("mkdir", path);
	return real(path, mode);
}

int unlinkat(int dirfd, const char *name, int flags)
{
	REAL("unlinkat", unlinkat_fn);
	slow("unlinkat", NULL);
	return real(dirfd, name, flags);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	REAL("pread", pread_fn);
	slow("pread", NULL);
	return real(fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	REAL("pread64", pread_fn);
	slow("pread", NULL);
	return real(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	REAL("pwrite", pwrite_fn);
	kill_at_pwrite();
	slow("pwrite", NULL);
	return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	REAL("pwrite64", pwrite_fn);
	kill_at_pwrite();
	slow("pwrite", NULL);
	return real(fd, buf, len, off);
}
