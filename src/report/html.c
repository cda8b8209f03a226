/* report_html: the whole report as one self-contained HTML page: every table, the SVG charts
 * inlined, and each run's config and environment. It needs no server and loads nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/internal.h"

static const char html_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}\n"
	"table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.85em}\n"
	"th,td{border:1px solid #bbb;padding:2px 4px}th{background:#eee;font-weight:600;"
	"vertical-align:bottom;overflow-wrap:anywhere;hyphens:auto}\n"
	/* a table of many columns (every phase) in a smaller type, so that it fits a 1280 px
	 * window instead of scrolling sideways */
	"table.wide{font-size:0.75em}\n"
	"td.r,th.r{text-align:right}td.l,th.l{text-align:left}\n"
	"figure.chart{margin:1em 0;border:1px solid #ddd;padding:0.5em}\n"
	"figure.chart svg{max-width:100%;height:auto;display:block}\n"
	"pre{background:#f6f6f6;padding:0.6em;overflow:auto}\n"
	"section.run{border-top:3px solid #888;margin-top:2em}\n"
	"nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:0.4em 0;"
	"z-index:1}\nnav a{margin-right:1.2em;color:#0b5394;text-decoration:none}\n"
	"nav a:hover{text-decoration:underline}\n"
	"details{margin:0.4em 0}summary{cursor:pointer;font-weight:bold;color:#333}\n"
	"ul.answer{margin:0.3em 0;padding-left:1.2em}ul.answer li{margin:0.15em 0}\n"
	"ul.answer li.finding{list-style:square}\n"
	"section#answer+figure.chart svg{max-height:380px;width:auto}\n";

/* Sets data-charts-rendered on body to "drawn/total": a chart counts as drawn when its SVG
 * has a non-empty box and holds drawing elements. Tests read it back from the page. */
static const char html_check[] =
	"<script>\n"
	"window.addEventListener('load', function () {\n"
	"  var closedHeight = document.documentElement.scrollHeight;\n"
	"  if (location.hash === '#check') /* a closed details element draws nothing: open them */\n"
	"    document.querySelectorAll('details').forEach(function (d) { d.open = true; });\n"
	"  var svgs = document.querySelectorAll('figure.chart svg'), drawn = 0;\n"
	"  for (var i = 0; i < svgs.length; i++) {\n"
	"    var b = svgs[i].getBBox();\n"
	"    if (b.width > 0 && b.height > 0 &&\n"
	"        svgs[i].querySelectorAll('path, polyline, polygon, rect, line').length > 0)\n"
	"      drawn++;\n"
	"  }\n"
	"  document.body.setAttribute('data-charts-rendered', drawn + '/' + svgs.length);\n"
	"  document.body.setAttribute('data-height', closedHeight);\n"
	"  /* wider than the window: the reader scrolls sideways (0 when it fits) */\n"
	"  document.body.setAttribute('data-overflow-x', Math.max(0,\n"
	"    document.documentElement.scrollWidth - document.documentElement.clientWidth));\n"
	"  var answer = document.getElementById('answer');\n"
	"  var chart = document.querySelector('figure.chart');\n"
	"  if (answer && chart)\n"
	"    document.body.setAttribute('data-answer-chart-bottom', Math.round(Math.max(\n"
	"      answer.getBoundingClientRect().bottom, chart.getBoundingClientRect().bottom)));\n"
	"});\n"
	"</script>\n";

/* Copy the SVG file from its <svg element on (gnuplot writes an XML prolog first). */
static int html_svg(FILE *out, const char *path, struct pf_err *e)
{
	FILE *f = fopen(path, "r");
	char buf[8192];
	size_t n;
	int started = 0;
	if (f == NULL)
		return pf_fail_errno(e, errno, "report: cannot read chart %s", path);
	while (fgets(buf, sizeof buf, f) != NULL) {
		char *at = started ? buf : strstr(buf, "<svg");
		if (at == NULL)
			continue;
		started = 1;
		n = strlen(at);
		if (fwrite(at, 1, n, out) != n)
			break;
	}
	int bad = ferror(f);
	fclose(f); /* read only: nothing to lose */
	if (bad || !started)
		return pf_fail(e, PF_RUNTIME, "report: chart %s is not an SVG file", path);
	return 0;
}

