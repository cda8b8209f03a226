/* backend: the ops table every read path fills (like IOR's aiori or fio's ioengines).
 * Backends only move bytes: timers, byte counts and barriers belong to the phase driver.
 * Adding one is one file in src/backends/ plus one line in backend.c's registry. */
#ifndef PFSREAD_BACKEND_H
#define PFSREAD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "pfsread/err.h"

/* Capability flags: the core branches on these, never on a backend's name. */
#define BACKEND_ALIGNED_BUF 0x1u /* wants buffers aligned to the file system's block size */

/* One open file, as a backend keeps it. */
struct bfile {
	int fd;
	void *priv;          /* backend-specific, owned by the backend */
	const char *path;    /* for messages; owned by the caller */
};

struct backend {
	const char *name;
	unsigned flags;
	/* Open path for reading. Returns 0 or -errno. */
	int (*open)(const char *path, struct bfile *f);
	/* Read up to len bytes at offset into buf; *got is what arrived (0 at end of file).
	 * Short reads and EINTR are the backend's business. Returns 0 or -errno. */
	int (*read)(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got);
	/* Close; also called after a failed read. Returns 0 or -errno. */
	int (*close)(struct bfile *f);
};

/* The backend called name, or NULL. */
const struct backend *backend_find(const char *name);

/* Comma-separated names of all backends, for messages. */
const char *backend_names(void);

/* 0 when every backend in the registry has its required hooks; else -1 with e naming it. */
int backend_check_registry(struct pf_err *e);

#endif
