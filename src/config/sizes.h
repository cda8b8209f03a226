/* sizes: the maths of a data set's size spec (lognormal draws, a histogram's interleaving and
 * median), so that every file's size is a pure function of (size spec, seed, index) and no
 * rank needs a list. The loader counts and sums data sets with it; dataset_file_size
 * (dataset.h) gives each file its size with it. Pure: no MPI, no allocation. */
#ifndef PFSREAD_CONFIG_SIZES_H
#define PFSREAD_CONFIG_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* Lognormal data sets are sized at load, O(nfiles) per rank: at most this many files. */
#define SIZES_MAX_FILES 10000000ull

/* File i's size in a histogram data set: position p = (i x stride) mod nfiles (stride coprime
 * with nfiles, so a permutation) falls in the bucket whose cumulative counts hold it: the
 * counts are exact and the buckets interleave across indices. */
uint64_t sizes_histogram_at(const struct cfg_dataset *d, uint64_t i);

/* The lognormal draw for file i before the trim of the last file (what total_size sums). */
uint64_t sizes_lognormal(const struct cfg_dataset *d, uint64_t i);

/* The standard normal quantile of p in (0, 1) (Acklam's rational approximation, relative
 * error below 1.2e-9). */
double sizes_normal_quantile(double p);

/* A stride coprime with n (n >= 1), near n x 0.618, for the histogram's interleaving. */
uint64_t sizes_histogram_stride(uint64_t n);

/* The size of the file at position (n - 1) / 2 when all files are sorted by size: what a
 * variable data set records as its file_size (results, reports). */
uint64_t sizes_histogram_median(const struct cfg_dataset *d);

#endif
