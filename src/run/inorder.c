/* inorder: the reassembly of blocks completed out of order into issue order, per stream and
 * stream after stream. Each stream keeps its blocks as a singly linked list threaded through
 * the block array, so issue, complete and next are O(1); only drop moves the order. */
#include "run/inorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int inorder_init(struct inorder *q, unsigned nstreams, unsigned nblocks)
{
	memset(q, 0, sizeof *q);
	if (nstreams == 0 || nblocks == 0 || nstreams > INT32_MAX || nblocks > INT32_MAX)
		return -EINVAL;
	q->nstreams = nstreams;
	q->nblocks = nblocks;
	q->streams = calloc(nstreams, sizeof *q->streams);
	q->after = calloc(nblocks, sizeof *q->after);
	q->complete = calloc(nblocks, sizeof *q->complete);
	q->issued = calloc(nblocks, sizeof *q->issued);
	q->order = calloc(nstreams, sizeof *q->order);
	if (!q->streams || !q->after || !q->complete || !q->issued || !q->order)
		return -ENOMEM;
	inorder_reset(q);
	return 0;
}

void inorder_free(struct inorder *q)
{
	if (q == NULL)
		return;
	free(q->streams);
	free(q->after);
	free(q->complete);
	free(q->issued);
	free(q->order);
	memset(q, 0, sizeof *q);
}

void inorder_reset(struct inorder *q)
{
	for (unsigned s = 0; s < q->nstreams; s++)
		q->streams[s] = (struct inorder_stream){-1, -1, 0, 0};
	for (unsigned b = 0; b < q->nblocks; b++) {
		q->after[b] = -1;
		q->complete[b] = 0;
		q->issued[b] = 0;
	}
	q->norder = 0;
}

int inorder_start(struct inorder *q, unsigned s)
{
	if (s >= q->nstreams)
		return -EINVAL;
	if (q->streams[s].started)
		return -EBUSY;
	q->streams[s] = (struct inorder_stream){-1, -1, 1, 0};
	q->order[q->norder++] = s; /* cannot overflow: a stream is in the order at most once */
	return 0;
}

int inorder_issue(struct inorder *q, unsigned s, unsigned b)
{
	if (s >= q->nstreams || b >= q->nblocks || !q->streams[s].started || q->streams[s].finished)
		return -EINVAL;
	if (q->issued[b])
		return -EBUSY;
	struct inorder_stream *st = &q->streams[s];
	q->issued[b] = 1;
	q->complete[b] = 0;
	q->after[b] = -1;
	if (st->last >= 0)
		q->after[st->last] = (int32_t)b;
	else
		st->first = (int32_t)b;
	st->last = (int32_t)b;
	return 0;
}

int inorder_complete(struct inorder *q, unsigned b)
{
	if (b >= q->nblocks || !q->issued[b])
		return -EINVAL;
	q->complete[b] = 1;
	return 0;
}

int inorder_finish(struct inorder *q, unsigned s)
{
	if (s >= q->nstreams || !q->streams[s].started)
		return -EINVAL;
	q->streams[s].finished = 1;
	return 0;
}

/* Stream s leaves the order: it may be started again. */
static void inorder_remove(struct inorder *q, unsigned pos)
{
	unsigned s = q->order[pos];
	memmove(&q->order[pos], &q->order[pos + 1], (q->norder - pos - 1) * sizeof *q->order);
	q->norder--;
	q->streams[s] = (struct inorder_stream){-1, -1, 0, 0};
}

int inorder_drop(struct inorder *q, unsigned s)
{
	if (s >= q->nstreams || !q->streams[s].started)
		return -EINVAL;
	if (q->streams[s].first >= 0)
		return -EBUSY;
	for (unsigned pos = 0; pos < q->norder; pos++)
		if (q->order[pos] == s) {
			inorder_remove(q, pos);
			return 0;
		}
	return -EINVAL; /* started but not in the order: cannot happen */
}

enum inorder_event inorder_next(struct inorder *q, unsigned *stream, unsigned *block)
{
	if (q->norder == 0)
		return INORDER_NONE;
	unsigned s = q->order[0];
	struct inorder_stream *st = &q->streams[s];
	*stream = s;
	if (st->first < 0) {
		if (!st->finished)
			return INORDER_NONE;
		inorder_remove(q, 0);
		return INORDER_END;
	}
	unsigned b = (unsigned)st->first;
	if (!q->complete[b])
		return INORDER_NONE;
	st->first = q->after[b];
	if (st->first < 0)
		st->last = -1;
	q->issued[b] = 0;
	q->complete[b] = 0;
	q->after[b] = -1;
	*block = b;
	return INORDER_BLOCK;
}
