/* backend: the ops table every read path fills (like IOR's aiori or fio's ioengines).
 * Backends only move bytes: timers, byte counts and barriers belong to the phase driver.
 * Adding one is one file in src/run/backends/ plus one line in backend.c's registry; its
 * options (config keys) are declared and read in its own file too. */
#ifndef PFSREAD_BACKEND_H
#define PFSREAD_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/err.h"
#include "util/iobuf.h"
#include "pfsread/record.h"

/* Capability flags: the core branches on these, never on a backend's name. */
#define BACKEND_BYPASSES_CACHE 0x1u /* reads never go through the page cache (O_DIRECT) */
#define BACKEND_COLLECTIVE 0x2u     /* with pattern shared, opens and reads are collective */
#define BACKEND_IN_ORDER 0x4u       /* read_share honours bshare.ordered: it can feed a digest */
#define BACKEND_MAPPED 0x8u         /* reads are page faults on a memory mapping, not read()s:
				     * no readahead runs ahead of the copy */

/* The buffer the core passes to read: aligned to BACKEND_BUF_ALIGN (then moved by the
 * backend's buffer_offset, if it has one), with room for len rounded up to BACKEND_BUF_ALIGN
 * (so an O_DIRECT tail read may ask for a whole aligned block). */
#define BACKEND_BUF_ALIGN IOBUF_ALIGN

/* What the core tells a backend about the file it opens. */
struct bopen {
	uint64_t size;                /* the file's expected size in bytes */
	int noatime;                  /* open with O_NOATIME where permitted */
	MPI_Comm comm;                /* the ranks opening this file together: MPI_COMM_SELF for
				       * pattern per-reader, the phase's readers for shared */
	const struct experiment *x;   /* backend options (mpiio hints, uring queue depth ...) */
	enum cfg_advice advice;       /* the hint to give per file: none, sequential or willneed
				       * (resolved: never default) */
	void *state;                  /* the backend's phase state from setup (NULL without) */
};

/* One open file, as a backend keeps it. */
struct bfile {
	int fd;
	void *priv;          /* backend-specific, owned by the backend */
	const char *path;    /* for messages; owned by the caller */
	int noatime_used;    /* set by open when O_NOATIME took effect */
};

/* A reader's share of a phase, for backends that keep several files in flight (read_share).
 * Item i is [offset[i], offset[i] + length[i]) of the file the core names with path(). */
struct bshare {
	uint64_t nitems;
	const uint64_t *offset;
	const uint64_t *length;
	int (*path)(const void *core, uint64_t i, char *buf, size_t len); /* 0 or -1 */
	double (*now)(const void *core); /* the phase's clock: use it for every time stamp */
	const void *core;
	const struct bopen *open;     /* comm SELF; size is the data set's nominal file size:
				       * with variable sizes, length[i] is item i's whole file */
	size_t transfer;              /* bytes per read request */
	struct file_rec *recs;        /* [nitems]: fill open_start, read_end, close_end, bytes */
	uint64_t failed;              /* on error: the item that failed */
	int (*stop)(void);            /* 1 when the run must stop: after an EINTR, give up (may be NULL) */
	/* May be NULL. Called with every block as it arrives (blocks of one item in any order):
	 * buf holds [offset, offset + len) of item i. Non-zero: the call fails with -EILSEQ. */
	int (*consume)(const void *core, uint64_t i, uint64_t offset, const void *buf, size_t len);
	/* Read-and-process (only with BACKEND_IN_ORDER): consume gets each item's blocks in
	 * offset order, whole (a short read's continuation joined to it), items one after the
	 * other in index order, while later reads stay in flight; then item_done (may be NULL)
	 * once the item's last block was consumed, with the bytes that arrived. A buffer is not
	 * read into again before consume returned. Non-zero from either: the call fails with
	 * -EILSEQ. read_end of an item is stamped after its item_done. */
	int ordered;
	int (*item_done)(const void *core, uint64_t i, uint64_t bytes);
	double wait_s;   /* out, with ordered: seconds spent submitting and waiting for I/O */
	/* May be NULL: the bytes and items done so far, once per batch of completions, for the
	 * progress lines (cheap: a clock read until a line is due). */
	void (*progress)(const void *core, uint64_t bytes, uint64_t items);
};

