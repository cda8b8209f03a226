/* calibrate: what the hardware can do, measured (pfsread calibrate CONFIG, under mpirun): a
 * large sequential O_DIRECT read per node, memory-copy bandwidth per node and MPI point-to-point
 * bandwidth between node pairs, each repeated, into an HDF5 file with a /calibration group that
 * the report uses as ceilings where the config declares no hardware (the median of the
 * repetitions, with their spread). The reader needs no MPI. */
#ifndef PFSREAD_CALIBRATE_H
#define PFSREAD_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/units.h"
#include "results/results.h"

#define CALIB_SCHEMA_VERSION 2 /* 2: repetitions (version 1 files are read: one each) */

#define CALIB_REPS_DEFAULT 5
#define CALIB_REPS_MIN 3   /* a median and a spread need three */
#define CALIB_REPS_MAX 100
/* Repetitions whose largest is more than this times their least (a spread over 10%): the
 * figure is not stable. calibrate warns and every report flags a ceiling taken from it. */
#define CALIB_WIDE 1.10
/* The disk rule: a read below this may be served by a drive's or a controller's own cache (and
 * is dominated by its start-up); the default --disk-size is four times it. */
#define CALIB_DISK_MIN (256ull << 20)

/* The memory-copy rule: the default --mem-size is this or four times the CPU's last-level
 * cache, whichever is more; each repetition is the median of CALIB_MEM_COPIES copies, each
 * timed on the copying thread's CPU clock (time spent waiting for a core is left out). */
#define CALIB_MEM_MIN (256ull << 20)
#define CALIB_MEM_COPIES 7

/* The read through the file system (--through-fs): the readers per node double while the
 * node's rate rises by more than this (a rise within a shared node's noise is no rise), up to
 * CALIB_FS_STEPS steps (1 to 128 readers per node) or the ranks each node has. */
#define CALIB_FS_RISE 1.10
#define CALIB_FS_STEPS 8

/* The figures, in file order. */
enum calib_figure { CALIB_DISK, CALIB_MEMCPY, CALIB_LINK, CALIB_NFIG };

/* Repetitions of one figure, summarised (MB/s). n is how many were finite; the rest NaN when
 * none was (and ratio when fewer than two were, or the least is not above 0). */
struct calib_spread {
	int n;
	double median, min, max, q1, q3;
	double ratio; /* max / min */
};

/* One node's figures in MB/s (10^6 B/s); NaN when not measured. */
struct calib_node {
	char host[RECORD_HOST_MAX];
	/* each the median of the node's repetitions (a file of version 1: one measurement) */
	double disk_MBps;   /* a sequential O_DIRECT read (buffered after a cache drop if O_DIRECT
			     * is refused: see disk_method) */
	double memcpy_MBps; /* memcpy of a large buffer */
	double link_MBps;   /* MPI point-to-point between node leaders, per repetition the mean
			     * of its pairs */
	struct calib_spread spread[CALIB_NFIG]; /* its repetitions of each figure */
	double fs_read_MBps; /* read through the file system (median at fs_readers), NaN: none */
	struct calib_spread fs_spread;
};

/* One step of the read through the file system. */
struct calib_fs_step {
	int32_t readers; /* per node */
	double MBps;     /* per node: the mean over the nodes of each node's median */
};

/* One direction of one node pair. */
struct calib_pair {
	int32_t from, to; /* node numbers */
	double MBps;      /* the median of its repetitions */
};

