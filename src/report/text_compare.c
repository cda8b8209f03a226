/* text_compare: two runs compared cell by cell (ratios, and whether each difference is beyond
 * the noise of its repetitions), and a calibration's figures. Text, markdown or HTML. */
#include <math.h>
#include <string.h>

#include "report/internal.h"
#include "util/units.h"

/* "data set 256MB (256 MB files), readers/node 4" for the matched keys of c that vary. */
static void cell_name(const struct report_cell *c, unsigned keys, char *buf, size_t len)
{
	char v[192];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < REPORT_NKEYS && used < len; k++)
		if (keys >> k & 1u)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
						 report_key_name(k),
						 report_key_value(c, k, v, sizeof v));
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
	for (int k = 0; k < REPORT_NKEYS; k++)
		if ((cmp->differ >> k & 1u) && a->ncells > 0 && b->ncells > 0)
			rp_para(out, f, "%s differs: %s in %s, %s in %s (compared anyway)",
				report_key_name(k),
				report_key_value(&a->cells[0], k, va, sizeof va),
				a->run->path,
				report_key_value(&b->cells[0], k, vb, sizeof vb),
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

/* A pair whose bytes came from different places (by the kernel's counters) compares the
 * cache with storage, not two file systems: say so. */
static void compare_sources(FILE *out, const struct report_cell *ca, const struct report_cell *cb,
			    unsigned shown, enum report_format f)
{
	char name[512];
	int sa = strcmp(ca->from, "storage") == 0, sb = strcmp(cb->from, "storage") == 0;
	if (sa == sb || strcmp(ca->from, "unknown") == 0 || strcmp(cb->from, "unknown") == 0)
		return;
	cell_name(ca, shown, name, sizeof name);
	rp_para(out, f, "%s: a's bytes came from %s, b's from %s: the ratio compares %s with %s, "
		"not two file systems", name, sa ? "storage" : strcmp(ca->from, "cache") == 0 ? "the page cache" : ca->from,
		sb ? "storage" : strcmp(cb->from, "cache") == 0 ? "the page cache" : cb->from,
		sa ? "storage" : "the page cache", sb ? "storage" : "the page cache");
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
	int rc = tbl_print(out, &t, f, e);
	for (long i = 0; rc == 0 && i < cmp.npairs; i++)
		compare_sources(out, &a->cells[cmp.pairs[i].a], &b->cells[cmp.pairs[i].b], shown, f);
	report_cmp_free(&cmp);
	return rc;
}

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
