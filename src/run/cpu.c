/* cpu: user and system CPU time over a stretch of code (cpu.h). */
#include "run/cpu.h"

#include <math.h>
#include <sys/resource.h>

void cpu_mark(struct cpu_mark *m)
{
	struct rusage u;
	m->ok = getrusage(RUSAGE_SELF, &u) == 0;
	if (m->ok) {
		m->user = u.ru_utime;
		m->sys = u.ru_stime;
	}
}

static double cpu_seconds(struct timeval from, struct timeval to)
{
	return (double)(to.tv_sec - from.tv_sec) + (double)(to.tv_usec - from.tv_usec) / 1e6;
}

void cpu_between(const struct cpu_mark *a, const struct cpu_mark *b, double *user, double *sys)
{
	*user = *sys = NAN;
	if (!a->ok || !b->ok)
		return;
	double u = cpu_seconds(a->user, b->user), s = cpu_seconds(a->sys, b->sys);
	if (u < 0 || s < 0)
		return;
	*user = u;
	*sys = s;
}
