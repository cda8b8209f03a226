/* csv_records: the per-file and per-rank records of every phase as CSV (report --format csv
 * --per-file / --per-rank), for pandas or R users without h5py: one row per record, the phase's
 * sweep point and the host repeated on each, times in seconds since the phase's opening
 * barrier as in the results file. A phase's rows the report did not keep (more than
 * REPORT_KEEP_ROWS) are read again from the results file and written chunk by chunk. */
#include <inttypes.h>
#include <math.h>

#include "report/internal.h"

static void rec_num(FILE *out, double v)
{
	fputc(',', out);
	if (isfinite(v))
		fprintf(out, "%.9g", v);
}

/* The phase's columns: results file, phase, data set, readers per node, backend, repetition. */
static void rec_phase(FILE *out, const struct run_data *run, const struct phase_info *p)
{
	rp_csv_field(out, rp_or_dash(run->path));
	fprintf(out, ",%u,", (unsigned)p->index);
	rp_csv_field(out, p->sweep.dataset);
	fprintf(out, ",%d,", (int)p->sweep.readers_per_node);
	rp_csv_field(out, p->sweep.backend);
	fprintf(out, ",%d", (int)p->repetition);
}

/* ",node,host" of rank r ("" when the run did not record its topology). */
static void rec_where(FILE *out, const struct run_data *run, int node)
{
	char host[RECORD_HOST_MAX + 16];
	if (node < 0 || node >= run->nnodes) {
		fputs(",,", out);
		return;
	}
	fprintf(out, ",%d,", node);
	rp_csv_field(out, rp_host(run, node, host, sizeof host));
}

static int rec_node_of(const struct run_data *run, int32_t rank)
{
	return run->node_of_rank && rank >= 0 && rank < run->nranks ? run->node_of_rank[rank] : -1;
}

/* One file row of phase pd of run. */
static void rec_file(FILE *out, const struct run_data *run, const struct phase_data *pd,
		     const struct file_rec *r)
{
	rec_phase(out, run, &pd->info);
	fprintf(out, ",%" PRIu64 ",%d", r->file, (int)r->rank);
	rec_where(out, run, rec_node_of(run, r->rank));
	rec_num(out, r->open_start);
	rec_num(out, r->open_end);
	rec_num(out, r->read_end);
	rec_num(out, r->close_end);
	fprintf(out, ",%" PRIu64 ",%d,", r->bytes, (int)r->error);
	const struct target_table *tg = &pd->targets;
	rp_csv_field(out, r->target < tg->n ? tg->name[r->target] : RECORD_TARGET_NONE);
	fputc('\n', out);
}

/* Where the streamed rows go: the output, and the run being read (its topology, read before
 * the phases, names each row's node and host). */
struct rec_stream {
	FILE *out;
	const struct run_data *run;
};

/* The take function of results_read_rows: each chunk of rows written as it comes. */
static int rec_take(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		    struct pf_err *e)
{
	const struct rec_stream *s = ctx;
	(void)e;
	for (size_t i = 0; i < n; i++)
		rec_file(s->out, s->run, pd, &rows[i]);
	return 0;
}

/* 1 when every phase of run kept its file rows in memory (none streamed by and let go). */
static int rec_all_kept(const struct run_data *run)
{
	for (size_t p = 0; p < run->nphases; p++)
		if (run->phases[p].files == NULL && run->phases[p].nfiles > 0)
			return 0;
	return 1;
}

/* The rows of a run whose large phases streamed by when it was read: its file read again, every
 * phase's rows streamed straight to out in chunks, so memory stays bounded by a chunk. */
static int rec_stream_run(FILE *out, const struct run_data *run, struct pf_err *e)
{
	struct run_data again;
	struct rec_stream s = {out, &again};
	const struct results_rows rows = {rec_take, &s, 0};
	int rc = results_read_rows(run->path, &again, &rows, e);
	if (rc == 0)
		results_free(&again);
	return rc;
}

int rp_csv_files(FILE *out, const struct rp_run *runs, size_t nruns, struct pf_err *e)
{
	fputs("results,phase,dataset,readers_per_node,backend,repetition,file,rank,node,host,"
	      "open_start_s,open_end_s,read_end_s,close_end_s,bytes,error,target\n", out);
	for (size_t i = 0; i < nruns; i++) {
		const struct run_data *run = runs[i].run;
		if (!rec_all_kept(run)) {
			if (rec_stream_run(out, run, e) != 0)
				return -1;
			continue;
		}
		for (size_t p = 0; p < run->nphases; p++)
			for (size_t f = 0; f < run->phases[p].nfiles; f++)
				rec_file(out, run, &run->phases[p], &run->phases[p].files[f]);
	}
	return 0;
}

void rp_csv_ranks(FILE *out, const struct rp_run *runs, size_t nruns)
{
	fputs("results,phase,dataset,readers_per_node,backend,repetition,rank,node,host,active,"
	      "start_s,end_s,bytes,files,open_s,read_s,close_s,resident_fraction,overlap_s\n", out);
	for (size_t i = 0; i < nruns; i++) {
		const struct run_data *run = runs[i].run;
		for (size_t p = 0; p < run->nphases; p++)
			for (size_t k = 0; k < run->phases[p].nranks; k++) {
				const struct rank_rec *r = &run->phases[p].ranks[k];
				rec_phase(out, run, &run->phases[p].info);
				fprintf(out, ",%d", (int)r->rank);
				rec_where(out, run, r->node);
				fprintf(out, ",%d", (int)r->active);
				rec_num(out, r->start);
				rec_num(out, r->end);
				fprintf(out, ",%" PRIu64 ",%" PRIu64, r->bytes, r->files);
				rec_num(out, r->open_s);
				rec_num(out, r->read_s);
				rec_num(out, r->close_s);
				rec_num(out, r->resident_fraction);
				rec_num(out, r->overlap_s); /* schema < 4: 0 */
				fputc('\n', out);
			}
	}
}
