/* report: what a run measured and whether it is reasonable, from results already in memory
 * (struct run_data). The maths (cells with their statistics, ceilings, time split per file
 * size, stragglers, comparisons) is pure and tested on its own; output goes to a FILE as text,
 * markdown, csv, json or one self-contained HTML page, with gnuplot charts on request. */
#ifndef PFSREAD_REPORT_H
#define PFSREAD_REPORT_H

#include <stdio.h>

#include "config/sweep.h"
#include "run/cache.h"
#include "report/ceiling.h"
#include "util/err.h"
#include "util/units.h"
#include "results/results.h"

struct calib_data; /* calibrate.h */

/* REPORT_TEXT fits its tables in REPORT_TEXT_WIDTH columns (a wide table is split into parts
 * that repeat its first column); REPORT_TEXT_WIDE (report --wide) prints them whole. */
enum report_format { REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON, REPORT_HTML,
		     REPORT_TEXT_WIDE };
#define REPORT_TEXT_WIDTH 100

/* "text" | "markdown" | "csv" | "json" | "html". Returns 0 or -1. */
int report_parse_format(const char *name, enum report_format *f);

/* The cache state phase p measured (cold, mixed or warm: see cache_state_of), whatever its
 * strategy meant: as recorded, or from its resident fraction in files older than schema 2.
 * Repetitions of different states are never averaged together. */
enum cache_state report_phase_state(const struct phase_info *p);

/* Why phase p's figures cannot be true ("negative elapsed time", "bandwidth not a number",
 * ...), or NULL when they can. A results file may be damaged or made by hand: such a phase is
 * listed and flagged INVALID, and left out of every statistic like a failed one. */
const char *report_phase_invalid(const struct phase_info *p);

/* 1 when phase p counts in the statistics: complete, with figures that can be true. */
int report_phase_counts(const struct phase_info *p);

/* One cell: all completed phases that share every sweep key but the repetition, and the same
 * measured cache state. Bandwidths in MB/s (10^6 B/s), times in seconds, fractions in 0..1. */
struct report_cell {
	struct sweep_point sweep; /* what its phases share (the sweep key table: config/sweep.h) */
	enum cache_state state;   /* measured: cold, mixed (some of the data in the page cache) or
				   * warm (all of it) */
	int n;                    /* repetitions aggregated */
	char repetitions[48];     /* which ones, 1-based: "1", "2,3", "1-4", "...": cut when long */
	double mean_MBps, min_MBps, max_MBps; /* barrier-to-barrier aggregate bandwidth */
	double sd_MBps;           /* sample standard deviation, NaN for n < 2 */
	double ci95_MBps;         /* half-width of the 95% confidence interval, NaN for n < 2 */
	double median_MBps;
	double stonewall_MBps;    /* mean first-finisher bandwidth */
	double spread_s;          /* mean time from the first reader's finish to the last's */
	double files_per_s;       /* mean */
	double meta_fraction;     /* mean share of reader time in open + close */
	double resident_fraction; /* mean share of the bytes in the page cache before the phase */
	double cpu_s_per_GB;      /* mean over its phases of the ranks' CPU seconds (user + system,
				   * in the timed part) per GB read; NaN when not recorded */
	int targets;              /* known servers its files lie on, each of a stripe's counted
				   * (spread_of_phase: the mean over its phases, as the four below) */
	double targets_used;      /* servers being read at a moment */
	double targets_could;     /* servers its readers could have kept busy at that moment */
	double target_share;      /* used / could; NaN when not known */
	double target_heaviest;   /* the share of its bytes on the server that holds most */
	int readers;              /* readers that read a file (of the cell's first phase) */
	int reader_nodes;         /* nodes with such readers */
	/* filled by report_cell_ceiling; NaN and "" when there is no ceiling */
	double ceiling_MBps;
	char limit[32];           /* the limiting resource */
	double efficiency;        /* mean_MBps / ceiling_MBps */
	/* where the bytes came from over its phases (analyze_provenance) */
	char from[48];            /* storage | cache | mixed: N% from cache | unknown */
	double from_storage;      /* fraction, NaN when unknown */
	char hints[192];          /* the hints its first phase recorded (phase_info.hints) */
	/* filled by report_cell_shortfall; "" when it is not short of its ceiling */
	char cause[24];           /* a short name of the likely cause (REPORT_CAUSE_*), or
				   * "unknown" */
	char shortfall[512];      /* why, in one line, for people */
};

