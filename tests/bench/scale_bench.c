/* scale_bench: how pfsread's own costs grow with the number of files in a data set (10^3 to
 * 10^6): planning time per rank and the memory it holds, on the map of the reference study
 * (100 nodes x 4 ranks, planned here for every one of the 400 ranks in turn), and the time
 * of the collective HDF5 write of one phase's per-file records by the ranks of this job.
 * Run under mpirun; prints one row per size. A benchmark: it reports what it measured. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "run/plan.h"
#include "results/results.h"

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Planning on the 100 x 4 map: the slowest rank's time and the largest share's bytes. */
static void bench_plan(uint64_t nfiles, int shifted, double *worst_s, uint64_t *worst_bytes)
{
	struct topo_map t;
	*worst_s = 0;
	*worst_bytes = 0;
	if (plan_even_map(400, 100, &t) != 0)
		return;
	const struct plan_rule rule = {4, CFG_DECOMP_BLOCK, CFG_ORDER_RANDOM, 1,
				       shifted ? 1u : 0u};
	for (int r = 0; r < 400; r += shifted ? 57 : 1) { /* shift scans all files: sample ranks */
		uint64_t *files = NULL, n = 0;
		double t0 = bench_now();
		if (plan_files(&t, r, nfiles, &rule, &files, &n) != 0)
			break;
		double dt = bench_now() - t0;
		if (dt > *worst_s)
			*worst_s = dt;
		if (n * sizeof *files > *worst_bytes)
			*worst_bytes = n * sizeof *files;
		free(files);
	}
	topo_map_free(&t);
}

/* One phase of nfiles records written collectively by this job's ranks; seconds, max. */
static double bench_write(const char *dir, uint64_t nfiles, int rank, int nranks)
{
	char path[512];
	struct results *r = NULL;
	struct pf_err e = {0};
	struct run_meta m = {.pfsread_version = "bench", .config_yaml = "", .config_path = "",
			     .command_line = "scale_bench", .start_time = "", .mpi_version = "",
			     .job_id = "", .hosts = "", .nranks = nranks, .nnodes = 1, .nphases = 1};
	struct phase_info p;
	struct rank_rec me;
	uint64_t first = 0, count = 0;
	plan_block(nfiles, (uint64_t)nranks, (uint64_t)rank, &first, &count);
	struct file_rec *recs = calloc(count ? count : 1, sizeof *recs);
	memset(&p, 0, sizeof p);
	memset(&me, 0, sizeof me);
	p.status = PHASE_COMPLETE;
	for (uint64_t i = 0; i < count; i++) {
		recs[i].file = first + i;
		recs[i].rank = rank;
		recs[i].close_end = recs[i].read_end = recs[i].open_end = 1e-3 * (double)i;
		recs[i].bytes = 2000000;
	}
	me.rank = rank;
	snprintf(path, sizeof path, "%s/scale-%llu.h5", dir, (unsigned long long)nfiles);
	double dt = -1;
	if (recs != NULL && results_create(path, 1, MPI_COMM_WORLD, &m, &r, &e) == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (results_write_phase(r, &p, &me, recs, count, NULL, &e) == 0)
			dt = MPI_Wtime() - t0;
		results_close(r, "complete", &e);
		MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	}
	if (e.status != PF_OK && rank == 0)
		fprintf(stderr, "scale_bench: %s\n", e.msg);
	if (rank == 0)
		remove(path);
	free(recs);
	return dt;
}

int main(int argc, char **argv)
{
	int rank, nranks;
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (rank == 0) {
		printf("planning on 100 nodes x 4 ranks (worst rank); HDF5 write by %d ranks; the\n"
		       "phase time of the reference study's 2 MB files at its 502 MB/s is nfiles x 2 MB /"
		       " 502 MB/s\n\n", nranks);
		printf("%10s %14s %16s %14s %14s %14s %12s %14s\n", "files", "plan [ms/rank]",
		       "plan shift [ms]", "share [KiB]", "max RSS [MiB]", "write [s]",
		       "write/file", "write/phase");
	}
	for (uint64_t n = 1000; n <= 1000000; n *= 10) {
		double plan_s, shift_s, write_s;
		uint64_t share, share2;
		bench_plan(n, 0, &plan_s, &share);
		bench_plan(n, 1, &shift_s, &share2);
		write_s = bench_write(dir, n, rank, nranks);
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double phase_s = (double)n * 2e6 / 502e6;
		if (rank == 0)
			printf("%10llu %14.3f %16.3f %14.1f %14.1f %14.4f %10.2f us %13.3f%%\n",
			       (unsigned long long)n, plan_s * 1e3, shift_s * 1e3,
			       (double)share / 1024, (double)ru.ru_maxrss / 1024, write_s,
			       write_s / (double)n * 1e6, 100 * write_s / phase_s);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}
