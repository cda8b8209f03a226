/* manifest: what generate made, as one small text file beside the data set (its size spec,
 * layout, count, the digest lists it has, complete or not), written atomically (temporary
 * file, fsync, rename) and read back strictly; and the one-line description of a size spec
 * that manifests and plan print. */
#include "dataset/dataset.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/tree.h"

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
