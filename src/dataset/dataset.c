/* dataset: where a data set's files live, how big each is and what bytes it holds. File names
 * and sizes are pure functions of the file index, so no rank needs a file list, and the
 * content of any block can be checked without a lookup. The manifest is manifest.c. */
#include "dataset/dataset.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/sizes.h"
#include "dataset/tree.h"

/* snprintf's result -> 0, or -1 when the path did not fit. */
static int dataset_print(size_t len, int n)
{
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int dataset_dir(const struct experiment *x, const struct cfg_dataset *d, char *buf, size_t len)
{
	return dataset_print(len, snprintf(buf, len, "%s/%s", x->root, d->name));
}

uint64_t dataset_ndirs(const struct experiment *x, const struct cfg_dataset *d)
{
	(void)x;
	if (d->layout.kind != CFG_LAYOUT_INDEXED || d->layout.files_per_dir == 0)
		return 0;
	return (d->nfiles + d->layout.files_per_dir - 1) / d->layout.files_per_dir;
}

int dataset_subdir_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t dir,
			char *buf, size_t len)
{
	return dataset_print(len,
			     snprintf(buf, len, "%s/%s/d%06" PRIu64, x->root, d->name, dir));
}

/* A from_tree data set: the tree's own file (in place) or the twin's, from the description. */
static int dataset_tree_path(const struct experiment *x, const struct cfg_dataset *d,
			     uint64_t file, char *buf, size_t len)
{
	if (d->tree == NULL || file >= d->tree->nfiles)
		return -1;
	if (d->layout.kind == CFG_LAYOUT_IN_PLACE)
		return dataset_print(len, snprintf(buf, len, "%s/%s", d->tree->source,
						   tree_file_path(d->tree, file, 1)));
	return dataset_print(len, snprintf(buf, len, "%s/%s/%s", x->root, d->name,
					   tree_file_path(d->tree, file, 0)));
}

/* v in decimal, zero-padded to at least width digits (printf's %0*llu), at p; returns the end.
 * The caller has room for 20 digits. */
static char *dataset_put_num(char *p, uint64_t v, int width)
{
	char digits[20];
	int n = 0;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (width-- > n)
		*p++ = '0';
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* ROOT/NAME/dDDDDDD/fFFFFFFFFFF (dir_width 6) or ROOT/NAME/fFFFFFFFFFF (no dir): what
 * snprintf("%s/%s/d%06llu/f%010llu") makes, built by hand because every file read builds its
 * path inside the timed loop, where snprintf's formatting costs some 7% of a warm 4 KiB file's
 * CPU.
 * 0, or -1 when it does not fit len. */
static int dataset_index_path(const char *root, const char *name, int with_dir, uint64_t dir,
			      uint64_t file, char *buf, size_t len)
{
	size_t r = strlen(root), m = strlen(name);
	/* the longest it can be: two separators, "/d" and "/f", 20 digits each, the NUL */
	if (len < r + m + 2 + 4 + 40 + 1) {
		int n = with_dir ? snprintf(buf, len, "%s/%s/d%06" PRIu64 "/f%010" PRIu64, root,
					    name, dir, file)
				 : snprintf(buf, len, "%s/%s/f%010" PRIu64, root, name, file);
		return dataset_print(len, n);
	}
	char *p = buf;
	memcpy(p, root, r);
	p += r;
	*p++ = '/';
	memcpy(p, name, m);
	p += m;
	if (with_dir) {
		*p++ = '/';
		*p++ = 'd';
		p = dataset_put_num(p, dir, 6);
	}
	*p++ = '/';
	*p++ = 'f';
	p = dataset_put_num(p, file, 10);
	*p = '\0';
	return 0;
}

int dataset_file_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t file,
		      char *buf, size_t len)
{
	if (d->layout.kind == CFG_LAYOUT_IN_PLACE || d->layout.kind == CFG_LAYOUT_TREE)
		return dataset_tree_path(x, d, file, buf, len);
	if (d->layout.kind == CFG_LAYOUT_FLAT)
		return dataset_index_path(x->root, d->name, 0, 0, file, buf, len);
	if (d->layout.kind != CFG_LAYOUT_INDEXED || d->layout.files_per_dir == 0)
		return -1;
	return dataset_index_path(x->root, d->name, 1, file / d->layout.files_per_dir, file, buf,
				  len);
}

