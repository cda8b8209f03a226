/* datasets: what generate, verify and clean share (cmd/datasets.h): the walk's context, rank
 * 0's verdict for every rank, a made file's path. */
#include "cmd/datasets.h"

#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/iobuf.h"
#include "util/stop.h"

/* Every rank leaves with rank 0's verdict and, on failure, its message: one broadcast. */
int gen_share_verdict(int rc, int *verdict, struct pf_err *e)
{
	struct {
		int rc, verdict;
		struct pf_err err;
	} v = {rc, *verdict, *e};
	if (MPI_Bcast(&v, sizeof v, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Bcast failed");
	*verdict = v.verdict;
	*e = v.err;
	return v.rc;
}

/* Any rank failed -> every rank returns -1; only the ranks that failed carry a message. */
int gen_all_ok(int rc, struct pf_err *e)
{
	int mine = rc != 0, any = 0;
	if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Allreduce failed");
	return any ? -1 : 0;
}

/* The interrupted signal's message, in every stage of generate. */
int gen_stopped(struct pf_err *e)
{
	return pf_fail(e, stop_status(), "generate: interrupted by signal %d; run generate again to "
		       "finish", stop_signal());
}

/* How long a directory that another node has just made may stay unseen here: 40 x 50 ms */
#define GEN_LAG_TRIES 40
#define GEN_LAG_PAUSE_NS 50000000L

int gen_lag_again(int k)
{
	struct timespec pause = {0, GEN_LAG_PAUSE_NS};
	if (k >= GEN_LAG_TRIES || stop_signal() != 0)
		return 0;
	if (nanosleep(&pause, NULL) != 0)
		return errno == EINTR && stop_signal() == 0;
	return 1;
}

/* Where file's name is or will be: a hashed file's is its line of the name list (written
 * just before the rename); path gets "" when there is no line yet. */
int gen_done_path(struct gen_ctx *g, uint64_t file, char *path, struct pf_err *e)
{
	char hex[DIGEST_HEX_MAX];
	path[0] = '\0';
	if (g->d->layout.kind != CFG_LAYOUT_HASHED)
		return dataset_file_path(g->x, g->d, file, path, GEN_PATH) == 0
			       ? 0 : pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	int rc = dataset_read_line(g->dfd[g->d->layout.digest], g->d->layout.digest, file, hex);
	if (rc < 0)
		return pf_fail_errno(e, rc, "generate %s: cannot read the name list", g->d->name);
	if (rc == 0 && dataset_hashed_path(g->x, g->d, hex, path, GEN_PATH) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	return 0;
}

int gen_begin(struct gen_ctx *g, const struct experiment *x, struct pf_err *e)
{
	memset(g, 0, sizeof *g);
	g->x = x;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &g->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(MPI_COMM_WORLD, &g->nranks) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Comm_rank/size failed");
	for (int k = 0; k < DIGEST_KINDS; k++)
		g->dfd[k] = -1;
	int rc = iobuf_alloc(GEN_BLOCK, (void **)&g->buf);
	if (rc != 0)
		return pf_fail_errno(e, -rc, "generate: cannot allocate a %u-byte buffer", GEN_BLOCK);
	return 0;
}
