/* target: which storage target holds each file (docs/results-file.md "Storage targets").
 * Asked of the file system itself, outside every timed region: GlusterFS's
 * trusted.glusterfs.pathinfo (the brick: host and brick path), Lustre's lustre.lov (the OST
 * indices of the layout, parsed by hand), CephFS's ceph.file.layout.pool (the data pool), a
 * local file's block device (st_dev -> /sys/dev/block), OrangeFS's servers through its FUSE
 * client (pvfs2-viewdist, a process per file: pvfs2fuse answers no extended attribute).
 * Everything else is "unknown: why".
 * On a local disk or a tmpfs the rank answers itself (the device's answer: no extended
 * attribute, nothing a hung daemon holds). Elsewhere each lookup runs in a helper process
 * and is waited for at most TARGET_LOOKUP_S, a phase's at
 * most TARGET_BUDGET_S in all: a hung FUSE getxattr costs one timeout, after which this rank
 * looks up nothing more ("unknown: timeout"). Answers are kept per data set and file, so a data
 * set is asked about once per rank. Never fails a run. No MPI but target_merge. */
#ifndef PFSREAD_TARGET_H
#define PFSREAD_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "pfsread/record.h"

#define TARGET_LOOKUP_S 2.0  /* the longest one lookup is waited for */
#define TARGET_BUDGET_S 30.0 /* the most a phase spends looking up on one rank */
#define TARGET_NAMES_MAX 4096 /* distinct names a rank keeps; further ones are "unknown: many" */

/* The helper is this very program started again (posix_spawn of /proc/self/exe: no copy of
 * the rank's memory, whose every later write would then be a copy-on-write fault) with
 * TARGET_HELPER_ARG HOST, its socket on standard input. main hands it to target_helper_main,
 * which answers until the socket closes and returns 0. */
#define TARGET_HELPER_ARG "--pfsread-target-helper"
int target_helper_main(int argc, char **argv);

struct target_ctx; /* one per rank: the helper process, the names, the answers per data set */

/* A context for ndatasets data sets; host names local block devices. 0 or -ENOMEM. */
int target_ctx_new(size_t ndatasets, const char *host, struct target_ctx **out);
/* Ends the helper process (killed and left behind when it is stuck in a lookup). Accepts NULL. */
void target_ctx_free(struct target_ctx *c);

/* Item i's path into buf: 0, or -1 when it does not fit. */
typedef int (*target_path_fn)(void *arg, uint64_t i, char *buf, size_t len);

/* The local ids (1-based; see target_name) of n items, files file[0..n) of data set ds (of
 * nfiles files), into ids[0..n): the answers kept from before, else asked now, a batch at a
 * time, each answer waited for at most TARGET_LOOKUP_S and not past *budget_s seconds
 * (decreased by what the waits took). Never fails: a failure is a name "unknown: why"; an id
 * is 0 only when out of memory. */
void target_ids(struct target_ctx *c, size_t ds, uint64_t nfiles, const uint64_t *file,
		uint64_t n, target_path_fn path_of, void *arg, uint32_t *ids, double *budget_s);

/* The name of local id (1..target_count) */
const char *target_name(const struct target_ctx *c, uint32_t id);
uint32_t target_count(const struct target_ctx *c);

/* The answer for path, asked now by the caller (no time limit): what the helper process
 * runs. host: for local devices. Returns 1 when the answer holds for every file of the same
 * device (st_dev: a block device, a file system with no per-file answer), 0 when it is the
 * file's own (GlusterFS, Lustre, CephFS, or a failure). */
int target_lookup(const char *path, const char *host, char *out, size_t len);

/* ---- parsers, pure ---- */

/* GlusterFS's pathinfo ("(<DISTRIBUTE:v-dht> <POSIX(/b/b0):n1:/b/b0/d/f>)", replicas as
 * several POSIX entries): "n1:/b/b0" per brick, comma-separated, the first the one a read
 * goes to first. 0, or -1 when it names no brick. */
int target_parse_gluster(const char *pathinfo, char *out, size_t len);

/* pvfs2-viewdist's output ("Datafile 0 - tcp://10.77.0.11:3334, handle: ..." a line per
 * datafile, in stripe order): the servers as host:port, comma-separated, the first holding
 * the file's start ("10.77.0.11:3334,10.77.0.12:3334"), "+N" when the list would not fit.
 * 0, or -1 when it names no datafile. */
int target_parse_viewdist(const char *text, char *out, size_t len);

/* One line of /proc/self/mountinfo: its file system type and source, a space between ("fuse
 * pvfs2fuse#tcp://srv:3334/orangefs"), into out when the line's device is maj:min. 1 when it
 * is, 0 when another device's, -1 when no such line (or it does not fit). */
int target_parse_mountinfo(const char *line, unsigned maj, unsigned min, char *out, size_t len);

/* Lustre's lustre.lov value (lov_mds_md v1/v3, or a composite layout's first component):
 * "ost 3" or, striped, "ost 3,4,5" (the first holding the file's start), or "ost 3 +7" when
 * the list would not fit. 0, or -1 when the buffer is no layout this parser knows. */
int target_parse_lov(const void *buf, size_t n, char *out, size_t len);

/* /sys/dev/block/MAJ:MIN's link target ("../../devices/.../block/sda/sda1"): its last
 * component ("sda1"). 0, or -1 when it has none. */
int target_parse_blockdev(const char *link, char *out, size_t len);

/* A name fit for the table: at most RECORD_TARGET_MAX - 1 bytes, no control characters. */
void target_clean(char *s);

#ifdef PFSREAD_WITH_MPI
#include <mpi.h>
/* Collective. The rows' targets, local ids of c, become indices of one table shared by all
 * ranks (*out, entry 0 RECORD_TARGET_NONE, then each rank's names in rank order, each once).
 * 0, or -1 when MPI or memory failed (the rows then all say 0 and *out is empty). */
int target_merge(const struct target_ctx *c, struct file_rec *rows, uint64_t n, MPI_Comm comm,
		 struct target_table *out);
#endif

/* Release t's names, leaving it empty; NULL is accepted. */
void target_table_free(struct target_table *t);

#endif
