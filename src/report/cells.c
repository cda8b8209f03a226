/* report_cells: the report's maths. Cells (every sweep point over its repetitions, cold apart
 * from warm) with their statistics, first-finisher figures and ceilings; the time split per
 * file size; stragglers; the matching of two runs' cells. Pure: no I/O, no MPI. */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/spread.h"
#include "run/provenance.h"
#include "util/stats.h"
#include "util/units.h"

enum cache_state report_phase_state(const struct phase_info *p)
{
	for (int s = CACHE_COLD; s <= CACHE_UNKNOWN; s++)
		if (strcmp(p->cache_state, cache_state_name((enum cache_state)s)) == 0)
			return (enum cache_state)s;
	return cache_state_of(p->resident_fraction);
}

const char *report_phase_invalid(const struct phase_info *p)
{
	if (isnan(p->elapsed_s) || isinf(p->elapsed_s))
		return "elapsed time not a number";
	if (p->elapsed_s < 0)
		return "negative elapsed time";
	if (isnan(p->bandwidth_MBps) || isinf(p->bandwidth_MBps))
		return "bandwidth not a number";
	if (p->bandwidth_MBps < 0)
		return "negative bandwidth";
	return NULL;
}

int report_phase_counts(const struct phase_info *p)
{
	return p->status == PHASE_COMPLETE && report_phase_invalid(p) == NULL;
}

static int rc_complete(const struct phase_data *pd)
{
	return report_phase_counts(&pd->info);
}

/* ---- cells ---- */

static int cell_of(const struct report_cell *c, const struct phase_info *p)
{
	return sweep_same(&c->sweep, &p->sweep, 0) && c->state == report_phase_state(p);
}

static void cell_start(struct report_cell *c, const struct phase_info *p)
{
	memset(c, 0, sizeof *c);
	c->sweep = p->sweep;
	c->state = report_phase_state(p);
	c->ceiling_MBps = c->efficiency = NAN;
	snprintf(c->hints, sizeof c->hints, "%s", p->hints);
}

/* The cell of every phase (-1 for one not complete); returns the number of cells. */
static long cells_assign(const struct run_data *run, struct report_cell *c, long *cell)
{
	long n = 0;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		long k = 0;
		cell[i] = -1;
		if (!rc_complete(&run->phases[i]))
			continue;
		while (k < n && !cell_of(&c[k], p))
			k++;
		if (k == n)
			cell_start(&c[n++], p);
		cell[i] = k;
	}
	return n;
}

/* The figures of one phase that a cell averages. */
enum {
	RC_BW, RC_STONEWALL, RC_SPREAD, RC_FILES, RC_META, RC_RESIDENT, RC_CPU,
	RC_TARGETS, RC_USED, RC_COULD, RC_SHARE, RC_HEAVIEST, RC_NFIG
};

/* 0, or -1 when out of memory. */
static int phase_figures(const struct run_data *run, size_t i, struct node_bw *nodes,
			 double fig[RC_NFIG], int *readers, int *reader_nodes)
{
	const struct phase_data *pd = &run->phases[i];
	struct phase_summary s;
	struct target_spread t;
	if (spread_of_phase(pd, &t) != 0)
		return -1;
	analyze_phase(pd, &s);
	*reader_nodes = analyze_nodes(pd, run->nnodes, nodes);
	*readers = s.readers;
	fig[RC_BW] = pd->info.bandwidth_MBps;
	fig[RC_STONEWALL] = s.stonewall_MBps;
	fig[RC_SPREAD] = s.spread_s;
	fig[RC_FILES] = s.files_per_s;
	fig[RC_META] = s.meta_fraction;
	fig[RC_RESIDENT] = pd->info.resident_fraction;
	fig[RC_CPU] = s.cpu_s_per_GB;
	fig[RC_TARGETS] = t.servers;
	fig[RC_USED] = t.used;
	fig[RC_COULD] = t.could;
	fig[RC_SHARE] = t.share;
	fig[RC_HEAVIEST] = t.heaviest;
	return 0;
}

