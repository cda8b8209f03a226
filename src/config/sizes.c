/* sizes: file sizes of data sets with a size distribution, each a pure function of (spec,
 * seed, file index). Nothing is listed: any rank asks for any file's size in O(1) (lognormal)
 * or O(log buckets) (histogram), and the totals are summed once at config load. The maths of
 * the config's size spec, so it sits with the config: the loader counts and sums with it, and
 * dataset_file_size gives each file its size with it. */
#include "config/sizes.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


static uint64_t sizes_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* FNV-1a of the name: data sets of one experiment draw independent sizes. */
static uint64_t sizes_name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

double sizes_normal_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00, 2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	const double low = 0.02425;
	if (p < low) {
		double q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - low) {
		double q = sqrt(-2 * log(1 - p));
		return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	double q = p - 0.5, r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

uint64_t sizes_lognormal(const struct cfg_dataset *d, uint64_t i)
{
	uint64_t h = sizes_mix(sizes_name_hash(d->name) ^ sizes_mix(d->seed + 0x9e3779b97f4a7c15ull) ^
			       sizes_mix(i * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull));
	double u = ((double)(h >> 11) + 0.5) * 0x1p-53; /* in (0, 1), never 0 or 1 */
	double v = (double)d->median * exp(d->sigma * sizes_normal_quantile(u));
	if (!(v >= (double)d->min)) /* also catches NaN */
		return d->min;
	if (v >= (double)d->max)
		return d->max;
	uint64_t s = (uint64_t)(v + 0.5);
	return s < d->min ? d->min : s > d->max ? d->max : s;
}

uint64_t sizes_histogram_at(const struct cfg_dataset *d, uint64_t i)
{
	uint64_t p = (uint64_t)(((unsigned __int128)(i % d->nfiles) * d->stride) % d->nfiles);
	size_t lo = 0, hi = d->nbuckets - 1; /* the first bucket whose end is above p */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->buckets[mid].end > p)
			hi = mid;
		else
			lo = mid + 1;
	}
	return d->buckets[lo].size;
}

static uint64_t sizes_gcd(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

uint64_t sizes_histogram_stride(uint64_t n)
{
	if (n <= 2)
		return 1;
	uint64_t s = (uint64_t)((double)n * 0.6180339887498949);
	if (s == 0 || s >= n)
		s = 1;
	while (sizes_gcd(s, n) != 1)
		s++;
	return s;
}

uint64_t sizes_histogram_median(const struct cfg_dataset *d)
{
	uint64_t want = (d->nfiles - 1) / 2, best = 0;
	/* the smallest size s such that more than want files are <= s */
	for (size_t k = 0; k < d->nbuckets; k++) {
		uint64_t s = d->buckets[k].size, atmost = 0;
		for (size_t j = 0; j < d->nbuckets; j++)
			if (d->buckets[j].size <= s)
				atmost += d->buckets[j].count;
		if (atmost > want && (best == 0 || s < best))
			best = s;
	}
	return best;
}
