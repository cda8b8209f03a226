/* stats: summary statistics of a handful of repetitions (mean, spread, a 95% confidence
 * interval from Student's t) and of larger samples (median, quantiles). Pure: no I/O, no MPI. */
#ifndef PFSREAD_STATS_H
#define PFSREAD_STATS_H

#include <stddef.h>

/* The summary of n values. Figures that n does not define are NaN: sd and ci95 need n >= 2,
 * everything needs n >= 1. */
struct stats {
	size_t n;
	double mean, min, max, median;
	double sd;   /* sample standard deviation (n - 1 in the denominator) */
	double ci95; /* half-width of the 95% confidence interval of the mean: t(0.975, n-1) sd/sqrt(n) */
};

/* The mean of the finite values of v[0..n), NaN when there is none. */
double stats_mean(const double *v, size_t n);

/* Summarise v[0..n). Non-finite values are left out (n counts the others). Sorts a copy for
 * the median. Returns 0, or -1 when the copy cannot be allocated (*s then holds NaNs). */
int stats_of(const double *v, size_t n, struct stats *s);

/* The two-sided 95% quantile of Student's t with df degrees of freedom: the table value for
 * df 1..30, 1.96 (the normal quantile) beyond, NaN for df < 1. */
double stats_t95(size_t df);

/* The q-quantile (0 <= q <= 1) of sorted[0..n), interpolated linearly between ranks
 * (q = 0.5 is the median). NaN when n == 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

/* Sort v[0..n) ascending (NaNs last). */
void stats_sort(double *v, size_t n);

/* 1 when the 95% confidence intervals of a and b overlap (the difference of the means is
 * within the noise), 0 when they are disjoint, -1 when either has no interval (n < 2). */
int stats_overlap(const struct stats *a, const struct stats *b);

/* The minimum detectable difference of stats_overlap: the smallest difference of the means
 * that it calls beyond the noise with these repetitions, a->ci95 + b->ci95. NaN when either
 * has no interval. */
double stats_mdd(const struct stats *a, const struct stats *b);

/* How many repetitions per side (the same count for both) stats_overlap would need for a
 * difference of the means diff to be beyond the noise, if the standard deviations stay sd_a and
 * sd_b: the smallest n >= 2 with t(0.975, n-1) (sd_a + sd_b) / sqrt(n) < |diff|; 0 when more
 * than max would be needed or no figure is finite, 1 when there is no noise at all. */
size_t stats_reps_to_decide(double sd_a, double sd_b, double diff, size_t max);

#endif
