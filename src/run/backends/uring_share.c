/* uring share: the pipeline of the uring backend's read_share, the timed part. A reader's
 * files are opened, read and closed as batched requests, several files in flight: at most
 * the queue depth of requests and the pool's buffers of bytes; earlier files get buffers first.
 * For read-and-process phases the same pipeline runs ahead of an in-order consumer: completions
 * still arrive in any order, and inorder hands each file's blocks over in offset order. */
#ifdef HAVE_LIBURING

#include "run/backends/posix.h"
#include "run/backends/uring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t uring_tag(enum uring_kind kind, unsigned index)
{
	return (uint64_t)kind << URING_KIND_SHIFT | index;
}

/* The item's record keeps its own first errno; the call's first error wins, and from then
 * on nothing new starts and the rest drains. */
static void uring_fail(struct uring_state *st, uint64_t item, int err)
{
	if (st->s->recs[item].error == 0)
		st->s->recs[item].error = -err;
	if (st->err != 0)
		return;
	st->err = err;
	st->s->failed = item;
}

/* inorder refuses only what the pipeline never asks (its bookkeeping broke): fail the call
 * rather than hand the consumer blocks out of order. */
static void uring_order_check(struct uring_state *st, uint64_t item, int rc)
{
	if (rc != 0)
		uring_fail(st, item, -EIO);
}

/* An SQE, or NULL with the call failed. Cannot run out while at most depth requests are
 * queued in a ring of 2 * depth entries; checked all the same. */
static struct io_uring_sqe *uring_sqe(struct uring_state *st, uint64_t item)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&st->ring);
	if (sqe == NULL)
		uring_fail(st, item, -EBUSY);
	return sqe;
}

static int uring_prep_open(struct uring_state *st, unsigned k)
{
	struct uring_slot *sl = &st->slots[k];
	struct io_uring_sqe *sqe = uring_sqe(st, sl->item);
	if (sqe == NULL)
		return -EBUSY;
	io_uring_prep_openat(sqe, AT_FDCWD, sl->path,
			     O_RDONLY | O_CLOEXEC | (sl->noatime ? O_NOATIME : 0), 0);
	io_uring_sqe_set_data64(sqe, uring_tag(URING_OPEN, k));
	return 0;
}

static int uring_prep_read(struct uring_state *st, unsigned b)
{
	struct uring_read *r = &st->reqs[b];
	struct uring_slot *sl = &st->slots[r->slot];
	struct io_uring_sqe *sqe = uring_sqe(st, sl->item);
	char *buf = st->pool + (size_t)b * st->stride + r->boff;
	if (sqe == NULL)
		return -EBUSY;
	if (st->fixed)
		io_uring_prep_read_fixed(sqe, sl->fd, buf, r->len, r->off, (int)b);
	else
		io_uring_prep_read(sqe, sl->fd, buf, r->len, r->off);
	io_uring_sqe_set_data64(sqe, uring_tag(URING_READ, b));
	st->issued++;
	return 0;
}

static void uring_queue_close(struct uring_state *st, unsigned k)
{
	struct uring_slot *sl = &st->slots[k];
	struct io_uring_sqe *sqe = uring_sqe(st, sl->item);
	if (sqe == NULL)
		return;
	io_uring_prep_close(sqe, sl->fd);
	io_uring_sqe_set_data64(sqe, uring_tag(URING_CLOSE, k));
	sl->stage = SLOT_CLOSING;
	st->inflight++;
}

/* Take a free slot for the next item and queue its open. A path that does not fit fails the
 * item before anything is queued. */
static void uring_queue_open(struct uring_state *st, double now)
{
	const struct bshare *s = st->s;
	uint64_t i = st->next_item++;
	unsigned k = st->free_slots[--st->nfree_slots];
	struct uring_slot *sl = &st->slots[k];
	s->recs[i].open_start = now;
	s->recs[i].bytes = 0;
	s->recs[i].error = 0;
	if (s->path(s->core, i, sl->path, URING_PATH_MAX) != 0) {
		s->recs[i].open_end = s->recs[i].read_end = s->recs[i].close_end = now;
		st->free_slots[st->nfree_slots++] = k;
		uring_fail(st, i, -ENAMETOOLONG);
		return;
	}
	sl->item = i;
	sl->next = s->offset[i];
	sl->end = s->offset[i] + s->length[i];
	sl->bytes = 0;
	sl->fd = -1;
	sl->noatime = s->open != NULL && s->open->noatime;
	sl->eof = 0;
	sl->delivered = 0;
	sl->reads = 0;
	if (uring_prep_open(st, k) != 0) {
		s->recs[i].open_end = s->recs[i].read_end = s->recs[i].close_end = now;
		st->free_slots[st->nfree_slots++] = k;
		return;
	}
	if (st->ordered) /* the slot is free, so its stream is over: cannot be refused */
		uring_order_check(st, i, inorder_start(&st->order, k));
	sl->stage = SLOT_OPENING;
	st->act[st->nact++] = k;
	st->inflight++;
}

