/* acct: per-rank wall time in open, read and close, each instant counted once (acct.h). */
#include "run/acct.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

enum { ACCT_OPEN, ACCT_READ, ACCT_CLOSE, ACCT_STEPS };

/* One end of one step of one file: at time t, step starts (+1) or ends (-1). */
struct acct_edge {
	double t;
	int step;
	int delta;
};

/* Step k of file r: [*from, *to), 1 when it counts (finite, forwards). */
static int acct_step(const struct file_rec *r, int k, double *from, double *to)
{
	const double at[] = {r->open_start, r->open_end, r->read_end, r->close_end};
	*from = at[k];
	*to = at[k + 1];
	return isfinite(*from) && isfinite(*to) && *to >= *from;
}

/* The per-file sums; 1 when the steps follow one another in record order (nothing overlaps:
 * the sums are the wall times, and no sweep is needed). */
static int acct_sums(const struct file_rec *f, uint64_t n, double *sum)
{
	double from, to, last = -INFINITY;
	int serial = 1;
	for (int k = 0; k < ACCT_STEPS; k++)
		sum[k] = 0;
	for (uint64_t i = 0; i < n; i++)
		for (int k = 0; k < ACCT_STEPS; k++) {
			if (!acct_step(&f[i], k, &from, &to))
				continue;
			sum[k] += to - from;
			if (from < last)
				serial = 0;
			last = to;
		}
	return serial;
}

static int acct_cmp(const void *a, const void *b)
{
	const struct acct_edge *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : 0;
}

/* The sweep over every step's edges in time order: each stretch between two edges goes to the
 * first step of read, open, close that has a file in it. */
static void acct_sweep(struct acct_edge *e, size_t ne, double *wall)
{
	int in[ACCT_STEPS] = {0, 0, 0};
	qsort(e, ne, sizeof *e, acct_cmp);
	for (size_t j = 0; j < ne; j++) {
		if (j > 0 && e[j].t > e[j - 1].t) {
			double dt = e[j].t - e[j - 1].t;
			if (in[ACCT_READ] > 0)
				wall[ACCT_READ] += dt;
			else if (in[ACCT_OPEN] > 0)
				wall[ACCT_OPEN] += dt;
			else if (in[ACCT_CLOSE] > 0)
				wall[ACCT_CLOSE] += dt;
		}
		in[e[j].step] += e[j].delta;
	}
}

int acct_rank(const struct file_rec *f, uint64_t n, struct acct *a)
{
	double sum[ACCT_STEPS], wall[ACCT_STEPS] = {0, 0, 0}, from, to;
	struct acct_edge *e;
	size_t ne = 0;
	int serial = acct_sums(f, n, sum);
	*a = (struct acct){sum[ACCT_OPEN], sum[ACCT_READ], sum[ACCT_CLOSE], 0};
	if (serial || n == 0)
		return 0;
	if (n > SIZE_MAX / (2 * ACCT_STEPS * sizeof *e) ||
	    (e = malloc((size_t)n * 2 * ACCT_STEPS * sizeof *e)) == NULL) {
		a->overlap_s = NAN;
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		for (int k = 0; k < ACCT_STEPS; k++)
			if (acct_step(&f[i], k, &from, &to) && to > from) {
				e[ne++] = (struct acct_edge){from, k, +1};
				e[ne++] = (struct acct_edge){to, k, -1};
			}
	acct_sweep(e, ne, wall);
	free(e);
	*a = (struct acct){wall[ACCT_OPEN], wall[ACCT_READ], wall[ACCT_CLOSE],
			   sum[ACCT_OPEN] + sum[ACCT_READ] + sum[ACCT_CLOSE] -
				   (wall[ACCT_OPEN] + wall[ACCT_READ] + wall[ACCT_CLOSE])};
	return 0;
}
