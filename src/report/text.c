/* text: the sections of a run's report as text, markdown or HTML: the run's origin, the study's
 * table, small files against their twin, the statistics per cell and the ceilings; the rest of
 * a run (text_phases.c), comparisons and the calibration (text_compare.c). Figures carry their
 * units. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "util/stats.h"
#include "util/units.h"
#include "report/internal.h"

/* The value of /environment's key, or NULL. */
static const char *env_value(const struct run_data *run, const char *key)
{
	for (size_t i = 0; i < run->env.n; i++)
		if (strcmp(run->env.e[i].key, key) == 0)
			return run->env.e[i].value;
	return NULL;
}

/* A study that spanned several runs (run --resume, chained batch jobs): one line each. */
static void rp_text_parts(FILE *out, const struct run_data *run)
{
	if (run->nparts < 2)
		return;
	fprintf(out, "parts    %zu run%s (resumed):\n", run->nparts, units_s(run->nparts));
	for (size_t i = 0; i < run->nparts; i++) {
		const struct run_part *p = &run->parts[i];
		fprintf(out, "  %zu: ", i + 1);
		rp_plain_text(out, rp_or_dash(p->start_time));
		fputs(" to ", out);
		rp_plain_text(out, *p->end_time ? p->end_time : "(killed)");
		fputs(", job ", out);
		rp_plain_text(out, rp_or_dash(p->job_id));
		fputs(" on ", out);
		rp_plain_text(out, rp_or_dash(p->hosts));
		if (p->phases_count == RESULTS_PART_UNKNOWN)
			fputs(", phases not counted (killed), ", out);
		else
			fprintf(out, ", %u phase%s%s, ", (unsigned)p->phases_written,
				units_s(p->phases_written),
				p->phases_count == RESULTS_PART_KEPT ? " kept" : "");
		rp_plain_text(out, rp_or_dash(p->status));
		fputc('\n', out);
	}
}

/* What the header's fs and mount lines are made of. */
static const char *const header_env[] = {"fs_type", "fs_atime_mode", "fs_mount_point",
					  "fs_mount_options"};

int rp_header_shows(const char *key)
{
	for (size_t i = 0; i < sizeof header_env / sizeof header_env[0]; i++)
		if (strcmp(key, header_env[i]) == 0)
			return 1;
	return 0;
}

void rp_text_header(FILE *out, const struct run_data *run, enum report_format f)
{
	static const char *const label[] = {"results", "config", "started", "ranks", "nodes",
					    "job id",  "status", "fs",      "mount"};
	char nranks[16], nnodes[16], fs[160], mount[1200];
	const char *type = env_value(run, header_env[0]), *atime = env_value(run, header_env[1]);
	const char *point = env_value(run, header_env[2]), *opts = env_value(run, header_env[3]);
	snprintf(nranks, sizeof nranks, "%d", run->nranks);
	snprintf(nnodes, sizeof nnodes, "%d", run->nnodes);
	snprintf(fs, sizeof fs, "%s%s%s%s", type ? type : "-", atime ? " (atime: " : "",
		 atime ? atime : "", atime ? ")" : "");
	snprintf(mount, sizeof mount, "%s%s%s", point ? point : "-", opts ? " " : "",
		 opts ? opts : "");
	const char *value[] = {rp_or_dash(run->path),       rp_or_dash(run->config_path),
			       rp_or_dash(run->start_time), nranks,
			       nnodes,                      rp_or_dash(run->job_id),
			       rp_or_dash(run->status),     fs,
			       mount};
	if (f == REPORT_TEXT || f == REPORT_TEXT_WIDE) {
		for (size_t i = 0; i < sizeof label / sizeof label[0]; i++) {
			fprintf(out, "%-8s ", label[i]);
			rp_plain_text(out, value[i]);
			fputc('\n', out);
		}
		rp_text_parts(out, run);
		return;
	}
	if (f == REPORT_MARKDOWN) {
		fputs("## ", out);
		rp_md_text(out, value[0]);
		fputs("\n\n", out);
	} else {
		fputs("<ul class=\"meta\">\n", out);
	}
	for (size_t i = 1; i < sizeof label / sizeof label[0]; i++)
		if (f == REPORT_MARKDOWN) {
			fprintf(out, "- %s: ", label[i]);
			rp_md_text(out, value[i]);
			fputc('\n', out);
		} else {
			fprintf(out, "<li>%s: ", label[i]);
			rp_html_text(out, value[i]);
			fputs("</li>\n", out);
		}
	if (f == REPORT_HTML)
		fputs("</ul>\n", out);
}

