/* topology: the rank-to-node map from MPI_Comm_split_type, host names per node, and each rank's
 * clock offset against rank 0. The clock is CLOCK_MONOTONIC, not MPI_Wtime: Open MPI's
 * MPI_Wtime counts from each process's first call (MPI_WTIME_IS_GLOBAL is 0), so two ranks of
 * one node read it seconds apart at the same instant. */
#include "run/topology.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/stop.h"

#define TOPO_PINGS 16
#define TOPO_TAG 7

/* The one error path of this module: an MPI call's return code, as 0 or as -1 with e naming
 * the call that failed. */
static int topo_mpi(struct pf_err *e, const char *call, int mpi_rc)
{
	if (mpi_rc == MPI_SUCCESS)
		return 0;
	return pf_fail(e, PF_RUNTIME, "topology: %s failed (MPI error %d)", call, mpi_rc);
}

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
	if (topo_mpi(e, "MPI_Bcast", MPI_Bcast(&leader, 1, MPI_INT, 0, t->node_comm)) != 0)
		return -1;
	leaders = malloc((size_t)t->nranks * sizeof(int));
	if (leaders == NULL)
		return pf_fail(e, PF_RUNTIME, "topology: out of memory");
	if (topo_mpi(e, "MPI_Allgather", MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT,
						       MPI_COMM_WORLD)) != 0 ||
	    topo_mpi(e, "MPI_Allgather", MPI_Allgather(&t->local_rank, 1, MPI_INT,
						       t->map.local_rank, 1, MPI_INT,
						       MPI_COMM_WORLD)) != 0) {
		rc = -1;
		goto out;
	}
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
	char mine[RECORD_HOST_MAX] = {0}, (*all)[RECORD_HOST_MAX] = NULL;
	if (gethostname(mine, sizeof mine - 1) != 0)
		return pf_fail_errno(e, errno, "topology: gethostname");
	all = malloc((size_t)t->nranks * RECORD_HOST_MAX);
	t->hostnames = calloc((size_t)t->nnodes, RECORD_HOST_MAX);
	if (all == NULL || t->hostnames == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	rc = topo_mpi(e, "MPI_Allgather", MPI_Allgather(mine, RECORD_HOST_MAX, MPI_CHAR, all,
							 RECORD_HOST_MAX, MPI_CHAR, MPI_COMM_WORLD));
	for (int r = 0; r < t->nranks && rc == 0; r++)
		if (t->map.local_rank[r] == 0)
			memcpy(t->hostnames[t->map.node_of_rank[r]], all[r], RECORD_HOST_MAX);
out:
	free(all);
	return rc;
}

double topology_clock(void)
{
	struct timespec ts;
	/* cannot fail with a valid clock id and a valid pointer */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Cristian's method, the asking side: peer answers each ping with its clock; the reply with
 * the shortest round trip gives the offset (add it to peer's clock to get the asker's) with an
 * error of at most half that trip. */
static int topology_ask_clock(MPI_Comm comm, int peer, double *offset, double *error,
			      struct pf_err *e)
{
	double best_rtt = INFINITY, remote = 0;
	for (int i = 0; i < TOPO_PINGS; i++) {
		double t0 = topology_clock();
		if (topo_mpi(e, "MPI_Send", MPI_Send(&t0, 1, MPI_DOUBLE, peer, TOPO_TAG, comm)) != 0 ||
		    topo_mpi(e, "MPI_Recv", MPI_Recv(&remote, 1, MPI_DOUBLE, peer, TOPO_TAG, comm,
						     MPI_STATUS_IGNORE)) != 0)
			return -1;
		double t1 = topology_clock();
		if (t1 - t0 < best_rtt) {
			best_rtt = t1 - t0;
			*offset = (t0 + t1) / 2 - remote;
		}
	}
	*error = best_rtt / 2;
	return 0;
}

/* Cristian's method, the answering side. */
static int topology_tell_clock(MPI_Comm comm, int asker, struct pf_err *e)
{
	for (int i = 0; i < TOPO_PINGS; i++) {
		double ping, now;
		if (topo_mpi(e, "MPI_Recv", MPI_Recv(&ping, 1, MPI_DOUBLE, asker, TOPO_TAG, comm,
						     MPI_STATUS_IGNORE)) != 0)
			return -1;
		now = topology_clock();
		if (topo_mpi(e, "MPI_Send", MPI_Send(&now, 1, MPI_DOUBLE, asker, TOPO_TAG, comm)) != 0)
			return -1;
	}
	return 0;
}

/* Stage 1, every node at once: the node's first rank asks each of its ranks. Ranks of one
 * kernel share CLOCK_MONOTONIC, so an offset within the error is taken as none; a rank in
 * another time namespace (or a clock that is not shared) gets its measured offset.
 * mine[0] and mine[1] get this rank's offset to its node leader and the error. */
static int topology_local_offsets(struct topology *t, double mine[2], struct pf_err *e)
{
	int rc = 0;
	double (*all)[2] = NULL;
	mine[0] = mine[1] = 0;
	if (t->local_size == 1)
		return 0;
	if (t->local_rank == 0) {
		if ((all = calloc((size_t)t->local_size, sizeof *all)) == NULL)
			return pf_fail(e, PF_RUNTIME, "topology: out of memory");
		for (int r = 1; r < t->local_size && rc == 0; r++) {
			rc = topology_ask_clock(t->node_comm, r, &all[r][0], &all[r][1], e);
			if (fabs(all[r][0]) <= all[r][1])
				all[r][0] = 0;
		}
	} else {
		rc = topology_tell_clock(t->node_comm, 0, e);
	}
	if (rc == 0)
		rc = topo_mpi(e, "MPI_Scatter", MPI_Scatter(all, 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE,
							     0, t->node_comm));
	free(all);
	return rc;
}

/* Stage 2: rank 0 asks each node's first rank; every rank learns the node offsets. */
static int topology_node_offsets(struct topology *t, double *error, struct pf_err *e)
{
	int rc = 0;
	for (int r = 1; r < t->nranks && rc == 0; r++) {
		int node = t->map.node_of_rank[r];
		if (t->map.local_rank[r] != 0 || node == 0)
			continue;
		if (t->rank == 0)
			rc = topology_ask_clock(MPI_COMM_WORLD, r, &t->clock_offset_s[node],
						&error[node], e);
		else if (t->rank == r)
			rc = topology_tell_clock(MPI_COMM_WORLD, 0, e);
	}
	if (rc != 0)
		return rc;
	if (topo_mpi(e, "MPI_Bcast", MPI_Bcast(t->clock_offset_s, t->nnodes, MPI_DOUBLE, 0,
					       MPI_COMM_WORLD)) != 0 ||
	    topo_mpi(e, "MPI_Bcast", MPI_Bcast(error, t->nnodes, MPI_DOUBLE, 0, MPI_COMM_WORLD)) != 0)
		return -1;
	return 0;
}

int topology_sync_clocks(struct topology *t, struct pf_err *e)
{
	int rc = 0;
	double mine[2], *node_error = calloc((size_t)t->nnodes, sizeof *node_error);
	double (*all)[2] = calloc((size_t)t->nranks, sizeof *all);
	if (node_error == NULL || all == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "topology: out of memory");
		goto out;
	}
	if (topology_local_offsets(t, mine, e) != 0 || topology_node_offsets(t, node_error, e) != 0) {
		rc = -1;
		goto out;
	}
	mine[0] += t->clock_offset_s[t->node];
	mine[1] += node_error[t->node];
	if (topo_mpi(e, "MPI_Allgather", MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE,
						       MPI_COMM_WORLD)) != 0) {
		rc = -1;
		goto out;
	}
	for (int r = 0; r < t->nranks; r++) {
		t->rank_offset_s[r] = all[r][0];
		t->rank_error_s[r] = all[r][1];
	}
	t->synced_at = topology_clock();
