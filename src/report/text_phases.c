/* text_phases: the sections of a run's report that go below the cells: where reader time goes
 * per file size, each node's bandwidth, the slowest nodes and files, and every phase. Text,
 * markdown or HTML. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/analyze.h"
#include "report/internal.h"
#include "util/units.h"

const char *rp_state_note(enum cache_state s)
{
	return s == CACHE_WARM	    ? " (warm)"
	       : s == CACHE_MIXED   ? " (mixed)"
	       : s == CACHE_UNKNOWN ? " (cache unknown)"
				    : "";
}

const char *rp_state_caps(enum cache_state s)
{
	return s == CACHE_WARM	    ? "WARM"
	       : s == CACHE_MIXED   ? "MIXED"
	       : s == CACHE_UNKNOWN ? "CACHE UNKNOWN"
				    : "";
}

int rp_text_sizes(FILE *out, const struct rp_run *r, enum report_format f,
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
		rp_head(&t, r->units, head[i]);
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

int rp_text_nodes(FILE *out, const struct rp_run *r, enum report_format f,
		       struct pf_err *e)
{
	char host[RECORD_HOST_MAX], ranks[128];
	struct tbl t = {.ncols = 7, .align = "rll"};
	static const char *const head[] = {"node", "host", "ranks", "phases", "mean [MB/s]",
					   "vs median node, mean [x]", "vs median node, worst [x]"};
	rp_heading(out, f, 2, "nodes: each node's bandwidth (its readers' bytes / its first start "
		   "to its last end), against the median node of each phase");
	for (size_t i = 0; i < 7; i++)
		rp_head(&t, r->units, head[i]);
	for (int n = 0; n < r->run->nnodes; n++) {
		const struct report_node *k = &r->nodes[n];
		tbl_add(&t, "%d", n);
		tbl_add(&t, "%s", rp_host(r->run, n, host, sizeof host));
		tbl_add(&t, "%s", rp_or_dash(rp_node_ranks(r->run, n, ranks, sizeof ranks)));
		tbl_add(&t, "%d", k->phases);
		tbl_num(&t, 1, rp_rate(r, k->mean_MBps));
		tbl_num(&t, 2, k->rel_mean);
		tbl_num(&t, 2, k->rel_worst);
	}
	return tbl_print(out, &t, f, e);
}

static void phase_label(const struct run_data *run, size_t i, char *buf, size_t len)
{
	const struct phase_info *p = &run->phases[i].info;
	snprintf(buf, len, "%04u %s x %d/node rep %d", (unsigned)p->index, p->sweep.dataset,
		 (int)p->sweep.readers_per_node, (int)p->repetition);
}

int rp_text_slow_nodes(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
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
		rp_head(&t, r->units, head[i]);
	for (size_t i = 0; i < r->nslow_nodes; i++) {
		const struct report_straggler *s = &r->slow_nodes[i];
		phase_label(r->run, s->phase, label, sizeof label);
		tbl_add(&t, "%s", label);
		tbl_add(&t, "%s (ranks %s)", rp_host(r->run, s->node, host, sizeof host),
			rp_or_dash(rp_node_ranks(r->run, s->node, ranks, sizeof ranks)));
		tbl_num(&t, 1, rp_rate(r, s->value));
		tbl_num(&t, 1, rp_rate(r, s->median));
		tbl_num(&t, 2, s->slower);
	}
	return tbl_print(out, &t, f, e);
}

/* One line: what the run cost in memory, per rank (nothing for a file before schema 3). */
int rp_text_memory(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	struct rss_summary s;
	char max[32], median[32];
	if (analyze_peak_rss(r->run, &s) != 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	if (s.ranks == 0)
		return 0;
	rp_para(out, f, "memory: peak RSS per rank: max %s (rank %d), median %s (%zu rank%s)",
		units_format_size(s.max, max, sizeof max), s.max_rank,
		units_format_size((uint64_t)llround(s.median), median, sizeof median), s.ranks,
		units_s(s.ranks));
	return 0;
}

int rp_text_slow_files(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
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

static void details_row(struct tbl *t, const struct rp_run *r, size_t i)
{
	const struct phase_data *pd = &r->run->phases[i];
	const struct phase_info *p = &pd->info;
	struct phase_summary s;
	struct phase_provenance from;
	char transfer[32];
	analyze_phase(pd, &s);
	tbl_add(t, "%04u", (unsigned)p->index);
	tbl_add(t, "%s", p->sweep.dataset);
	tbl_add(t, "%d", (int)p->sweep.readers_per_node);
	tbl_add(t, "%s", p->sweep.backend);
	tbl_add(t, "%s",
		units_format_size_binary(p->sweep.transfer_size, transfer, sizeof transfer));
	tbl_add(t, "%s", p->sweep.order);
	tbl_add(t, "%s", p->sweep.cache);
	tbl_add(t, "%d", (int)p->repetition);
	tbl_add(t, "%" PRIu64, p->bytes);
	tbl_add(t, "%" PRIu64, s.files);
	tbl_num(t, 6, p->elapsed_s);
	tbl_num(t, 3, analyze_outside_s(r->run, i));
	/* a phase that read nothing has no rate: "-", not bytes over a vanishing time */
	tbl_num(t, 1, p->bytes ? rp_rate(r, p->bandwidth_MBps) : NAN);
	tbl_num(t, 1, p->bytes ? rp_rate(r, s.stonewall_MBps) : NAN);
	tbl_num(t, 4, s.spread_s);
	tbl_num(t, 1, s.files ? s.files_per_s : NAN);
	tbl_num(t, 6, s.open_s);
	tbl_num(t, 6, s.read_s);
	tbl_num(t, 6, s.close_s);
	tbl_num(t, 1, p->resident_fraction * 100);
	analyze_provenance(pd, r->local, &from);
	if (isnan(from.fraction))
		tbl_add(t, "%s", from.verdict);
	else
		tbl_add(t, "%s (%.0f%%)", from.verdict, from.fraction * 100);
	if (report_phase_invalid(p) != NULL)
		tbl_add(t, "%s, INVALID: %s", results_phase_status_name(p->status),
			report_phase_invalid(p));
	else
		tbl_add(t, "%s%s%s%s", results_phase_status_name(p->status),
			rp_state_note(report_phase_state(p)),
			p->flags[0] ? " !" : "", p->flags);
}

int rp_text_phases(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	const struct run_data *run = r->run;
	static const char *const head[] = {
		"phase", "data set", "readers/node", "backend", "transfer", "order", "cache", "rep",
		"bytes [B]", "files", "elapsed [s]", "outside reads [s]", "bandwidth [MB/s]", "stonewall [MB/s]",
		"finish spread [s]", "files/s", "open [s]", "read [s]", "close [s]",
		"resident [%]", "from storage", "status"};
	struct tbl t = {.ncols = sizeof head / sizeof head[0], .align = "rlrlrllrrrrrrrrrrrrrll",
			.nlabel = 3};
	for (size_t i = 0; i < t.ncols; i++)
		rp_head(&t, r->units, head[i]);
	for (size_t i = 0; i < run->nphases; i++)
		details_row(&t, r, i);
	rp_heading(out, f, 2, "phases (times summed over ranks)");
	if (tbl_print(out, &t, f, e) != 0)
		return -1;
	double outside = analyze_outside_median(run);
	if (isfinite(outside))
		rp_para(out, f, "outside reads: %.3f s a phase at the median (a phase's start to the "
			"next one's, less its elapsed time: its results write, the next one's cache "
			"eviction, clock sync and barriers)", outside);
	for (size_t i = 0; i < run->nphases; i++) {
		const struct phase_info *p = &run->phases[i].info;
		char v[96] = "";
		if (report_phase_invalid(p) == NULL)
			continue;
		if (isfinite(p->elapsed_s) && isfinite(p->bandwidth_MBps))
			snprintf(v, sizeof v, ": elapsed %g s, bandwidth %g %s", p->elapsed_s,
				 rp_rate(r, p->bandwidth_MBps), rp_ru(r));
		rp_para(out, f, "phase %04u is INVALID (%s%s): left out of every statistic",
			(unsigned)p->index, report_phase_invalid(p), v);
	}
	return 0;
}
