/* plot_overlay: the chart a comparison is made for. Two or more runs on one chart per backend:
 * aggregate bandwidth vs readers per node, a line per run and data set with caps at its 95%
 * interval. Runs differ by colour (Okabe-Ito, safe for colour-blind readers, no yellow) AND
 * dash, data sets by marker; the points of each series are shifted a little along x so that
 * caps do not overlap; ticks sit at the reader counts measured; the legend stands below the
 * plot, which keeps the width. Files are named by the backend they overlay
 * (overlay-posix.png). PNG and SVG for the screen, PDF for papers, and the data and script to
 * redraw it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/internal.h"

#define OV_PATH 4096

static const char *const ov_colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
					 "#56B4E9", "#E69F00", "#000000"};
#define OV_NCOLOURS (sizeof ov_colours / sizeof ov_colours[0])
static const int ov_points[] = {7, 5, 9, 11, 13, 15}; /* filled circle, square, triangles, ... */
#define OV_NPOINTS (sizeof ov_points / sizeof ov_points[0])

/* 1 when cells a and b differ only in readers per node: one line of the chart. */
static int ov_same_line(const struct report_cell *a, const struct report_cell *b)
{
	char va[192], vb[192];
	for (int k = 0; k < REPORT_NKEYS; k++)
		if (k != SWEEP_READERS && strcmp(report_key_value(a, k, va, sizeof va),
						 report_key_value(b, k, vb, sizeof vb)) != 0)
			return 0;
	return 1;
}

/* 1 when cell i of r starts a line (no earlier cell belongs to it). */
static int ov_line_first(const struct rp_run *r, long i)
{
	for (long j = 0; j < i; j++)
		if (ov_same_line(&r->cells[j], &r->cells[i]))
			return 0;
	return 1;
}

static int ov_cmp_readers(const void *x, const void *y)
{
	const struct report_cell *a = *(const struct report_cell *const *)x;
	const struct report_cell *b = *(const struct report_cell *const *)y;
	return (a->sweep.readers_per_node > b->sweep.readers_per_node) -
	       (a->sweep.readers_per_node < b->sweep.readers_per_node);
}

/* The backends of every run, in order of first appearance; returns how many (at most max). */
static size_t ov_backends(const struct rp_run *runs, size_t nruns, const char **b, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < nruns; i++)
		for (long c = 0; c < runs[i].ncells; c++) {
			const char *name = runs[i].cells[c].sweep.backend;
			size_t k = 0;
			while (k < n && strcmp(b[k], name) != 0)
				k++;
			if (k == n && n < max)
				b[n++] = name;
		}
	return n;
}

#define OV_CLEAN 32 /* a backend's name in a file name, at most, its NUL included */

/* name in letters, digits and ._- (anything else is _), into out[OV_CLEAN] */
static void ov_clean(const char *name, char *out)
{
	size_t n = 0;
	for (; name[n] && n + 1 < OV_CLEAN; n++)
		out[n] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
				name[n]) ? name[n] : '_';
	out[n] = '\0';
}

/* The name of backend k's chart files: "overlay-" and the backend's name cleaned, with -K
 * after it when an earlier backend's name cleans to the same, or it cleans to nothing. */
static void ov_name(const char *const *b, size_t k, char *buf)
{
	char mine[OV_CLEAN], other[OV_CLEAN];
	int dup = 0;
	ov_clean(b[k], mine);
	for (size_t i = 0; i < k; i++) {
		ov_clean(b[i], other);
		dup |= strcmp(mine, other) == 0;
	}
	if (dup || mine[0] == '\0')
		snprintf(buf, RP_OVERLAY_NAME, "overlay-%s-%zu", mine, k);
	else
		snprintf(buf, RP_OVERLAY_NAME, "overlay-%s", mine);
}

size_t rp_overlay_names(const struct rp_run *runs, size_t nruns,
			char (*names)[RP_OVERLAY_NAME], size_t max)
{
	const char *b[RP_OVERLAY_MAX];
	size_t nb = nruns < 2 ? 0 : ov_backends(runs, nruns, b, max < RP_OVERLAY_MAX ? max :
									  RP_OVERLAY_MAX);
	for (size_t k = 0; k < nb; k++)
		ov_name(b, k, names[k]);
	return nb;
}

