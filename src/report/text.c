/* report_text: the sections of a run's report as text, markdown or HTML: the study's table, the
 * statistics per cell with ceilings, the time split per file size, nodes and stragglers, the
 * phases; then comparisons between runs and the calibration. Figures carry their units. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "util/stats.h"
#include "util/units.h"
#include "report/internal.h"

/* ---- the run's origin ---- */

/* The value of /environment's key, or NULL. */
static const char *env_value(const struct run_data *run, const char *key)
{
	for (size_t i = 0; i < run->env.n; i++)
		if (strcmp(run->env.e[i].key, key) == 0)
			return run->env.e[i].value;
	return NULL;
}

void rp_text_header(FILE *out, const struct run_data *run, enum report_format f)
{
	static const char *const label[] = {"results", "config", "started", "ranks", "nodes",
					    "job id",  "status", "fs",      "mount"};
	char nranks[16], nnodes[16], fs[160], mount[1200];
	const char *type = env_value(run, "fs_type"), *point = env_value(run, "fs_mount_point");
	const char *opts = env_value(run, "fs_mount_options"), *atime = env_value(run, "fs_atime_mode");
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
	if (f == REPORT_TEXT) {
		for (size_t i = 0; i < sizeof label / sizeof label[0]; i++) {
			fprintf(out, "%-8s ", label[i]);
			rp_plain_text(out, value[i]);
			fputc('\n', out);
		}
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

/* " (warm)", " (mixed)" or "" for cold. */
static const char *rp_state_note(enum cache_state s)
{
	return s == CACHE_WARM ? " (warm)" : s == CACHE_MIXED ? " (mixed)" : "";
}

/* ---- the study's table: rows data sets, columns readers per node ---- */

/* Every key but the data set and the readers per node. */
static int same_combo(const struct report_cell *a, const struct report_cell *b)
{
	return strcmp(a->backend, b->backend) == 0 && a->transfer_size == b->transfer_size &&
	       strcmp(a->order, b->order) == 0 && strcmp(a->cache, b->cache) == 0 &&
	       strcmp(a->pattern, b->pattern) == 0 &&
	       strcmp(a->decomposition, b->decomposition) == 0 &&
	       a->queue_depth == b->queue_depth && a->state == b->state;
}

static int same_row(const struct report_cell *a, const struct report_cell *b)
{
	return same_combo(a, b) && strcmp(a->dataset, b->dataset) == 0 &&
	       a->file_size == b->file_size;
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
		if (!isfinite(c[i].mean_MBps))
			tbl_add(t, "-"); /* as every other table shows a figure that does not exist */
		else if (c[i].n > 1 && isfinite(c[i].min_MBps) && isfinite(c[i].max_MBps))
			tbl_add(t, "%.1f (%.1f-%.1f)", c[i].mean_MBps, c[i].min_MBps,
				c[i].max_MBps);
		else
			tbl_add(t, "%.1f", c[i].mean_MBps);
		return;
	}
	tbl_add(t, "-");
}

/* ", shared pattern, cyclic decomposition, queue depth 8, warm" for what is not the default. */
static void combo_extra(const struct report_cell *k, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	if (strcmp(k->pattern, "per-reader") != 0 && k->pattern[0])
		used += (size_t)snprintf(buf + used, len - used, ", %s pattern", k->pattern);
	if (used < len && strcmp(k->decomposition, "block") != 0 && k->decomposition[0])
		used += (size_t)snprintf(buf + used, len - used, ", %s decomposition",
					 k->decomposition);
	if (used < len && k->queue_depth > 1)
		used += (size_t)snprintf(buf + used, len - used, ", queue depth %d",
					 (int)k->queue_depth);
	if (used < len && k->state == CACHE_WARM)
		snprintf(buf + used, len - used, ", WARM (data found in the page cache)");
	else if (used < len && k->state == CACHE_MIXED)
		snprintf(buf + used, len - used, ", MIXED (part of the data found in the page "
			 "cache)");
}

static int summary_table(FILE *out, const struct report_cell *c, long n,
			 const struct report_cell *key, enum report_format f, struct pf_err *e)
{
	char transfer[32], extra[160];
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
	combo_extra(key, extra, sizeof extra);
	rp_heading(out, f, 2, "%s backend, %s transfers, %s order, cache %s%s: aggregate read "
		   "bandwidth, mean (min-max) over repetitions", key->backend,
		   units_format_size_binary(key->transfer_size, transfer, sizeof transfer),
		   key->order, key->cache, extra);
	return tbl_print(out, &t, f, e);
}

/* Which repetitions found their data in the page cache: they are in cells of their own. */
static void state_notes(FILE *out, const struct rp_run *r, enum report_format f)
{
	for (long i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (c->state == CACHE_COLD)
			continue;
		rp_para(out, f, "%s x %d reader%s/node, %s, cache %s: repetition%s %s %s (%.0f%% of "
			"the bytes in the page cache before the phase), kept apart from cold ones",
			c->dataset, (int)c->readers_per_node, c->readers_per_node == 1 ? "" : "s",
			c->backend, c->cache, c->n == 1 ? "" : "s", c->repetitions,
			c->n == 1 ? (c->state == CACHE_WARM ? "was warm" : "was mixed")
				  : (c->state == CACHE_WARM ? "were warm" : "were mixed"),
			c->resident_fraction * 100);
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
			rp_para(out, f, "phase %04u (%s x %d/node, rep %d): its ranks left the opening "
				"barrier %.3g s apart, more than the clocks allow (%.3g s): a rank's "
				"clock disagrees with the others', so the phase's times cannot be "
				"trusted", (unsigned)p->index, p->dataset, (int)p->readers_per_node,
				(int)p->repetition, p->start_skew_s, p->clock_bound_s);
	}
	if (more > 0)
		rp_para(out, f, "... and %zu more phases whose clocks disagreed (see the flags of the "
			"phases table)", more);
}

int rp_text_summary(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	int rc = 0;
	if (r->ncells == 0)
		rp_para(out, f, "no completed phases");
	for (long i = 0; i < r->ncells && rc == 0; i++)
		if (first_of(r->cells, i, same_combo))
			rc = summary_table(out, r->cells, r->ncells, &r->cells[i], f, e);
	if (rc == 0) {
		state_notes(out, r, f);
		phase_doubts(out, r->run, f);
	}
	return rc;
}

/* ---- small files against their one-file twin ---- */

#define RP_TWIN_SUFFIX "-onefile"

/* 1 when phase p belongs to cell c in every key but the file size (the twin's differs). */
static int twin_phase_of(const struct report_cell *c, const struct phase_info *p)
{
	return strcmp(c->dataset, p->dataset) == 0 && report_phase_counts(p) &&
	       c->readers_per_node == p->readers_per_node && strcmp(c->backend, p->backend) == 0 &&
	       c->transfer_size == p->transfer_size && strcmp(c->order, p->order) == 0 &&
	       strcmp(c->cache, p->cache) == 0 && strcmp(c->pattern, p->pattern) == 0 &&
	       strcmp(c->decomposition, p->decomposition) == 0 &&
	       c->queue_depth == p->queue_depth && c->state == report_phase_state(p);
}

/* Cells a (NAME) and b (NAME-onefile) that differ in nothing else. */
static int twin_pair(const struct report_cell *a, const struct report_cell *b)
{
	size_t n = strlen(a->dataset);
	return strncmp(b->dataset, a->dataset, n) == 0 && strcmp(b->dataset + n, RP_TWIN_SUFFIX) == 0 &&
	       a->readers_per_node == b->readers_per_node && strcmp(a->backend, b->backend) == 0 &&
	       a->transfer_size == b->transfer_size && strcmp(a->order, b->order) == 0 &&
	       strcmp(a->cache, b->cache) == 0 && strcmp(a->pattern, b->pattern) == 0 &&
	       strcmp(a->decomposition, b->decomposition) == 0 && a->queue_depth == b->queue_depth &&
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
			rp_para(out, f, "%s: %llu files of mean %s took %.4g s, its one-file twin %.4g s: "
				"ratio %.1f (%d reader%s/node, %s, %s%s)",
				a->dataset, (unsigned long long)files, mean, x, y, x / y,
				(int)a->readers_per_node, a->readers_per_node == 1 ? "" : "s", a->backend,
				a->pattern, a->state == CACHE_COLD ? "" : a->state == CACHE_WARM
									  ? ", WARM" : ", MIXED");
		}
	}
}