int dataset_hashed_path(const struct experiment *x, const struct cfg_dataset *d, const char *hex,
			char *buf, size_t len)
{
	size_t w = (size_t)d->layout.width, n = strlen(hex);
	if (d->layout.kind != CFG_LAYOUT_HASHED || n < (size_t)d->layout.depth * w)
		return -1;
	int used = snprintf(buf, len, "%s/%s/", x->root, d->name);
	if (dataset_print(len, used) != 0)
		return -1;
	for (uint64_t level = 0; level < d->layout.depth; level++) {
		int k = snprintf(buf + used, len - (size_t)used, "%.*s/", (int)w, hex + level * w);
		if (dataset_print(len - (size_t)used, k) != 0)
			return -1;
		used += k;
	}
	return dataset_print(len - (size_t)used, snprintf(buf + used, len - (size_t)used, "%s", hex));
}

int dataset_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t file,
		 const char *name, char *buf, size_t len)
{
	if (d->layout.kind == CFG_LAYOUT_HASHED)
		return name != NULL ? dataset_hashed_path(x, d, name, buf, len) : -1;
	return dataset_file_path(x, d, file, buf, len);
}

int dataset_names_path(const struct experiment *x, const struct cfg_dataset *d, char *buf,
		       size_t len)
{
	if (d->layout.kind != CFG_LAYOUT_HASHED)
		return -1;
	return dataset_digest_path(x, d, d->layout.digest, buf, len);
}

int dataset_read_line(int fd, enum digest_kind kind, uint64_t file, char *hex)
{
	size_t n = digest_hex_len(kind);
	char line[DIGEST_HEX_MAX + 1];
	ssize_t got;
	if (n == 0)
		return -EINVAL;
	while ((got = pread(fd, line, n + 1, (off_t)(file * (n + 1)))) < 0 && errno == EINTR)
		;
	if (got < 0)
		return -errno;
	if ((size_t)got != n + 1 || line[n] != '\n' || strspn(line, "0123456789abcdef") != n)
		return 1;
	memcpy(hex, line, n);
	hex[n] = '\0';
	return 0;
}

int dataset_digest_path(const struct experiment *x, const struct cfg_dataset *d,
			enum digest_kind kind, char *buf, size_t len)
{
	return dataset_print(len, snprintf(buf, len, "%s/%s/%s%s", x->root, d->name,
					   DATASET_DIGESTS, digest_name(kind)));
}

int dataset_mkdirs(const char *path)
{
	char dir[CFG_PATH_MAX + 64];
	if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
		return -ENAMETOOLONG;
	for (char *p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char was = *p;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		if (was == '\0')
			return 0;
		*p = was;
	}
}

const char *dataset_not_regular(unsigned mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a named pipe (FIFO)";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a regular file";
}

/* A 64-bit finaliser: inputs that differ in one bit give unrelated words. */
static uint64_t dataset_mix(uint64_t z)
{
	z = (z ^ (z >> 32)) * 0xd6e8feb86659fd93ull;
	z = (z ^ (z >> 32)) * 0xd6e8feb86659fd93ull;
	return z ^ (z >> 32);
}

/* The content: word k (bytes 8k..8k+7, little-endian) of a file is texture[k % 512] ^
 * block(k / 512). The texture is 4 KiB of the data set's own random words, the block word
 * mixes (data set, file, 4 KiB block number): so every byte still depends on all three, a
 * block copied to another place or file is caught, and filling costs one XOR per word,
 * which keeps generate at the speed of the writes rather than of a hash. */
void dataset_content_init(struct dataset_content *c, const struct cfg_dataset *d)
{
	/* FNV-1a over the name, then mixed: names that differ by one letter get unrelated content */
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = d->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	c->key = dataset_mix(h);
	for (uint64_t j = 0; j < DATASET_TEXTURE; j++)
		c->texture[j] = dataset_mix(c->key + (j + 1) * 0x9e3779b97f4a7c15ull);
}

