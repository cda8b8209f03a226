/* plan: which files each rank reads, in which order. Pure functions of (config, rank, topology),
 * no MPI, no file system: every rank computes its own share, nothing passes through rank 0. */
#ifndef PFSREAD_PLAN_H
#define PFSREAD_PLAN_H

#include <stdint.h>

#include "config/config.h"
#include "config/sweep.h"

/* The rank-to-node map, as topology measures it or plan --ranks --nodes assumes it.
 * Nodes are numbered 0..nnodes-1; local ranks 0..node_size-1 within a node. */
struct topo_map {
	int nranks;
	int nnodes;
	int *node_of_rank;  /* [nranks] */
	int *local_rank;    /* [nranks] */
	int *node_size;     /* [nnodes] */
};

/* Contiguous block decomposition of nitems over nparts: part p gets [*first, *first + *count),
 * counts differ by at most one, the first (nitems % nparts) parts get the extra item. */
void plan_block(uint64_t nitems, uint64_t nparts, uint64_t part, uint64_t *first, uint64_t *count);

/* Readers over all nodes when each node lets its first readers_per_node ranks read. */
uint64_t plan_reader_count(const struct topo_map *t, int readers_per_node);

/* This rank's reader number (0..plan_reader_count-1, ordered by node then local rank),
 * or -1 when it waits in this phase. */
int64_t plan_reader_index(const struct topo_map *t, int rank, int readers_per_node);

/* Smallest node_size: the most readers per node every node can supply. */
int plan_min_node_size(const struct topo_map *t);

/* Cyclic decomposition: part p gets items p, p + nparts, p + 2 nparts, ... */
void plan_cyclic(uint64_t nitems, uint64_t nparts, uint64_t part, uint64_t *count);

/* How a reader's files are chosen and ordered. */
struct plan_rule {
	int readers_per_node;
	enum cfg_decomp decomp;
	enum cfg_order order;
	uint64_t seed;
	/* cache: shift. 0: off. u >= 1: this is the u-th phase to read the data set, and file f
	 * goes to node (node that generated f + u) mod nnodes, so no node reads a file it wrote or
	 * read last. Generation is taken to have run on the same ranks (block over all ranks). */
	uint64_t shift_use;
};

/* The file indices this rank reads, in reading order. *files is malloc'ed (NULL when none);
 * the caller frees it. Returns 0, or -1 on allocation failure. */
int plan_files(const struct topo_map *t, int rank, uint64_t nfiles, const struct plan_rule *r,
	       uint64_t **files, uint64_t *count);

/* The rank that generate gives file f: block decomposition of nfiles over nranks. */
int plan_generator_rank(uint64_t nfiles, int nranks, uint64_t f);

/* For cache: shift: how many phases up to and including index read the same data set. */
uint64_t plan_dataset_use(const struct experiment *x, uint64_t index);

/* How many phases read each data set (every data set is read as often). */
uint64_t plan_dataset_uses(const struct experiment *x);

/* 1 when the use-th shifted phase of a data set reads every file on a node that has neither
 * written nor read it: uses 1 .. nnodes - 1 (use nnodes is back on the writer's node). */
int plan_shift_is_cold(uint64_t use, int nnodes);

/* One line for plan and run: how many cold uses cache: shift gives on nnodes nodes, how many
 * the experiment needs, and what happens to the rest (shift_fallback). */
void plan_shift_describe(const struct experiment *x, int nnodes, char *buf, size_t len);

/* Fill an even map: nranks over nnodes, ranks spread in blocks (as mpirun --map-by node:
 * first nodes get one more when uneven). Arrays are malloc'ed; topo_map_free releases them. */
int plan_even_map(int nranks, int nnodes, struct topo_map *t);
/* Release t's arrays, leaving them NULL; NULL is accepted. */
void topo_map_free(struct topo_map *t);



/* The phases of an experiment: the product of repetitions x data sets x the sweep lists (in
 * the sweep key table's order, the last varying fastest), repetition outermost so that the
 * repetitions of one cell are spread over the run rather than back to back. */
struct plan_point {
	size_t dataset;          /* index into x->datasets */
	int repetition;
	size_t at[SWEEP_NKEYS];  /* each sweep list's entry (0 for a key that is not a list) */
};

uint64_t plan_phase_count(const struct experiment *x);
void plan_phase_at(const struct experiment *x, uint64_t index, struct plan_point *p);

/* ---- a reader's share of a phase ---- */

#define PLAN_SLICE_ALIGN 4096 /* pattern shared cuts files at multiples of this (O_DIRECT) */

/* Item i is [offset[i], offset[i] + length[i]) of file number file[i]. Owned (malloc'ed):
 * plan_share_free releases it. */
struct plan_share {
	uint64_t n;
	uint64_t *file;
	uint64_t *offset;
	uint64_t *length;
	uint64_t *size;  /* pattern shared: each item's whole file size; NULL: length says it */
};

/* Pattern per-reader: the files plan_files gives this rank, whole, their sizes from d.
 * 0, or -1 on allocation failure (*s then empty). */
int plan_share_per_reader(const struct topo_map *t, int rank, const struct cfg_dataset *d,
			  const struct plan_rule *r, struct plan_share *s);

/* Pattern shared: every file of d in the order's order (random: one seeded shuffle, the same
 * on every reader), and reader's slice of each of the readers' (block decomposition of the
 * file's PLAN_SLICE_ALIGN blocks). A reader < 0 (one that waits) gets nothing. 0, or -1 on
 * allocation failure (*s then empty). */
int plan_share_shared(const struct cfg_dataset *d, enum cfg_order order, uint64_t seed,
		      uint64_t readers, int64_t reader, struct plan_share *s);

/* plan --pilot: the most items a reader's share keeps when the pilot reads pilot files per
 * phase (0: two per reader, at least 8 a phase: fewer would be noise): pattern shared, pilot files (every reader reads a slice of
 * each); per-reader, pilot spread over the readers, at least one each. Pure. */
uint64_t plan_pilot_limit(uint64_t pilot, uint64_t readers, int shared);

/* Keep the first most items of s (the pilot's sample; the arrays stay as allocated). */
void plan_share_sample(struct plan_share *s, uint64_t most);

/* Item i's name at names + i x len, NUL-terminated (a hashed data set's: its line of the
 * name list). Owned (malloc'ed). */
struct plan_names {
	char *names;
	size_t len;
};

/* Order the items by name (reverse: descending), the names with them: what "sorted" means to
 * a content-addressed data set. 0, or -1 on allocation failure (nothing changed). */
int plan_share_sort_by_name(struct plan_share *s, struct plan_names *nm, int reverse);

/* Release what s holds, leaving it zeroed; NULL is accepted. */
void plan_share_free(struct plan_share *s);

#endif
