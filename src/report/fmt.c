/* report: the entry points of the report and what its output files share: tables of strings
 * printed as text, markdown or HTML, escaping, a run analysed once (cells, time split,
 * stragglers) for every output. Output errors are checked once, with ferror. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/internal.h"

int report_parse_format(const char *name, enum report_format *f)
{
	static const char *const names[] = {"text", "markdown", "csv", "json", "html"};
	static const enum report_format formats[] = {REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV,
						     REPORT_JSON, REPORT_HTML};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0) {
			*f = formats[i];
			return 0;
		}
	return -1;
}

/* ---- tables ---- */

void tbl_add(struct tbl *t, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	if (t->bad)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **grown = realloc(t->cell, cap * sizeof *grown);
		if (grown == NULL) {
			t->bad = 1;
			return;
		}
		t->cell = grown;
		t->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		t->bad = 1;
	else
		t->cell[t->n++] = s;
	va_end(ap);
}

void tbl_num(struct tbl *t, int decimals, double v)
{
	if (isfinite(v))
		tbl_add(t, "%.*f", decimals, v);
	else
		tbl_add(t, "-");
}

static void tbl_free(struct tbl *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof *t);
}

static int tbl_right(const struct tbl *t, size_t col)
{
	return t->align == NULL || col >= strlen(t->align) || t->align[col] == 'r';
}

static void tbl_text_row(FILE *out, const struct tbl *t, char *const *row, const size_t *w)
{
	for (size_t c = 0; c < t->ncols; c++) {
		int last = c + 1 == t->ncols;
		size_t len = strlen(row[c]), pad = w[c] > len ? w[c] - len : 0;
		for (size_t k = 0; tbl_right(t, c) && k < pad; k++)
			fputc(' ', out);
		rp_plain_text(out, row[c]);
		for (size_t k = 0; !tbl_right(t, c) && !last && k < pad; k++)
			fputc(' ', out);
		fputs(last ? "\n" : "  ", out);
	}
}

static void tbl_text(FILE *out, const struct tbl *t, size_t *w)
{
	size_t total = 0;
	for (size_t i = 0; i < t->n; i++) {
		size_t len = strlen(t->cell[i]);
		if (len > w[i % t->ncols])
			w[i % t->ncols] = len;
	}
	for (size_t c = 0; c < t->ncols; c++)
		total += w[c] + (c ? 2 : 0);
	tbl_text_row(out, t, t->cell, w);
	for (size_t i = 0; i < total; i++)
		fputc('-', out);
	fputc('\n', out);
	for (size_t i = t->ncols; i + t->ncols <= t->n; i += t->ncols)
		tbl_text_row(out, t, t->cell + i, w);
}

/* Strings from a results file in markdown: a table cell must not end at a | of the text nor
 * a line at its newline, and the text must not open a code span, an HTML tag or an escape
 * of the renderer's. Control characters become spaces. */
void rp_md_text(FILE *out, const char *s)
{
	for (; s != NULL && *s; s++) {
		if (strchr("\\|`<>", *s) != NULL)
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
	}
}

/* Text for a terminal: control characters (escape sequences, carriage returns, newlines
 * inside a value) become spaces. */
void rp_plain_text(FILE *out, const char *s)
{
	for (; s != NULL && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
}

static void tbl_markdown_row(FILE *out, const struct tbl *t, char *const *row)
{
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("| ", out);
		rp_md_text(out, row[c]);
		fputc(' ', out);
	}
	fputs("|\n", out);
}

static void tbl_markdown(FILE *out, const struct tbl *t)
{
	tbl_markdown_row(out, t, t->cell);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(tbl_right(t, c) ? "| ---: " : "| --- ", out);
	fputs("|\n", out);
	for (size_t i = t->ncols; i + t->ncols <= t->n; i += t->ncols)
		tbl_markdown_row(out, t, t->cell + i);
}

static void tbl_html_row(FILE *out, const struct tbl *t, char *const *row, const char *tag)
{
	fputs("<tr>", out);
	for (size_t c = 0; c < t->ncols; c++) {
		fprintf(out, "<%s class=\"%s\">", tag, tbl_right(t, c) ? "r" : "l");
		rp_html_text(out, row[c]);
		fprintf(out, "</%s>", tag);
	}
	fputs("</tr>\n", out);
}

static void tbl_html(FILE *out, const struct tbl *t)
{
	fputs("<table>\n<thead>", out);
	tbl_html_row(out, t, t->cell, "th");
	fputs("</thead>\n<tbody>\n", out);
	for (size_t i = t->ncols; i + t->ncols <= t->n; i += t->ncols)
		tbl_html_row(out, t, t->cell + i, "td");
	fputs("</tbody>\n</table>\n", out);
}

