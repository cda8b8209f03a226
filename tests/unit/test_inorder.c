/* test_inorder: blocks completed in random order come out in issue order, stream after
 * stream; a block is never handed out before it completes nor twice; streams without blocks
 * end in their turn; a pool smaller than the work never deadlocks when blocks go to streams in
 * order (the uring pipeline's rule); the argument errors. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "run/inorder.h"
#include "tap.h"

#define MAXSTREAMS 8
#define MAXBLOCKS 64
#define MAXWORK 4096

static uint64_t rng_state;

static unsigned rng(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng_state >> 33) % n);
}

/* A simulated reader: nitems files of blocks[i] blocks each, through nstreams stream slots
 * and a pool of nblocks blocks, completions picked at random among those in flight. */
struct sim {
	unsigned nitems, nstreams, nblocks;
	unsigned blocks[MAXWORK];
	int interleave;            /* 1: any started item may take a block, not only the oldest */
	/* state */
	unsigned next_item;        /* the next item to start */
	unsigned slot_item[MAXSTREAMS];
	unsigned slot_issued[MAXSTREAMS];
	int slot_busy[MAXSTREAMS];
	unsigned block_item[MAXBLOCKS], block_seq[MAXBLOCKS];
	int block_state[MAXBLOCKS]; /* 0 free, 1 in flight, 2 complete, not handed out */
	/* what came out */
	unsigned out_item, out_seq; /* the next expected block */
	unsigned ended;             /* items ended so far, in order */
	int bad;
	char why[160];
};

static void sim_fail(struct sim *m, const char *why)
{
	if (!m->bad)
		snprintf(m->why, sizeof m->why, "%s (item %u seq %u)", why, m->out_item, m->out_seq);
	m->bad = 1;
}

/* Start items while a slot is free. */
static void sim_start(struct sim *m, struct inorder *q)
{
	for (unsigned s = 0; s < m->nstreams && m->next_item < m->nitems; s++) {
		if (m->slot_busy[s])
			continue;
		if (inorder_start(q, s) != 0)
			sim_fail(m, "start refused");
		m->slot_busy[s] = 1;
		m->slot_item[s] = m->next_item++;
		m->slot_issued[s] = 0;
		if (m->blocks[m->slot_item[s]] == 0 && inorder_finish(q, s) != 0)
			sim_fail(m, "finish refused");
	}
}

/* The busy slot holding the oldest item that still has blocks to issue, or, interleaving,
 * any busy slot with blocks to issue; -1 when none. */
static int sim_pick(struct sim *m)
{
	int best = -1, cand[MAXSTREAMS], n = 0;
	for (unsigned s = 0; s < m->nstreams; s++) {
		if (!m->slot_busy[s] || m->slot_issued[s] >= m->blocks[m->slot_item[s]])
			continue;
		cand[n++] = (int)s;
		if (best < 0 || m->slot_item[s] < m->slot_item[best])
			best = (int)s;
	}
	return m->interleave && n > 0 ? cand[rng((unsigned)n)] : best;
}

static void sim_issue(struct sim *m, struct inorder *q)
{
	for (unsigned b = 0; b < m->nblocks; b++) {
		int s = m->block_state[b] == 0 ? sim_pick(m) : -1;
		if (s < 0)
			continue;
		if (inorder_issue(q, (unsigned)s, b) != 0)
			sim_fail(m, "issue refused");
		m->block_state[b] = 1;
		m->block_item[b] = m->slot_item[s];
		m->block_seq[b] = m->slot_issued[s]++;
		if (m->slot_issued[s] == m->blocks[m->slot_item[s]] && inorder_finish(q, (unsigned)s) != 0)
			sim_fail(m, "finish refused");
	}
}

/* Complete one block in flight, at random; 0 when none is in flight. */
static int sim_complete(struct sim *m, struct inorder *q)
{
	unsigned flying[MAXBLOCKS], n = 0;
	for (unsigned b = 0; b < m->nblocks; b++)
		if (m->block_state[b] == 1)
			flying[n++] = b;
	if (n == 0)
		return 0;
	unsigned b = flying[rng(n)];
	m->block_state[b] = 2;
	if (inorder_complete(q, b) != 0)
		sim_fail(m, "complete refused");
	return 1;
}

