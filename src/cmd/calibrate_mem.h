/* calibrate_mem: the memory-copy figure of pfsread calibrate, by its rule (results/calib.h
 * CALIB_MEM_MIN, CALIB_MEM_COPIES): buffers on huge pages, each copy timed on the copying
 * thread's CPU clock, each repetition the median of several copies. No MPI. */
#ifndef PFSREAD_CALIBRATE_MEM_H
#define PFSREAD_CALIBRATE_MEM_H

#include <stdint.h>

/* The CPU's last-level cache in bytes, 0 when the system does not say. */
uint64_t calmem_llc(void);

/* The default --mem-size: CALIB_MEM_MIN, or four times the last-level cache when that is more
 * (a copy the cache cannot hold measures the memory), in whole MiB. */
uint64_t calmem_default(void);

/* reps repetitions of copies of bytes into MBps[0..reps) (MB/s; left as they are when memory
 * runs out or a signal arrives). */
void calmem_measure(uint64_t bytes, int reps, double *MBps);

#endif
