/* report_plot: the charts of a run, drawn by gnuplot as PNG (pngcairo) and SVG: bandwidth vs
 * readers per node (one line per data set), each reader's files over time in one phase, the
 * per-file latency distribution per file size, and each node's bandwidth. For every run the
 * data files and one gnuplot script go into the directory too, so a chart can be redrawn. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/analyze.h"
#include "dataset/dataset.h"
#include "util/stats.h"
#include "util/units.h"
#include "report/internal.h"
#include "util/safe.h"

const char *const rp_chart_names[RP_NCHARTS] = {"bandwidth", "timeline", "latency", "nodes"};
const char *const rp_chart_titles[RP_NCHARTS] = {
	"aggregate read bandwidth vs readers per node", "each reader's files over time",
	"per-file latency distribution", "bandwidth of each node"};

#define RP_CDF_POINTS 2000      /* points per latency curve at most */
#define RP_BAD_DIR "report: plot directory name too long or holds a control character: %s"

/* What a chart script needs besides the run. */
struct plot {
	const char *dir;
	struct rp_run *r;
	FILE *gp;      /* the script */
	char name[128]; /* what was run, for titles */
};

/* ---- small helpers ---- */

static int plot_path(const struct plot *p, const char *what, const char *ext, char *buf,
		     size_t len)
{
	int n = snprintf(buf, len, "%s/%s%s%s.%s", p->dir, p->r->stem, what[0] ? "-" : "", what,
			 ext);
	return n < 0 || (size_t)n >= len || rp_gp_has_control(buf) ? -1 : 0;
}

/* A label safe in a data file column: quotes, backslashes and what util/safe does not keep
 * (controls, C1, bytes not UTF-8) each replaced by _. */
static void dat_label(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		struct safe_unit u = safe_next(s);
		if (u.cls != SAFE_KEEP || *s == '"' || *s == '\\')
			fputc('_', f);
		else
			fwrite(s, 1, u.len, f);
		s += u.len;
	}
	fputc('"', f);
}