/* The line of cell `first` of run r: its points sorted by readers, x shifted by factor. */
static int ov_line_data(FILE *f, const struct rp_run *r, long first, double shift)
{
	const struct report_cell **pts = calloc((size_t)r->ncells, sizeof *pts);
	size_t n = 0;
	if (pts == NULL)
		return -1;
	for (long c = first; c < r->ncells; c++)
		if (ov_same_line(&r->cells[first], &r->cells[c]))
			pts[n++] = &r->cells[c];
	qsort(pts, n, sizeof *pts, ov_cmp_readers);
	/* a bandwidth is never below 0: an interval reaching below it is drawn to 0, whole on
	 * the chart instead of cut by its bottom edge */
	for (size_t i = 0; i < n; i++) {
		double ci = isfinite(pts[i]->ci95_MBps) ? rp_rate(r, pts[i]->ci95_MBps) : 0.0;
		double mean = rp_rate(r, pts[i]->mean_MBps);
		fprintf(f, "%.6g %.6g %.6g %.6g %d\n", pts[i]->sweep.readers_per_node * shift, mean,
			fmax(mean - ci, 0), mean + ci, (int)pts[i]->sweep.readers_per_node);
	}
	fputs("\n\n", f);
	free(pts);
	return 0;
}

/* A run's name on the chart: its file name without the directory. */
static const char *ov_run_name(const struct rp_run *r)
{
	const char *p = r->run->path ? r->run->path : r->stem, *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* The lines of backend b: data blocks into dat, plot clauses into gp. Returns how many. */
static int ov_lines(FILE *dat, FILE *gp, const char *datpath, const struct rp_run *runs,
		    size_t nruns, const char *b)
{
	int nlines = 0, total = 0;
	for (size_t i = 0; i < nruns; i++)
		for (long c = 0; c < runs[i].ncells; c++)
			total += strcmp(runs[i].cells[c].sweep.backend, b) == 0 &&
				 ov_line_first(&runs[i], c);
	for (size_t i = 0; i < nruns; i++) {
		int ds = 0;
		for (long c = 0; c < runs[i].ncells; c++) {
			const struct report_cell *cell = &runs[i].cells[c];
			if (strcmp(cell->sweep.backend, b) != 0 || !ov_line_first(&runs[i], c))
				continue;
			/* spread the lines over +/- 6% along the (log) x axis */
			double shift = total > 1 ? pow(2, 0.17 * (nlines - (total - 1) / 2.0) /
							     (total - 1)) : 1;
			if (ov_line_data(dat, &runs[i], c, shift) != 0)
				return -1;
			char title[512], state[64];
			snprintf(title, sizeof title, "%s: %s (%s)", ov_run_name(&runs[i]),
				 cell->sweep.dataset,
				 report_key_value(cell, REPORT_KEY_STATE, state, sizeof state));
			fputs(nlines ? ", \\\n  " : "plot ", gp);
			rp_gp_text(gp, datpath);
			fprintf(gp, " index %d using 1:2:3:4 with yerrorlines lw 2 lc rgb '%s' dt %zu "
				"pt %d ps 1.3 title ", nlines, ov_colours[i % OV_NCOLOURS],
				i % 5 + 1, ov_points[ds % OV_NPOINTS]);
			rp_gp_text(gp, title);
			nlines++;
			ds++;
		}
	}
	if (nlines)
		fputc('\n', gp);
	return nlines;
}

/* ticks at the reader counts measured for backend b */
static void ov_xtics(FILE *gp, const struct rp_run *runs, size_t nruns, const char *b)
{
	int seen[1025] = {0}, first = 1;
	fputs("set xtics (", gp);
	for (size_t i = 0; i < nruns; i++)
		for (long c = 0; c < runs[i].ncells; c++) {
			int r = (int)runs[i].cells[c].sweep.readers_per_node;
			if (strcmp(runs[i].cells[c].sweep.backend, b) == 0 && r > 0 && r <= 1024)
				seen[r] = 1;
		}
	for (int r = 1; r <= 1024; r++)
		if (seen[r]) {
			fprintf(gp, "%s'%d' %d", first ? "" : ", ", r, r);
			first = 0;
		}
	fputs(")\n", gp);
}

static void ov_output(FILE *gp, const char *term, const char *path)
{
	fprintf(gp, "set terminal %s\nset output ", term);
	rp_gp_text(gp, path);
	fputs("\n", gp);
}

/* The chart of backend b, its files DIR/NAME.{dat,png,svg,pdf}: the script's part and the
 * data. */
static int ov_chart(FILE *gp, const char *dir, const char *name, const struct rp_run *runs,
		    size_t nruns, const char *b, struct pf_err *e)
{
	char dat[OV_PATH], png[OV_PATH], svg[OV_PATH], pdf[OV_PATH], title[256];
	if (snprintf(dat, sizeof dat, "%s/%s.dat", dir, name) >= (int)sizeof dat ||
	    snprintf(png, sizeof png, "%s/%s.png", dir, name) >= (int)sizeof png ||
	    snprintf(svg, sizeof svg, "%s/%s.svg", dir, name) >= (int)sizeof svg ||
	    snprintf(pdf, sizeof pdf, "%s/%s.pdf", dir, name) >= (int)sizeof pdf)
		return pf_fail(e, PF_USAGE, "report: plot directory name too long: %s", dir);
	FILE *f = fopen(dat, "w");
	if (f == NULL)
		return pf_fail_errno(e, errno, "report: cannot write %s", dat);
	fprintf(f, "# x (shifted) mean low high readers_per_node, in %s (low, high: the 95%% "
		"interval, low at least 0); one block per line\n", units_rate_name(runs[0].units));
	ov_output(gp, "pngcairo size 1100,620 noenhanced font 'sans,10'", png);
	snprintf(title, sizeof title, "aggregate read bandwidth vs readers per node, backend %s "
		 "(mean, bars: 95%% interval)", b);
	fputs("set title ", gp);
	rp_gp_text(gp, title);
	/* the legend below the plot, which keeps the width; room above the highest cap */
	fprintf(gp, "\nset grid\nset logscale x 2\nset xlabel 'readers per node'\n"
		"set ylabel 'aggregate read bandwidth [%s]'\nset yrange [0:*]\n"
		"set key below horizontal Left reverse samplen 4 spacing 1.3 width 2\n"
		"set bars 2\nset offsets graph 0.04, graph 0.04, graph 0.08, 0\n",
		units_rate_name(runs[0].units));
	ov_xtics(gp, runs, nruns, b);
	int n = ov_lines(f, gp, dat, runs, nruns, b);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return pf_fail_errno(e, errno ? errno : EIO, "report: cannot write %s", dat);
	if (n < 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	ov_output(gp, "svg size 1100,620 noenhanced font 'sans,10' background '#ffffff'", svg);
	fputs("replot\n", gp);
	ov_output(gp, "pdfcairo size 11in,6.2in noenhanced font 'sans,10'", pdf);
	fputs("replot\nunset output\nreset\n", gp);
	return 0;
}

/* The nb charts gnuplot was to draw, after it failed or was killed: none left half-written. */
static void ov_remove(const char *dir, char (*names)[RP_OVERLAY_NAME], size_t nb)
{
	static const char *const ext[] = {"png", "svg", "pdf"};
	char path[OV_PATH];
	for (size_t k = 0; k < nb; k++)
		for (size_t x = 0; x < 3; x++)
			if (snprintf(path, sizeof path, "%s/%s.%s", dir, names[k], ext[x]) <
			    (int)sizeof path)
				(void)rp_gp_remove(path); /* already failing: the first error is said */
}

int rp_plot_overlay(const char *dir, struct rp_run *runs, size_t nruns, struct pf_err *e)
{
	const char *backends[RP_OVERLAY_MAX];
	char names[RP_OVERLAY_MAX][RP_OVERLAY_NAME];
	char script[OV_PATH], log[OV_PATH];
	if (nruns < 2)
		return 0;
	size_t nb = ov_backends(runs, nruns, backends, RP_OVERLAY_MAX);
	if (nb == 0 || rp_overlay_names(runs, nruns, names, RP_OVERLAY_MAX) != nb)
		return 0;
	if (snprintf(script, sizeof script, "%s/overlay.gp", dir) >= (int)sizeof script ||
	    snprintf(log, sizeof log, "%s/overlay-gnuplot.log", dir) >= (int)sizeof log ||
	    rp_gp_has_control(script))
		return pf_fail(e, PF_USAGE, "report: plot directory name too long or holds a "
			       "control character: %s", dir);
	FILE *gp = fopen(script, "w");
	if (gp == NULL)
		return pf_fail_errno(e, errno, "report: cannot write %s", script);
	fputs("# gnuplot script written by pfsread report: the runs overlaid, one chart per "
	      "backend\n", gp);
	int rc = 0;
	for (size_t k = 0; k < nb && rc == 0; k++)
		rc = ov_chart(gp, dir, names[k], runs, nruns, backends[k], e);
	int bad = ferror(gp);
	if ((fclose(gp) != 0 || bad) && rc == 0)
		rc = pf_fail_errno(e, errno ? errno : EIO, "report: cannot write %s", script);
	if (rc == 0 && (rc = rp_gp_run(script, log, e)) != 0)
		ov_remove(dir, names, nb);
	for (size_t k = 0; k < nb && rc == 0; k++) {
		struct stat st;
		char png[OV_PATH];
		snprintf(png, sizeof png, "%s/%s.png", dir, names[k]);
		if (stat(png, &st) != 0 || st.st_size == 0)
			rc = pf_fail(e, PF_RUNTIME, "report: gnuplot did not write %s", png);
	}
	return rc == 0 ? (int)nb : -1;
}