/* Hand out what is ready; returns how many blocks and ends came out. */
static unsigned sim_drain(struct sim *m, struct inorder *q)
{
	unsigned s, b, n = 0;
	enum inorder_event ev;
	while ((ev = inorder_next(q, &s, &b)) != INORDER_NONE) {
		n++;
		if (ev == INORDER_BLOCK) {
			if (m->block_state[b] != 2)
				sim_fail(m, "a block handed out before it completed");
			if (m->block_item[b] != m->out_item || m->block_seq[b] != m->out_seq ||
			    m->slot_item[s] != m->out_item)
				sim_fail(m, "a block out of order");
			m->block_state[b] = 0;
			m->out_seq++;
			continue;
		}
		if (m->slot_item[s] != m->out_item || m->out_seq != m->blocks[m->out_item])
			sim_fail(m, "an item ended early or out of turn");
		m->slot_busy[s] = 0;
		m->ended++;
		m->out_item++;
		m->out_seq = 0;
	}
	return n;
}

/* Run to the end; 1 when every block came out once, in order, and every item ended. A turn
 * in which nothing completes and nothing comes out is a deadlock. */
static int sim_run(struct sim *m)
{
	struct inorder q;
	int rc = inorder_init(&q, m->nstreams, m->nblocks);
	while (rc == 0 && !m->bad && m->ended < m->nitems) {
		sim_start(m, &q);
		sim_issue(m, &q);
		int moved = sim_complete(m, &q);
		if (rng(3) == 0 && sim_complete(m, &q))
			moved = 1; /* now and then two at once: batches of completions */
		if (sim_drain(m, &q) == 0 && !moved)
			sim_fail(m, "stuck: nothing in flight, nothing to hand out");
	}
	inorder_free(&q);
	if (rc != 0)
		sim_fail(m, "init failed");
	return !m->bad;
}

static void sim_setup(struct sim *m, unsigned nitems, unsigned nstreams, unsigned nblocks,
		      unsigned maxblocks, int interleave)
{
	memset(m, 0, sizeof *m);
	m->nitems = nitems;
	m->nstreams = nstreams;
	m->nblocks = nblocks;
	m->interleave = interleave;
	for (unsigned i = 0; i < nitems; i++)
		m->blocks[i] = rng(4) == 0 ? 0 : rng(maxblocks + 1);
}

/* The uring rule: blocks go to the oldest item with blocks left; pools from 1 block up. */
static void test_in_order(void)
{
	static const unsigned streams[] = {1, 2, 4, 8}, pools[] = {1, 2, 3, 16, 64};
	static struct sim m;
	for (size_t si = 0; si < 4; si++)
		for (size_t pi = 0; pi < 5; pi++) {
			int good = 1;
			char why[200] = "";
			for (unsigned seed = 1; seed <= 20 && good; seed++) {
				rng_state = seed * 7919u + si * 31u + pi;
				sim_setup(&m, 1 + rng(200), streams[si], pools[pi], 9, 0);
				good = sim_run(&m);
				if (!good)
					snprintf(why, sizeof why, "seed %u: %s", seed, m.why);
			}
			ok(good, "%u streams, %u blocks: 20 random runs in order, no deadlock %s",
			   streams[si], pools[pi], why);
		}
}

/* Issue interleaved across streams (a pool large enough that no stream starves the head). */
static void test_interleaved(void)
{
	static struct sim m;
	int good = 1;
	for (unsigned seed = 1; seed <= 50 && good; seed++) {
		rng_state = seed;
		/* 8 streams x at most 7 blocks each fit in 64: nobody waits for a block */
		sim_setup(&m, 300, 8, 64, 7, 1);
		good = sim_run(&m);
	}
	ok(good, "blocks issued to streams in any interleaving still come out stream by stream %s",
	   m.why);
}

