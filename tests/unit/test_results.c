/* test_results: write a results file as one MPI process, read it back field by field, and check
 * that create refuses an existing file and that bad files fail with a message naming them. */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results.h"
#include "tap.h"

#define NFILES0 3

static char yaml[100000]; /* larger than an object header holds: the attribute must cope */

static const struct run_meta meta = {
	.pfsread_version = "0.1.0-test",
	.config_yaml = yaml,
	.config_path = "configs/t\xc3\xa9st.yaml",
	.command_line = "pfsread run configs/test.yaml -o x.h5",
	.start_time = "2024-05-01T10:00:00Z",
	.mpi_version = "Open MPI v4.1.4",
	.job_id = "12345",
	.nranks = 1,
	.nnodes = 1,
};

static struct phase_info info[2];
static struct rank_rec rec[2];
static struct file_rec files0[NFILES0];

static void build_records(void)
{
	for (size_t i = 0; i + 1 < sizeof yaml; i++)
		yaml[i] = "name: test\n"[i % 11];
	for (int k = 0; k < 2; k++) {
		struct phase_info *p = &info[k];
		memset(p, 0, sizeof *p);
		p->index = (uint32_t)k;
		snprintf(p->sweep.dataset, sizeof p->sweep.dataset, "%s", k ? "2MB" : "64MB");
		p->sweep.file_size = k ? 2000000 : 64000000;
		p->nfiles = k ? 0 : NFILES0;
		p->sweep.readers_per_node = 1 + k;
		p->active_readers = 1;
		snprintf(p->sweep.backend, sizeof p->sweep.backend, "%s", k ? "null" : "posix");
		p->sweep.transfer_size = (uint64_t)4 << 20;
		snprintf(p->sweep.order, sizeof p->sweep.order, "%s", k ? "random" : "sorted");
		snprintf(p->sweep.cache, sizeof p->sweep.cache, "%s", k ? "none" : "drop");
		p->repetition = k;
		p->seed = 0xfedcba9876543210ULL;
		p->bytes = k ? 0 : NFILES0 * p->sweep.file_size;
		p->elapsed_s = k ? 0.0 : 0.125;
		p->bandwidth_MBps = k ? 0.0 : (double)p->bytes / 0.125 / 1e6;
		p->status = k ? PHASE_FAILED : PHASE_COMPLETE;
		snprintf(p->cache_state, sizeof p->cache_state, "%s", k ? "warm" : "cold");
		snprintf(p->cache_evict, sizeof p->cache_evict, "%s", k ? "fadvise" : "");
		p->start_skew_s = k ? 2.5 : 0.001;
		p->clock_bound_s = 0.0625;
		snprintf(p->flags, sizeof p->flags, "%s", k ? "clock" : "");
		snprintf(p->provenance, sizeof p->provenance, "%s", k ? "net rx of eth0" : "read_bytes");
		snprintf(p->hints, sizeof p->hints, "%s", k ? "madvise(MADV_SEQUENTIAL)" : "");
		snprintf(p->sweep.advice, sizeof p->sweep.advice, "%s", k ? "sequential" : "none");
		memset(&rec[k], 0, sizeof rec[k]);
		rec[k] = (struct rank_rec){0, 0, 1, 0.001, 0.124 + k, p->bytes, p->nfiles,
					   0.01, 0.1, 0.003, 0.25, 0.5, 0.113, 0.0625,
					   0.002, 1.5, 0.0001, 4096u + (uint64_t)k, 8192,
					   77u + (uint64_t)k, 1, (uint64_t)(12345678 + k), 0.375,
					   0.25 + k, 0.125};
	}
	for (int i = 0; i < NFILES0; i++)
		files0[i] = (struct file_rec){(uint64_t)(NFILES0 - 1 - i),
					      0,
					      0.01 * i,
					      0.01 * i + 0.001,
					      0.01 * i + 0.005,
					      0.01 * i + 0.006,
					      64000000,
					      i == 3 ? 5 : 0,
					      (uint32_t)(i % 3)};
}

