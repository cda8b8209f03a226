/* budget: the next phase's estimate from the phases timed so far, and the time budget's test
 * (run --time-budget). Pure functions. */
#include "run/budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double budget_rate_time(uint64_t bytes, double MBps)
{
	if (!(MBps > 0) || !isfinite(MBps))
		return -1;
	return (double)bytes / (MBps * 1e6);
}

unsigned long long budget_chain_jobs(double total_s, double limit_s)
{
	double usable = limit_s - budget_margin(limit_s) - 60; /* start-up and checks: a minute */
	if (!(limit_s > 0) || !(usable > 0))
		return 0;
	if (!(total_s > 0))
		return 1;
	return (unsigned long long)ceil(total_s / usable);
}

void budget_one_job(double total_s, long *hours, int *minutes)
{
	long mins = total_s > 0 ? (long)ceil(total_s * 1.25 / 60) : 1;
	if (mins < 1)
		mins = 1;
	*hours = mins / 60;
	*minutes = (int)(mins % 60);
}

/* One unsigned number of at most 9 digits at *p; -1 when there is none. */
static long budget_number(const char **p)
{
	const char *q = *p;
	long v = 0;
	int n = 0;
	while (*q >= '0' && *q <= '9' && n < 9) {
		v = v * 10 + (*q++ - '0');
		n++;
	}
	if (n == 0 || (*q >= '0' && *q <= '9'))
		return -1;
	*p = q;
	return v;
}

int budget_parse_hms(const char *text, double *s)
{
	const char *p = text;
	long days = 0, f[3];
	int n = 0;
	if (text == NULL)
		return -1;
	while (*p == ' ')
		p++;
	const char *dash = strchr(p, '-');
	if (dash != NULL) {
		if ((days = budget_number(&p)) < 0 || p != dash)
			return -1;
		p++;
	}
	for (;;) {
		if (n == 3 || (f[n] = budget_number(&p)) < 0)
			return -1;
		n++;
		if (*p != ':')
			break;
		p++;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	if (*p != '\0')
		return -1;
	double v;
	if (dash != NULL) /* D-HH, D-HH:MM, D-HH:MM:SS */
		v = (double)f[0] * 3600 + (n > 1 ? (double)f[1] * 60 : 0) + (n > 2 ? (double)f[2] : 0);
	else /* SS, MM:SS, HH:MM:SS */
		v = n == 1 ? (double)f[0]
		    : n == 2 ? (double)f[0] * 60 + (double)f[1]
			     : (double)f[0] * 3600 + (double)f[1] * 60 + (double)f[2];
	*s = v + (double)days * 86400;
	return 0;
}

/* The value of "KEY = VALUE" on a line of qstat -f's text, into buf; 0 or -1. */
static int budget_qstat_value(const char *text, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *p = line, *end = strchr(line, '\n');
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, key, klen) == 0) {
			p += klen;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '=') {
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
				while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r'))
					n--;
				if (n >= len)
					return -1;
				memcpy(buf, p, n);
				buf[n] = '\0';
				return 0;
			}
		}
		line = end != NULL ? end + 1 : NULL;
	}
	return -1;
}

int budget_pbs_left(const char *qstat_text, double *left)
{
	char v[64];
	double limit, used = 0;
	if (qstat_text == NULL ||
	    budget_qstat_value(qstat_text, "Resource_List.walltime", v, sizeof v) != 0 ||
	    budget_parse_hms(v, &limit) != 0)
		return -1;
	if (budget_qstat_value(qstat_text, "resources_used.walltime", v, sizeof v) == 0 &&
	    budget_parse_hms(v, &used) != 0)
		used = 0;
	*left = limit > used ? limit - used : 0;
	return 0;
}