/* Statistics of cell k from the figures of its phases (fig[phase][RC_NFIG]). */
static int cell_finish(struct report_cell *c, long k, const long *cell, size_t nphases,
		       const double (*fig)[RC_NFIG], double *tmp)
{
	struct stats st;
	double mean[RC_NFIG];
	size_t m = 0;
	for (int f = 0; f < RC_NFIG; f++) {
		m = 0;
		for (size_t i = 0; i < nphases; i++)
			if (cell[i] == k)
				tmp[m++] = fig[i][f];
		mean[f] = stats_mean(tmp, m);
	}
	c->n = (int)m;
	m = 0;
	for (size_t i = 0; i < nphases; i++)
		if (cell[i] == k)
			tmp[m++] = fig[i][RC_BW];
	if (stats_of(tmp, m, &st) != 0)
		return -1;
	c->mean_MBps = st.mean;
	c->min_MBps = st.min;
	c->max_MBps = st.max;
	c->sd_MBps = st.sd;
	c->ci95_MBps = st.ci95;
	c->median_MBps = st.median;
	c->stonewall_MBps = mean[RC_STONEWALL];
	c->spread_s = mean[RC_SPREAD];
	c->files_per_s = mean[RC_FILES];
	c->meta_fraction = mean[RC_META];
	c->resident_fraction = mean[RC_RESIDENT];
	c->cpu_s_per_GB = mean[RC_CPU];
	c->targets = (int)lround(mean[RC_TARGETS]);
	c->targets_used = mean[RC_USED];
	c->targets_could = mean[RC_COULD];
	c->target_share = mean[RC_SHARE];
	c->target_heaviest = mean[RC_HEAVIEST];
	return 0;
}

static int rc_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* "1-3,5": the 1-based repetitions of cell k, ascending, ranges joined; "..." ends a list cut
 * short. tmp has room for every phase. */
static void cell_repetitions(struct report_cell *c, long k, const long *cell,
			     const struct run_data *run, int *tmp)
{
	size_t n = 0, used = 0, len = sizeof c->repetitions;
	for (size_t i = 0; i < run->nphases; i++)
		if (cell[i] == k)
			tmp[n++] = run->phases[i].info.repetition + 1;
	qsort(tmp, n, sizeof *tmp, rc_int_cmp);
	c->repetitions[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		while (j + 1 < n && tmp[j + 1] <= tmp[j] + 1)
			j++;
		char one[32];
		int w = tmp[j] > tmp[i] ? snprintf(one, sizeof one, "%s%d-%d", i ? "," : "", tmp[i], tmp[j])
					: snprintf(one, sizeof one, "%s%d", i ? "," : "", tmp[i]);
		if (used + (size_t)w + 4 > len) {
			snprintf(c->repetitions + used, len - used, "%s...", i ? "," : "");
			return;
		}
		memcpy(c->repetitions + used, one, (size_t)w + 1);
		used += (size_t)w;
		i = j;
	}
}

struct rc_work {
	long *cell;
	double (*fig)[RC_NFIG];
	double *tmp;
	int *reps;
	struct node_bw *nodes;
};

static void rc_work_free(struct rc_work *w)
{
	if (w == NULL)
		return;
	free(w->cell);
	free(w->fig);
	free(w->tmp);
	free(w->reps);
	free(w->nodes);
}

static int rc_work_alloc(struct rc_work *w, size_t nphases, int nnodes)
{
	size_t np = nphases ? nphases : 1, nn = nnodes > 0 ? (size_t)nnodes : 1;
	w->cell = calloc(np, sizeof *w->cell);
	w->fig = calloc(np, sizeof *w->fig);
	w->tmp = calloc(np, sizeof *w->tmp);
	w->reps = calloc(np, sizeof *w->reps);
	w->nodes = calloc(nn, sizeof *w->nodes);
	if (w->cell && w->fig && w->tmp && w->reps && w->nodes)
		return 0;
	rc_work_free(w);
	return -1;
}

/* Each cell's verdict on where its bytes came from, over all its phases: unknown when any
 * phase's is. One pass over the phases; from_storage holds the sums until the verdicts. */
