/* analyze: per-phase figures from the rank and file records: stonewall bandwidth, finish
 * spread, files per second, metadata share of reader time, node bandwidths, file times.
 * Pure maths over struct phase_data; every index read from a record is range-checked. */
#include "report/analyze.h"
#include "run/provenance.h"

#include "util/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int an_reader(const struct rank_rec *r)
{
	return r->active && r->files > 0 && isfinite(r->start) && isfinite(r->end) &&
	       r->end >= r->start;
}

/* Fraction of a file's bytes read by time t: its read interval taken pro rata. */
static double an_done(const struct file_rec *f, double t)
{
	if (!isfinite(f->open_end) || !isfinite(f->read_end))
		return 0;
	if (f->read_end <= f->open_end)
		return t >= f->read_end ? 1 : 0;
	double x = (t - f->open_end) / (f->read_end - f->open_end);
	return x <= 0 ? 0 : x >= 1 ? 1 : x;
}

double analyze_bytes_by(const struct file_rec *files, size_t n, double t)
{
	double b = 0;
	for (size_t i = 0; files != NULL && i < n; i++)
		b += an_done(&files[i], t) * (double)files[i].bytes;
	return b;
}

/* Without file records: each reader's bytes pro rata of its own start-to-end interval. */
static double an_rank_bytes_by(const struct phase_data *pd, double t)
{
	double b = 0;
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!an_reader(r))
			continue;
		double span = r->end - r->start;
		double x = span > 0 ? (t - r->start) / span : (t >= r->end ? 1 : 0);
		b += (x <= 0 ? 0 : x >= 1 ? 1 : x) * (double)r->bytes;
	}
	return b;
}

/* Readers, first start, first and last finish. */
static void an_finishers(const struct phase_data *pd, struct phase_summary *s)
{
	s->t0 = s->first_end = s->last_end = NAN;
	s->first_rank = s->last_rank = -1;
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!an_reader(r))
			continue;
		s->readers++;
		if (!(r->start >= s->t0))
			s->t0 = r->start;
		if (!(r->end >= s->first_end)) {
			s->first_end = r->end;
			s->first_rank = r->rank;
		}
		if (!(r->end <= s->last_end)) {
			s->last_end = r->end;
			s->last_rank = r->rank;
		}
	}
}

static void an_times(const struct phase_data *pd, struct phase_summary *s)
{
	uint64_t files = 0;
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!r->active)
			continue;
		s->open_s += isfinite(r->open_s) ? r->open_s : 0;
		s->read_s += isfinite(r->read_s) ? r->read_s : 0;
		s->close_s += isfinite(r->close_s) ? r->close_s : 0;
		s->overlap_s += isfinite(r->overlap_s) ? r->overlap_s : 0;
		files += r->files;
	}
	double all = s->open_s + s->read_s + s->close_s;
	s->meta_fraction = all > 0 ? (s->open_s + s->close_s) / all : NAN;
	int rows = pd->files != NULL || pd->digest.filled; /* the file records were read */
	s->files = rows && pd->nfiles > 0 ? (uint64_t)pd->nfiles : files;
	s->files_per_s = pd->info.elapsed_s > 0 ? (double)s->files / pd->info.elapsed_s : NAN;
}

/* The ranks' CPU time in the timed part, summed, and per GB read: unknown (NaN) when a rank
 * that read has no figure (a file before schema 6, getrusage failed) or nothing was read. */
static void an_cpu(const struct phase_data *pd, struct phase_summary *s)
{
	s->cpu_user_s = s->cpu_sys_s = 0;
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!isfinite(r->cpu_user_s) || !isfinite(r->cpu_sys_s) || r->cpu_user_s < 0 ||
		    r->cpu_sys_s < 0) {
			if (r->bytes > 0)
				s->cpu_user_s = s->cpu_sys_s = NAN;
			continue;
		}
		s->cpu_user_s += r->cpu_user_s;
		s->cpu_sys_s += r->cpu_sys_s;
	}
	s->cpu_s_per_GB = pd->info.bytes > 0 && pd->nranks > 0
				  ? (s->cpu_user_s + s->cpu_sys_s) / ((double)pd->info.bytes / 1e9)
				  : NAN;
}

