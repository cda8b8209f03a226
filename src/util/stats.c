/* stats: mean, extremes, sample standard deviation, Student-t confidence interval and median
 * of a sample. Pure maths (see stats.h). */
#include "util/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two-sided 95% quantiles of Student's t, df = 1..30 (t(0.975, df)). */
static const double stats_t_table[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double stats_t95(size_t df)
{
	if (df < 1)
		return NAN;
	if (df <= sizeof stats_t_table / sizeof stats_t_table[0])
		return stats_t_table[df - 1];
	return 1.96;
}

static int stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y); /* NaNs last */
	return (x > y) - (x < y);
}

void stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, stats_cmp);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	if (n == 0 || !(q >= 0 && q <= 1))
		return NAN;
	double at = q * (double)(n - 1);
	size_t lo = (size_t)floor(at);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	double frac = at - (double)lo;
	return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

static void stats_clear(struct stats *s)
{
	s->n = 0;
	s->mean = s->min = s->max = s->median = s->sd = s->ci95 = NAN;
}

/* Copy the finite values of v into a new array; *m says how many. NULL only on failure. */
static double *stats_finite(const double *v, size_t n, size_t *m)
{
	double *c = malloc((n ? n : 1) * sizeof *c);
	*m = 0;
	if (c == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[(*m)++] = v[i];
	return c;
}

double stats_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			sum += v[i];
			m++;
		}
	return m ? sum / (double)m : NAN;
}

int stats_of(const double *v, size_t n, struct stats *s)
{
	size_t m;
	double sum = 0, sq = 0;
	stats_clear(s);
	double *c = stats_finite(v, n, &m);
	if (c == NULL)
		return -1;
	s->n = m;
	if (m > 0) {
		stats_sort(c, m);
		for (size_t i = 0; i < m; i++)
			sum += c[i];
		s->mean = sum / (double)m;
		for (size_t i = 0; i < m; i++)
			sq += (c[i] - s->mean) * (c[i] - s->mean);
		s->min = c[0];
		s->max = c[m - 1];
		s->median = stats_quantile_sorted(c, m, 0.5);
	}
	if (m > 1) {
		s->sd = sqrt(sq / (double)(m - 1));
		s->ci95 = stats_t95(m - 1) * s->sd / sqrt((double)m);
	}
	free(c);
	return 0;
}

int stats_overlap(const struct stats *a, const struct stats *b)
{
	if (a->n < 2 || b->n < 2 || !isfinite(a->ci95) || !isfinite(b->ci95))
		return -1;
	return a->mean - a->ci95 <= b->mean + b->ci95 && b->mean - b->ci95 <= a->mean + a->ci95;
}

double stats_mdd(const struct stats *a, const struct stats *b)
{
	if (a->n < 2 || b->n < 2 || !isfinite(a->ci95) || !isfinite(b->ci95))
		return NAN;
	return a->ci95 + b->ci95;
}

size_t stats_reps_to_decide(double sd_a, double sd_b, double diff, size_t max)
{
	double spread = sd_a + sd_b, d = fabs(diff);
	if (!isfinite(spread) || !isfinite(d) || spread < 0)
		return 0;
	if (spread == 0)
		return d > 0 ? 1 : 0;
	for (size_t n = 2; n <= max; n++)
		if (stats_t95(n - 1) * spread / sqrt((double)n) < d)
			return n;
	return 0;
}