static int cells_provenance(const struct run_data *run, double local, struct report_cell *c,
			    long n, const long *cell)
{
	uint64_t *sums = n > 0 ? calloc((size_t)n * 2, sizeof *sums) : NULL; /* bytes, storage */
	if (n > 0 && sums == NULL)
		return -1;
	for (long k = 0; k < n; k++)
		c[k].from_storage = 0; /* 1 when a phase's verdict is unknown */
	for (size_t i = 0; i < run->nphases; i++) {
		struct phase_provenance p;
		if (cell[i] < 0)
			continue;
		analyze_provenance(&run->phases[i], local, &p);
		if (isnan(p.fraction))
			c[cell[i]].from_storage = 1;
		sums[2 * cell[i]] += run->phases[i].info.bytes;
		sums[2 * cell[i] + 1] += p.from_storage;
	}
	for (long k = 0; k < n; k++)
		c[k].from_storage = prov_verdict(c[k].from_storage != 0 ? PROV_UNKNOWN : PROV_DISK,
						 sums[2 * k], sums[2 * k + 1], c[k].from,
						 sizeof c[k].from);
	free(sums);
	return 0;
}

long report_cells(const struct run_data *run, double local, struct report_cell **cells)
{
	struct rc_work w = {0};
	struct report_cell *c = run->nphases ? calloc(run->nphases, sizeof *c) : NULL;
	long n = 0;
	*cells = NULL;
	if ((run->nphases && c == NULL) || rc_work_alloc(&w, run->nphases, run->nnodes) != 0) {
		free(c);
		return -1;
	}
	n = cells_assign(run, c, w.cell);
	if (n > 0 && cells_provenance(run, local, c, n, w.cell) != 0)
		n = -1;
	for (size_t i = 0; i < run->nphases; i++) {
		int readers = 0, reader_nodes = 0;
		if (w.cell[i] < 0)
			continue;
		if (phase_figures(run, i, w.nodes, w.fig[i], &readers, &reader_nodes) != 0) {
			n = -1;
			break;
		}
		if (c[w.cell[i]].n++ == 0) { /* counted again by cell_finish */
			c[w.cell[i]].readers = readers;
			c[w.cell[i]].reader_nodes = reader_nodes;
		}
	}
	for (long k = 0; k < n && n >= 0; k++) {
		if (cell_finish(&c[k], k, w.cell, run->nphases, (const double(*)[RC_NFIG])w.fig,
				w.tmp) != 0)
			n = -1;
		else
			cell_repetitions(&c[k], k, w.cell, run, w.reps);
	}
	rc_work_free(&w);
	if (n <= 0)
		free(c);
	else
		*cells = c;
	return n;
}

void report_cell_ceiling(struct report_cell *c, const struct ceil_hw *hw, int run_nodes,
			 struct ceil_result *r)
{
	struct ceil_result local;
	/* mixed: part of the bytes came from memory, so no storage limit holds for the whole;
	 * unknown: none is known to hold */
	struct ceil_point p = {c->reader_nodes, c->readers, run_nodes, c->state != CACHE_COLD};
	if (r == NULL)
		r = &local;
	ceiling_compute(hw, &p, r);
	c->ceiling_MBps = r->MBps;
	c->efficiency = r->limit >= 0 ? c->mean_MBps / r->MBps : NAN;
	snprintf(c->limit, sizeof c->limit, "%s", r->limit >= 0 ? r->term[r->limit].resource : "");
}

/* ---- time split per file size ---- */

static void size_class_add(struct report_size_class *k, const struct phase_data *pd)
{
	struct phase_summary s;
	analyze_phase(pd, &s);
	k->phases++;
	k->files += s.files;
	k->open_s += s.open_s;
	k->read_s += s.read_s;
	k->close_s += s.close_s;
}

