/* fromtree: give the from_tree data sets of a loaded experiment their tree's description.
 * One process scans a tree (plan; rank 0 of generate) or reads the description generate left
 * in ROOT/NAME/.pfsread-tree (rank 0 of run, verify, clean) and broadcasts it: no other rank
 * walks the tree, so 400 ranks cost the file system one scan, not 400. */
#ifndef PFSREAD_FROMTREE_H
#define PFSREAD_FROMTREE_H

#include <stdio.h>

#include "config/config.h"
#include "util/err.h"

enum fromtree_mode {
	FROMTREE_SCAN,         /* walk the tree (generate) */
	FROMTREE_READ,         /* the description generate wrote; missing: "run generate" */
	FROMTREE_READ_IF_THERE /* the same, a missing one left unattached (clean) */
};

/* One process (plan): scan every from_tree data set's tree and attach it. A missing tree,
 * a tree without regular files, an unreadable file or directory, or a root inside the tree
 * fail with PF_USAGE at the from_tree key (FILE:LINE:COL). */
int fromtree_scan_all(struct experiment *x, struct pf_err *e);

/* Collective: rank 0 scans or reads as mode says, every rank attaches the same description.
 * Returns 0, or -1 on every rank with rank 0's message. */
int fromtree_share(struct experiment *x, enum fromtree_mode mode, struct pf_err *e);

/* Rank 0 of generate: d's description into dir/.pfsread-tree (temporary file, fsync,
 * rename): outside the tree, never in it. */
int fromtree_write(const char *dir, const struct cfg_dataset *d, struct pf_err *e);

/* "  from_tree PATH: ..." lines: what the tree holds, what was skipped, what pfsread does
 * with it (a twin under ROOT/NAME, or reading it in place). */
void fromtree_print(FILE *out, const struct experiment *x, const struct cfg_dataset *d);

#endif