/* ---- statistics per cell ---- */

/* 1 when key k takes more than one value over the cells. */
static int key_varies(const struct report_cell *c, long n, enum report_key k)
{
	char a[192], b[192];
	for (long i = 1; i < n; i++)
		if (strcmp(report_key_value(&c[0], k, a, sizeof a),
			   report_key_value(&c[i], k, b, sizeof b)) != 0)
			return 1;
	return 0;
}

/* "every cell: posix backend, 4 MiB transfers, ..." for the keys that do not vary. */
static void constant_keys(FILE *out, const struct report_cell *c, long n, enum report_format f)
{
	char line[1024] = "", v[192];
	size_t used = 0;
	for (int k = RK_BACKEND; k < RK_NKEYS && n > 0; k++) {
		if (key_varies(c, n, (enum report_key)k) || used >= sizeof line)
			continue;
		used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %s",
					 used ? ", " : "", report_key_name((enum report_key)k),
					 report_key_value(&c[0], (enum report_key)k, v, sizeof v));
	}
	if (used)
		rp_para(out, f, "every cell: %s", line);
}

static void cells_head(struct tbl *t, const unsigned varies, int ceilings)
{
	static const char *const head[] = {
		"n", "mean [MB/s]", "95% CI [MB/s]", "sd [MB/s]", "min [MB/s]", "median [MB/s]",
		"max [MB/s]", "per reader [MB/s]", "stonewall [MB/s]", "finish spread [s]",
		"files/s", "open+close [% of reader time]"};
	static const char *const ceil_head[] = {"ceiling [MB/s]", "limited by", "efficiency [%]"};
	tbl_add(t, "data set");
	tbl_add(t, "readers/node");
	for (int k = RK_BACKEND; k < RK_NKEYS; k++)
		if (varies >> k & 1u)
			tbl_add(t, "%s", report_key_name((enum report_key)k));
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		tbl_add(t, "%s", head[i]);
	for (size_t i = 0; ceilings && i < sizeof ceil_head / sizeof ceil_head[0]; i++)
		tbl_add(t, "%s", ceil_head[i]);
}

