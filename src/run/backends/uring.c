/* uring backend: io_uring with several files in flight per reader (open, reads and close as
 * batched requests), a bounded queue depth and a bound on bytes in flight. This file: the ops
 * table, its options (uring: {queue_depth, max_inflight}), the phase's state (ring, buffer
 * pool, slots) made before the opening barrier and released after the closing one; the
 * pipeline itself is uring_share.c. */
#ifdef HAVE_LIBURING

#include "run/backends/posix.h"
#include "run/backends/uring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- options: uring: {queue_depth: N, max_inflight: SIZE} ---- */

static const struct uring_opts uring_defaults = {.queue_depth = 16, .max_inflight = 64ULL << 20,
						 .advice = CFG_ADVICE_DEFAULT};

static const struct cfg_opt uring_opts[] = {
	/* an int from 1 to 4096 (io_uring's largest ring) */
	{"queue_depth", CFG_OPT_INT, offsetof(struct uring_opts, queue_depth), 1, 4096, NULL},
	{"max_inflight", CFG_OPT_SIZE, offsetof(struct uring_opts, max_inflight), 1,
	 URING_INFLIGHT_MAX, "uring pool"},
	/* its posix_fadvise when sweep.advice is default (default: sequential_hint's; sequential
	 * is WILLNEED on a file longer than the pool: uring_share.c, uring_hint) */
	{"advice", CFG_OPT_ADVICE, offsetof(struct uring_opts, advice), 0, 0, NULL},
};

const struct cfg_block uring_options = {
	.key = "uring", .opts = uring_opts, .nopts = sizeof uring_opts / sizeof uring_opts[0],
	.size = sizeof(struct uring_opts), .defaults = &uring_defaults,
};

static const struct cfg_block *const uring_config[] = {&uring_options, NULL};

