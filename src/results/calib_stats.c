/* calib_stats: a calibration figure's repetitions summarised (median, quartiles, extremes) and
 * judged: stable, or not with what may make it so, in one line. Pure: no I/O, no HDF5, no MPI. */
#include "results/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/stats.h"
#include "util/units.h"

const char *calib_figure_name(enum calib_figure f)
{
	static const char *const names[CALIB_NFIG] = {"disk", "memory copy", "link"};
	return f < CALIB_NFIG ? names[f] : "?";
}

void calib_spread_of(const double *v, size_t n, struct calib_spread *s)
{
	double *c = malloc((n ? n : 1) * sizeof *c);
	size_t m = 0;
	*s = (struct calib_spread){0, NAN, NAN, NAN, NAN, NAN, NAN};
	if (c == NULL)
		return; /* unknown: reported as not measured */
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[m++] = v[i];
	stats_sort(c, m);
	if (m > 0) {
		s->n = (int)m;
		s->min = c[0];
		s->max = c[m - 1];
		s->median = stats_quantile_sorted(c, m, 0.5);
		s->q1 = stats_quantile_sorted(c, m, 0.25);
		s->q3 = stats_quantile_sorted(c, m, 0.75);
	}
	if (m >= 2 && s->min > 0)
		s->ratio = s->max / s->min;
	free(c);
}

int calib_spread_wide(const struct calib_spread *s)
{
	return s->n >= 2 && (!(s->min > 0) || s->ratio > CALIB_WIDE);
}

char *calib_spread_text(const struct calib_spread *s, enum units_rate u, char *buf, size_t len)
{
	if (s->n < 1)
		snprintf(buf, len, "-");
	else if (s->n == 1)
		snprintf(buf, len, "%.6g %s (one measurement)", units_rate(s->median, u),
			 units_rate_name(u));
	else
		snprintf(buf, len, "%.6g %s (median of %d: %.1f-%.1f, max/min %.2f)",
			 units_rate(s->median, u), units_rate_name(u), s->n, units_rate(s->min, u),
			 units_rate(s->max, u), s->ratio);
	return buf;
}

/* Why f's repetitions may differ: its measurement is small enough for a cache to serve some
 * of them, or the machine was busy. */
static void calib_why(enum calib_figure f, uint64_t bytes, uint64_t cache_bytes, char *buf,
		      size_t len)
{
	char have[32], want[32], cache[32];
	units_format_size_binary(bytes, have, sizeof have);
	units_format_size_binary(cache_bytes, cache, sizeof cache);
	if (f == CALIB_DISK && bytes < CALIB_DISK_MIN) {
		units_format_size_binary(CALIB_DISK_MIN * 4, want, sizeof want);
		snprintf(buf, len, "a read of %s may be served by a drive's or controller's cache "
			 "and is dominated by its start-up (give --disk-size %s or more), or the "
			 "machine is busy", have, want);
	} else if (f == CALIB_MEMCPY && cache_bytes > 0 && bytes < 4 * cache_bytes) {
		units_format_size_binary(4 * cache_bytes, want, sizeof want);
		snprintf(buf, len, "a copy of %s is partly held by the CPU's %s cache (give "
			 "--mem-size %s or more), or the machine is busy", have, cache, want);
	} else {
		snprintf(buf, len, "the machine is busy (other jobs on its cores, disk or network): "
			 "calibrate again when it is quiet, or with more --repetitions");
	}
}

int calib_warning(enum calib_figure f, const struct calib_spread *s, uint64_t bytes,
		  uint64_t cache_bytes, enum units_rate u, char *buf, size_t len)
{
	char why[320];
	buf[0] = '\0';
	if (!calib_spread_wide(s))
		return 0;
	calib_why(f, bytes, cache_bytes, why, sizeof why);
	if (s->min > 0)
		snprintf(buf, len, "warning: the %s figure is not stable: %.1f-%.1f %s over %d "
			 "repetitions (max/min %.2f, above %.2f): %s", calib_figure_name(f),
			 units_rate(s->min, u), units_rate(s->max, u), units_rate_name(u), s->n,
			 s->ratio, CALIB_WIDE, why);
	else
		snprintf(buf, len, "warning: the %s figure is not stable: a repetition measured "
			 "nothing: %s", calib_figure_name(f), why);
	return 1;
}

int calib_fs_rising(double best_before, double now)
{
	if (!isfinite(now))
		return 0;
	return !isfinite(best_before) || now > best_before * CALIB_FS_RISE;
}

int calib_fs_best(const struct calib_data *c)
{
	int best = -1;
	for (int i = 0; i < c->fs_nsteps && i < CALIB_FS_STEPS; i++)
		if (isfinite(c->fs_step[i].MBps) &&
		    (best < 0 || c->fs_step[i].MBps > c->fs_step[best].MBps))
			best = i;
	return best;
}

/* The read through the file system: each node's median and spread, the pooled spread, the
 * mean over nodes. */
static void calib_summarise_fs(struct calib_data *c)
{
	size_t reps = c->reps > 0 ? (size_t)c->reps : 1, nn = (size_t)c->nnodes;
	double sum = 0;
	int k = 0;
	c->fs_read_MBps = NAN;
	calib_spread_of(NULL, 0, &c->fs_spread);
	for (size_t n = 0; n < nn; n++) {
		calib_spread_of(c->fs_reps_MBps ? c->fs_reps_MBps + n * reps : NULL,
				c->fs_reps_MBps ? reps : 0, &c->nodes[n].fs_spread);
		c->nodes[n].fs_read_MBps = c->nodes[n].fs_spread.median;
		if (isfinite(c->nodes[n].fs_read_MBps)) {
			sum += c->nodes[n].fs_read_MBps;
			k++;
		}
	}
	if (c->fs_reps_MBps != NULL)
		calib_spread_of(c->fs_reps_MBps, nn * reps, &c->fs_spread);
	if (k > 0)
		c->fs_read_MBps = sum / k;
}

void calib_summarise(struct calib_data *c)
{
	calib_summarise_fs(c);
	size_t reps = c->reps > 0 ? (size_t)c->reps : 1, nn = (size_t)c->nnodes;
	double *one = malloc((nn ? nn : 1) * sizeof *one);
	for (int f = 0; f < CALIB_NFIG; f++) {
		const double *all = c->reps_MBps[f];
		for (size_t n = 0; n < nn; n++) {
			const double *fig[CALIB_NFIG] = {&c->nodes[n].disk_MBps,
							 &c->nodes[n].memcpy_MBps,
							 &c->nodes[n].link_MBps};
			if (one != NULL)
				one[n] = *fig[f];
			calib_spread_of(all ? all + n * reps : fig[f], all ? reps : 1,
					&c->nodes[n].spread[f]);
		}
		if (all != NULL)
			calib_spread_of(all, nn * reps, &c->spread[f]);
		else
			calib_spread_of(one ? one : all, one ? nn : 0, &c->spread[f]);
	}
	free(one);
}