static FILE *dat_open(const struct plot *p, const char *what, char *path, size_t len,
		      struct pf_err *e)
{
	if (plot_path(p, what, "dat", path, len) != 0) {
		pf_fail(e, PF_USAGE, RP_BAD_DIR, p->dir);
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (f == NULL)
		pf_fail_errno(e, errno, "report: cannot write %s", path);
	return f;
}

static int dat_close(FILE *f, const char *path, struct pf_err *e)
{
	int bad = ferror(f);
	if ((fclose(f) != 0 || bad) && e->status == PF_OK)
		return pf_fail_errno(e, errno ? errno : EIO, "report: cannot write %s", path);
	return e->status == PF_OK ? 0 : -1;
}

/* Title: what was run on the first line, its size and the detail on the second. */
static void gp_title(const struct plot *p, const char *what, const char *detail)
{
	char first[512], second[512];
	snprintf(first, sizeof first, "%s: %s", p->name, what);
	snprintf(second, sizeof second, "%d rank%s on %d node%s%s%s", p->r->run->nranks,
		 p->r->run->nranks == 1 ? "" : "s", p->r->run->nnodes,
		 p->r->run->nnodes == 1 ? "" : "s", detail[0] ? ", " : "", detail);
	fputs("set title ", p->gp);
	rp_gp_text(p->gp, first);
	fputs(" . \"\\n\" . ", p->gp);
	rp_gp_text(p->gp, second);
	fputc('\n', p->gp);
}

/* Open the chart in PNG, settings and plot command follow; gp_chart_end redraws it as SVG. */
static int gp_chart_begin(const struct plot *p, int which, struct pf_err *e)
{
	char png[4096];
	if (plot_path(p, rp_chart_names[which], "png", png, sizeof png) != 0)
		return pf_fail(e, PF_USAGE, RP_BAD_DIR, p->dir);
	fputs("reset\nset terminal pngcairo size 1000,620 noenhanced font 'sans,10'\nset output ",
	      p->gp);
	rp_gp_text(p->gp, png);
	fputs("\nset grid\n", p->gp);
	return 0;
}

static int gp_chart_end(const struct plot *p, int which, struct pf_err *e)
{
	char svg[4096];
	if (plot_path(p, rp_chart_names[which], "svg", svg, sizeof svg) != 0)
		return pf_fail(e, PF_USAGE, RP_BAD_DIR, p->dir);
	fputs("set terminal svg size 1000,620 noenhanced font 'sans,10' background '#ffffff'\n"
	      "set output ",
	      p->gp);
	rp_gp_text(p->gp, svg);
	fputs("\nreplot\nunset output\n", p->gp);
	return 0;
}

/* ---- bandwidth vs readers per node ---- */

/* A line of the chart: every key but the readers per node (the x axis). */
static int same_series(const struct report_cell *a, const struct report_cell *b)
{
	return sweep_same(&a->sweep, &b->sweep, 1u << SWEEP_READERS) && a->state == b->state;
}

static int series_first(const struct rp_run *r, long i)
{
	for (long k = 0; k < i; k++)
		if (same_series(&r->cells[k], &r->cells[i]))
			return 0;
	return 1;
}

/* One block per series: readers mean min max, ascending readers. */
static void bw_series(FILE *f, const struct rp_run *r, long first)
{
	int32_t last = 0;
	for (;;) {
		long best = -1;
		for (long i = first; i < r->ncells; i++)
			if (same_series(&r->cells[i], &r->cells[first]) &&
			    r->cells[i].sweep.readers_per_node > last &&
			    (best < 0 || r->cells[i].sweep.readers_per_node <
						 r->cells[best].sweep.readers_per_node))
				best = i;
		if (best < 0)
			break;
		const struct report_cell *c = &r->cells[best];
		fprintf(f, "%d %.6g %.6g %.6g\n", (int)c->sweep.readers_per_node,
			rp_rate(r, c->mean_MBps), rp_rate(r, c->min_MBps), rp_rate(r, c->max_MBps));
		last = c->sweep.readers_per_node;
	}
	fputs("\n\n", f);
}

/* The ceiling per readers per node (first cold cell of each), as one more block; 1 if any. */
static int bw_ceiling(FILE *f, const struct rp_run *r, char *limit, size_t len)
{
	int any = 0;
	limit[0] = '\0';
	for (long i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		long k = 0;
		while (k < i && !(r->cells[k].sweep.readers_per_node == c->sweep.readers_per_node &&
				  r->cells[k].state == CACHE_COLD && isfinite(r->cells[k].ceiling_MBps)))
			k++;
		if (k < i || c->state != CACHE_COLD || !isfinite(c->ceiling_MBps))
			continue;
		fprintf(f, "%d %.6g\n", (int)c->sweep.readers_per_node, rp_rate(r, c->ceiling_MBps));
		if (any && strcmp(limit, c->limit) != 0)
			snprintf(limit, len, "hardware");
		else if (!any)
			snprintf(limit, len, "%s", c->limit);
		any = 1;
	}
	fputs("\n\n", f);
	return any;
}

static void series_title(FILE *gp, const struct report_cell *c, int many_combos)
{
	char size[32], xfer[32], t[512];
	snprintf(t, sizeof t, "%s (%s files)%s%s%s%s%s%s", c->sweep.dataset,
		 units_format_size(c->sweep.file_size, size, sizeof size), many_combos ? ", " : "",
		 many_combos ? c->sweep.backend : "", many_combos ? " " : "",
		 many_combos ? units_format_size_binary(c->sweep.transfer_size, xfer, sizeof xfer)
			     : "",
		 many_combos ? " " : "", many_combos ? c->sweep.cache : "");
	if (c->state != CACHE_COLD) {
		strncat(t, " ", sizeof t - strlen(t) - 1);
		strncat(t, rp_state_caps(c->state), sizeof t - strlen(t) - 1);
	}
	rp_gp_text(gp, t);
}

static int plot_bandwidth(struct plot *p, struct pf_err *e)
{
	char path[4096], limit[64], t[96];
	int nseries = 0, combos = 0;
	FILE *f = dat_open(p, "bandwidth", path, sizeof path, e);
	if (f == NULL)
		return -1;
	for (long i = 0; i < p->r->ncells; i++)
		if (series_first(p->r, i)) {
			bw_series(f, p->r, i);
			nseries++;
			combos |= strcmp(p->r->cells[i].sweep.backend,
					 p->r->cells[0].sweep.backend) != 0 ||
				  strcmp(p->r->cells[i].sweep.cache, p->r->cells[0].sweep.cache) !=
					  0 ||
				  p->r->cells[i].sweep.transfer_size !=
					  p->r->cells[0].sweep.transfer_size;
		}
	int ceiling = bw_ceiling(f, p->r, limit, sizeof limit);
	if (dat_close(f, path, e) != 0 || gp_chart_begin(p, 0, e) != 0)
		return -1;
	gp_title(p, rp_chart_titles[0], "mean with min-max over repetitions");
	int most = 1;
	for (long i = 0; i < p->r->ncells; i++)
		most = p->r->cells[i].sweep.readers_per_node > most
			       ? p->r->cells[i].sweep.readers_per_node
			       : most;
	/* the legend below the plot, which keeps the width; room above the highest bar */
	fprintf(p->gp, "set xlabel 'readers per node'\nset ylabel 'aggregate read bandwidth [%s]'\n"
		"set yrange [0:*]\nset xrange [0.5:%d.5]\nset offsets 0, 0, graph 0.08, 0\n"
		"set key below horizontal\nset xtics 1\nplot ", rp_ru(p->r), most);
	for (long i = 0, s = 0; i < p->r->ncells; i++) {
		if (!series_first(p->r, i))
			continue;
		rp_gp_text(p->gp, path);
		fprintf(p->gp, " index %ld using 1:2:3:4 with yerrorlines lw 2 pt 7 title ", s++);
		series_title(p->gp, &p->r->cells[i], combos);
		fputs(s < nseries || ceiling ? ", \\\n  " : "\n", p->gp);
	}
	if (ceiling) {
		rp_gp_text(p->gp, path);
		fprintf(p->gp, " index %d using 1:2 with linespoints dt 2 lw 2 lc rgb '#555555' "
			"title ", nseries);
		snprintf(t, sizeof t, "ceiling (%s)", limit);
		rp_gp_text(p->gp, t);
		fputc('\n', p->gp);
	}
	return gp_chart_end(p, 0, e);
}

/* ---- timeline: each reader's files in one phase ---- */

/* The phase to draw: complete, cold if any is, with the most readers, the first such. */
static long timeline_phase(const struct run_data *run)
{
	long best = -1;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		if (!report_phase_counts(p) || run->phases[i].nranks == 0)
			continue;
		if (best < 0) {
			best = (long)i;
			continue;
		}
		const struct phase_info *b = &run->phases[best].info;
		int cold = report_phase_state(p) == CACHE_COLD, bcold = report_phase_state(b) == CACHE_COLD;
		if (cold > bcold || (cold == bcold && p->active_readers > b->active_readers))
			best = (long)i;
	}
	return best;
}