#define RP_DOUBTS 10 /* phases in doubt named one by one */

/* Every key but the axes (the data set and the readers per node). */
static int same_combo(const struct report_cell *a, const struct report_cell *b)
{
	return sweep_same(&a->sweep, &b->sweep, sweep_keys_with(SWEEP_AXIS)) &&
	       a->state == b->state;
}

/* Every key but the readers per node (the columns). */
static int same_row(const struct report_cell *a, const struct report_cell *b)
{
	return sweep_same(&a->sweep, &b->sweep, 1u << SWEEP_READERS) && a->state == b->state;
}

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
		while (k < nr && r[k] < c[i].sweep.readers_per_node)
			k++;
		if (k < nr && r[k] == c[i].sweep.readers_per_node)
			continue;
		memmove(&r[k + 1], &r[k], (nr - k) * sizeof *r);
		r[k] = c[i].sweep.readers_per_node;
		nr++;
	}
	return nr;
}

static void summary_cell(struct tbl *t, const struct rp_run *r, const struct report_cell *row,
			 int32_t readers)
{
	const struct report_cell *c = r->cells;
	long n = r->ncells;
	for (long i = 0; i < n; i++) {
		if (!same_row(&c[i], row) || c[i].sweep.readers_per_node != readers)
			continue;
		if (!isfinite(c[i].mean_MBps))
			tbl_add(t, "-"); /* as every other table shows a figure that does not exist */
		else if (c[i].n > 1 && isfinite(c[i].min_MBps) && isfinite(c[i].max_MBps))
			tbl_add(t, "%.1f (%.1f-%.1f)", rp_rate(r, c[i].mean_MBps),
				rp_rate(r, c[i].min_MBps), rp_rate(r, c[i].max_MBps));
		else
			tbl_add(t, "%.1f", rp_rate(r, c[i].mean_MBps));
		return;
	}
	tbl_add(t, "-");
}

/* ", WARM (...)", ", MIXED (...)" or ", cache UNKNOWN (...)" for a cell not measured cold. */
static const char *state_extra(enum cache_state s)
{
	return s == CACHE_WARM	    ? ", WARM (data found in the page cache)"
	       : s == CACHE_MIXED   ? ", MIXED (part of the data found in the page cache)"
	       : s == CACHE_UNKNOWN ? ", cache UNKNOWN (the kernel would not say what was in it)"
				    : "";
}

static int summary_table(FILE *out, const struct rp_run *r, const struct report_cell *key,
			 enum report_format f, struct pf_err *e)
{
	const struct report_cell *c = r->cells;
	long n = r->ncells;
	char heading[512];
	int32_t *readers = calloc((size_t)n, sizeof *readers);
	if (readers == NULL)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	size_t nr = combo_readers(c, n, key, readers);
	struct tbl t = {.ncols = 1 + nr, .align = "l"};
	tbl_add(&t, "data set");
	for (size_t k = 0; k < nr; k++)
		tbl_add(&t, "%d %s/node [%s]", (int)readers[k],
			readers[k] == 1 ? "reader" : "readers", rp_ru(r));
	for (long i = 0; i < n; i++) {
		char size[32];
		if (!same_combo(&c[i], key) || !first_of(c, i, same_row))
			continue;
		tbl_add(&t, "%s (%s files)", c[i].sweep.dataset,
			units_format_size(c[i].sweep.file_size, size, sizeof size));
		for (size_t k = 0; k < nr; k++)
			summary_cell(&t, r, &c[i], readers[k]);
	}
	free(readers);
	sweep_heading(&key->sweep, heading, sizeof heading);
	rp_heading(out, f, 2, "%s%s: aggregate read bandwidth, mean (min-max) over repetitions",
		   heading, state_extra(key->state));
	return tbl_print(out, &t, f, e);
}

