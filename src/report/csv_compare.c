/* csv_compare: the cells' CSV of one or more runs (report --format csv), each run after the
 * first carrying, on every cell that has a partner in the first run, the comparison the text
 * shows: the partner's mean and interval, b/a, the verdict, MDD and repetitions to decide. */
#include <math.h>

#include "report/internal.h"

static const char cmp_columns[] = ",compared_with,a_n,a_mean_MBps,a_ci95_MBps,ratio,difference,"
				  "mdd_percent,reps_to_decide";

static void cmp_num(FILE *out, double v, int decimals)
{
	fputc(',', out);
	if (isfinite(v))
		fprintf(out, "%.*f", decimals, v);
}

/* The comparison columns of cell cb of run b: empty when p is NULL (the first run, or a cell
 * with no partner). */
static void cmp_cols(FILE *out, const struct rp_run *a, const struct report_pair *p,
		     const struct report_cell *cb)
{
	if (p == NULL) {
		fputs(",,,,,,,,", out);
		return;
	}
	const struct report_cell *ca = &a->cells[p->a];
	fputc(',', out);
	rp_csv_field(out, rp_or_dash(a->run->path));
	fprintf(out, ",%d", ca->n);
	cmp_num(out, rp_rate(a, ca->mean_MBps), 3);
	cmp_num(out, rp_rate(a, ca->ci95_MBps), 3);
	cmp_num(out, p->ratio, 6);
	fputc(',', out);
	rp_csv_field(out, rp_noise_verdict(p, ca, cb));
	cmp_num(out, ca->mean_MBps > 0 ? 100 * p->mdd_MBps / ca->mean_MBps : NAN, 1);
	if (p->reps > 0)
		fprintf(out, ",%zu", p->reps);
	else
		fputc(',', out);
}

/* Run b's rows; cmp matches its cells with a's (NULL for the first run). */
static void cmp_run(FILE *out, const struct rp_run *a, const struct rp_run *b,
		    const struct report_cmp *cmp)
{
	for (long i = 0; i < b->ncells; i++) {
		const struct report_pair *p = NULL;
		for (long k = 0; cmp != NULL && k < cmp->npairs; k++)
			if (cmp->pairs[k].b == i)
				p = &cmp->pairs[k];
		rp_csv_cell(out, rp_or_dash(b->run->path), &b->cells[i], b->units);
		cmp_cols(out, a, p, &b->cells[i]);
		fputc('\n', out);
	}
}

int rp_csv_cells(FILE *out, const struct rp_run *runs, size_t nruns, struct pf_err *e)
{
	rp_csv_header(out, nruns > 0 ? runs[0].units : UNITS_RATE_DECIMAL, cmp_columns);
	for (size_t i = 0; i < nruns; i++) {
		struct report_cmp cmp;
		if (i == 0) {
			cmp_run(out, NULL, &runs[0], NULL);
			continue;
		}
		if (report_compare(runs[0].cells, runs[0].ncells, runs[i].cells, runs[i].ncells,
				   &cmp) != 0)
			return pf_fail(e, PF_RUNTIME, "report: out of memory");
		cmp_run(out, &runs[0], &runs[i], &cmp);
		report_cmp_free(&cmp);
	}
	return 0;
}