long report_size_classes(const struct run_data *run, struct report_size_class **out)
{
	struct report_size_class *k = run->nphases ? calloc(run->nphases, sizeof *k) : NULL;
	long n = 0;
	*out = NULL;
	if (run->nphases && k == NULL)
		return -1;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_data *pd = &run->phases[i];
		long j = 0;
		if (!rc_complete(pd))
			continue;
		while (j < n && k[j].file_size != pd->info.sweep.file_size)
			j++;
		if (j == n)
			k[n++].file_size = pd->info.sweep.file_size;
		size_class_add(&k[j], pd);
	}
	for (long j = 0; j < n; j++) {
		double all = k[j].open_s + k[j].read_s + k[j].close_s;
		k[j].meta_fraction = all > 0 ? (k[j].open_s + k[j].close_s) / all : NAN;
		if (k[j].files > 0) {
			k[j].open_s /= (double)k[j].files;
			k[j].read_s /= (double)k[j].files;
			k[j].close_s /= (double)k[j].files;
		}
	}
	if (n == 0)
		free(k);
	else
		*out = k;
	return n;
}

/* ---- stragglers ---- */

/* Keep list[0..*n) the k worst (largest slower) with s added when it is at least `least` times
 * slower than its median and worse than the last. */
static void straggler_keep(struct report_straggler *list, size_t *n, size_t k,
			   const struct report_straggler *s, double least)
{
	size_t at = *n;
	if (k == 0 || !(s->slower >= least) || (*n == k && !(s->slower > list[k - 1].slower)))
		return;
	while (at > 0 && list[at - 1].slower < s->slower)
		at--;
	size_t move = (*n == k ? k - 1 : *n) - at;
	memmove(&list[at + 1], &list[at], move * sizeof *list);
	list[at] = *s;
	if (*n < k)
		(*n)++;
}

/* The node of a rank, -1 when the topology does not say. */
static int rc_node_of(const struct run_data *run, int rank)
{
	if (run->node_of_rank == NULL || rank < 0 || rank >= run->nranks)
		return -1;
	int node = run->node_of_rank[rank];
	return node >= 0 && node < run->nnodes ? node : -1;
}

/* Median of the finite figures in v[0..n) (sorted in place). */
static double rc_median(double *v, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	stats_sort(v, m);
	return stats_quantile_sorted(v, m, 0.5);
}

/* Nodes of phase i: each against the median node; folded into the per-node summary. */
static void stragglers_nodes(const struct run_data *run, size_t i, struct node_bw *bw,
			     double *tmp, size_t k, struct report_straggler *slow, size_t *nn,
			     struct report_node *nodes)
{
	int nnodes = run->nnodes;
	analyze_nodes(&run->phases[i], nnodes, bw);
	for (int n = 0; n < nnodes; n++)
		tmp[n] = bw[n].MBps;
	double median = rc_median(tmp, (size_t)nnodes);
	for (int n = 0; n < nnodes && median > 0; n++) {
		if (!(bw[n].MBps > 0))
			continue;
		double rel = bw[n].MBps / median;
		struct report_straggler s = {i, n, -1, 0, bw[n].MBps, median, median / bw[n].MBps};
		struct report_node *r = &nodes[n];
		r->mean_MBps += bw[n].MBps;
		r->rel_mean += rel;
		r->rel_worst = r->phases == 0 || rel < r->rel_worst ? rel : r->rel_worst;
		r->phases++;
		if (nnodes > 1)
			straggler_keep(slow, nn, k, &s, REPORT_SLOW_NODE);
	}
}

/* Files of phase i against the phase's median file time. */
static void stragglers_files(const struct run_data *run, size_t i, double *tmp, size_t k,
			     struct report_straggler *slow, size_t *nf)
{
	const struct phase_data *pd = &run->phases[i];
	double median = rc_median(tmp, analyze_file_times(pd, tmp));
	/* the phase's slowest files, when its rows streamed by (the rest cannot be slower) */
	const struct file_rec *rows = pd->digest.filled ? pd->digest.slow : pd->files;
	size_t nrows = pd->digest.filled ? pd->digest.nslow : pd->nfiles;
	for (size_t f = 0; rows != NULL && f < nrows && median > 0; f++) {
		const struct file_rec *r = &rows[f];
		double d = r->close_end - r->open_start;
		if (!isfinite(d))
			continue;
		struct report_straggler s = {i, rc_node_of(run, r->rank), r->rank, r->file, d,
					     median, d / median};
		straggler_keep(slow, nf, k, &s, REPORT_SLOW_FILE);
	}
}

