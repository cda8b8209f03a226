/* text_compare: two runs compared cell by cell (ratios, and whether each difference is beyond
 * the noise of its repetitions), and a calibration's figures. Text, markdown or HTML. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "util/units.h"

/* "256MB, readers/node 4, cold": the matched keys of c that vary, short (the data set by its
 * name, no explanation in parentheses). */
void rp_cell_name(const struct report_cell *c, unsigned keys, char *buf, size_t len)
{
	char v[192];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < REPORT_NKEYS && used < len; k++) {
		if (!(keys >> k & 1u))
			continue;
		report_key_value(c, k, v, sizeof v);
		char *paren = strstr(v, " (");
		if (paren)
			*paren = '\0';
		if (k == SWEEP_DATASET)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", v);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
						 report_key_name(k), v);
	}
}

const char *rp_noise_verdict(const struct report_pair *p, const struct report_cell *a,
			     const struct report_cell *b)
{
	if (p->overlap < 0)
		return a->n < 2 || b->n < 2 ? "1 repetition: no noise estimate"
					    : "no noise estimate";
	if (p->overlap)
		return "within noise";
	return b->mean_MBps > a->mean_MBps ? "faster" : "slower";
}

static void compare_value(struct tbl *t, const struct rp_run *r, const struct report_cell *c)
{
	if (isfinite(c->ci95_MBps))
		tbl_add(t, "%.0f +/- %.0f", rp_rate(r, c->mean_MBps), rp_rate(r, c->ci95_MBps));
	else
		tbl_add(t, "%.0f", rp_rate(r, c->mean_MBps));
}

static void compare_says(FILE *out, const struct rp_run *a, const struct rp_run *b,
			 const struct report_cmp *cmp, unsigned shown, enum report_format f)
{
	char va[192], vb[192], name[512];
	for (int k = 0; k < REPORT_NKEYS; k++)
		if ((cmp->differ >> k & 1u) && a->ncells > 0 && b->ncells > 0)
			rp_para(out, f, "%s differs: %s in %s, %s in %s (compared anyway)",
				report_key_name(k),
				report_key_value(&a->cells[0], k, va, sizeof va),
				a->run->path,
				report_key_value(&b->cells[0], k, vb, sizeof vb),
				b->run->path);
	for (long i = 0; i < cmp->nonly_a; i++) {
		rp_cell_name(&a->cells[cmp->only_a[i]], shown, name, sizeof name);
		rp_para(out, f, "only in %s: data set %s", a->run->path, name);
	}
	for (long i = 0; i < cmp->nonly_b; i++) {
		rp_cell_name(&b->cells[cmp->only_b[i]], shown, name, sizeof name);
		rp_para(out, f, "only in %s: data set %s", b->run->path, name);
	}
}

/* Where a cell's bytes came from, for a sentence: "storage", "the page cache" or "mixed: N%
 * from cache". */
static const char *compare_source(const struct report_cell *c)
{
	if (strcmp(c->from, "storage") == 0)
		return "storage";
	return strcmp(c->from, "cache") == 0 ? "the page cache" : c->from;
}

/* A pair whose bytes came from different places (by the kernel's counters) compares the
 * cache with storage, not two file systems: say so. */