/* Which repetitions found their data in the page cache, or could not tell: they are in cells
 * of their own. */
static void state_notes(FILE *out, const struct rp_run *r, enum report_format f)
{
	for (long i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		char what[160];
		if (c->state == CACHE_COLD)
			continue;
		if (c->state == CACHE_UNKNOWN)
			snprintf(what, sizeof what, ": the kernel would not say how much of the data "
				 "was in the page cache before the phase (it tells only the files' "
				 "owner, root or a user who may write them)");
		else
			snprintf(what, sizeof what, " %s %s (%.0f%% of the bytes in the page cache "
				 "before the phase)", c->n == 1 ? "was" : "were",
				 c->state == CACHE_WARM ? "warm" : "mixed", c->resident_fraction * 100);
		rp_para(out, f,
			"%s x %d reader%s/node, %s, cache %s: repetition%s %s%s, kept apart from cold "
			"ones",
			c->sweep.dataset, (int)c->sweep.readers_per_node,
			c->sweep.readers_per_node == 1 ? "" : "s", c->sweep.backend, c->sweep.cache,
			c->n == 1 ? "" : "s", c->repetitions, what);
	}
}

/* Where the bytes came from, by the kernel's counters: one line when every cell read from
 * storage, else a line per cell that did not (and why a verdict is unknown). */
static void provenance_notes(FILE *out, const struct rp_run *r, enum report_format f)
{
	struct phase_provenance p;
	size_t storage = 0;
	if (r->run->nphases == 0 || r->ncells == 0)
		return; /* no phase counts: no verdict, not even "every cell" of none */
	analyze_provenance(&r->run->phases[0], r->local, &p);
	for (long i = 0; i < r->ncells; i++)
		storage += strcmp(r->cells[i].from, "storage") == 0;
	if (storage == (size_t)r->ncells) {
		rp_para(out, f, "where the bytes came from (the kernel's counters: %s): storage, in "
			"every cell", p.why);
		return;
	}
	for (long i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (strcmp(c->from, "storage") == 0)
			continue;
		if (strcmp(c->from, "unknown") == 0) {
			for (size_t k = 0; k < r->run->nphases; k++) {
				analyze_provenance(&r->run->phases[k], r->local, &p);
				if (isnan(p.fraction) && strcmp(r->run->phases[k].info.sweep.dataset,
								c->sweep.dataset) == 0)
					break;
			}
			rp_para(out, f, "%s x %d reader%s/node, %s, cache %s: where the bytes came from "
				"is unknown (%s)", c->sweep.dataset, (int)c->sweep.readers_per_node,
				c->sweep.readers_per_node == 1 ? "" : "s", c->sweep.backend,
				c->sweep.cache, p.why);
			continue;
		}
		rp_para(out, f, "%s x %d reader%s/node, %s, cache %s: the bytes came from %s "
			"(%.0f%% from storage by the kernel's counters: %s): this measures %s",
			c->sweep.dataset, (int)c->sweep.readers_per_node,
			c->sweep.readers_per_node == 1 ? "" : "s", c->sweep.backend, c->sweep.cache,
			strncmp(c->from, "mixed", 5) == 0 ? "storage and the cache" : "the cache",
			c->from_storage * 100, p.why,
			strncmp(c->from, "mixed", 5) == 0 ? "neither storage nor memory alone"
							   : "memory, not storage");
	}
}

/* Phases whose times are in doubt, and why (the first RP_DOUBTS, then how many more). */
static void phase_doubts(FILE *out, const struct run_data *run, enum report_format f)
{
	size_t shown = 0, more = 0;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		if (strstr(p->flags, "clock") == NULL)
			continue;
		if (shown++ >= RP_DOUBTS)
			more++;
		else
			rp_para(out, f,
				"phase %04u (%s x %d/node, rep %d): its ranks left the opening "
				"barrier %.3g s apart, more than the clocks allow (%.3g s): a "
				"rank's "
				"clock disagrees with the others', so the phase's times cannot be "
				"trusted",
				(unsigned)p->index, p->sweep.dataset,
				(int)p->sweep.readers_per_node, (int)p->repetition, p->start_skew_s,
				p->clock_bound_s);
	}
	if (more > 0)
		rp_para(out, f, "... and %zu more phases whose clocks disagreed (see the flags of the "
			"phases table)", more);
}