/* One file's view of the content: its base word, and the data set's texture. */
struct dataset_pattern {
	uint64_t base;
	const uint64_t *texture;
};

static void dataset_pattern_init(struct dataset_pattern *p, const struct dataset_content *c,
				 uint64_t file)
{
	p->base = dataset_mix(c->key ^ dataset_mix(file + 0x632be59bd9b4e019ull));
	p->texture = c->texture;
}

static inline uint64_t dataset_block_word(const struct dataset_pattern *p, uint64_t block)
{
	return dataset_mix(p->base ^ (block * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull));
}

static inline uint64_t dataset_word(const struct dataset_pattern *p, uint64_t k)
{
	return p->texture[k % DATASET_TEXTURE] ^ dataset_block_word(p, k / DATASET_TEXTURE);
}

static unsigned char dataset_byte(const struct dataset_pattern *p, uint64_t offset)
{
	return (unsigned char)(dataset_word(p, offset / 8) >> (8 * (offset % 8)));
}

/* The block loops below are built for the widest vectors of x86-64's levels too, the
 * one the CPU has picked at load time (GCC and clang's function multi-versioning): -O2 alone
 * gives SSE2, 16 bytes a store. Filling a 4 MiB buffer measured 21.6 GB/s with SSE2 and 35.5
 * with AVX-512 here (90-134 for 1 MiB-256 KiB), about a tenth of generate's time at 2 GB/s of
 * page-cache writes; fio writes a constant buffer and pays none of it. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__)
#define DATASET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef DATASET_CLONES
#define DATASET_CLONES
#endif

/* One whole 4 KiB block. A fixed trip count and no possible aliasing let the compiler
 * vectorize it at -O2 (GCC's cheapest cost model refuses loops that need a remainder loop or
 * a run-time overlap check): twice the speed of the word loop, which generate feels. */
DATASET_CLONES static void dataset_fill_block(const uint64_t *restrict texture, uint64_t bw,
			       unsigned char *restrict out)
{
	for (size_t i = 0; i < DATASET_TEXTURE; i++) {
		uint64_t w = htole64(texture[i] ^ bw);
		memcpy(out + 8 * i, &w, 8);
	}
}

/* Whole words from word k on, n of them, into out: one block word per 4 KiB. */
static void dataset_fill_words(const struct dataset_pattern *p, uint64_t k, unsigned char *out,
			       size_t n)
{
	while (n > 0) {
		uint64_t j = k % DATASET_TEXTURE, bw = dataset_block_word(p, k / DATASET_TEXTURE);
		size_t run = DATASET_TEXTURE - j < n ? DATASET_TEXTURE - j : n;
		if (run == DATASET_TEXTURE) {
			dataset_fill_block(p->texture, bw, out);
			out += 8 * run;
			k += run;
			n -= run;
			continue;
		}
		for (size_t i = 0; i < run; i++) {
			uint64_t w = htole64(p->texture[j + i] ^ bw);
			memcpy(out + 8 * i, &w, 8);
		}
		out += 8 * run;
		k += run;
		n -= run;
	}
}

void dataset_fill(const struct dataset_content *c, uint64_t file, uint64_t offset, void *buf,
		  size_t len)
{
	struct dataset_pattern p;
	unsigned char *out = buf;
	size_t i = 0;
	dataset_pattern_init(&p, c, file);
	for (; i < len && (offset + i) % 8 != 0; i++)
		out[i] = dataset_byte(&p, offset + i);
	size_t words = (len - i) / 8;
	dataset_fill_words(&p, (offset + i) / 8, out + i, words);
	for (i += 8 * words; i < len; i++)
		out[i] = dataset_byte(&p, offset + i);
}

/* The first differing byte at or after index i of in (which holds [offset, offset + len)), or
 * len when there is none; byte by byte, for the edges and to pin a mismatch down. */
static size_t dataset_first_bad_byte(const struct dataset_pattern *p, uint64_t offset,
				     const unsigned char *in, size_t i, size_t end)
{
	for (; i < end; i++)
		if (in[i] != dataset_byte(p, offset + i))
			return i;
	return end;
}

