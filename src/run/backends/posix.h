/* backend_posix: the POSIX helpers other file-descriptor backends (direct, mmap, uring) build
 * on: open, read and close of a descriptor, the fadvise hint, and the {advice: A} block. */
#ifndef PFSREAD_BACKEND_POSIX_H
#define PFSREAD_BACKEND_POSIX_H

#include "run/backend.h"

/* open(path, flags), adding O_NOATIME when o asks and it is permitted. 0 or -errno. */
int posix_open_flags(const char *path, int flags, const struct bopen *o, struct bfile *f);

/* Give fd the advice: sequential (Linux then doubles the file's read-ahead window) or
 * willneed (Linux reads the file's first read-ahead window at once); none: nothing. size: the
 * file's size when known (UINT64_MAX when not): sequential is not given to a file of one page
 * or less, which read-ahead cannot touch (the call would be the only cost). 0 or -errno. */
#define POSIX_HINT_MIN_SIZE 4096u /* Linux's smallest page */
int posix_hint_sequential(int fd, enum cfg_advice advice, uint64_t size);

/* advice "default" of an fadvise backend (posix, uring) whose own block says own (its
 * advice: key, CFG_ADVICE_DEFAULT when not given): own when given, else sequential unless the
 * config's sequential_hint: false. */
enum cfg_advice posix_advice_or(const struct experiment *x, enum cfg_advice own);

/* The fadvise backends' hints in words ("" for none). */
void posix_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len);

/* posix_open_flags, then the backend's own state: a priv_size block that init fills from the
 * open descriptor, kept in f->priv (the backend's close frees it). When init fails the file
 * is closed again and init's -errno returned. 0 or -errno. */
int posix_open_with(const char *path, int flags, const struct bopen *o, struct bfile *f,
		    size_t priv_size, int (*init)(int fd, const struct bopen *o, void *priv));

/* The posix open hook: posix_open_flags read-only, then posix_hint_sequential; when the
 * hint fails the file is closed again and the hint's -errno returned. 0 or -errno. */
int posix_open(const char *path, const struct bopen *o, struct bfile *f);

/* A pread loop that fills buf unless the file ends first. 0 or -errno. */
int posix_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got);

/* close(f->fd). 0 or -errno. */
int posix_close(struct bfile *f);

#endif