int tbl_print(FILE *out, struct tbl *t, enum report_format f, struct pf_err *e)
{
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
	int rc = 0;
	if (t->bad || w == NULL || t->n < t->ncols)
		rc = pf_fail(e, PF_RUNTIME, "report: out of memory");
	else if (f == REPORT_MARKDOWN)
		tbl_markdown(out, t);
	else if (f == REPORT_HTML)
		tbl_html(out, t);
	else
		tbl_text(out, t, w);
	free(w);
	tbl_free(t);
	return rc;
}

/* ---- prose ---- */

void rp_html_text(FILE *out, const char *s)
{
	for (; s != NULL && *s; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
}

static void rp_vprose(FILE *out, enum report_format f, const char *open, const char *close,
		      const char *md_prefix, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return; /* nothing printed: the text is lost, not the report */
	if (f == REPORT_HTML) {
		fputs(open, out);
		rp_html_text(out, s);
		fputs(close, out);
	} else if (f == REPORT_MARKDOWN) {
		fputs(md_prefix, out);
		rp_md_text(out, s);
		fputc('\n', out);
	} else {
		rp_plain_text(out, s);
		fputc('\n', out);
	}
	free(s);
}

void rp_heading(FILE *out, enum report_format f, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (f != REPORT_HTML)
		fputc('\n', out);
	if (level <= 1)
		rp_vprose(out, f, "<h2>", "</h2>\n", "## ", fmt, ap);
	else
		rp_vprose(out, f, "<h3>", "</h3>\n", "### ", fmt, ap);
	if (f == REPORT_MARKDOWN)
		fputc('\n', out);
	va_end(ap);
}

void rp_para(FILE *out, enum report_format f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vprose(out, f, "<p>", "</p>\n", "", fmt, ap);
	if (f == REPORT_MARKDOWN)
		fputc('\n', out);
	va_end(ap);
}

const char *rp_or_dash(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : "-";
}

/* ---- a run, analysed once ---- */

const char *rp_host(const struct run_data *run, int node, char *buf, size_t len)
{
	if (run->hostnames != NULL && node >= 0 && node < run->nnodes && run->hostnames[node][0])
		snprintf(buf, len, "%s", run->hostnames[node]);
	else
		snprintf(buf, len, "node %d", node);
	return buf;
}

char *rp_node_ranks(const struct run_data *run, int node, char *buf, size_t len)
{
	size_t used = 0;
	int from = -1;
	buf[0] = '\0';
	for (int r = 0; run->node_of_rank != NULL && r <= run->nranks; r++) {
		int on = r < run->nranks && run->node_of_rank[r] == node;
		if (on && from < 0)
			from = r;
		if (on || from < 0 || used + 1 >= len)
			continue;
		int n = from == r - 1 ? snprintf(buf + used, len - used, "%s%d", used ? "," : "", from)
				      : snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "",
						 from, r - 1);
		used = n < 0 ? len : used + (size_t)n;
		from = -1;
	}
	if (used >= len && len > 4)
		strcpy(buf + len - 4, "...");
	return buf;
}

static void rp_stem(struct rp_run *r, const struct rp_run *before, size_t nbefore)
{
	const char *base = strrchr(r->run->path ? r->run->path : "run", '/');
	base = base ? base + 1 : (r->run->path ? r->run->path : "run");
	size_t n = 0;
	for (; base[n] && n + 1 < sizeof r->stem - 8; n++)
		r->stem[n] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
				    base[n]) ? base[n] : '_';
	r->stem[n] = '\0';
	if (n > 3 && strcmp(r->stem + n - 3, ".h5") == 0)
		r->stem[n - 3] = '\0';
	for (size_t i = 0; i < nbefore; i++)
		if (strcmp(before[i].stem, r->stem) == 0) {
			size_t len = strlen(r->stem);
			snprintf(r->stem + len, sizeof r->stem - len, "-%zu", nbefore + 1);
		}
	if (r->stem[0] == '\0' || r->stem[0] == '.')
		snprintf(r->stem, sizeof r->stem, "run%zu", nbefore + 1);
}

int rp_run_init(struct rp_run *r, const struct run_data *run, const struct ceil_hw *hw,
		const char *hw_note, struct pf_err *e)
{
	memset(r, 0, sizeof *r);
	r->run = run;
	r->hw = hw;
	r->hw_note = hw_note;
	r->nodes = calloc(run->nnodes > 0 ? (size_t)run->nnodes : 1, sizeof *r->nodes);
	if (r->nodes == NULL || (r->ncells = report_cells(run, &r->cells)) < 0 ||
	    (r->nsizes = report_size_classes(run, &r->sizes)) < 0 ||
	    report_stragglers(run, RP_SLOW, r->slow_nodes, &r->nslow_nodes, r->slow_files,
			      &r->nslow_files, r->nodes) != 0) {
		rp_run_free(r);
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	}
	for (long i = 0; hw != NULL && i < r->ncells; i++)
		report_cell_ceiling(&r->cells[i], hw, run->nnodes, NULL);
	return 0;
}