static void timeline_rows(FILE *f, const struct phase_data *pd, int per_rank)
{
	if (!per_rank) {
		for (size_t i = 0; i < pd->nfiles; i++) {
			const struct file_rec *r = &pd->files[i];
			if (isfinite(r->open_start) && isfinite(r->close_end))
				fprintf(f, "%d %.9g %.9g %d\n", (int)r->rank, r->open_start,
					r->close_end, (int)(r->file % 2) + 1);
		}
		return;
	}
	for (size_t i = 0; i < pd->nranks; i++) {
		const struct rank_rec *r = &pd->ranks[i];
		if (r->active && r->files > 0 && isfinite(r->start) && isfinite(r->end))
			fprintf(f, "%d %.9g %.9g %d\n", (int)r->rank, r->start, r->end,
				(int)(i % 2) + 1);
	}
}

static int plot_timeline(struct plot *p, struct pf_err *e)
{
	char path[4096], detail[384];
	long i = timeline_phase(p->r->run);
	const struct phase_data *pd = &p->r->run->phases[i];
	int per_rank = pd->files == NULL || pd->nfiles == 0 || pd->nfiles > REPORT_KEEP_ROWS;
	int nr = p->r->run->nranks;
	FILE *f = dat_open(p, "timeline", path, sizeof path, e);
	if (f == NULL)
		return -1;
	timeline_rows(f, pd, per_rank);
	if (dat_close(f, path, e) != 0 || gp_chart_begin(p, 1, e) != 0)
		return -1;
	snprintf(detail, sizeof detail, "phase %04u: %s x %d reader%s/node, %s, cache %s, rep %d%s",
		 (unsigned)pd->info.index, pd->info.sweep.dataset,
		 (int)pd->info.sweep.readers_per_node,
		 units_s((unsigned long long)pd->info.sweep.readers_per_node), pd->info.sweep.backend, pd->info.sweep.cache,
		 (int)pd->info.repetition,
		 per_rank ? " (one bar per reader: first open to last close)"
			  : " (one bar per file, open to close)");
	gp_title(p, rp_chart_titles[1], detail);
	/* the axis spans the ranks and no more: half a bar's room below the first and above the
	 * last, ticks on ranks only */
	fprintf(p->gp, "set xlabel 'time since the opening barrier [s]'\nset ylabel 'reader (MPI "
		"rank)'\nset yrange [-0.5:%d.5]\n", nr - 1);
	if (nr <= 40)
		fprintf(p->gp, "set ytics 0, 1, %d\n", nr - 1);
	else
		fprintf(p->gp, "set ytics 0, %d, %d\n", (nr + 9) / 10, nr - 1);
	fputs("set xrange [0:*]\nplot ", p->gp);
	rp_gp_text(p->gp, path);
	fprintf(p->gp, " using 2:1:($3-$2):(0):4 with vectors nohead lw %d lc variable notitle\n",
		nr <= 32 ? 8 : nr <= 128 ? 3 : 1);
	return gp_chart_end(p, 1, e);
}

