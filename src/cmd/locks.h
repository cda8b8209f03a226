/* cmd/locks: the locks of the commands under MPI (util/lock.h), taken by rank 0 alone and its
 * decision shared with every rank: generate and clean hold their data sets exclusively, run and
 * verify share them, and run holds its results file as its one writer. */
#ifndef PFSREAD_CMD_LOCKS_H
#define PFSREAD_CMD_LOCKS_H

#include "config/config.h"
#include "util/err.h"
#include "util/lock.h"

/* Collective. x's data sets for cmd ("generate" and "clean" exclusive, others shared); on rank
 * 0, h gets the lock (nothing on the others, or where none can be written: util/lock.h).
 * 0, or -1 with e set on every rank (PF_BUSY: another pfsread holds one of them). */
int locks_datasets(const struct experiment *x, const char *cmd, int rank, struct lock_held *h,
		   struct pf_err *e);

/* Collective. generate, once its checks passed (nothing written yet when they refuse): where
 * locks_datasets could take no lock for want of the root, the root is made and the lock taken
 * now, before anything else is written. 0, or -1 with e set on every rank. */
int locks_generate_root(const struct experiment *x, int rank, struct lock_held *h,
			struct pf_err *e);

/* Collective. The results file path for command ("run", "run --resume"), one writer: on rank
 * 0, h gets the lock. 0, or -1 with e set on every rank (PF_BUSY: another process writes it). */
int locks_results(const char *path, const char *command, int rank, struct lock_held *h,
		  struct pf_err *e);

#endif
