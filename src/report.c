/* report: tables from results already in memory (struct run_data). The cells (bandwidth of
 * every sweep point over its repetitions) are pure; the rest renders them and the per-phase
 * details as text, markdown, csv or json. Output errors are checked once, with ferror. */
#include "pfsread/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pfsread/units.h"

int report_parse_format(const char *name, enum report_format *f)
{
	static const char *const names[] = {"text", "markdown", "csv", "json"};
	static const enum report_format formats[] = {REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV,
						     REPORT_JSON};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0) {
			*f = formats[i];
			return 0;
		}
	return -1;
}

/* ---- cells ---- */

static int cell_of(const struct report_cell *c, const struct phase_info *p)
{
	return strcmp(c->dataset, p->dataset) == 0 && c->file_size == p->file_size &&
	       c->readers_per_node == p->readers_per_node && strcmp(c->backend, p->backend) == 0 &&
	       c->transfer_size == p->transfer_size && strcmp(c->order, p->order) == 0 &&
	       strcmp(c->cache, p->cache) == 0;
}

static void cell_start(struct report_cell *c, const struct phase_info *p)
{
	memset(c, 0, sizeof *c);
	snprintf(c->dataset, sizeof c->dataset, "%s", p->dataset);
	c->file_size = p->file_size;
	c->readers_per_node = p->readers_per_node;
	snprintf(c->backend, sizeof c->backend, "%s", p->backend);
	c->transfer_size = p->transfer_size;
	snprintf(c->order, sizeof c->order, "%s", p->order);
	snprintf(c->cache, sizeof c->cache, "%s", p->cache);
	c->min_MBps = INFINITY;
	c->max_MBps = -INFINITY;
}

long report_cells(const struct run_data *run, struct report_cell **cells)
{
	struct report_cell *c = run->nphases ? calloc(run->nphases, sizeof *c) : NULL;
	long n = 0;
	*cells = NULL;
	if (run->nphases && c == NULL)
		return -1;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		long k = 0;
		if (strcmp(p->status, "complete") != 0)
			continue;
		while (k < n && !cell_of(&c[k], p))
			k++;
		if (k == n)
			cell_start(&c[n++], p);
		c[k].n++;
		c[k].mean_MBps += p->bandwidth_MBps; /* the sum until the loop below */
		c[k].min_MBps = fmin(c[k].min_MBps, p->bandwidth_MBps);
		c[k].max_MBps = fmax(c[k].max_MBps, p->bandwidth_MBps);
	}
	for (long k = 0; k < n; k++)
		c[k].mean_MBps /= c[k].n;
	if (n == 0)
		free(c);
	else
		*cells = c;
	return n;
}

/* ---- a table of strings, printed aligned (text) or with pipes (markdown) ---- */

struct tbl {
	size_t ncols, n, cap; /* n cells so far; the first ncols are the header */
	char **cell;
	const char *align;    /* 'l' or 'r' per column; columns past its end are 'r' */
	int bad;              /* an allocation failed: tbl_print refuses */
};

__attribute__((format(printf, 2, 3))) static void tbl_add(struct tbl *t, const char *fmt, ...)
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

/* A figure with the given decimals, or "-" when it is not finite (a failed phase). */
static void tbl_num(struct tbl *t, int decimals, double v)
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
	return col >= strlen(t->align) || t->align[col] == 'r';
}

