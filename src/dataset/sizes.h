/* sizes: the size of every file of a data set as a pure function of (size spec, seed, index),
 * so that no rank needs a list: fixed, lognormal (O(1) per file) or a histogram (O(log k)).
 * Pure: no MPI, no allocation. */
#ifndef PFSREAD_SIZES_H
#define PFSREAD_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* Lognormal data sets are sized at load, O(nfiles) per rank: at most this many files. */
#define SIZES_MAX_FILES 10000000ull

/* The size in bytes of file i (0 <= i < d->nfiles) of d. For lognormal: median x
 * exp(sigma x z), z the standard normal quantile of a hash of (d->seed, d->name, i), rounded
 * and clamped to [min, max]; the last file of a data set given by total_size is trimmed so
 * that the total is exact. For a histogram: position p = (i x stride) mod nfiles (stride
 * coprime with nfiles, so a permutation) falls in the bucket whose cumulative counts hold it:
 * the counts are exact and the buckets interleave across indices. */
uint64_t dataset_file_size(const struct cfg_dataset *d, uint64_t i);

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

/* A one-line description of d's size spec for manifests and plan ("lognormal median=4096
 * sigma=1.5 min=7 max=1048576 seed=1 nfiles=300 total=...", or for a tree "tree nfiles=N
 * total=T dirs=D depth=K list=HASH"); "" for a fixed-size data set.
 * Returns 0, or -1 when it did not fit in len. */
int sizes_describe(const struct cfg_dataset *d, char *buf, size_t len);

#endif