/* Group run's completed phases into cells, in first-seen order. *cells is malloc'ed (NULL when
 * there are none). Returns the number of cells, or -1 on allocation failure. local: the share
 * of each node's reads from its own node's server (0 none), counted as storage in the cells'
 * verdicts on where their bytes came from (analyze_provenance). */
long report_cells(const struct run_data *run, double local, struct report_cell **cells);

/* The ceiling of cell c on hardware hw for a run of run_nodes nodes: fills c's ceiling figures
 * and, when r is not NULL, every limit considered. */
void report_cell_ceiling(struct report_cell *c, const struct ceil_hw *hw, int run_nodes,
			 struct ceil_result *r);

/* ---- read paths that fall short of the ceiling ---- */

/* A cold cell below this share of its ceiling is short of it: the report says so and, where
 * its read path is a known cause, names it. ~10% is the noise of a shared network run to run. */
#define REPORT_SHORT_OF 0.90
/* A cell above this share of its ceiling contradicts it: every report that gives the share says
 * so beside it (the measurement is right, the hardware figure is not). */
#define REPORT_ABOVE 1.05

/* What the report knows of the file system the run read (its recorded mount). */
struct report_fs {
	int remote; /* a network file system: every byte crosses the reading node's link */
	int fuse;   /* a FUSE mount (GlusterFS, MooseFS, ...): requests go through a daemon */
};

/* 1 when mount type names a FUSE mount ("fuse", "fuse.glusterfs", "fuseblk", ...). */
int report_fs_fuse(const char *mount_type);

/* Fill c->cause and c->shortfall when c is cold, has a ceiling (report_cell_ceiling) and
 * reached less than REPORT_SHORT_OF of it; else clear them. The cause is the read path's where
 * one is known for it on fs (mmap's page faults, collective MPI-IO's lock step, mmap
 * with MADV_SEQUENTIAL on FUSE, O_DIRECT with small transfers), said as likely; and when
 * another cold cell of all[0..n) with the same data set, readers and ceiling but another read
 * path (backend, advice, pattern) reached it, the sentence names that cell: the link can be
 * reached, so the read path is the cause (measured), its mechanism still the likely one. */
void report_cell_shortfall(struct report_cell *c, const struct report_cell *all, long n,
			   const struct report_fs *fs);

/* Where reader time goes, per file size, over the completed phases. Times per file in seconds. */
struct report_size_class {
	uint64_t file_size;
	int phases;
	uint64_t files;
	double open_s, read_s, close_s; /* per file: summed over ranks / files */
	double meta_fraction;           /* (open + close) / (open + read + close) */
};

/* One entry per file size, in first-seen order; *out malloc'ed. Returns how many, or -1. */
long report_size_classes(const struct run_data *run, struct report_size_class **out);

/* A slow node or file in one phase, against the median of that phase's nodes or files. */
struct report_straggler {
	size_t phase;    /* index into run->phases */
	int node;        /* -1 when unknown */
	int rank;        /* the file's reader; -1 for a node */
	uint64_t file;   /* index in the data set (files only) */
	double value;    /* a node's MB/s, or a file's seconds from open to close */
	double median;   /* of the phase's nodes (MB/s) or files (s) */
	double slower;   /* times slower than the median: median/value for nodes, value/median for files */
};

/* One node over all completed phases. */
struct report_node {
	int node;
	int ranks;        /* ranks of the run on it */
	int phases;       /* completed phases in which it read */
	double mean_MBps; /* its bandwidth, mean over those phases */
	double rel_mean;  /* its bandwidth / the phase's median node bandwidth, mean over phases */
	double rel_worst; /* the least of those ratios */
};