/* Why no phase counts in the statistics: how many phases are INVALID (complete, with figures
 * that cannot be true: the first one named with why) and how many did not complete. */
static void no_cells_note(FILE *out, const struct run_data *run, enum report_format f)
{
	size_t invalid = 0, unfinished = 0;
	const struct phase_info *first = NULL;
	if (run->nphases == 0) {
		rp_para(out, f, "no phases: the run wrote none");
		return;
	}
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		if (p->status != PHASE_COMPLETE) {
			unfinished++;
		} else if (report_phase_invalid(p) != NULL) {
			first = first ? first : p;
			invalid++;
		}
	}
	if (invalid == 0) {
		rp_para(out, f, "no completed phases: %zu phase%s, none complete (failed, timed out "
			"or interrupted)", unfinished, unfinished == 1 ? "" : "s");
		return;
	}
	rp_para(out, f, "no phase counts in the statistics: %zu phase%s INVALID (phase %04u first: "
		"%s) and %zu not complete; no bandwidth, and no verdict on where the bytes came from",
		invalid, invalid == 1 ? " is" : "s are", (unsigned)first->index,
		report_phase_invalid(first), unfinished);
}

int rp_text_summary(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	int rc = 0;
	if (r->ncells == 0)
		no_cells_note(out, r->run, f);
	for (long i = 0; i < r->ncells && rc == 0; i++)
		if (first_of(r->cells, i, same_combo))
			rc = summary_table(out, r, &r->cells[i], f, e);
	if (rc == 0) {
		state_notes(out, r, f);
		provenance_notes(out, r, f);
		phase_doubts(out, r->run, f);
	}
	return rc;
}

#define RP_TWIN_SUFFIX "-onefile"

/* 1 when phase p belongs to cell c in every key but the file size (the twin's differs). */
static int twin_phase_of(const struct report_cell *c, const struct phase_info *p)
{
	return report_phase_counts(p) && sweep_same(&c->sweep, &p->sweep, 1u << SWEEP_FILE_SIZE) &&
	       c->state == report_phase_state(p);
}

/* Cells a (NAME) and b (NAME-onefile) that differ in nothing else. */
static int twin_pair(const struct report_cell *a, const struct report_cell *b)
{
	size_t n = strlen(a->sweep.dataset);
	return strncmp(b->sweep.dataset, a->sweep.dataset, n) == 0 &&
	       strcmp(b->sweep.dataset + n, RP_TWIN_SUFFIX) == 0 &&
	       sweep_same(&a->sweep, &b->sweep, 1u << SWEEP_DATASET | 1u << SWEEP_FILE_SIZE) &&
	       a->state == b->state;
}

/* The mean elapsed time of cell c's phases, and the bytes and files of one of them. */
static double twin_elapsed(const struct run_data *run, const struct report_cell *c,
			   uint64_t *bytes, uint64_t *files)
{
	double sum = 0;
	int n = 0;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		if (!twin_phase_of(c, p))
			continue;
		sum += p->elapsed_s;
		*bytes = p->bytes;
		*files = p->nfiles;
		n++;
	}
	return n > 0 ? sum / n : 0;
}

/* "NAME: N files of mean S took X s, its one-file twin Y s: ratio X/Y", per pair of cells. */
static void twins(FILE *out, const struct rp_run *r, enum report_format f)
{
	int any = 0;
	for (long i = 0; i < r->ncells; i++) {
		for (long j = 0; j < r->ncells; j++) {
			const struct report_cell *a = &r->cells[i], *b = &r->cells[j];
			uint64_t bytes = 0, files = 0, tb = 0, tf = 0;
			if (!twin_pair(a, b))
				continue;
			double x = twin_elapsed(r->run, a, &bytes, &files);
			double y = twin_elapsed(r->run, b, &tb, &tf);
			char mean[32];
			if (files == 0 || x <= 0 || y <= 0)
				continue;
			if (!any++)
				rp_heading(out, f, 2, "small files against their one-file twin (same "
					   "bytes, elapsed time, mean over repetitions)");
			units_format_size(bytes / files, mean, sizeof mean);
			rp_para(out, f,
				"%s: %llu files of mean %s took %.4g s, its one-file twin %.4g s: "
				"ratio %.1f (%d reader%s/node, %s, %s%s%s)",
				a->sweep.dataset, (unsigned long long)files, mean, x, y, x / y,
				(int)a->sweep.readers_per_node,
				a->sweep.readers_per_node == 1 ? "" : "s", a->sweep.backend,
				a->sweep.pattern,
				a->state == CACHE_COLD ? "" : ", ", rp_state_caps(a->state));
		}
	}
}

