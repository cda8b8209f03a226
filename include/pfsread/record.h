/* record: what one timed phase produced, as the phase driver fills it, the HDF5 writer stores
 * it and the report reads it back. One set of types for the whole data flow. */
#ifndef PFSREAD_RECORD_H
#define PFSREAD_RECORD_H

#include <stddef.h>
#include <errno.h>
#include <stdint.h>

/* A host name in the records: /topology/hostname holds fixed-length strings of this size. */
#define RECORD_HOST_MAX 256

/* The sweep point of a phase: every key that tells phases apart but the repetition. The phases
 * of one report cell share all of it (and the measured cache state). Each field is described
 * once, in the sweep key table (src/config/sweep.c): its HDF5 attribute (/phases/NNNN, by the
 * member's name), its config list, its name and value in reports, the "same cell" comparison. */
struct sweep_point {
	char dataset[128];
	uint64_t file_size;        /* bytes (a variable data set's median) */
	int32_t readers_per_node;
	char backend[32];
	uint64_t transfer_size;    /* bytes */
	char order[16];            /* sorted | reverse | random */
	char cache[16];            /* drop | fadvise | none | shift | direct */
	char pattern[16];          /* per-reader | shared */
	char decomposition[16];    /* block | cyclic */
	int32_t queue_depth;       /* requests in flight per reader (1 for synchronous backends) */
	char advice[16];           /* since schema 4: the hint given per file: none | sequential |
				    * willneed */
};

/* How a phase ended, worst last: a phase's status is the worst of its ranks'. In the results
 * file as its word: complete, failed (an I/O error, a short file), timeout, interrupted.
 * PHASE_UNKNOWN is what a reader makes of a word no pfsread writes. */
enum phase_status { PHASE_COMPLETE, PHASE_FAILED, PHASE_TIMEOUT, PHASE_INTERRUPTED, PHASE_UNKNOWN };

/* Phase attributes: the sweep point and its outcome (HDF5 attributes of /phases/NNNN). */
struct phase_info {
	uint32_t index;            /* 0-based phase number, also the group name %04u */
	struct sweep_point sweep;
	uint64_t nfiles;           /* files in the data set */
	int32_t active_readers;    /* readers over all nodes */
	int32_t repetition;        /* 0-based */
	uint64_t seed;             /* of the random order */
	int32_t noatime;           /* 1 when every file was opened with O_NOATIME */
	char atime_mode[16];       /* of the data set's mount: noatime | relatime | strictatime | ... */
	char mpiio_hints[512];     /* "key=value,..." passed to MPI_File_open ("" for none) */
	double resident_fraction;  /* of the phase's bytes in the page cache just before it */
	char process[32];          /* read-and-process: "xxh64+200ns/B", "sha1", "50ns/B" or "none" */
	/* outcome, identical on every rank after phase_run */
	uint64_t bytes;            /* read by all ranks */
	double elapsed_s;          /* last reader's end - first reader's start */
	double bandwidth_MBps;     /* bytes / elapsed_s / 1e6 */
	int32_t status;            /* enum phase_status (in the file its word) */
	/* since schema 2 */
	char cache_state[8];       /* measured: cold | mixed | warm (report_cache_state) */
	char cache_evict[16];      /* what was done beyond the strategy: "" or "fadvise" or "drop"
				    * (cache: shift with more uses than cold nodes) */
	double start_skew_s;       /* latest minus earliest exit from the opening barrier */
	double clock_bound_s;      /* the most start_skew_s may be for the clocks to be trusted */
	char flags[64];            /* comma-separated doubts about the phase ("clock"), "" none */
	/* since schema 3 */
	char provenance[128];      /* which counter tells where the bytes came from, as rank 0
				    * found it: "read_bytes", "net rx of IF", "unknown: why" */
	/* since schema 4 */
	char hints[192];           /* every hint the read path gave, in words (backend's hints) */
	/* since schema 7 */
	double origin_s;           /* the phase's time zero (its opening barrier's first exit) on
				    * the run's clock, rank 0's CLOCK_MONOTONIC: the gap to the next
				    * phase's is what the run spent outside this phase's reads */
};

