/* report: the entry points of the report: a run analysed once (cells, time split, stragglers)
 * for every output, then text, markdown, csv, json, charts or the HTML page. Output errors are
 * checked once, with ferror. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/analyze.h"
#include "report/spread.h"
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

/* ---- a run, analysed once ---- */

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
	r->local = hw != NULL ? ceiling_local_share(hw, run->nnodes) : 0;
	r->nodes = calloc(run->nnodes > 0 ? (size_t)run->nnodes : 1, sizeof *r->nodes);
	if (r->nodes == NULL || (r->ncells = report_cells(run, r->local, &r->cells)) < 0 ||
	    (r->nsizes = report_size_classes(run, &r->sizes)) < 0 ||
	    report_stragglers(run, RP_SLOW, r->slow_nodes, &r->nslow_nodes, r->slow_files,
			      &r->nslow_files, r->nodes) != 0 ||
	    report_attrib(run, &r->attrib) != 0) {
		rp_run_free(r);
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	}
	for (long i = 0; hw != NULL && i < r->ncells; i++)
		report_cell_ceiling(&r->cells[i], hw, run->nnodes, NULL);
	struct report_fs fs = {hw != NULL && hw->data_remote,
			       report_fs_fuse(envinfo_value(&run->env, "fs_mount_type"))};
	for (long i = 0; hw != NULL && i < r->ncells; i++)
		report_cell_shortfall(&r->cells[i], r->cells, r->ncells, &fs);
	r->host_reclaims = envinfo_value(&run->env, "free_page_reporting") != NULL;
	return 0;
}

void rp_run_free(struct rp_run *r)
{
	if (r == NULL)
		return;
	free(r->cells);
	free(r->sizes);
	free(r->nodes);
	report_attrib_free(&r->attrib);
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
	if (o->brief && f == REPORT_JSON) {
		rp_json_brief(out, r, n);
		return 0;
	}
	if (o->brief) {
		rp_text_answer(out, r, n, f);
		return 0;
	}
	if (f == REPORT_JSON)
		return rp_json(out, r, n, o->calib, o->units, e);
	if (f == REPORT_CSV && o->records == REPORT_RECORDS_FILES)
		return rp_csv_files(out, r, n, e);
	if (f == REPORT_CSV && o->records == REPORT_RECORDS_RANKS) {
		rp_csv_ranks(out, r, n);
		return 0;
	}
	if (f == REPORT_CSV)
		return rp_csv_cells(out, r, n, e);
	/* the answer first: is each figure reasonable and why, what the runs were compared for,
	 * then each run's table and details */
	rp_text_answer(out, r, n, f);
	for (size_t i = 1; i < n && rc == 0; i++)
		rc = rp_text_compare(out, &r[0], &r[i], f, e);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = rp_text_run(out, &r[i], f, e);
	if (rc == 0 && o->calib != NULL)
		rc = rp_text_calib(out, o->calib, o->units, f, e);
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
		r[ready].units = o->units;
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
	if (rp_text_calib(out, c, UNITS_RATE_DECIMAL, REPORT_TEXT, e) != 0)
		return -1;
	return report_flush(out, e);
}

/* What a phase's line ends with: nothing when it completed, else how it ended. */
static const char *report_status_mark(int status)
{
	switch (status) {
	case PHASE_COMPLETE:
		return "";
	case PHASE_TIMEOUT:
		return " TIMED OUT";
	case PHASE_INTERRUPTED:
		return " INTERRUPTED";
	default:
		return " FAILED";
	}
}

void report_phase_line(FILE *out, const struct phase_info *p)
{
	char transfer[32], bytes[32], elapsed[32];
	char rate[48] = "nothing read";
	if (p->bytes > 0)
		snprintf(rate, sizeof rate, "%.1f MB/s", p->bandwidth_MBps);
	fprintf(out,
		"phase %04u: %s x %d %s/node, %s, %s transfers, %s, cache %s, rep %d: "
		"%s in %s = %s (%" PRIu64 " file%s)%s\n",
		(unsigned)p->index, p->sweep.dataset, (int)p->sweep.readers_per_node,
		p->sweep.readers_per_node == 1 ? "reader" : "readers", p->sweep.backend,
		units_format_size_binary(p->sweep.transfer_size, transfer, sizeof transfer),
		p->sweep.order, p->sweep.cache, (int)p->repetition,
		units_format_size(p->bytes, bytes, sizeof bytes),
		units_format_duration(p->elapsed_s, elapsed, sizeof elapsed), rate, p->nfiles,
		units_s(p->nfiles),
		report_status_mark(p->status));
}

int report_take_rows(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		     struct pf_err *e)
{
	if (analyze_take_rows(ctx, pd, rows, n, e) != 0)
		return -1;
	if (spread_add(&pd->digest.use, pd, rows, n) != 0)
		return pf_fail_errno(e, ENOMEM, "report: phase %u's targets over time",
				     (unsigned)pd->info.index);
	return 0;
}

int report_read(const char *path, struct run_data *run, struct pf_err *e)
{
	const struct results_rows rows = {report_take_rows, NULL, REPORT_KEEP_ROWS};
	return results_read_rows(path, run, &rows, e);
}
