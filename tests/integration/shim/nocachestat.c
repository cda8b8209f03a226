/* nocachestat: an LD_PRELOAD library for residency.t. cachestat(2) (451) answers ENOSYS, as on
 * a kernel before Linux 6.5; every other call of syscall() goes through to the C library's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

#define NOCACHESTAT_NR 451

long syscall(long number, ...)
{
	long (*next)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	long a[6];
	va_list ap;
	/* six arguments, as the C library's own syscall() takes whatever it was given */
	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == NOCACHESTAT_NR) {
		errno = ENOSYS;
		return -1;
	}
	if (next == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