/* Phase 0's storage targets: the rows index them (entry 0: not looked up). */
static char target_names[3][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE, "n1:/dev/sda1",
						  "srv:/bricks/b0,srv2:/bricks/b1"};
static const struct target_table targets0 = {target_names, 3};

static int same_info(const struct phase_info *a, const struct phase_info *b)
{
	return a->index == b->index && strcmp(a->sweep.dataset, b->sweep.dataset) == 0 &&
	       a->sweep.file_size == b->sweep.file_size && a->nfiles == b->nfiles &&
	       a->sweep.readers_per_node == b->sweep.readers_per_node &&
	       a->active_readers == b->active_readers &&
	       strcmp(a->sweep.backend, b->sweep.backend) == 0 &&
	       a->sweep.transfer_size == b->sweep.transfer_size &&
	       strcmp(a->sweep.order, b->sweep.order) == 0 &&
	       strcmp(a->sweep.cache, b->sweep.cache) == 0 && a->repetition == b->repetition &&
	       a->seed == b->seed && a->bytes == b->bytes && a->elapsed_s == b->elapsed_s &&
	       a->bandwidth_MBps == b->bandwidth_MBps && a->status == b->status &&
	       strcmp(a->cache_state, b->cache_state) == 0 &&
	       strcmp(a->cache_evict, b->cache_evict) == 0 && a->start_skew_s == b->start_skew_s &&
	       a->clock_bound_s == b->clock_bound_s && strcmp(a->flags, b->flags) == 0 &&
	       strcmp(a->provenance, b->provenance) == 0 &&
	       strcmp(a->hints, b->hints) == 0 && strcmp(a->sweep.advice, b->sweep.advice) == 0;
}

static int same_rank(const struct rank_rec *a, const struct rank_rec *b)
{
	return a->rank == b->rank && a->node == b->node && a->active == b->active &&
	       a->start == b->start && a->end == b->end && a->bytes == b->bytes &&
	       a->files == b->files && a->open_s == b->open_s && a->read_s == b->read_s &&
	       a->close_s == b->close_s && a->barrier_s == b->barrier_s &&
	       a->clock_offset_s == b->clock_offset_s && a->clock_error_s == b->clock_error_s &&
	       a->storage_read_bytes == b->storage_read_bytes && a->rchar == b->rchar &&
	       a->net_rx_bytes == b->net_rx_bytes && a->counted == b->counted &&
	       a->peak_rss == b->peak_rss &&
	       a->overlap_s == b->overlap_s && a->cpu_user_s == b->cpu_user_s &&
	       a->cpu_sys_s == b->cpu_sys_s;
}

static int same_file(const struct file_rec *a, const struct file_rec *b)
{
	return a->file == b->file && a->rank == b->rank && a->open_start == b->open_start &&
	       a->read_end == b->read_end && a->close_end == b->close_end && a->bytes == b->bytes &&
	       a->target == b->target;
}

static int write_file(const char *path, int force, struct pf_err *e)
{
	struct results *r = NULL;
	const int node_of_rank[1] = {0};
	const char hosts[1][RECORD_HOST_MAX] = {"host-a.example"};
	const double offsets[1] = {0.25};
	if (results_create(path, force, MPI_COMM_WORLD, &meta, &r, e) < 0)
		return -1;
	if (results_write_topology(r, node_of_rank, hosts, offsets, (const uint64_t[]){1ull << 34, 1ull << 35}, e) < 0 ||
	    results_write_phase(r, &info[0], &rec[0], files0, NFILES0, &targets0, e) < 0 ||
	    results_write_phase(r, &info[1], &rec[1], NULL, 0, NULL, e) < 0) {
		results_close(r, "failed", NULL);
		return -1;
	}
	return results_close(r, "complete", e);
}