static void cells_row(struct tbl *t, const struct report_cell *c, unsigned varies, int ceilings)
{
	char v[192];
	tbl_add(t, "%s", report_key_value(c, RK_DATASET, v, sizeof v));
	tbl_add(t, "%d", (int)c->readers_per_node);
	for (int k = RK_BACKEND; k < RK_NKEYS; k++)
		if (varies >> k & 1u)
			tbl_add(t, "%s", report_key_value(c, (enum report_key)k, v, sizeof v));
	tbl_add(t, "%d", c->n);
	tbl_num(t, 1, c->mean_MBps);
	if (isfinite(c->ci95_MBps))
		tbl_add(t, "+/- %.1f", c->ci95_MBps);
	else
		tbl_add(t, "- (1 rep.)");
	tbl_num(t, 1, c->sd_MBps);
	tbl_num(t, 1, c->min_MBps);
	tbl_num(t, 1, c->median_MBps);
	tbl_num(t, 1, c->max_MBps);
	tbl_num(t, 2, c->readers > 0 ? c->mean_MBps / c->readers : NAN);
	tbl_num(t, 1, c->stonewall_MBps);
	tbl_num(t, 4, c->spread_s);
	tbl_num(t, 1, c->files_per_s);
	tbl_num(t, 1, c->meta_fraction * 100);
	if (!ceilings)
		return;
	tbl_num(t, 0, c->ceiling_MBps);
	tbl_add(t, "%s", rp_or_dash(c->limit));
	tbl_num(t, 1, c->efficiency * 100);
}

