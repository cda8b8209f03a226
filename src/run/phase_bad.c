/* phase_bad: a rank's bad files of a phase named on stderr after its closing barrier: each
 * file when few share an error, else one line for all that share it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run/phase_read.h"
#include "util/safe.h"

#define PHASE_BAD_SHOWN 50 /* bad files named per rank and phase */
#define PHASE_BAD_EACH 3   /* more files than this with one error: one line for them all */
#define PHASE_BAD_KINDS 8  /* errors told apart per rank and phase */

/* Why file r is bad, in words ("" for a short file: its line says its bytes). */
static const char *phase_bad_reason(const struct file_rec *r)
{
	return r->error == RECORD_SHORT	  ? "short"
	       : r->error == EILSEQ	  ? "content differs (verify or digest)"
	       : r->error == RECORD_ABANDONED ? "not finished: its reads were cancelled at another "
						"file's failure"
	       : r->error == EINTR ? "not finished: the phase was stopped"
				   : strerror(r->error);
}

/* One line for file i (its own, or the first of its kind's many). */
static void phase_name_one(const struct phase_run_ctx *c, const struct phase_output *o,
			   uint64_t i, const char *lead)
{
	char path[PHASE_PATH], shown[SAFE_ROOM(PHASE_PATH)];
	const struct file_rec *r = &o->files[i];
	phase_share_name(c, i, path, sizeof path);
	safe_text(shown, sizeof shown, path, 0);
	if (r->error == RECORD_SHORT)
		fprintf(stderr, "pfsread: rank %d: %s%s: short: %llu of %llu bytes\n", c->t->rank,
			lead, shown, (unsigned long long)r->bytes,
			(unsigned long long)c->w->sh.length[i]);
	else
		fprintf(stderr, "pfsread: rank %d: %s%s: %s\n", c->t->rank, lead, shown,
			phase_bad_reason(r));
}

/* count files share the error of file first: one line for them all (lead "": the phase's
 * only line, with the rank's host and the phase). */
static void phase_name_many(const struct phase_run_ctx *c, const struct phase_output *o,
			    uint64_t first, uint64_t count, const char *lead)
{
	char path[PHASE_PATH], shown[SAFE_ROOM(PHASE_PATH)], host[SAFE_ROOM(40)], where[256] = "";
	phase_share_name(c, first, path, sizeof path);
	safe_text(shown, sizeof shown, path, 0);
	if (*lead == '\0')
		snprintf(where, sizeof where, " (%s): phase %u",
			 safe_text(host, sizeof host, c->t->hostnames[c->t->node], 0), c->s->index);
	fprintf(stderr, "pfsread: rank %d%s: %s%llu files: %s (the first: %s; the files table's "
		"error column has every one)\n", c->t->rank, where, lead, (unsigned long long)count,
		phase_bad_reason(&o->files[first]), shown);
}

/* The bad files of this rank's phase by error: how many of each, the first of each. */
struct phase_bad {
	int error[PHASE_BAD_KINDS];
	uint64_t count[PHASE_BAD_KINDS], first[PHASE_BAD_KINDS];
	int kinds;
	uint64_t bad;
};

static void phase_count_bad(const struct phase_output *o, struct phase_bad *b)
{
	memset(b, 0, sizeof *b);
	for (uint64_t i = 0; i < o->me.files; i++) {
		int err = o->files[i].error, k = 0;
		if (err == 0)
			continue;
		b->bad++;
		while (k < b->kinds && b->error[k] != err)
			k++;
		if (k == b->kinds && k < PHASE_BAD_KINDS) {
			b->error[k] = err;
			b->first[k] = i;
			b->kinds++;
		}
		if (k < b->kinds)
			b->count[k]++;
	}
}

/* After the closing barrier: the message kept for the run names one failure; a rank with
 * several bad files in this phase (or whose earlier failure holds the message) names them on
 * stderr: each file when few share an error, else one line for all with that error (files
 * that vanish mid-run, say, would otherwise fill the screen phase after phase). */
void phase_name_bad(const struct phase_run_ctx *c, const struct phase_output *o, int earlier)
{
	struct phase_bad b;
	uint64_t shown = 0;
	char host[SAFE_ROOM(256)];
	phase_count_bad(o, &b);
	if (b.bad == 0 || (b.bad == 1 && !earlier))
		return;
	if (b.kinds == 1 && b.count[0] > PHASE_BAD_EACH) {
		phase_name_many(c, o, b.first[0], b.count[0], "");
		return;
	}
	fprintf(stderr, "pfsread: rank %d (%s): phase %u: %llu bad file%s:\n", c->t->rank,
		safe_text(host, sizeof host, c->t->hostnames[c->t->node], 0), c->s->index,
		(unsigned long long)b.bad,
		b.bad == 1 ? "" : "s");
	for (int k = 0; k < b.kinds; k++) {
		if (b.count[k] > PHASE_BAD_EACH) {
			phase_name_many(c, o, b.first[k], b.count[k], "  ");
			shown += b.count[k];
			continue;
		}
		for (uint64_t i = b.first[k]; i < o->me.files && shown < PHASE_BAD_SHOWN; i++)
			if (o->files[i].error == b.error[k]) {
				phase_name_one(c, o, i, "  ");
				shown++;
			}
	}
	if (b.bad > shown)
		fprintf(stderr, "pfsread: rank %d:   and %llu more (the files table's error column "
			"has every one)\n", c->t->rank, (unsigned long long)(b.bad - shown));
}