static void check_root(const struct run_data *d, const char *path)
{
	char hdf5[32];
	unsigned maj, min, rel;
	H5get_libversion(&maj, &min, &rel);
	snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
	ok(strcmp(d->path, path) == 0 && d->schema_version == RESULTS_SCHEMA_VERSION,
	   "read: path and schema version");
	ok(strcmp(d->pfsread_version, meta.pfsread_version) == 0 &&
		   strcmp(d->config_yaml, yaml) == 0 &&
		   strcmp(d->config_path, meta.config_path) == 0 &&
		   strcmp(d->command_line, meta.command_line) == 0 &&
		   strcmp(d->start_time, meta.start_time) == 0 &&
		   strcmp(d->mpi_version, meta.mpi_version) == 0 &&
		   strcmp(d->hdf5_version, hdf5) == 0 && strcmp(d->job_id, meta.job_id) == 0 &&
		   strcmp(d->status, "complete") == 0,
	   "read: root string attributes, a 100 kB config among them");
	ok(d->nranks == 1 && d->nnodes == 1, "read: nranks and nnodes");
	ok(d->node_of_rank != NULL && d->node_of_rank[0] == 0 && d->hostnames != NULL &&
		   strcmp(d->hostnames[0], "host-a.example") == 0 && d->clock_offset_s != NULL &&
		   d->clock_offset_s[0] == 0.25,
	   "read: topology");
}

static void check_phases(const struct run_data *d)
{
	ok(d->nphases == 2, "read: two phases (%zu)", d->nphases);
	if (d->nphases != 2)
		return;
	for (int k = 0; k < 2; k++) {
		const struct phase_data *pd = &d->phases[k];
		ok(same_info(&pd->info, &info[k]), "read: phase %d attributes", k);
		ok(pd->nranks == 1 && same_rank(&pd->ranks[0], &rec[k]),
		   "read: phase %d rank record", k);
	}
	int files_ok = d->phases[0].nfiles == NFILES0;
	for (int i = 0; files_ok && i < NFILES0; i++)
		files_ok = same_file(&d->phases[0].files[i], &files0[i]);
	ok(files_ok, "read: phase 0 file records, in the order written, targets among them");
	const struct target_table *t0 = &d->phases[0].targets, *t1 = &d->phases[1].targets;
	ok(t0->n == 3 && strcmp(t0->name[0], RECORD_TARGET_NONE) == 0 &&
		   strcmp(t0->name[1], "n1:/dev/sda1") == 0 &&
		   strcmp(t0->name[2], "srv:/bricks/b0,srv2:/bricks/b1") == 0,
	   "read: phase 0's targets table (%u names)", t0->n);
	ok(t1->n == 1 && strcmp(t1->name[0], RECORD_TARGET_NONE) == 0,
	   "read: a phase written without targets has the table of \"not looked up\" alone");
	ok(d->phases[1].nfiles == 0 && d->phases[1].files == NULL,
	   "read: phase 1 has no file rows");
}

static int contains(const char *msg, const char *a, const char *b)
{
	return strstr(msg, a) != NULL && (b == NULL || strstr(msg, b) != NULL);
}

/* results_read of path fails with a message naming it and saying why. */
static void check_read_fails(const char *path, const char *why, const char *desc)
{
	struct run_data d;
	struct pf_err e = {0};
	int rc = results_read(path, &d, &e);
	ok(rc == -1 && e.status == PF_RUNTIME && contains(e.msg, path, why) && d.path == NULL,
	   "read fails: %s", desc);
	diag("%s", e.msg);
}

/* A phase with rows over several strips of the transfer buffers (results_xfer_list): every
 * row comes back as written, through the writer's conversion and the reader's. */
