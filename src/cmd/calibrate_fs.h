/* calibrate_fs: the read figure through the file system (pfsread calibrate --through-fs DATASET):
 * on every node at once its first 1, 2, 4, ... ranks read files of a generated data set, each
 * repetition timed per node from its first reader's start to its last reader's end, the
 * readers doubled while the node's rate still rises (results/calib.h calib_fs_rising). */
#ifndef PFSREAD_CALIBRATE_FS_H
#define PFSREAD_CALIBRATE_FS_H

#include <stdint.h>

#include "config/config.h"
#include "results/calib.h"
#include "run/topology.h"
#include "util/err.h"

/* Bytes each reader reads in a repetition unless --fs-size says otherwise: as the disk's read,
 * enough that a server's or a drive's cache serves little of it and start-up is a small part. */
#define CALFS_BYTES_DEFAULT CALIB_DISK_MIN

struct calfs_opts {
	const char *dataset; /* NULL: not measured */
	uint64_t bytes;      /* read by each reader in each repetition */
	uint64_t transfer;   /* bytes per read call (calrd_transfer) */
	int reps;
};

/* Every rank: the data set named o->dataset, usable for the figure (fixed file sizes, not
 * hashed, generated completely), else a usage error naming it (exit 2). */
int calfs_check(const struct experiment *x, const struct calfs_opts *o, struct pf_err *e);

/* Collective over MPI_COMM_WORLD: measure, and on rank 0 fill c's fs_* fields (c->nnodes set;
 * c->reps the repetitions). A read that fails leaves that repetition NaN and says why in
 * note (rank 0). Returns -1 only when MPI failed or memory ran out. */
int calfs_measure(const struct experiment *x, const struct calfs_opts *o,
		  const struct topology *t, struct calib_data *c, char *note, size_t nlen,
		  struct pf_err *e);

#endif
