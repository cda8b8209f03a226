/* text_answer: the answer block every report opens with (report/answer.c makes its lines from
 * a run analysed once), written as text, markdown, HTML or a JSON list; every string goes
 * through the format's escaping (util/safe). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/answer.h"
#include "report/internal.h"

#define RP_ANSWER_ROWS 12 /* text rows of one run's block, its first line included */

/* "declared", "calibrated" or "detected": where the hardware figures came from, in the order
 * they take precedence (a declared figure wins). */
static const char *rp_hw_source(const char *note)
{
	if (note == NULL)
		return NULL;
	if (strstr(note, "declared in the config") != NULL)
		return "declared";
	if (strstr(note, "measured by calibration") != NULL)
		return "calibrated";
	if (strstr(note, "detected:") != NULL)
		return "detected";
	return NULL;
}

/* The figures (as the hardware note names them) a limit is worked out from. */
static const char *const *rp_limit_figures(const char *limit)
{
	static const char *const map[][4] = {
		{"reader links", "node link", NULL},
		{"server links", "server link", "node link", NULL},
		{"server disks", "server disk", "node disk", NULL},
		{"node disks", "node disk", NULL},
		{"per-reader rate", "one reader", NULL},
		{"memory copy", "node memory copy", NULL},
		{CEIL_FSREAD, "node read through the file system", NULL},
		{"rack uplinks", "uplinks per rack", NULL},
		{CEIL_CLIENT, "node client read", NULL},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(limit, map[i][0]) == 0)
			return &map[i][1];
	return NULL;
}

/* 1 when the part of note from `at` to the next "; " names one of figures. */
static int rp_segment_names(const char *at, const char *const *figures)
{
	const char *end = strstr(at, "; ");
	size_t len = end ? (size_t)(end - at) : strlen(at);
	for (size_t i = 0; figures[i] != NULL; i++) {
		const char *f = strstr(at, figures[i]);
		if (f != NULL && (size_t)(f - at) < len)
			return 1;
	}
	return 0;
}

/* Where the figure that sets limit came from, by the hardware note's parts (declared,
 * measured by calibration, detected: the precedence the report applies); NULL: unknown. */