static void test_many_rows(const char *dir)
{
	enum { N = 3 * RESULTS_XFER_BUF / sizeof(struct file_rec) + 7 };
	static struct file_rec rows[N];
	char path[512];
	struct pf_err e = {0};
	struct results *r = NULL;
	struct run_data d;
	struct phase_info pi = info[0];
	struct rank_rec rr = rec[0];
	void *bufs = NULL, *tconv = NULL, *bkg = NULL;
	hid_t list = results_xfer_list(&bufs);
	ok(list >= 0 && H5Pget_buffer(list, &tconv, &bkg) == RESULTS_XFER_BUF &&
		   tconv == bufs && bkg == (char *)bufs + RESULTS_XFER_BUF,
	   "the transfer list converts through our buffers, %zu bytes each", RESULTS_XFER_BUF);
	ok(results_h5_close(list) == 0, "and closes");
	free(bufs);
	for (int i = 0; i < N; i++)
		rows[i] = (struct file_rec){(uint64_t)(N - 1 - i), 0, 0.5 * i, 0.5 * i + 0.125,
					    0.5 * i + 0.25, 0.5 * i + 0.375, 4096u + (uint64_t)i,
					    i % 7 == 3 ? 5 : 0, (uint32_t)(i % 3)};
	pi.nfiles = N;
	pi.bytes = (uint64_t)N * 4096u;
	rr.files = N;
	rr.bytes = pi.bytes;
	snprintf(path, sizeof path, "%s/many.h5", dir);
	int wrote = results_create(path, 0, MPI_COMM_WORLD, &meta, &r, &e) == 0 &&
		    results_write_phase(r, &pi, &rr, rows, N, &targets0, &e) == 0;
	wrote = results_close(r, wrote ? "complete" : "failed", wrote ? &e : NULL) == 0 && wrote;
	ok(wrote, "write %d file rows (%zu bytes: over three strips)%s%s", N,
	   N * sizeof(struct file_rec), e.msg[0] ? ": " : "", e.msg);
	int same = wrote && results_read(path, &d, &e) == 0;
	if (same) {
		same = d.nphases == 1 && d.phases[0].nfiles == N;
		for (int i = 0; same && i < N; i++)
			same = same_file(&d.phases[0].files[i], &rows[i]);
		results_free(&d);
	}
	ok(same, "read back: every row as written%s%s", e.msg[0] ? ": " : "", e.msg);
}

static void test_create_refuses(const char *path)
{
	struct results *r = NULL;
	struct pf_err e = {0};
	struct run_data d;
	ok(results_create(path, 0, MPI_COMM_WORLD, &meta, &r, &e) == -1 && r == NULL &&
		   e.status == PF_USAGE &&
		   contains(e.msg, path, "exists (use --force to overwrite)"),
	   "create refuses an existing file: %s", e.msg);
	pf_err_clear(&e);
	ok(results_read(path, &d, &e) == 0 && d.nphases == 2, "the refused file is intact");
	results_free(&d);
	ok(results_create(path, 1, MPI_COMM_WORLD, &meta, &r, &e) == 0 &&
		   results_close(r, "interrupted", &e) == 0,
	   "create with force overwrites it");
	ok(results_read(path, &d, &e) == 0 && d.nphases == 0 &&
		   strcmp(d.status, "interrupted") == 0 && d.node_of_rank == NULL,
	   "the overwritten file reads back empty, status interrupted, no topology yet");
	results_free(&d);
	ok(results_close(NULL, "complete", &e) == 0, "results_close(NULL) is a no-op");
}

/* Replace string attribute name of loc with a fixed-length one holding value. */
static int set_fixed_str(hid_t loc, const char *name, const char *value)
{
	hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), a = -1;
	int rc = -1;
	if (t >= 0 && s >= 0 && H5Tset_size(t, strlen(value)) >= 0 && H5Adelete(loc, name) >= 0 &&
	    (a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
	    H5Awrite(a, t, value) >= 0)
		rc = 0;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	if (t >= 0)
		H5Tclose(t);
	return rc;
}

static void test_fixed_strings(const char *path)
{
	struct run_data d;
	struct pf_err e = {0};
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g = -1;
	int rc = f >= 0 && (g = H5Gopen2(f, "/phases/0000", H5P_DEFAULT)) >= 0 &&
			 set_fixed_str(f, "job_id", "JOB42") == 0 &&
			 set_fixed_str(g, "backend", "posix") == 0
		 ? 0
		 : -1;
	if (g >= 0)
		H5Gclose(g);
	if (f >= 0)
		H5Fclose(f);
	ok(rc == 0 && results_read(path, &d, &e) == 0 && strcmp(d.job_id, "JOB42") == 0 &&
		   d.nphases == 2 && strcmp(d.phases[0].info.sweep.backend, "posix") == 0,
	   "fixed-length string attributes read as well as variable-length ones");
	results_free(&d);
}