static int cells_table(FILE *out, const struct rp_run *r, enum report_format f,
		       struct pf_err *e)
{
	unsigned varies = 0;
	int ceilings = r->hw != NULL;
	for (int k = RK_BACKEND; k < RK_NKEYS; k++)
		varies |= (unsigned)key_varies(r->cells, r->ncells, (enum report_key)k) << k;
	struct tbl t = {.ncols = 14 + (size_t)__builtin_popcount(varies) + (ceilings ? 3 : 0),
			.align = "ll"};
	if (r->ncells == 0)
		return 0;
	rp_heading(out, f, 2, "statistics per cell over repetitions (95%% confidence interval "
		   "from Student's t; stonewall: bytes read by all readers when the first one "
		   "finished / that time)");
	constant_keys(out, r->cells, r->ncells, f);
	cells_head(&t, varies, ceilings);
	for (long i = 0; i < r->ncells; i++)
		cells_row(&t, &r->cells[i], varies, ceilings);
	return tbl_print(out, &t, f, e);
}

/* ---- ceilings ---- */

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
	tbl_add(&t, "[MB/s]");
	tbl_add(&t, "how");
	for (int j = 0; j < res.nterms; j++) {
		tbl_add(&t, "%s%s", res.term[j].resource, j == res.limit ? " (the ceiling)" : "");
		tbl_num(&t, 0, res.term[j].MBps);
		tbl_add(&t, "%s", res.term[j].how);
	}
	return tbl_print(out, &t, f, e) == 0 ? 1 : -1;
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
			rp_para(out, f, "%s x %d readers/node%s: %.1f%% of its ceiling: the hardware "
				"figures are not what limits it; each reader got %.2f MB/s and spent "
				"%.1f%% of its time in open+close", r->cells[i].dataset,
				(int)r->cells[i].readers_per_node, rp_state_note(r->cells[i].state),
				r->cells[i].efficiency * 100,
				r->cells[i].readers ? r->cells[i].mean_MBps / r->cells[i].readers : NAN,
				r->cells[i].meta_fraction * 100);
	for (long i = 0; i < r->ncells && rc >= 0; i++)
		if (r->cells[i].efficiency > 1.05)
			rp_para(out, f, "%s x %d readers/node%s: measured %.0f%% of its ceiling: a "
				"hardware figure is too low or missing from the model%s",
				r->cells[i].dataset, (int)r->cells[i].readers_per_node,
				rp_state_note(r->cells[i].state), r->cells[i].efficiency * 100,
				r->cells[i].state == CACHE_COLD
					? " (its data was not in this node's page cache before it; "
					  "a cache elsewhere, such as the servers', may have served it)"
					: "");
	return rc < 0 ? -1 : 0;
}

/* ---- where reader time goes, per file size ---- */

