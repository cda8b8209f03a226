/* cpu: the CPU time this process spends over a stretch of code, user and system, from
 * getrusage(RUSAGE_SELF): every thread of the rank counts (an io_uring worker's too, MPI's
 * progress threads too), which is what reading with this process costs. */
#ifndef PFSREAD_CPU_H
#define PFSREAD_CPU_H

#include <sys/time.h>

struct cpu_mark {
	struct timeval user, sys;
	int ok; /* getrusage succeeded */
};

/* Now, into *m. */
void cpu_mark(struct cpu_mark *m);

/* Seconds of user and system CPU time from a to b: both NAN when either mark failed or the
 * time ran backwards. Pure. */
void cpu_between(const struct cpu_mark *a, const struct cpu_mark *b, double *user, double *sys);

#endif