/* Every status's word reads back as that status; a word no pfsread writes is the UNKNOWN
 * state, never a status it is not. */
static void test_status_words(void)
{
	int round = 1;
	for (int s = PHASE_COMPLETE; s <= PHASE_UNKNOWN; s++)
		round &= (int)results_phase_status_parse(results_phase_status_name(s)) == s;
	ok(round, "each phase status's word parses back to it");
	round = 1;
	for (int s = RUN_RUNNING; s <= RUN_UNKNOWN; s++)
		round &= (int)results_run_status_parse(results_run_status_name((enum run_status)s)) == s;
	ok(round, "each run status's word parses back to it");
	ok(results_phase_status_parse("exploded") == PHASE_UNKNOWN &&
		   results_phase_status_parse("") == PHASE_UNKNOWN &&
		   results_phase_status_parse("Complete") == PHASE_UNKNOWN &&
		   results_phase_status_parse(NULL) == PHASE_UNKNOWN &&
		   results_run_status_parse("partial ") == RUN_UNKNOWN,
	   "an unknown word (or none) is the unknown state");
	ok(strcmp(results_phase_status_name(-1), "unknown") == 0 &&
		   strcmp(results_phase_status_name(99), "unknown") == 0 &&
		   strcmp(results_run_status_name((enum run_status)99), "unknown") == 0,
	   "a value out of range is named unknown");
	ok(strcmp(results_phase_status_name(PHASE_INTERRUPTED), "interrupted") == 0 &&
		   strcmp(results_run_status_name(RUN_PARTIAL), "partial") == 0,
	   "the words are the file's: interrupted, partial");
}

/* A phase's status word in the file is parsed once, by the reader: a known word is its
 * status, another the unknown state (the report shows "unknown" and counts it as not
 * complete). */
static void test_status_in_file(const char *path)
{
	struct run_data d;
	struct pf_err e = {0};
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g0 = -1, g1 = -1;
	int rc = f >= 0 && (g0 = H5Gopen2(f, "/phases/0000", H5P_DEFAULT)) >= 0 &&
			 (g1 = H5Gopen2(f, "/phases/0001", H5P_DEFAULT)) >= 0 &&
			 set_fixed_str(g0, "status", "exploded") == 0 &&
			 set_fixed_str(g1, "status", "timeout") == 0
		 ? 0
		 : -1;
	if (g0 >= 0)
		H5Gclose(g0);
	if (g1 >= 0)
		H5Gclose(g1);
	if (f >= 0)
		H5Fclose(f);
	ok(rc == 0 && results_read(path, &d, &e) == 0 && d.nphases == 2 &&
		   d.phases[0].info.status == PHASE_UNKNOWN &&
		   d.phases[1].info.status == PHASE_TIMEOUT,
	   "a phase's status word reads as its status, an unknown word as PHASE_UNKNOWN%s%s",
	   e.msg[0] ? ": " : "", e.msg);
	results_free(&d);
}

static int copy_half(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char *buf = NULL;
	long len = -1;
	int rc = -1;
	if (in && out && fseek(in, 0, SEEK_END) == 0 && (len = ftell(in)) > 0 &&
	    fseek(in, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len)) != NULL &&
	    fread(buf, 1, (size_t)len, in) == (size_t)len &&
	    fwrite(buf, 1, (size_t)len / 2, out) == (size_t)len / 2)
		rc = 0;
	free(buf);
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		rc = -1;
	return rc;
}

