/* text_targets: the report's storage target section for text, markdown and html: a table per
 * target beside the per-node one, the node x target table of file times, and the verdict on
 * who is slow (report_attrib, attrib.c). */
#include <stdio.h>
#include <string.h>

#include "report/internal.h"

#define RP_TWO_WAY_TARGETS 12 /* the node x target table is shown up to this many targets */

static int rp_targets_table(FILE *out, const struct rp_run *r, enum report_format f,
			    struct pf_err *e)
{
	const struct report_attrib *a = &r->attrib;
	char host[RECORD_HOST_MAX];
	struct tbl t = {.ncols = 7, .align = "l"};
	static const char *const head[] = {"target", "files", "bytes [MB]", "per file [MB/s]",
					   "vs phase median [x]", "slow from every node",
					   "slowest files (x phase median, host)"};
	for (size_t i = 0; i < 7; i++)
		rp_head(&t, r->units, head[i]);
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct report_target *k = &a->targets[i];
		char slow[256] = "";
		size_t used = 0;
		tbl_add(&t, "%s", k->name);
		tbl_add(&t, "%llu", (unsigned long long)k->files);
		tbl_num(&t, 1, (double)k->bytes / 1e6);
		tbl_num(&t, 1, rp_rate(r, k->MBps));
		tbl_num(&t, 2, k->rel);
		if (!k->known || k->ratio != k->ratio)
			tbl_add(&t, "-");
		else
			tbl_add(&t, "%s (%.2fx)", k->slow_all ? "yes" : "no", k->ratio);
		for (size_t s = 0; s < k->nslow && used + 1 < sizeof slow; s++) {
			int w = snprintf(slow + used, sizeof slow - used, "%sfile %llu (%.1fx, %s)",
					 s ? ", " : "", (unsigned long long)k->slow[s].file,
					 k->slow[s].slower,
					 rp_host(r->run, k->slow[s].node, host, sizeof host));
			used += w > 0 ? (size_t)w : 0;
		}
		tbl_add(&t, "%s", slow[0] ? slow : "-");
	}
	return tbl_print(out, &t, f, e);
}

static int rp_two_way(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	const struct report_attrib *a = &r->attrib;
	char host[RECORD_HOST_MAX];
	struct tbl t = {.ncols = a->ntargets + 1, .align = "l"};
	if (a->known == 0 || a->ntargets > RP_TWO_WAY_TARGETS || a->nnodes < 1)
		return 0;
	rp_para(out, f, "node x target: mean file time over its phase's median file time [x]");
	tbl_add(&t, "node");
	for (size_t k = 0; k < a->ntargets; k++)
		tbl_add(&t, "%s", a->targets[k].name);
	for (int n = 0; n < a->nnodes; n++) {
		tbl_add(&t, "%s%s", rp_host(r->run, n, host, sizeof host),
			a->node_slow[n] ? " (slow)" : "");
		for (size_t k = 0; k < a->ntargets; k++)
			tbl_num(&t, 2, a->cell[(size_t)n * a->ntargets + k]);
	}
	return tbl_print(out, &t, f, e);
}

int rp_text_targets(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e)
{
	const struct report_attrib *a = &r->attrib;
	if (a->ntargets == 0)
		return 0; /* a file before schema 5: nothing recorded, nothing to say */
	rp_heading(out, f, 2, "storage targets: the files each target holds (the file rows' target), "
		   "each file's open-to-close time against its phase's median file");
	if (rp_targets_table(out, r, f, e) != 0 || rp_two_way(out, r, f, e) != 0)
		return -1;
	rp_para(out, f, "who is slow (a node: beyond %.2gx the other nodes' times on the same "
		"target, on every target; a target: beyond %.2gx the other targets' times from the "
		"same node, from every node): %s", REPORT_SLOW_NODE, REPORT_SLOW_TARGET, a->verdict);
	return 0;
}