static unsigned uring_pow2(unsigned n)
{
	unsigned p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

/* The lightest mode the kernel accepts: DEFER_TASKRUN runs completions only when we wait,
 * in our own thread (so setup, read_share and teardown must share one thread); COOP_TASKRUN
 * avoids interrupting us for them; SUBMIT_ALL keeps a batch going past one bad SQE.
 * Older kernels refuse unknown flags with -EINVAL, so step down. */
static int uring_ring_init(struct io_uring *ring, unsigned entries)
{
	static const unsigned tries[] = {
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int rc = -EINVAL;
	for (size_t i = 0; i < sizeof tries / sizeof tries[0] && rc == -EINVAL; i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof p);
		p.flags = tries[i];
		rc = io_uring_queue_init_params(entries, ring, &p);
	}
	return rc;
}

/* Registered buffers spare the kernel pinning pages on every read. Registration counts
 * against RLIMIT_MEMLOCK for users without CAP_IPC_LOCK; when refused, plain reads do. */
static void uring_register(struct uring_state *st)
{
	struct iovec *iov;
	if (st->transfer > URING_MAX_FIXED || (iov = calloc(st->nbufs, sizeof *iov)) == NULL)
		return;
	for (unsigned b = 0; b < st->nbufs; b++) {
		iov[b].iov_base = st->pool + (size_t)b * st->stride;
		iov[b].iov_len = st->transfer;
	}
	st->fixed = io_uring_register_buffers(&st->ring, iov, st->nbufs) == 0;
	free(iov);
}

/* The pool is one allocation, touched before the timed region, on huge pages (iobuf). */
static int uring_alloc(struct uring_state *st)
{
	void *p = NULL;
	int rc = iobuf_alloc((size_t)st->nbufs * st->stride, &p);
	if (rc != 0)
		return rc;
	st->pool = p;
	st->slots = calloc(st->depth, sizeof *st->slots);
	st->reqs = calloc(st->nbufs, sizeof *st->reqs);
	st->free_bufs = calloc(st->nbufs, sizeof *st->free_bufs);
	st->free_slots = calloc(st->depth, sizeof *st->free_slots);
	st->act = calloc(st->depth, sizeof *st->act);
	st->paths = calloc(st->depth, URING_PATH_MAX);
	if (!st->slots || !st->reqs || !st->free_bufs || !st->free_slots || !st->act || !st->paths)
		return -ENOMEM;
	for (unsigned k = 0; k < st->depth; k++)
		st->slots[k].path = st->paths + (size_t)k * URING_PATH_MAX;
	return inorder_init(&st->order, st->depth, st->nbufs);
}

static void uring_teardown(void *state)
{
	struct uring_state *st = state;
	if (st == NULL)
		return;
	/* exit first: it waits for anything still in the kernel before the buffers go */
	if (st->ring_up)
		io_uring_queue_exit(&st->ring);
	free(st->pool);
	free(st->slots);
	free(st->reqs);
	free(st->free_bufs);
	free(st->free_slots);
	free(st->act);
	free(st->paths);
	inorder_free(&st->order);
	free(st);
}

/* nbufs = min(queue depth, max(1, max_inflight / transfer)); the ring has 2 * depth entries
 * so that requeued short reads and retried opens always find an SQE. *state is the caller's
 * until teardown. Returns 0 or -errno (-EINVAL for a bad depth or transfer). */
static int uring_setup(const struct experiment *x, size_t transfer, void **state)
{
	const struct uring_opts *o = cfg_block_values(x, &uring_options);
	struct uring_state *st;
	uint64_t nbufs;
	int rc;
	*state = NULL;
	if (o->queue_depth < 1 || o->queue_depth > URING_MAX_DEPTH || transfer == 0 ||
	    transfer > UINT32_MAX)
		return -EINVAL;
	if ((st = calloc(1, sizeof *st)) == NULL)
		return -ENOMEM;
	st->depth = (unsigned)o->queue_depth;
	st->transfer = transfer;
	st->stride = (transfer + URING_PAGE - 1) / URING_PAGE * URING_PAGE;
	nbufs = o->max_inflight / transfer;
	st->nbufs = nbufs < 1 ? 1 : nbufs > st->depth ? st->depth : (unsigned)nbufs;
	rc = uring_alloc(st);
	if (rc == 0)
		rc = uring_ring_init(&st->ring, uring_pow2(2 * st->depth));
	if (rc != 0) {
		uring_teardown(st);
		return rc;
	}
	st->ring_up = 1;
	uring_register(st);
	*state = st;
	return 0;
}

/* The fadvise hint as posix gives it, and the pipeline's shape. */
static enum cfg_advice uring_advice_default(const struct experiment *x)
{
	return posix_advice_or(x, ((const struct uring_opts *)cfg_block_values(x, &uring_options))
					  ->advice);
}

static void uring_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len)
{
	const struct uring_opts *o = cfg_block_values(x, &uring_options);
	char advice[96];
	if (a == CFG_ADVICE_SEQUENTIAL) /* uring_share.c: uring_hint */
		snprintf(advice, sizeof advice, "posix_fadvise(POSIX_FADV_SEQUENTIAL) per file over "
			 "4 KiB, WILLNEED if longer than the pool");
	else
		posix_hints(x, a, advice, sizeof advice);
	snprintf(buf, len, "%s%sio_uring: queue_depth %d, max_inflight %llu B, registered "
		 "buffers where the kernel allows", advice, advice[0] != '\0' ? "; " : "",
		 o->queue_depth, (unsigned long long)o->max_inflight);
}

/* The record's queue_depth: what the pipeline keeps in flight. */
static int uring_queue_depth(const struct experiment *x)
{
	return ((const struct uring_opts *)cfg_block_values(x, &uring_options))->queue_depth;
}

const struct backend uring_backend = {
	.name = "uring",
	.flags = BACKEND_IN_ORDER,
	/* the per-file hooks (pattern shared, and the registry's required three) are posix's:
	 * one synchronous request gains nothing from a ring. The pipelining is read_share. */
	.open = posix_open,
	.read = posix_read,
	.close = posix_close,
	.setup = uring_setup,
	.teardown = uring_teardown,
	.read_share = uring_read_share,
	.config = uring_config,
	.queue_depth = uring_queue_depth,
	.advice = 1u << CFG_ADVICE_SEQUENTIAL | 1u << CFG_ADVICE_WILLNEED,
	.advice_default = uring_advice_default,
	.hints = uring_hints,
};

#endif