/* ---- per-file latency CDF per file size ---- */

/* Open-to-close times of every completed phase of file size fs into v (room for all). */
static size_t latency_gather(const struct run_data *run, uint64_t fs, double *v)
{
	size_t n = 0;
	for (size_t i = 0; i < run->nphases; i++)
		if (run->phases[i].info.sweep.file_size == fs &&
		    report_phase_counts(&run->phases[i].info))
			n += analyze_file_times(&run->phases[i], v + n);
	return n;
}

static void latency_block(FILE *f, double *v, size_t n)
{
	size_t m = n < RP_CDF_POINTS ? n : RP_CDF_POINTS;
	stats_sort(v, n);
	for (size_t k = 0; k < m; k++) {
		size_t at = m > 1 ? (size_t)llround((double)k * (double)(n - 1) / (double)(m - 1)) : 0;
		fprintf(f, "%.9g %.9g\n", fmax(v[at] * 1e3, 1e-4), (double)(at + 1) / (double)n);
	}
	fputs("\n\n", f);
}

static size_t all_file_records(const struct run_data *run)
{
	size_t n = 0;
	for (size_t i = 0; i < run->nphases; i++)
		if (run->phases[i].files != NULL || run->phases[i].digest.filled)
			n += run->phases[i].nfiles;
	return n;
}

static int plot_latency(struct plot *p, struct pf_err *e)
{
	char path[4096], size[32], t[128];
	double *v = malloc((all_file_records(p->r->run) + 1) * sizeof *v);
	size_t count[64];
	long nsz = p->r->nsizes < 64 ? p->r->nsizes : 64;
	FILE *f = v ? dat_open(p, "latency", path, sizeof path, e) : NULL;
	if (f == NULL) {
		free(v);
		return v ? -1 : pf_fail(e, PF_RUNTIME, "report: out of memory");
	}
	for (long k = 0; k < nsz; k++) {
		count[k] = latency_gather(p->r->run, p->r->sizes[k].file_size, v);
		latency_block(f, v, count[k]);
	}
	free(v);
	if (dat_close(f, path, e) != 0 || gp_chart_begin(p, 2, e) != 0)
		return -1;
	gp_title(p, rp_chart_titles[2], "open to close of every file, all completed phases");
	fputs("set xlabel 'open to close [ms] (log scale)'\nset ylabel 'fraction of files'\n"
	      "set logscale x\nset yrange [0:1.02]\nset key bottom right\nplot ",
	      p->gp);
	for (long k = 0, shown = 0; k < nsz; k++) {
		if (count[k] == 0)
			continue;
		fputs(shown++ ? ", \\\n  " : "", p->gp);
		rp_gp_text(p->gp, path);
		snprintf(t, sizeof t, "%s files (%zu)",
			 units_format_size(p->r->sizes[k].file_size, size, sizeof size), count[k]);
		fprintf(p->gp, " index %ld using 1:2 with steps lw 2 title ", k);
		rp_gp_text(p->gp, t);
	}
	fputc('\n', p->gp);
	return gp_chart_end(p, 2, e);
}