/* A key with a column in the cells table where it varies (the axes always have theirs). */
static int cells_column(int k)
{
	return report_key_own(k) && !report_key_axis(k);
}

/* "every cell: posix backend, 4 MiB transfers, ..." for the keys that do not vary. */
static void constant_keys(FILE *out, const struct report_cell *c, long n, enum report_format f)
{
	char line[1024] = "", v[192];
	size_t used = 0;
	for (int k = 0; k < REPORT_NKEYS && n > 0; k++) {
		if (!cells_column(k) || report_key_varies(c, n, k) || used >= sizeof line)
			continue;
		used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %s",
					 used ? ", " : "", report_key_name(k),
					 report_key_value(&c[0], k, v, sizeof v));
	}
	if (used)
		rp_para(out, f, "every cell: %s", line);
}

static void cells_head(struct tbl *t, const struct rp_run *r, const unsigned varies,
		       int ceilings)
{
	static const char *const head[] = {
		"n", "mean [MB/s]", "95% CI [MB/s]", "sd [MB/s]", "min [MB/s]", "median [MB/s]",
		"max [MB/s]", "CPU [s/GB]", "per reader [MB/s]", "stonewall [MB/s]", "finish spread [s]",
		"files/s", "open+close [% of reader time]", "bytes from"};
	static const char *const ceil_head[] = {"ceiling [MB/s]", "limited by", "efficiency [%]"};
	for (int k = 0; k < REPORT_NKEYS; k++)
		if (report_key_own(k) && report_key_axis(k))
			tbl_add(t, "%s", report_key_name(k));
	for (int k = 0; k < REPORT_NKEYS; k++)
		if (varies >> k & 1u)
			tbl_add(t, "%s", report_key_name(k));
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		rp_head(t, r->units, head[i]);
	for (size_t i = 0; ceilings && i < sizeof ceil_head / sizeof ceil_head[0]; i++)
		rp_head(t, r->units, ceil_head[i]);
}

static void cells_row(struct tbl *t, const struct rp_run *r, const struct report_cell *c,
		      unsigned varies, int ceilings)
{
	char v[192];
	for (int k = 0; k < REPORT_NKEYS; k++)
		if ((report_key_own(k) && report_key_axis(k)) || (varies >> k & 1u))
			tbl_add(t, "%s", report_key_value(c, k, v, sizeof v));
	tbl_add(t, "%d", c->n);
	tbl_num(t, 1, rp_rate(r, c->mean_MBps));
	if (isfinite(c->ci95_MBps))
		tbl_add(t, "+/- %.1f", rp_rate(r, c->ci95_MBps));
	else
		tbl_add(t, "- (1 rep.)");
	tbl_num(t, 1, rp_rate(r, c->sd_MBps));
	tbl_num(t, 1, rp_rate(r, c->min_MBps));
	tbl_num(t, 1, rp_rate(r, c->median_MBps));
	tbl_num(t, 1, rp_rate(r, c->max_MBps));
	tbl_num(t, 3, c->cpu_s_per_GB);
	tbl_num(t, 2, c->readers > 0 ? rp_rate(r, c->mean_MBps) / c->readers : NAN);
	tbl_num(t, 1, rp_rate(r, c->stonewall_MBps));
	tbl_num(t, 4, c->spread_s);
	tbl_num(t, 1, c->files_per_s);
	tbl_num(t, 1, c->meta_fraction * 100);
	tbl_add(t, "%s", c->from);
	if (!ceilings)
		return;
	tbl_num(t, 0, rp_rate(r, c->ceiling_MBps));
	tbl_add(t, "%s", rp_or_dash(c->limit));
	if (c->efficiency > REPORT_ABOVE)
		tbl_add(t, "%.1f (ceiling contradicted)", c->efficiency * 100);
	else
		tbl_num(t, 1, c->efficiency * 100);
}

