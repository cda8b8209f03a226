/* dataset: how a data set lies on disk (directory layout and file names), the deterministic
 * content every file holds, and the manifest that says what generate made. Pure, no MPI. */
#ifndef PFSREAD_DATASET_H
#define PFSREAD_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/digest.h"
#include "util/err.h"
#include "util/space.h"

/* The size in bytes of file i (0 <= i < d->nfiles) of d. For lognormal: median x
 * exp(sigma x z), z the standard normal quantile of a hash of (d->seed, d->name, i), rounded
 * and clamped to [min, max]; the last file of a data set given by total_size is trimmed so
 * that the total is exact. For a histogram: sizes_histogram_at. For a tree: its description's. */
uint64_t dataset_file_size(const struct cfg_dataset *d, uint64_t i);

/* The size of d's largest file, or an upper bound of it (lognormal: its max): what a read
 * buffer needs at most. A tree not attached yet: UINT64_MAX. O(nfiles) for a tree. */
uint64_t dataset_largest_file(const struct cfg_dataset *d);

/* A one-line description of d's size spec for manifests and plan ("lognormal median=4096
 * sigma=1.5 min=7 max=1048576 seed=1 nfiles=300 total=...", or for a tree "tree nfiles=N
 * total=T dirs=D depth=K list=HASH"); "" for a fixed-size data set.
 * Returns 0, or -1 when it did not fit in len. */
int sizes_describe(const struct cfg_dataset *d, char *buf, size_t len);

#define DATASET_PATTERN_VERSION 2
#define DATASET_MANIFEST ".pfsread-manifest"
#define DATASET_DIGESTS ".pfsread-digests-" /* + the kind's name: the digest list */

/* root/NAME: the data set's own directory; the manifest and the dNNNNNN directories live here. */
int dataset_dir(const struct experiment *x, const struct cfg_dataset *d, char *buf, size_t len);

/* Number of dNNNNNN subdirectories: ceil(nfiles / files_per_dir) for an indexed data set,
 * 0 for flat and hashed ones. */
uint64_t dataset_ndirs(const struct experiment *x, const struct cfg_dataset *d);

/* root/NAME/dNNNNNN for directory number dir (indexed data sets). */
int dataset_subdir_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t dir,
			char *buf, size_t len);

/* root/NAME/dNNNNNN/fNNNNNNNNNN (indexed) or root/NAME/fNNNNNNNNNN (flat) for file number
 * file: sorted names are sorted indices. -1 for a hashed data set (its names are in its name
 * list: dataset_hashed_path) or when the path does not fit. */
int dataset_file_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t file,
		      char *buf, size_t len);

/* A hashed data set: root/NAME/a4/d5/83/a4d5832f... for the name hex (depth levels of width
 * hex digits each, then the whole name). Returns 0, or -1 when it does not fit. */
int dataset_hashed_path(const struct experiment *x, const struct cfg_dataset *d, const char *hex,
			char *buf, size_t len);

/* The path of file (hashed: from name, its line of the name list; else name may be NULL). */
int dataset_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t file,
		 const char *name, char *buf, size_t len);

/* A hashed data set's name list is the digest list of its layout's digest kind: the name of a
 * file IS the digest of its content, so one list serves both. root/NAME/.pfsread-digests-KIND. */
int dataset_names_path(const struct experiment *x, const struct cfg_dataset *d, char *buf,
		       size_t len);

/* Read file's line of the list open at fd (lines of hex + 1 bytes for kind) into hex
 * (DIGEST_HEX_MAX bytes). Returns 0 when the line is whole (hex digits and a newline), 1 when
 * it is not written yet (a hole reads as zeros, past the end as nothing), -errno on error. */
int dataset_read_line(int fd, enum digest_kind kind, uint64_t file, char *hex);

/* root/NAME/.pfsread-digests-KIND: one line per file, "%0Nx\n" (N = digest_hex_len(kind)),
 * line i for file i, so a rank reads or writes exactly its own lines at i x (N + 1). */
int dataset_digest_path(const struct experiment *x, const struct cfg_dataset *d,
			enum digest_kind kind, char *buf, size_t len);

/* A data set's content, from its name: the key that every block word mixes in, and the 4 KiB
 * texture that every file's words are XORed with. Made once per data set: its 512 hashes
 * cost more than filling or checking a 4 KiB file. */
#define DATASET_TEXTURE 512
struct dataset_content {
	uint64_t key;
	uint64_t texture[DATASET_TEXTURE];
};

void dataset_content_init(struct dataset_content *c, const struct cfg_dataset *d);

/* Fill buf with the bytes at [offset, offset + len) of file number file. */
void dataset_fill(const struct dataset_content *c, uint64_t file, uint64_t offset, void *buf,
		  size_t len);

/* Compare buf with the expected bytes at [offset, offset + len). Returns -1 when all match,
 * else the index in buf of the first differing byte (*expected gets the byte it should be). */
int64_t dataset_check(const struct dataset_content *c, uint64_t file, uint64_t offset,
		      const void *buf, size_t len, unsigned char *expected);

/* mkdir -p: make path and its missing parents. Returns 0 or -errno. */
int dataset_mkdirs(const char *path);

/* What a file of type mode (st_mode) is, for a message ("a directory", "a named pipe
 * (FIFO)", ...), or NULL when it is a regular file: data set files must be regular, or an
 * open blocks (a FIFO) or a read fails in the middle of a timed phase (a directory). */
const char *dataset_not_regular(unsigned mode);

#define MANIFEST_SIZES_MAX 3072 /* a histogram of CFG_BUCKETS_MAX entries fits */

/* What a manifest records. */
struct manifest {
	int pattern_version;
	char name[CFG_NAME_MAX];
	uint64_t file_size;
	uint64_t nfiles;
	uint64_t files_per_dir;  /* indexed; 0 for flat and hashed */
	int layout;              /* enum cfg_layout_kind */
	unsigned depth, width;   /* hashed */
	int name_digest;         /* hashed: enum digest_kind of the names */
	char sizes[MANIFEST_SIZES_MAX]; /* sizes_describe(): "" for a fixed size (no line) */
	int complete;      /* 1 once every file is whole */
	unsigned digests;  /* 1u << kind for each digest list beside it ("digests" line) */
};

void manifest_from_config(const struct experiment *x, const struct cfg_dataset *d,
			  struct manifest *m);

/* Write the manifest into dir atomically (temporary file, fsync, rename). */
int manifest_write(const char *dir, const struct manifest *m, struct pf_err *e);

/* Write text to dir/name atomically: a temporary file, fsync, rename; what names it in
 * messages ("the manifest"). Nothing half-written is left on failure. 0 or -1 (e set). */
int dataset_write_atomic(const char *dir, const char *name, const char *text, size_t len,
			 const char *what, struct pf_err *e);

/* Read dir's manifest. Returns 0, 1 when there is none, -1 on a damaged one (e set). */
int manifest_read(const char *dir, struct manifest *m, struct pf_err *e);

/* 1 when a and b describe the same files (completeness aside). */
int manifest_same_files(const struct manifest *a, const struct manifest *b);

/* What generating data set d writes, in blocks of block bytes: every file rounded up to a
 * block, its directories (a block each), the manifest, digest lists and description. Exact
 * for fixed sizes and histograms, an upper bound for distributions. Pure (need.c). */
void dataset_space_need(const struct experiment *x, const struct cfg_dataset *d, uint64_t block,
			struct space_need *n);

#endif
