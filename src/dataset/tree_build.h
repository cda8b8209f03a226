/* tree_build: what tree.c (sorting, text, parsing) and tree_walk.c (the scan) share to build a
 * struct tree_desc. Internal to src/dataset. */
#ifndef PFSREAD_TREE_BUILD_H
#define PFSREAD_TREE_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dataset/tree.h"

/* What a walk or a parse collects before sorting: sizes beside the paths, by the order met. */
struct tree_scan_ctx {
	struct tree_desc *t;
	uint64_t *size;
	uint64_t cap;
	int noatime;
	uid_t euid; /* for tree_owner_reads */
	int mode_decides; /* the top's file system is local (tree_fs_local) */
	dev_t dev;        /* and its device: a file on another (a mount below) asks the kernel */
	char *why;
	size_t whylen;
};

/* Room for one more entry in *a (n used of *cap), doubling. 0 or -ENOMEM. */
int tree_grow(uint64_t **a, uint64_t *cap, uint64_t n);

/* Append str (n bytes) to s as a new string. 0 or -ENOMEM. */
int tree_strs_add(struct tree_strs *s, const char *str, size_t n);

/* A file of size bytes at rel (below the top) into c's lists. 0 or -ENOMEM. */
int tree_add_file(struct tree_scan_ctx *c, const char *rel, uint64_t size);

/* The message of a failure into why (a long one keeps its start and its end); returns -1. */
__attribute__((format(printf, 3, 4))) int tree_why(char *why, size_t len, const char *fmt, ...);

/* The value at position k (< n) of a[n] if it were sorted; a[] is reordered. */
uint64_t tree_nth(uint64_t *a, uint64_t n, uint64_t k);

/* What follows the walk or the parse: sorted lists, twin paths, median, and (format) the
 * text and its hash. 0 or -errno. */
int tree_settle(struct tree_desc *t, int format);

#endif
