/* lagdir: an LD_PRELOAD shim that plays a shared file system's client which finds a directory
 * another node has just made a moment late: the first PFSREAD_LAG_COUNT calls of open (with
 * O_CREAT) and rename to a data file (a name fNNN... or a hashed one's hex digits, never
 * pfsread's .pfsread-* files) under PFSREAD_LAG_UNDER fail with ENOENT in each process,
 * whatever mkdir said; only the renames when PFSREAD_LAG_RENAMES is set. Every other call
 * passes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*rename_fn)(const char *, const char *);

/* whether this call to path, a data file under PFSREAD_LAG_UNDER, is one of the first
 * PFSREAD_LAG_COUNT */
static int lag(const char *path)
{
	static int done;
	const char *under = getenv("PFSREAD_LAG_UNDER"), *count = getenv("PFSREAD_LAG_COUNT");
	const char *base = path == NULL ? NULL : strrchr(path, '/');
	if (under == NULL || count == NULL || base == NULL ||
	    strncmp(path, under, strlen(under)) != 0 || strchr("0123456789abcdef", base[1]) == NULL ||
	    base[1] == '\0' || done >= atoi(count))
		return 0;
	done++;
	errno = ENOENT;
	return 1;
}

static int lag_open(const char *name, const char *path, int flags, va_list ap)
{
	mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
	if ((flags & O_CREAT) && getenv("PFSREAD_LAG_RENAMES") == NULL && lag(path))
		return -1;
	return ((open_fn)dlsym(RTLD_NEXT, name))(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = lag_open("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int fd = lag_open("open64", path, flags, ap);
	va_end(ap);
	return fd;
}

int rename(const char *from, const char *to)
{
	if (lag(to))
		return -1;
	return ((rename_fn)dlsym(RTLD_NEXT, "rename"))(from, to);
}
