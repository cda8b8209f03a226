/* fmt: how the report writes, whatever it writes: tables of strings printed aligned (text),
 * with pipes (markdown) or as <table> (html); headings and paragraphs in each format's own way;
 * escaping of strings from a results file for a terminal, markdown, HTML and JSON; host names
 * and rank lists of a run. The bottom of the report: it uses no other report file. */
#include "report/fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/safe.h"

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
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof *t);
}

static int tbl_right(const struct tbl *t, size_t col)
{
	return t->align == NULL || col >= strlen(t->align) || t->align[col] == 'r';
}

static size_t tbl_labels(const struct tbl *t)
{
	return t->nlabel == 0 ? 1 : t->nlabel < t->ncols ? t->nlabel : t->ncols;
}

/* Columns from..to-1 of t, after its label columns, as one table. */
static void tbl_text_part(FILE *out, const struct tbl *t, const size_t *w, size_t from,
			  size_t to)
{
	size_t total = 0, nl = tbl_labels(t);
	for (size_t c = 0; c < t->ncols; c++)
		if (c < nl || (c >= from && c < to))
			total += w[c] + (total ? 2 : 0);
	for (size_t i = 0; i < t->n; i += t->ncols) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c >= nl && (c < from || c >= to))
				continue;
			int last = c + 1 == to || (c + 1 == nl && to <= nl);
			size_t len = safe_len(t->cell[i + c], 0), pad = w[c] > len ? w[c] - len : 0;
			for (size_t k = 0; tbl_right(t, c) && k < pad; k++)
				fputc(' ', out);
			rp_plain_text(out, t->cell[i + c]);
			for (size_t k = 0; !tbl_right(t, c) && !last && k < pad; k++)
				fputc(' ', out);
			fputs(last ? "\n" : "  ", out);
		}
		if (i == 0) {
			for (size_t k = 0; k < total; k++)
				fputc('-', out);
			fputc('\n', out);
		}
	}
}

/* The table as text; wider than width (0: no limit), in parts of the columns that fit, each
 * beginning with column 0, one after the other. */
static void tbl_text(FILE *out, const struct tbl *t, size_t *w, size_t width)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t len = safe_len(t->cell[i], 0);
		if (len > w[i % t->ncols])
			w[i % t->ncols] = len;
	}
	size_t nl = tbl_labels(t), from = nl, labels = 0;
	for (size_t c = 0; c < nl; c++)
		labels += w[c] + (c ? 2 : 0);
	if (nl == t->ncols) {
		tbl_text_part(out, t, w, nl, nl);
		return;
	}
	while (from < t->ncols) {
		size_t used = labels, to = from;
		while (to < t->ncols && (width == 0 || to == from || used + 2 + w[to] <= width))
			used += 2 + w[to++];
		if (from > nl)
			fputc('\n', out);
		tbl_text_part(out, t, w, from, to);
		from = to;
	}
}

/* s with the units util/safe does not keep as \xNN, and each character of specials after a
 * backslash (markdown), or each of & < > " as its entity (html: specials NULL). */
static void rp_escaped(FILE *out, const char *s, const char *specials, unsigned flags)
{
	static const char html[] = "&<>\"", *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
	while (s != NULL && *s) {
		struct safe_unit u = safe_next(s);
		const char *hit = u.len == 1 ? strchr(specials ? specials : html, *s) : NULL;
		char buf[SAFE_UNIT_MAX];
		if (u.cls != SAFE_KEEP)
			fwrite(buf, 1, safe_unit_text(s, u, flags, buf), out);
		else if (hit != NULL && specials == NULL)
			fputs(ent[hit - html], out);
		else {
			if (hit != NULL)
				fputc('\\', out);
			fwrite(s, 1, u.len, out);
		}
		s += u.len;
	}
}

/* Strings from a results file in markdown: a table cell must not end at a | of the text nor
 * a line at its newline, and the text must not open a code span, an HTML tag or an escape
 * of the renderer's. What util/safe does not keep (controls, bytes not UTF-8) is \xNN. */
void rp_md_text(FILE *out, const char *s)
{
	rp_escaped(out, s, "\\|`<>", 0);
}

/* Text for a terminal: what util/safe does not keep (escape sequences, carriage returns,
 * newlines inside a value, C1, bytes not UTF-8) is \xNN. */
void rp_plain_text(FILE *out, const char *s)
{
	safe_fput(out, s, 0);
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
	fputc('\n', out); /* a line right after the rows would be read as one more row */
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

/* Columns from which a table is wide: the page sets it in smaller type (class "wide"). */
#define TBL_HTML_WIDE 12

static void tbl_html(FILE *out, const struct tbl *t)
{
	fputs(t->ncols >= TBL_HTML_WIDE ? "<table class=\"wide\">\n<thead>" : "<table>\n<thead>",
	      out);
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
		tbl_text(out, t, w, f == REPORT_TEXT_WIDE ? 0 : REPORT_TEXT_WIDTH);
	free(w);
	tbl_free(t);
	return rc;
}

/* ---- prose ---- */

void rp_html_text(FILE *out, const char *s)
{
	rp_escaped(out, s, NULL, 0);
}

void rp_html_lines(FILE *out, const char *s)
{
	rp_escaped(out, s, NULL, SAFE_LINES);
}

/* s, already safe (util/safe), on lines of at most width columns, broken at spaces (a longer
 * word stands alone), the lines after the first indented by two. */
static void rp_wrapped_text(FILE *out, const char *s, size_t width)
{
	size_t col = 0;
	while (*s) {
		size_t sp = strspn(s, " "), w = strcspn(s + sp, " ");
		if (col > 0 && col + sp + w > width) {
			fputs("\n  ", out);
			col = 2;
			s += sp;
			sp = 0;
		}
		fwrite(s, 1, sp + w, out);
		col += sp + w;
		s += sp + w;
	}
	fputc('\n', out);
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
	} else if (f == REPORT_TEXT) {
		size_t n = safe_len(s, 0) + 1;
		char *safe = malloc(n);
		if (safe != NULL)
			rp_wrapped_text(out, safe_text(safe, n, s, 0), REPORT_TEXT_WIDTH);
		free(safe); /* NULL: the text is lost, not the report */
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

/* A JSON string: what util/safe does not keep is escaped, controls (C1 too) as \u00XX and a
 * byte that is not UTF-8 as \ufffd (JSON holds Unicode only); the rest as it is. */
void rp_json_str(FILE *out, const char *s)
{
	if (s == NULL) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		struct safe_unit u = safe_next(s);
		if (u.cls == SAFE_BAD)
			fputs("\\ufffd", out);
		else if (u.cp == '"' || u.cp == '\\')
			fprintf(out, "\\%c", *s);
		else if (u.cp == '\n')
			fputs("\\n", out);
		else if (u.cp == '\t')
			fputs("\\t", out);
		else if (u.cls == SAFE_CONTROL)
			fprintf(out, "\\u%04x", (unsigned)u.cp);
		else
			fwrite(s, 1, u.len, out);
		s += u.len;
	}
	fputc('"', out);
}

void rp_json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}

void rp_head(struct tbl *t, enum units_rate u, const char *h)
{
	const char *at = strstr(h, "[MB/s]");
	if (at == NULL || u == UNITS_RATE_DECIMAL)
		tbl_add(t, "%s", h);
	else
		tbl_add(t, "%.*s[%s]%s", (int)(at - h), h, units_rate_name(u),
			at + strlen("[MB/s]"));
}
