/* test_progress: what the progress lines cost a reader's loop (run/progress.c). With no line
 * due, a tick is a clock read and a compare: no sum posted, no MPI call at all; with lines due
 * all the time, the MPI calls are bounded by time (a test every 50 ms at most), not by the
 * ticks. The MPI calls are counted through the profiling interface (MPI_Test and
 * MPI_Iallreduce defined here, forwarding to PMPI_). Singleton MPI. */
#include <mpi.h>
#include <time.h>

#include "run/progress.h"
#include "tap.h"

static long tests, posts;

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	tests++;
	return PMPI_Test(req, flag, status);
}

int MPI_Iallreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
		   MPI_Request *req)
{
	posts++;
	return PMPI_Iallreduce(in, out, n, t, op, comm, req);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_nothing_due(void)
{
	struct progress p;
	const long n = 2000000;
	ok(progress_init(&p, 3600) == 0, "progress every hour");
	progress_begin(&p, "phase", 1ull << 40, 1u << 30);
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		progress_tick(&p, (uint64_t)i, (uint64_t)i);
	double dt = now_s() - t0;
	ok(tests == 0 && posts == 0 && p.posted == 0,
	   "no line due: %ld ticks, no MPI call (MPI_Test %ld, MPI_Iallreduce %ld)", n, tests,
	   posts);
	diag("a tick with nothing due: %.1f ns (not a check: this machine is shared)",
	     dt / (double)n * 1e9);
	ok(progress_end(&p) == 0, "progress_end with nothing posted");
	progress_free(&p);
}

static void test_always_due(void)
{
	struct progress p;
	long ticks = 0;
	tests = posts = 0;
	ok(progress_init(&p, 0.001) == 0, "progress every millisecond");
	progress_begin(&p, "phase", 1ull << 40, 1u << 30);
	double t0 = now_s(), dt;
	while ((dt = now_s() - t0) < 0.3) {
		progress_tick(&p, (uint64_t)ticks, (uint64_t)ticks);
		ticks++;
	}
	ok(posts >= 1, "lines due: sums posted (%ld)", posts);
	ok(tests <= (long)(dt / 0.05) + 2 && posts <= tests + 1,
	   "MPI calls bounded by time: %ld MPI_Test and %ld MPI_Iallreduce in %.2f s, over %ld "
	   "ticks", tests, posts, dt, ticks);
	ok(progress_end(&p) == 0 && p.req == MPI_REQUEST_NULL, "progress_end completes the sums");
	progress_free(&p);
}

int main(int argc, char **argv)
{
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		printf("Bail out! no MPI\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_nothing_due();
	test_always_due();
	int rc = tap_done();
	MPI_Finalize();
	return rc;
}