/* Queue the slot's next read into a free buffer. */
static void uring_queue_read(struct uring_state *st, unsigned k)
{
	struct uring_slot *sl = &st->slots[k];
	unsigned b = st->free_bufs[--st->nfree_bufs];
	struct uring_read *r = &st->reqs[b];
	uint64_t left = sl->end - sl->next;
	r->slot = k;
	r->len = (uint32_t)(left < st->s->transfer ? left : st->s->transfer);
	r->boff = 0;
	r->off = sl->next;
	if (uring_prep_read(st, b) != 0) {
		st->free_bufs[st->nfree_bufs++] = b;
		return;
	}
	sl->next += r->len;
	sl->reads++;
	st->reads++;
	st->inflight++;
	if (st->ordered)
		uring_order_check(st, sl->item, inorder_issue(&st->order, k, b));
}

/* Reads are over when none is in flight and there is nothing left to ask (the item is
 * covered, the file ended, or the call failed): stamp read_end and let the close queue.
 * Ordered, nothing left to ask finishes the stream, and reads are over once the consumer had
 * every block (so read_end spans the processing and the close waits for it). */
static void uring_settle(struct uring_state *st, unsigned k)
{
	struct uring_slot *sl = &st->slots[k];
	if (sl->stage != SLOT_READING || (sl->reads > 0 && !st->ordered))
		return;
	if (sl->next < sl->end && !sl->eof && st->err == 0)
		return;
	if (st->ordered && !sl->delivered) { /* delivered: the stream is over, long finished */
		uring_order_check(st, sl->item, inorder_finish(&st->order, k));
		return;
	}
	st->s->recs[sl->item].read_end = st->t;
	sl->stage = SLOT_CLOSE_WAIT;
}

/* Buffers the slot still needs to cover its item, capped so sums cannot overflow. */
static uint64_t uring_demand(const struct uring_state *st, const struct uring_slot *sl)
{
	uint64_t left, t = st->s->transfer;
	if (sl->stage != SLOT_OPENING && sl->stage != SLOT_READING)
		return 0;
	if (sl->eof || sl->next >= sl->end)
		return 0;
	left = sl->end - sl->next;
	return left / t + (left % t != 0);
}

/* One pass over the busy slots in item order (earlier files first: closes, then reads as
 * the window's buffers and queue room allow), then open new files while the open ones cannot
 * use all the window, so opens overlap the reads of the files before them. Ordered, a file gets
 * buffers only once every file before it asked for all of its blocks: reads are then issued
 * in the order the consumer takes them, so the blocks holding buffers are never all waiting
 * behind one that has none (no deadlock, however few the buffers). */
static void uring_fill(struct uring_state *st)
{
	uint64_t demand = 0;
	double now = 0;
	int stamped = 0, held = 0;
	for (unsigned j = 0; j < st->nact; j++) {
		unsigned k = st->act[j];
		struct uring_slot *sl = &st->slots[k];
		if (sl->stage == SLOT_READING && st->err == 0 && !held)
			while (st->nfree_bufs > 0 && st->nbufs - st->nfree_bufs < st->window &&
			       st->inflight < st->depth && sl->next < sl->end && !sl->eof &&
			       st->err == 0)
				uring_queue_read(st, k);
		uring_settle(st, k);
		if (sl->stage == SLOT_CLOSE_WAIT && st->inflight < st->depth)
			uring_queue_close(st, k);
		if (st->ordered && !held)
			held = uring_demand(st, sl) > 0;
		if (demand < st->window)
			demand += uring_demand(st, sl);
	}
	while (st->err == 0 && st->next_item < st->s->nitems && st->nfree_slots > 0 &&
	       st->inflight < st->depth && demand < st->window) {
		uint64_t i = st->next_item, len = st->s->length[i], t = st->s->transfer;
		if (!stamped) {
			now = st->s->now(st->s->core);
			stamped = 1;
		}
		uring_queue_open(st, now);
		demand += len / t + (len % t != 0);
	}
}

