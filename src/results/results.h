/* results: the one HDF5 file of a run. The writer (writer.c) is collective over all ranks
 * and uses parallel HDF5; the reader (reader.c) needs no MPI and serves the report; the schema
 * both follow is one table (schema.c).
 * The schema is a contract (README "Results file"): h5py and h5dump read it as it is. */
#ifndef PFSREAD_RESULTS_H
#define PFSREAD_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "run/envinfo.h"
#include "util/err.h"
#include "pfsread/record.h"

/* 2: per-rank clock offsets and the opening barrier's skew, the measured cache state.
 * 3: each rank's peak resident memory (rank_rec.peak_rss) and the kernel's counters of where
 * a phase's bytes came from (provenance, storage_read_bytes, rchar, net_rx_bytes, counted).
 * 4: the read path's hints (sweep key advice, phase attribute hints), per-rank overlap_s.
 * 5: each file's storage target (file_rec.target) indexing the phase's table
 * /phases/NNNN/targets (fixed-length strings, entry 0 RECORD_TARGET_NONE).
 * 6: each rank's CPU time in the timed part (rank_rec.cpu_user_s, cpu_sys_s).
 * 7: each phase's time zero on the run's clock (phase attribute origin_s).
 * The reader takes every version from 1: what an older file lacks reads as zero or "" (the
 * CPU times as NAN: unknown, not free). */
#define RESULTS_SCHEMA_VERSION 7

/* How a run ended, as the root attribute status (and its part's) says it: running while its
 * run writes it (or after that run was killed), partial when it stopped early to be continued
 * (run --resume). RUN_UNKNOWN is what a reader makes of a word no pfsread writes. */
enum run_status {
	RUN_RUNNING, RUN_COMPLETE, RUN_FAILED, RUN_TIMEOUT, RUN_INTERRUPTED, RUN_PARTIAL, RUN_UNKNOWN
};

/* (states.c) A status's word in the results file ("unknown" for a value out of range), and
 * the status of a word (the UNKNOWN state for a word no pfsread writes, or NULL). */
const char *results_phase_status_name(int status);
enum phase_status results_phase_status_parse(const char *word);
const char *results_run_status_name(enum run_status status);
enum run_status results_run_status_parse(const char *word);

/* Root attributes, as strings and counts the caller already has. */
struct run_meta {
	const char *pfsread_version;
	const char *config_yaml;   /* verbatim */
	const char *config_path;
	const char *command_line;
	const char *start_time;    /* ISO 8601 UTC */
	const char *mpi_version;
	const char *job_id;        /* "" outside a batch job */
	const struct environment *env; /* written as string attributes of /environment */
	const char *hosts;         /* this job's nodes, comma-separated, for its /parts entry */
	int nranks;
	int nnodes;
	uint64_t nphases;          /* the config's phases: /phases is sized for them */
};

#ifdef PFSREAD_WITH_MPI
#include <mpi.h>

struct results; /* opaque writer */

/* Create path collectively on comm. Refuses an existing file unless force. Creates no parent
 * directory. Writes the root attributes, with status "running". */
int results_create(const char *path, int force, MPI_Comm comm, const struct run_meta *m,
		   struct results **out, struct pf_err *e);

/* Collective. node_of_rank [nranks]; hostnames, clock_offset_s, mem_total_bytes [nnodes]. */
int results_write_topology(struct results *r, const int *node_of_rank,
			   const char (*hostnames)[RECORD_HOST_MAX], const double *clock_offset_s,
			   const uint64_t *mem_total_bytes, struct pf_err *e);

/* Collective: every rank passes the same *p, its own rank record, and its own file records
 * (nfiles may differ by rank, 0 allowed), and the same table of storage targets the rows'
 * target fields index (NULL or empty: a table of RECORD_TARGET_NONE alone). Writes
 * /phases/%04u and flushes the file. */
int results_write_phase(struct results *r, const struct phase_info *p, const struct rank_rec *mine,
			const struct file_rec *files, uint64_t nfiles,
			const struct target_table *targets, struct pf_err *e);

/* What a results file holds that a resumed run (run --resume) compares and continues. */
struct results_prior {
	char *config_yaml;      /* verbatim, malloc'd */
	enum run_status status; /* the root's: RUN_RUNNING when its run never closed it */
	int status_lost;        /* it could not be read (a kill as it was rewritten): RUN_RUNNING */
	int nranks, nnodes;
	int32_t *node_of_rank;  /* [nranks]; NULL when the file has no topology */
	uint64_t nphases;       /* the length of the arrays below: the caller's phase count */
	uint8_t *present;       /* [nphases]: a group /phases/NNNN exists */
	uint8_t *kept;          /* [nphases]: it is whole (attributes, ranks, files) and its status
				 * is not PHASE_INTERRUPTED: kept; a present phase not kept is redone */
	double *elapsed_s;      /* [nphases]: a kept phase's elapsed_s */
	char (*dataset)[64];    /* [nphases]: a kept phase's data set name */
	uint64_t beyond;        /* groups in /phases that are no phase index below nphases */
	uint64_t nparts;        /* entries in /parts (0 in a file from before parts) */
};

