/* topology: which node each rank is on, from MPI_Comm_split_type (host names can lie: several
 * "nodes" may report one name), plus the host names and each node's clock offset. */
#ifndef PFSREAD_TOPOLOGY_H
#define PFSREAD_TOPOLOGY_H

#include <mpi.h>

#include "pfsread/err.h"
#include "pfsread/plan.h"
#include "pfsread/results.h"

struct topology {
	int rank, nranks;
	int node, nnodes;
	int local_rank, local_size;
	MPI_Comm node_comm;                    /* the ranks of this node */
	struct topo_map map;                   /* the whole rank-to-node map, on every rank */
	char (*hostnames)[RESULTS_HOST_MAX];   /* [nnodes], on every rank */
	double *clock_offset_s;                /* [nnodes]: add to a node's MPI_Wtime to get rank 0's clock */
	uint64_t *mem_total_bytes;             /* [nnodes]: MemTotal of each node (0 when unknown) */
};

/* Collective over MPI_COMM_WORLD. Nodes are numbered in the order of their lowest rank.
 * Estimates clock offsets by ping-pong between rank 0 and each node's first rank. */
int topology_discover(struct topology *t, struct pf_err *e);

/* This rank's clock, on the common base: MPI_Wtime() + its node's offset. */
double topology_now(const struct topology *t);

void topology_free(struct topology *t);

#endif
