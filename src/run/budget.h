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

/* Seconds to read bytes at MBps (10^6 B/s), or -1 when the rate is unknown (<= 0 or NaN). */
double budget_rate_time(uint64_t bytes, double MBps);

/* The jobs of limit_s seconds each that a chained study of total_s seconds needs: each job
 * loses its budget's margin and a minute of start-up and checks. 0 when a job is too short to
 * read anything (or the limit is unknown). */
unsigned long long budget_chain_jobs(double total_s, double limit_s);

/* The time limit one job needs for total_s seconds, with a quarter to spare, rounded up to the
 * minute: *hours and *minutes, for --time=H:MM:00 and -l walltime=H:MM:00. */
void budget_one_job(double total_s, long *hours, int *minutes);

/* A scheduler's duration: "SS", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"
 * (Slurm's squeue %L and %l, PBS's walltime). 0 and *s, or -1 (UNLIMITED, INVALID, garbage). */
int budget_parse_hms(const char *text, double *s);

/* The seconds a PBS job has left, from the text of `qstat -f JOBID`: Resource_List.walltime
 * less resources_used.walltime (0 used when not there yet). 0 and *left, or -1 when the
 * job has no walltime limit in the text. */
int budget_pbs_left(const char *qstat_text, double *left);

#endif
