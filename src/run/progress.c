/* progress: rank 0's progress lines during a long step, from non-blocking sums (see the
 * header for why nothing here waits inside a timed region). */
#include "run/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run/guard.h"
#include "util/units.h"

/* How often the loop tests a pending sum: often enough that a line is not late, rarely
 * enough that MPI_Test stays out of a tight loop's cost. */
#define PROGRESS_TEST_S 0.05

/* The coarse clock (a few ms of resolution, no system call, a few ns): the tick's only cost
 * while nothing is due. */
static double progress_clock(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
		return MPI_Wtime();
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int progress_init(struct progress *p, double every_s)
{
	memset(p, 0, sizeof *p);
	p->comm = MPI_COMM_NULL;
	p->req = MPI_REQUEST_NULL;
	p->every_s = every_s > 0 ? every_s : 0;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &p->rank) != MPI_SUCCESS)
		return -1;
	if (p->every_s > 0 && MPI_Comm_dup(MPI_COMM_WORLD, &p->comm) != MPI_SUCCESS)
		return -1;
	return 0;
}

void progress_free(struct progress *p)
{
	if (p == NULL)
		return;
	if (p->comm != MPI_COMM_NULL)
		(void)MPI_Comm_free(&p->comm); /* at the end: nothing to do on failure */
	p->comm = MPI_COMM_NULL;
}

void progress_begin(struct progress *p, const char *label, uint64_t total_bytes,
		    uint64_t total_files)
{
	snprintf(p->label, sizeof p->label, "%s", label);
	p->total_bytes = total_bytes;
	p->total_files = total_files;
	p->start = p->last_t = progress_clock();
	p->next = p->start + p->every_s;
	p->check_at = p->start;
	p->posted = 0;
	p->last_bytes = 0;
}

static void progress_eta(char *buf, size_t len, double s)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else
		units_format_duration(s, buf, len);
}

void progress_format(char *buf, size_t len, const char *label, uint64_t bytes, uint64_t files,
		     uint64_t total_bytes, uint64_t total_files, double rate, double elapsed,
		     uint64_t after_bytes, double study_rate)
{
	char done[32], all[32], bw[32], eta[32], study[32];
	double mean = elapsed > 0 ? (double)bytes / elapsed : 0;
	double left = total_bytes > bytes ? (double)(total_bytes - bytes) : 0;
	double phase_eta = mean > 0 ? left / mean : -1;
	/* the rest of the study at the rate of the phases so far, or of this one at first */
	double at = study_rate > 0 ? study_rate : mean;
	double study_eta = phase_eta < 0 ? -1
			   : after_bytes == 0 ? phase_eta
			   : at > 0 ? phase_eta + (double)after_bytes / at : -1;
	units_format_size(bytes, done, sizeof done);
	units_format_size(total_bytes, all, sizeof all);
	snprintf(bw, sizeof bw, "%.1f MB/s", rate / 1e6);
	progress_eta(eta, sizeof eta, phase_eta);
	progress_eta(study, sizeof study, study_eta);
	snprintf(buf, len, "progress: %s: %s of %s (%.0f%%), %llu of %llu file%s, %s now, ETA %s, "
		 "study ETA %s", label, done, all,
		 total_bytes ? 100.0 * (double)bytes / (double)total_bytes : 100.0,
		 (unsigned long long)files, (unsigned long long)total_files,
		 units_s(total_files), bw, eta, study);
}

/* Rank 0: a sum came back: one line. */
static void progress_print(struct progress *p, double now)
{
	char line[512];
	double dt = now - p->last_t;
	double rate = dt > 0 ? (double)(p->sum[0] - p->last_bytes) / dt : 0;
	progress_format(line, sizeof line, p->label, p->sum[0], p->sum[1], p->total_bytes,
			p->total_files, rate, now - p->start, p->after_bytes, p->study_rate);
	printf("%s\n", line);
	fflush(stdout);
	p->last_t = now;
	p->last_bytes = p->sum[0];
	p->lines++;
}

void progress_tick(struct progress *p, uint64_t bytes, uint64_t files)
{
	if (p == NULL || p->every_s <= 0)
		return;
	double now = progress_clock();
	if (now < p->check_at)
		return;
	p->check_at = now + PROGRESS_TEST_S;
	if (p->req != MPI_REQUEST_NULL) {
		int flag = 0;
		if (MPI_Test(&p->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag)
			return;
		if (p->rank == 0)
			progress_print(p, now);
	}
	if (now < p->next)
		return;
	p->mine[0] = bytes;
	p->mine[1] = files;
	if (MPI_Iallreduce(p->mine, p->sum, 2, MPI_UINT64_T, MPI_SUM, p->comm, &p->req) ==
	    MPI_SUCCESS)
		p->posted++;
	else
		p->req = MPI_REQUEST_NULL;
	while (p->next <= now)
		p->next += p->every_s;
}

/* Wait for q with naps that grow (guard's idle naps): the ranks done first leave the cores to
 * the ranks still at work and to a file system client's threads. */
static int progress_wait(MPI_Request *q)
{
	struct guard idle = {.nap_max_s = GUARD_NAP_IDLE_S};
	struct pf_err e = {0};
	return guard_wait(&idle, NULL, MPI_COMM_WORLD, q, 1, 0, "progress", &e);
}

/* A rank posts sum k+1 only after sum k came back, which needs every rank to have posted
 * it: the ranks' counts differ by one at most, and a rank behind has its last sum complete.
 * So: agree on the most (on MPI_COMM_WORLD, not among the sums of p->comm), the ranks behind
 * post one more, everyone waits. The agreement is made with progress off too: it is where
 * the ranks done first wait for the others. */
int progress_end(struct progress *p)
{
	uint64_t most = 0;
	MPI_Request q;
	if (MPI_Iallreduce(&p->posted, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &q) !=
		    MPI_SUCCESS || progress_wait(&q) != 0)
		return -1;
	if (p->every_s <= 0)
		return 0;
	if (p->posted < most) {
		if (progress_wait(&p->req) != 0)
			return -1;
		if (MPI_Iallreduce(p->mine, p->sum, 2, MPI_UINT64_T, MPI_SUM, p->comm, &p->req) !=
		    MPI_SUCCESS)
			return -1;
		p->posted++;
	}
	return progress_wait(&p->req);
}
