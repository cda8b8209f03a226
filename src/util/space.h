/* space: will it fit? What a command is about to write (bytes, files, directories) against
 * what the file system has free for this user (statvfs: f_bavail and f_favail, which leave out
 * what only root may use; the user's and group's quota where the file system keeps one), with
 * a margin; and, while writing, whether free space has fallen into that margin. generate
 * checks before it creates anything, run before it creates the results file, calibrate before
 * a temporary file; plan can show the same figures. The config key space_check: false turns
 * both off, for file systems that misreport their free space. No MPI. */
#ifndef PFSREAD_SPACE_H
#define PFSREAD_SPACE_H

#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

#define SPACE_PATH_MAX 4096 /* a directory path (the config's longest) */
#define SPACE_MARGIN_PERCENT 1             /* of the file system's size and inodes */
#define SPACE_MARGIN_MIN_BYTES (1ULL << 20) /* at least 1 MiB ... */
#define SPACE_MARGIN_MIN_INODES 16ULL       /* ... and 16 inodes stay free */
#define SPACE_ALLOC_MAX (64ULL << 10)        /* the largest unit a file is rounded up to */

/* What is about to be written on one file system. */
struct space_need {
	uint64_t bytes;   /* in whole blocks of the file system (dataset_space_need rounds) */
	uint64_t inodes;  /* files and directories */
};

/* A file system as statvfs (and quotactl) describe it to this user. */
struct space_fs {
	char path[SPACE_PATH_MAX]; /* the existing directory that was asked (or its nearest parent) */
	dev_t dev;                /* tells file systems apart */
	uint64_t block;           /* f_frsize: the unit statvfs counts space in */
	uint64_t alloc;           /* what a file's size is rounded up to: space_alloc_unit */
	uint64_t size, inodes;    /* the whole file system */
	uint64_t free_bytes, free_inodes; /* available to this user: f_bavail, f_favail, quota */
	int quota;                /* a quota set the figures above */
	uint64_t margin_bytes, margin_inodes; /* left free on purpose: space_margin */
};

/* Describe the file system that path is (or would be) on: path itself, or its nearest
 * existing parent (generate makes root). 0, or -1 with e set. */
int space_probe(const char *path, struct space_fs *fs, struct pf_err *e);

/* The margin of a file system of size bytes and inodes inodes: SPACE_MARGIN_PERCENT of each,
 * at least SPACE_MARGIN_MIN_BYTES and SPACE_MARGIN_MIN_INODES (and at most all of it). Pure. */
void space_margin(uint64_t size, uint64_t inodes, uint64_t *bytes, uint64_t *nodes);

/* Lower fs's free figures to what a quota leaves (limits in 1 KiB blocks, the larger of soft
 * and hard ignored when the other is set: the soft one counts; 0: no limit). Pure. */
void space_apply_quota(struct space_fs *fs, uint64_t blimit_kib, uint64_t used_bytes,
		       uint64_t ilimit, uint64_t used_inodes);

/* The unit a file's size is rounded up to on a file system whose statvfs counts in block
 * bytes: block, but at most SPACE_ALLOC_MAX. Network file systems give their transfer size as
 * f_frsize (OrangeFS's client 4 MiB) while their servers keep a file in the small blocks of
 * their own local file systems: rounding a 2 MiB file up to 4 MiB would refuse half of what
 * fits. Pure. */
uint64_t space_alloc_unit(uint64_t block);

/* Add b to a, saturating at UINT64_MAX. */
void space_add(struct space_need *a, const struct space_need *b);

/* a + b and a x b, saturating at UINT64_MAX; bytes rounded up to whole blocks (saturating). */
uint64_t space_add_sat(uint64_t a, uint64_t b);
uint64_t space_mul_sat(uint64_t a, uint64_t b);
uint64_t space_blocks(uint64_t bytes, uint64_t block);

/* need + the margin against fs's free figures: 0, or -1 with e set (PF_USAGE) as "WHAT
 * needs 1.2 TB and 1.0e+06 inodes (with a margin of ...); PATH has 800 GB and 4.1e+05
 * inodes free". */
int space_check(const struct space_fs *fs, const struct space_need *need, const char *what,
		struct pf_err *e);

/* While writing: 0 while path's file system still has more than half its margin free; -1
 * with e set (PF_RUNTIME) once it has not ("stopped: ... free, within the margin"). */
int space_guard(const char *path, const struct space_fs *fs, struct pf_err *e);

#endif
