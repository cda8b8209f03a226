/* inorder: hands blocks that complete in any order to a consumer in the order they were
 * issued: each stream's blocks in issue order, the streams one after the other in the order
 * they were started. Pure bookkeeping (no I/O, no clock), so the pipeline that feeds a digest
 * can be tested without a ring. Streams and blocks are small integers the caller owns (the
 * uring backend's slots and buffers); a block is held from issue until next() hands it out. */
#ifndef PFSREAD_INORDER_H
#define PFSREAD_INORDER_H

#include <stdint.h>

/* What next() found at the head of the order. */
enum inorder_event {
	INORDER_NONE,  /* nothing to hand out yet: the head waits for a block or for finish() */
	INORDER_BLOCK, /* *block of *stream, complete: the consumer's now (and free again) */
	INORDER_END    /* *stream is over: finished and every block handed out; it is free again */
};

struct inorder_stream {
	int32_t first;  /* the stream's oldest undelivered block, or -1 */
	int32_t last;   /* its newest, or -1 */
	int started;    /* in the order */
	int finished;   /* no more blocks will be issued for it */
};

/* The caller owns the struct; init allocates, free releases (free accepts a zeroed struct). */
struct inorder {
	unsigned nstreams, nblocks;
	struct inorder_stream *streams; /* [nstreams] */
	int32_t *after;                 /* [nblocks] the next block of the same stream, or -1 */
	unsigned char *complete;        /* [nblocks] */
	unsigned char *issued;          /* [nblocks] held by a stream */
	unsigned *order;                /* [nstreams] started streams, oldest first */
	unsigned norder;
};

/* Room for nstreams streams and nblocks blocks, all free. Returns 0, -EINVAL (a count of 0
 * or above INT32_MAX) or -ENOMEM (q then needs only inorder_free). */
int inorder_init(struct inorder *q, unsigned nstreams, unsigned nblocks);
/* Release q's arrays, leaving it zeroed; NULL is accepted. */
void inorder_free(struct inorder *q);

/* Forget every stream and block: all free again. */
void inorder_reset(struct inorder *q);

/* Append stream s to the order: its blocks come after those of every stream started before.
 * Returns 0, -EINVAL (out of range) or -EBUSY (s is started and not over). */
int inorder_start(struct inorder *q, unsigned s);

/* Block b was issued for stream s: it comes after the blocks issued for s before. Returns 0,
 * -EINVAL (out of range, s not started or already finished) or -EBUSY (b is held). */
int inorder_issue(struct inorder *q, unsigned s, unsigned b);

/* Block b's data is complete (or failed: the consumer looks at its own record). Returns 0 or
 * -EINVAL (b not issued). */
int inorder_complete(struct inorder *q, unsigned b);

/* No more blocks will be issued for s; idempotent. Returns 0 or -EINVAL (s not started). */
int inorder_finish(struct inorder *q, unsigned s);

/* Take s out of the order at once, wherever it is (its open failed). Returns 0, -EINVAL (not
 * started) or -EBUSY (it holds blocks: those must be handed out first). */
int inorder_drop(struct inorder *q, unsigned s);

/* The next thing to hand out, or INORDER_NONE. BLOCK and END remove what they name. */
enum inorder_event inorder_next(struct inorder *q, unsigned *stream, unsigned *block);

#endif