static void uring_release_slot(struct uring_state *st, unsigned k)
{
	unsigned j = 0;
	while (j < st->nact && st->act[j] != k)
		j++;
	if (j < st->nact)
		memmove(&st->act[j], &st->act[j + 1], (st->nact - j - 1) * sizeof *st->act);
	st->nact--;
	st->slots[k].stage = SLOT_FREE;
	st->free_slots[st->nfree_slots++] = k;
	st->items_done++;
}

/* At least the size of item i's file, for the hint: open's size is the data set's nominal
 * one (the file's own with fixed sizes), the item's end the file's own with variable ones. */
static uint64_t uring_file_size(const struct bshare *s, uint64_t i)
{
	uint64_t end = s->offset[i] + s->length[i];
	return end > s->open->size ? end : s->open->size;
}

/* The ring's way to say a file is read from start to end (advice sequential). A file (or a
 * reader's slice of it) the pool holds whole has all its reads asked at open, each served as
 * a read of its own, and POSIX_FADV_SEQUENTIAL's doubled window widens the first. A longer
 * file's reads trail one another down the file: under SEQUENTIAL Linux reads it as one chain
 * of read-ahead windows, each started when a read reaches the one before, and the ring's
 * reads wait on that chain; under POSIX_FADV_WILLNEED the first window is read at open, and
 * each ring read that misses the cache finds the file read up to it and starts a window of
 * its own, so the queue depth reaches the device (the readahead tracepoints, 4 x 1 GiB cold:
 * 16 MiB windows chained, against a window per 8 MiB read). Cold, depth 16, 4 MiB reads, in
 * rounds in turn with fio's io_uring engine at the same depth (which gives SEQUENTIAL) on a
 * 2-core virtual machine: WILLNEED read 1 GiB files at 1.09-1.69x fio's rate (median 1.28 of
 * 5; SEQUENTIAL at par, 0.85-1.39x), but 64 MiB files, which the pool holds whole, at a
 * median 0.97 with more CPU. */
static int uring_hint(const struct uring_state *st, int fd, uint64_t item)
{
	enum cfg_advice a = st->s->open->advice;
	if (a == CFG_ADVICE_SEQUENTIAL && st->s->length[item] > (uint64_t)st->nbufs * st->transfer)
		a = CFG_ADVICE_WILLNEED;
	return posix_hint_sequential(fd, a, uring_file_size(st->s, item));
}

/* O_NOATIME is refused (EPERM) on files we do not own unless privileged: open again
 * without it, reusing the request's place in the queue. */
static void uring_opened(struct uring_state *st, unsigned k, int res)
{
	struct uring_slot *sl = &st->slots[k];
	struct file_rec *r = &st->s->recs[sl->item];
	if (res == -EPERM && sl->noatime) {
		sl->noatime = 0;
		if (uring_prep_open(st, k) == 0)
			return;
		res = -EBUSY;
	}
	st->inflight--;
	r->open_end = st->t;
	if (res < 0) {
		uring_fail(st, sl->item, res);
		r->read_end = r->close_end = st->t;
		if (st->ordered) /* no block was issued: it leaves the order at once */
			uring_order_check(st, sl->item, inorder_drop(&st->order, k));
		uring_release_slot(st, k);
		return;
	}
	sl->fd = res;
	if (st->s->open != NULL &&
	    (res = uring_hint(st, sl->fd, sl->item)) != 0)
		uring_fail(st, sl->item, res); /* the close still comes: the fd is the slot's */
	sl->stage = SLOT_READING;
	uring_settle(st, k);
}

/* Ordered: the buffer's block is whole (or failed, or met the end of the file); it stays
 * taken until the consumer had it. */
static void uring_hold(struct uring_state *st, unsigned b, uint64_t item)
{
	if (inorder_complete(&st->order, b) == 0)
		return;
	uring_fail(st, item, -EIO);
	st->free_bufs[st->nfree_bufs++] = b;
}