/* A hand-made case: stream 1's blocks all complete before stream 0's. */
static void test_by_hand(void)
{
	struct inorder q;
	unsigned s = 99, b = 99;
	int rc = inorder_init(&q, 2, 4);
	ok(rc == 0, "init 2 streams, 4 blocks");
	if (rc != 0)
		return;
	ok(inorder_next(&q, &s, &b) == INORDER_NONE, "empty: nothing");
	ok(inorder_start(&q, 0) == 0 && inorder_start(&q, 1) == 0, "start 0 then 1");
	ok(inorder_issue(&q, 0, 2) == 0 && inorder_issue(&q, 0, 0) == 0 &&
		   inorder_issue(&q, 1, 3) == 0 && inorder_issue(&q, 1, 1) == 0,
	   "blocks 2, 0 issued to stream 0 and 3, 1 to stream 1");
	ok(inorder_finish(&q, 1) == 0 && inorder_complete(&q, 1) == 0 &&
		   inorder_complete(&q, 3) == 0 && inorder_complete(&q, 0) == 0,
	   "stream 1 finished and complete, stream 0's second block complete");
	ok(inorder_next(&q, &s, &b) == INORDER_NONE, "stream 0's first block is not: nothing yet");
	ok(inorder_complete(&q, 2) == 0 && inorder_next(&q, &s, &b) == INORDER_BLOCK && s == 0 &&
		   b == 2,
	   "it completes: block 2 of stream 0 (%u %u)", s, b);
	ok(inorder_next(&q, &s, &b) == INORDER_BLOCK && s == 0 && b == 0, "then block 0");
	ok(inorder_next(&q, &s, &b) == INORDER_NONE, "stream 0 not finished: it may get more");
	ok(inorder_issue(&q, 0, 2) == 0 && inorder_finish(&q, 0) == 0 &&
		   inorder_next(&q, &s, &b) == INORDER_NONE,
	   "block 2 reused by stream 0 and in flight: nothing");
	ok(inorder_complete(&q, 2) == 0 && inorder_next(&q, &s, &b) == INORDER_BLOCK && b == 2 &&
		   inorder_next(&q, &s, &b) == INORDER_END && s == 0,
	   "it completes, then stream 0 ends");
	ok(inorder_next(&q, &s, &b) == INORDER_BLOCK && s == 1 && b == 3 &&
		   inorder_next(&q, &s, &b) == INORDER_BLOCK && b == 1 &&
		   inorder_next(&q, &s, &b) == INORDER_END && s == 1,
	   "stream 1's blocks in its issue order (3, 1), then its end");
	ok(inorder_next(&q, &s, &b) == INORDER_NONE, "empty again");
	inorder_free(&q);
}

static void test_errors(void)
{
	struct inorder q;
	unsigned s = 0, b = 0;
	ok(inorder_init(&q, 0, 4) == -EINVAL, "no streams: -EINVAL");
	inorder_free(&q);
	if (inorder_init(&q, 3, 2) != 0) {
		ok(0, "init");
		return;
	}
	ok(inorder_start(&q, 3) == -EINVAL, "stream out of range");
	ok(inorder_issue(&q, 0, 0) == -EINVAL, "issue to a stream not started");
	ok(inorder_start(&q, 0) == 0 && inorder_start(&q, 0) == -EBUSY, "start twice: -EBUSY");
	ok(inorder_issue(&q, 0, 2) == -EINVAL, "block out of range");
	ok(inorder_issue(&q, 0, 1) == 0 && inorder_issue(&q, 0, 1) == -EBUSY, "a held block: -EBUSY");
	ok(inorder_complete(&q, 0) == -EINVAL, "complete a block not issued");
	ok(inorder_drop(&q, 0) == -EBUSY, "drop a stream holding blocks: -EBUSY");
	ok(inorder_start(&q, 1) == 0 && inorder_start(&q, 2) == 0 && inorder_drop(&q, 1) == 0,
	   "start 1 and 2, drop 1 from the middle");
	ok(inorder_drop(&q, 1) == -EINVAL && inorder_finish(&q, 1) == -EINVAL,
	   "a dropped stream is not started");
	ok(inorder_finish(&q, 0) == 0 && inorder_issue(&q, 0, 0) == -EINVAL,
	   "issue after finish: -EINVAL");
	ok(inorder_complete(&q, 1) == 0 && inorder_finish(&q, 2) == 0 &&
		   inorder_next(&q, &s, &b) == INORDER_BLOCK && s == 0 && b == 1 &&
		   inorder_next(&q, &s, &b) == INORDER_END && s == 0 &&
		   inorder_next(&q, &s, &b) == INORDER_END && s == 2,
	   "the order skips the dropped stream: 0's block, 0's end, 2's end");
	ok(inorder_start(&q, 1) == 0 && inorder_issue(&q, 1, 0) == 0, "a dropped stream starts again");
	inorder_reset(&q);
	ok(inorder_next(&q, &s, &b) == INORDER_NONE && inorder_start(&q, 1) == 0 &&
		   inorder_issue(&q, 1, 0) == 0,
	   "reset: everything free");
	inorder_free(&q);
	inorder_free(&q);
	ok(1, "free twice is harmless");
}

int main(void)
{
	test_by_hand();
	test_errors();
	test_in_order();
	test_interleaved();
	return tap_done();
}
