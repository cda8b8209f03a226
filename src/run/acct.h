/* acct: a rank's time accounting from its file records, comparable across read paths. A
 * synchronous backend opens, reads and closes one file after another, so summing each file's
 * steps gives the rank's wall time in each; a pipelined one (uring) has many files in each
 * step at once, and sums would count the same second several times (three ranks that together
 * spent 4.3 s would show read_s 12.97 s). Here every instant a rank spends inside some
 * file's open, read or close counts once, in one step: read if any file is being read then,
 * else open if any is being opened, else close. The parts add up to the rank's busy wall time;
 * what the per-file sums exceed it by is the overlap. Pure: no clock, no MPI. */
#ifndef PFSREAD_ACCT_H
#define PFSREAD_ACCT_H

#include <stdint.h>

#include "pfsread/record.h"

struct acct {
	double open_s, read_s, close_s; /* wall time, each instant counted once */
	double overlap_s;               /* per-file sums minus the wall time they cover (0 when
					 * no two files' steps overlap) */
};

/* The accounting of f[0..n) (their open_start, open_end, read_end, close_end; steps with a
 * time that is not finite or runs backwards are left out). Returns 0, or -ENOMEM when the
 * records overlap and the sweep's memory cannot be had: then *a holds the per-file sums and
 * overlap_s is NAN. */
int acct_rank(const struct file_rec *f, uint64_t n, struct acct *a);

#endif
