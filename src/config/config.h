/* config: a YAML experiment file -> a validated struct experiment. Pure (libyaml only, no MPI).
 * Every error names the file, line, column and key, with status PF_USAGE. */
#ifndef PFSREAD_CONFIG_H
#define PFSREAD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "util/digest.h"
#include "util/err.h"

#define CFG_NAME_MAX 128
#define CFG_PATH_MAX 4096
#define CFG_LIST_MAX 32 /* entries of one sweep list */

/* Limits (README "Safety"): what the code can represent, with room, and what is sane. Every
 * count and size is checked against them at load, before anything is touched, and refused
 * naming the file, line, column and key. */
#define CFG_FILE_SIZE_MAX (1ULL << 50)       /* 1 PiB: one file (off_t holds 2^63 - 1) */
#define CFG_DATASET_BYTES_MAX (1ULL << 60)   /* 1 EiB: one data set's files together */
#define CFG_FILES_MAX 1000000000ULL          /* 10^9 files in one data set (names: 10 digits) */
#define CFG_FANOUT_MAX 10000000ULL           /* 10^7 entries in one directory */
#define CFG_TRANSFER_MAX (1ULL << 30)        /* 1 GiB: one read, one reader's buffer */
#define CFG_READERS_MAX 65536                /* readers_per_node */
#define CFG_REPETITIONS_MAX 100000
#define CFG_PHASES_MAX 1000000ULL            /* phases of one run */
#define CFG_VOLUME_MAX (1ULL << 63)          /* bytes read by every phase of a run together */
#define CFG_TIMEOUT_MAX (30.0 * 86400)       /* phase_timeout: 30 days */
#define CFG_HW_COUNT_MAX 1000000             /* hardware.storage_servers, hardware.racks */
#define CFG_NS_PER_BYTE_MAX 1000000000ULL    /* process.cpu_ns_per_byte: a second per byte */

/* Where a key or value stood in the file, for messages given after loading
 * (e.g. readers_per_node checked against the real topology in run). */
struct cfg_pos {
	int line; /* 1-based */
	int col;  /* 1-based */
};

enum cfg_cache {
	CFG_CACHE_NONE,    /* leave the page cache alone: measures cache speed on purpose */
	CFG_CACHE_DROP,    /* root: sync and drop_caches once per node before each phase */
	CFG_CACHE_FADVISE, /* POSIX_FADV_DONTNEED on each file by its reader before the phase */
	CFG_CACHE_SHIFT,   /* each file read by a node other than the one that wrote or last read it */
	CFG_CACHE_DIRECT   /* nothing to do: the backend bypasses the cache (O_DIRECT) */
};

enum cfg_pattern {
	CFG_PATTERN_PER_READER, /* each file read whole by one reader */
	CFG_PATTERN_SHARED      /* each file read by all active readers, a contiguous slice each */
};

enum cfg_decomp {
	CFG_DECOMP_BLOCK,  /* contiguous blocks of files per reader */
	CFG_DECOMP_CYCLIC  /* file i to reader i mod readers */
};


/* sweep.advice: the access hint a read path gives the kernel for each file it reads. */
enum cfg_advice {
	CFG_ADVICE_DEFAULT,    /* the backend's own default (backend.h: advice_default) */
	CFG_ADVICE_NONE,       /* no hint: the kernel's default read-ahead */
	CFG_ADVICE_SEQUENTIAL, /* posix_fadvise / madvise SEQUENTIAL */
	CFG_ADVICE_WILLNEED    /* posix_fadvise / madvise WILLNEED over the whole file */
};
#define CFG_ADVICE_N 4

enum cfg_order {
	CFG_ORDER_SORTED,  /* by path: a reader stays inside one directory at a time */
	CFG_ORDER_REVERSE,
	CFG_ORDER_RANDOM   /* seeded shuffle of the reader's share */
};

enum cfg_sizes_kind {
	CFG_SIZES_FIXED,     /* every file file_size bytes */
	CFG_SIZES_LOGNORMAL, /* sizes: {distribution: lognormal, median, sigma, min, max} */
	CFG_SIZES_HISTOGRAM, /* sizes: {histogram: [[size, count], ...]} */
	CFG_SIZES_TREE       /* from_tree: each file's size from the tree's description */
};