static void tbl_text_row(FILE *out, const struct tbl *t, char *const *row, const size_t *w)
{
	for (size_t c = 0; c < t->ncols; c++) {
		int last = c + 1 == t->ncols;
		if (tbl_right(t, c))
			fprintf(out, "%*s", (int)w[c], row[c]);
		else
			fprintf(out, "%-*s", last ? 0 : (int)w[c], row[c]);
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
	for (size_t i = t->ncols; i < t->n; i += t->ncols)
		tbl_text_row(out, t, t->cell + i, w);
}

static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

static void tbl_markdown_row(FILE *out, const struct tbl *t, char *const *row)
{
	for (size_t c = 0; c < t->ncols; c++) {
		fputs("| ", out);
		md_text(out, row[c]);
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
	for (size_t i = t->ncols; i < t->n; i += t->ncols)
		tbl_markdown_row(out, t, t->cell + i);
}

/* Print t (text or markdown) and free it. Fails only when building it ran out of memory. */
static int tbl_print(FILE *out, struct tbl *t, enum report_format f, struct pf_err *e)
{
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
	int rc = 0;
	if (t->bad || w == NULL)
		rc = pf_fail(e, PF_RUNTIME, "report: out of memory");
	else if (f == REPORT_MARKDOWN)
		tbl_markdown(out, t);
	else
		tbl_text(out, t, w);
	free(w);
	tbl_free(t);
	return rc;
}

/* ---- the summary: rows data sets, columns readers per node, one table per other key ---- */

static int same_combo(const struct report_cell *a, const struct report_cell *b)
{
	return strcmp(a->backend, b->backend) == 0 && a->transfer_size == b->transfer_size &&
	       strcmp(a->order, b->order) == 0 && strcmp(a->cache, b->cache) == 0;
}

static int same_row(const struct report_cell *a, const struct report_cell *b)
{
	return same_combo(a, b) && strcmp(a->dataset, b->dataset) == 0 &&
	       a->file_size == b->file_size;
}

/* 1 when c[i] is the first cell that same() groups it with. */
static int first_of(const struct report_cell *c, long i,
		    int (*same)(const struct report_cell *, const struct report_cell *))
{
	for (long k = 0; k < i; k++)
		if (same(&c[k], &c[i]))
			return 0;
	return 1;
}

/* The distinct readers per node of key's combination, ascending, into r; returns how many. */
static size_t combo_readers(const struct report_cell *c, long n, const struct report_cell *key,
			    int32_t *r)
{
	size_t nr = 0;
	for (long i = 0; i < n; i++) {
		size_t k = 0;
		if (!same_combo(&c[i], key))
			continue;
		while (k < nr && r[k] < c[i].readers_per_node)
			k++;
		if (k < nr && r[k] == c[i].readers_per_node)
			continue;
		memmove(&r[k + 1], &r[k], (nr - k) * sizeof *r);
		r[k] = c[i].readers_per_node;
		nr++;
	}
	return nr;
}

static void summary_cell(struct tbl *t, const struct report_cell *c, long n,
			 const struct report_cell *row, int32_t readers)
{
	for (long i = 0; i < n; i++) {
		if (!same_row(&c[i], row) || c[i].readers_per_node != readers)
			continue;
		if (c[i].n > 1)
			tbl_add(t, "%.1f (%.1f-%.1f)", c[i].mean_MBps, c[i].min_MBps,
				c[i].max_MBps);
		else
			tbl_add(t, "%.1f", c[i].mean_MBps);
		return;
	}
	tbl_add(t, "-");
}

static void summary_title(FILE *out, const struct report_cell *key, enum report_format f)
{
	char transfer[32];
	units_format_size_binary(key->transfer_size, transfer, sizeof transfer);
	fprintf(out, "%s%s backend, %s transfers, %s order, cache %s: aggregate read bandwidth, "
		     "mean (min-max) over repetitions\n%s",
		f == REPORT_MARKDOWN ? "### " : "", key->backend, transfer, key->order, key->cache,
		f == REPORT_MARKDOWN ? "\n" : "");
}

/* One table: key's combination, rows its data sets, columns its readers per node. */
static int summary_table(FILE *out, const struct report_cell *c, long n,
			 const struct report_cell *key, enum report_format f, struct pf_err *e)
{
	int32_t *readers = calloc((size_t)n, sizeof *readers);
	if (readers == NULL)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	size_t nr = combo_readers(c, n, key, readers);
	struct tbl t = {.ncols = 1 + nr, .align = "l"};
	tbl_add(&t, "data set");
	for (size_t k = 0; k < nr; k++)
		tbl_add(&t, "%d %s/node [MB/s]", (int)readers[k],
			readers[k] == 1 ? "reader" : "readers");
	for (long i = 0; i < n; i++) {
		char size[32];
		if (!same_combo(&c[i], key) || !first_of(c, i, same_row))
			continue;
		tbl_add(&t, "%s (%s files)", c[i].dataset,
			units_format_size(c[i].file_size, size, sizeof size));
		for (size_t k = 0; k < nr; k++)
			summary_cell(&t, c, n, &c[i], readers[k]);
	}
	free(readers);
	summary_title(out, key, f);
	return tbl_print(out, &t, f, e);
}

static int summary_tables(FILE *out, const struct run_data *run, enum report_format f,
			  struct pf_err *e)
{
	struct report_cell *c = NULL;
	long n = report_cells(run, &c);
	int rc = 0;
	if (n < 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	if (n == 0)
		fprintf(out, "no completed phases\n");
	for (long i = 0; i < n && rc == 0; i++)
		if (first_of(c, i, same_combo)) {
			fputc('\n', out);
			rc = summary_table(out, c, n, &c[i], f, e);
		}
	free(c);
	return rc;
}

static const char *or_dash(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : "-";
}

/* Where the run came from: "label value" lines, or a markdown heading and list. */
static void run_header(FILE *out, const struct run_data *run, enum report_format f)
{
	static const char *const label[] = {"results", "config", "started", "ranks",
					    "nodes",   "job id", "status"};
	char nranks[16], nnodes[16];
	snprintf(nranks, sizeof nranks, "%d", run->nranks);
	snprintf(nnodes, sizeof nnodes, "%d", run->nnodes);
	const char *value[] = {or_dash(run->path),   or_dash(run->config_path),
			       or_dash(run->start_time), nranks, nnodes,
			       or_dash(run->job_id), or_dash(run->status)};
	if (f == REPORT_MARKDOWN)
		fprintf(out, "## %s\n\n", value[0]);
	for (size_t i = f == REPORT_MARKDOWN ? 1 : 0; i < sizeof label / sizeof label[0]; i++) {
		if (f != REPORT_MARKDOWN) {
			fprintf(out, "%-8s %s\n", label[i], value[i]);
			continue;
		}
		fprintf(out, "- %s: ", label[i]);
		md_text(out, value[i]);
		fputc('\n', out);
	}
}

/* ---- per-phase details ---- */

/* Seconds over the phase's ranks spent in open, read and close. */
static void phase_sums(const struct phase_data *pd, double *open_s, double *read_s,
		       double *close_s)
{
	*open_s = *read_s = *close_s = 0;
	for (size_t i = 0; i < pd->nranks; i++) {
		*open_s += pd->ranks[i].open_s;
		*read_s += pd->ranks[i].read_s;
		*close_s += pd->ranks[i].close_s;
	}
}

static double files_per_s(const struct phase_data *pd)
{
	return pd->info.elapsed_s > 0 ? (double)pd->nfiles / pd->info.elapsed_s : NAN;
}

static void details_row(struct tbl *t, const struct phase_data *pd)
{
	const struct phase_info *p = &pd->info;
	char transfer[32];
	double o, r, c;
	phase_sums(pd, &o, &r, &c);
	tbl_add(t, "%04u", (unsigned)p->index);
	tbl_add(t, "%s", p->dataset);
	tbl_add(t, "%d", (int)p->readers_per_node);
	tbl_add(t, "%s", p->backend);
	tbl_add(t, "%s", units_format_size_binary(p->transfer_size, transfer, sizeof transfer));
	tbl_add(t, "%s", p->order);
	tbl_add(t, "%s", p->cache);
	tbl_add(t, "%d", (int)p->repetition);
	tbl_add(t, "%" PRIu64, p->bytes);
	tbl_add(t, "%zu", pd->nfiles);
	tbl_num(t, 6, p->elapsed_s);
	tbl_num(t, 1, p->bandwidth_MBps);
	tbl_num(t, 1, files_per_s(pd));
	tbl_num(t, 6, o);
	tbl_num(t, 6, r);
	tbl_num(t, 6, c);
	tbl_add(t, "%s", p->status);
}

static int details_table(FILE *out, const struct run_data *run, enum report_format f,
			 struct pf_err *e)
{
	static const char *const head[] = {
		"phase", "data set", "readers/node", "backend", "transfer", "order", "cache", "rep",
		"bytes [B]", "files", "elapsed [s]", "bandwidth [MB/s]", "files/s", "open [s]",
		"read [s]", "close [s]", "status"};
	struct tbl t = {.ncols = sizeof head / sizeof head[0], .align = "rlrlrllrrrrrrrrrl"};
	for (size_t i = 0; i < t.ncols; i++)
		tbl_add(&t, "%s", head[i]);
	for (size_t i = 0; i < run->nphases; i++)
		details_row(&t, &run->phases[i]);
	fprintf(out, "\n%sphases (times summed over ranks)\n%s", f == REPORT_MARKDOWN ? "### " : "",
		f == REPORT_MARKDOWN ? "\n" : "");
	return tbl_print(out, &t, f, e);
}

/* ---- csv ---- */

static void csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.3f", v);
}

static int csv_run(FILE *out, const struct run_data *run, struct pf_err *e)
{
	struct report_cell *c = NULL;
	long n = report_cells(run, &c);
	if (n < 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	for (long i = 0; i < n; i++) {
		csv_field(out, or_dash(run->path));
		fputc(',', out);
		csv_field(out, c[i].dataset);
		fprintf(out, ",%" PRIu64 ",%d,", c[i].file_size, (int)c[i].readers_per_node);
		csv_field(out, c[i].backend);
		fprintf(out, ",%" PRIu64 ",", c[i].transfer_size);
		csv_field(out, c[i].order);
		fputc(',', out);
		csv_field(out, c[i].cache);
		fprintf(out, ",%d,", c[i].n);
		csv_num(out, c[i].mean_MBps);
		fputc(',', out);
		csv_num(out, c[i].min_MBps);
		fputc(',', out);
		csv_num(out, c[i].max_MBps);
		fputc('\n', out);
	}
	free(c);
	return 0;
}

/* ---- json ---- */

/* Bytes of the valid UTF-8 sequence at p, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = 0;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4;
	if (n == 0 || p[0] == 0xc0 || p[0] == 0xc1 || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3-byte, UTF-16 surrogate, overlong 4-byte, beyond U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* s as a JSON string: quotes, backslashes and control characters escaped, bytes that are not
 * UTF-8 replaced by U+FFFD. NULL prints null. */
static void json_str(FILE *out, const char *s)
{
	if (s == NULL) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (n == 0)
			fputs("\\ufffd", out);
		else if (n > 1)
			fwrite(p, 1, n, out);
		else if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
		p += n ? n : 1;
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}

/* "name": value pairs, with the separator in front of all but the first. */
static void json_key(FILE *out, const char *key, int first)
{
	fprintf(out, "%s\"%s\": ", first ? "" : ", ", key);
}

static void json_kstr(FILE *out, const char *key, const char *s, int first)
{
	json_key(out, key, first);
	json_str(out, s);
}

static void json_kint(FILE *out, const char *key, long long v, int first)
{
	json_key(out, key, first);
	fprintf(out, "%lld", v);
}

static void json_ku64(FILE *out, const char *key, uint64_t v, int first)
{
	json_key(out, key, first);
	fprintf(out, "%" PRIu64, v);
}

static void json_knum(FILE *out, const char *key, double v, int first)
{
	json_key(out, key, first);
	json_num(out, v);
}

static void json_meta(FILE *out, const struct run_data *run)
{
	fputs("\"meta\": {", out);
	json_kstr(out, "pfsread_version", run->pfsread_version, 1);
	json_kint(out, "schema_version", run->schema_version, 0);
	json_kstr(out, "config_path", run->config_path, 0);
	json_kstr(out, "command_line", run->command_line, 0);
	json_kstr(out, "start_time", run->start_time, 0);
	json_kstr(out, "mpi_version", run->mpi_version, 0);
	json_kstr(out, "hdf5_version", run->hdf5_version, 0);
	json_kstr(out, "job_id", run->job_id, 0);
	json_kstr(out, "status", run->status, 0);
	json_kint(out, "nranks", run->nranks, 0);
	json_kint(out, "nnodes", run->nnodes, 0);
	json_key(out, "hostnames", 0);
	fputc('[', out);
	for (int i = 0; run->hostnames != NULL && i < run->nnodes; i++) {
		fputs(i ? ", " : "", out);
		json_str(out, run->hostnames[i]);
	}
	fputs("], ", out);
	json_kstr(out, "config_yaml", run->config_yaml, 1);
	fputs("}", out);
}

static void json_cell(FILE *out, const struct report_cell *c)
{
	fputs("{", out);
	json_kstr(out, "dataset", c->dataset, 1);
	json_ku64(out, "file_size_B", c->file_size, 0);
	json_kint(out, "readers_per_node", c->readers_per_node, 0);
	json_kstr(out, "backend", c->backend, 0);
	json_ku64(out, "transfer_size_B", c->transfer_size, 0);
	json_kstr(out, "order", c->order, 0);
	json_kstr(out, "cache", c->cache, 0);
	json_kint(out, "n", c->n, 0);
	json_knum(out, "mean_MBps", c->mean_MBps, 0);
	json_knum(out, "min_MBps", c->min_MBps, 0);
	json_knum(out, "max_MBps", c->max_MBps, 0);
	fputs("}", out);
}

/* A phase: its attributes under their HDF5 names, then figures derived from its records. */
static void json_phase(FILE *out, const struct phase_data *pd)
{
	const struct phase_info *p = &pd->info;
	double o, r, c;
	phase_sums(pd, &o, &r, &c);
	fputs("{", out);
	json_kint(out, "index", p->index, 1);
	json_kstr(out, "dataset", p->dataset, 0);
	json_ku64(out, "file_size", p->file_size, 0);
	json_ku64(out, "nfiles", p->nfiles, 0);
	json_kint(out, "readers_per_node", p->readers_per_node, 0);
	json_kint(out, "active_readers", p->active_readers, 0);
	json_kstr(out, "backend", p->backend, 0);
	json_ku64(out, "transfer_size", p->transfer_size, 0);
	json_kstr(out, "order", p->order, 0);
	json_kstr(out, "cache", p->cache, 0);
	json_kint(out, "repetition", p->repetition, 0);
	json_ku64(out, "seed", p->seed, 0);
	json_ku64(out, "bytes", p->bytes, 0);
	json_knum(out, "elapsed_s", p->elapsed_s, 0);
	json_knum(out, "bandwidth_MBps", p->bandwidth_MBps, 0);
	json_kstr(out, "status", p->status, 0);
	json_ku64(out, "files_read", pd->nfiles, 0);
	json_knum(out, "files_per_s", files_per_s(pd), 0);
	json_knum(out, "open_s", o, 0);
	json_knum(out, "read_s", r, 0);
	json_knum(out, "close_s", c, 0);
	fputs("}", out);
}

static int json_run(FILE *out, const struct run_data *run, struct pf_err *e)
{
	struct report_cell *c = NULL;
	long n = report_cells(run, &c);
	if (n < 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	fputs("  {", out);
	json_kstr(out, "file", run->path, 1);
	fputs(",\n   ", out);
	json_meta(out, run);
	fputs(",\n   \"cells\": [", out);
	for (long i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_cell(out, &c[i]);
	}
	fputs("],\n   \"phases\": [", out);
	for (size_t i = 0; i < run->nphases; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_phase(out, &run->phases[i]);
	}
	fputs("]}", out);
	free(c);
	return 0;
}

/* ---- entry points ---- */

static int report_flush(FILE *out, struct pf_err *e)
{
	errno = 0;
	if (fflush(out) != 0 || ferror(out))
		return pf_fail_errno(e, errno ? errno : EIO, "report: cannot write the output");
	return 0;
}

static int report_one(FILE *out, const struct run_data *run, enum report_format f,
		      struct pf_err *e)
{
	run_header(out, run, f);
	if (summary_tables(out, run, f, e) < 0 || details_table(out, run, f, e) < 0)
		return -1;
	return 0;
}

int report_write(FILE *out, const struct run_data *runs, size_t nruns, enum report_format f,
		 struct pf_err *e)
{
	int rc = 0;
	if (f == REPORT_CSV)
		fputs("file,dataset,file_size_B,readers_per_node,backend,transfer_size_B,order,"
		      "cache,n,"
		      "mean_MBps,min_MBps,max_MBps\n",
		      out);
	if (f == REPORT_JSON)
		fputs("{\"runs\": [\n", out);
	for (size_t i = 0; i < nruns && rc == 0; i++) {
		if (i > 0 && f != REPORT_CSV)
			fputs(f == REPORT_JSON ? ",\n" : "\n", out);
		if (f == REPORT_CSV)
			rc = csv_run(out, &runs[i], e);
		else if (f == REPORT_JSON)
			rc = json_run(out, &runs[i], e);
		else
			rc = report_one(out, &runs[i], f, e);
	}
	if (f == REPORT_JSON)
		fputs("\n]}\n", out);
	if (rc == 0)
		rc = report_flush(out, e);
	return rc;
}

int report_write_summary(FILE *out, const struct run_data *run, struct pf_err *e)
{
	run_header(out, run, REPORT_TEXT);
	if (summary_tables(out, run, REPORT_TEXT, e) < 0)
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
		p->nfiles, strcmp(p->status, "complete") == 0 ? "" : " FAILED");
}