static size_t rc_most_files(const struct run_data *run)
{
	size_t most = 1;
	for (size_t i = 0; i < run->nphases; i++)
		if ((run->phases[i].files != NULL || run->phases[i].digest.filled) &&
		    run->phases[i].nfiles > most)
			most = run->phases[i].nfiles;
	return most;
}

static void nodes_start(const struct run_data *run, struct report_node *nodes)
{
	for (int n = 0; n < run->nnodes; n++)
		nodes[n] = (struct report_node){n, 0, 0, 0, 0, NAN};
	for (int r = 0; r < run->nranks; r++) {
		int n = rc_node_of(run, r);
		if (n >= 0)
			nodes[n].ranks++;
	}
}

int report_stragglers(const struct run_data *run, size_t k, struct report_straggler *slow_nodes,
		      size_t *nn, struct report_straggler *slow_files, size_t *nf,
		      struct report_node *nodes)
{
	size_t nnodes = run->nnodes > 0 ? (size_t)run->nnodes : 1, most = rc_most_files(run);
	struct node_bw *bw = calloc(nnodes, sizeof *bw);
	double *tmp = calloc(most > nnodes ? most : nnodes, sizeof *tmp);
	*nn = *nf = 0;
	if (bw == NULL || tmp == NULL) {
		free(bw);
		free(tmp);
		return -1;
	}
	nodes_start(run, nodes);
	for (size_t i = 0; i < run->nphases; i++) {
		if (!rc_complete(&run->phases[i]))
			continue;
		stragglers_nodes(run, i, bw, tmp, k, slow_nodes, nn, nodes);
		stragglers_files(run, i, tmp, k, slow_files, nf);
	}
	for (int n = 0; n < run->nnodes; n++) {
		nodes[n].mean_MBps = nodes[n].phases ? nodes[n].mean_MBps / nodes[n].phases : NAN;
		nodes[n].rel_mean = nodes[n].phases ? nodes[n].rel_mean / nodes[n].phases : NAN;
	}
	free(bw);
	free(tmp);
	return 0;
}

/* ---- comparisons ---- */

int report_key_own(int k)
{
	return k == REPORT_KEY_STATE || (k >= 0 && k < SWEEP_NKEYS &&
					 !(sweep_fields[k].flags & SWEEP_PART));
}

int report_key_axis(int k)
{
	return k >= 0 && k < SWEEP_NKEYS && (sweep_fields[k].flags & SWEEP_AXIS);
}

const char *report_key_name(int k)
{
	if (k == REPORT_KEY_STATE)
		return "cache state";
	return k >= 0 && k < SWEEP_NKEYS ? sweep_fields[k].label : "?";
}

char *report_key_value(const struct report_cell *c, int k, char *buf, size_t len)
{
	if (k == REPORT_KEY_STATE)
		snprintf(buf, len, "%s", cache_state_name(c->state));
	else
		sweep_value(&c->sweep, k, buf, len);
	return buf;
}

/* 1 when key k takes more than one value over the cells. */
int report_key_varies(const struct report_cell *c, long n, int k)
{
	char a[192], b[192];
	for (long i = 1; i < n; i++)
		if (strcmp(report_key_value(&c[0], k, a, sizeof a),
			   report_key_value(&c[i], k, b, sizeof b)) != 0)
			return 1;
	return 0;
}

/* 1 when every cell of c[0..n) has one and the same value of key k (and n > 0), that value
 * into buf. */
static int rk_single(const struct report_cell *c, long n, int k, char *buf,
		     size_t len)
{
	char v[192];
	if (n == 0)
		return 0;
	report_key_value(&c[0], k, buf, len);
	for (long i = 1; i < n; i++)
		if (strcmp(report_key_value(&c[i], k, v, sizeof v), buf) != 0)
			return 0;
	return 1;
}

