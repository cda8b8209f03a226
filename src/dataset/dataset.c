/* dataset: where a data set's files live, what bytes they hold, and the manifest that records
 * what generate made. File names are a pure function of the file index, so no rank needs a
 * file list, and the content of any block can be checked without a lookup. */
#include "dataset/dataset.h"
#include "config/sizes.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int dataset_file_path(const struct experiment *x, const struct cfg_dataset *d, uint64_t file,
		      char *buf, size_t len)
{
	if (d->layout.kind == CFG_LAYOUT_IN_PLACE || d->layout.kind == CFG_LAYOUT_TREE)
		return dataset_tree_path(x, d, file, buf, len);
	if (d->layout.kind == CFG_LAYOUT_FLAT)
		return dataset_print(len, snprintf(buf, len, "%s/%s/f%010" PRIu64, x->root, d->name,
						   file));
	if (d->layout.kind != CFG_LAYOUT_INDEXED || d->layout.files_per_dir == 0)
		return -1;
	uint64_t dir = file / d->layout.files_per_dir;
	return dataset_print(len,
			     snprintf(buf, len, "%s/%s/d%06" PRIu64 "/f%010" PRIu64, x->root,
				      d->name, dir, file));
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

/* FNV-1a over the name, then mixed: names that differ by one letter get unrelated content. */
static uint64_t dataset_mix(uint64_t z)
{
	z = (z ^ (z >> 32)) * 0xd6e8feb86659fd93ull;
	z = (z ^ (z >> 32)) * 0xd6e8feb86659fd93ull;
	return z ^ (z >> 32);
}

uint64_t dataset_key(const struct cfg_dataset *d)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = d->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return dataset_mix(h);
}

/* The content: word k (bytes 8k..8k+7, little-endian) of a file is texture[k % 512] ^
 * block(k / 512). The texture is 4 KiB of the data set's own random words, the block word
 * mixes (data set, file, 4 KiB block number): so every byte still depends on all three, a
 * block copied to another place or file is caught, and filling costs one XOR per word,
 * which keeps generate at the speed of the writes rather than of a hash. */
#define DATASET_TEXTURE 512

struct dataset_pattern {
	uint64_t base; /* of the file */
	uint64_t texture[DATASET_TEXTURE];
};