enum cfg_layout_kind {
	CFG_LAYOUT_INDEXED, /* ROOT/NAME/dNNNNNN/fNNNNNNNNNN, files_per_dir per directory (default) */
	CFG_LAYOUT_FLAT,    /* ROOT/NAME/fNNNNNNNNNN, all in one directory */
	CFG_LAYOUT_HASHED,  /* ROOT/NAME/a4/d5/83/a4d5832f...: named by the digest of the content */
	/* from_tree data sets only (never written as a layout: key): */
	CFG_LAYOUT_TREE,    /* the twin: ROOT/NAME/dNNNNNN/.../fNNNNNNNNNN, the source's directories */
	CFG_LAYOUT_IN_PLACE /* the tree itself, read as it is; ROOT/NAME holds only the description */
};
#define CFG_LAYOUT_GIVEN 3 /* the kinds a layout: key may name: indexed, flat, hashed */

#define CFG_HASH_DEPTH_MAX 8
#define CFG_HASH_WIDTH_MAX 4

/* A data set's layout: its own layout: mapping, or the top-level default (indexed with the
 * top-level files_per_dir). */
struct cfg_layout {
	enum cfg_layout_kind kind;
	uint64_t files_per_dir;  /* indexed: > 0 */
	uint64_t depth;          /* hashed: directory levels, 0..CFG_HASH_DEPTH_MAX (default 3) */
	uint64_t width;          /* hashed: hex digits per level, 1..CFG_HASH_WIDTH_MAX (default 2) */
	enum digest_kind digest; /* hashed: sha1 (default) or xxh64; its digest list is the name list */
	int given;               /* the data set has its own layout: key */
	int fpd_given;           /* its files_per_dir was given (else the top level's) */
};

#define CFG_BUCKETS_MAX 64 /* entries of a size histogram */

/* One histogram entry: count files of size bytes; end is the cumulative count through it. */
struct cfg_bucket {
	uint64_t size;
	uint64_t count;
	uint64_t end;
};

struct tree_desc; /* tree.h */

struct cfg_dataset {
	char name[CFG_NAME_MAX]; /* also the directory under root; [A-Za-z0-9._-], no "..", not empty */
	uint64_t file_size;      /* bytes, > 0: every file's size when fixed; for variable sizes the
				  * median (lognormal: its median parameter; histogram: the middle
				  * file's size), recorded as phase_info.file_size */
	uint64_t nfiles;         /* > 0; from file_count, or total_size / file_size (rounded down) */
	uint64_t total_size;     /* the exact sum of every file's size */
	struct cfg_pos pos;      /* of the data set's entry (of the alias, when it was one) */

	/* Variable sizes (sizes.h: dataset_file_size gives file i's size). */
	enum cfg_sizes_kind sizes;
	uint64_t seed;           /* the experiment's seed, copied at load: lognormal sizes depend on it */
	uint64_t median, min, max; /* lognormal, bytes */
	double sigma;            /* lognormal, > 0 */
	uint64_t last_size;      /* lognormal by total_size: the last file, trimmed (0: no trim) */
	struct cfg_bucket *buckets; /* histogram, in the order given (at most CFG_BUCKETS_MAX); owned */
	size_t nbuckets;
	uint64_t stride;         /* histogram: file i is at position (i x stride) mod nfiles */
	int twin;                /* twin: true: a data set NAME-onefile with the same total follows */
	int twin_of;             /* a twin: 1 + the index of its data set; 0 otherwise */
	struct cfg_layout layout; /* settled at load: never left to the caller to default */

	/* from_tree: PATH (README "Data sets from an existing tree"). The tree is not scanned at
	 * load (every rank loads the config): fromtree.h attaches its description later. */
	char *from_tree;          /* NULL when not a from_tree data set; owned */
	int in_place;             /* read the tree itself instead of generating a twin */
	struct cfg_pos tree_pos;  /* of from_tree's value, for messages after loading */
	size_t entry;             /* the index of the data set as written (datasets[entry]) */
	struct tree_desc *tree;   /* the description, once attached; owned: cfg_free releases it
				   * with tree_release, which tree_attach sets (the description is a
				   * later stage's type: config frees it without knowing it) */
	void (*tree_release)(struct tree_desc *t);
};

/* hardware: what the machine can do, for the report's ceilings (README "Reports"); the
 * report reads it back from the config text stored in the results file. 0: not given. */
struct cfg_hardware {
	int given;                 /* 1 when the config has a hardware: block */
	double node_disk_MBps;     /* a compute node's local disk (or RAID), streaming */
	double node_link_MBps;     /* a compute node's network link, each direction */
	double node_memcpy_MBps;   /* a compute node's memory copy */
	double reader_MBps;        /* one reader's best rate (a single stream) */
	uint64_t storage_servers;  /* servers the data is striped over */
	double server_disk_MBps;   /* per server */
	double server_link_MBps;   /* per server */
	int data_on_compute_nodes; /* the servers are the run's compute nodes */
	uint64_t racks;            /* switches the nodes are spread over evenly */
	double rack_uplink_MBps;   /* per rack, all its uplinks together, each direction */
	double node_client_MBps;   /* a plain sequential read (dd, one process, large blocks) of
				    * the data set's files on one node through the file system's
				    * client: the client's own ceiling, FUSE included */
};