static const char *rp_limit_source(const char *note, const char *limit)
{
	static const char *const part[][2] = {{"declared in the config: ", "declared"},
					      {"measured by calibration", "calibrated"},
					      {"detected: ", "detected"}};
	const char *const *figures = rp_limit_figures(limit);
	if (note == NULL || figures == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
		for (const char *at = strstr(note, part[i][0]); at != NULL;
		     at = strstr(at + 1, part[i][0]))
			if (rp_segment_names(at, figures))
				return part[i][1];
	return NULL;
}

/* The target slow from every node that is furthest from the others. */
static const struct report_target *rp_slow_target(const struct report_attrib *at)
{
	const struct report_target *w = NULL;
	for (size_t i = 0; i < at->ntargets; i++)
		if (at->targets[i].slow_all && at->targets[i].known &&
		    (w == NULL || at->targets[i].ratio > w->ratio))
			w = &at->targets[i];
	return w;
}

void rp_answer(const struct rp_run *r, struct answer *a)
{
	char host[RECORD_HOST_MAX], ranks[128], node[RECORD_HOST_MAX + 160];
	struct answer_in in = {r->cells, r->ncells, r->hw != NULL, rp_hw_source(r->hw_note),
			       NULL, NULL, 0, NULL, 0, NULL, r->units, r->host_reclaims};
	const char **source = calloc(r->ncells > 0 ? (size_t)r->ncells : 1, sizeof *source);
	double *spread = calloc(r->ncells > 0 ? (size_t)r->ncells : 1, sizeof *spread);
	for (long i = 0; source != NULL && i < r->ncells; i++)
		source[i] = rp_limit_source(r->hw_note, r->cells[i].limit);
	for (long i = 0; spread != NULL && r->hw != NULL && i < r->ncells; i++)
		spread[i] = ceiling_spread(r->hw, r->cells[i].limit);
	in.source = source; /* NULL (out of memory): the note's first source for every cell */
	in.spread = spread; /* NULL (out of memory): no spread said */
	const struct report_target *t = rp_slow_target(&r->attrib);
	if (r->nslow_nodes > 0) {
		const struct report_straggler *s = &r->slow_nodes[0];
		snprintf(node, sizeof node, "%s (ranks %s, phase %04u)",
			 rp_host(r->run, s->node, host, sizeof host),
			 rp_or_dash(rp_node_ranks(r->run, s->node, ranks, sizeof ranks)),
			 s->phase < r->run->nphases ? (unsigned)r->run->phases[s->phase].info.index
						    : 0u);
		in.slow_node = node;
		in.slow_node_x = s->slower;
	}
	if (t != NULL) {
		in.slow_target = t->name;
		in.slow_target_x = t->ratio;
	}
	answer_build(&in, a);
	free(source);
	free(spread);
}

/* The rows rp_para takes for s in text (the same breaks at spaces, the escapes aside). */
static int rp_rows(const char *s)
{
	size_t col = 0;
	int rows = 1;
	while (*s) {
		size_t sp = strspn(s, " "), w = strcspn(s + sp, " ");
		if (col > 0 && col + sp + w > REPORT_TEXT_WIDTH) {
			rows++;
			col = 2;
			sp = 0;
			s += strspn(s, " ");
		}
		col += sp + w;
		s += sp + w;
	}
	return rows;
}

static void rp_answer_text(FILE *out, const struct rp_run *r, const struct answer *a,
			   enum report_format f)
{
	int rows = 1;
	if (f == REPORT_TEXT)
		rp_para(out, f, "answer for %s: is this figure reasonable, and why",
			rp_or_dash(r->run->path));
	else {
		fputs("answer for ", out);
		rp_plain_text(out, rp_or_dash(r->run->path));
		fputs(": is this figure reasonable, and why\n", out);
	}
	for (int i = 0; i < a->n; i++) {
		const char *dash = a->line[i].kind == ANSWER_FINDING ? "- " : "";
		char line[ANSWER_TEXT + 4];
		snprintf(line, sizeof line, "%s%s", dash, a->line[i].text);
		int need = f == REPORT_TEXT ? rp_rows(line) : 1;
		if (rows + need > RP_ANSWER_ROWS && a->line[i].kind == ANSWER_FINDING &&
		    i > 0 && a->line[i - 1].kind == ANSWER_FINDING)
			break; /* the rest is in the details below */
		rows += need;
		if (f == REPORT_TEXT) {
			rp_para(out, f, "%s", line);
		} else {
			rp_plain_text(out, line);
			fputc('\n', out);
		}
	}
}

static void rp_answer_md(FILE *out, const struct rp_run *r, const struct answer *a)
{
	fputs("## answer for ", out);
	rp_md_text(out, rp_or_dash(r->run->path));
	fputs(": is this figure reasonable, and why\n", out);
	for (int i = 0; i < a->n; i++) {
		fputs(a->line[i].kind == ANSWER_FINDING ? "- " : "- **", out);
		rp_md_text(out, a->line[i].text);
		fputs(a->line[i].kind == ANSWER_FINDING ? "\n" : "**\n", out);
	}
}

static void rp_answer_html(FILE *out, const struct rp_run *r, const struct answer *a,
			   size_t nruns)
{
	if (nruns > 1) {
		fputs("<h3>", out);
		rp_html_text(out, rp_or_dash(r->run->path));
		fputs("</h3>\n", out);
	}
	fputs("<ul class=\"answer\">\n", out);
	for (int i = 0; i < a->n; i++) {
		fputs(a->line[i].kind == ANSWER_FINDING ? "<li class=\"finding\">"
							 : "<li class=\"cell\"><b>", out);
		rp_html_text(out, a->line[i].text);
		fputs(a->line[i].kind == ANSWER_FINDING ? "</li>\n" : "</b></li>\n", out);
	}
	fputs("</ul>\n", out);
}

void rp_text_answer(FILE *out, const struct rp_run *runs, size_t nruns, enum report_format f)
{
	struct answer a;
	if (nruns == 0)
		return;
	if (f == REPORT_HTML)
		fputs("<section id=\"answer\">\n<h2>answer: is this figure reasonable, and why</h2>\n",
		      out);
	for (size_t i = 0; i < nruns; i++) {
		rp_answer(&runs[i], &a);
		if (f == REPORT_MARKDOWN)
			rp_answer_md(out, &runs[i], &a);
		else if (f == REPORT_HTML)
			rp_answer_html(out, &runs[i], &a, nruns);
		else
			rp_answer_text(out, &runs[i], &a, f);
		if (f == REPORT_MARKDOWN && i + 1 < nruns)
			fputc('\n', out);
	}
	if (f == REPORT_HTML)
		fputs("</section>\n", out);
}

void rp_json_answer(FILE *out, const struct rp_run *runs, size_t nruns)
{
	struct answer a;
	int first = 1;
	fputs("\"answer\": [", out);
	for (size_t i = 0; i < nruns; i++) {
		rp_answer(&runs[i], &a);
		for (int k = 0; k < a.n; k++) {
			const struct answer_line *l = &a.line[k];
			fputs(first ? "\n  {\"run\": " : ",\n  {\"run\": ", out);
			first = 0;
			rp_json_str(out, runs[i].run->path);
			fprintf(out, ", \"kind\": \"%s\", \"tag\": ",
				l->kind == ANSWER_FINDING ? "finding" : "cell");
			rp_json_str(out, l->tag);
			fputs(", \"weight\": ", out);
			rp_json_num(out, l->kind == ANSWER_FINDING ? l->weight : NAN);
			fputs(", \"text\": ", out);
			rp_json_str(out, l->text);
			fputc('}', out);
		}
	}
	fputs("]", out);
}
