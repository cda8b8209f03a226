/* spread: how a phase's readers spread over the servers that hold its files, at moments evenly
 * over its reading. A file's storage target names one server or several (a stripe or a
 * replica set: "ost 3,4,5", "10.77.0.11:3334,10.77.0.12:3334", "n1:/b/1,n2:/b/1"), and a
 * reader of the file keeps each of them busy. Files that lie whole on one server let readers
 * meet there and leave others idle that they could have kept busy. Readers that have finished
 * (a phase's tail) are not counted against it: that is the spread of finish times. Pure: no
 * I/O, no MPI. */
#ifndef PFSREAD_REPORT_SPREAD_H
#define PFSREAD_REPORT_SPREAD_H

#include <stddef.h>

#include "results/results.h"

#define SPREAD_PARTS 64 /* servers one target's name can list (a name is at most 127 bytes) */

struct target_spread {
	int servers;  /* known servers some file of the phase lies on */
	double used;  /* mean over the moments with a file being read: servers in use */
	double could; /* the same moments' mean of what the files being read could keep busy:
		       * min(the servers they name, summed; servers) */
	double share; /* used / could, 1 when every reader had a server of its own; NaN when
		       * servers < 2 or the records do not say */
	double heaviest; /* the share of the phase's bytes on the server that holds most (1 /
			  * servers when even): while servers bind, the phase lasts at least that
			  * server's time, and reads at most 1 / (servers x heaviest) of all of
			  * them at once; NaN as share */
};

/* 1 when a target's name names one (not RECORD_TARGET_NONE, not "unknown: why"). */
int spread_target_known(const char *name);

/* The servers a known target's name lists, comma-separated, each whole: a later entry without
 * the first's prefix gets it ("ost 3,4" -> "ost 3", "ost 4"); a list cut short ("ost 3 +7")
 * gives those it names. Into out[0..max); returns how many (0 for a name that is not known). */
size_t spread_servers(const char *name, char (*out)[RECORD_TARGET_MAX], size_t max);

/* rows[0..n) of pd into u (set up at the first call, from pd's targets table; freed by the
 * caller through u->bytes, or with the digest). A phase without readers, with targets naming
 * fewer than 2 or more than DIGEST_USE_SERVERS servers gets no figure (u->none, and its later
 * rows are passed over). 0, or -1 when out of memory. */
int spread_add(struct target_use *u, const struct phase_data *pd, const struct file_rec *rows,
	       size_t n);

/* pd's spread, from its rows or its digest. 0, or -1 when out of memory. */
int spread_of_phase(const struct phase_data *pd, struct target_spread *s);

#endif