/* Open an existing results file read-write, collectively, and read what it holds into *p
 * (every rank the same). Nothing is changed yet: the caller compares, then calls
 * results_append_begin, or results_close(r, NULL, ...) to leave the file as it was. */
int results_open_append(const char *path, MPI_Comm comm, uint64_t nphases, struct results **out,
			struct results_prior *p, struct pf_err *e);

/* Collective: delete the groups of the phases present but not kept (so they are written
 * again), set the status "running", and begin this run's part. */
int results_append_begin(struct results *r, const struct results_prior *p,
			 const struct run_meta *m, struct pf_err *e);

/* Release what results_open_append read, leaving p zeroed. p may be zeroed, or NULL. */
void results_prior_free(struct results_prior *p);

/* After a rank was lost (stopped or stuck: no collective call can complete), the reporter
 * alone (rank 0, or rank 1 when rank 0 is the lost one): write the phase p as this rank knows
 * it (its own row mine and its files, whose target fields index targets, NULL: none looked
 * up; every other rank's row zero but for rank and node; p NULL: no phase), the root and this run's part status, and the root attribute error (why),
 * through a handle of this process alone, and close it. r is released without a call to
 * HDF5 (its close would wait for the lost rank) and freed. 0 or -1 with e set. */
int results_record_lost(struct results *r, const struct phase_info *p,
			const struct rank_rec *mine, const struct file_rec *files, uint64_t nfiles,
			const struct target_table *targets, const int *node_of_rank,
			const char *status, const char *why, struct pf_err *e);

/* A process of its own, without MPI (the watchdog's helper, when a collective results write
 * or close is stuck): open path serially and set the root's and the last part's status, the
 * part's end time and phases written, and the root attribute error (why). The file holds
 * what its last flush wrote. 0 or -1 with e set. */
int results_mark_alone(const char *path, const char *status, uint32_t phases, const char *why,
		       struct pf_err *e);

/* main hands `pfsread RESULTS_MARK_ARG FILE STATUS PHASES WHY` here (argv from FILE on):
 * results_mark_alone; exit status 0, 1 when it failed (said on stderr), 2 on bad arguments. */
#define RESULTS_MARK_ARG "--pfsread-results-mark"
int results_mark_main(int argc, char **argv);

/* The ranks that do not record the loss: release r without a call to HDF5. */
void results_drop(struct results *r);

/* Collective. Sets the root attribute status to status, a run status's word
 * (results_run_status_name; NULL leaves it as it is), and closes. r may be NULL. */
int results_close(struct results *r, const char *status, struct pf_err *e);
#endif

/* Shared by the writer, the readers and schema.c only (they include hdf5.h before this header): the
 * schema in one place, so the writer and the reader cannot disagree on a name or a type. */
#ifdef H5_VERS_MAJOR
/* RESULTS_STATUS: an int32_t enum phase_status in memory, its word in the file (a string). */
enum results_kind { RESULTS_I32, RESULTS_U32, RESULTS_U64, RESULTS_F64, RESULTS_STR, RESULTS_STATUS };

/* One attribute of /phases/NNNN, or one member of a compound record. */
struct results_field {
	const char *name;  /* the struct member's name, also its name in the file */
	size_t offset;     /* offsetof in the struct */
	size_t size;       /* sizeof the member (the array size of a string) */
	enum results_kind kind;
	int since;         /* the schema version that brought it (older files lack it) */
};

/* Attribute i (0 <= i < results_nphase_attrs) of /phases/NNNN, a member of struct phase_info:
 * the index, the sweep point's keys as the sweep key table declares them, then the rest. */
void results_phase_attr(size_t i, struct results_field *f);
extern const size_t results_nphase_attrs;
extern const struct results_field results_rank_fields[]; /* struct rank_rec */
extern const size_t results_nrank_fields;
extern const struct results_field results_file_fields[]; /* struct file_rec */
extern const size_t results_nfile_fields;

/* The HDF5 type of a numeric kind: native in memory (file == 0), little-endian standard in the
 * file (file == 1). Predefined types: never closed. Returns -1 for RESULTS_STR and
 * RESULTS_STATUS. */
