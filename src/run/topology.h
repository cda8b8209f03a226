/* topology: which node each rank is on, from MPI_Comm_split_type (host names can lie: several
 * "nodes" may report one name), plus the host names and each rank's clock offset to rank 0. */
#ifndef PFSREAD_TOPOLOGY_H
#define PFSREAD_TOPOLOGY_H

#include <mpi.h>

#include "pfsread/record.h"
#include "util/err.h"
#include "run/plan.h"

struct topology {
	int rank, nranks;
	int node, nnodes;
	int local_rank, local_size;
	MPI_Comm node_comm;                    /* the ranks of this node */
	struct topo_map map;                   /* the whole rank-to-node map, on every rank */
	char (*hostnames)[RECORD_HOST_MAX];   /* [nnodes], on every rank */
	double *clock_offset_s;                /* [nnodes]: each node leader's offset to rank 0 */
	double *rank_offset_s;                 /* [nranks]: add to a rank's topology_clock() to
						* get rank 0's, on every rank */
	double *rank_error_s;                  /* [nranks]: the most that offset can be wrong by */
	double synced_at;                      /* topology_clock() when they were measured */
	uint64_t *mem_total_bytes;             /* [nnodes]: MemTotal of each node (0 when unknown) */
};

/* Collective over MPI_COMM_WORLD. Nodes are numbered in the order of their lowest rank.
 * Measures the clock offsets (topology_sync_clocks). */
int topology_discover(struct topology *t, struct pf_err *e);

/* Collective: measure every rank's clock offset to rank 0 again, by ping-pong (Cristian's
 * method) in two stages: each node's first rank with the other ranks of its node (all nodes
 * at once), then rank 0 with each node's first rank. A rank's offset is the sum of the two,
 * and so is its error bound (half the best round trip of each). */
int topology_sync_clocks(struct topology *t, struct pf_err *e);

/* This process's CLOCK_MONOTONIC, in seconds: the same clock for every process of a kernel. */
double topology_clock(void);

/* This rank's clock on the common base (rank 0's): topology_clock() + its offset. */
double topology_now(const struct topology *t);

/* Release what t holds (its node communicator too); NULL is accepted. */
void topology_free(struct topology *t);

#endif
