/* cache: get the page cache out of the way before a timed phase (drop | fadvise | none). */
#ifndef PFSREAD_CACHE_H
#define PFSREAD_CACHE_H

#include <stdint.h>

#include "config/config.h"
#include "util/err.h"

/* 0 when strategy c can work for this process (drop needs root); else -1 with a message. */
int cache_check_allowed(enum cfg_cache c, struct pf_err *e);

/* sync + drop_caches (3: the page cache, dentries and inodes): once per node (its first rank). */
int cache_drop_node(struct pf_err *e);

/* drop_caches 2, the dentries and inodes alone: after the residency probe of a dropped node,
 * whose opens looked files up again (once per node, once its ranks have probed). */
int cache_drop_names_node(struct pf_err *e);

/* POSIX_FADV_DONTNEED on the whole of path (opened with O_NOATIME when noatime and permitted).
 * 0, or -errno with the message in e. */
int cache_fadvise_file(const char *path, int noatime, struct pf_err *e);

/* Bytes of [offset, offset + len) of path that are in the page cache now: cachestat where the
 * kernel gives it, else mincore on a mapping (reads nothing, but a mapping marks the file
 * accessed: with noatime the file is opened with O_NOATIME where permitted). A file that cannot
 * be opened, or not mapped (ENODEV: a FUSE client in direct I/O keeps no pages of it), counts
 * as not resident. 0; CACHE_UNTOLD when the kernel will not tell this process (it neither owns
 * the file nor may write it: cachestat refuses, and mincore would call every page resident);
 * -1 with the message in e. */
#define CACHE_UNTOLD 1
int cache_resident(const char *path, uint64_t offset, uint64_t len, int noatime,
		   uint64_t *resident, struct pf_err *e);

/* What a phase measured, whatever the strategy meant to do: cold when at most
 * CACHE_COLD_MAX of its bytes were in the page cache before it, warm from CACHE_WARM_MIN, mixed
 * in between; unknown (a resident fraction of NaN) when the kernel would not tell a rank. A
 * strategy can fail (shift on too few nodes, cache: none on a second repetition), so the report
 * groups and labels phases by this, never by the strategy's name. */
#define CACHE_COLD_MAX 0.05
#define CACHE_WARM_MIN 0.95
enum cache_state { CACHE_COLD, CACHE_MIXED, CACHE_WARM, CACHE_UNKNOWN };

enum cache_state cache_state_of(double resident_fraction);
const char *cache_state_name(enum cache_state s); /* "cold" | "mixed" | "warm" | "unknown" */

#endif