#define CFG_STARTUP_TIMEOUT_S 300.0 /* startup_timeout's default */

struct experiment {
	char source[CFG_PATH_MAX];   /* the config file path as given */
	char *yaml_text;             /* the file's text verbatim, NUL-terminated; owned */
	size_t yaml_len;

	char name[CFG_NAME_MAX];     /* default: the file's base name without .yaml */
	char root[CFG_PATH_MAX];     /* where the data sets live; relative paths as given */
	char results[CFG_PATH_MAX];  /* pattern with {name} {jobid} {time}; default results/{name}-{jobid}-{time}.h5 */
	uint64_t files_per_dir;      /* layout.files_per_dir, default 1000, > 0: the default of
				      * every data set without a layout of its own */

	struct cfg_dataset *datasets; /* owned */
	size_t ndatasets;             /* >= 1 */

	/* The sweep: phases are the product of these lists x data sets x repetitions. */
	int readers_per_node[CFG_LIST_MAX];
	size_t nreaders;
	struct cfg_pos readers_pos[CFG_LIST_MAX];
	char backends[CFG_LIST_MAX][32];   /* default ["posix"]; names checked by the caller */
	size_t nbackends;
	struct cfg_pos backends_pos[CFG_LIST_MAX];
	uint64_t transfer_sizes[CFG_LIST_MAX]; /* default [4MiB] */
	size_t ntransfers;
	enum cfg_order orders[CFG_LIST_MAX];   /* default [sorted] */
	size_t norders;
	enum cfg_pattern patterns[CFG_LIST_MAX]; /* default [per-reader] */
	size_t npatterns;
	enum cfg_decomp decomps[CFG_LIST_MAX];   /* sweep.decomposition, default [block] */
	size_t ndecomps;
	enum cfg_advice advices[CFG_LIST_MAX];   /* sweep.advice, default [default] */
	size_t nadvices;
	struct cfg_pos advices_pos[CFG_LIST_MAX];

	int repetitions;              /* default 1, 1..CFG_REPETITIONS_MAX */
	enum cfg_cache cache;         /* default drop */
	struct cfg_pos cache_pos;
	enum cfg_cache shift_fallback; /* cache: shift beyond its cold uses: none | fadvise (the
					* default) | drop, applied on the reading node */
	struct cfg_pos shift_fallback_pos;
	uint64_t seed;                /* for random order; default 1 */
	struct cfg_pos root_pos;

	int noatime;                  /* open with O_NOATIME where permitted; default false */
	int sequential_hint;          /* posix, uring: POSIX_FADV_SEQUENTIAL on open; default true */
	int verify;                   /* check every block read against the content pattern */
	double phase_timeout;         /* seconds a phase may take before it is given up; 0: none */
	double startup_timeout;       /* seconds from start to the first phase (or the command's
				       * work) before the run is given up; 0: none */
	struct cfg_values *blocks;    /* the blocks of keys other modules own, as the loader was
				       * handed them, with their values (cfg_block_values); owned */
	size_t nblocks;
	struct cfg_hardware hw;       /* hardware: {...}, for the report only */
	/* process: {digest, cpu_ns_per_byte}: read-and-process phases (README "Read-and-process
	 * phases"). Every phase of the experiment processes what it reads. */
	enum digest_kind process_digest;   /* default none */
	uint64_t process_cpu_ns_per_byte;  /* default 0 */
	struct cfg_pos process_pos;        /* of the process: mapping, for run's checks */
	/* space_check: generate (and run, calibrate where they write) refuse to start when the
	 * file system lacks the bytes or inodes, and stop before it fills (space.h); false for a
	 * file system that misreports its free space. Default true. */
	int space_check;
	struct cfg_pos volume_pos;         /* where messages about the run's size go */
	char volume_key[16];               /* "repetitions", "sweep" or "datasets" */
	uint32_t top_given;   /* bit i: the i-th top-level key of the loader's table was given */
	uint32_t sweep_given; /* bit k: sweep_fields[k]'s list was given (cfg_given reads both) */
};

/* ---- blocks of keys that other modules own ----
 * A backend's options are its own business: it declares each top-level key it owns as a block,
 * with a table of the block's keys, and the caller hands the loader every block (the backend
 * registry lists them). The loader reads a block generically into a struct of the owner's,
 * which only the owner looks into (cfg_block_values). So config names no backend and none of
 * their keys, and depends on no later stage. */

