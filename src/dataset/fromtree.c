/* fromtree: the descriptions of from_tree data sets, scanned or read by one process and
 * broadcast to the others, then attached to the experiment's data sets. */
#include "dataset/fromtree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/dataset.h"
#include "util/stop.h"
#include "dataset/tree.h"
#include "util/safe.h"

#define FT_PATH (CFG_PATH_MAX + 64)

static void ft_key(const struct cfg_dataset *d, char *key, size_t len)
{
	if (snprintf(key, len, "datasets[%zu].from_tree", d->entry) < 0)
		key[0] = '\0';
}

/* 1 when the data set directory would lie inside the tree (pfsread would write into it). */
static int ft_root_inside(const struct experiment *x, const char *src)
{
	char root[PATH_MAX + CFG_PATH_MAX + 2], cwd[PATH_MAX];
	if (realpath(x->root, root) == NULL) { /* not made yet: as written, made absolute */
		if (x->root[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
			snprintf(root, sizeof root, "%s", x->root);
		else
			snprintf(root, sizeof root, "%s/%s", cwd, x->root);
	}
	size_t n = strlen(src);
	if (strcmp(src, "/") == 0)
		return 1;
	return strncmp(root, src, n) == 0 && (root[n] == '\0' || root[n] == '/');
}

/* A tree is held to the limits of any data set (README, Safety), at its from_tree key: its
 * files (and, for a twin that is generated, each file, the total and a one-file twin). */
static int ft_limits(const struct experiment *x, const struct cfg_dataset *d,
		     const struct tree_desc *t, struct pf_err *e)
{
	char key[64];
	ft_key(d, key, sizeof key);
	if (t->nfiles > CFG_FILES_MAX)
		return cfg_fail_at(e, x, d->tree_pos, key, "'%s' holds %" PRIu64 " files, more than "
				   "%llu, the most pfsread takes in a data set", t->source, t->nfiles,
				   (unsigned long long)CFG_FILES_MAX);
	if (d->in_place)
		return 0; /* read as it is: nothing written, sizes as the file system gives them */
	for (uint64_t i = 0; i < t->nfiles; i++)
		if (t->size[i] > CFG_FILE_SIZE_MAX)
			return cfg_fail_at(e, x, d->tree_pos, key, "'%s/%s' is %" PRIu64 " B, more "
					   "than 1 PiB, the largest file pfsread makes", t->source,
					   tree_file_path(t, i, 1), t->size[i]);
	if (t->total > CFG_DATASET_BYTES_MAX || (d->twin && t->total > CFG_FILE_SIZE_MAX))
		return cfg_fail_at(e, x, d->tree_pos, key, "'%s' holds %" PRIu64 " B, more than "
				   "pfsread makes in %s", t->source, t->total,
				   d->twin ? "one file (twin: true)" : "a data set");
	return 0;
}

/* Scan d's tree into *t, every input error at the from_tree key. */
static int ft_scan(const struct experiment *x, const struct cfg_dataset *d,
		   struct tree_desc *t, struct pf_err *e)
{
	char key[64], why[CFG_PATH_MAX + 256];
	struct stat st;
	ft_key(d, key, sizeof key);
	if (stat(d->from_tree, &st) != 0)
		return cfg_fail_at(e, x, d->tree_pos, key, "'%s': %s", d->from_tree, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cfg_fail_at(e, x, d->tree_pos, key, "'%s' is not a directory", d->from_tree);
	if (tree_scan(d->from_tree, x->noatime, t, why, sizeof why) != 0) {
		if (stop_signal() != 0)
			return stop_check(e, "from_tree: the scan");
		return cfg_fail_at(e, x, d->tree_pos, key, "%s", why);
	}
	int rc = 0;
	if (t->nfiles == 0)
		rc = cfg_fail_at(e, x, d->tree_pos, key,
				 "'%s' holds no regular file (%" PRIu64 " symbolic links and %" PRIu64
				 " special files skipped)", t->source, t->symlinks, t->specials);
	else if (ft_root_inside(x, t->source))
		rc = cfg_fail_at(e, x, d->tree_pos, key,
				 "root '%s' lies inside the tree '%s': pfsread would write into it",
				 x->root, t->source);
	if (rc == 0)
		rc = ft_limits(x, d, t, e);
	if (rc != 0)
		tree_free(t);
	return rc;
}

/* Attach t (moved into a new allocation that d owns). A one-file twin (twin: true), which
 * the config inserts right after d, learns its size only now: the tree's total. */
static int ft_attach(struct cfg_dataset *d, struct tree_desc *t, struct pf_err *e)
{
	struct tree_desc *own = malloc(sizeof *own);
	if (own == NULL) {
		tree_free(t);
		return pf_fail(e, PF_RUNTIME, "data set %s: out of memory", d->name);
	}
	*own = *t;
	tree_attach(d, own);
	if (d->twin)
		d[1].file_size = d[1].total_size = d->total_size;
	return 0;
}

int fromtree_scan_all(struct experiment *x, struct pf_err *e)
{
	int any = 0;
	for (size_t i = 0; i < x->ndatasets; i++) {
		struct cfg_dataset *d = &x->datasets[i];
		struct tree_desc t;
		if (d->from_tree == NULL)
			continue;
		if (ft_scan(x, d, &t, e) != 0 || ft_attach(d, &t, e) != 0)
			return -1;
		any = 1;
	}
	return any ? cfg_check_volume(x, e) : 0; /* the trees' bytes are known only now */
}

/* The whole of path into *text (malloc'ed). 0, 1 when there is none, -1 on error. */
static int ft_read_file(const char *path, char **text, size_t *len, struct pf_err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 1 : pf_fail_errno(e, errno, "%s: cannot open", path);
	int rc = fstat(fd, &st) == 0 ? 0 : pf_fail_errno(e, errno, "%s: fstat", path);
	if (rc == 0 && (uint64_t)st.st_size >= INT_MAX)
		rc = pf_fail(e, PF_RUNTIME, "%s: larger than 2 GiB", path);
	*len = rc == 0 ? (size_t)st.st_size : 0;
	*text = rc == 0 ? malloc(*len + 1) : NULL;
	if (rc == 0 && *text == NULL)
		rc = pf_fail(e, PF_RUNTIME, "%s: out of memory", path);
	for (size_t done = 0; rc == 0 && done < *len;) {
		ssize_t n = pread(fd, *text + done, *len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = n < 0 ? pf_fail_errno(e, errno, "%s: cannot read", path)
				   : pf_fail(e, PF_RUNTIME, "%s: shorter than its size", path);
		else
			done += (size_t)n;
	}
	close(fd);
	if (rc != 0) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/* Rank 0: d's description as text (*text malloc'ed, or NULL when there is none to attach),
 * scanned (kept whole in *t) or read from ROOT/NAME/.pfsread-tree. */
static int ft_rank0(const struct experiment *x, const struct cfg_dataset *d,
		    enum fromtree_mode mode, struct tree_desc *t, char **text, size_t *len,
		    struct pf_err *e)
{
	char path[FT_PATH];
	*text = NULL;
	*len = 0;
	if (mode == FROMTREE_SCAN) {
		if (ft_scan(x, d, t, e) != 0)
			return -1;
		*text = t->text;
		*len = t->text_len;
		return 0;
	}
	if (snprintf(path, sizeof path, "%s/%s/%s", x->root, d->name, TREE_FILE) >= (int)sizeof path)
		return pf_fail(e, PF_USAGE, "%s: path too long", x->root);
	int rc = ft_read_file(path, text, len, e);
	if (rc == 1 && mode == FROMTREE_READ)
		return pf_fail(e, PF_RUNTIME, "data set '%s' is not generated (%s is missing; run "
			       "'pfsread generate %s' first)", d->name, path, x->source);
	return rc < 0 ? -1 : 0;
}

/* Every rank: rank 0's verdict and the length of its text (-1: nothing to attach). */
static int ft_share_len(int rc, long long *len, struct pf_err *e)
{
	struct {
		int rc;
		long long len;
		struct pf_err err;
	} v = {rc, *len, *e};
	if (MPI_Bcast(&v, sizeof v, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "from_tree: MPI_Bcast failed");
	*len = v.len;
	*e = v.err;
	return v.rc;
}

/* One data set: rank 0 gets the text, every rank the same description. */
static int ft_share_one(struct experiment *x, struct cfg_dataset *d, int rank,
			enum fromtree_mode mode, struct pf_err *e)
{
	struct tree_desc t;
	char *text = NULL, why[256];
	size_t n = 0;
	memset(&t, 0, sizeof t);
	int rc = rank == 0 ? ft_rank0(x, d, mode, &t, &text, &n, e) : 0;
	long long len = text != NULL ? (long long)n : -1;
	rc = ft_share_len(rc, &len, e);
	if (rc != 0 || len < 0) { /* failed, or nothing to attach */
		if (mode != FROMTREE_SCAN)
			free(text); /* scanned text belongs to t */
		tree_free(&t);
		return rc;
	}
	char *buf = rank == 0 ? text : malloc((size_t)len + 1);
	rc = buf != NULL ? 0 : pf_fail(e, PF_RUNTIME, "from_tree: out of memory");
	if (MPI_Bcast(buf != NULL ? buf : why, buf != NULL ? (int)len : 0, MPI_CHAR, 0,
		      MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "from_tree: MPI_Bcast failed");
	if (rc == 0 && !(rank == 0 && mode == FROMTREE_SCAN) &&
	    tree_parse(buf, (size_t)len, &t, why, sizeof why) != 0)
		rc = pf_fail(e, PF_RUNTIME, "data set %s: %s/%s/%s: %s", d->name, x->root, d->name,
			     TREE_FILE, why);
	if (buf != t.text)
		free(buf);
	if (rc == 0)
		return ft_attach(d, &t, e);
	tree_free(&t);
	return rc;
}

int fromtree_share(struct experiment *x, enum fromtree_mode mode, struct pf_err *e)
{
	int rank = 0, rc = 0, any = 0;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "from_tree: MPI_Comm_rank failed");
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++)
		if (x->datasets[i].from_tree != NULL) {
			rc = ft_share_one(x, &x->datasets[i], rank, mode, e);
			any = 1;
		}
	if (rc == 0 && any)
		rc = cfg_check_volume(x, e); /* the trees' bytes are known only now */
	any = 0;
	if (MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "from_tree: MPI_Allreduce failed");
	if (any != 0 && rc == 0)
		return pf_fail(e, PF_RUNTIME, "from_tree: another rank could not read a description");
	return rc;
}

int fromtree_write(const char *dir, const struct cfg_dataset *d, struct pf_err *e)
{
	return dataset_write_atomic(dir, TREE_FILE, d->tree->text, d->tree->text_len,
				    "the tree's description", e);
}

void fromtree_print(FILE *out, const struct experiment *x, const struct cfg_dataset *d)
{
	const struct tree_desc *t = d->tree;
	char src[SAFE_ROOM(CFG_PATH_MAX)], root[SAFE_ROOM(CFG_PATH_MAX)];
	if (t == NULL)
		return;
	safe_text(root, sizeof root, x->root, 0);
	fprintf(out, "  from_tree %s: %" PRIu64 " files in %" PRIu64 " directories, %" PRIu64
		" levels deep; skipped %" PRIu64 " symbolic links (not followed) and %" PRIu64
		" special files\n", safe_text(src, sizeof src, t->source, 0), t->nfiles, t->ndirs,
		t->depth, t->symlinks, t->specials);
	if (d->in_place)
		fprintf(out, "  read in place (nothing written in the tree); its file list goes to "
			"%s/%s/%s\n", root, d->name, TREE_FILE);
	else
		fprintf(out, "  twin generated under %s/%s: the same sizes, the same directories "
			"(dNNNNNN), the same files per directory (fNNNNNNNNNN)\n", root, d->name);
}
