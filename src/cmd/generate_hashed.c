/* generate_hashed: where a hashed data set's files go once they are named. A file's name is
 * the digest of its content, known only once it is written, and no rank knows which names
 * another's files take; so a rank's files wait under their .part names until every rank has
 * written its share. Then every rank learns every waiting name's deepest directory, the
 * directories are made level by level, each by one rank alone (two nodes that make one
 * directory at once can break it on a shared file system: GlusterFS then fails every create
 * in it with ENOENT, on both), and each rank moves its files in. */
#include "cmd/generate_hashed.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/stop.h"

/* A deepest directory: depth x width hex digits, NUL-padded to a fixed record */
#define GH_LEAF (CFG_HASH_DEPTH_MAX * CFG_HASH_WIDTH_MAX + 1)

static size_t gh_leaf_digits(const struct gen_ctx *g)
{
	return (size_t)(g->d->layout.depth * g->d->layout.width);
}

static int gh_same(const void *val, const void *arg)
{
	return strcmp(val, arg) == 0;
}

static int gh_order(const void *a, const void *b)
{
	return strcmp(a, b);
}

int gen_hashed_pending(struct gen_ctx *g, uint64_t file, const char *hex)
{
	char leaf[GH_LEAF];
	int added;
	if (g->nmoves == g->moves_cap) {
		size_t cap = g->moves_cap ? 2 * g->moves_cap : 64;
		uint64_t *m = realloc(g->moves, cap * sizeof *m);
		if (m == NULL)
			return -ENOMEM;
		g->moves = m;
		g->moves_cap = cap;
	}
	g->moves[g->nmoves++] = file;
	if (gh_leaf_digits(g) == 0)
		return 0;
	memset(leaf, 0, sizeof leaf);
	memcpy(leaf, hex, gh_leaf_digits(g));
	if (g->leaves.elem == 0)
		htab_init(&g->leaves, GH_LEAF);
	char *slot = htab_put(&g->leaves, htab_hash_str(leaf), gh_same, leaf, &added);
	if (slot == NULL)
		return -ENOMEM;
	if (added)
		memcpy(slot, leaf, GH_LEAF);
	return 0;
}

void gen_hashed_free(struct gen_ctx *g)
{
	free(g->moves);
	g->moves = NULL;
	g->nmoves = g->moves_cap = 0;
	htab_free(&g->leaves);
}

int gen_hashed_part_path(const struct gen_ctx *g, uint64_t file, char *path, struct pf_err *e)
{
	if (snprintf(path, GEN_PATH, "%s/%s/f%010" PRIu64 ".part", g->x->root, g->d->name, file) >=
	    GEN_PATH)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	return 0;
}

/* This rank's deepest directories into *own (records of GH_LEAF bytes), *bytes of them. */
static int gh_pack_leaves(const struct gen_ctx *g, char **own, int *bytes, struct pf_err *e)
{
	size_t k = 0;
	*bytes = 0;
	if (g->leaves.n * GH_LEAF > INT_MAX)
		return pf_fail(e, PF_RUNTIME, "generate %s: too many directories for one rank",
			       g->d->name);
	if ((*own = malloc(g->leaves.n * GH_LEAF + 1)) == NULL)
		return pf_fail(e, PF_RUNTIME, "generate %s: out of memory", g->d->name);
	for (size_t i = 0; i < g->leaves.cap; i++)
		if (htab_at(&g->leaves, i) != NULL)
			memcpy(*own + GH_LEAF * k++, htab_at(&g->leaves, i), GH_LEAF);
	*bytes = (int)(k * GH_LEAF);
	return 0;
}

/* Sort the n records at all and keep each once; their number is returned. */
static size_t gh_sort_unique(char *all, size_t n)
{
	size_t k = 0;
	qsort(all, n, GH_LEAF, gh_order);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || strcmp(all + GH_LEAF * i, all + GH_LEAF * (k - 1)) != 0)
			memmove(all + GH_LEAF * k++, all + GH_LEAF * i, GH_LEAF);
	return k;
}

/* Every rank's deepest directories, sorted and each once, on every rank: *n records of GH_LEAF
 * bytes at *all (the caller frees it). Every rank decides alike at every step. */
