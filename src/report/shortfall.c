/* shortfall: what the report says of a cold cell that stays below its ceiling (the link or
 * whichever limit binds): that it does, and where its read path is a known cause, which one
 * and why, in one line. The mechanisms are the ones measured in the cluster in a box
 * (docs/box.md, "Read paths against the link"); for another machine they are likely, not
 * proven, and are said so. What the run itself shows is said as measured: another read path
 * of the same data set reaching the same ceiling proves the link and the storage can.
 * Pure: no I/O, no MPI. */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/sweep.h"
#include "run/backend.h"

int report_fs_fuse(const char *mount_type)
{
	return mount_type != NULL && strncmp(mount_type, "fuse", 4) == 0;
}

/* A transfer below this is small for O_DIRECT: each request waits its own round trip. */
#define SF_SMALL_DIRECT (1u << 20)

/* The capability flags of the backend p was read with, as its ops table declares them: what
 * it can do (whether x's options used it, the phase's hints say). 0 for a backend this build
 * does not have: no known cause is claimed for it. */
static unsigned sf_caps(const struct sweep_point *p)
{
	const struct backend *b = backend_find(p->backend);
	return b != NULL ? b->flags : 0;
}

/* The known cause of c's shortfall on fs: its name into cause, its reason into why; 0 when
 * the read path is not a known cause. */
static int sf_known(const struct report_cell *c, const struct report_fs *fs, const char **cause,
		    const char **why)
{
	const struct sweep_point *p = &c->sweep;
	unsigned caps = sf_caps(p);
	int net = fs->remote || fs->fuse;
	if ((caps & BACKEND_MAPPED) && fs->fuse && strcmp(p->advice, "sequential") == 0) {
		*cause = "madv-sequential-fuse";
		*why = "MADV_SEQUENTIAL (advice sequential) on a FUSE mount: in the box it cut cold "
		       "mmap reads on GlusterFS and MooseFS to 5-10% of the link; advice none "
		       "avoids it";
		return 1;
	}
	if ((caps & BACKEND_MAPPED) && net) {
		*cause = "mmap-page-faults";
		*why = "mmap reads by page faults: the copy stops at each fault until its "
		       "read-around window arrives from the servers, so it pays the latency and CPU "
		       "contention that read()'s readahead hides (in the box a plain mmap copy "
		       "reached 89-93% of the links with a core free, 78% with two readers on one "
		       "core and 40-61% at load 7 on 2 cores, where read() kept 86-99%)";
		return 1;
	}
	/* an old file without hints read shared files collectively: that was the default */
	if ((caps & BACKEND_COLLECTIVE) && strcmp(p->pattern, "shared") == 0 &&
	    c->readers > 1 && (c->hints[0] == '\0' || strstr(c->hints, "collectively"))) {
		/* not the two-phase exchange: in the box the nodes received 1.01x the bytes read
		 * (each reader's block is its aggregator's file domain); open and close cost 2-4x */
		*cause = "mpiio-collective";
		*why = "collective MPI-IO's lock step: all readers open, read and close each shared "
		       "file together, every step waiting for the slowest node (in the box open and "
		       "close took 2-4x the independent reads' and the nodes exchanged ~1% of the "
		       "bytes); mpiio: {collective: false} reads independently";
		return 1;
	}
	if ((caps & BACKEND_BYPASSES_CACHE) && p->transfer_size > 0 &&
	    p->transfer_size < SF_SMALL_DIRECT) {
		*cause = "direct-small-transfers";
		*why = "O_DIRECT with transfers under 1 MiB: every request waits its own round "
		       "trip, with no readahead to overlap them";
		return 1;
	}
	return 0;
}

static int sf_same_ceiling(const struct report_cell *a, const struct report_cell *b)
{
	return strcmp(a->limit, b->limit) == 0 &&
	       fabs(a->ceiling_MBps - b->ceiling_MBps) <= 1e-9 * fabs(a->ceiling_MBps);
}

/* The cold cell of all[0..n) that reached c's ceiling with another read path (same data set,
 * file size and readers per node), the best one; NULL when none did. */
static const struct report_cell *sf_sibling(const struct report_cell *c,
					    const struct report_cell *all, long n)
{
	const struct report_cell *best = NULL;
	unsigned same = 1u << SWEEP_DATASET | 1u << SWEEP_FILE_SIZE | 1u << SWEEP_READERS;
	for (long i = 0; i < n; i++) {
		const struct report_cell *o = &all[i];
		if (o == c || o->state != CACHE_COLD || !(o->efficiency >= REPORT_SHORT_OF) ||
		    !sweep_same(&o->sweep, &c->sweep, ~same) || !sf_same_ceiling(o, c))
			continue;
		if (best == NULL || o->efficiency > best->efficiency)
			best = o;
	}
	return best;
}

/* "backend posix, advice sequential": o's backend and its other keys that differ from c's. */
static void sf_name(const struct report_cell *o, const struct report_cell *c, char *buf,
		    size_t len)
{
	char v[192];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < SWEEP_NKEYS && used < len; k++) {
		if (sweep_fields[k].flags & SWEEP_PART ||
		    (k != SWEEP_BACKEND && sweep_same(&o->sweep, &c->sweep, ~(1u << k))))
			continue;
		sweep_value(&o->sweep, k, v, sizeof v);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
					 sweep_fields[k].label, v);
	}
}

void report_cell_shortfall(struct report_cell *c, const struct report_cell *all, long n,
			   const struct report_fs *fs)
{
	const char *cause = "unknown", *why = NULL;
	char other[256], proof[320];
	c->cause[0] = c->shortfall[0] = '\0';
	if (c->state != CACHE_COLD || !isfinite(c->efficiency) || c->efficiency >= REPORT_SHORT_OF)
		return;
	int known = sf_known(c, fs, &cause, &why);
	const struct report_cell *o = sf_sibling(c, all, n);
	proof[0] = '\0';
	if (o != NULL) {
		sf_name(o, c, other, sizeof other);
		snprintf(proof, sizeof proof, "; %s reached %.0f%% of the same ceiling%s in this "
			 "run, so the read path is the cause", other, o->efficiency * 100,
			 o->efficiency > REPORT_ABOVE ? " (above it: the ceiling is contradicted)" : "");
	}
	snprintf(c->cause, sizeof c->cause, "%s", cause);
	if (known)
		snprintf(c->shortfall, sizeof c->shortfall, "likely %s%s", why, proof);
	else if (o != NULL)
		snprintf(c->shortfall, sizeof c->shortfall, "no known cause in its read path%s",
			 proof);
	else
		snprintf(c->shortfall, sizeof c->shortfall, "no known cause in its read path (a "
			 "hardware figure may be too high, or a limit is missing from the model)");
}
