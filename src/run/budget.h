/* budget: how long the next phase of a run will take, from the phases it has timed, and
 * whether it fits the time left (run --time-budget). Pure: no MPI, no clock, unit-tested. */
#ifndef PFSREAD_BUDGET_H
#define PFSREAD_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* A phase already timed: its data set, what it read, and how long it took from start to end
 * of its step in the run (cache preparation, barriers, reads and the results write). */
struct budget_phase {
	uint32_t dataset;
	uint64_t bytes, files;
	double wall_s;
};

/* The estimate of a phase reading bytes in files from dataset, in seconds, or -1 when nothing
 * has been timed: the slowest timed phase of the same data set (readers per node, backends
 * and orders differ within one; the slowest is the safe side), else of the data set whose
 * mean file size is nearest (small files cost per file, large ones per byte), scaled by
 * bytes. */
double budget_estimate(const struct budget_phase *done, size_t ndone, uint32_t dataset,
		       uint64_t bytes, uint64_t files);

/* The margin kept free at the end of a budget: 5% of it, at least 2 s and at most 300 s (the
 * results file's close and the batch system's own ending must fit in it). */
double budget_margin(double budget_s);

/* 1 when a phase whose estimate is estimate_s (-1: unknown) may start used_s seconds into a
 * budget of budget_s (<= 0: no budget): it ends before budget minus the margin. An unknown
 * estimate starts while any time is left before the margin. */
int budget_allows(double budget_s, double used_s, double estimate_s);

#endif