struct backend {
	const char *name;
	unsigned flags;
	/* Open path for reading. Collective over o->comm when the backend is BACKEND_COLLECTIVE
	 * and o->comm is not MPI_COMM_SELF. Returns 0 or -errno (-EINTR as for read). */
	int (*open)(const char *path, const struct bopen *o, struct bfile *f);
	/* Read up to len bytes at offset into buf; *got is what arrived (0 at end of file, never
	 * more than len). Short reads are the backend's business. Returns 0 or -errno; on EINTR
	 * returns -EINTR with *got set: the core retries unless the run is stopping (a signal,
	 * the phase's time limit), so a read blocked forever can be given up. */
	int (*read)(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got);
	/* Close; also called after a failed read. Returns 0 or -errno. */
	int (*close)(struct bfile *f);

	/* Optional: everything a backend needs for a phase (rings, buffer pools), made before the
	 * opening barrier and released after the closing one. */
	int (*setup)(const struct experiment *x, size_t transfer, void **state);
	void (*teardown)(void *state);
	/* Optional: read a whole share with several files in flight; replaces the core's
	 * open/read/close loop for pattern per-reader. Returns 0 or -errno (s->failed set). */
	int (*read_share)(void *state, struct bshare *s);

	/* ---- options: declared, read and described here, in the backend's own file ---- */
	/* Optional, NULL-terminated: the config's top-level keys this backend owns, with their
	 * tables (config.h, "blocks"); its values: cfg_block_values(x, block). */
	const struct cfg_block *const *config;
	/* Optional: requests in flight per reader when read_share reads a share, as x's options
	 * set it (the record's queue_depth; 1 without). */
	int (*queue_depth)(const struct experiment *x);
	/* Optional: the flags under x's options, where an option turns a capability off; without
	 * this hook the flags are flags. */
	unsigned (*flags_for)(const struct experiment *x);
	/* Optional: bytes past the core's buffer's alignment (BACKEND_BUF_ALIGN) where the reads
	 * of read() land, as x's options place them, less than a page; NULL: 0. */
	size_t (*buffer_offset)(const struct experiment *x);
	/* Optional: the fields of the phase record that this backend's options own, filled for
	 * every phase whatever its backend: the options are the experiment's. */
	void (*record)(const struct experiment *x, struct phase_info *p);

	/* ---- hints: part of the experiment, recorded per phase (sweep key advice, hints) ---- */
	/* The advice it can give, as bits 1u << enum cfg_advice; 0: only none (no hint at all). */
	unsigned advice;
	/* Optional: what sweep.advice "default" means for it under x; NULL: none. */
	enum cfg_advice (*advice_default)(const struct experiment *x);
	/* Optional: every hint it gives under x with advice a, in words, into buf ("" when it
	 * gives none): what the phase's hints attribute records. */
	void (*hints)(const struct experiment *x, enum cfg_advice a, char *buf, size_t len);
};

/* The backend called name, or NULL. */
const struct backend *backend_find(const char *name);

/* The registered name nearest to a mistyped one ("did you mean ...?"), or NULL. */
const char *backend_nearest(const char *name);

/* Comma-separated names of all backends, for messages. */
const char *backend_names(void);

#define BACKEND_BLOCKS_MAX 16 /* config blocks of all backends together */

/* Every backend's config blocks, in registry order, into blocks[0..n) and a NULL after them
 * (blocks has room for max, NULL included): what the caller hands cfg_load. Returns n. */
size_t backend_config(const struct cfg_block **blocks, size_t max);

/* b's flags under x's options (flags_for), or its flags. */
unsigned backend_flags(const struct backend *b, const struct experiment *x);

/* Where b's reads land in the core's buffer under x's options (buffer_offset), or 0. */
size_t backend_buffer_offset(const struct backend *b, const struct experiment *x);

/* The advice b gives for the asked one: default resolved by b's advice_default. */
enum cfg_advice backend_advice(const struct backend *b, const struct experiment *x,
			       enum cfg_advice asked);

/* 1 when b can give advice a (none always). */
int backend_advice_ok(const struct backend *b, enum cfg_advice a);

/* Every backend of x's sweep can give every advice of the sweep (the phases are their
 * product: a hint silently not given would be a false label). 0, or -1 with e a usage error
 * naming sweep.advice[i]. The backends' names must have been checked. */
int backend_check_advice(const struct experiment *x, struct pf_err *e);

/* Every backend's record hook on p: the fields x's backend options own. */
void backend_record(const struct experiment *x, struct phase_info *p);

/* 0 when every backend in the registry has its required hooks; else -1 with e naming it. */
int backend_check_registry(struct pf_err *e);

#endif
