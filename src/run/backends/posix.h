/* backend_posix: the POSIX helpers other file-descriptor backends (direct) build on. */
#ifndef PFSREAD_BACKEND_POSIX_H
#define PFSREAD_BACKEND_POSIX_H

#include "run/backend.h"

/* open(path, flags), adding O_NOATIME when o asks and it is permitted. 0 or -errno. */
int posix_open_flags(const char *path, int flags, const struct bopen *o, struct bfile *f);

/* Tell the kernel fd will be read from start to end when the experiment says so
 * (sequential_hint): Linux then doubles the file's read-ahead window. 0 or -errno. */
int posix_hint_sequential(int fd, const struct bopen *o);

/* posix_open_flags, then the backend's own state: a priv_size block that init fills from the
 * open descriptor, kept in f->priv (the backend's close frees it). When init fails the file
 * is closed again and init's -errno returned. 0 or -errno. */
int posix_open_with(const char *path, int flags, const struct bopen *o, struct bfile *f,
		    size_t priv_size, int (*init)(int fd, void *priv));

/* A pread loop that fills buf unless the file ends first. 0 or -errno. */
int posix_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got);

/* close(f->fd). 0 or -errno. */
int posix_close(struct bfile *f);

#endif
