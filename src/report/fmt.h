/* fmt: how the report writes, whatever it writes (tables, headings, paragraphs, escaping, the
 * names of a run's hosts and ranks). The bottom of the report: every output file uses it and
 * it uses none of them. */
#ifndef PFSREAD_REPORT_FMT_H
#define PFSREAD_REPORT_FMT_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "results/results.h"
#include "util/err.h"

/* A table of strings, printed aligned (text), with pipes (markdown) or as <table> (html). */
struct tbl {
	size_t ncols, n, cap; /* n cells so far; the first ncols are the header */
	char **cell;
	const char *align;    /* 'l' or 'r' per column; columns past its end are 'r' */
	int bad;              /* an allocation failed: tbl_print refuses */
	size_t nlabel;        /* leading columns that name a row (0 means 1): repeated in each
			       * part when a text table is split to fit */
};

void tbl_add(struct tbl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A figure with the given decimals, or "-" when it is not finite. */
void tbl_num(struct tbl *t, int decimals, double v);
/* Add heading h to t, its "[MB/s]" in unit u ("[MiB/s]" for binary). */
void rp_head(struct tbl *t, enum units_rate u, const char *h);
/* Print t in format f (text, markdown or html) and free it. Fails only when building it ran
 * out of memory. */
int tbl_print(FILE *out, struct tbl *t, enum report_format f, struct pf_err *e);

/* A heading (level 1 run, 2 section) or a paragraph, in the format's own way. */
void rp_heading(FILE *out, enum report_format f, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void rp_para(FILE *out, enum report_format f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Strings from outside (a results file, the system) in each format; what util/safe does not
 * keep (controls, C1, bytes that are not UTF-8) is \xNN in all but JSON (\u00XX, \ufffd). */
void rp_html_text(FILE *out, const char *s); /* & < > " as entities */
void rp_html_lines(FILE *out, const char *s); /* the same, newlines and tabs kept (<pre>) */
void rp_md_text(FILE *out, const char *s);   /* \\ | ` < > after a backslash */
void rp_plain_text(FILE *out, const char *s); /* for a terminal */
void rp_json_str(FILE *out, const char *s);  /* a JSON string (NULL prints null) */
void rp_json_num(FILE *out, double v);       /* NaN and infinities print null */
const char *rp_or_dash(const char *s);

/* The host name of node n, or "node N" when the topology does not say. */
const char *rp_host(const struct run_data *run, int node, char *buf, size_t len);
/* "ranks 0-3" style list of the ranks on node n, into buf. */
char *rp_node_ranks(const struct run_data *run, int node, char *buf, size_t len);

#endif