/* A read's result: more bytes, end of file (0), or an error. A short read continues at the
 * new offset in the same buffer (network file systems return them); -EAGAIN and -EINTR are
 * retried as they stand. Ordered, the request keeps count of what its buffer holds (boff
 * bytes from off - boff) for the consumer. */
static void uring_read_done(struct uring_state *st, unsigned b, int res)
{
	struct uring_read *r = &st->reqs[b];
	struct uring_slot *sl = &st->slots[r->slot];
	if ((res == -EAGAIN || res == -EINTR) && st->err == 0 && uring_prep_read(st, b) == 0)
		return;
	if (res > 0) {
		sl->bytes += (uint64_t)res;
		st->bytes_done += (uint64_t)res;
		const struct bshare *s = st->s;
		int part = (uint32_t)res < r->len;
		if (!st->ordered && s->consume != NULL &&
		    s->consume(s->core, sl->item, r->off,
			       st->pool + (size_t)b * st->stride + r->boff, (size_t)res) != 0)
			uring_fail(st, sl->item, -EILSEQ);
		if ((part && st->err == 0) || st->ordered) {
			r->off += (uint64_t)res;
			r->boff += (size_t)res;
			r->len -= (uint32_t)res;
		}
		if (part && st->err == 0 && uring_prep_read(st, b) == 0)
			return;
	} else if (res == 0) {
		sl->eof = 1; /* a short file: the core compares bytes with the length */
	} else {
		uring_fail(st, sl->item, res);
	}
	if (st->ordered)
		uring_hold(st, b, sl->item);
	else
		st->free_bufs[st->nfree_bufs++] = b;
	st->inflight--;
	sl->reads--;
	st->reads--;
	uring_settle(st, r->slot);
}

static void uring_closed(struct uring_state *st, unsigned k, int res)
{
	struct uring_slot *sl = &st->slots[k];
	struct file_rec *r = &st->s->recs[sl->item];
	st->inflight--;
	sl->fd = -1;
	r->close_end = st->t;
	r->bytes = sl->bytes;
	if (res < 0)
		uring_fail(st, sl->item, res);
	uring_release_slot(st, k);
}

static void uring_complete(struct uring_state *st, uint64_t tag, int res)
{
	unsigned index = (unsigned)(tag & (((uint64_t)1 << URING_KIND_SHIFT) - 1));
	switch ((enum uring_kind)(tag >> URING_KIND_SHIFT)) {
	case URING_OPEN:
		uring_opened(st, index, res);
		break;
	case URING_READ:
		uring_read_done(st, index, res);
		break;
	case URING_CLOSE:
		uring_closed(st, index, res);
		break;
	case URING_CANCEL:
		st->inflight--; /* what it cancelled completes on its own, with -ECANCELED */
		break;
	}
}

/* The run must stop (a signal, the phase's time limit): fail the call, so that nothing new
 * starts, and cancel what is in the kernel (a read of a pipe that never delivers would
 * otherwise never complete); then the loop drains as after any error. */
static void uring_stop(struct uring_state *st)
{
	uint64_t item = st->nact > 0 ? st->slots[st->act[0]].item : st->next_item;
	uring_fail(st, item < st->s->nitems ? item : 0, -EINTR);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&st->ring);
	if (sqe == NULL)
		return; /* the queue is full of work that will complete and be drained */
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(sqe, uring_tag(URING_CANCEL, 0));
	st->inflight++;
}

/* Reap whatever has completed, a batch at a time with one time stamp per batch. Returns the
 * number of completions. */
static unsigned uring_reap(struct uring_state *st)
{
	struct io_uring_cqe *cqes[URING_BATCH];
	unsigned n, all = 0;
	while ((n = io_uring_peek_batch_cqe(&st->ring, cqes, URING_BATCH)) > 0) {
		st->t = st->s->now(st->s->core);
		for (unsigned i = 0; i < n; i++)
			uring_complete(st, cqes[i]->user_data, cqes[i]->res);
		io_uring_cq_advance(&st->ring, n);
		all += n;
	}
	return all;
}

/* Submit what fill queued; with wait, also sleep until at least one completion arrives.
 * -EAGAIN/-EBUSY (the kernel short of memory, or completions backed up) wait for a
 * completion when something is in the kernel. */