enum cfg_opt_kind {
	CFG_OPT_BOOL, /* true | false, into an int */
	CFG_OPT_INT,  /* an integer from min to max, into an int */
	CFG_OPT_SIZE, /* a size with a unit from 1 byte to max, into a uint64_t */
	CFG_OPT_ADVICE /* an access hint (default | none | sequential | willneed), into an enum
			* cfg_advice: a backend's own advice when the sweep's is default */
};

/* One key of a block. */
struct cfg_opt {
	const char *name;
	enum cfg_opt_kind kind;
	size_t offset;       /* of its value in the block's struct */
	uint64_t min, max;   /* CFG_OPT_INT: the range; CFG_OPT_SIZE: max */
	const char *what;    /* CFG_OPT_SIZE: what max is the largest of, for the message */
};

#define CFG_PAIRS_MAX 16

/* A block of free pairs: any keys, scalar values kept as written (MPI_Info hints). */
struct cfg_pairs {
	struct {
		char key[64];
		char value[128];
	} pair[CFG_PAIRS_MAX];
	size_t n;
};

struct cfg_block {
	const char *key;            /* the top-level key the block is written under */
	const struct cfg_opt *opts; /* its keys, a mapping; NULL: a block of free pairs, whose
				     * values are a struct cfg_pairs */
	size_t nopts;
	const char *item;           /* free pairs: what one is called in messages ("hint") */
	size_t size;                /* of the owner's struct of values */
	const void *defaults;       /* size bytes: the values when the key is not given */
	const char *note;           /* why a key it lacks is not there, said with an unknown
				     * key; or NULL. A block of no keys (nopts 0, size 0) is a
				     * backend's way to say, in its note, why it takes none */
};

/* A block as the experiment holds it. */
struct cfg_values {
	const struct cfg_block *block;
	void *values;               /* block->size bytes; owned by the experiment */
};

/* The values of block b in x; b's defaults when x does not hold b (the loader was not handed
 * it, or x is NULL). The owner casts them to its struct. */
const void *cfg_block_values(const struct experiment *x, const struct cfg_block *b);

/* The run's phases and the bytes they read against CFG_PHASES_MAX and CFG_VOLUME_MAX (at
 * load, and again once from_tree data sets know their sizes): 0, or -1 (PF_USAGE). */
int cfg_check_volume(const struct experiment *x, struct pf_err *e);

/* The readers_per_node entries against the ranks every node has (least: the smallest
 * node's), the same message for run and generate: 0, or -1 naming the entry. */
int cfg_check_readers(const struct experiment *x, int least, struct pf_err *e);

/* 1 when x's phases process what they read (a digest, or CPU time per byte). */
int cfg_processes(const struct experiment *x);

/* "xxh64+200ns/B", "sha1", "50ns/B" or "none", into buf. */
void cfg_process_describe(const struct experiment *x, char *buf, size_t len);

/* Load and validate path; blocks (NULL-terminated, or NULL for none) are the keys other modules
 * own, read as their tables say. On success *x is filled and owns its memory (cfg_free).
 * On failure returns -1 with e set (PF_USAGE) as "FILE:LINE:COL: key 'KEY': what is wrong",
 * and *x is left freed. Touches no file but the config itself; checks that root, when it
 * exists, is a directory (a missing root is for the caller to judge). */
int cfg_load(const char *path, const struct cfg_block *const *blocks, struct experiment *x,
	     struct pf_err *e);

/* As cfg_load, from text already in memory (rank 0 reads, the others get it by broadcast;
 * also the fuzz target). source names the file in messages. text need not be NUL-terminated. */
int cfg_parse(const char *source, const char *text, size_t len,
	      const struct cfg_block *const *blocks, struct experiment *x, struct pf_err *e);

/* Release what x owns; x may be NULL, zeroed or already freed. */
void cfg_free(struct experiment *x);

/* Format a message about an already loaded key, in the same shape as load errors
 * ("FILE:LINE:COL: key 'KEY': ..."), with status PF_USAGE. Returns -1. */
int cfg_fail_at(struct pf_err *e, const struct experiment *x, struct cfg_pos pos,
		const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

const char *cfg_cache_name(enum cfg_cache c);

/* 1 when the config gave key ("cache", "repetitions", "sweep.order"), 0 when it left it out
 * (its default is in force) or key is not one of the config's own. */
int cfg_given(const struct experiment *x, const char *key);
const char *cfg_order_name(enum cfg_order o);
const char *cfg_pattern_name(enum cfg_pattern p);
const char *cfg_decomp_name(enum cfg_decomp d);
const char *cfg_advice_name(enum cfg_advice a);
/* The advice called name ("none"), or -1. */
int cfg_advice_of(const char *name);
const char *cfg_layout_name(enum cfg_layout_kind k);

#endif
