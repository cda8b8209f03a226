/* calibrate: what the hardware can do, measured (pfsread calibrate CONFIG, under mpirun): one
 * large sequential O_DIRECT read per node, memory-copy bandwidth per node and MPI point-to-point
 * bandwidth between node pairs, into an HDF5 file with a /calibration group that the report
 * uses as ceilings where the config declares no hardware. The reader needs no MPI. */
#ifndef PFSREAD_CALIBRATE_H
#define PFSREAD_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "results/results.h"

#define CALIB_SCHEMA_VERSION 1

/* One node's figures in MB/s (10^6 B/s); NaN when not measured. */
struct calib_node {
	char host[RECORD_HOST_MAX];
	double disk_MBps;   /* one sequential O_DIRECT read (buffered after a cache drop if O_DIRECT
			     * is refused: see disk_method) */
	double memcpy_MBps; /* memcpy of a large buffer, best of several passes */
	double link_MBps;   /* MPI point-to-point between node leaders, mean of its pairs */
};

/* One direction of one node pair. */
struct calib_pair {
	int32_t from, to; /* node numbers */
	double MBps;
};

/* A calibration file in memory. */
struct calib_data {
	char *path;
	char *config_path, *start_time, *command_line;
	char *disk_source; /* what was read: a data set file or a temporary file */
	char *disk_method; /* "O_DIRECT" or "buffered after POSIX_FADV_DONTNEED" */
	uint64_t disk_bytes;    /* read by node 0 for its disk figure */
	uint64_t mem_bytes, msg_bytes;
	int nnodes;
	struct calib_node *nodes; /* [nnodes] */
	size_t npairs;
	struct calib_pair *pairs;
	/* means over the nodes that measured them, NaN when none did */
	double disk_MBps, memcpy_MBps, link_MBps;
};

/* 1 when path is an HDF5 file with a /calibration group, 0 otherwise (also when it cannot be
 * opened: the results reader then says why). */
int calib_probe(const char *path);

/* Read a calibration file. Fails with a message naming the file (PF_RUNTIME). */
int calib_read(const char *path, struct calib_data *c, struct pf_err *e);
void calib_free(struct calib_data *c);

/* Write c to path (rank 0 only; plain HDF5), refusing an existing file unless force. */
int calib_write(const char *path, int force, const struct calib_data *c, const char *config_yaml,
		struct pf_err *e);



#endif