/* One row of /phases/NNNN/ranks. Times in seconds since the phase's opening barrier,
 * on the global clock base (node clock offsets applied). */
struct rank_rec {
	int32_t rank;
	int32_t node;
	int32_t active;            /* 1 if this rank read in the phase */
	double start;              /* first open */
	double end;                /* last close */
	uint64_t bytes;
	uint64_t files;
	double open_s;             /* wall time with some file of the rank's being opened (and none
				    * read): each instant once (run/acct.h); schema <= 2: summed
				    * over the rank's files */
	double read_s;             /* wall time with some file being read */
	double close_s;            /* wall time with some file being closed (none read or opened) */
	double resident_fraction;  /* of this rank's bytes in the page cache just before the phase */
	double verify_s;           /* checking content (verify: true), kept out of every time above */
	double io_s;               /* in open, read and close calls (a pipelined backend, whose
				    * calls overlap: end - start) */
	double process_s;          /* digesting and spending CPU per byte (process:), on the clock:
				    * inside read_s, which spans a file's reads and their processing */
	/* since schema 2 */
	double barrier_s;          /* this rank's exit from the opening barrier */
	double clock_offset_s;     /* added to its clock to get rank 0's */
	double clock_error_s;      /* the most clock_offset_s can be wrong by */
	/* since schema 3: the kernel's counters over the phase, read before the opening barrier
	 * and after the closing one (docs/results-file.md "Where the bytes came from") */
	uint64_t storage_read_bytes; /* /proc/self/io read_bytes: fetched from storage for it */
	uint64_t rchar;            /* /proc/self/io rchar: returned by its read calls */
	uint64_t net_rx_bytes;     /* the node's first rank: received on the file system's
				    * interfaces; 0 on the other ranks */
	int32_t counted;           /* 1 when every counter above was read, before and after */
	uint64_t peak_rss;         /* bytes: the rank's peak resident memory so far (getrusage
				    * ru_maxrss), read after the closing barrier */
	/* since schema 4 */
	double overlap_s;          /* the per-file sums of the three steps minus open_s + read_s +
				    * close_s: time counted more than once (0 for a synchronous
				    * backend; NAN when unknown) */
	/* since schema 6: the CPU time the rank's process spent in the timed part (its reads,
	 * process: and verify: work included; getrusage RUSAGE_SELF: every thread, an io_uring
	 * worker's too), user and system; NAN when getrusage failed or the file is older */
	double cpu_user_s;
	double cpu_sys_s;
};

/* One row of /phases/NNNN/files: one file read by one rank. */
struct file_rec {
	uint64_t file;             /* index in the data set */
	int32_t rank;
	double open_start;
	double open_end;           /* the file is open: open_end - open_start is metadata time */
	double read_end;           /* all reads done */
	double close_end;
	uint64_t bytes;
	int32_t error;             /* errno of the failure on this file, RECORD_SHORT when it ended
				    * before its bytes, RECORD_ABANDONED when its read was given up
				    * at another file's failure, 0 when it was read whole */
	/* since schema 5 */
	uint32_t target;           /* the storage target holding it: an entry of the phase's
				    * targets table (/phases/NNNN/targets); 0 is "not looked up"
				    * (and what a row of an older file reads) */
};

/* A storage target's name in /phases/NNNN/targets: fixed-length, NUL-terminated strings
 * ("n1:/bricks/b0", "n2:/dev/sda1", "ost 3", "unknown: timeout"). */
#define RECORD_TARGET_MAX 128

/* A phase's table of storage targets: entry 0 is always RECORD_TARGET_NONE. */
struct target_table {
	char (*name)[RECORD_TARGET_MAX]; /* [n], malloc'ed */
	uint32_t n;
};
#define RECORD_TARGET_NONE "not looked up"


/* The error of a file that ended before its expected bytes (it shrank during the run, or a
 * read path saw an early end): ENODATA, "No data available", documented in the README. */
#define RECORD_SHORT ENODATA
/* The error of a file a pipelining backend had started when it gave its reader's share up at
 * another file's failure (uring stops at the first bad file): ECANCELED, "Operation
 * canceled". Its bytes are what arrived before. */
#define RECORD_ABANDONED ECANCELED

#endif
