/* attrib: who is slow, a node or a storage target. The completed phases' files by node and
 * target (each file's open-to-close time over its phase's median file time, so that phases of
 * other sizes, paths or cache states add up), a table per target, and a two-way verdict: a node
 * slow on every target it read (against the other nodes on the same target) is the node's
 * fault; a target slow from every node (against the other targets from the same node) is the
 * target's. Targets that are one stripe over the same servers, each file starting on another,
 * are not judged: a slow server slows them all alike. Pure: no I/O. */
#include "report/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/spread.h"
#include "report/fmt.h"
#include "util/stats.h"

void report_attrib_free(struct report_attrib *a)
{
	if (a == NULL)
		return;
	free(a->targets);
	free(a->cell);
	free(a->cell_files);
	free(a->node_slow);
	free(a->node_ratio);
	memset(a, 0, sizeof *a);
}

/* The run-level index of name, added when new; -1 when out of memory. */
static long at_target(struct report_attrib *a, size_t *room, const char *name)
{
	for (size_t i = 0; i < a->ntargets; i++)
		if (strcmp(a->targets[i].name, name) == 0)
			return (long)i;
	if (a->ntargets == *room) {
		size_t r = *room ? *room * 2 : 8;
		void *p = realloc(a->targets, r * sizeof *a->targets);
		if (p == NULL)
			return -1;
		a->targets = p;
		*room = r;
	}
	struct report_target *t = &a->targets[a->ntargets];
	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name);
	t->known = spread_target_known(name);
	t->ratio = NAN;
	return (long)a->ntargets++;
}

/* The phase's median file time; NaN when it has none. */
static double at_median(const struct phase_data *pd)
{
	size_t n = pd->digest.filled ? pd->digest.nsecs : pd->nfiles;
	double *v = n ? malloc(n * sizeof *v) : NULL, m = NAN;
	if (v == NULL)
		return NAN;
	n = analyze_file_times(pd, v);
	stats_sort(v, n);
	if (n > 0)
		m = stats_quantile_sorted(v, n, 0.5);
	free(v);
	return m;
}

/* Row r of phase p into its target's slowest files, longest against the median first. */
static void at_slow_keep(struct report_target *t, size_t p, const struct file_rec *r, int node,
			 double median)
{
	double secs = r->close_end - r->open_start, slower = secs / median;
	size_t at = t->nslow;
	if (!isfinite(slower))
		return;
	while (at > 0 && t->slow[at - 1].slower < slower)
		at--;
	if (at >= REPORT_TARGET_SLOW_FILES)
		return;
	size_t keep = t->nslow < REPORT_TARGET_SLOW_FILES ? t->nslow : REPORT_TARGET_SLOW_FILES - 1;
	memmove(&t->slow[at + 1], &t->slow[at], (keep - at) * sizeof *t->slow);
	t->slow[at] = (struct report_straggler){p, node, r->rank, r->file, secs, median, slower};
	if (t->nslow < REPORT_TARGET_SLOW_FILES)
		t->nslow++;
}

/* One phase's cells (its digest's, or built from its rows) into the run's sums; norm[] and
 * files[] are [nnodes x room] for the run-level targets. */
struct at_sums {
	double *norm;
	uint64_t *files;
	size_t room;     /* targets the two arrays have columns for */
	size_t troom;    /* a->targets' room */
};

static int at_grow(struct report_attrib *a, struct at_sums *s)
{
	if (a->ntargets <= s->room)
		return 0;
	size_t r = s->room ? s->room : 8;
	while (r < a->ntargets)
		r *= 2;
	double *norm = calloc((size_t)a->nnodes * r, sizeof *norm);
	uint64_t *files = calloc((size_t)a->nnodes * r, sizeof *files);
	if (norm == NULL || files == NULL) {
		free(norm);
		free(files);
		return -1;
	}
	for (int n = 0; n < a->nnodes && s->room > 0; n++) {
		memcpy(&norm[(size_t)n * r], &s->norm[(size_t)n * s->room], s->room * sizeof *norm);
		memcpy(&files[(size_t)n * r], &s->files[(size_t)n * s->room], s->room * sizeof *files);
	}
	free(s->norm);
	free(s->files);
	s->norm = norm;
	s->files = files;
	s->room = r;
	return 0;
}