/* A straggler is at least this many times slower than the median of its phase: a node's
 * bandwidth (within 20% is the noise of a shared machine or network), a file's open-to-close
 * time (small files' times vary more). */
/* A phase with more file rows than this is read streamed (results_read_rows with
 * analyze_take_rows): its rows are not kept, and its timeline chart has one bar per reader. */
#define REPORT_KEEP_ROWS 20000

#define REPORT_SLOW_NODE 1.2
#define REPORT_SLOW_FILE 2.0

/* The k slowest nodes and files of the run (worst first, only stragglers by REPORT_SLOW_NODE and
 * REPORT_SLOW_FILE), and one report_node per node of the run (nodes[run->nnodes], caller's). The arrays
 * slow_nodes[k] and slow_files[k] are the caller's; *nn and *nf say how many were filled.
 * Returns 0, or -1 on allocation failure. */
int report_stragglers(const struct run_data *run, size_t k, struct report_straggler *slow_nodes,
		      size_t *nn, struct report_straggler *slow_files, size_t *nf,
		      struct report_node *nodes);

/* ---- storage targets: which target is slow, which node (attrib.c) ---- */

/* A target is slow from every node when, from each node that read it and others, its files
 * took more than this many times the median of the other targets' files from the same node;
 * a node is slow on every target against the other nodes on the same target by
 * REPORT_SLOW_NODE. Times are each file's open to close over its phase's median file. */
#define REPORT_SLOW_TARGET 1.2
#define REPORT_TARGET_SLOW_FILES 3 /* slowest files named per target */

struct report_target {
	char name[RECORD_TARGET_MAX];
	int known;        /* a real target (not "not looked up", not "unknown: ...") */
	uint64_t files, bytes;
	double secs;      /* open to close, summed over its files */
	double MBps;      /* bytes / secs / 1e6: the rate of one file stream from it */
	double rel;       /* mean of its files' time / their phase's median file time */
	struct report_straggler slow[REPORT_TARGET_SLOW_FILES]; /* longest against the median */
	size_t nslow;
	int slow_all;     /* slow from every node that read it (see REPORT_SLOW_TARGET) */
	double ratio;     /* the least, over those nodes, of its time / the other targets' */
};

/* The run's completed phases by node and storage target. */
struct report_attrib {
	struct report_target *targets; /* in first-seen order */
	size_t ntargets;
	int nnodes;
	double *cell;      /* [nnodes x ntargets]: mean file time / phase median; NaN when none */
	uint64_t *cell_files;
	int *node_slow;    /* [nnodes]: slow on every known target it read */
	double *node_ratio; /* [nnodes]: the least, over those targets, of its time / the others' */
	int known;         /* known targets with files */
	int one_stripe;    /* they are one stripe over the same servers in different orders:
			    * no target is judged */
	char verdict[768]; /* in words */
};

/* Fill *a from run (pure). 0, or -1 when out of memory (*a then empty). */
int report_attrib(const struct run_data *run, struct report_attrib *a);
/* Release what a holds, leaving it zeroed; NULL is accepted. */
void report_attrib_free(struct report_attrib *a);

/* ---- comparisons of two runs, cell by cell ---- */

/* The keys cells are told apart by: key k < SWEEP_NKEYS is the sweep key k (a SWEEP_PART key is
 * no key of its own: it shows within the one before it), REPORT_KEY_STATE the measured cache
 * state. Sets of keys are bit masks (1u << k). */
#define REPORT_KEY_STATE SWEEP_NKEYS
#define REPORT_NKEYS (SWEEP_NKEYS + 1)

/* 1 when k is a key of its own (not a SWEEP_PART). */
int report_key_own(int k);

/* 1 when k is an axis of the study's table (data set, readers per node): named in every table. */
int report_key_axis(int k);

const char *report_key_name(int k);