void analyze_phase(const struct phase_data *pd, struct phase_summary *s)
{
	memset(s, 0, sizeof *s);
	an_finishers(pd, s);
	an_times(pd, s);
	an_cpu(pd, s);
	s->stonewall_bytes = s->stonewall_MBps = s->spread_s = NAN;
	if (s->readers == 0)
		return;
	s->spread_s = s->last_end - s->first_end;
	if (pd->digest.filled && pd->nfiles > 0) /* the rows streamed by */
		s->stonewall_bytes = pd->digest.stonewall_bytes;
	else if (pd->files != NULL && pd->nfiles > 0)
		s->stonewall_bytes = analyze_bytes_by(pd->files, pd->nfiles, s->first_end);
	else
		s->stonewall_bytes = an_rank_bytes_by(pd, s->first_end);
	if (s->first_end > s->t0)
		s->stonewall_MBps = s->stonewall_bytes / (s->first_end - s->t0) / 1e6;
}

int analyze_nodes(const struct phase_data *pd, int nnodes, struct node_bw *out)
{
	int used = 0;
	for (int n = 0; n < nnodes; n++)
		out[n] = (struct node_bw){0, 0, NAN, NAN, NAN};
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!an_reader(r) || r->node < 0 || r->node >= nnodes)
			continue;
		struct node_bw *b = &out[r->node];
		b->readers++;
		b->bytes += r->bytes;
		if (!(r->start >= b->start))
			b->start = r->start;
		if (!(r->end <= b->end))
			b->end = r->end;
	}
	for (int n = 0; n < nnodes; n++) {
		used += out[n].readers > 0;
		if (out[n].readers > 0 && out[n].end > out[n].start)
			out[n].MBps = (double)out[n].bytes / (out[n].end - out[n].start) / 1e6;
	}
	return used;
}

size_t analyze_file_times(const struct phase_data *pd, double *secs)
{
	size_t n = 0;
	if (pd->digest.filled) {
		if (pd->digest.nsecs > 0)
			memcpy(secs, pd->digest.secs, pd->digest.nsecs * sizeof *secs);
		return pd->digest.nsecs;
	}
	for (size_t i = 0; pd->files != NULL && i < pd->nfiles; i++) {
		double d = pd->files[i].close_end - pd->files[i].open_start;
		if (isfinite(d) && d >= 0)
			secs[n++] = d;
	}
	return n;
}

void analyze_provenance(const struct phase_data *pd, double local, struct phase_provenance *p)
{
	const char *desc = pd->info.provenance;
	enum prov_kind kind = prov_kind_of(desc);
	memset(p, 0, sizeof *p);
	snprintf(p->why, sizeof p->why, "%s",
		 desc[0] == '\0' ? "not recorded (a results file older than schema 3)" : desc);
	for (size_t i = 0; kind != PROV_UNKNOWN && i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (!r->counted && (r->bytes > 0 || kind == PROV_NET)) {
			kind = PROV_UNKNOWN; /* a missing leader's count would read as "from cache" */
			snprintf(p->why, sizeof p->why, "rank %d could not read its counters", r->rank);
			break;
		}
		p->from_storage += kind == PROV_DISK ? r->storage_read_bytes : r->net_rx_bytes;
	}
	if (kind == PROV_NET && local > 0 && local < 1) {
		p->from_storage = prov_net_storage(p->from_storage, local);
		size_t at = strlen(p->why);
		snprintf(p->why + at, sizeof p->why - at, ", / %.3g: %.3g%% of the data is on the "
			 "reader's own node (its own server, no link)", 1 - local, local * 100);
	}
	p->fraction = prov_verdict(kind, pd->info.bytes, p->from_storage, p->verdict,
				   sizeof p->verdict);
}

