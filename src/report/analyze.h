/* analyze: what one phase's records say beyond its aggregate bandwidth: the first finisher
 * (stonewall) bandwidth and the spread of finish times, files per second, the split of reader
 * time between metadata (open, close) and data (read), each node's bandwidth, each file's time.
 * Pure: works on struct phase_data in memory, no I/O, no MPI. Records that make no sense (a rank
 * or node out of range, a time that is not finite) are skipped, never trusted. */
#ifndef PFSREAD_ANALYZE_H
#define PFSREAD_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "results/results.h"

/* A reader, for these figures, is an active rank that read at least one file. */
struct phase_summary {
	int readers;            /* ranks that read at least one file */
	double t0;              /* first reader's start [s since the opening barrier] */
	double first_end;       /* first reader to finish */
	double last_end;        /* last reader to finish */
	int first_rank, last_rank;
	double stonewall_bytes; /* bytes read by all readers by first_end */
	double stonewall_MBps;  /* stonewall_bytes / (first_end - t0) / 1e6 */
	double spread_s;        /* last_end - first_end */
	uint64_t files;         /* files read (records, else the ranks' counts) */
	double files_per_s;     /* files / elapsed_s of the phase */
	double open_s, read_s, close_s; /* summed over the ranks (each rank's: wall time) */
	double overlap_s;       /* summed over the ranks: pipelined requests' time counted twice */
	double meta_fraction;   /* (open + close) / (open + read + close) */
	double cpu_user_s, cpu_sys_s; /* summed over the ranks: CPU time in the timed part */
	double cpu_s_per_GB;    /* (user + sys) / (bytes / 10^9); NaN when unknown (a rank that
				 * read has no figure: a file before schema 6) or nothing was read */
};

/* Summarise pd. Bytes by the first finish: every file whose reads ended by then whole, a file
 * being read then pro rata of its read interval (open_end to read_end); without file records,
 * each reader pro rata of its own start-to-end interval. */
void analyze_phase(const struct phase_data *pd, struct phase_summary *s);

/* One node in one phase. */
struct node_bw {
	int readers;      /* its ranks that read at least one file */
	uint64_t bytes;   /* read by them */
	double start, end; /* first start, last end of those ranks */
	double MBps;      /* bytes / (end - start) / 1e6; NaN when it read nothing */
};

/* Node bandwidths of pd into out[0..nnodes): nodes taken from the rank records' node field
 * (ranks naming a node outside 0..nnodes-1 are skipped). Returns how many nodes had readers. */
int analyze_nodes(const struct phase_data *pd, int nnodes, struct node_bw *out);

/* Seconds from open to close of each of pd's files into secs[] (room for pd->nfiles);
 * returns how many (records with non-finite or reversed times are skipped). */
size_t analyze_file_times(const struct phase_data *pd, double *secs);

/* Where a phase's bytes came from, by the kernel's counters (run/provenance.h): from_storage
 * is the ranks' read_bytes for local data, the node leaders' bytes received for remote data. */
struct phase_provenance {
	uint64_t from_storage;
	double fraction;   /* from_storage / bytes, at most 1; NaN when unknown */
	char verdict[48];  /* storage | cache | mixed: N% from cache | unknown */
	char why[160];     /* the counter used, or why there is none */
};

/* The verdict on pd: "unknown" when the file predates the counters, the run found none for
 * its mount, or a rank that read could not read its counters. local is the share of each
 * node's reads that comes from a server on the node itself (ceiling_local_share: data on the
 * compute nodes; 0 none): the bytes received then count for 1 - local of the bytes from
 * storage (prov_net_storage), so a node's own stripe is storage, not cache. */
void analyze_provenance(const struct phase_data *pd, double local, struct phase_provenance *p);

/* What the run spent outside phase i's reads: its time zero to the next phase's, less its
 * elapsed time (its results write; the next phase's plan, cache eviction, clock sync and
 * barriers). NaN for the last phase of a part (the next one ran in another job, on another
 * clock), where the parts' phase counts are not known, or in a file before schema 7. */
double analyze_outside_s(const struct run_data *run, size_t i);

/* The median of analyze_outside_s over the run's phases that have one; NaN when none does. */
double analyze_outside_median(const struct run_data *run);

/* Stonewall bytes: the bytes of files (file records) done by time t, pro rata as above. */
double analyze_bytes_by(const struct file_rec *files, size_t n, double t);

/* Each rank's peak resident memory (rank_rec.peak_rss, the most over the run's phases), over
 * the ranks that recorded one: how many, the largest and which rank, the median. */
struct rss_summary {
	size_t ranks;       /* ranks with a figure (0: none recorded, a file before schema 3) */
	uint64_t max;       /* bytes */
	int max_rank;
	double median;      /* bytes */
};

/* 0, or -1 when out of memory. */
int analyze_peak_rss(const struct run_data *run, struct rss_summary *s);

/* rows[0..n) of pd into d's cells (node x target; the node is the row's rank's), growing
 * them as new nodes and targets appear; rows whose rank, node or time makes no sense are
 * skipped. 0, or -1 when out of memory. */
int analyze_cells_add(struct files_digest *d, const struct phase_data *pd,
		      const struct file_rec *rows, size_t n);

/* The first reader's start and the last reader's end in pd (its rank records), seconds after
 * its opening barrier; returns the readers (0: the times are NaN). */
int analyze_reading_span(const struct phase_data *pd, double *t0, double *end);

/* The take function of results_read_rows (ctx unused): pd's rows, chunk by chunk, into
 * pd->digest: the stonewall bytes, every file's time, the slowest files. What analyze_phase,
 * analyze_file_times and the stragglers then use in place of the rows. 0, or -1 (memory). */
int analyze_take_rows(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		      struct pf_err *e);

#endif
