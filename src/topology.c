/* topology: the rank-to-node map from MPI_Comm_split_type, host names per node, and per-node
 * clock offsets against rank 0 (MPI_Wtime is not global across nodes). */
#include "pfsread/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOPO_PINGS 16

/* The one error path of this module: any failed MPI call becomes a message naming it. */
#define TOPO_MPI(call)                                                                  \
	do {                                                                            \
		int topo_rc_ = (call);                                                  \
		if (topo_rc_ != MPI_SUCCESS) {                                          \
			rc = pf_fail(e, PF_RUNTIME, "topology: %s failed (MPI error %d)", \
				     #call, topo_rc_);                                  \
			goto out;                                                       \
		}                                                                       \
	} while (0)

static int topology_alloc(struct topology *t, struct pf_err *e)
{
	t->map.nranks = t->nranks;
	t->map.node_of_rank = calloc((size_t)t->nranks, sizeof(int));
	t->map.local_rank = calloc((size_t)t->nranks, sizeof(int));
	if (t->map.node_of_rank == NULL || t->map.local_rank == NULL)
		return pf_fail(e, PF_RUNTIME, "topology: out of memory");
	return 0;
}

/* Node numbers follow the lowest global rank on each node; every rank learns the whole map. */
static int topology_number_nodes(struct topology *t, struct pf_err *e)
{
	int rc = 0, leader = t->rank, *leaders = NULL;
	TOPO_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, t->node_comm));
	leaders = malloc((size_t)t->nranks * sizeof(int));
	if (leaders == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	TOPO_MPI(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD));
	TOPO_MPI(MPI_Allgather(&t->local_rank, 1, MPI_INT, t->map.local_rank, 1, MPI_INT,
			       MPI_COMM_WORLD));
	t->nnodes = 0;
	for (int r = 0; r < t->nranks; r++)
		if (leaders[r] == r)
			t->nnodes++;
	t->map.nnodes = t->nnodes;
	t->map.node_size = calloc((size_t)t->nnodes, sizeof(int));
	if (t->map.node_size == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	/* leaders[] maps rank -> leader rank; leader ranks in increasing order get 0, 1, ... */
	for (int r = 0, next = 0; r < t->nranks; r++)
		t->map.node_of_rank[r] = leaders[r] == r ? next++ : t->map.node_of_rank[leaders[r]];
	for (int r = 0; r < t->nranks; r++)
		t->map.node_size[t->map.node_of_rank[r]]++;
	t->node = t->map.node_of_rank[t->rank];
out:
	free(leaders);
	return rc;
}

static int topology_hostnames(struct topology *t, struct pf_err *e)
{
	int rc = 0;
	char mine[RESULTS_HOST_MAX] = {0}, (*all)[RESULTS_HOST_MAX] = NULL;
	if (gethostname(mine, sizeof mine - 1) != 0)
		return pf_fail_errno(e, errno, "topology: gethostname");
	all = malloc((size_t)t->nranks * RESULTS_HOST_MAX);
	t->hostnames = calloc((size_t)t->nnodes, RESULTS_HOST_MAX);
	if (all == NULL || t->hostnames == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	TOPO_MPI(MPI_Allgather(mine, RESULTS_HOST_MAX, MPI_CHAR, all, RESULTS_HOST_MAX, MPI_CHAR,
			       MPI_COMM_WORLD));
	for (int r = 0; r < t->nranks; r++)
		if (t->map.local_rank[r] == 0)
			memcpy(t->hostnames[t->map.node_of_rank[r]], all[r], RESULTS_HOST_MAX);
out:
	free(all);
	return rc;
}

/* Cristian's method: rank 0 asks a node's first rank for its clock; the reply with the shortest
 * round trip bounds the error by half that trip. Offsets are then known to every rank. */
static int topology_clock_offsets(struct topology *t, struct pf_err *e)
{
	int rc = 0;
	t->clock_offset_s = calloc((size_t)t->nnodes, sizeof(double));
	if (t->clock_offset_s == NULL)
		return pf_fail(e, PF_RUNTIME, "topology: out of memory");
	for (int r = 1; r < t->nranks; r++) {
		if (t->map.local_rank[r] != 0 || t->map.node_of_rank[r] == 0)
			continue;
		if (t->rank == 0) {
			double best_rtt = 1e9, best = 0, remote;
			for (int i = 0; i < TOPO_PINGS; i++) {
				double t0 = MPI_Wtime();
				TOPO_MPI(MPI_Send(&t0, 1, MPI_DOUBLE, r, 7, MPI_COMM_WORLD));
				TOPO_MPI(MPI_Recv(&remote, 1, MPI_DOUBLE, r, 7, MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE));
				double t1 = MPI_Wtime();
				if (t1 - t0 < best_rtt) {
					best_rtt = t1 - t0;
					best = (t0 + t1) / 2 - remote;
				}
			}
			t->clock_offset_s[t->map.node_of_rank[r]] = best;
		} else if (t->rank == r) {
			for (int i = 0; i < TOPO_PINGS; i++) {
				double dummy, now;
				TOPO_MPI(MPI_Recv(&dummy, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD,
						  MPI_STATUS_IGNORE));
				now = MPI_Wtime();
				TOPO_MPI(MPI_Send(&now, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
			}
		}
	}
	TOPO_MPI(MPI_Bcast(t->clock_offset_s, t->nnodes, MPI_DOUBLE, 0, MPI_COMM_WORLD));
out:
	return rc;
}

/* MemTotal of this machine in bytes, 0 when /proc/meminfo does not say. */
static uint64_t topology_mem_total(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* Every node's memory, as its first rank reads it. */
static int topology_memory(struct topology *t, struct pf_err *e)
{
	int rc = 0;
	uint64_t mine = t->local_rank == 0 ? topology_mem_total() : 0, *all = NULL;
	t->mem_total_bytes = calloc((size_t)t->nnodes, sizeof(uint64_t));
	all = calloc((size_t)t->nranks, sizeof(uint64_t));
	if (t->mem_total_bytes == NULL || all == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	TOPO_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD));
	for (int r = 0; r < t->nranks; r++)
		if (t->map.local_rank[r] == 0)
			t->mem_total_bytes[t->map.node_of_rank[r]] = all[r];
out:
	free(all);
	return rc;
}

int topology_discover(struct topology *t, struct pf_err *e)
{
	int rc = 0;
	memset(t, 0, sizeof *t);
	t->node_comm = MPI_COMM_NULL;
	TOPO_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &t->rank));
	TOPO_MPI(MPI_Comm_size(MPI_COMM_WORLD, &t->nranks));
	TOPO_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL,
				     &t->node_comm));
	TOPO_MPI(MPI_Comm_rank(t->node_comm, &t->local_rank));
	TOPO_MPI(MPI_Comm_size(t->node_comm, &t->local_size));
	if (topology_alloc(t, e) != 0 || topology_number_nodes(t, e) != 0 ||
	    topology_hostnames(t, e) != 0 || topology_clock_offsets(t, e) != 0 ||
	    topology_memory(t, e) != 0)
		rc = -1;
out:
	return rc;
}

double topology_now(const struct topology *t)
{
	return MPI_Wtime() + t->clock_offset_s[t->node];
}

void topology_free(struct topology *t)
{
	if (t->node_comm != MPI_COMM_NULL)
		MPI_Comm_free(&t->node_comm);
	topo_map_free(&t->map);
	free(t->hostnames);
	free(t->clock_offset_s);
	free(t->mem_total_bytes);
	memset(t, 0, sizeof *t);
	t->node_comm = MPI_COMM_NULL;
}