hid_t results_h5_type(enum results_kind k, int file);

/* A compound type of n numeric fields: the struct's own layout (file == 0, size is its sizeof)
 * or packed little-endian (file == 1). Caller closes it. Returns -1 on failure. */
hid_t results_compound(const struct results_field *f, size_t n, size_t size, int file);

/* The variable-length UTF-8 string type of every string attribute. Caller closes it. */
hid_t results_str_type(void);

/* The fixed-length string type of /topology/hostname (RECORD_HOST_MAX). Caller closes it. */
hid_t results_host_type(void);
/* A fixed-length, NUL-terminated string type of size bytes (/phases/NNNN/targets:
 * RECORD_TARGET_MAX). Caller closes it. */
hid_t results_fixed_str_type(size_t size);

/* 1 when dataset name under loc holds variable-length strings, 0 when not, -1 on error; the
 * character set into *cset. */
int results_is_vlen_str(hid_t loc, const char *name, H5T_cset_t *cset);

/* 1 when open attribute a holds exactly one value, else 0 (also when HDF5 cannot say): what a
 * read or write of one value needs, since H5Aread of a larger attribute writes past it. */
int results_h5_attr_single(hid_t a);

/* Close any HDF5 identifier (file, group, dataset, attribute, type, space, property list).
 * Returns 0, also for a negative id (never opened), or -1 when the close fails. */
int results_h5_close(hid_t id);

/* A data transfer property list whose type-conversion and background buffers are ours,
 * RESULTS_XFER_BUF bytes each, in one block that *bufs receives (free it after the list is
 * closed). Without them HDF5 allocates and clears 1 MiB of each on every H5Dread or H5Dwrite
 * that converts, as ours do (packed little-endian rows to and from padded structs): fresh
 * pages and a memset, milliseconds a call whatever the rows' number; larger transfers are
 * strip-mined through them. -1 on failure, with nothing left allocated. */
#define RESULTS_XFER_BUF ((size_t)64 << 10)
hid_t results_xfer_list(void **bufs);

/* The innermost message of HDF5's current error stack ("" when none), for failure messages. */
void results_h5_detail(char *buf, size_t len);

/* (checks.c) A table of a phase as the reader is to trust it: obj/name of the results file
 * path, records with the schema's fields[0..nfields) (NULL: not records) as of schema_version,
 * at most `most` rows, why being what sets that bound, in words. */
struct results_table {
	const char *path, *obj, *name;
	const struct results_field *fields;
	size_t nfields;
	int schema_version;
	uint64_t most;
	const char *why;
};

/* Open table t under g: 1-D, no more than t->most rows, every field of its schema version a
 * member of its records, and every row it declares stored when it is contiguous (a dataset
 * never written reads as fill values). Its row count into *n. The dataset (caller closes it),
 * or -1 with a message naming the file, the dataset and what is wrong. */
hid_t results_table_open(hid_t g, const struct results_table *t, uint64_t *n, struct pf_err *e);
#endif

/* (checks.c) The most file rows phase p can have by its own attributes: each of its nfiles
 * files read by one reader, or with pattern shared by every active reader (at most nranks). */
uint64_t results_rows_allowed(const struct phase_info *p, int nranks);

/* The longest files (open to close) a phase's digest keeps. */
#define RESULTS_SLOWEST 8

/* One node and storage target of a phase: its files, their bytes and open-to-close seconds. */
struct digest_cell {
	uint64_t files, bytes;
	double secs;
};

/* Which servers had a file being read at DIGEST_USE_SAMPLES moments evenly spaced over a
 * phase's reading (moment j at t0 + (j + 0.5) * dt, from its first reader's start to its last
 * one's end), as file rows show them (report/spread.c). A target names one server or several
 * (a stripe): part[at[k] .. at[k + 1]) are target k's. One allocation, which bytes heads (free
 * it); all NULL and 0 until a row is added or when the phase has no figure. */
#define DIGEST_USE_SAMPLES 128
#define DIGEST_USE_SERVERS 4096 /* a phase whose targets name more gets no figure */
struct target_use {
	double *bytes;     /* [servers]: the bytes of the files on server i, a stripe's shared
			    * evenly among the servers it names; the allocation's head */
	uint8_t *on;       /* [DIGEST_USE_SAMPLES x servers]: server i read at moment j */
	uint32_t *reach;   /* [DIGEST_USE_SAMPLES]: the servers the files being read at moment j
			    * name, summed: as many as they could keep busy */
	uint8_t *seen;     /* [servers]: some file of the phase lies on server i */
	uint32_t *at;      /* [targets + 1] */
	uint32_t *part;    /* [at[targets]]: server indices */
	uint32_t targets;  /* the phase's targets table's length */
	uint32_t servers;
	int none;          /* 1: the phase has no figure, its rows are passed over */
	double t0, dt;
};