out:
	free(node_error);
	free(all);
	return rc;
}

static int topology_clock_alloc(struct topology *t, struct pf_err *e)
{
	t->clock_offset_s = calloc((size_t)t->nnodes, sizeof(double));
	t->rank_offset_s = calloc((size_t)t->nranks, sizeof(double));
	t->rank_error_s = calloc((size_t)t->nranks, sizeof(double));
	if (t->clock_offset_s == NULL || t->rank_offset_s == NULL || t->rank_error_s == NULL)
		return pf_fail(e, PF_RUNTIME, "topology: out of memory");
	return 0;
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
	rc = topo_mpi(e, "MPI_Allgather", MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1,
							 MPI_UINT64_T, MPI_COMM_WORLD));
	for (int r = 0; r < t->nranks && rc == 0; r++)
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
	if (topo_mpi(e, "MPI_Comm_rank", MPI_Comm_rank(MPI_COMM_WORLD, &t->rank)) != 0 ||
	    topo_mpi(e, "MPI_Comm_size", MPI_Comm_size(MPI_COMM_WORLD, &t->nranks)) != 0)
		return -1;
	stop_watchdog_stage("node discovery (MPI_Comm_split_type)");
	if (topo_mpi(e, "MPI_Comm_split_type",
		     MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, t->rank,
					 MPI_INFO_NULL, &t->node_comm)) != 0 ||
	    topo_mpi(e, "MPI_Comm_rank", MPI_Comm_rank(t->node_comm, &t->local_rank)) != 0 ||
	    topo_mpi(e, "MPI_Comm_size", MPI_Comm_size(t->node_comm, &t->local_size)) != 0)
		return -1;
	if (topology_alloc(t, e) != 0 || topology_number_nodes(t, e) != 0)
		rc = -1;
	stop_watchdog_stage("host names (MPI_Allgather)");
	if (rc == 0 && topology_hostnames(t, e) != 0)
		rc = -1;
	stop_watchdog_stage("clock synchronisation (ping-pong with rank 0)");
	if (rc == 0 && (topology_clock_alloc(t, e) != 0 || topology_sync_clocks(t, e) != 0))
		rc = -1;
	stop_watchdog_stage("node memory (MPI_Allgather)");
	if (rc == 0 && topology_memory(t, e) != 0)
		rc = -1;
	return rc;
}

double topology_now(const struct topology *t)
{
	return topology_clock() + t->rank_offset_s[t->rank];
}

void topology_free(struct topology *t)
{
	if (t == NULL)
		return;
	if (t->node_comm != MPI_COMM_NULL)
		MPI_Comm_free(&t->node_comm);
	topo_map_free(&t->map);
	free(t->hostnames);
	free(t->clock_offset_s);
	free(t->rank_offset_s);
	free(t->rank_error_s);
	free(t->mem_total_bytes);
	memset(t, 0, sizeof *t);
	t->node_comm = MPI_COMM_NULL;
}