static void dataset_pattern_init(struct dataset_pattern *p, uint64_t key, uint64_t file)
{
	p->base = dataset_mix(key ^ dataset_mix(file + 0x632be59bd9b4e019ull));
	for (uint64_t j = 0; j < DATASET_TEXTURE; j++)
		p->texture[j] = dataset_mix(key + (j + 1) * 0x9e3779b97f4a7c15ull);
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

/* One whole 4 KiB block. A fixed trip count and no possible aliasing let the compiler
 * vectorize it at -O2 (GCC's cheapest cost model refuses loops that need a remainder loop or
 * a run-time overlap check): twice the speed of the word loop, which generate feels. */
static void dataset_fill_block(const uint64_t *restrict texture, uint64_t bw,
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

void dataset_fill(uint64_t key, uint64_t file, uint64_t offset, void *buf, size_t len)
{
	struct dataset_pattern p;
	unsigned char *out = buf;
	size_t i = 0;
	dataset_pattern_init(&p, key, file);
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
static int dataset_block_ok(const uint64_t *restrict texture, uint64_t bw,
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

int64_t dataset_check(uint64_t key, uint64_t file, uint64_t offset, const void *buf, size_t len,
		      unsigned char *expected)
{
	struct dataset_pattern p;
	const unsigned char *in = buf;
	dataset_pattern_init(&p, key, file);
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

void manifest_from_config(const struct experiment *x, const struct cfg_dataset *d,
			  struct manifest *m)
{
	memset(m, 0, sizeof *m);
	m->pattern_version = DATASET_PATTERN_VERSION;
	snprintf(m->name, sizeof m->name, "%s", d->name);
	m->file_size = d->file_size;
	m->nfiles = d->nfiles;
	m->files_per_dir = d->layout.kind == CFG_LAYOUT_INDEXED ? d->layout.files_per_dir : 0;
	m->layout = (int)d->layout.kind;
	m->depth = (unsigned)d->layout.depth;
	m->width = (unsigned)d->layout.width;
	m->name_digest = (int)d->layout.digest;
	(void)x;
	(void)sizes_describe(d, m->sizes, sizeof m->sizes); /* fits: MANIFEST_SIZES_MAX */
}

/* "digests xxh64 sha1\n", or "" when there is no list. */
static void manifest_digests_line(unsigned kinds, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 1; k < DIGEST_KINDS && used < len; k++)
		if (kinds & (1u << k))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "digests ",
						 digest_name((enum digest_kind)k));
	if (used > 0 && used + 1 < len)
		snprintf(buf + used, len - used, "\n");
}

/* "layout indexed d%06u/f%010u", "layout flat f%010u" or "layout hashed 3 2 sha1". */
static void manifest_layout_line(const struct manifest *m, char *buf, size_t len)
{
	if (m->layout == CFG_LAYOUT_HASHED)
		snprintf(buf, len, "hashed %u %u %s", m->depth, m->width,
			 digest_name((enum digest_kind)m->name_digest));
	else if (m->layout == CFG_LAYOUT_TREE || m->layout == CFG_LAYOUT_IN_PLACE)
		snprintf(buf, len, "%s", cfg_layout_name((enum cfg_layout_kind)m->layout));
	else if (m->layout == CFG_LAYOUT_FLAT)
		snprintf(buf, len, "flat f%%010u");
	else
		snprintf(buf, len, "indexed d%%06u/f%%010u");
}

static int manifest_format(const struct manifest *m, char *buf, size_t len)
{
	char digests[64], layout[64];
	manifest_digests_line(m->digests, digests, sizeof digests);
	manifest_layout_line(m, layout, sizeof layout);
	int n = snprintf(buf, len,
			 "pfsread-manifest 1\n"
			 "# written by pfsread generate; pfsread clean removes what it lists\n"
			 "pattern_version %d\nname %s\nfile_size %" PRIu64 "\nnfiles %" PRIu64
			 "\nfiles_per_dir %" PRIu64 "\nlayout %s\n%s%s%s%scomplete %d\n",
			 m->pattern_version, m->name, m->file_size, m->nfiles, m->files_per_dir,
			 layout, m->sizes[0] ? "sizes " : "", m->sizes, m->sizes[0] ? "\n" : "",
			 digests, m->complete);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

static int dataset_write_fd(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		text += n;
		len -= (size_t)n;
	}
	return fsync(fd) == 0 ? 0 : -errno;
}

int dataset_write_atomic(const char *dir, const char *name, const char *text, size_t len,
			 const char *what, struct pf_err *e)
{
	char path[CFG_PATH_MAX + 64], tmp[CFG_PATH_MAX + 72];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
	    snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return pf_fail(e, PF_USAGE, "%s: path too long for %s", dir, what);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return pf_fail_errno(e, errno, "%s: cannot create", tmp);
	int rc = dataset_write_fd(fd, text, len);
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp);
		return pf_fail_errno(e, rc, "%s: cannot write %s", path, what);
	}
	return 0;
}

int manifest_write(const char *dir, const struct manifest *m, struct pf_err *e)
{
	char text[MANIFEST_SIZES_MAX + 1024];
	int len = manifest_format(m, text, sizeof text);
	if (len < 0)
		return pf_fail(e, PF_RUNTIME, "%s: manifest too long", dir);
	return dataset_write_atomic(dir, DATASET_MANIFEST, text, (size_t)len, "the manifest", e);
}

/* The layout line; an old manifest's "layout d%06u/f%010u" is the indexed layout. */
static int manifest_parse_layout(struct manifest *m, const char *rest)
{
	char digest[16];
	if (strncmp(rest, "hashed ", 7) == 0) {
		if (sscanf(rest + 7, "%u %u %15s", &m->depth, &m->width, digest) != 3 ||
		    m->depth > CFG_HASH_DEPTH_MAX || m->width < 1 || m->width > CFG_HASH_WIDTH_MAX)
			return -1;
		m->name_digest = digest_from_name(digest);
		m->layout = CFG_LAYOUT_HASHED;
		return m->name_digest > DIGEST_NONE ? 0 : -1;
	}
	if (strncmp(rest, "tree", 4) == 0 || strncmp(rest, "in-place", 8) == 0) {
		m->layout = rest[0] == 't' ? CFG_LAYOUT_TREE : CFG_LAYOUT_IN_PLACE;
		return 0;
	}
	m->layout = strncmp(rest, "flat", 4) == 0 ? CFG_LAYOUT_FLAT : CFG_LAYOUT_INDEXED;
	return 0;
}

static int manifest_parse_line(struct manifest *m, const char *line)
{
	char key[64], value[CFG_NAME_MAX];
	if (line[0] == '#' || line[0] == '\n')
		return 0;
	if (strncmp(line, "sizes ", 6) == 0) { /* the rest of the line, as sizes_describe made it */
		size_t n = strcspn(line + 6, "\n");
		if (n == 0 || n >= sizeof m->sizes)
			return -1;
		memcpy(m->sizes, line + 6, n);
		m->sizes[n] = '\0';
		return 0;
	}
	if (strncmp(line, "digests ", 8) == 0) { /* the kinds of the lists beside the manifest */
		char words[64];
		size_t n = strcspn(line + 8, "\n");
		if (n == 0 || n >= sizeof words)
			return -1;
		memcpy(words, line + 8, n);
		words[n] = '\0';
		for (char *save = NULL, *w = strtok_r(words, " ", &save); w != NULL;
		     w = strtok_r(NULL, " ", &save)) {
			int k = digest_from_name(w);
			if (k <= DIGEST_NONE)
				return -1;
			m->digests |= 1u << k;
		}
		return 0;
	}
	if (strncmp(line, "layout ", 7) == 0)
		return manifest_parse_layout(m, line + 7);
	if (sscanf(line, "%63s %127s", key, value) != 2)
		return -1;
	if (strcmp(key, "pfsread-manifest") == 0)
		return 0;
	if (strcmp(key, "name") == 0)
		return snprintf(m->name, sizeof m->name, "%s", value) < 0 ? -1 : 0;
	if (strcmp(key, "pattern_version") == 0)
		return sscanf(value, "%d", &m->pattern_version) == 1 ? 0 : -1;
	if (strcmp(key, "complete") == 0)
		return sscanf(value, "%d", &m->complete) == 1 ? 0 : -1;
	uint64_t *field = strcmp(key, "file_size") == 0 ? &m->file_size
			: strcmp(key, "nfiles") == 0	 ? &m->nfiles
			: strcmp(key, "files_per_dir") == 0 ? &m->files_per_dir
							     : NULL;
	if (field == NULL)
		return -1;
	return sscanf(value, "%" SCNu64, field) == 1 ? 0 : -1;
}

/* A manifest describes at most what generate can make (config.h's limits): counts beyond are
 * a damaged or forged manifest, and clean, which goes by the manifest, must not set out to
 * unlink 10^11 names. */
static int manifest_check_counts(const char *path, const struct manifest *m, struct pf_err *e)
{
	const char *what = NULL;
	if (m->nfiles > CFG_FILES_MAX)
		what = "nfiles";
	else if (m->file_size > CFG_FILE_SIZE_MAX && m->layout != CFG_LAYOUT_TREE &&
		 m->layout != CFG_LAYOUT_IN_PLACE)
		what = "file_size";
	else if (m->files_per_dir > CFG_FANOUT_MAX)
		what = "files_per_dir";
	else if (m->layout == CFG_LAYOUT_INDEXED && m->files_per_dir > 0 &&
		 m->nfiles / m->files_per_dir > CFG_FANOUT_MAX)
		what = "nfiles / files_per_dir";
	else if (m->layout == CFG_LAYOUT_FLAT && m->nfiles > CFG_FANOUT_MAX)
		what = "nfiles (flat)";
	if (what == NULL)
		return 0;
	return pf_fail(e, PF_RUNTIME, "%s: damaged manifest: %s is more than pfsread ever makes "
		       "(nfiles %" PRIu64 ", file_size %" PRIu64 ", files_per_dir %" PRIu64 "); "
		       "refusing to go by it", path, what, m->nfiles, m->file_size, m->files_per_dir);
}

int manifest_read(const char *dir, struct manifest *m, struct pf_err *e)
{
	char path[CFG_PATH_MAX + 64], line[MANIFEST_SIZES_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", dir, DATASET_MANIFEST);
	FILE *f = fopen(path, "re");
	if (f == NULL && errno == ENOENT)
		return 1;
	if (f == NULL)
		return pf_fail_errno(e, errno, "%s: cannot open", path);
	memset(m, 0, sizeof *m);
	int rc = 0, lineno = 0;
	if (fgets(line, sizeof line, f) == NULL || strncmp(line, "pfsread-manifest ", 17) != 0)
		rc = pf_fail(e, PF_RUNTIME, "%s: not a pfsread manifest", path);
	while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
		lineno++;
		if (manifest_parse_line(m, line) != 0)
			rc = pf_fail(e, PF_RUNTIME, "%s:%d: damaged manifest line", path, lineno + 1);
	}
	if (rc == 0 && ferror(f))
		rc = pf_fail_errno(e, errno, "%s: cannot read", path);
	fclose(f);
	return rc == 0 ? manifest_check_counts(path, m, e) : rc;
}

int manifest_same_files(const struct manifest *a, const struct manifest *b)
{
	return a->pattern_version == b->pattern_version && strcmp(a->name, b->name) == 0 &&
	       a->file_size == b->file_size && a->nfiles == b->nfiles &&
	       a->files_per_dir == b->files_per_dir && strcmp(a->sizes, b->sizes) == 0 &&
	       a->layout == b->layout && a->depth == b->depth && a->width == b->width &&
	       a->name_digest == b->name_digest;
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

int sizes_describe(const struct cfg_dataset *d, char *buf, size_t len)
{
	int n = 0;
	size_t used;
	buf[0] = '\0';
	if (d->sizes == CFG_SIZES_TREE && d->tree != NULL) /* the list's hash: a changed tree differs */
		n = snprintf(buf, len,
			     "tree nfiles=%" PRIu64 " total=%" PRIu64 " dirs=%" PRIu64 " depth=%" PRIu64
			     " list=%016" PRIx64,
			     d->tree->nfiles, d->tree->total, d->tree->ndirs, d->tree->depth,
			     d->tree->hash);
	if (d->sizes == CFG_SIZES_LOGNORMAL)
		n = snprintf(buf, len,
			     "lognormal median=%" PRIu64 " sigma=%.17g min=%" PRIu64 " max=%" PRIu64
			     " seed=%" PRIu64 " nfiles=%" PRIu64 " total=%" PRIu64,
			     d->median, d->sigma, d->min, d->max, d->seed, d->nfiles, d->total_size);
	if (d->sizes != CFG_SIZES_HISTOGRAM)
		return n < 0 || (size_t)n >= len ? -1 : 0;
	n = snprintf(buf, len, "histogram");
	for (size_t k = 0; k < d->nbuckets && n >= 0 && (size_t)n < len; k++) {
		used = (size_t)n;
		int m = snprintf(buf + used, len - used, "%s%" PRIu64 "x%" PRIu64, k ? "," : " ",
				 d->buckets[k].size, d->buckets[k].count);
		n = m < 0 ? -1 : n + m;
	}
	if (n >= 0 && (size_t)n < len) {
		used = (size_t)n;
		int m = snprintf(buf + used, len - used, " total=%" PRIu64, d->total_size);
		n = m < 0 ? -1 : n + m;
	}
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
