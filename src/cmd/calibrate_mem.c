/* calibrate_mem: the memory-copy figure of pfsread calibrate: two buffers on huge pages, one
 * untimed copy, then per repetition the median of CALIB_MEM_COPIES copies, each timed on the
 * copying thread's CPU clock. */
#include "cmd/calibrate_mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "results/calib.h"
#include "util/stop.h"

#define CALMEM_HUGE (2u << 20) /* a huge page on x86-64 and arm64 */

/* The CPU's last-level cache in bytes, 0 when the system does not say. */
uint64_t calmem_llc(void)
{
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return l3 > 0 ? (uint64_t)l3 : l2 > 0 ? (uint64_t)l2 : 0;
}

/* The default --mem-size: CALIB_MEM_MIN, or four times the last-level cache when that is more
 * (a copy the cache cannot hold measures the memory), in whole MiB. */
uint64_t calmem_default(void)
{
	uint64_t want = 4 * calmem_llc();
	want = (want + (1u << 20) - 1) / (1u << 20) * (1u << 20);
	return want > CALIB_MEM_MIN ? want : CALIB_MEM_MIN;
}

static double calmem_median(const double *v, int n)
{
	struct calib_spread s;
	calib_spread_of(v, (size_t)n, &s);
	return s.median;
}

/* The calling thread's CPU time in seconds, NaN when the clock fails. */
static double calmem_cpu_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return NAN;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A buffer of bytes on huge pages where the kernel gives them (NULL when out of memory): on
 * small pages the copy's rate varies by up to a quarter from one process to the next with
 * where its pages land (TLB misses); without transparent huge pages (madvise refused) the
 * buffer is used as it is. */
static char *calmem_huge(uint64_t bytes)
{
	void *p = NULL;
	uint64_t len = (bytes + CALMEM_HUGE - 1) / CALMEM_HUGE * CALMEM_HUGE;
	if (posix_memalign(&p, CALMEM_HUGE, len) != 0)
		return NULL;
	if (madvise(p, len, MADV_HUGEPAGE) != 0)
		errno = 0; /* no huge pages here: the copy runs on small ones */
	return p;
}

/* The memory-copy rule: a copy is timed on the copying thread's CPU clock, so the time it
 * spends waiting for a core that other jobs hold is left out (on a shared node the wall clock
 * times the scheduler, not the memory); each repetition is the median of CALIB_MEM_COPIES
 * copies, one untimed copy first (every page touched, the code warm). */
void calmem_measure(uint64_t bytes, int reps, double *MBps)
{
	char *src = calmem_huge(bytes), *dst = calmem_huge(bytes);
	volatile char sink = 0;
	double one[CALIB_MEM_COPIES];
	if (src == NULL || dst == NULL) {
		free(src);
		free(dst);
		return;
	}
	memset(src, 1, bytes);
	memset(dst, 0, bytes);
	memcpy(dst, src, bytes);
	for (int r = 0; r < reps && stop_signal() == 0; r++) {
		for (int k = 0; k < CALIB_MEM_COPIES; k++) {
			double t0 = calmem_cpu_now();
			memcpy(dst, src, bytes);
			double t = calmem_cpu_now() - t0;
			sink = (char)(sink + dst[(size_t)(r + k) * 4096 % bytes]);
			one[k] = t > 0 ? (double)bytes / t / 1e6 : NAN;
		}
		MBps[r] = calmem_median(one, CALIB_MEM_COPIES);
	}
	free(src);
	free(dst);
	(void)sink;
}
