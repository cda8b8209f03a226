/* uring backend, internal: the state a phase's pipeline keeps (uring.c makes and releases it,
 * uring_share.c runs it). Only with liburing. */
#ifndef PFSREAD_BACKENDS_URING_H
#define PFSREAD_BACKENDS_URING_H

#include <liburing.h>
#include <stddef.h>
#include <stdint.h>

#include "run/backend.h"
#include "run/inorder.h"

#define URING_PATH_MAX 4352     /* CFG_PATH_MAX plus the data set's directories and name */
#define URING_BATCH 32          /* completions reaped per peek, sharing one time stamp */
#define URING_MAX_DEPTH 16384   /* entries = 2 * depth must stay within IORING_MAX_ENTRIES */
#define URING_MAX_FIXED ((size_t)1 << 30) /* the kernel's limit on one registered buffer */
#define URING_PAGE ((size_t)4096)
#define URING_WARM_BYTES ((size_t)1 << 20) /* warm, the buffers in use: what a core's cache holds */
#define URING_KIND_SHIFT 56
#define URING_COLD_TURNS 16     /* one-call turns after reads were seen waiting, between looks */

/* What a request's user_data names: the kind in the top byte, a slot or buffer index below. */
enum uring_kind { URING_OPEN = 1, URING_READ = 2, URING_CLOSE = 3, URING_CANCEL = 4 };

enum uring_stage {
	SLOT_FREE,
	SLOT_OPENING,    /* the openat is in flight */
	SLOT_READING,    /* fd open; reads queued as buffers allow */
	SLOT_CLOSE_WAIT, /* reads over; the close waits for room in the queue */
	SLOT_CLOSING     /* the close is in flight */
};

/* One file in flight. */
struct uring_slot {
	uint64_t item;
	uint64_t next;   /* next file offset to ask for */
	uint64_t end;    /* the item's end offset */
	uint64_t bytes;  /* bytes arrived so far */
	int fd;
	int noatime;     /* the open asks for O_NOATIME */
	int eof;         /* a read met the end of the file: ask for no more */
	int delivered;   /* ordered: every block consumed and item_done called */
	unsigned reads;  /* reads in flight */
	enum uring_stage stage;
	char *path;      /* must live until the openat is submitted: the kernel copies it then */
};

/* One read in flight. Its index is the index of the pool buffer it owns. */
struct uring_read {
	uint32_t slot;
	uint32_t len;    /* bytes still asked */
	size_t boff;     /* where they land in the buffer: a short read continues behind itself */
	uint64_t off;    /* file offset */
};

/* Everything a phase needs, made by setup before the timed region and owned by the backend. */
struct uring_state {
	struct io_uring ring;
	int ring_up;              /* ring initialised: teardown must exit it */
	int fixed;                /* buffers registered: reads are READ_FIXED */
	int broken;               /* the ring failed mid-call: refuse further calls */
	unsigned depth;           /* requests in flight at most; also the number of slots */
	unsigned nbufs;           /* buffers in the pool: the bound on bytes in flight */
	unsigned window;          /* buffers it may take at once, floor..nbufs, from floor */
	unsigned floor;           /* the window while reads complete at submission (window_next) */
	size_t transfer;          /* capacity of each buffer */
	size_t stride;            /* buffer spacing in the pool, a page multiple */
	char *pool;               /* nbufs * stride bytes */
	struct uring_slot *slots; /* [depth] */
	struct uring_read *reqs;  /* [nbufs] */
	unsigned *free_bufs;      /* stack of free buffer indices */
	unsigned nfree_bufs;
	unsigned *free_slots;     /* stack of free slot indices */
	unsigned nfree_slots;
	unsigned *act;            /* busy slots in item order, so earlier files get buffers first */
	unsigned nact;
	char *paths;              /* [depth][URING_PATH_MAX] */
	struct inorder order;     /* streams: slots; blocks: buffers (ordered calls only) */
	/* per read_share call */
	struct bshare *s;
	unsigned inflight;        /* requests queued or in flight */
	uint64_t next_item;       /* the next item to open */
	unsigned reads;           /* reads queued or in the kernel */
	unsigned issued;          /* reads queued since the window was last set */
	unsigned served;          /* reads in a row served at submission (none left waiting) */
	unsigned cold_turns;      /* turns left that submit and wait in one call (uring_turn) */
	int err;                  /* the call's first error */
	double t;                 /* time stamp of the batch being reaped */
	int ordered;              /* s->ordered: buffers wait for the consumer */
	double wait;              /* ordered: seconds in submit and wait */
	uint64_t bytes_done;      /* bytes arrived and items finished, for s->progress */
	uint64_t items_done;
};

#define URING_INFLIGHT_MAX (16ULL << 30) /* 16 GiB: uring.max_inflight, a rank's pool */

/* uring: {...}: the backend's options (the block uring_options reads them). */
struct uring_opts {
	int queue_depth;       /* requests in flight per reader, default 16 */
	uint64_t max_inflight; /* bytes in flight per reader (the pool), default 64 MiB */
	enum cfg_advice advice; /* its fadvise when sweep.advice is default; default: default */
};
extern const struct cfg_block uring_options;

/* The window after a turn that left waiting reads in the kernel once the submission returned
 * and its completions were reaped, with served reads in a row completed at submission. Reads
 * the kernel serves while they are submitted (from the page cache) gain nothing from other
 * buffers in flight, and each of them is one more cold destination for the kernel's copy (16
 * buffers of 2 MiB outgrow a core's cache): once a whole pool's worth in a row was served so,
 * the floor (the buffers URING_WARM_BYTES holds, at least one; small reads keep the pool and
 * its batching). A read left waiting (the device, the network) doubles the window, up to the
 * pool; a cold stream whose read-ahead serves a few reads at once thus keeps its depth. */
static inline unsigned uring_window_next(unsigned window, unsigned floor, unsigned nbufs,
					 unsigned waiting, unsigned served)
{
	if (waiting > 0)
		return window >= nbufs / 2 ? nbufs : 2 * window;
	return served >= nbufs ? floor : window;
}

/* The read_share hook (uring_share.c): the whole share in flight through the ring of state. */
int uring_read_share(void *state, struct bshare *s);

#endif