/* Charts from..to-1 of run r (0 is the main one, the study's table as a chart). */
static int html_charts(FILE *out, const struct rp_run *r, int from, int to, const char *dir,
		       struct pf_err *e)
{
	char path[4096];
	for (int i = from; i < to; i++) {
		fprintf(out, "<figure class=\"chart\" id=\"%s-%s\"><figcaption>", r->stem,
			rp_chart_names[i]);
		rp_html_text(out, rp_chart_titles[i]);
		fputs("</figcaption>\n", out);
		if (!rp_chart_has_data(r, i)) {
			fputs("<p>no data for this chart</p></figure>\n", out);
			continue;
		}
		if (snprintf(path, sizeof path, "%s/%s-%s.svg", dir, r->stem, rp_chart_names[i]) >=
			    (int)sizeof path ||
		    html_svg(out, path, e) != 0)
			return -1;
		fputs("</figure>\n", out);
	}
	return 0;
}

static void html_env_row(FILE *out, const char *k, const char *v)
{
	fputs("<tr><th class=\"l\">", out);
	rp_html_text(out, k);
	fputs("</th><td class=\"l\">", out);
	rp_html_text(out, rp_or_dash(v));
	fputs("</td></tr>\n", out);
}

/* 1 when /environment's entry k says what another row of the page says already: the run's
 * header (job id, fs, mount) or a row above it (the version). */
static int html_env_shown(const struct run_data *run, const struct env_entry *k)
{
	return rp_header_shows(k->key) ||
	       (strcmp(k->key, "pfsread_version") == 0 &&
		strcmp(k->value, rp_or_dash(run->pfsread_version)) == 0);
}

/* Environment: versions, command line, what the run recorded of its machine (/environment),
 * hosts and their ranks; each fact once: what the run's header above shows (job id, file
 * system, mount and its atime mode) is not repeated. */
static void html_env(FILE *out, const struct run_data *run)
{
	char host[RECORD_HOST_MAX];
	fputs("<h3>environment</h3>\n<table>\n", out);
	html_env_row(out, "pfsread version", run->pfsread_version);
	html_env_row(out, "MPI", run->mpi_version);
	html_env_row(out, "HDF5", run->hdf5_version);
	html_env_row(out, "command line", run->command_line);
	if (run->nphases > 0) {
		if (envinfo_value(&run->env, "fs_atime_mode") == NULL)
			html_env_row(out, "atime mode of the data sets' mount",
				     run->phases[0].info.atime_mode);
		html_env_row(out, "MPI-IO hints", run->phases[0].info.mpiio_hints);
	}
	for (size_t i = 0; i < run->env.n && i < ENV_MAX; i++)
		if (!html_env_shown(run, &run->env.e[i]))
			html_env_row(out, run->env.e[i].key, run->env.e[i].value);
	for (int n = 0; n < run->nnodes; n++) {
		char label[32], ranks[128];
		snprintf(label, sizeof label, "node %d", n);
		fputs("<tr><th class=\"l\">", out);
		rp_html_text(out, label);
		fputs("</th><td class=\"l\">", out);
		rp_html_text(out, rp_host(run, n, host, sizeof host));
		fputs(" (ranks ", out);
		rp_html_text(out, rp_or_dash(rp_node_ranks(run, n, ranks, sizeof ranks)));
		fputs(")</td></tr>\n", out);
	}
	fputs("</table>\n<h3>config</h3>\n<pre>", out);
	rp_html_lines(out, rp_or_dash(run->config_yaml));
	fputs("</pre>\n", out);
}

/* The runs overlaid (plot_overlay.c), one chart per backend, in the comparison's section. */
static int html_overlays(FILE *out, const struct rp_run *runs, size_t nruns, const char *dir,
			 struct pf_err *e)
{
	char path[4096], names[RP_OVERLAY_MAX][RP_OVERLAY_NAME];
	size_t n = rp_overlay_names(runs, nruns, names, RP_OVERLAY_MAX);
	for (size_t k = 0; k < n; k++) {
		if (snprintf(path, sizeof path, "%s/%s.svg", dir, names[k]) >= (int)sizeof path ||
		    access(path, F_OK) != 0)
			break;
		fprintf(out, "<figure class=\"chart\" id=\"%s\"><figcaption>the runs "
			"overlaid</figcaption>\n", names[k]);
		if (html_svg(out, path, e) != 0)
			return -1;
		fputs("</figure>\n", out);
	}
	return 0;
}

/* The bar on top: the comparison, each run, the calibration. */
static void html_nav(FILE *out, const struct rp_run *runs, size_t nruns,
		     const struct calib_data *calib)
{
	fputs("<nav>", out);
	if (nruns > 1)
		fputs("<a href=\"#comparison\">comparison</a>", out);
	for (size_t i = 0; i < nruns; i++) {
		fprintf(out, "<a href=\"#run-%zu\">", i);
		rp_html_text(out, rp_or_dash(runs[i].run->path));
		fputs("</a>", out);
	}
	if (calib != NULL)
		fputs("<a href=\"#calibration\">calibration</a>", out);
	fputs("</nav>\n", out);
}