static int cells_table(FILE *out, const struct rp_run *r, enum report_format f,
		       struct pf_err *e)
{
	unsigned varies = 0;
	size_t axes = 0;
	int ceilings = r->hw != NULL;
	for (int k = 0; k < REPORT_NKEYS; k++) {
		axes += report_key_own(k) && report_key_axis(k);
		if (cells_column(k))
			varies |= (unsigned)report_key_varies(r->cells, r->ncells, k) << k;
	}
	size_t keys = axes + (size_t)__builtin_popcount(varies);
	struct tbl t = {.ncols = keys + 14 + (ceilings ? 3 : 0), .align = "ll", .nlabel = keys};
	if (r->ncells == 0)
		return 0;
	rp_heading(out, f, 2, "statistics per cell over repetitions (95%% confidence interval "
		   "from Student's t; CPU: the ranks' user + system seconds in the timed part per "
		   "GB read, - when not recorded; stonewall: bytes read by all readers when the first "
		   "one finished / that time)");
	constant_keys(out, r->cells, r->ncells, f);
	cells_head(&t, r, varies, ceilings);
	for (long i = 0; i < r->ncells; i++)
		cells_row(&t, r, &r->cells[i], varies, ceilings);
	return tbl_print(out, &t, f, e);
}

/* 1 when two ceiling results list the same limits with the same figures. */
static int same_result(const struct ceil_result *a, const struct ceil_result *b)
{
	if (a->nterms != b->nterms || a->limit != b->limit)
		return 0;
	for (int i = 0; i < a->nterms; i++)
		if (strcmp(a->term[i].resource, b->term[i].resource) != 0 ||
		    strcmp(a->term[i].how, b->term[i].how) != 0)
			return 0;
	return 1;
}

static void point_label(const struct report_cell *c, char *buf, size_t len)
{
	snprintf(buf, len, "%d reader%s on %d node%s (%s)", c->readers, c->readers == 1 ? "" : "s",
		 c->reader_nodes, c->reader_nodes == 1 ? "" : "s", cache_state_name(c->state));
}

/* The limits of cell i, unless an earlier cell had the very same ones. Returns 1 if printed. */
static int ceiling_point(FILE *out, const struct rp_run *r, long i, enum report_format f,
			 struct pf_err *e)
{
	struct ceil_result res, other;
	struct report_cell tmp = r->cells[i];
	char label[1024], one[96];
	report_cell_ceiling(&tmp, r->hw, r->run->nnodes, &res);
	label[0] = '\0';
	for (long k = 0; k < r->ncells; k++) {
		tmp = r->cells[k];
		report_cell_ceiling(&tmp, r->hw, r->run->nnodes, &other);
		if (!same_result(&res, &other))
			continue;
		if (k < i)
			return 0;
		point_label(&r->cells[k], one, sizeof one);
		if (strstr(label, one) == NULL && strlen(label) + strlen(one) + 3 < sizeof label)
			strcat(strcat(label, label[0] ? "; " : ""), one);
	}
	rp_para(out, f, "%s:%s", label, res.nterms ? "" : " no limit known (declare more of the "
		"hardware)");
	if (res.nterms == 0)
		return 0;
	struct tbl t = {.ncols = 3, .align = "lrl"};
	tbl_add(&t, "limit");
	tbl_add(&t, "[%s]", rp_ru(r));
	tbl_add(&t, "how");
	for (int j = 0; j < res.nterms; j++) {
		tbl_add(&t, "%s%s", res.term[j].resource, j == res.limit ? " (the ceiling)" : "");
		tbl_num(&t, 0, rp_rate(r, res.term[j].MBps));
		tbl_add(&t, "%s", res.term[j].how);
	}
	return tbl_print(out, &t, f, e) == 0 ? 1 : -1;
}