/* 1 when key k takes more than one value over the cells c[0..n). */
int report_key_varies(const struct report_cell *c, long n, int k);

/* The value of key k of c as text ("64MiB (67.1 MB files)", "4", "cold"). Returns buf. */
char *report_key_value(const struct report_cell *c, int k, char *buf, size_t len);

struct report_pair {
	long a, b;      /* cell indices */
	double ratio;   /* b mean / a mean */
	int overlap;    /* stats_overlap of the two: 1 within noise, 0 beyond, -1 no estimate */
	double mdd_MBps; /* stats_mdd: the smallest difference these repetitions can tell, or NaN */
	size_t reps;    /* repetitions per run that would tell this difference (0: > 100 or no
			 * estimate; see stats_reps_to_decide) */
};

struct report_cmp {
	unsigned matched;  /* keys compared exactly, one bit per enum report_key */
	unsigned differ;   /* keys with one value in each run, different: compared anyway */
	struct report_pair *pairs;
	long npairs;
	long *only_a, nonly_a; /* cells of a with no partner in b */
	long *only_b, nonly_b;
};

/* Match a's cells with b's on the keys both share: a key with one value in each run, different
 * ones, is left out of the match (and flagged in differ); every other key must be equal.
 * Returns 0 or -1 (allocation); free with report_cmp_free. */
int report_compare(const struct report_cell *a, long na, const struct report_cell *b, long nb,
		   struct report_cmp *cmp);
/* Release what cmp holds, leaving it zeroed; NULL is accepted. */
void report_cmp_free(struct report_cmp *cmp);

/* ---- output ---- */

/* What the output needs beyond the runs. */
struct report_opts {
	enum report_format format;
	const struct ceil_hw *const *hw; /* [nruns] (an entry NULL: no ceilings for that run), or NULL */
	const char *const *hw_note; /* [nruns]: where each run's hardware figures came from */
	const struct calib_data *calib; /* a calibration file given alongside, or NULL */
	const char *plot_dir;      /* write charts (PNG and SVG) here, or NULL */
	const char *html_path;     /* write the HTML page here, or NULL */
	int records;               /* with REPORT_CSV: REPORT_RECORDS_FILES or _RANKS instead of
				    * the cells (report --per-file, --per-rank); 0: the cells */
	int brief;                 /* the answer block alone (report --brief): text, markdown or
				    * json */
	enum units_rate units;     /* rates shown in MB/s (default) or MiB/s (report --units) */
};
#define REPORT_RECORDS_FILES 1
#define REPORT_RECORDS_RANKS 2

/* Write the whole report of nruns runs to out (nothing to out when format is REPORT_HTML and
 * html_path is set); with plot_dir, the charts; with html_path, the page. */
int report_write_opts(FILE *out, const struct run_data *runs, size_t nruns,
		      const struct report_opts *o, struct pf_err *e);

/* report_write_opts with only a format: no ceilings, no charts. */
int report_write(FILE *out, const struct run_data *runs, size_t nruns, enum report_format f,
		 struct pf_err *e);

/* The take function of results_read_rows that report_read gives: pd's rows, chunk by chunk,
 * into its digest (analyze_take_rows, and spread_add: which targets were read when). */
int report_take_rows(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		     struct pf_err *e);

/* Read the results file path for the report (results_read_rows with report_take_rows): a
 * phase's file rows stream by in chunks and leave their digest, and are kept only for phases
 * of at most REPORT_KEEP_ROWS, so memory follows the phases, not the rows. */
int report_read(const char *path, struct run_data *run, struct pf_err *e);

/* Only the summary table, as text: what run prints at its end. */
int report_write_summary(FILE *out, const struct run_data *run, struct pf_err *e);

/* A calibration's figures as a text table: what calibrate prints at its end. */
int report_write_calib(FILE *out, const struct calib_data *c, struct pf_err *e);

/* The one line run prints as each phase completes. */
void report_phase_line(FILE *out, const struct phase_info *p);


#endif