static int rk_same(const struct report_cell *a, const struct report_cell *b, unsigned keys)
{
	char va[192], vb[192];
	for (int k = 0; k < REPORT_NKEYS; k++)
		if ((keys >> k & 1u) && strcmp(report_key_value(a, k, va, sizeof va),
					       report_key_value(b, k, vb, sizeof vb)) != 0)
			return 0;
	return 1;
}

static void cmp_keys(const struct report_cell *a, long na, const struct report_cell *b, long nb,
		     struct report_cmp *cmp)
{
	char va[192], vb[192];
	for (int k = 0; k < REPORT_NKEYS; k++) {
		if (!report_key_own(k))
			continue;
		if (rk_single(a, na, k, va, sizeof va) && rk_single(b, nb, k, vb, sizeof vb) &&
		    strcmp(va, vb) != 0)
			cmp->differ |= 1u << k;
		else
			cmp->matched |= 1u << k;
	}
}

static double cmp_ratio(const struct report_cell *a, const struct report_cell *b)
{
	return a->mean_MBps > 0 ? b->mean_MBps / a->mean_MBps : NAN;
}

static int cmp_overlap(const struct report_cell *a, const struct report_cell *b)
{
	struct stats sa = {.n = (size_t)a->n, .mean = a->mean_MBps, .ci95 = a->ci95_MBps};
	struct stats sb = {.n = (size_t)b->n, .mean = b->mean_MBps, .ci95 = b->ci95_MBps};
	return stats_overlap(&sa, &sb);
}

/* The pair of cells a[i] and b[j]: ratio, verdict, and what the noise lets one tell. */
static struct report_pair cmp_pair(const struct report_cell *a, const struct report_cell *b,
				   long i, long j)
{
	struct stats sa = {.n = (size_t)a->n, .mean = a->mean_MBps, .ci95 = a->ci95_MBps};
	struct stats sb = {.n = (size_t)b->n, .mean = b->mean_MBps, .ci95 = b->ci95_MBps};
	return (struct report_pair){i, j, cmp_ratio(a, b), cmp_overlap(a, b),
				    stats_mdd(&sa, &sb),
				    stats_reps_to_decide(a->sd_MBps, b->sd_MBps,
							 b->mean_MBps - a->mean_MBps, 100)};
}

int report_compare(const struct report_cell *a, long na, const struct report_cell *b, long nb,
		   struct report_cmp *cmp)
{
	memset(cmp, 0, sizeof *cmp);
	size_t most = (size_t)(na > 0 ? na : 1) + (size_t)(nb > 0 ? nb : 1);
	cmp->pairs = calloc(most, sizeof *cmp->pairs);
	cmp->only_a = calloc(most, sizeof *cmp->only_a);
	cmp->only_b = calloc(most, sizeof *cmp->only_b);
	if (cmp->pairs == NULL || cmp->only_a == NULL || cmp->only_b == NULL) {
		report_cmp_free(cmp);
		return -1;
	}
	cmp_keys(a, na, b, nb, cmp);
	for (long i = 0; i < na; i++) {
		long j = 0;
		while (j < nb && !rk_same(&a[i], &b[j], cmp->matched))
			j++;
		if (j == nb) {
			cmp->only_a[cmp->nonly_a++] = i;
			continue;
		}
		cmp->pairs[cmp->npairs++] = cmp_pair(&a[i], &b[j], i, j);
	}
	for (long j = 0; j < nb; j++) {
		long i = 0;
		while (i < na && !rk_same(&a[i], &b[j], cmp->matched))
			i++;
		if (i == na)
			cmp->only_b[cmp->nonly_b++] = j;
	}
	return 0;
}

void report_cmp_free(struct report_cmp *cmp)
{
	if (cmp == NULL)
		return;
	free(cmp->pairs);
	free(cmp->only_a);
	free(cmp->only_b);
	memset(cmp, 0, sizeof *cmp);
}