static int uring_submit(struct uring_state *st, int wait)
{
	for (;;) {
		int rc = wait ? io_uring_submit_and_wait(&st->ring, 1) : io_uring_submit(&st->ring);
		if (rc >= 0)
			return 0;
		if (rc == -EINTR) {
			if (st->err == 0 && st->s->stop != NULL && st->s->stop())
				uring_stop(st);
			continue;
		}
		if ((rc == -EAGAIN || rc == -EBUSY) && st->inflight > io_uring_sq_ready(&st->ring)) {
			struct io_uring_cqe *cqe;
			rc = io_uring_wait_cqe(&st->ring, &cqe);
			if (rc == 0 || rc == -EINTR)
				return 0;
		}
		return rc;
	}
}

/* The ring itself failed, so what is in flight cannot be waited for: close the open files
 * directly, stamp the busy items, and refuse further calls (teardown's queue exit then waits
 * for the kernel before the buffers are freed). */
static void uring_abandon(struct uring_state *st, int err)
{
	struct bshare *s = st->s;
	double now = s->now(s->core);
	uring_fail(st, st->nact > 0 ? st->slots[st->act[0]].item : st->next_item, err);
	for (unsigned j = 0; j < st->nact; j++) {
		struct uring_slot *sl = &st->slots[st->act[j]];
		struct file_rec *r = &s->recs[sl->item];
		if (sl->fd >= 0)
			close(sl->fd); /* the error reported is the ring's */
		if (sl->stage == SLOT_OPENING)
			r->open_end = now;
		if (sl->stage <= SLOT_READING)
			r->read_end = now;
		r->close_end = now;
		r->bytes = sl->bytes;
	}
	st->nact = 0;
	st->broken = 1;
}

/* Ordered: submit what fill queued for the buffer just freed, without waiting, so the kernel
 * reads on behind the processing. Only a stop request is acted on here: any other error
 * leaves the requests queued, and the loop's next submit meets it again and handles it. */
static void uring_refill(struct uring_state *st)
{
	const struct bshare *s = st->s;
	uring_fill(st);
	if (io_uring_sq_ready(&st->ring) == 0)
		return;
	double t0 = s->now(s->core);
	int rc = io_uring_submit(&st->ring);
	st->wait += s->now(s->core) - t0;
	if (rc == -EINTR && st->err == 0 && s->stop != NULL && s->stop())
		uring_stop(st);
}

/* Ordered: block b of slot k is next in file order. Consumed unless the call failed (then
 * what is left only drains); its buffer is free again afterwards, never before. */
static void uring_consume(struct uring_state *st, unsigned k, unsigned b)
{
	const struct bshare *s = st->s;
	const struct uring_read *r = &st->reqs[b];
	const struct uring_slot *sl = &st->slots[k];
	if (st->err == 0 && r->boff > 0 && s->consume != NULL &&
	    s->consume(s->core, sl->item, r->off - r->boff, st->pool + (size_t)b * st->stride,
		       r->boff) != 0)
		uring_fail(st, sl->item, -EILSEQ);
	st->free_bufs[st->nfree_bufs++] = b;
}

/* Ordered: slot k's item had every block; the consumer ends it (a digest compared), then
 * read_end is stamped and the close may queue. */
static void uring_item_done(struct uring_state *st, unsigned k)
{
	const struct bshare *s = st->s;
	struct uring_slot *sl = &st->slots[k];
	sl->delivered = 1;
	if (st->err == 0 && s->item_done != NULL && s->item_done(s->core, sl->item, sl->bytes) != 0)
		uring_fail(st, sl->item, -EILSEQ);
	st->t = s->now(s->core);
	uring_settle(st, k);
}

/* Ordered: hand the consumer everything that is next in file order. A stop request (the
 * processing may run long between waits, when no EINTR would tell) is looked at after each. */
static void uring_deliver(struct uring_state *st)
{
	const struct bshare *s = st->s;
	unsigned k, b;
	enum inorder_event ev;
	while ((ev = inorder_next(&st->order, &k, &b)) != INORDER_NONE) {
		if (ev == INORDER_END)
			uring_item_done(st, k);
		else
			uring_consume(st, k, b);
		if (st->err == 0 && s->stop != NULL && s->stop())
			uring_stop(st);
		if (ev == INORDER_BLOCK)
			uring_refill(st);
	}
}