/* An HDF5 file with no pfsread attributes, or with only a schema_version of version. */
static int make_foreign(const char *path, int version)
{
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), s = -1, a = -1;
	int rc = f >= 0 ? 0 : -1;
	if (rc == 0 && version > 0)
		rc = (s = H5Screate(H5S_SCALAR)) >= 0 &&
				     (a = H5Acreate2(f, "schema_version", H5T_STD_I32LE, s,
						     H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
				     H5Awrite(a, H5T_NATIVE_INT, &version) >= 0
			     ? 0
			     : -1;
	if (a >= 0)
		H5Aclose(a);
	if (s >= 0)
		H5Sclose(s);
	if (f >= 0 && H5Fclose(f) < 0)
		rc = -1;
	return rc;
}

static void test_bad_files(const char *dir, const char *good)
{
	char path[512];
	snprintf(path, sizeof path, "%s/missing.h5", dir);
	check_read_fails(path, "No such file", "a missing file");
	snprintf(path, sizeof path, "%s/text.h5", dir);
	FILE *f = fopen(path, "w");
	ok(f != NULL && fputs("this is not HDF5\n", f) >= 0 && fclose(f) == 0, "made a text file");
	check_read_fails(path, "not an HDF5 file", "a text file");
	snprintf(path, sizeof path, "%s/half.h5", dir);
	ok(copy_half(good, path) == 0, "made a truncated copy");
	check_read_fails(path, "truncated or damaged", "a truncated copy");
	snprintf(path, sizeof path, "%s/foreign.h5", dir);
	ok(make_foreign(path, 0) == 0, "made an HDF5 file without our attributes");
	check_read_fails(path, "not a pfsread results file (no schema_version attribute)",
			 "an HDF5 file of someone else");
	ok(make_foreign(path, 99) == 0, "made an HDF5 file of schema version 99");
	check_read_fails(path, "schema version 99 not supported", "an unknown schema version");
}

static void cleanup(const char *dir)
{
	static const char *const names[] = {"run.h5", "text.h5", "half.h5", "foreign.h5", "many.h5"};
	char path[512];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* The file rows a phase's attributes allow: nfiles, times its active readers (at most the
 * run's ranks) when they share each file. */
static void test_rows_allowed(void)
{
	struct phase_info p;
	memset(&p, 0, sizeof p);
	p.nfiles = 40;
	p.active_readers = 4;
	snprintf(p.sweep.pattern, sizeof p.sweep.pattern, "per-reader");
	ok(results_rows_allowed(&p, 4) == 40, "per-reader: one row per file");
	snprintf(p.sweep.pattern, sizeof p.sweep.pattern, "shared");
	ok(results_rows_allowed(&p, 4) == 160, "shared: one per file and active reader");
	p.active_readers = 1000;
	ok(results_rows_allowed(&p, 8) == 320, "shared: active readers at most the run's ranks");
	p.nfiles = UINT64_MAX / 2;
	ok(results_rows_allowed(&p, 8) == UINT64_MAX, "no overflow");
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/pfsread-test-results-XXXXXX", path[512];
	struct pf_err e = {0};
	struct run_data d, zero;
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS || mkdtemp(dir) == NULL) {
		printf("Bail out! no MPI or no temporary directory\n");
		return 1;
	}
	snprintf(path, sizeof path, "%s/run.h5", dir);
	build_records();
	ok(write_file(path, 0, &e) == 0, "write a file with topology and two phases: %s",
	   e.status == PF_OK ? "done" : e.msg);
	ok(results_read(path, &d, &e) == 0, "read it back%s%s", e.msg[0] ? ": " : "", e.msg);
	if (e.status == PF_OK) {
		check_root(&d, path);
		check_phases(&d);
	}
	results_free(&d);
	memset(&zero, 0, sizeof zero);
	results_free(&zero);
	ok(1, "results_free accepts a zeroed struct");
	test_fixed_strings(path);
	test_status_words();
	test_status_in_file(path);
	test_bad_files(dir, path);
	test_create_refuses(path);
	test_rows_allowed();
	test_many_rows(dir);
	cleanup(dir);
	MPI_Finalize();
	return tap_done();
}