static int size_classes(FILE *out, const struct rp_run *r, enum report_format f,
			struct pf_err *e)
{
	char size[32];
	struct tbl t = {.ncols = 7, .align = "l"};
	static const char *const head[] = {
		"file size", "phases", "files", "open [ms/file]", "read [ms/file]",
		"close [ms/file]", "open+close [% of reader time]"};
	if (r->nsizes == 0)
		return 0;
	rp_heading(out, f, 2, "where reader time goes, per file size (metadata: open and close; "
		   "data: read)");
	for (size_t i = 0; i < 7; i++)
		tbl_add(&t, "%s", head[i]);
	for (long i = 0; i < r->nsizes; i++) {
		const struct report_size_class *k = &r->sizes[i];
		tbl_add(&t, "%s", units_format_size(k->file_size, size, sizeof size));
		tbl_add(&t, "%d", k->phases);
		tbl_add(&t, "%" PRIu64, k->files);
		tbl_num(&t, 3, k->open_s * 1e3);
		tbl_num(&t, 3, k->read_s * 1e3);
		tbl_num(&t, 3, k->close_s * 1e3);
		tbl_num(&t, 1, k->meta_fraction * 100);
	}
	if (tbl_print(out, &t, f, e) != 0)
		return -1;
	for (long i = 0; i < r->nsizes; i++)
		if (isfinite(r->sizes[i].meta_fraction))
			rp_para(out, f, "%s files: %.1f%% of reader time in open+close",
				units_format_size(r->sizes[i].file_size, size, sizeof size),
				r->sizes[i].meta_fraction * 100);
	return 0;
}

/* ---- nodes and stragglers ---- */

static int nodes_table(FILE *out, const struct rp_run *r, enum report_format f,
		       struct pf_err *e)
{
	char host[RECORD_HOST_MAX], ranks[128];
	struct tbl t = {.ncols = 7, .align = "rll"};
	static const char *const head[] = {"node", "host", "ranks", "phases", "mean [MB/s]",
					   "vs median node, mean [x]", "vs median node, worst [x]"};
	rp_heading(out, f, 2, "nodes: each node's bandwidth (its readers' bytes / its first start "
		   "to its last end), against the median node of each phase");
	for (size_t i = 0; i < 7; i++)
		tbl_add(&t, "%s", head[i]);
	for (int n = 0; n < r->run->nnodes; n++) {
		const struct report_node *k = &r->nodes[n];
		tbl_add(&t, "%d", n);
		tbl_add(&t, "%s", rp_host(r->run, n, host, sizeof host));
		tbl_add(&t, "%s", rp_or_dash(rp_node_ranks(r->run, n, ranks, sizeof ranks)));
		tbl_add(&t, "%d", k->phases);
		tbl_num(&t, 1, k->mean_MBps);
		tbl_num(&t, 2, k->rel_mean);
		tbl_num(&t, 2, k->rel_worst);
	}
	return tbl_print(out, &t, f, e);
}

static void phase_label(const struct run_data *run, size_t i, char *buf, size_t len)
{
	const struct phase_info *p = &run->phases[i].info;
	snprintf(buf, len, "%04u %s x %d/node rep %d", (unsigned)p->index, p->dataset,
		 (int)p->readers_per_node, (int)p->repetition);
}

static int slow_nodes(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	char host[RECORD_HOST_MAX], ranks[128], label[192];
	struct tbl t = {.ncols = 5, .align = "ll"};
	static const char *const head[] = {"phase", "node (ranks)", "[MB/s]",
					   "median node [MB/s]", "slower than the median [x]"};
	if (r->run->nnodes < 2)
		return 0;
	if (r->nslow_nodes == 0) {
		rp_para(out, f, "slowest nodes: none (no node %.2gx slower or more than the median "
			"node of its phase)", REPORT_SLOW_NODE);
		return 0;
	}
	rp_para(out, f, "slowest nodes (%.2gx slower or more than the median node of their phase):",
		REPORT_SLOW_NODE);
	for (size_t i = 0; i < 5; i++)
		tbl_add(&t, "%s", head[i]);
	for (size_t i = 0; i < r->nslow_nodes; i++) {
		const struct report_straggler *s = &r->slow_nodes[i];
		phase_label(r->run, s->phase, label, sizeof label);
		tbl_add(&t, "%s", label);
		tbl_add(&t, "%s (ranks %s)", rp_host(r->run, s->node, host, sizeof host),
			rp_or_dash(rp_node_ranks(r->run, s->node, ranks, sizeof ranks)));
		tbl_num(&t, 1, s->value);
		tbl_num(&t, 1, s->median);
		tbl_num(&t, 2, s->slower);
	}
	return tbl_print(out, &t, f, e);
}