/* One turn, one system call. Where the last look found reads waiting on storage, the next
 * URING_COLD_TURNS turns submit and wait in the same call (the turn would sleep anyway) and
 * count as waiting, so the window grows as before. Otherwise, and every URING_COLD_TURNS
 * turns to see whether the reads still wait: submit without waiting and reap what the
 * kernel finished while it took the requests (served from memory, that is everything); set
 * the window by whether reads were left waiting; only if nothing had completed, sleep until
 * something does, in a second call. */
static int uring_turn(struct uring_state *st)
{
	const struct bshare *s = st->s;
	double t0 = st->ordered ? s->now(s->core) : 0;
	int blind = st->cold_turns > 0;
	int rc = uring_submit(st, blind);
	if (rc == 0) {
		unsigned n = uring_reap(st);
		unsigned waiting = blind ? 1 : st->reads;
		if (st->issued > 0) {
			st->served = waiting > 0 ? 0 : st->served + st->issued;
			st->window = uring_window_next(st->window, st->floor, st->nbufs, waiting,
						       st->served);
		}
		st->issued = 0;
		st->cold_turns = blind ? st->cold_turns - 1 : waiting > 0 ? URING_COLD_TURNS : 0;
		if (n == 0 && !blind && (rc = uring_submit(st, 1)) == 0)
			uring_reap(st);
	}
	if (st->ordered)
		st->wait += s->now(s->core) - t0;
	return rc;
}

static void uring_begin(struct uring_state *st, struct bshare *s)
{
	st->s = s;
	st->ordered = s->ordered;
	st->wait = 0;
	st->bytes_done = st->items_done = 0;
	if (st->ordered)
		inorder_reset(&st->order);
	st->inflight = 0;
	st->reads = st->issued = st->served = st->cold_turns = 0;
	size_t floor = URING_WARM_BYTES / s->transfer;
	st->floor = floor < 1 ? 1 : floor > st->nbufs ? st->nbufs : (unsigned)floor;
	/* from the floor: reads that wait double it each turn, reaching the pool in a few
	 * round trips, while a warm share never fills the pool's cold buffers at all */
	st->window = st->floor;
	st->next_item = 0;
	st->err = 0;
	st->nact = 0;
	st->nfree_bufs = st->nbufs;
	for (unsigned b = 0; b < st->nbufs; b++)
		st->free_bufs[b] = st->nbufs - 1 - b;
	st->nfree_slots = st->depth;
	for (unsigned k = 0; k < st->depth; k++) {
		st->free_slots[k] = st->depth - 1 - k;
		st->slots[k].stage = SLOT_FREE;
		st->slots[k].fd = -1;
	}
	st->t = s->now(s->core);
}

/* Read items 0..nitems-1 with up to depth requests and nbufs buffers in flight; the data is
 * discarded, or with s->ordered handed to s->consume in file order (a buffer then stays taken
 * from its read's submission until consume returned, so nbufs also bounds the bytes waiting
 * for the processing). Items start in index order, so the started ones are a prefix; each started
 * item's record gets open_start, open_end, read_end, close_end, bytes and error (the errno
 * of its own failure, else 0); items never started are left as they were. A file shorter
 * than its item is not an error here: its bytes say so. On error returns -errno with
 * s->failed set, after every request has completed and every file opened has been closed.
 * s->transfer may not exceed setup's. Call from the thread that ran setup. */
int uring_read_share(void *state, struct bshare *s)
{
	struct uring_state *st = state;
	if (st->broken || s->transfer == 0 || s->transfer > st->transfer) {
		s->failed = 0;
		return st->broken ? -EIO : -EINVAL;
	}
	uring_begin(st, s);
	for (;;) {
		uring_fill(st);
		if (st->nact == 0)
			break; /* every item done, or the call failed and everything drained */
		if (st->inflight == 0) {
			uring_abandon(st, -EIO); /* cannot happen: fill always queues something */
			break;
		}
		int rc = uring_turn(st);
		if (rc < 0) {
			uring_abandon(st, rc);
			break;
		}
		if (s->progress != NULL)
			s->progress(s->core, st->bytes_done, st->items_done);
		if (st->ordered)
			uring_deliver(st);
		/* after every batch of completions, not only after an EINTR: reads served from the
		 * page cache complete without one, and the share would run on past a time limit */
		else if (st->err == 0 && s->stop != NULL && s->stop())
			uring_stop(st);
	}
	s->wait_s = st->wait;
	return st->err;
}

#endif
