/* cmd/datasets: what the three commands over the data sets (generate, verify, clean) share:
 * a context that walks the data sets with this rank's block of each one's files, one verdict
 * of rank 0 for every rank, the path of a file once made. Internal to src/cmd. */
#ifndef PFSREAD_CMD_DATASETS_H
#define PFSREAD_CMD_DATASETS_H

#include <stdint.h>

#include "config/config.h"
#include "dataset/dataset.h"
#include "util/digest.h"
#include "util/err.h"
#include "util/htab.h"
#include "util/space.h"
#include "run/progress.h"

#define GEN_BLOCK (4u << 20) /* the buffer; verify reads in 4 MiB blocks */
/* generate fills and writes 512 KiB at a time: the filled piece and the page-cache pages the
 * kernel copies it into stay in a core's L2 cache, so the fill's stores and the copy's loads
 * never go to memory (4 MiB pieces cost a third more CPU per byte here: the fill's stores
 * evicted before the copy read them back). A buffered write's size does not set what a
 * client sends: the page cache gathers it. */
#define GEN_WRITE (512u << 10)
#define GEN_PATH (CFG_PATH_MAX + 64)

/* What rank 0 decides for every rank: skip a data set, or make (clean) it. */
enum gen_verdict { GEN_SKIP, GEN_MAKE };

/* What generate finds in a data set's directory before it touches anything. */
enum gen_state {
	GEN_FRESH,      /* no directory, or an empty one: everything to make */
	GEN_RESUME,     /* the same files, not all made yet */
	GEN_DONE,       /* the same files, complete: only checked file by file */
	GEN_REDESCRIBE  /* a tree read in place that changed: described again */
};

struct gen_ctx {
	const struct experiment *x;
	const struct cfg_dataset *d;
	int rank, nranks;
	struct dataset_content content;
	unsigned char *buf; /* GEN_BLOCK bytes */
	uint64_t first, count; /* this rank's files */
	/* progress, printed by rank 0 from its own share */
	double t_start, t_last;
	uint64_t done_files;
	uint64_t made_files; /* written by this rank, not found whole */
	uint64_t share_bytes, done_bytes, made_bytes; /* this rank's: all, so far, written */
	/* Digest lists: process.digest's kind and, for a hashed data set, its names' kind (the
	 * same list when the kinds agree). Each file's digest goes to its line of each list. */
	struct digest dg[DIGEST_KINDS]; /* opened for every kind once, used where kinds has it */
	unsigned kinds;      /* 1u << kind for the lists of the data set being made */
	int dfd[DIGEST_KINDS]; /* the lists, open on every rank while its files are made; -1 */
	/* space_check: the data set's file system (rank 0's probe, on every rank) and how much
	 * this rank writes between two looks at its free space */
	struct space_fs fs;
	uint64_t guard_bytes, guard_files; /* intervals */
	uint64_t since_bytes, since_files; /* written since the last look */
	char dsdir[GEN_PATH];
	/* hashed: this rank's files written under .part names and listed, to be moved to their
	 * names; and the deepest directories of those names, each once (generate_hashed.c) */
	uint64_t *moves;
	size_t nmoves, moves_cap;
	struct htab leaves;
	struct progress progress; /* rank 0's lines over all ranks (generate, verify) */
};

/* Every rank leaves with rank 0's verdict and, on failure, its message: one broadcast. */
int gen_share_verdict(int rc, int *verdict, struct pf_err *e);

/* Any rank failed -> every rank returns -1; only the ranks that failed carry a message. */
int gen_all_ok(int rc, struct pf_err *e);

/* The interrupted signal's message, in every stage of generate. */
int gen_stopped(struct pf_err *e);

/* After ENOENT in a directory that is made already: whether to ask again (k-th time), after a
 * pause. A directory that a rank on another node has made may be found by this node's client
 * of a shared file system a moment later: asked again for up to 2 s. Not after a stop signal. */
int gen_lag_again(int k);

/* Where file's name is or will be: a hashed file's is its line of the name list (written
 * just before the rename); path gets "" when there is no line yet. */
int gen_done_path(struct gen_ctx *g, uint64_t file, char *path, struct pf_err *e);

/* Start walking x's data sets: rank, ranks, a GEN_BLOCK buffer (the caller frees g->buf). */
int gen_begin(struct gen_ctx *g, const struct experiment *x, struct pf_err *e);

/* Rank 0, touching nothing: what generate will do in d's directory (*state; *have gets its
 * manifest when there is one), or -1 (PF_USAGE) where it must not write. */
int gen_classify(const struct experiment *x, const struct cfg_dataset *d, int *state,
		struct manifest *have, struct pf_err *e);

/* readers_per_node above what a node's ranks can give is refused here too, as by run: the
 * config is wrong for this job whatever command it runs. */
int gen_check_readers(const struct experiment *x, struct pf_err *e);

/* Every data set's directory is looked at before any is written (one that must not be
 * written refuses the whole command, not after the others were made), then, with
 * space_check, what is left to make is held against the free space. Collective. */
int gen_check_all(struct gen_ctx *g, struct pf_err *e);

/* The roots clean refuses (and plan with it): a system directory, the user's home, a mount
 * point itself; a typo there must not put anything of value one manifest away from deletion.
 * A root that does not exist passes. 0, or -1 with e set (PF_USAGE: "CMD: refusing root R:
 * REASON" and why after it). Rank 0 or one process. */
int gen_check_root(const char *root, const char *cmd, const char *why, struct pf_err *e);

#endif