static int slow_files(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	char host[RECORD_HOST_MAX], label[192];
	struct tbl t = {.ncols = 6, .align = "lrl"};
	static const char *const head[] = {"phase", "file", "reader (host, rank)",
					   "open to close [ms]", "median file [ms]",
					   "slower than the median [x]"};
	if (r->nslow_files == 0) {
		rp_para(out, f, "slowest files: none (no file %.2gx slower or more than the median "
			"file of its phase)", REPORT_SLOW_FILE);
		return 0;
	}
	rp_para(out, f, "slowest files (%.2gx slower or more than the median file of their "
		"phase):", REPORT_SLOW_FILE);
	for (size_t i = 0; i < 6; i++)
		tbl_add(&t, "%s", head[i]);
	for (size_t i = 0; i < r->nslow_files; i++) {
		const struct report_straggler *s = &r->slow_files[i];
		phase_label(r->run, s->phase, label, sizeof label);
		tbl_add(&t, "%s", label);
		tbl_add(&t, "%" PRIu64, s->file);
		tbl_add(&t, "%s, rank %d", rp_host(r->run, s->node, host, sizeof host), s->rank);
		tbl_num(&t, 3, s->value * 1e3);
		tbl_num(&t, 3, s->median * 1e3);
		tbl_num(&t, 2, s->slower);
	}
	return tbl_print(out, &t, f, e);
}

/* ---- per-phase details ---- */

static void details_row(struct tbl *t, const struct phase_data *pd)
{
	const struct phase_info *p = &pd->info;
	struct phase_summary s;
	char transfer[32];
	analyze_phase(pd, &s);
	tbl_add(t, "%04u", (unsigned)p->index);
	tbl_add(t, "%s", p->dataset);
	tbl_add(t, "%d", (int)p->readers_per_node);
	tbl_add(t, "%s", p->backend);
	tbl_add(t, "%s", units_format_size_binary(p->transfer_size, transfer, sizeof transfer));
	tbl_add(t, "%s", p->order);
	tbl_add(t, "%s", p->cache);
	tbl_add(t, "%d", (int)p->repetition);
	tbl_add(t, "%" PRIu64, p->bytes);
	tbl_add(t, "%" PRIu64, s.files);
	tbl_num(t, 6, p->elapsed_s);
	tbl_num(t, 1, p->bandwidth_MBps);
	tbl_num(t, 1, s.stonewall_MBps);
	tbl_num(t, 4, s.spread_s);
	tbl_num(t, 1, s.files_per_s);
	tbl_num(t, 6, s.open_s);
	tbl_num(t, 6, s.read_s);
	tbl_num(t, 6, s.close_s);
	tbl_num(t, 1, p->resident_fraction * 100);
	if (report_phase_invalid(p) != NULL)
		tbl_add(t, "%s, INVALID: %s", p->status, report_phase_invalid(p));
	else
		tbl_add(t, "%s%s%s%s", p->status, rp_state_note(report_phase_state(p)),
			p->flags[0] ? " !" : "", p->flags);
}

