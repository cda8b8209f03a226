/* hold: an LD_PRELOAD shim that stops a process at a chosen open until the test lets it go,
 * so that a test acts in the middle of a run at the same point on any machine, however fast.
 * The first open of a path under PFSREAD_HOLD_UNDER creates the file PFSREAD_HOLD_CUE (the
 * test's cue) and then waits until the file PFSREAD_HOLD_GO exists (60 s at most, so a test
 * that died never leaves a rank waiting for ever). Each process holds once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static void touch(const char *path)
{
	int fd = ((open_fn)dlsym(RTLD_NEXT, "open"))(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static void hold(const char *path)
{
	static int held;
	const char *under = getenv("PFSREAD_HOLD_UNDER"), *cue = getenv("PFSREAD_HOLD_CUE"),
		   *go = getenv("PFSREAD_HOLD_GO");
	if (held || under == NULL || cue == NULL || go == NULL || path == NULL ||
	    strncmp(path, under, strlen(under)) != 0)
		return;
	held = 1;
	touch(cue);
	struct timespec ts = {0, 10 * 1000000};
	for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	hold(path);
	return ((open_fn)dlsym(RTLD_NEXT, "open"))(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	hold(path);
	return ((open_fn)dlsym(RTLD_NEXT, "open64"))(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	hold(path);
	return ((openat_fn)dlsym(RTLD_NEXT, "openat"))(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	hold(path);
	return ((openat_fn)dlsym(RTLD_NEXT, "openat64"))(dirfd, path, flags, mode);
}