static int gh_share_leaves(const struct gen_ctx *g, char **all, size_t *n, struct pf_err *e)
{
	int mine = 0, *counts = calloc((size_t)g->nranks, sizeof *counts);
	int *displs = calloc((size_t)g->nranks, sizeof *displs);
	char *own = NULL;
	size_t total = 0;
	int rc = counts == NULL || displs == NULL
			 ? pf_fail(e, PF_RUNTIME, "generate %s: out of memory", g->d->name)
			 : gh_pack_leaves(g, &own, &mine, e);
	*all = NULL;
	if (gen_all_ok(rc, e) != 0)
		goto out;
	rc = -1;
	if (MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) {
		pf_fail(e, PF_RUNTIME, "generate: MPI_Allgather failed");
		goto out;
	}
	for (int r = 0; r < g->nranks; r++) {
		displs[r] = total <= INT_MAX ? (int)total : 0; /* not used when over */
		total += (size_t)counts[r];
	}
	if (total > INT_MAX) { /* the same sum, the same verdict, on every rank */
		pf_fail(e, PF_RUNTIME, "generate %s: too many directories", g->d->name);
		goto out;
	}
	*all = malloc(total + 1);
	if (gen_all_ok(*all == NULL ? pf_fail(e, PF_RUNTIME, "generate %s: out of memory",
					       g->d->name) : 0, e) != 0)
		goto out;
	if (MPI_Allgatherv(own, mine, MPI_CHAR, *all, counts, displs, MPI_CHAR, MPI_COMM_WORLD) !=
	    MPI_SUCCESS) {
		pf_fail(e, PF_RUNTIME, "generate: MPI_Allgatherv failed");
		goto out;
	}
	*n = gh_sort_unique(*all, total / GH_LEAF);
	rc = 0;
out:
	free(counts);
	free(displs);
	free(own);
	if (rc != 0) {
		free(*all);
		*all = NULL;
	}
	return rc;
}

/* The directory of leaf's first levels levels, ROOT/NAME/ab/cd: the layout's path of a name
 * of leaf's digits, cut after them. */
static int gh_make_dir(const struct gen_ctx *g, const char *leaf, uint64_t levels,
		       struct pf_err *e)
{
	char path[GEN_PATH];
	size_t top = strlen(g->x->root) + 1 + strlen(g->d->name);
	if (dataset_hashed_path(g->x, g->d, leaf, path, sizeof path) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	path[top + levels * ((size_t)g->d->layout.width + 1)] = '\0';
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return pf_fail_errno(e, errno, "%s: cannot create directory", path);
	return 0;
}

/* Level by level, a level's directories (the sorted leaves' distinct prefixes) dealt
 * round-robin over the ranks; every rank agrees a level is made before the next begins. */
static int gh_make_dirs(const struct gen_ctx *g, const char *all, size_t n, struct pf_err *e)
{
	size_t w = (size_t)g->d->layout.width;
	for (uint64_t level = 1; level <= g->d->layout.depth; level++) {
		int rc = 0;
		uint64_t dealt = 0;
		for (size_t i = 0; i < n && rc == 0; i++) {
			const char *leaf = all + GH_LEAF * i;
			if (i > 0 && memcmp(leaf, leaf - GH_LEAF, level * w) == 0)
				continue; /* the previous leaf's directory at this level */
			if (dealt++ % (uint64_t)g->nranks != (uint64_t)g->rank)
				continue;
			rc = stop_signal() != 0 ? gen_stopped(e) : gh_make_dir(g, leaf, level, e);
		}
		if (gen_all_ok(rc, e) != 0)
			return -1;
	}
	return 0;
}

/* Waiting file i to its name (its line of the name list). From the first that fails, the
 * rest's .part files are removed. */
static int gh_move_all(struct gen_ctx *g, struct pf_err *e)
{
	char tmp[GEN_PATH], path[GEN_PATH];
	for (size_t i = 0; i < g->nmoves; i++) {
		if (stop_signal() != 0)
			return gen_stopped(e);
		if (gen_hashed_part_path(g, g->moves[i], tmp, e) != 0 ||
		    gen_done_path(g, g->moves[i], path, e) != 0)
			return -1;
		int rc = 0;
		for (int k = 0; rename(tmp, path) != 0; k++)
			if (errno != ENOENT || !gen_lag_again(k)) {
				rc = -errno;
				break;
			}
		if (rc != 0)
			return pf_fail_errno(e, rc, "%s: cannot move to %s", tmp, path);
		g->moves[i] = UINT64_MAX; /* moved */
	}
	return 0;
}

/* The .part files of waiting files not moved. */
static void gh_drop(struct gen_ctx *g)
{
	char tmp[GEN_PATH];
	struct pf_err ignored = {0};
	for (size_t i = 0; i < g->nmoves; i++)
		if (g->moves[i] != UINT64_MAX && gen_hashed_part_path(g, g->moves[i], tmp, &ignored) == 0)
			(void)unlink(tmp);
}

int gen_hashed_move(struct gen_ctx *g, int rc, struct pf_err *e)
{
	char *all = NULL;
	size_t n = 0;
	if (gen_all_ok(rc, e) == 0 && gh_share_leaves(g, &all, &n, e) == 0 &&
	    gh_make_dirs(g, all, n, e) == 0)
		rc = gh_move_all(g, e);
	else if (rc == 0)
		rc = -1;
	if (rc != 0)
		gh_drop(g);
	free(all);
	gen_hashed_free(g);
	return rc;
}
