/* virtiodir: an LD_PRELOAD library for host_reclaim.t. Paths under /sys/bus/virtio/devices
 * are looked up under $VIRTIO_DEVICES instead (opendir, fopen, access), so that a test can give
 * pfsread any virtio devices it likes; every other path goes through unchanged. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VIRTIODIR_REAL "/sys/bus/virtio/devices"

/* path, or its stand-in under $VIRTIO_DEVICES in buf. */
static const char *virtiodir_path(const char *path, char *buf, size_t len)
{
	const char *fake = getenv("VIRTIO_DEVICES");
	size_t n = strlen(VIRTIODIR_REAL);
	if (fake == NULL || path == NULL || strncmp(path, VIRTIODIR_REAL, n) != 0 ||
	    (path[n] != '\0' && path[n] != '/'))
		return path;
	if (snprintf(buf, len, "%s%s", fake, path + n) >= (int)len)
		return path;
	return buf;
}

DIR *opendir(const char *path)
{
	DIR *(*next)(const char *) = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
	char buf[PATH_MAX];
	if (next == NULL) {
		errno = ENOSYS;
		return NULL;
	}
	return next(virtiodir_path(path, buf, sizeof buf));
}

FILE *fopen(const char *path, const char *mode)
{
	FILE *(*next)(const char *, const char *) =
		(FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	char buf[PATH_MAX];
	if (next == NULL) {
		errno = ENOSYS;
		return NULL;
	}
	return next(virtiodir_path(path, buf, sizeof buf), mode);
}

int access(const char *path, int mode)
{
	int (*next)(const char *, int) = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
	char buf[PATH_MAX];
	if (next == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return next(virtiodir_path(path, buf, sizeof buf), mode);
}