/* One line per cold cell below REPORT_SHORT_OF of its ceiling, with the likely cause. */
static void shortfalls(FILE *out, const struct rp_run *r, enum report_format f)
{
	unsigned keys = 0;
	char name[512];
	for (int k = 0; k < REPORT_NKEYS; k++)
		if (report_key_own(k) && k != REPORT_KEY_STATE &&
		    (report_key_axis(k) || report_key_varies(r->cells, r->ncells, k)))
			keys |= 1u << k;
	for (long i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (c->shortfall[0] == '\0')
			continue;
		rp_cell_name(c, keys, name, sizeof name);
		rp_para(out, f, "%s (cold): %.0f%% of its ceiling (%s, %.1f %s), below %.0f%%: %s",
			name, c->efficiency * 100, c->limit, rp_rate(r, c->ceiling_MBps), rp_ru(r),
			REPORT_SHORT_OF * 100, c->shortfall);
	}
}

static int ceilings(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	int rc = 0;
	rp_heading(out, f, 2, "ceilings: the least of the limits a phase goes through");
	if (r->hw == NULL) {
		rp_para(out, f, "no ceilings: %s", r->hw_note ? r->hw_note
				: "declare the machine in the config (hardware:) or give a "
				  "calibration file (pfsread calibrate) alongside");
		return 0;
	}
	rp_para(out, f, "hardware: %s", rp_or_dash(r->hw_note));
	for (long i = 0; i < r->ncells && rc >= 0; i++)
		rc = ceiling_point(out, r, i, f, e);
	for (long i = 0; i < r->ncells && rc >= 0; i++)
		if (r->cells[i].efficiency < 0.25)
			rp_para(out, f,
				"%s x %d reader%s/node%s: %.1f%% of its ceiling: the hardware "
				"figures are not what limits it; each reader got %.2f %s and "
				"spent %.1f%% of its time in open+close",
				r->cells[i].sweep.dataset, (int)r->cells[i].sweep.readers_per_node,
				units_s((unsigned long long)r->cells[i].sweep.readers_per_node),
				rp_state_note(r->cells[i].state), r->cells[i].efficiency * 100,
				r->cells[i].readers ? rp_rate(r, r->cells[i].mean_MBps) /
							      r->cells[i].readers
						    : NAN,
				rp_ru(r), r->cells[i].meta_fraction * 100);
	for (long i = 0; i < r->ncells && rc >= 0; i++)
		if (r->cells[i].efficiency > REPORT_ABOVE)
			rp_para(out, f, "%s x %d reader%s/node%s: measured %.0f%% of its ceiling, above "
				"it: the ceiling is contradicted (a hardware figure is too low or "
				"missing from the model)%s",
				r->cells[i].sweep.dataset, (int)r->cells[i].sweep.readers_per_node,
				units_s((unsigned long long)r->cells[i].sweep.readers_per_node),
				rp_state_note(r->cells[i].state), r->cells[i].efficiency * 100,
				r->cells[i].state == CACHE_COLD
					? " (its data was not in this node's page cache before it; "
					  "a cache elsewhere, such as the servers', may have served it)"
					: "");
	if (rc >= 0)
		shortfalls(out, r, f);
	return rc < 0 ? -1 : 0;
}

int rp_text_run(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	if ((f == REPORT_TEXT || f == REPORT_TEXT_WIDE) && r != NULL && r->run != NULL)
		fputc('\n', out);
	rp_text_header(out, r->run, f);
	if (rp_text_summary(out, r, f, e) != 0)
		return -1;
	return rp_text_details(out, r, f, e);
}

int rp_text_details(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	twins(out, r, f);
	if (cells_table(out, r, f, e) != 0 ||
	    ceilings(out, r, f, e) != 0 || rp_text_sizes(out, r, f, e) != 0 ||
	    rp_text_nodes(out, r, f, e) != 0 || rp_text_targets(out, r, f, e) != 0 ||
	    rp_text_slow_nodes(out, r, f, e) != 0 ||
	    rp_text_slow_files(out, r, f, e) != 0 || rp_text_memory(out, r, f, e) != 0 ||
	    rp_text_phases(out, r, f, e) != 0)
		return -1;
	return 0;
}