/* ---- each node's bandwidth, per data set ---- */

/* The distinct data sets of the completed phases, as indices of their first phase. */
static size_t node_datasets(const struct run_data *run, size_t *first)
{
	size_t n = 0;
	for (size_t i = 0; i < run->nphases; i++) {
		size_t k = 0;
		if (!report_phase_counts(&run->phases[i].info))
			continue;
		while (k < n && strcmp(run->phases[first[k]].info.sweep.dataset,
				       run->phases[i].info.sweep.dataset))
			k++;
		if (k == n)
			first[n++] = i;
	}
	return n;
}

/* sum[d * nnodes + node] and cnt[...] of node bandwidths per data set. */
static void node_sums(const struct run_data *run, const size_t *first, size_t nds,
		      struct node_bw *bw, double *sum, int *cnt)
{
	int nn = run->nnodes;
	for (size_t i = 0; i < run->nphases; i++) {
		size_t d = 0;
		if (!report_phase_counts(&run->phases[i].info))
			continue;
		while (d < nds && strcmp(run->phases[first[d]].info.sweep.dataset,
					 run->phases[i].info.sweep.dataset))
			d++;
		analyze_nodes(&run->phases[i], nn, bw);
		for (int n = 0; n < nn && d < nds; n++)
			if (isfinite(bw[n].MBps)) {
				sum[d * (size_t)nn + (size_t)n] += bw[n].MBps;
				cnt[d * (size_t)nn + (size_t)n]++;
			}
	}
}

static void node_rows(FILE *f, const struct rp_run *r, size_t nds, const double *sum,
		      const int *cnt)
{
	char host[RECORD_HOST_MAX];
	const struct run_data *run = r->run;
	size_t nn = (size_t)run->nnodes;
	for (size_t n = 0; n < nn; n++) {
		dat_label(f, rp_host(run, (int)n, host, sizeof host));
		for (size_t d = 0; d < nds; d++)
			fprintf(f, " %.6g",
				cnt[d * nn + n] ? rp_rate(r, sum[d * nn + n] / cnt[d * nn + n]) : NAN);
		fputc('\n', f);
	}
}

static int node_script(struct plot *p, const char *path, const size_t *first, size_t nds,
		       struct pf_err *e)
{
	if (gp_chart_begin(p, 3, e) != 0)
		return -1;
	gp_title(p, rp_chart_titles[3], "readers' bytes / first start to last end of the node, "
		 "mean over completed phases");
	fprintf(p->gp, "set xlabel 'node (host name)'\nset ylabel 'node bandwidth [%s]'\n"
		"set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\nset style data histograms\n"
		"set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
		"set key below horizontal\n%splot ",
		rp_ru(p->r), p->r->run->nnodes > 8 ? "set xtics rotate by -60\n" : "");
	for (size_t d = 0; d < nds; d++) {
		fputs(d ? ", \\\n  " : "", p->gp);
		rp_gp_text(p->gp, path);
		fprintf(p->gp, " using %zu%s title ", d + 2, d ? "" : ":xtic(1)");
		rp_gp_text(p->gp, p->r->run->phases[first[d]].info.sweep.dataset);
	}
	fputc('\n', p->gp);
	return gp_chart_end(p, 3, e);
}

static int plot_nodes(struct plot *p, struct pf_err *e)
{
	const struct run_data *run = p->r->run;
	size_t nn = (size_t)run->nnodes, np = run->nphases ? run->nphases : 1;
	size_t *first = calloc(np, sizeof *first), nds = 0;
	struct node_bw *bw = calloc(nn, sizeof *bw);
	double *sum = calloc(np * nn, sizeof *sum);
	int *cnt = calloc(np * nn, sizeof *cnt), rc = -1;
	char path[4096];
	FILE *f = NULL;
	if (first == NULL || bw == NULL || sum == NULL || cnt == NULL) {
		pf_fail(e, PF_RUNTIME, "report: out of memory");
		goto out;
	}
	nds = node_datasets(run, first);
	node_sums(run, first, nds, bw, sum, cnt);
	if ((f = dat_open(p, "nodes", path, sizeof path, e)) == NULL)
		goto out;
	node_rows(f, p->r, nds, sum, cnt);
	if (dat_close(f, path, e) == 0)
		rc = node_script(p, path, first, nds, e);
out:
	free(first);
	free(bw);
	free(sum);
	free(cnt);
	return rc;
}