/* Row r into the longest-first list of at most RESULTS_SLOWEST; an equal time goes after the
 * ones already there (the earlier row first, as a scan of all rows would keep them). */
static void an_slow_keep(struct files_digest *d, const struct file_rec *r, double secs)
{
	size_t at = d->nslow;
	if (d->nslow == RESULTS_SLOWEST &&
	    !(secs > d->slow[RESULTS_SLOWEST - 1].close_end - d->slow[RESULTS_SLOWEST - 1].open_start))
		return;
	while (at > 0 && d->slow[at - 1].close_end - d->slow[at - 1].open_start < secs)
		at--;
	size_t move = (d->nslow == RESULTS_SLOWEST ? RESULTS_SLOWEST - 1 : d->nslow) - at;
	memmove(&d->slow[at + 1], &d->slow[at], move * sizeof *d->slow);
	d->slow[at] = *r;
	if (d->nslow < RESULTS_SLOWEST)
		d->nslow++;
}

/* The first chunk: where the stonewall is, room for every row's time. */
static int an_digest_start(struct phase_data *pd, struct pf_err *e)
{
	struct phase_summary s;
	struct files_digest *d = &pd->digest;
	memset(&s, 0, sizeof s);
	an_finishers(pd, &s);
	d->stonewall_t = s.readers > 0 ? s.first_end : NAN;
	d->secs = pd->nfiles > 0 ? malloc(pd->nfiles * sizeof *d->secs) : NULL;
	if (pd->nfiles > 0 && d->secs == NULL)
		return pf_fail_errno(e, ENOMEM, "report: phase %u's %zu file records",
				     (unsigned)pd->info.index, pd->nfiles);
	d->filled = 1;
	return 0;
}

/* The node of rank r in pd (its rank record's), or -1. */
static int an_node_of(const struct phase_data *pd, int32_t r)
{
	if (r < 0 || (size_t)r >= pd->nranks || pd->ranks[r].rank != r)
		return -1;
	return pd->ranks[r].node >= 0 && pd->ranks[r].node < 65536 ? pd->ranks[r].node : -1;
}

/* Room in d's cells for node and target: the matrix re-laid when it grows. */
static int an_cells_room(struct files_digest *d, int node, uint32_t target)
{
	if (d->cells != NULL && node < d->cell_nodes && target < d->cell_targets)
		return 0;
	int nn = node < d->cell_nodes ? d->cell_nodes : node + 1;
	uint32_t nt = target < d->cell_targets ? d->cell_targets : target + 1;
	if (nt > (1u << 20) || (size_t)nn * nt > ((size_t)1 << 24))
		return -1; /* no sane table is this large */
	struct digest_cell *c = calloc((size_t)nn * nt, sizeof *c);
	if (c == NULL)
		return -1;
	for (int i = 0; d->cells != NULL && i < d->cell_nodes; i++)
		memcpy(&c[(size_t)i * nt], &d->cells[(size_t)i * d->cell_targets],
		       d->cell_targets * sizeof *c);
	free(d->cells);
	d->cells = c;
	d->cell_nodes = nn;
	d->cell_targets = nt;
	return 0;
}

int analyze_cells_add(struct files_digest *d, const struct phase_data *pd,
		      const struct file_rec *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double secs = rows[i].close_end - rows[i].open_start;
		int node = an_node_of(pd, rows[i].rank);
		if (node < 0 || !isfinite(secs) || secs < 0)
			continue;
		if (an_cells_room(d, node, rows[i].target) != 0)
			return -1;
		struct digest_cell *c = &d->cells[(size_t)node * d->cell_targets + rows[i].target];
		c->files++;
		c->bytes += rows[i].bytes;
		c->secs += secs;
	}
	return 0;
}

