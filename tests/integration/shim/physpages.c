/* physpages: an LD_PRELOAD library for mmap_calls.t. sysconf(_SC_PHYS_PAGES) answers
 * $PHYS_PAGES, so that a test can give pfsread a node of a few MiB of memory; every other
 * question goes to the C library unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long sysconf(int name)
{
	static long (*real)(int);
	const char *fake = getenv("PHYS_PAGES");
	if (name == _SC_PHYS_PAGES && fake != NULL)
		return strtol(fake, NULL, 10);
	if (real == NULL)
		real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	return real != NULL ? real(name) : -1;
}
