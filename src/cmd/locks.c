/* cmd/locks: rank 0 takes the lock of a command's data sets or results file; every rank leaves
 * with its decision (one broadcast), so that all ranks go on or all stop. */
#include "cmd/locks.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/datasets.h"
#include "dataset/dataset.h"

/* Rank 0's rc and message on every rank. */
static int locks_share(int rc, struct pf_err *e)
{
	struct {
		int rc;
		struct pf_err err;
	} v = {rc, *e};
	if (MPI_Bcast(&v, sizeof v, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "lock: MPI_Bcast failed");
	*e = v.err;
	return v.rc;
}

/* Rank 0: take x's data sets for cmd. 0 or -1 with e set. */
static int locks_take_datasets(const struct experiment *x, const char *cmd, struct lock_held *h,
			       struct pf_err *e)
{
	int exclusive = strcmp(cmd, "generate") == 0 || strcmp(cmd, "clean") == 0;
	/* clean's refusal of a root comes before anything is written there, its lock too */
	if (strcmp(cmd, "clean") == 0 && gen_check_root(x->root, "clean", "", e) != 0)
		return -1;
	const char **names = malloc(x->ndatasets * sizeof *names);
	if (names == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory", cmd);
	for (size_t i = 0; i < x->ndatasets; i++)
		names[i] = x->datasets[i].name;
	int rc = lock_take_datasets(x->root, cmd, exclusive, names, x->ndatasets, h, e);
	free(names);
	return rc < 0 ? -1 : 0;
}

int locks_datasets(const struct experiment *x, const char *cmd, int rank, struct lock_held *h,
		   struct pf_err *e)
{
	h->path[0] = '\0';
	int rc = locks_share(rank == 0 ? locks_take_datasets(x, cmd, h, e) : 0, e);
	if (rc != 0)
		lock_release(h); /* the broadcast failed after rank 0 took it */
	return rc;
}

int locks_results(const char *path, const char *command, int rank, struct lock_held *h,
		  struct pf_err *e)
{
	h->path[0] = '\0';
	int rc = locks_share(rank == 0 ? lock_take_file(path, command, h, e) : 0, e);
	if (rc != 0)
		lock_release(h);
	return rc;
}

int locks_generate_root(const struct experiment *x, int rank, struct lock_held *h,
			struct pf_err *e)
{
	int again = rank == 0 && h->path[0] == '\0', rc = 0;
	if (MPI_Bcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "lock: MPI_Bcast failed");
	if (!again)
		return 0;
	if (rank == 0) {
		(void)dataset_mkdirs(x->root); /* a failure is generate's to report, where it writes */
		rc = locks_take_datasets(x, "generate", h, e);
	}
	rc = locks_share(rc, e);
	if (rc != 0)
		lock_release(h);
	return rc;
}
