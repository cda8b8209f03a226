/* budget: the next phase's estimate from the phases timed so far, and the time budget's test
 * (run --time-budget). Pure functions. */
#include "run/budget.h"

#include <math.h>

/* |log(a / b)|: how far apart two mean file sizes are, on the scale that matters */
static double budget_distance(double a, double b)
{
	double r = a > b ? a / b : b / a;
	return log(r);
}

double budget_estimate(const struct budget_phase *done, size_t ndone, uint32_t dataset,
		       uint64_t bytes, uint64_t files)
{
	double best = -1, nearest = HUGE_VAL;
	double mean = files > 0 ? (double)bytes / (double)files : 1;
	for (size_t i = 0; i < ndone; i++) {
		const struct budget_phase *d = &done[i];
		if (d->bytes == 0 || d->files == 0)
			continue;
		double dist = d->dataset == dataset
				      ? -1 /* the same data set comes first */
				      : budget_distance(mean, (double)d->bytes / (double)d->files);
		double t = d->wall_s * (double)bytes / (double)d->bytes;
		if (dist < nearest || (dist == nearest && t > best)) {
			nearest = dist;
			best = t;
		}
	}
	return best;
}

double budget_margin(double budget_s)
{
	double m = budget_s * 0.05;
	return m < 2 ? 2 : m > 300 ? 300 : m;
}

int budget_allows(double budget_s, double used_s, double estimate_s)
{
	if (budget_s <= 0)
		return 1;
	double end = budget_s - budget_margin(budget_s);
	if (estimate_s < 0)
		return used_s < end;
	return used_s + estimate_s <= end;
}