static void compare_sources(FILE *out, const struct report_cell *ca, const struct report_cell *cb,
			    unsigned shown, enum report_format f)
{
	char name[512];
	int sa = strcmp(ca->from, "storage") == 0, sb = strcmp(cb->from, "storage") == 0;
	if (sa == sb || strcmp(ca->from, "unknown") == 0 || strcmp(cb->from, "unknown") == 0)
		return;
	rp_cell_name(ca, shown, name, sizeof name);
	rp_para(out, f, "%s: a's bytes came from %s, b's from %s: the ratio compares %s with %s, "
		"not two file systems", name, compare_source(ca), compare_source(cb),
		sa ? "storage" : "the page cache", sb ? "storage" : "the page cache");
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The median of the finite v[0..n) (sorted in place), NaN when none. */
static double median_of(double *v, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[m++] = v[i];
	if (m == 0)
		return NAN;
	qsort(v, m, sizeof *v, dbl_cmp);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* The answer, before any table: how many cells differ beyond the noise, the median ratio, the
 * smallest difference these repetitions can tell, and how many would tell what was seen. */
static int compare_answer(FILE *out, const struct rp_run *a, const struct rp_run *b,
			  const struct report_cmp *cmp, enum report_format f, struct pf_err *e)
{
	long faster = 0, slower = 0, noise = 0, unknown = 0;
	size_t np = cmp->npairs > 0 ? (size_t)cmp->npairs : 1, most_reps = 0;
	long undecidable = 0;
	double *ratio = calloc(np, sizeof *ratio), *mdd = calloc(np, sizeof *mdd);
	if (ratio == NULL || mdd == NULL) {
		free(ratio);
		free(mdd);
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	}
	for (long i = 0; i < cmp->npairs; i++) {
		const struct report_pair *p = &cmp->pairs[i];
		const struct report_cell *ca = &a->cells[p->a], *cb = &b->cells[p->b];
		ratio[i] = p->ratio;
		mdd[i] = ca->mean_MBps > 0 ? 100 * p->mdd_MBps / ca->mean_MBps : NAN;
		if (p->overlap < 0) {
			unknown++;
		} else if (!p->overlap && cb->mean_MBps > ca->mean_MBps) {
			faster++;
		} else if (!p->overlap) {
			slower++;
		} else {
			noise++;
			if (p->reps == 0)
				undecidable++;
			else if (p->reps > most_reps)
				most_reps = p->reps;
		}
	}
	double r = median_of(ratio, (size_t)cmp->npairs), d = median_of(mdd, (size_t)cmp->npairs);
	char unk[64] = "";
	if (unknown)
		snprintf(unk, sizeof unk, ", %ld without a noise estimate", unknown);
	rp_para(out, f, "answer: b/a %.3f (median over %ld cell%s): %ld faster beyond noise, %ld "
		"slower beyond noise, %ld within noise%s.", r, cmp->npairs,
		cmp->npairs == 1 ? "" : "s", faster, slower, noise, unk);
	if (isfinite(d))
		rp_para(out, f, "noise: with these repetitions a difference must exceed about %.0f%% "
			"of a to show (the median minimum detectable difference).", d);
	if (noise > undecidable)
		rp_para(out, f, "%zu repetition%s per run would decide %ld of the %ld cell%s within "
			"noise%s.", most_reps, units_s(most_reps), noise - undecidable, noise, noise == 1 ? "" : "s",
			undecidable ? "; the others would need more than 100: the same, to this noise"
				    : "");
	else if (noise > 0)
		rp_para(out, f, "more than 100 repetitions per run would be needed to tell the cells "
			"within noise apart: the same, to this noise.");
	free(ratio);
	free(mdd);
	return 0;
}

int rp_text_compare(FILE *out, const struct rp_run *a, const struct rp_run *b,
		    enum report_format f, struct pf_err *e)
{
	struct report_cmp cmp;
	char name[512];
	if (report_compare(a->cells, a->ncells, b->cells, b->ncells, &cmp) != 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	unsigned shown = 0;
	for (int k = 0; k < REPORT_NKEYS; k++)
		if ((cmp.matched >> k & 1u) &&
		    (report_key_axis(k) || report_key_varies(a->cells, a->ncells, k) ||
		     report_key_varies(b->cells, b->ncells, k)))
			shown |= 1u << k;
	rp_heading(out, f, 1, "comparison: b against a (ratio b/a)");
	rp_para(out, f, "a = %s", a->run->path);
	rp_para(out, f, "b = %s", b->run->path);
	if (compare_answer(out, a, b, &cmp, f, e) != 0) {
		report_cmp_free(&cmp);
		return -1;
	}
	compare_says(out, a, b, &cmp, shown, f);
	struct tbl t = {.ncols = 7, .align = "l"};
	tbl_add(&t, "data set, ...");
	tbl_add(&t, "a [%s]", rp_ru(a));
	tbl_add(&t, "b [%s]", rp_ru(b));
	tbl_add(&t, "b/a");
	tbl_add(&t, "difference");
	tbl_add(&t, "MDD");
	tbl_add(&t, "reps");
	for (long i = 0; i < cmp.npairs; i++) {
		const struct report_pair *p = &cmp.pairs[i];
		const struct report_cell *ca = &a->cells[p->a], *cb = &b->cells[p->b];
		rp_cell_name(ca, shown, name, sizeof name);
		tbl_add(&t, "%s", name);
		compare_value(&t, a, ca);
		compare_value(&t, b, cb);
		tbl_num(&t, 3, p->ratio);
		tbl_add(&t, "%s", rp_noise_verdict(p, ca, cb));
		if (isfinite(p->mdd_MBps) && ca->mean_MBps > 0)
			tbl_add(&t, "%.0f%%", 100 * p->mdd_MBps / ca->mean_MBps);
		else
			tbl_add(&t, "-");
		if (p->overlap == 1)
			tbl_add(&t, p->reps ? "%zu" : ">100", p->reps);
		else
			tbl_add(&t, "-");
	}
	if (cmp.npairs == 0)
		rp_para(out, f, "no cell measured the same thing in both runs");
	int rc = tbl_print(out, &t, f, e);
	if (rc == 0)
		rp_para(out, f, "%s: mean +/- half the 95%% confidence interval over the repetitions "
			"(a: %d, b: %d per cell); difference: faster or slower when the intervals are "
			"apart; MDD: the smallest difference, in %% of a, these repetitions can tell; "
			"reps: repetitions per run that would tell the difference seen.",
			rp_ru(a), a->ncells ? a->cells[0].n : 0, b->ncells ? b->cells[0].n : 0);
	for (long i = 0; rc == 0 && i < cmp.npairs; i++)
		compare_sources(out, &a->cells[cmp.pairs[i].a], &b->cells[cmp.pairs[i].b], shown, f);
	report_cmp_free(&cmp);
	return rc;
}

/* "540-590" for a node's repetitions, "-" for one or none. */
static void calib_range(struct tbl *t, const struct calib_spread *s, enum units_rate u)
{
	if (s->n >= 2)
		tbl_add(t, "%.1f-%.1f", units_rate(s->min, u), units_rate(s->max, u));
	else
		tbl_add(t, "-");
}

/* The read through the file system: every step, where the rate stopped rising, the figure
 * with its spread (and each node's when there are several), a warning when it is not stable. */
static void calib_fs(FILE *out, const struct calib_data *c, enum units_rate u,
		     enum report_format f)
{
	char steps[CALIB_FS_STEPS * 48] = "", size[32], spread[160];
	size_t used = 0;
	if (c->fs_dataset == NULL || c->fs_nsteps < 1)
		return;
	for (int i = 0; i < c->fs_nsteps && used < sizeof steps; i++)
		used += (size_t)snprintf(steps + used, sizeof steps - used, "%s%d reader%s/node %.1f",
					 i ? ", " : "", (int)c->fs_step[i].readers,
					 c->fs_step[i].readers == 1 ? "" : "s",
					 units_rate(c->fs_step[i].MBps, u));
	int last = (int)c->fs_step[c->fs_nsteps - 1].readers;
	rp_para(out, f, "read through the file system (data set %s, %s per reader and repetition, "
		"the figure per node) [%s]: %s: %s %d reader%s/node; the per-node read ceiling: "
		"%s at %d reader%s/node", c->fs_dataset,
		units_format_size_binary(c->fs_bytes, size, sizeof size), units_rate_name(u), steps,
		c->fs_flat ? "the rate stopped rising (a rise under 10% is none) at"
			   : "the last step (the most ranks a node has):", last, last == 1 ? "" : "s",
		calib_spread_text(&c->fs_spread, u, spread, sizeof spread), c->fs_readers,
		c->fs_readers == 1 ? "" : "s");
	for (int n = 0; c->nnodes > 1 && n < c->nnodes; n++)
		rp_para(out, f, "read through the file system, node %d (%s): %s", n, c->nodes[n].host,
			calib_spread_text(&c->nodes[n].fs_spread, u, spread, sizeof spread));
	if (!c->fs_flat && c->fs_nsteps == 1)
		rp_para(out, f, "warning: the read through the file system was tried with 1 "
			"reader/node only (one rank per node): the figure is a floor; give more "
			"ranks per node");
	else if (!c->fs_flat)
		rp_para(out, f, "warning: the read through the file system still rose at %d "
			"reader%s/node: the figure is a floor; give more ranks per node", last,
			last == 1 ? "" : "s");
	if (calib_spread_wide(&c->fs_spread))
		rp_para(out, f, "warning: the read through the file system is not stable: %s, "
			"above %.2f: the machine or the file system is busy: calibrate again when "
			"it is quiet, or with more --repetitions",
			calib_spread_text(&c->fs_spread, u, spread, sizeof spread), CALIB_WIDE);
}

int rp_text_calib(FILE *out, const struct calib_data *c, enum units_rate u, enum report_format f,
		  struct pf_err *e)
{
	char size[3][32], line[640];
	const uint64_t bytes[CALIB_NFIG] = {c->disk_bytes, c->mem_bytes, c->msg_bytes};
	static const char *const head[] = {"node", "host", "disk [MB/s]", "disk min-max",
					   "memory copy [MB/s]", "copy min-max",
					   "link [MB/s]", "link min-max"};
	struct tbl t = {.ncols = 8, .align = "rl"};
	rp_heading(out, f, 1, "calibration: %s", rp_or_dash(c->path));
	rp_para(out, f, "measured %s (config %s): disk: %s of %s (%s); memory copy of %s; MPI "
		"point-to-point messages of %s between node leaders; each %d time%s per node: "
		"the figures are medians, min-max the range of the repetitions",
		rp_or_dash(c->start_time), rp_or_dash(c->config_path),
		units_format_size_binary(c->disk_bytes, size[0], sizeof size[0]),
		rp_or_dash(c->disk_source), rp_or_dash(c->disk_method),
		units_format_size_binary(c->mem_bytes, size[1], sizeof size[1]),
		units_format_size_binary(c->msg_bytes, size[2], sizeof size[2]), c->reps,
		c->reps == 1 ? " (a file of version 1: no spread)" : "s");
	for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
		rp_head(&t, u, head[i]);
	for (int n = 0; n < c->nnodes; n++) {
		const double fig[CALIB_NFIG] = {c->nodes[n].disk_MBps, c->nodes[n].memcpy_MBps,
						c->nodes[n].link_MBps};
		tbl_add(&t, "%d", n);
		tbl_add(&t, "%s", c->nodes[n].host);
		for (int k = 0; k < CALIB_NFIG; k++) {
			tbl_num(&t, 1, units_rate(fig[k], u));
			calib_range(&t, &c->nodes[n].spread[k], u);
		}
	}
	const double mean[CALIB_NFIG] = {c->disk_MBps, c->memcpy_MBps, c->link_MBps};
	tbl_add(&t, "mean");
	tbl_add(&t, "-");
	for (int k = 0; k < CALIB_NFIG; k++) {
		tbl_num(&t, 1, units_rate(mean[k], u));
		calib_range(&t, &c->spread[k], u);
	}
	int rc = tbl_print(out, &t, f, e);
	for (int k = 0; rc == 0 && k < CALIB_NFIG; k++) {
		if (!calib_warning((enum calib_figure)k, &c->spread[k], bytes[k], c->llc_bytes, u, line,
				   sizeof line))
			continue;
		if (f == REPORT_TEXT || f == REPORT_TEXT_WIDE)
			fprintf(out, "%s\n", line); /* one line, for grep; it names no file */
		else
			rp_para(out, f, "%s", line);
	}
	if (rc == 0 && c->disk_resident > CACHE_COLD_MAX)
		rp_para(out, f, "warning: the disk figure is the page cache's: up to %.0f%% of the "
			"file was in it before a read (%s: the file system refused O_DIRECT and kept "
			"the pages)", c->disk_resident * 100, rp_or_dash(c->disk_method));
	if (rc == 0 && isnan(c->disk_resident))
		rp_para(out, f, "warning: the disk figure may be the page cache's: the kernel would "
			"not say how much of the file was in it (%s; a user who neither owns the file "
			"nor may write it is told nothing)", rp_or_dash(c->disk_method));
	if (rc == 0)
		calib_fs(out, c, u, f);
	return rc;
}
