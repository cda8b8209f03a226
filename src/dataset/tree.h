/* tree: the description of an existing directory tree (from_tree data sets): its regular
 * files' sizes and relative paths in sorted path order, its directories, its depth; never its
 * content. Scanned once by one process, kept as text outside the tree (ROOT/NAME/.pfsread-tree)
 * and parsed back by every rank. Also the paths of the tree's synthetic twin, which has the
 * same directories (renamed dNNNNNN, nested as in the source) and the same files per directory
 * (renamed fNNNNNNNNNN by index). No MPI. */
#ifndef PFSREAD_TREE_H
#define PFSREAD_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "config/config.h"

#define TREE_FILE ".pfsread-tree" /* in ROOT/NAME: the description, text */
#define TREE_DEPTH_MAX 255         /* directories nested deeper are refused */

/* A string table: string i at buf + off[i], NUL-terminated. */
struct tree_strs {
	char *buf;
	size_t len, cap;
	uint64_t *off;
	uint64_t n, ncap;
};

/* What tree_scan found, or tree_parse read back. Owned; tree_free releases it. */
struct tree_desc {
	char source[CFG_PATH_MAX]; /* the tree's real path */
	uint64_t nfiles;           /* regular files, >= 1 once scanned */
	uint64_t total;            /* the sum of their sizes */
	uint64_t ndirs;            /* directories below the top, empty ones too */
	uint64_t depth;            /* the deepest directory's levels below the top (0: none) */
	uint64_t symlinks;         /* symbolic links skipped (never followed) */
	uint64_t specials;         /* devices, fifos and sockets skipped */
	uint64_t median;           /* the size of the middle file by size */
	uint64_t *size;            /* [nfiles], by index = sorted path order */
	struct tree_strs files;    /* relative paths, by index */
	struct tree_strs dirs;     /* relative paths, sorted */
	struct tree_strs twin_files; /* the twin's relative paths, by index */
	struct tree_strs twin_dirs;  /* the twin's directories, in the order of dirs */
	char *text;                /* the description as written to TREE_FILE */
	size_t text_len;
	uint64_t hash;             /* FNV-1a of text: a changed tree is "other parameters" */
};

/* Walk the tree at path without following symbolic links (counted and skipped, as are
 * special files), opening directories with O_NOATIME when noatime is set (where permitted).
 * Nothing in the tree is written. On failure returns -1 with why naming the path (a directory
 * that cannot be opened, a file that is not readable, too deep); *t is then freed. A tree
 * without regular files is not an error here (tree_scan leaves nfiles 0). */
int tree_scan(const char *path, int noatime, struct tree_desc *t, char *why, size_t whylen);

/* 1 when st's mode settles that euid may read the file (it owns it, with the owner's read
 * bit); 0: ask the kernel (faccessat). */
int tree_owner_reads(const struct stat *st, uid_t euid);

/* 1 when a file system of statfs type f_type decides access by the mode on this machine (a
 * local disk or memory: ext2/3/4, xfs, btrfs, f2fs, tmpfs); 0 for any other, where a server
 * may decide otherwise (NFS's root squash, a FUSE daemon, a parallel file system). */
int tree_fs_local(long f_type);

/* Read a description made by tree_scan (its text) into *t. Returns 0, or -1 on a damaged one
 * (why says which line); *t is then freed. */
int tree_parse(const char *text, size_t len, struct tree_desc *t, char *why, size_t whylen);

/* Release what t owns; t may be NULL, zeroed or freed already. */
void tree_free(struct tree_desc *t);

/* File i's relative path in the source (in_place) or in the twin. */
const char *tree_file_path(const struct tree_desc *t, uint64_t i, int in_place);

/* Directory k (sorted) of the source, or of the twin. */
const char *tree_dir_path(const struct tree_desc *t, uint64_t k, int twin);

/* The experiment's data set d takes t's files: sizes, count, total, median. d owns t then
 * (t must be malloc'ed; cfg_free releases it through d->tree_release). */
void tree_attach(struct cfg_dataset *d, struct tree_desc *t);

#endif