static int at_phase(struct report_attrib *a, struct at_sums *s, const struct run_data *run,
		    size_t p)
{
	const struct phase_data *pd = &run->phases[p];
	struct files_digest own = {0};
	const struct files_digest *d = &pd->digest;
	double median = at_median(pd);
	long map[4096];
	int rc = -1;
	if (!isfinite(median) || median <= 0 || pd->targets.n == 0)
		return 0; /* nothing to place, or a file before targets */
	if (d->cells == NULL) {
		if (analyze_cells_add(&own, pd, pd->files, pd->files ? pd->nfiles : 0) != 0)
			goto out;
		d = &own;
	}
	uint32_t nt = d->cell_targets < pd->targets.n ? d->cell_targets : pd->targets.n;
	if (nt > sizeof map / sizeof map[0])
		nt = sizeof map / sizeof map[0];
	/* only the targets some file of the phase is on */
	for (uint32_t k = 0; k < nt; k++) {
		map[k] = -1;
		for (int n = 0; n < d->cell_nodes && map[k] < 0; n++)
			if (d->cells[(size_t)n * d->cell_targets + k].files > 0 &&
			    ((map[k] = at_target(a, &s->troom, pd->targets.name[k])) < 0 ||
			     at_grow(a, s) != 0))
				goto out;
	}
	for (int n = 0; n < d->cell_nodes && n < a->nnodes; n++)
		for (uint32_t k = 0; k < nt; k++) {
			const struct digest_cell *c = &d->cells[(size_t)n * d->cell_targets + k];
			if (c->files == 0 || map[k] < 0)
				continue;
			struct report_target *t = &a->targets[map[k]];
			t->files += c->files;
			t->bytes += c->bytes;
			t->secs += c->secs;
			t->rel += c->secs / median; /* a sum until the end */
			s->norm[(size_t)n * s->room + (size_t)map[k]] += c->secs / median;
			s->files[(size_t)n * s->room + (size_t)map[k]] += c->files;
		}
	const struct file_rec *rows = pd->files ? pd->files : pd->digest.slow;
	size_t nrows = pd->files ? pd->nfiles : pd->digest.nslow;
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].target < nt && map[rows[i].target] >= 0)
			at_slow_keep(&a->targets[map[rows[i].target]], p, &rows[i],
				     rows[i].rank >= 0 && rows[i].rank < run->nranks &&
						     run->node_of_rank != NULL
					     ? run->node_of_rank[rows[i].rank] : -1,
				     median);
	rc = 0;
out:
	free(own.cells);
	return rc;
}

/* The median of v[0..n) but v[skip]; NaN when none. v is scratch of n + 1. */
static double at_median_but(const double *v, size_t n, size_t skip, double *tmp)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (i != skip && isfinite(v[i]))
			tmp[m++] = v[i];
	stats_sort(tmp, m);
	return m ? stats_quantile_sorted(tmp, m, 0.5) : NAN;
}

#define CELL(a, n, t) ((a)->cell[(size_t)(n) * (a)->ntargets + (t)])

/* Node n against the other nodes, target by known target. */
static void at_node(struct report_attrib *a, int n, double *col, double *tmp)
{
	int seen = 0, slow = 1;
	double least = INFINITY;
	for (size_t t = 0; t < a->ntargets; t++) {
		if (!a->targets[t].known || !isfinite(CELL(a, n, t)))
			continue;
		for (int k = 0; k < a->nnodes; k++)
			col[k] = CELL(a, k, t);
		double others = at_median_but(col, (size_t)a->nnodes, (size_t)n, tmp);
		if (!isfinite(others) || others <= 0)
			continue; /* no other node read it */
		double r = CELL(a, n, t) / others;
		seen = 1;
		slow &= r > REPORT_SLOW_NODE;
		least = r < least ? r : least;
	}
	a->node_slow[n] = seen && slow;
	a->node_ratio[n] = seen ? least : NAN;
}

/* Target t against the other known targets, node by node. */
static void at_target_verdict(struct report_attrib *a, size_t t, double *row, double *tmp)
{
	int seen = 0, slow = 1;
	double least = INFINITY;
	for (int n = 0; n < a->nnodes; n++) {
		if (!isfinite(CELL(a, n, t)))
			continue;
		for (size_t k = 0; k < a->ntargets; k++)
			row[k] = a->targets[k].known ? CELL(a, n, k) : NAN;
		double others = at_median_but(row, a->ntargets, t, tmp);
		if (!isfinite(others) || others <= 0)
			continue; /* this node read no other target */
		double r = CELL(a, n, t) / others;
		seen = 1;
		slow &= r > REPORT_SLOW_TARGET;
		least = r < least ? r : least;
	}
	a->targets[t].slow_all = seen && slow;
	a->targets[t].ratio = seen ? least : NAN;
}

static int at_cmp_name(const void *x, const void *y)
{
	return strcmp(x, y);
}

/* The servers name lists, sorted and joined: a stripe's servers, whatever its order. */
static void at_server_set(const char *name, char *buf, size_t len)
{
	char parts[SPREAD_PARTS][RECORD_TARGET_MAX];
	size_t n = spread_servers(name, parts, SPREAD_PARTS), used = 0;
	qsort(parts, n, sizeof parts[0], at_cmp_name);
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "", parts[i]);
}

/* 1 when the known targets with files are one stripe over the same 2 or more servers, each
 * starting on another ("a,b,c", "b,c,a"): a slow one of those servers slows every file
 * alike, so no target can be told from the others by its files' times. */
static int at_one_stripe(const struct report_attrib *a)
{
	char first[SPREAD_PARTS * RECORD_TARGET_MAX], set[SPREAD_PARTS * RECORD_TARGET_MAX];
	int n = 0;
	for (size_t t = 0; t < a->ntargets; t++) {
		if (!a->targets[t].known || a->targets[t].files == 0)
			continue;
		at_server_set(a->targets[t].name, n++ ? set : first, sizeof set);
		if (n > 1 && strcmp(set, first) != 0)
			return 0;
	}
	return n > 1 && strchr(first, ',') != NULL;
}