static int details_table(FILE *out, const struct run_data *run, enum report_format f,
			 struct pf_err *e)
{
	static const char *const head[] = {
		"phase", "data set", "readers/node", "backend", "transfer", "order", "cache", "rep",
		"bytes [B]", "files", "elapsed [s]", "bandwidth [MB/s]", "stonewall [MB/s]",
		"finish spread [s]", "files/s", "open [s]", "read [s]", "close [s]",
		"resident [%]", "status"};
	struct tbl t = {.ncols = sizeof head / sizeof head[0], .align = "rlrlrllrrrrrrrrrrrrl"};
	for (size_t i = 0; i < t.ncols; i++)
		tbl_add(&t, "%s", head[i]);
	for (size_t i = 0; i < run->nphases; i++)
		details_row(&t, &run->phases[i]);
	rp_heading(out, f, 2, "phases (times summed over ranks)");
	if (tbl_print(out, &t, f, e) != 0)
		return -1;
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		char v[96] = "";
		if (report_phase_invalid(p) == NULL)
			continue;
		if (isfinite(p->elapsed_s) && isfinite(p->bandwidth_MBps))
			snprintf(v, sizeof v, ": elapsed %g s, bandwidth %g MB/s", p->elapsed_s,
				 p->bandwidth_MBps);
		rp_para(out, f, "phase %04u is INVALID (%s%s): left out of every statistic",
			(unsigned)p->index, report_phase_invalid(p), v);
	}
	return 0;
}

int rp_text_run(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	if (f == REPORT_TEXT && r != NULL && r->run != NULL)
		fputc('\n', out);
	rp_text_header(out, r->run, f);
	if (rp_text_summary(out, r, f, e) != 0)
		return -1;
	twins(out, r, f);
	if (cells_table(out, r, f, e) != 0 ||
	    ceilings(out, r, f, e) != 0 || size_classes(out, r, f, e) != 0 ||
	    nodes_table(out, r, f, e) != 0 || slow_nodes(out, r, f, e) != 0 ||
	    slow_files(out, r, f, e) != 0 || details_table(out, r->run, f, e) != 0)
		return -1;
	return 0;
}

/* ---- comparisons ---- */

/* "data set 256MB (256 MB files), readers/node 4" for the matched keys of c that vary. */
static void cell_name(const struct report_cell *c, unsigned keys, char *buf, size_t len)
{
	char v[192];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < RK_NKEYS && used < len; k++)
		if (keys >> k & 1u)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
						 report_key_name((enum report_key)k),
						 report_key_value(c, (enum report_key)k, v, sizeof v));
}

static const char *noise_verdict(const struct report_pair *p, const struct report_cell *a,
				 const struct report_cell *b)
{
	if (p->overlap < 0)
		return a->n < 2 || b->n < 2 ? "1 repetition: no noise estimate"
					    : "no noise estimate";
	if (p->overlap)
		return "within noise (95% CIs overlap)";
	return b->mean_MBps > a->mean_MBps ? "faster beyond noise (95% CIs apart)"
					   : "slower beyond noise (95% CIs apart)";
}

static void compare_value(struct tbl *t, const struct report_cell *c)
{
	if (isfinite(c->ci95_MBps))
		tbl_add(t, "%.1f +/- %.1f (n=%d)", c->mean_MBps, c->ci95_MBps, c->n);
	else
		tbl_add(t, "%.1f (n=%d)", c->mean_MBps, c->n);
}

static void compare_says(FILE *out, const struct rp_run *a, const struct rp_run *b,
			 const struct report_cmp *cmp, unsigned shown, enum report_format f)
{
	char va[192], vb[192], name[512];
	for (int k = 0; k < RK_NKEYS; k++)
		if ((cmp->differ >> k & 1u) && a->ncells > 0 && b->ncells > 0)
			rp_para(out, f, "%s differs: %s in %s, %s in %s (compared anyway)",
				report_key_name((enum report_key)k),
				report_key_value(&a->cells[0], (enum report_key)k, va, sizeof va),
				a->run->path,
				report_key_value(&b->cells[0], (enum report_key)k, vb, sizeof vb),
				b->run->path);
	for (long i = 0; i < cmp->nonly_a; i++) {
		cell_name(&a->cells[cmp->only_a[i]], shown, name, sizeof name);
		rp_para(out, f, "only in %s: %s", a->run->path, name);
	}
	for (long i = 0; i < cmp->nonly_b; i++) {
		cell_name(&b->cells[cmp->only_b[i]], shown, name, sizeof name);
		rp_para(out, f, "only in %s: %s", b->run->path, name);
	}
}