int analyze_take_rows(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		      struct pf_err *e)
{
	struct files_digest *d = &pd->digest;
	(void)ctx;
	if (!d->filled && an_digest_start(pd, e) < 0)
		return -1;
	if (isfinite(d->stonewall_t))
		d->stonewall_bytes += analyze_bytes_by(rows, n, d->stonewall_t);
	for (size_t i = 0; i < n; i++) {
		double secs = rows[i].close_end - rows[i].open_start;
		if (!isfinite(secs))
			continue;
		if (secs >= 0 && d->nsecs < pd->nfiles)
			d->secs[d->nsecs++] = secs;
		an_slow_keep(d, &rows[i], secs);
	}
	if (analyze_cells_add(d, pd, rows, n) != 0)
		return pf_fail_errno(e, ENOMEM, "report: phase %u's nodes and targets",
				     (unsigned)pd->info.index);
	return 0;
}

int analyze_peak_rss(const struct run_data *run, struct rss_summary *s)
{
	size_t nr = run->nranks > 0 ? (size_t)run->nranks : 0;
	double *peak = nr ? calloc(nr, sizeof *peak) : NULL;
	memset(s, 0, sizeof *s);
	s->max_rank = -1;
	s->median = NAN;
	if (nr && peak == NULL)
		return -1;
	for (size_t i = 0; i < run->nphases; i++)
		for (size_t k = 0; k < run->phases[i].nranks; k++) {
			const struct rank_rec *r = &run->phases[i].ranks[k];
			if (r->rank < 0 || (size_t)r->rank >= nr || r->peak_rss == 0)
				continue;
			if ((double)r->peak_rss > peak[r->rank])
				peak[r->rank] = (double)r->peak_rss;
			if (r->peak_rss > s->max) {
				s->max = r->peak_rss;
				s->max_rank = r->rank;
			}
		}
	for (size_t r = 0; r < nr; r++)
		if (peak[r] > 0)
			peak[s->ranks++] = peak[r];
	stats_sort(peak, s->ranks);
	if (s->ranks > 0)
		s->median = stats_quantile_sorted(peak, s->ranks, 0.5);
	free(peak);
	return 0;
}

/* 1 when phases i and i + 1 ran in the same part (job): the parts' counts say where each
 * part's phases end; with one part and no count, every phase is its. */
static int analyze_same_part(const struct run_data *run, size_t i)
{
	size_t end = 0;
	if (run->nparts <= 1)
		return 1;
	for (size_t k = 0; k < run->nparts; k++) {
		if (run->parts[k].phases_count == RESULTS_PART_UNKNOWN)
			return 0;
		end += run->parts[k].phases_written;
		if (i + 1 < end)
			return 1;
		if (i + 1 == end)
			return 0;
	}
	return 0;
}

double analyze_outside_s(const struct run_data *run, size_t i)
{
	const struct phase_info *p, *q;
	if (run->schema_version < 7 || i + 1 >= run->nphases || !analyze_same_part(run, i))
		return NAN;
	p = &run->phases[i].info;
	q = &run->phases[i + 1].info;
	double gap = q->origin_s - p->origin_s;
	/* a phase lost on the way has its own rank's zero; a gap shorter than the reads is not
	 * one clock's */
	if (!(p->origin_s > 0) || !(gap >= p->elapsed_s) || !isfinite(gap))
		return NAN;
	return gap - p->elapsed_s;
}

double analyze_outside_median(const struct run_data *run)
{
	double *v = run->nphases ? malloc(run->nphases * sizeof *v) : NULL;
	struct stats st = {0};
	if (v == NULL)
		return NAN;
	for (size_t i = 0; i < run->nphases; i++)
		v[i] = analyze_outside_s(run, i);
	int rc = stats_of(v, run->nphases, &st);
	free(v);
	return rc == 0 ? st.median : NAN;
}

int analyze_reading_span(const struct phase_data *pd, double *t0, double *end)
{
	struct phase_summary s;
	memset(&s, 0, sizeof s);
	an_finishers(pd, &s);
	*t0 = s.t0;
	*end = s.last_end;
	return s.readers;
}