/* Append to the verdict. */
static void at_say(struct report_attrib *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void at_say(struct report_attrib *a, const char *fmt, ...)
{
	va_list ap;
	size_t used = strlen(a->verdict);
	if (used + 1 >= sizeof a->verdict)
		return;
	va_start(ap, fmt);
	vsnprintf(a->verdict + used, sizeof a->verdict - used, fmt, ap);
	va_end(ap);
}

static void at_verdict(struct report_attrib *a, const struct run_data *run)
{
	char host[RECORD_HOST_MAX];
	int slow_nodes = 0, slow_targets = 0, nodes_seen = 0;
	for (int n = 0; n < a->nnodes; n++)
		nodes_seen += isfinite(a->node_ratio[n]);
	a->verdict[0] = '\0';
	if (a->known == 0) {
		at_say(a, "no storage target is known for these files (a results file before "
		       "schema 5, or every lookup unknown): a slow file cannot be placed on a target");
		return;
	}
	for (int n = 0; n < a->nnodes; n++)
		if (a->node_slow[n])
			at_say(a, "%snode %s (%.2fx the other nodes)", slow_nodes++ ? ", " : "",
			       rp_host(run, n, host, sizeof host), a->node_ratio[n]);
	if (slow_nodes)
		at_say(a, " %s slow on every target", slow_nodes > 1 ? "are" : "is");
	for (size_t t = 0; t < a->ntargets; t++)
		if (a->targets[t].slow_all)
			at_say(a, "%starget %s (%.2fx the other targets)",
			       slow_targets++ ? ", " : (slow_nodes ? "; " : ""), a->targets[t].name,
			       a->targets[t].ratio);
	if (slow_targets)
		at_say(a, " %s slow from every node", slow_targets > 1 ? "are" : "is");
	if (slow_nodes == 0 && slow_targets == 0)
		at_say(a, "no node is slow on every target and no target is slow from every node");
	if (a->one_stripe)
		at_say(a, " (every file is striped over the same servers, each starting on another: "
		       "a slow server slows every file alike and cannot be named from their times)");
	if (nodes_seen == 0)
		at_say(a, " (no target was read from two nodes: a slow node cannot be told from a "
		       "slow target)");
	else if (a->known < 2)
		at_say(a, " (one known target: a slow target cannot be named)");
}

static int at_fill(struct report_attrib *a, const struct run_data *run, struct at_sums *s)
{
	for (size_t p = 0; p < run->nphases; p++)
		if (run->phases[p].info.status == PHASE_COMPLETE && at_phase(a, s, run, p) != 0)
			return -1;
	size_t cells = (size_t)a->nnodes * (a->ntargets ? a->ntargets : 1);
	a->cell = malloc(cells * sizeof *a->cell);
	a->cell_files = calloc(cells, sizeof *a->cell_files);
	a->node_slow = calloc((size_t)a->nnodes + 1, sizeof *a->node_slow);
	a->node_ratio = calloc((size_t)a->nnodes + 1, sizeof *a->node_ratio);
	if (a->cell == NULL || a->cell_files == NULL || a->node_slow == NULL || a->node_ratio == NULL)
		return -1;
	for (int n = 0; n < a->nnodes; n++)
		for (size_t t = 0; t < a->ntargets; t++) {
			uint64_t f = s->files[(size_t)n * s->room + t];
			a->cell_files[(size_t)n * a->ntargets + t] = f;
			CELL(a, n, t) = f ? s->norm[(size_t)n * s->room + t] / (double)f : NAN;
		}
	for (size_t t = 0; t < a->ntargets; t++) {
		struct report_target *k = &a->targets[t];
		k->MBps = k->secs > 0 ? (double)k->bytes / k->secs / 1e6 : NAN;
		k->rel = k->files ? k->rel / (double)k->files : NAN;
		a->known += k->known && k->files > 0;
	}
	return 0;
}

int report_attrib(const struct run_data *run, struct report_attrib *a)
{
	struct at_sums s = {0};
	size_t most = (size_t)(run->nnodes > 0 ? run->nnodes : 1);
	int rc = -1;
	memset(a, 0, sizeof *a);
	a->nnodes = run->nnodes > 0 ? run->nnodes : 0;
	if (at_fill(a, run, &s) != 0)
		goto out;
	most = most > a->ntargets ? most : a->ntargets;
	double *v = malloc(2 * (most + 1) * sizeof *v);
	if (v == NULL)
		goto out;
	for (int n = 0; n < a->nnodes; n++)
		at_node(a, n, v, v + most + 1);
	a->one_stripe = at_one_stripe(a);
	for (size_t t = 0; t < a->ntargets && !a->one_stripe; t++)
		if (a->targets[t].known)
			at_target_verdict(a, t, v, v + most + 1);
	free(v);
	at_verdict(a, run);
	rc = 0;
out:
	free(s.norm);
	free(s.files);
	if (rc != 0)
		report_attrib_free(a);
	return rc;
}