void rp_run_free(struct rp_run *r)
{
	free(r->cells);
	free(r->sizes);
	free(r->nodes);
	memset(r, 0, sizeof *r);
}

/* ---- entry points ---- */

static int report_flush(FILE *out, struct pf_err *e)
{
	errno = 0;
	if (fflush(out) != 0 || ferror(out))
		return pf_fail_errno(e, errno ? errno : EIO, "report: cannot write the output");
	return 0;
}

static int report_runs(FILE *out, struct rp_run *r, size_t n, const struct report_opts *o,
		       struct pf_err *e)
{
	enum report_format f = o->format;
	int rc = 0;
	if (f == REPORT_CSV)
		rp_csv_header(out);
	if (f == REPORT_JSON)
		return rp_json(out, r, n, o->calib, e);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (f == REPORT_CSV)
			rp_csv_run(out, &r[i]);
		else
			rc = rp_text_run(out, &r[i], f, e);
	}
	if (f == REPORT_CSV)
		return rc;
	for (size_t i = 1; i < n && rc == 0; i++)
		rc = rp_text_compare(out, &r[0], &r[i], f, e);
	if (rc == 0 && o->calib != NULL)
		rc = rp_text_calib(out, o->calib, f, e);
	return rc;
}

static int report_outputs(FILE *out, struct rp_run *r, size_t n, const struct report_opts *o,
			  struct pf_err *e)
{
	if (o->plot_dir != NULL && rp_plot(o->plot_dir, r, n, e) != 0)
		return -1;
	if (o->html_path != NULL)
		return rp_html(o->html_path, r, n, o->calib, o->plot_dir, e);
	if (o->format == REPORT_HTML)
		return pf_fail(e, PF_USAGE, "report: the html format needs --html FILE");
	if (report_runs(out, r, n, o, e) != 0)
		return -1;
	return report_flush(out, e);
}

int report_write_opts(FILE *out, const struct run_data *runs, size_t nruns,
		      const struct report_opts *o, struct pf_err *e)
{
	struct rp_run *r = calloc(nruns ? nruns : 1, sizeof *r);
	size_t ready = 0;
	int rc = 0;
	if (r == NULL)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	for (; ready < nruns && rc == 0; ready++) {
		rc = rp_run_init(&r[ready], &runs[ready], o->hw ? o->hw[ready] : NULL,
				 o->hw_note ? o->hw_note[ready] : NULL, e);
		if (rc == 0)
			rp_stem(&r[ready], r, ready);
	}
	if (rc == 0)
		rc = report_outputs(out, r, nruns, o, e);
	for (size_t i = 0; i < ready; i++)
		rp_run_free(&r[i]);
	free(r);
	return rc;
}

int report_write(FILE *out, const struct run_data *runs, size_t nruns, enum report_format f,
		 struct pf_err *e)
{
	struct report_opts o = {.format = f};
	if (f == REPORT_HTML)
		return pf_fail(e, PF_USAGE, "report: the html format needs --html FILE");
	return report_write_opts(out, runs, nruns, &o, e);
}

int report_write_summary(FILE *out, const struct run_data *run, struct pf_err *e)
{
	struct rp_run r;
	if (rp_run_init(&r, run, NULL, NULL, e) != 0)
		return -1;
	rp_text_header(out, run, REPORT_TEXT);
	int rc = rp_text_summary(out, &r, REPORT_TEXT, e);
	rp_run_free(&r);
	return rc == 0 ? report_flush(out, e) : -1;
}

int report_write_calib(FILE *out, const struct calib_data *c, struct pf_err *e)
{
	if (rp_text_calib(out, c, REPORT_TEXT, e) != 0)
		return -1;
	return report_flush(out, e);
}

void report_phase_line(FILE *out, const struct phase_info *p)
{
	char transfer[32], bytes[32], elapsed[32];
	fprintf(out,
		"phase %04u: %s x %d %s/node, %s, %s transfers, %s, cache %s, rep %d: "
		"%s in %s = %.1f MB/s (%" PRIu64 " files)%s\n",
		(unsigned)p->index, p->dataset, (int)p->readers_per_node,
		p->readers_per_node == 1 ? "reader" : "readers", p->backend,
		units_format_size_binary(p->transfer_size, transfer, sizeof transfer), p->order,
		p->cache, (int)p->repetition, units_format_size(p->bytes, bytes, sizeof bytes),
		units_format_duration(p->elapsed_s, elapsed, sizeof elapsed), p->bandwidth_MBps,
		p->nfiles, strcmp(p->status, "complete") == 0      ? ""
			   : strcmp(p->status, "timeout") == 0     ? " TIMED OUT"
			   : strcmp(p->status, "interrupted") == 0 ? " INTERRUPTED"
								   : " FAILED");
}