int rp_text_compare(FILE *out, const struct rp_run *a, const struct rp_run *b,
		    enum report_format f, struct pf_err *e)
{
	struct report_cmp cmp;
	char name[512];
	if (report_compare(a->cells, a->ncells, b->cells, b->ncells, &cmp) != 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	unsigned shown = 0;
	for (int k = 0; k < RK_NKEYS; k++)
		if ((cmp.matched >> k & 1u) &&
		    (k <= RK_READERS || key_varies(a->cells, a->ncells, (enum report_key)k) ||
		     key_varies(b->cells, b->ncells, (enum report_key)k)))
			shown |= 1u << k;
	rp_heading(out, f, 1, "comparison: b = %s against a = %s (ratio b/a)", b->run->path,
		   a->run->path);
	compare_says(out, a, b, &cmp, shown, f);
	struct tbl t = {.ncols = 5, .align = "l"};
	tbl_add(&t, "cell");
	tbl_add(&t, "a: %s [MB/s]", a->run->path);
	tbl_add(&t, "b: %s [MB/s]", b->run->path);
	tbl_add(&t, "b/a");
	tbl_add(&t, "difference");
	for (long i = 0; i < cmp.npairs; i++) {
		const struct report_pair *p = &cmp.pairs[i];
		const struct report_cell *ca = &a->cells[p->a], *cb = &b->cells[p->b];
		cell_name(ca, shown, name, sizeof name);
		tbl_add(&t, "%s", name);
		compare_value(&t, ca);
		compare_value(&t, cb);
		tbl_num(&t, 3, p->ratio);
		tbl_add(&t, "%s", noise_verdict(p, ca, cb));
	}
	if (cmp.npairs == 0)
		rp_para(out, f, "no cell measured the same thing in both runs");
	report_cmp_free(&cmp);
	return tbl_print(out, &t, f, e);
}

/* ---- calibration ---- */

int rp_text_calib(FILE *out, const struct calib_data *c, enum report_format f, struct pf_err *e)
{
	char size[3][32];
	struct tbl t = {.ncols = 5, .align = "rl"};
	rp_heading(out, f, 1, "calibration: %s", rp_or_dash(c->path));
	rp_para(out, f, "measured %s (config %s): disk: %s of %s (%s); memory copy of %s; MPI "
		"point-to-point messages of %s between node leaders",
		rp_or_dash(c->start_time), rp_or_dash(c->config_path),
		units_format_size_binary(c->disk_bytes, size[0], sizeof size[0]),
		rp_or_dash(c->disk_source), rp_or_dash(c->disk_method),
		units_format_size_binary(c->mem_bytes, size[1], sizeof size[1]),
		units_format_size_binary(c->msg_bytes, size[2], sizeof size[2]));
	tbl_add(&t, "node");
	tbl_add(&t, "host");
	tbl_add(&t, "disk [MB/s]");
	tbl_add(&t, "memory copy [MB/s]");
	tbl_add(&t, "link [MB/s]");
	for (int n = 0; n < c->nnodes; n++) {
		tbl_add(&t, "%d", n);
		tbl_add(&t, "%s", c->nodes[n].host);
		tbl_num(&t, 1, c->nodes[n].disk_MBps);
		tbl_num(&t, 1, c->nodes[n].memcpy_MBps);
		tbl_num(&t, 1, c->nodes[n].link_MBps);
	}
	tbl_add(&t, "mean");
	tbl_add(&t, "-");
	tbl_num(&t, 1, c->disk_MBps);
	tbl_num(&t, 1, c->memcpy_MBps);
	tbl_num(&t, 1, c->link_MBps);
	return tbl_print(out, &t, f, e);
}
