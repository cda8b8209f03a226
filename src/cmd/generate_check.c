/* generate_check: what generate looks at before it writes anything, on every data set at once:
 * what each directory holds (fresh, to resume, done, or not ours), the readers per node the
 * job can give, and, with space_check, the room left against what is still to make. */
#include "cmd/datasets.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dataset/tree.h"
#include "run/plan.h"
#include "util/stop.h"

/* 1 when path holds nothing but . and .., 0 when it holds something, -1 on error. */
static int gen_dir_is_empty(const char *path, struct pf_err *e)
{
	DIR *dir = opendir(path);
	if (dir == NULL)
		return pf_fail_errno(e, errno, "%s: cannot open directory", path);
	struct dirent *de;
	int empty = 1;
	while (empty && (de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			empty = 0;
	closedir(dir);
	return empty;
}

/* Rank 0, touching nothing: what generate will do in d's directory (*state; *have gets its
 * manifest when there is one), or -1 (PF_USAGE) where it must not write. */
int gen_classify(const struct experiment *x, const struct cfg_dataset *d, int *state,
			struct manifest *have, struct pf_err *e)
{
	char dir[GEN_PATH];
	struct manifest want;
	struct stat st;
	*state = GEN_FRESH;
	manifest_from_config(x, d, &want);
	if (dataset_dir(x, d, dir, sizeof dir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", x->root);
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "%s", dir);
	if (!S_ISDIR(st.st_mode))
		return pf_fail(e, PF_USAGE, "%s: exists and is not a directory; refusing to write "
			       "there", dir);
	int found = manifest_read(dir, have, e);
	if (found < 0)
		return -1;
	if (found == 1) {
		int empty = gen_dir_is_empty(dir, e);
		if (empty < 0)
			return -1;
		if (!empty)
			return pf_fail(e, PF_USAGE,
				       "%s: directory is not empty and holds no pfsread manifest; "
				       "refusing to write into it",
				       dir);
	} else if (!manifest_same_files(&want, have) && want.layout == CFG_LAYOUT_IN_PLACE &&
		   have->layout == CFG_LAYOUT_IN_PLACE) {
		*state = GEN_REDESCRIBE; /* nothing here is data of ours */
	} else if (!manifest_same_files(&want, have)) {
		return pf_fail(e, PF_USAGE,
			       "%s: holds data set '%s' made with other parameters "
			       "(%" PRIu64 " files of %" PRIu64 " B, %" PRIu64 " per directory); "
			       "run 'pfsread clean' first",
			       dir, have->name, have->nfiles, have->file_size, have->files_per_dir);
	} else {
		*state = have->complete ? GEN_DONE : GEN_RESUME;
	}
	return 0;
}

/* readers_per_node above what a node's ranks can give is refused here too, as by run: the
 * config is wrong for this job whatever command it runs. */
int gen_check_readers(const struct experiment *x, struct pf_err *e)
{
	MPI_Comm node;
	int mine = 0, least = 0;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Comm_split_type failed");
	int rc = MPI_Comm_size(node, &mine);
	MPI_Comm_free(&node);
	if (rc != MPI_SUCCESS ||
	    MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "generate: MPI_Allreduce failed");
	return cfg_check_readers(x, least, e);
}

/* A resumed data set: the bytes (as allocated) and files of this rank's share that are whole
 * already, which need no new room. Hashed data sets are counted as if nothing were made
 * (their names are in a list this check does not open). */
static int gen_count_whole(struct gen_ctx *g, uint64_t out[2], struct pf_err *e)
{
	char path[GEN_PATH];
	struct stat st;
	out[0] = out[1] = 0;
	if (g->d->layout.kind == CFG_LAYOUT_HASHED || g->d->layout.kind == CFG_LAYOUT_IN_PLACE)
		return 0;
	plan_block(g->d->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &g->first, &g->count);
	for (uint64_t f = g->first; f < g->first + g->count; f++) {
		if (stop_signal() != 0)
			return gen_stopped(e);
		if (dataset_file_path(g->x, g->d, f, path, sizeof path) != 0)
			return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size == dataset_file_size(g->d, f)) {
			out[0] += (uint64_t)st.st_blocks * 512;
			out[1]++;
		}
	}
	return 0;
}

/* Rank 0: the space each data set still needs, summed per file system (a data set directory
 * may be a mount of its own), against what each has free. */
struct gen_fs_need {
	struct space_fs fs;
	struct space_need need;
};
#define GEN_FS_MAX 16

static int gen_space_verdict(const struct gen_ctx *g, const unsigned char *state,
			     const uint64_t (*whole)[2], struct pf_err *e)
{
	const struct experiment *x = g->x;
	struct gen_fs_need *fsn = calloc(GEN_FS_MAX, sizeof *fsn);
	char dir[GEN_PATH];
	size_t nfs = 1;
	int rc = fsn != NULL ? space_probe(x->root, &fsn[0].fs, e)
			     : pf_fail(e, PF_RUNTIME, "generate: out of memory");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		struct stat st;
		struct space_need need;
		size_t k = 0;
		if (state[i] == GEN_DONE)
			continue;
		if (dataset_dir(x, d, dir, sizeof dir) == 0 && stat(dir, &st) == 0 &&
		    st.st_dev != fsn[0].fs.dev) {
			while (k < nfs && fsn[k].fs.dev != st.st_dev)
				k++;
			if (k == nfs && nfs == GEN_FS_MAX)
				k = 0; /* so many mounts: counted against root's */
			else if (k == nfs && (rc = space_probe(dir, &fsn[nfs++].fs, e)) != 0)
				break;
		}
		dataset_space_need(x, d, fsn[k].fs.alloc, &need);
		need.bytes -= whole[i][0] < need.bytes ? whole[i][0] : need.bytes;
		need.inodes -= whole[i][1] < need.inodes ? whole[i][1] : need.inodes;
		space_add(&fsn[k].need, &need);
	}
	for (size_t k = 0; rc == 0 && k < nfs; k++)
		rc = space_check(&fsn[k].fs, &fsn[k].need, "generate", e);
	free(fsn);
	return rc;
}

/* Every data set's directory is looked at before any is written (one that must not be
 * written refuses the whole command, not after the others were made), then, with
 * space_check, what is left to make is held against the free space. Collective. */
int gen_check_all(struct gen_ctx *g, struct pf_err *e)
{
	const struct experiment *x = g->x;
	unsigned char *state = calloc(x->ndatasets, 1);
	uint64_t (*whole)[2] = g->rank == 0 ? calloc(x->ndatasets, sizeof *whole) : NULL;
	int rc = state != NULL && (g->rank != 0 || whole != NULL)
			 ? 0 : pf_fail(e, PF_RUNTIME, "generate: out of memory");
	int verdict = 0;
	for (size_t i = 0; rc == 0 && g->rank == 0 && i < x->ndatasets; i++) {
		struct manifest have;
		int st = GEN_FRESH;
		if (stop_signal() != 0)
			rc = gen_stopped(e);
		else
			rc = gen_classify(x, &x->datasets[i], &st, &have, e);
		state[i] = (unsigned char)st;
	}
	rc = gen_share_verdict(rc, &verdict, e);
	if (rc == 0 && x->space_check &&
	    MPI_Bcast(state, (int)x->ndatasets, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "generate: MPI_Bcast failed");
	for (size_t i = 0; rc == 0 && x->space_check && i < x->ndatasets; i++) {
		uint64_t mine[2], sum[2];
		if (state[i] != GEN_RESUME)
			continue;
		g->d = &x->datasets[i];
		rc = gen_all_ok(gen_count_whole(g, mine, e), e);
		if (rc == 0 && MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD) !=
				       MPI_SUCCESS)
			rc = pf_fail(e, PF_RUNTIME, "generate: MPI_Reduce failed");
		if (rc == 0 && g->rank == 0)
			memcpy(whole[i], sum, sizeof sum);
	}
	if (rc == 0 && x->space_check) {
		if (g->rank == 0)
			rc = gen_space_verdict(g, state, (const uint64_t(*)[2])whole, e);
		rc = gen_share_verdict(rc, &verdict, e);
	} else if (rc == 0 && g->rank == 0) {
		printf("generate: space_check: false: free space is neither checked nor watched\n");
	}
	free(state);
	free(whole);
	return rc;
}

/* A root that is a system directory, a home directory or a mount point itself is refused:
 * a typo there must not put anything of value one manifest away from deletion. */
int gen_check_root(const char *root, const char *cmd, const char *why, struct pf_err *e)
{
	char real[PATH_MAX], parent[PATH_MAX + 4];
	static const char *const refused[] = {"/", "/home", "/root", "/tmp", "/var", "/usr",
					      "/etc", "/mnt", "/scratch", "/lustre"};
	struct stat st, up;
	const char *home = getenv("HOME");
	if (realpath(root, real) == NULL)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "%s: %s", cmd, root);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		if (strcmp(real, refused[i]) == 0)
			return pf_fail(e, PF_USAGE, "%s: refusing root %s: a system directory%s", cmd,
				       real, why);
	if (home != NULL && *home != '\0') {
		char rhome[PATH_MAX];
		if (realpath(home, rhome) != NULL && strcmp(rhome, real) == 0)
			return pf_fail(e, PF_USAGE, "%s: refusing root %s: your home directory%s", cmd,
				       real, why);
	}
	snprintf(parent, sizeof parent, "%s/..", real);
	if (stat(real, &st) != 0 || stat(parent, &up) != 0)
		return pf_fail_errno(e, errno, "%s: %s", cmd, real);
	if (st.st_dev != up.st_dev)
		return pf_fail(e, PF_USAGE,
			       "%s: refusing root %s: it is a mount point; give a directory inside "
			       "it%s", cmd, real, why);
	return 0;
}