/* One run: its header, summary table and main chart in view (the main chart is at the top of
 * the page instead when main_on_top); the other charts, details and environment folded. */
static int html_run(FILE *out, const struct rp_run *r, size_t i, int main_on_top,
		    const char *dir, struct pf_err *e)
{
	fprintf(out, "<section class=\"run\" id=\"run-%zu\">\n<h2>", i);
	rp_html_text(out, rp_or_dash(r->run->path));
	fputs("</h2>\n", out);
	if (rp_text_summary(out, r, REPORT_HTML, e) != 0 ||
	    (!main_on_top && html_charts(out, r, 0, 1, dir, e) != 0))
		return -1;
	fputs("<details class=\"charts\"><summary>charts</summary>\n", out);
	if (html_charts(out, r, 1, RP_NCHARTS, dir, e) != 0)
		return -1;
	fputs("</details>\n<details><summary>details: statistics per cell, ceilings, sizes, nodes, "
	      "stragglers, phases</summary>\n", out);
	if (rp_text_details(out, r, REPORT_HTML, e) != 0)
		return -1;
	fputs("</details>\n<details><summary>run, environment and config</summary>\n", out);
	rp_text_header(out, r->run, REPORT_HTML);
	html_env(out, r->run);
	fputs("</details>\n</section>\n", out);
	return 0;
}

/* The answer first (with one run, its main chart beside it; with several, the comparison),
 * then each run, then the calibration. */
static int html_body(FILE *out, struct rp_run *runs, size_t nruns,
		     const struct calib_data *calib, const char *dir, struct pf_err *e)
{
	fputs("<h1>pfsread report</h1>\n", out);
	html_nav(out, runs, nruns, calib);
	rp_text_answer(out, runs, nruns, REPORT_HTML);
	if (nruns == 1 && html_charts(out, &runs[0], 0, 1, dir, e) != 0)
		return -1;
	if (nruns > 1)
		fputs("<section id=\"comparison\">\n", out);
	for (size_t i = 1; i < nruns; i++)
		if (rp_text_compare(out, &runs[0], &runs[i], REPORT_HTML, e) != 0)
			return -1;
	if (nruns > 1 && html_overlays(out, runs, nruns, dir, e) != 0)
		return -1;
	if (nruns > 1)
		fputs("</section>\n", out);
	for (size_t i = 0; i < nruns; i++)
		if (html_run(out, &runs[i], i, nruns == 1, dir, e) != 0)
			return -1;
	if (calib != NULL) {
		fputs("<section id=\"calibration\">\n", out);
		enum units_rate u = nruns > 0 ? runs[0].units : UNITS_RATE_DECIMAL;
		if (rp_text_calib(out, calib, u, REPORT_HTML, e) != 0)
			return -1;
		fputs("</section>\n", out);
	}
	return 0;
}

static int html_write(const char *path, struct rp_run *runs, size_t nruns,
		      const struct calib_data *calib, const char *dir, struct pf_err *e)
{
	FILE *out = fopen(path, "w");
	if (out == NULL)
		return pf_fail_errno(e, errno, "report: cannot write %s", path);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>pfsread report</title>\n<style>\n",
	      out);
	fputs(html_style, out);
	fputs("</style>\n</head>\n<body>\n", out);
	int rc = html_body(out, runs, nruns, calib, dir, e);
	fputs(html_check, out);
	fputs("</body>\n</html>\n", out);
	int bad = ferror(out);
	if ((fclose(out) != 0 || bad) && rc == 0)
		rc = pf_fail_errno(e, errno ? errno : EIO, "report: cannot write %s", path);
	return rc;
}

/* Remove the flat directory dir made for the charts, and what is in it. */
static void html_rmdir(const char *dir)
{
	char path[4096];
	struct dirent *d;
	DIR *h = opendir(dir);
	while (h != NULL && (d = readdir(h)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, d->d_name) < (int)sizeof path)
			(void)unlink(path); /* scratch files: a leftover is harmless */
	}
	if (h != NULL)
		closedir(h);
	(void)rmdir(dir);
}

int rp_html(const char *path, struct rp_run *runs, size_t nruns,
	    const struct calib_data *calib, const char *dir, struct pf_err *e)
{
	char tmp[4096];
	int rc;
	if (dir != NULL)
		return html_write(path, runs, nruns, calib, dir, e);
	const char *base = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/pfsread-charts.XXXXXX", base && base[0] ? base : "/tmp");
	if (mkdtemp(tmp) == NULL)
		return pf_fail_errno(e, errno, "report: cannot make a scratch directory %s", tmp);
	rc = rp_plot(tmp, runs, nruns, e);
	if (rc == 0)
		rc = html_write(path, runs, nruns, calib, tmp, e);
	html_rmdir(tmp);
	return rc;
}
