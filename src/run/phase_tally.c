/* phase_tally: a phase after its closing barrier, on each rank alone: where its bytes came
 * from, its times and bytes summed, its files checked (short, failed preparation), their
 * storage targets looked up. Nothing here is collective. */
#include "run/phase_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "run/acct.h"

/* After the closing barrier: a file whose cache preparation failed keeps that errno on its
 * row unless its read failed too. -1 when there was one (the message is in e already). */
static int phase_prep_errors(const struct phase_work *w, struct phase_output *o)
{
	int rc = 0;
	for (uint64_t i = 0; w->prep_error != NULL && i < o->me.files; i++)
		if (w->prep_error[i] != 0) {
			if (o->files[i].error == 0)
				o->files[i].error = w->prep_error[i];
			rc = -1;
		}
	return rc;
}

/* After the closing barrier: a file read short of what its item should hold (it shrank, or
 * ended early) gets RECORD_SHORT on its row, as an I/O error gets its errno, so that the row
 * alone says it is bad; the first such file is named. Where a pipelining backend gave the
 * share up (abandoned), its unfinished files get RECORD_ABANDONED instead: they were not
 * short, their reads were cancelled. -1 when there was one. */
static int phase_check_bytes(const struct phase_spec *s, const struct phase_work *w,
			     struct phase_output *o, int abandoned, struct pf_err *e)
{
	char path[PHASE_PATH];
	int rc = 0;
	for (uint64_t i = 0; i < o->me.files; i++) {
		struct file_rec *r = &o->files[i];
		if (r->bytes == w->sh.length[i] || r->error != 0)
			continue;
		r->error = abandoned ? RECORD_ABANDONED : RECORD_SHORT;
		if (rc != 0 || abandoned)
			continue;
		if (phase_path(s, w, i, path, sizeof path, e) != 0)
			return -1;
		rc = pf_fail(e, PF_RUNTIME, "%s: short file: %llu bytes at offset %llu, expected %llu",
			     path, (unsigned long long)(w->sh.offset[i] + r->bytes),
			     (unsigned long long)w->sh.offset[i],
			     (unsigned long long)(w->sh.offset[i] + w->sh.length[i]));
	}
	return abandoned ? -1 : rc;
}

/* After the timed part, still on this rank: bytes, wall time per step (acct: each instant
 * once, overlap apart) and first/last times of its own records. */
void phase_sum_rank(struct phase_output *o)
{
	struct acct a;
	o->nfiles = o->me.files;
	for (uint64_t i = 0; i < o->nfiles; i++)
		o->me.bytes += o->files[i].bytes;
	(void)acct_rank(o->files, o->nfiles, &a); /* short of memory: per-file sums, overlap NAN */
	o->me.open_s = a.open_s;
	o->me.read_s = a.read_s;
	o->me.close_s = a.close_s;
	o->me.overlap_s = a.overlap_s;
	if (o->nfiles > 0) {
		o->me.start = o->files[0].open_start;
		o->me.end = o->files[0].close_end;
		for (uint64_t i = 1; i < o->nfiles; i++) {
			if (o->files[i].open_start < o->me.start)
				o->me.start = o->files[i].open_start;
			if (o->files[i].close_end > o->me.end)
				o->me.end = o->files[i].close_end;
		}
	}
}

/* The counters' growth over the phase; a counter that went backwards (a wrapped or reset
 * interface counter) or could not be read leaves the rank uncounted. */
static void phase_count_provenance(const struct prov_sample *a, const struct prov_sample *b,
				   struct rank_rec *me)
{
	me->counted = a->ok && b->ok && b->read_bytes >= a->read_bytes && b->rchar >= a->rchar &&
		      b->rx_bytes >= a->rx_bytes;
	if (!me->counted)
		return;
	me->storage_read_bytes = b->read_bytes - a->read_bytes;
	me->rchar = b->rchar - a->rchar;
	me->net_rx_bytes = b->rx_bytes - a->rx_bytes;
}

struct phase_paths {
	const struct phase_spec *s;
	const struct phase_work *w;
};

static int phase_path_of(void *arg, uint64_t i, char *buf, size_t len)
{
	const struct phase_paths *p = arg;
	struct pf_err ignored = {0};
	return phase_path(p->s, p->w, i, buf, len, &ignored);
}

/* After the closing barrier: the storage target of each of this rank's files (target.h),
 * as a local id of s->targets, within the phase's lookup budget. */
static void phase_targets(const struct phase_spec *s, const struct phase_work *w,
			  struct phase_output *o)
{
	struct phase_paths p = {s, w};
	double budget = TARGET_BUDGET_S;
	uint32_t *ids = o->me.files ? malloc(o->me.files * sizeof *ids) : NULL;
	if (s->targets == NULL || ids == NULL) {
		free(ids);
		return; /* the rows say "not looked up" */
	}
	target_ids(s->targets, s->target_set, s->ds->nfiles, w->sh.file, o->me.files,
		   phase_path_of, &p, ids, &budget);
	for (uint64_t i = 0; i < o->me.files; i++)
		o->files[i].target = ids[i];
	free(ids);
}

/* The process's peak resident memory in bytes (ru_maxrss is in KiB on Linux); 0 when
 * getrusage fails (it cannot with these arguments: the figure is only informative). */
static uint64_t phase_peak_rss(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u) != 0 || u.ru_maxrss < 0)
		return 0;
	return (uint64_t)u.ru_maxrss * 1024;
}

void phase_tally(const struct phase_spec *s, struct phase_work *w, struct phase_run_ctx *c,
		 const struct prov_sample *before, struct phase_output *o, int earlier)
{
	if (s->prov != NULL) {
		struct prov_sample after = {0};
		prov_sample(s->prov, &after);
		phase_count_provenance(before, &after, &o->me);
	}
	o->me.verify_s = c->paused;
	o->me.process_s = c->process;
	o->me.io_s = c->io;
	o->me.peak_rss = phase_peak_rss(); /* outside the timing, the backend's buffers still held */
	if (w->backend_state != NULL)
		s->be->teardown(w->backend_state);
	w->backend_state = NULL;
	phase_sum_rank(o);
	/* its calls overlap and, without a process step, all of its span is I/O; with one, io_s
	 * is what it said it waited */
	if (phase_pipelined(s) && !c->process_on)
		o->me.io_s = o->me.end - o->me.start;
	/* a stopped phase's last files are partial on purpose: only a finished one is checked */
	if (c->status < PHASE_TIMEOUT && phase_check_bytes(s, w, o, c->abandoned, c->e) != 0)
		c->status = PHASE_FAILED;
	if (phase_prep_errors(w, o) != 0 && c->status == PHASE_COMPLETE)
		c->status = PHASE_FAILED;
	phase_name_bad(c, o, earlier);
	if (c->status != PHASE_INTERRUPTED)
		phase_targets(s, w, o);
}
