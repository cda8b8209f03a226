/* csv_records: the per-file and per-rank records of every phase as CSV (report --per-file /
 * --per-rank), for pandas or R users without h5py: one row per record, the phase's sweep point
 * and the host repeated on each, times in seconds since the phase's opening barrier as in the
 * results file; a file row also names the file's path and its phase's read path (transfer
 * size, advice, cache), a rank that read nothing has no times. A phase's rows the report did
 * not keep (more than REPORT_KEEP_ROWS) are read again from the results file and written
 * chunk by chunk. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "run/backend.h"
#include "report/internal.h"

/* The run's config as stored in its results file, parsed again: it lays out the data sets'
 * paths. 1 when x holds it (the caller frees it), 0 when the run has none or it does not
 * parse (the paths are then left empty). */
static int rec_config(const struct run_data *run, struct experiment *x)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	struct pf_err err = {0};
	if (run->config_yaml == NULL)
		return 0;
	backend_config(blocks, BACKEND_BLOCKS_MAX); /* a stored config may hold their keys */
	return cfg_parse(rp_or_dash(run->path), run->config_yaml, strlen(run->config_yaml),
			 blocks, x, &err) == 0;
}

/* ",path" of file index file of data set name: laid out by its index (indexed and flat data
 * sets); empty for a hashed data set (its names are in its name list, on the file system) or
 * a tree (its listing), and when the config is not known. */
static void rec_path(FILE *out, const struct experiment *x, const char *name, uint64_t file)
{
	char path[4096];
	fputc(',', out);
	for (size_t i = 0; x != NULL && i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		if (strcmp(d->name, name) != 0)
			continue;
		if ((d->layout.kind == CFG_LAYOUT_INDEXED || d->layout.kind == CFG_LAYOUT_FLAT) &&
		    dataset_file_path(x, d, file, path, sizeof path) == 0)
			rp_csv_field(out, path);
		return;
	}
}

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

/* One file row of phase pd of run (x: its config, or NULL). */
static void rec_file(FILE *out, const struct run_data *run, const struct experiment *x,
		     const struct phase_data *pd, const struct file_rec *r)
{
	const struct sweep_point *sp = &pd->info.sweep;
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
	rec_path(out, x, sp->dataset, r->file);
	fprintf(out, ",%" PRIu64 ",", sp->transfer_size);
	rp_csv_field(out, sp->advice);
	fputc(',', out);
	rp_csv_field(out, sp->cache);
	fprintf(out, ",%s\n", cache_state_name(report_phase_state(&pd->info)));
}

/* Where the streamed rows go: the output, and the run being read (its topology, read before
 * the phases, names each row's node and host). */
struct rec_stream {
	FILE *out;
	const struct run_data *run;
	const struct experiment *x;
};

/* The take function of results_read_rows: each chunk of rows written as it comes. */
static int rec_take(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		    struct pf_err *e)
{
	const struct rec_stream *s = ctx;
	(void)e;
	for (size_t i = 0; i < n; i++)
		rec_file(s->out, s->run, s->x, pd, &rows[i]);
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
static int rec_stream_run(FILE *out, const struct run_data *run, const struct experiment *x,
			  struct pf_err *e)
{
	struct run_data again;
	struct rec_stream s = {out, &again, x};
	const struct results_rows rows = {rec_take, &s, 0};
	int rc = results_read_rows(run->path, &again, &rows, e);
	if (rc == 0)
		results_free(&again);
	return rc;
}

int rp_csv_files(FILE *out, const struct rp_run *runs, size_t nruns, struct pf_err *e)
{
	fputs("results,phase,dataset,readers_per_node,backend,repetition,file,rank,node,host,"
	      "open_start_s,open_end_s,read_end_s,close_end_s,bytes,error,target,path,"
	      "transfer_size_B,advice,cache,cache_state\n", out);
	for (size_t i = 0; i < nruns; i++) {
		const struct run_data *run = runs[i].run;
		struct experiment x;
		const struct experiment *xp = rec_config(run, &x) ? &x : NULL;
		int kept = rec_all_kept(run), rc = 0;
		if (!kept)
			rc = rec_stream_run(out, run, xp, e);
		for (size_t p = 0; kept && p < run->nphases; p++)
			for (size_t f = 0; f < run->phases[p].nfiles; f++)
				rec_file(out, run, xp, &run->phases[p], &run->phases[p].files[f]);
		if (xp != NULL)
			cfg_free(&x);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* A rank's figures; a rank that read nothing in the phase (active 0: more ranks than files,
 * or a node's spare ranks) has no times or fractions, so that no one averages its zeros in. */
static void rec_rank_figures(FILE *out, const struct rank_rec *r)
{
	const double t[] = {r->start, r->end}, f[] = {r->open_s, r->read_s, r->close_s,
						      r->resident_fraction, r->overlap_s};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		rec_num(out, r->active ? t[i] : NAN);
	fprintf(out, ",%" PRIu64 ",%" PRIu64, r->bytes, r->files);
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		rec_num(out, r->active ? f[i] : NAN); /* overlap_s: 0 in schema < 4 */
	fputc('\n', out);
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
				rec_rank_figures(out, r);
			}
	}
}