/* ---- running gnuplot ---- */

int rp_chart_has_data(const struct rp_run *r, int i)
{
	if (r->ncells == 0 || r->run->nnodes < 1)
		return 0;
	if (i == 1)
		return timeline_phase(r->run) >= 0;
	if (i == 2)
		return r->nsizes > 0 && all_file_records(r->run) > 0;
	return 1;
}

/* Every chart that was drawn must exist and not be empty. */
static int plot_check(const struct plot *p, struct pf_err *e)
{
	static const char *const ext[] = {"png", "svg"};
	char path[4096];
	struct stat st;
	for (int i = 0; i < RP_NCHARTS; i++)
		for (int x = 0; x < 2 && rp_chart_has_data(p->r, i); x++) {
			if (plot_path(p, rp_chart_names[i], ext[x], path, sizeof path) != 0)
				return pf_fail(e, PF_USAGE, RP_BAD_DIR, p->dir);
			if (stat(path, &st) != 0 || st.st_size == 0)
				return pf_fail(e, PF_RUNTIME, "report: gnuplot did not write %s", path);
		}
	return 0;
}

/* The charts gnuplot was to draw, after it failed or was killed: none left half-written (the
 * script, its data and the log stay, to look into). */
static void plot_remove(const struct plot *p)
{
	static const char *const ext[] = {"png", "svg"};
	char path[4096];
	for (int i = 0; i < RP_NCHARTS; i++)
		for (int x = 0; x < 2 && rp_chart_has_data(p->r, i); x++)
			if (plot_path(p, rp_chart_names[i], ext[x], path, sizeof path) == 0)
				(void)rp_gp_remove(path); /* already failing: the first error is said */
}

static int (*const plot_fns[RP_NCHARTS])(struct plot *, struct pf_err *) = {
	plot_bandwidth, plot_timeline, plot_latency, plot_nodes};

static void plot_name(struct plot *p)
{
	const char *cfg = p->r->run->config_path, *base = cfg ? strrchr(cfg, '/') : NULL;
	base = base ? base + 1 : cfg;
	snprintf(p->name, sizeof p->name, "%s", base && base[0] ? base : p->r->stem);
}

static int plot_run(const char *dir, struct rp_run *r, struct pf_err *e)
{
	char script[4096], log[4096];
	struct plot p = {dir, r, NULL, ""};
	int rc = 0;
	plot_name(&p);
	if (plot_path(&p, "", "gp", script, sizeof script) != 0 ||
	    plot_path(&p, "gnuplot", "log", log, sizeof log) != 0)
		return pf_fail(e, PF_USAGE, RP_BAD_DIR, dir);
	if ((p.gp = fopen(script, "w")) == NULL)
		return pf_fail_errno(e, errno, "report: cannot write %s", script);
	/* the name quoted: a comment line that ended in a backslash would go on to the next */
	fputs("# gnuplot script written by pfsread report for ", p.gp);
	rp_gp_text(p.gp, rp_or_dash(r->run->path));
	fputc('\n', p.gp);
	for (int i = 0; i < RP_NCHARTS && rc == 0; i++)
		if (rp_chart_has_data(r, i))
			rc = plot_fns[i](&p, e);
	if (dat_close(p.gp, script, e) != 0 || rc != 0)
		return -1;
	if (r->ncells == 0)
		return 0;
	if (rp_gp_run(script, log, e) != 0 || plot_check(&p, e) != 0) {
		plot_remove(&p);
		return -1;
	}
	return 0;
}

int rp_plot(const char *dir, struct rp_run *runs, size_t nruns, struct pf_err *e)
{
	struct stat st;
	int err = dataset_mkdirs(dir);
	if (err != 0)
		return pf_fail_errno(e, err, "report: cannot make the plot directory %s", dir);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return pf_fail(e, PF_USAGE, "report: %s is not a directory", dir);
	for (size_t i = 0; i < nruns; i++)
		if (plot_run(dir, &runs[i], e) != 0)
			return -1;
	return rp_plot_overlay(dir, runs, nruns, e) < 0 ? -1 : 0;
}