/* A calibration file in memory. */
struct calib_data {
	char *path;
	int version;            /* CALIB_SCHEMA_VERSION of the file read */
	char *config_path, *start_time, *command_line;
	char *disk_source; /* what was read: a data set file or a temporary file */
	char *disk_method; /* "O_DIRECT" or "buffered after POSIX_FADV_DONTNEED" */
	uint64_t disk_bytes;    /* read by node 0 for its disk figure */
	uint64_t mem_bytes, msg_bytes;
	uint64_t llc_bytes;     /* the CPU's last-level cache on rank 0's node, 0: unknown (v2) */
	double disk_resident;   /* the most of the disk's file found in the page cache before a
				 * read (a buffered read where O_DIRECT is refused), 0..1 (v2) */
	int reps;               /* repetitions of each figure on each node (1 in a version 1 file) */
	int nnodes;
	struct calib_node *nodes; /* [nnodes] */
	size_t npairs;
	struct calib_pair *pairs;
	/* [CALIB_NFIG][nnodes x reps], node-major: every repetition; NULL in a version 1 file */
	double *reps_MBps[CALIB_NFIG];
	/* means over the nodes that measured them, NaN when none did */
	double disk_MBps, memcpy_MBps, link_MBps;
	/* every repetition of every node pooled: how far the figure moved (calib_read fills it) */
	struct calib_spread spread[CALIB_NFIG];
	/* the read through the file system (--through-fs); fs_dataset NULL when not measured */
	char *fs_dataset;       /* the data set read */
	uint64_t fs_bytes;      /* by each reader in each repetition */
	int fs_nsteps;
	struct calib_fs_step fs_step[CALIB_FS_STEPS];
	int fs_readers;         /* readers per node of the figure: the step with the highest rate */
	int fs_flat;            /* 1: the rate stopped rising; 0: the ranks per node ran out first */
	double *fs_reps_MBps;   /* [nnodes x reps] at fs_readers */
	double fs_read_MBps;    /* the mean over nodes (calib_read fills it), NaN: none */
	struct calib_spread fs_spread; /* every node's repetitions pooled */
};

/* 1 when path is an HDF5 file with a /calibration group, 0 otherwise (also when it cannot be
 * opened: the results reader then says why). */
int calib_probe(const char *path);

/* Read a calibration file. Fails with a message naming the file (PF_RUNTIME). */
int calib_read(const char *path, struct calib_data *c, struct pf_err *e);
void calib_free(struct calib_data *c);

/* Write c (its reps_MBps when set, else one repetition: the node figures) to path (rank 0 only; plain HDF5), refusing an existing file unless force. */
int calib_write(const char *path, int force, const struct calib_data *c, const char *config_yaml,
		struct pf_err *e);

/* ---- the statistics of repetitions (calib_stats.c: pure, no I/O, no HDF5) ---- */

/* "disk", "memory copy", "link". */
const char *calib_figure_name(enum calib_figure f);

/* Summarise v[0..n) (non-finite values left out): median and quartiles interpolated between
 * ranks, extremes, max/min. */
void calib_spread_of(const double *v, size_t n, struct calib_spread *s);

/* 1 when s's repetitions are wider apart than CALIB_WIDE (max/min), else 0. */
int calib_spread_wide(const struct calib_spread *s);

/* "563 MB/s (median of 5: 540-590, max/min 1.09)", or "563 MB/s (one measurement)" for n 1,
 * the figures in unit u; "-" when nothing was measured. Returns buf. */
char *calib_spread_text(const struct calib_spread *s, enum units_rate u, char *buf, size_t len);

/* The one-line warning for figure f when its spread is wide (calib_spread_wide), naming what
 * may make it so: bytes per measurement below what caches hold (for the disk CALIB_DISK_MIN,
 * for memory copy four times cache_bytes, the CPU's last-level cache; 0: unknown), else a
 * busy machine, its range in unit u. buf gets "" and 0 is returned when the figure is
 * stable; 1 otherwise. */
int calib_warning(enum calib_figure f, const struct calib_spread *s, uint64_t bytes,
		  uint64_t cache_bytes, enum units_rate u, char *buf, size_t len);

/* 1 when a step's rate now is a rise on the best before it (above CALIB_FS_RISE times it, or
 * the first finite one), else 0: the readers stop doubling. */
int calib_fs_rising(double best_before, double now);

/* The step of c->fs_step with the highest rate (the first of equal ones), -1 when none. */
int calib_fs_best(const struct calib_data *c);

/* Fill each node's spread and the pooled one from c->reps_MBps (or, without them, from the
 * node figures: one measurement each). */
void calib_summarise(struct calib_data *c);

#endif
