/* lock: who may write a data set or a results file while other pfsread processes run, on any
 * node of a shared file system. fcntl locks do not reach across nodes on every NFS, FUSE or
 * parallel file system, so a lock is a file: made whole under a private name and renamed (or
 * linked) into place, naming its holder's command, host, pid and start; its mtime is the
 * holder's heartbeat, refreshed every LOCK_BEAT_S by a thread of the holder. A lock is stale,
 * and taken over with a one-line message, when its holder is on this host and its pid is gone
 * (kill(pid, 0) says ESRCH), or its heartbeat is older than LOCK_STALE_S (another host's
 * holder cannot be asked; on this host, a pid reused by another process).
 *
 * Data sets: ROOT/.pfsread-locks/ holds one file per holder listing the data sets it holds,
 * shared (run, verify) or exclusive (generate, clean). A holder writes its file first, then
 * reads the others: of two that conflict, at least the later one sees the earlier, so two
 * can never both go on (both may refuse, and both say try again).
 * A results file FILE: FILE.lock, one writer.
 * No MPI: one process takes the lock for all ranks (cmd/locks.c shares the decision). */
#ifndef PFSREAD_LOCK_H
#define PFSREAD_LOCK_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define LOCK_DIR ".pfsread-locks"   /* under a data set root */
#define LOCK_SUFFIX ".lock"         /* after a results file's name */
#define LOCK_BEAT_S 15              /* the holder refreshes its lock's mtime this often */
#define LOCK_STALE_S 600            /* a heartbeat older than this: the holder is gone */
#define LOCK_HOST_MAX 256
#define LOCK_PATH_MAX 4200
#define LOCK_FILE_MAX (64u << 20)   /* a lock file larger than this is not pfsread's */

/* A lock file, parsed. names points into the parsed text (lines of data set names). */
struct lock_info {
	char command[32];          /* "run", "generate", "run --resume", ... */
	char host[LOCK_HOST_MAX];
	long pid;
	long long start;           /* seconds since the epoch */
	int exclusive;             /* 1: nobody else may hold its names */
	const char *names;         /* nnames lines, each ending in '\n' */
	size_t names_len;
	uint64_t nnames;
};

/* Pure. The text of a lock file; names (n of them) are the data sets held (none for a results
 * file). Returns a malloc'd string (caller frees) and its length in *len, or NULL when out of
 * memory. */
char *lock_format(const char *command, int exclusive, const char *host, long pid,
		  long long start, const char *const *names, size_t n, size_t *len);

/* Pure. Parses text (len bytes, not NUL-terminated) into *li. Returns 0, or -1 when the text is
 * not a whole lock file (another program's file, or a damaged one). */
int lock_parse(const char *text, size_t len, struct lock_info *li);

enum lock_state {
	LOCK_LIVE,   /* its holder may still be working */
	LOCK_GONE,   /* on this host, its pid is gone */
	LOCK_SILENT  /* its heartbeat is older than stale_s */
};

/* Pure. Whether li's holder still holds it, seen from host: pid_gone is 1 when kill(pid, 0)
 * said ESRCH on this host (looked at only when li->host is host), age_s the seconds since its
 * heartbeat. */
enum lock_state lock_judge(const struct lock_info *li, const char *host, int pid_gone,
			   double age_s, double stale_s);

/* Pure. 1 when a and b cannot both be held: one of them is exclusive and they share a data
 * set, whose name goes to name (len bytes); 0 otherwise. */
int lock_conflict(const struct lock_info *a, const struct lock_info *b, char *name, size_t len);

/* Pure. "generate (pid 1234 on host n1, since 2026-12-02 19:40:00 UTC)". */
void lock_describe(const struct lock_info *li, char *buf, size_t len);

/* A lock this process holds; path "" when none. */
struct lock_held {
	char path[LOCK_PATH_MAX];
};

/* Take the data sets names (n) under root for command, shared or exclusive. Returns 0 when
 * taken (h->path set), 1 when no lock can be written there and none is needed (root missing,
 * or a read-only file system: nobody can write the data sets there either; a root this user
 * may not write to is said on stderr), -1 with e set: PF_BUSY naming the holder when a live
 * holder conflicts, PF_RUNTIME when the lock cannot be written. Stale holders found are
 * removed, each with a line on stderr. */
int lock_take_datasets(const char *root, const char *command, int exclusive,
		       const char *const *names, size_t n, struct lock_held *h, struct pf_err *e);

/* Take file's lock (file + LOCK_SUFFIX) for command: one writer. Returns 0 (taken), or -1
 * with e set (PF_BUSY naming the holder; PF_RUNTIME when the lock cannot be written). A stale
 * lock is taken over with a line on stderr. */
int lock_take_file(const char *file, const char *command, struct lock_held *h,
		   struct pf_err *e);

/* Give up h (removes its file; for data sets, the lock directory too once empty). h may hold
 * nothing, or be NULL. */
void lock_release(struct lock_held *h);

#endif
