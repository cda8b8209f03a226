/* generate: create the data sets of an experiment in parallel (resumable), verify them
 * against the content pattern, and clean away exactly what generate made. Collective. */
#ifndef PFSREAD_GENERATE_H
#define PFSREAD_GENERATE_H

#include "config/config.h"
#include "util/err.h"
#include "util/lock.h"

/* Make every data set of x that is not complete; complete files are kept, partial ones redone.
 * Rank 0 prints progress to stdout. held is the data sets' lock (cmd/locks.h); when none could
 * be taken for want of a root, the root is made and it is taken here, after the checks. */
int generate_all(const struct experiment *x, double progress_s, struct lock_held *held,
		 struct pf_err *e);

/* Check every file's size and every byte. Returns 0 when all match; -1 (PF_RUNTIME) naming
 * the first mismatch of each rank (data set, path, offset, expected and found bytes). */
int verify_all(const struct experiment *x, double progress_s, struct pf_err *e);

/* Remove the files and directories the manifests of x's data sets list, nothing else. */
int clean_all(const struct experiment *x, struct pf_err *e);

#endif
