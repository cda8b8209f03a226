/* test_stats: mean, extremes, median, sample standard deviation, Student-t confidence interval,
 * quantiles and the overlap of two intervals, against values worked out by hand. */
#include <math.h>

#include "util/stats.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) + 1);
}

static void test_summary(void)
{
	/* mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sd = sqrt(32/7) = 2.1380899;
	 * ci95 = t(7) = 2.365 x 2.1380899 / sqrt(8) = 1.7877720; median (4 + 5) / 2 */
	const double v[] = {9, 2, 4, 5, 4, 7, 4, 5};
	struct stats s;
	ok(stats_of(v, 8, &s) == 0 && s.n == 8, "8 values summarised");
	ok(near(s.mean, 5) && near(s.min, 2) && near(s.max, 9), "mean 5, min 2, max 9");
	ok(near(s.sd, 2.1380899), "sample sd sqrt(32/7) = 2.1380899 (got %.7f)", s.sd);
	ok(near(s.ci95, 1.7877720), "95%% CI half-width 2.365 sd / sqrt 8 = 1.7877720 (got %.7f)",
	   s.ci95);
	ok(near(s.median, 4.5), "median of an even count: (4 + 5) / 2");
	const double odd[] = {3, 1, 2};
	ok(stats_of(odd, 3, &s) == 0 && near(s.median, 2) && near(s.sd, 1) &&
		   near(s.ci95, 4.303 / sqrt(3.0)),
	   "3 values: median 2, sd 1, CI 4.303 / sqrt 3");
}

static void test_edges(void)
{
	struct stats s;
	const double one[] = {42};
	ok(stats_of(one, 1, &s) == 0 && s.n == 1 && s.mean == 42 && s.median == 42 &&
		   isnan(s.sd) && isnan(s.ci95),
	   "1 value: mean and median, no sd, no interval");
	ok(stats_of(one, 0, &s) == 0 && s.n == 0 && isnan(s.mean) && isnan(s.median),
	   "no value: all NaN");
	const double holes[] = {NAN, 10, INFINITY, 20};
	ok(stats_of(holes, 4, &s) == 0 && s.n == 2 && near(s.mean, 15),
	   "non-finite values left out (n 2, mean 15)");
}

static void test_t_and_quantiles(void)
{
	ok(near(stats_t95(1), 12.706) && near(stats_t95(2), 4.303) && near(stats_t95(30), 2.042) &&
		   near(stats_t95(31), 1.96) && near(stats_t95(1000), 1.96) && isnan(stats_t95(0)),
	   "t(0.975): 12.706 at df 1, 4.303 at 2, 2.042 at 30, 1.96 beyond, NaN at 0");
	const double sorted[] = {1, 2, 3, 4};
	ok(near(stats_quantile_sorted(sorted, 4, 0.5), 2.5) &&
		   near(stats_quantile_sorted(sorted, 4, 0.25), 1.75) &&
		   near(stats_quantile_sorted(sorted, 4, 0), 1) &&
		   near(stats_quantile_sorted(sorted, 4, 1), 4) &&
		   isnan(stats_quantile_sorted(sorted, 0, 0.5)),
	   "quantiles interpolate between ranks");
	double v[] = {3, NAN, 1, 2};
	stats_sort(v, 4);
	ok(v[0] == 1 && v[1] == 2 && v[2] == 3 && isnan(v[3]), "sort ascending, NaN last");
}

static void test_overlap(void)
{
	struct stats a = {.n = 3, .mean = 100, .ci95 = 5};
	struct stats b = {.n = 3, .mean = 108, .ci95 = 4};
	ok(stats_overlap(&a, &b) == 1, "95..105 and 104..112 overlap: within noise");
	b.mean = 110;
	ok(stats_overlap(&a, &b) == 0 && stats_overlap(&b, &a) == 0,
	   "95..105 and 106..114 are apart: beyond noise, either way round");
	b.n = 1;
	ok(stats_overlap(&a, &b) == -1, "one repetition: no estimate");
}

/* stats_mean: the finite values only, NaN for none (the report's node and cell figures). */
static void test_mean(void)
{
	const double v[] = {1, NAN, 2, INFINITY, 6};
	const double none[] = {NAN, -INFINITY};
	ok(stats_mean(v, 5) == 3.0, "mean of the finite values: 3 (%g)", stats_mean(v, 5));
	ok(isnan(stats_mean(none, 2)) && isnan(stats_mean(v, 0)), "no finite value: NaN");
}

/* The minimum detectable difference is what stats_overlap needs: the two half-widths; the
 * repetitions that would decide a difference follow t(0.975, n-1) (sd_a + sd_b) / sqrt(n). */
static void test_mdd(void)
{
	struct stats a = {.n = 3, .mean = 100, .ci95 = 5}, b = {.n = 3, .mean = 110, .ci95 = 4};
	struct stats one = {.n = 1, .mean = 100, .ci95 = NAN};
	ok(stats_mdd(&a, &b) == 9, "MDD of 95..105 and 106..114: 5 + 4 = 9");
	ok(isnan(stats_mdd(&a, &one)), "one repetition: no MDD");
	/* sd 1 + 1 = 2, diff 3: n = 3 gives 4.303 * 2 / 1.732 = 4.97 (no), n = 4: 3.182 * 2 / 2 =
	 * 3.18 (no), n = 5: 2.776 * 2 / 2.236 = 2.48 < 3 (yes) */
	ok(stats_reps_to_decide(1, 1, 3, 100) == 5, "sd 1 and 1, difference 3: 5 repetitions (%zu)",
	   stats_reps_to_decide(1, 1, 3, 100));
	ok(stats_reps_to_decide(1, 1, -3, 100) == 5, "the sign of the difference does not matter");
	ok(stats_reps_to_decide(10, 10, 0.1, 100) == 0, "a difference far below the noise: > 100");
	ok(stats_reps_to_decide(0, 0, 1, 100) == 1, "no noise at all: one repetition tells");
	ok(stats_reps_to_decide(NAN, 1, 1, 100) == 0, "no estimate: 0");
}

int main(void)
{
	test_mdd();
	test_mean();
	test_summary();
	test_edges();
	test_t_and_quantiles();
	test_overlap();
	return tap_done();
}