/* Whether a whole 4 KiB block is right: the differences ORed together, without an early
 * exit, so the loop vectorizes as dataset_fill_block does. */
DATASET_CLONES static int dataset_block_ok(const uint64_t *restrict texture, uint64_t bw,
			    const unsigned char *restrict in)
{
	uint64_t diff = 0;
	for (size_t i = 0; i < DATASET_TEXTURE; i++) {
		uint64_t have;
		memcpy(&have, in + 8 * i, 8);
		diff |= have ^ htole64(texture[i] ^ bw);
	}
	return diff == 0;
}

/* Whole words from word k on, n of them: the index of the first word that differs, or n. */
static size_t dataset_check_words(const struct dataset_pattern *p, uint64_t k,
				  const unsigned char *in, size_t n)
{
	size_t done = 0;
	while (done < n) {
		uint64_t j = k % DATASET_TEXTURE, bw = dataset_block_word(p, k / DATASET_TEXTURE);
		size_t run = DATASET_TEXTURE - j < n - done ? DATASET_TEXTURE - j : n - done;
		if (run == DATASET_TEXTURE && dataset_block_ok(p->texture, bw, in + 8 * done)) {
			done += run;
			k += run;
			continue;
		}
		for (size_t i = 0; i < run; i++) {
			uint64_t have;
			memcpy(&have, in + 8 * (done + i), 8);
			if (have != htole64(p->texture[j + i] ^ bw))
				return done + i;
		}
		done += run;
		k += run;
	}
	return n;
}

int64_t dataset_check(const struct dataset_content *c, uint64_t file, uint64_t offset,
		      const void *buf, size_t len, unsigned char *expected)
{
	struct dataset_pattern p;
	const unsigned char *in = buf;
	dataset_pattern_init(&p, c, file);
	size_t head = (size_t)((8 - offset % 8) % 8) < len ? (size_t)((8 - offset % 8) % 8) : len;
	size_t words = (len - head) / 8, bad = dataset_first_bad_byte(&p, offset, in, 0, head);
	if (bad == head) {
		size_t w = dataset_check_words(&p, (offset + head) / 8, in + head, words);
		size_t from = head + 8 * w;
		bad = dataset_first_bad_byte(&p, offset, in, from, w < words ? from + 8 : len);
		if (w < words && bad == from + 8)
			bad = len; /* cannot happen: the word differed */
	}
	if (bad >= len)
		return -1;
	if (expected != NULL)
		*expected = dataset_byte(&p, offset + bad);
	return (int64_t)bad;
}

uint64_t dataset_largest_file(const struct cfg_dataset *d)
{
	uint64_t most = 0;
	switch (d->sizes) {
	case CFG_SIZES_LOGNORMAL: /* draws are clamped to max; the trimmed last file is smaller */
		return d->max > d->last_size ? d->max : d->last_size;
	case CFG_SIZES_HISTOGRAM:
		for (size_t b = 0; b < d->nbuckets; b++)
			if (d->buckets[b].count > 0 && d->buckets[b].size > most)
				most = d->buckets[b].size;
		return most;
	case CFG_SIZES_TREE:
		if (d->tree == NULL)
			return UINT64_MAX;
		for (uint64_t i = 0; i < d->tree->nfiles; i++)
			if (d->tree->size[i] > most)
				most = d->tree->size[i];
		return most;
	case CFG_SIZES_FIXED:
	default:
		return d->file_size;
	}
}

uint64_t dataset_file_size(const struct cfg_dataset *d, uint64_t i)
{
	switch (d->sizes) {
	case CFG_SIZES_LOGNORMAL:
		if (d->last_size != 0 && i + 1 == d->nfiles)
			return d->last_size;
		return sizes_lognormal(d, i);
	case CFG_SIZES_HISTOGRAM:
		return sizes_histogram_at(d, i);
	case CFG_SIZES_TREE:
		return d->tree != NULL && i < d->tree->nfiles ? d->tree->size[i] : 0;
	case CFG_SIZES_FIXED:
	default:
		return d->file_size;
	}
}
