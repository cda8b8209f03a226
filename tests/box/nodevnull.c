/* nodevnull: an LD_PRELOAD library for the box tests. open("/dev/null") fails with EACCES
 * in any process that is not root, as on a machine whose /dev/null is a regular file of
 * root's (a tool removed the device and a later redirection made the file): a MooseFS daemon
 * that has dropped to its working user then fails as it does there (mfsmaster's background
 * saver asserts), so a test can check that the box names that cause in one line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

static int refused(const char *path)
{
	return path != NULL && strcmp(path, "/dev/null") == 0 && geteuid() != 0;
}

/* The mode argument exists only with O_CREAT (or O_TMPFILE): read it only then. */
static int pass(const char *name, const char *path, int flags, va_list ap)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, name);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (flags & (O_CREAT | O_TMPFILE))
		return real(path, flags, (mode_t)va_arg(ap, int));
	return real(path, flags);
}

int open(const char *path, int flags, ...)
{
	if (refused(path)) {
		errno = EACCES;
		return -1;
	}
	va_list ap;
	va_start(ap, flags);
	int fd = pass("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	if (refused(path)) {
		errno = EACCES;
		return -1;
	}
	va_list ap;
	va_start(ap, flags);
	int fd = pass("open64", path, flags, ap);
	va_end(ap);
	return fd;
}