/* What a reader that streams the file rows (results_read_rows) keeps of them: filled by its
 * take function (the report's, report/analyze.c), freed by results_free. */
struct files_digest {
	int filled;             /* 1 once the rows streamed by (else all zero) */
	double stonewall_t;     /* the time stonewall_bytes are counted at */
	double stonewall_bytes; /* bytes read by then, pro rata */
	double *secs;           /* open to close of each row with a finite, non-negative time */
	size_t nsecs;
	struct file_rec slow[RESULTS_SLOWEST]; /* the rows with the longest such time, longest first */
	size_t nslow;
	struct digest_cell *cells; /* [cell_nodes x cell_targets], node-major: by the rows' node
				    * (their rank's) and target index; NULL when none */
	int cell_nodes;
	uint32_t cell_targets;	struct target_use use;     /* which targets were read at moments over the phase */
};

/* A whole results file in memory, for the report. */
struct phase_data {
	struct phase_info info;
	struct rank_rec *ranks;
	size_t nranks;
	struct file_rec *files; /* NULL when streamed and more than results_rows.keep of them */
	size_t nfiles;
	struct files_digest digest;
	struct target_table targets; /* /phases/NNNN/targets; a file before schema 5 has n = 0 */
};

/* One run that wrote the file (/parts/NNNN): a study resumed over several batch jobs has
 * several. Strings are "" when the part's run was killed before it wrote them. */
struct run_part {
	char *start_time, *end_time, *job_id, *hosts, *command_line, *status;
	uint32_t phases_written; /* by phases_count */
	int phases_count;        /* RESULTS_PART_* */
};
/* Its run counted the phases it wrote (phases_written, at its end). */
#define RESULTS_PART_WRITTEN 0
/* Its run was killed before it counted them, and it is the only such part: phases_written is
 * the phases the file holds that no other part counted, the ones it left. */
#define RESULTS_PART_KEPT 1
/* Killed before counting, as another part was: how many are its own is not known. */
#define RESULTS_PART_UNKNOWN 2

struct run_data {
	char *path;
	int schema_version;
	char *pfsread_version, *config_yaml, *config_path, *command_line, *start_time;
	char *mpi_version, *hdf5_version, *job_id, *status;
	int nranks, nnodes;
	/* The topology; all three NULL when the run stopped before writing it. */
	int32_t *node_of_rank;            /* [nranks] */
	char (*hostnames)[RECORD_HOST_MAX]; /* [nnodes] */
	double *clock_offset_s;           /* [nnodes] */
	struct environment env;           /* /environment; empty when the file has none */
	struct phase_data *phases;
	size_t nphases;
	struct run_part *parts; /* in order; none in a file from before parts */
	size_t nparts;
};

/* 1 when path is a regular file with the HDF5 signature at 0, 512, 1024, ... (where a user
 * block may put it), 0 when it is a regular file without it; -1 with a message in e (may be
 * NULL) when it cannot be opened or is not a regular file (a FIFO, a device, a directory).
 * Never blocks on a FIFO, and reads at most one 8-byte block per doubling of the file's size
 * (/dev/zero is refused, not scanned). No MPI needed. */
int results_h5_signature(const char *path, struct pf_err *e);

/* Read path. A file that is not a pfsread results file, is truncated, or has a schema this
 * version does not know fails with a message naming the file (PF_RUNTIME). No MPI needed. */
int results_read(const char *path, struct run_data *run, struct pf_err *e);
void results_free(struct run_data *run);

/* 1 when path's root says its study is complete, 0 when it says anything else, -1 with e set
 * when it is not a results file this version reads. Reads the root's attributes only. */
int results_is_complete(const char *path, struct pf_err *e);

/* How results_read_rows hands over each phase's file rows: in chunks, after the phase's
 * attributes and rank records are read, rather than all phases' rows held at once. */
struct results_rows {
	/* Called with each chunk of pd's rows in file order (pd->nfiles is their count). Returns
	 * 0, or -1 with a message in e, which stops the read. */
	int (*take)(void *ctx, struct phase_data *pd, const struct file_rec *rows, size_t n,
		    struct pf_err *e);
	void *ctx;
	size_t keep; /* a phase with at most this many rows also keeps them in pd->files */
};

/* results_read, but the file rows go through rows->take in chunks (bounded memory): a phase
 * with more than rows->keep rows has pd->files NULL. */
int results_read_rows(const char *path, struct run_data *run, const struct results_rows *rows,
		      struct pf_err *e);

#endif
