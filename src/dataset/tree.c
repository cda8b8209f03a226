/* tree: the description of a directory tree (sizes, paths, directories, depth; never content):
 * sorted, formatted as text and read back; the paths of its synthetic twin. The walk that
 * collects it is tree_walk.c. */
#include "dataset/tree.h"
#include "dataset/tree_build.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- string tables ---- */

/* Room for one more entry in *a (n used of *cap), doubling. 0 or -ENOMEM. */
int tree_grow(uint64_t **a, uint64_t *cap, uint64_t n)
{
	if (n < *cap)
		return 0;
	uint64_t more = *cap ? 2 * *cap : 256;
	uint64_t *p = realloc(*a, more * sizeof *p);
	if (p == NULL)
		return -ENOMEM;
	*a = p;
	*cap = more;
	return 0;
}

/* Append s (n bytes) as a new string. 0 or -ENOMEM. */
int tree_strs_add(struct tree_strs *s, const char *str, size_t n)
{
	if (tree_grow(&s->off, &s->ncap, s->n) != 0)
		return -ENOMEM;
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		while (cap < s->len + n + 1)
			cap *= 2;
		char *buf = realloc(s->buf, cap);
		if (buf == NULL)
			return -ENOMEM;
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, str, n);
	s->buf[s->len + n] = '\0';
	s->off[s->n++] = s->len;
	s->len += n + 1;
	return 0;
}

static const char *tree_str(const struct tree_strs *s, uint64_t i)
{
	return s->buf + s->off[i];
}

/* Release s's strings, leaving it zeroed; NULL is accepted. */
static void tree_strs_free(struct tree_strs *s)
{
	if (s == NULL)
		return;
	free(s->buf);
	free(s->off);
	memset(s, 0, sizeof *s);
}

void tree_free(struct tree_desc *t)
{
	if (t == NULL)
		return;
	free(t->size);
	free(t->text);
	tree_strs_free(&t->files);
	tree_strs_free(&t->dirs);
	tree_strs_free(&t->twin_files);
	tree_strs_free(&t->twin_dirs);
	memset(t, 0, sizeof *t);
}

#define TREE_WHY_HEAD 160 /* a long message keeps this much of its start ... */
#define TREE_WHY_TAIL 240 /* ... and of its end, where the reason is */

/* The message of a failure into why; returns -1. Paths deep in a tree can be thousands of
 * bytes: a message longer than head + tail keeps its start and its end (the reason) with
 * " ... " between, so that no caller's buffer cuts the reason off. */
int tree_why(char *why, size_t len, const char *fmt, ...)
{
	char full[3 * CFG_PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(full, sizeof full, fmt, ap);
	va_end(ap);
	if (len == 0)
		return -1;
	if (n < 0)
		full[0] = '\0';
	size_t have = strlen(full);
	if (have > TREE_WHY_HEAD + TREE_WHY_TAIL)
		snprintf(why, len, "%.*s ... %s", TREE_WHY_HEAD, full,
			 full + have - TREE_WHY_TAIL);
	else
		snprintf(why, len, "%s", full);
	return -1;
}

/* ---- sorting and what follows from the sorted lists ---- */

static int tree_cmp_str(const void *a, const void *b, void *arg)
{
	const struct tree_strs *s = arg;
	return strcmp(tree_str(s, *(const uint64_t *)a), tree_str(s, *(const uint64_t *)b));
}

/* Sort s by path (bytes, as LC_ALL=C sort), carrying size along when given. */
static int tree_sort(struct tree_strs *s, uint64_t *size)
{
	uint64_t k = 1;
	while (k < s->n && strcmp(tree_str(s, k - 1), tree_str(s, k)) < 0)
		k++;
	if (k >= s->n)
		return 0; /* sorted already: the walk's files, a description read back */
	uint64_t n = s->n, *perm = malloc(n * sizeof *perm);
	uint64_t *tmp = malloc(n * sizeof *tmp);
	int rc = perm && tmp ? 0 : -ENOMEM;
	for (uint64_t i = 0; rc == 0 && i < n; i++)
		perm[i] = i;
	if (rc == 0)
		qsort_r(perm, n, sizeof *perm, tree_cmp_str, s);
	for (uint64_t i = 0; rc == 0 && i < n; i++)
		tmp[i] = s->off[perm[i]];
	if (rc == 0)
		memcpy(s->off, tmp, n * sizeof *tmp);
	for (uint64_t i = 0; rc == 0 && size != NULL && i < n; i++)
		tmp[i] = size[perm[i]];
	if (rc == 0 && size != NULL)
		memcpy(size, tmp, n * sizeof *tmp);
	free(perm);
	free(tmp);
	return rc;
}

/* The index of directory path (n bytes) in the sorted dirs, or -1 ("": the top). */
static int64_t tree_find_dir(const struct tree_desc *t, const char *path, size_t n)
{
	uint64_t lo = 0, hi = t->dirs.n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const char *s = tree_str(&t->dirs, mid);
		int c = strncmp(s, path, n);
		if (c == 0 && s[n] != '\0')
			c = 1;
		if (c == 0)
			return (int64_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The twin's path of whatever lies in the parent of rel, plus leaf (n bytes), into s. *last
 * is the parent found for the previous path (-2: none yet): the paths come sorted, so a
 * directory's files mostly follow each other and the search is skipped for them. */
static int tree_twin_add(struct tree_desc *t, struct tree_strs *s, const char *rel,
			 const char *leaf, size_t n, int64_t *last)
{
	char buf[CFG_PATH_MAX];
	const char *slash = strrchr(rel, '/');
	size_t plen = slash ? (size_t)(slash - rel) : 0;
	int64_t parent = -1;
	if (slash != NULL && *last >= 0 &&
	    strncmp(tree_str(&t->dirs, (uint64_t)*last), rel, plen) == 0 &&
	    tree_str(&t->dirs, (uint64_t)*last)[plen] == '\0')
		parent = *last;
	else if (slash != NULL)
		parent = tree_find_dir(t, rel, plen);
	if (slash != NULL && parent < 0)
		return -EINVAL; /* a file whose directory is not listed: a damaged description */
	*last = parent;
	const char *up = parent >= 0 ? tree_str(&t->twin_dirs, (uint64_t)parent) : "";
	size_t ulen = strlen(up), len = ulen + (parent >= 0) + n;
	if (len >= sizeof buf)
		return -ENAMETOOLONG;
	memcpy(buf, up, ulen);
	if (parent >= 0)
		buf[ulen] = '/';
	memcpy(buf + len - n, leaf, n);
	return tree_strs_add(s, buf, len);
}

/* leaf = c then v in width digits (zero-padded, more when v needs them); its length. */
static size_t tree_twin_leaf(char *leaf, char c, uint64_t v, int width)
{
	char d[24];
	int n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n < width)
		d[n++] = '0';
	leaf[0] = c;
	for (int i = 0; i < n; i++)
		leaf[1 + i] = d[n - 1 - i];
	return (size_t)n + 1;
}

/* The twin: directory k becomes dNNNNNN (k) inside its parent's twin, file i fNNNNNNNNNN (i)
 * inside its directory's twin. A parent sorts before its children (a prefix comes first), so
 * its twin is made already. */
static int tree_twin(struct tree_desc *t)
{
	char leaf[32];
	int rc = 0;
	int64_t last = -2;
	for (uint64_t k = 0; rc == 0 && k < t->dirs.n; k++) {
		size_t n = tree_twin_leaf(leaf, 'd', k, 6);
		rc = tree_twin_add(t, &t->twin_dirs, tree_str(&t->dirs, k), leaf, n, &last);
	}
	last = -2;
	for (uint64_t i = 0; rc == 0 && i < t->files.n; i++) {
		size_t n = tree_twin_leaf(leaf, 'f', i, 10);
		rc = tree_twin_add(t, &t->twin_files, tree_str(&t->files, i), leaf, n, &last);
	}
	return rc;
}

static void tree_swap(uint64_t *a, uint64_t i, uint64_t j)
{
	uint64_t x = a[i];
	a[i] = a[j];
	a[j] = x;
}

uint64_t tree_nth(uint64_t *a, uint64_t n, uint64_t k)
{
	uint64_t lo = 0, hi = n;
	while (hi - lo > 1) {
		uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
		uint64_t p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		uint64_t lt = lo, i = lo, gt = hi; /* [lo,lt) < p, [lt,i) == p, [gt,hi) > p */
		while (i < gt) {
			if (a[i] < p)
				tree_swap(a, lt++, i++);
			else if (a[i] > p)
				tree_swap(a, i, --gt);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return a[lo];
}

/* The size of the file at position (n - 1) / 2 by size: selected, not sorted (a tree's sizes
 * are often all alike, which the three-way partition takes in one pass). */
static int tree_median(struct tree_desc *t)
{
	if (t->nfiles == 0)
		return 0;
	uint64_t *s = malloc(t->nfiles * sizeof *s);
	if (s == NULL)
		return -ENOMEM;
	memcpy(s, t->size, t->nfiles * sizeof *s);
	t->median = tree_nth(s, t->nfiles, (t->nfiles - 1) / 2);
	free(s);
	return 0;
}

/* ---- the text ---- */

static uint64_t tree_fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The text being built: one growing buffer, NUL-terminated. Formatted by hand rather than
 * with snprintf per piece, since a tree of 10^6 files makes 10^6 lines (with snprintf the
 * text and its string table of fragments took a fifth of the scan's time). */
struct tree_text {
	char *buf;
	size_t len, cap;
};

/* Room for n more bytes and a NUL. 0 or -ENOMEM. */
static int tree_text_room(struct tree_text *o, size_t n)
{
	if (o->len + n + 1 <= o->cap)
		return 0;
	size_t cap = o->cap ? 2 * o->cap : 1 << 16;
	while (cap < o->len + n + 1)
		cap *= 2;
	char *p = realloc(o->buf, cap);
	if (p == NULL)
		return -ENOMEM;
	o->buf = p;
	o->cap = cap;
	return 0;
}

static int tree_text_put(struct tree_text *o, const char *s, size_t n)
{
	if (tree_text_room(o, n) != 0)
		return -ENOMEM;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return 0;
}

/* v in decimal. */
static int tree_text_u64(struct tree_text *o, uint64_t v)
{
	char d[24];
	size_t n = sizeof d;
	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return tree_text_put(o, d + n, sizeof d - n);
}

/* A path on one line: '%', control characters and DEL as %XX (a name may hold a newline). */
static int tree_text_escaped(struct tree_text *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	if (tree_text_room(o, 3 * n) != 0)
		return -ENOMEM;
	char *w = o->buf + o->len;
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f || ch == '%') {
			*w++ = '%';
			*w++ = hex[ch >> 4];
			*w++ = hex[ch & 15];
		} else {
			*w++ = (char)ch;
		}
	}
	o->len = (size_t)(w - o->buf);
	o->buf[o->len] = '\0';
	return 0;
}

/* t->text from t's lists: a header, then "d PATH" per directory and "f SIZE PATH" per file. */
static int tree_format(struct tree_desc *t)
{
	struct tree_text o = {0};
	char head[256];
	int n = snprintf(head, sizeof head, "\nfiles %" PRIu64 "\nbytes %" PRIu64 "\ndirs %" PRIu64
			 "\ndepth %" PRIu64 "\nsymlinks %" PRIu64 "\nspecials %" PRIu64 "\n",
			 t->nfiles, t->total, t->dirs.n, t->depth, t->symlinks, t->specials);
	static const char top[] = "pfsread-tree 1\n# written by pfsread generate: the tree's "
				  "files, never its content\nsource ";
	int rc = n > 0 && (size_t)n < sizeof head ? 0 : -EINVAL;
	/* Room for the whole text at once, unless names need escaping: its lines are the paths
	 * plus at most 24 bytes each (growing it by doubling copied and faulted it in again). */
	rc = rc ? rc : tree_text_room(&o, sizeof top + 2 * CFG_PATH_MAX + t->dirs.len +
				      t->files.len + 24 * (t->dirs.n + t->files.n));
	rc = rc ? rc : tree_text_put(&o, top, sizeof top - 1);
	rc = rc ? rc : tree_text_escaped(&o, t->source);
	rc = rc ? rc : tree_text_put(&o, head, (size_t)n);
	for (uint64_t k = 0; rc == 0 && k < t->dirs.n; k++) {
		rc = tree_text_put(&o, "d ", 2);
		rc = rc ? rc : tree_text_escaped(&o, tree_str(&t->dirs, k));
		rc = rc ? rc : tree_text_put(&o, "\n", 1);
	}
	for (uint64_t i = 0; rc == 0 && i < t->files.n; i++) {
		rc = tree_text_put(&o, "f ", 2);
		rc = rc ? rc : tree_text_u64(&o, t->size[i]);
		rc = rc ? rc : tree_text_put(&o, " ", 1);
		rc = rc ? rc : tree_text_escaped(&o, tree_str(&t->files, i));
		rc = rc ? rc : tree_text_put(&o, "\n", 1);
	}
	rc = rc ? rc : tree_text_put(&o, "end\n", 4);
	if (rc != 0) {
		free(o.buf);
		return rc;
	}
	t->text = o.buf; /* taken over */
	t->text_len = o.len;
	t->hash = tree_fnv(t->text, t->text_len);
	return 0;
}

/* What follows the walk or the parse: sorted lists, twin paths, median, text. */
int tree_settle(struct tree_desc *t, int format)
{
	int rc = tree_sort(&t->dirs, NULL);
	rc = rc ? rc : tree_sort(&t->files, t->size);
	t->nfiles = t->files.n;
	t->ndirs = t->dirs.n;
	t->total = 0;
	for (uint64_t i = 0; i < t->nfiles; i++)
		t->total += t->size[i];
	rc = rc ? rc : tree_twin(t);
	rc = rc ? rc : tree_median(t);
	return rc == 0 && format ? tree_format(t) : rc;
}

/* ---- reading it back ---- */

int tree_add_file(struct tree_scan_ctx *c, const char *rel, uint64_t size)
{
	if (tree_grow(&c->size, &c->cap, c->t->files.n) != 0)
		return -ENOMEM;
	c->size[c->t->files.n] = size;
	return tree_strs_add(&c->t->files, rel, strlen(rel));
}


static int tree_hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Undo tree_put_escaped on the n bytes at s, into out (CFG_PATH_MAX). -1 when damaged. */
static int tree_unescape(const char *s, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k + 1 >= CFG_PATH_MAX)
			return -1;
		if (s[i] != '%') {
			out[k++] = s[i];
			continue;
		}
		if (i + 2 >= n || tree_hex(s[i + 1]) < 0 || tree_hex(s[i + 2]) < 0)
			return -1;
		out[k++] = (char)(tree_hex(s[i + 1]) * 16 + tree_hex(s[i + 2]));
		i += 2;
	}
	out[k] = '\0';
	return k > 0 && strchr(out, '\0') == out + k ? 0 : -1;
}

/* One "d PATH" or "f SIZE PATH" line (n bytes, no newline). */
static int tree_parse_entry(struct tree_scan_ctx *c, const char *line, size_t n)
{
	char path[CFG_PATH_MAX];
	if (n > 2 && line[0] == 'd' && line[1] == ' ')
		return tree_unescape(line + 2, n - 2, path) == 0
			       ? tree_strs_add(&c->t->dirs, path, strlen(path)) : -1;
	if (n < 5 || line[0] != 'f' || line[1] != ' ')
		return -1;
	char *end;
	errno = 0;
	unsigned long long size = strtoull(line + 2, &end, 10);
	if (errno != 0 || end == line + 2 || *end != ' ' || line[2] < '0' || line[2] > '9' ||
	    tree_unescape(end + 1, n - (size_t)(end + 1 - line), path) != 0)
		return -1;
	return tree_add_file(c, path, size);
}

/* A header line "KEY VALUE" into the field it names. */
static int tree_parse_header(struct tree_desc *t, const char *line, size_t n)
{
	static const char *const keys[] = {"files", "bytes", "dirs", "depth", "symlinks", "specials"};
	uint64_t *fields[] = {&t->nfiles, &t->total, &t->ndirs, &t->depth, &t->symlinks,
			      &t->specials};
	if (n > 7 && strncmp(line, "source ", 7) == 0)
		return tree_unescape(line + 7, n - 7, t->source);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		size_t kl = strlen(keys[k]);
		if (n > kl + 1 && strncmp(line, keys[k], kl) == 0 && line[kl] == ' ') {
			char num[32];
			if (n - kl - 1 >= sizeof num)
				return -1;
			memcpy(num, line + kl + 1, n - kl - 1);
			num[n - kl - 1] = '\0';
			return sscanf(num, "%" SCNu64, fields[k]) == 1 ? 0 : -1;
		}
	}
	return 1; /* not a header line */
}

static int tree_parse_lines(struct tree_scan_ctx *c, const char *text, size_t len, int *ended)
{
	size_t lineno = 0;
	for (size_t at = 0; at < len && !*ended;) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		at += n + 1;
		lineno++;
		int rc = 0;
		if (lineno == 1)
			rc = n == 14 && strncmp(line, "pfsread-tree 1", 14) == 0 ? 0 : -1;
		else if (n == 3 && strncmp(line, "end", 3) == 0)
			*ended = 1;
		else if (n > 0 && line[0] != '#' && (rc = tree_parse_header(c->t, line, n)) == 1)
			rc = tree_parse_entry(c, line, n);
		if (rc != 0)
			return tree_why(c->why, c->whylen, "line %zu is damaged", lineno);
	}
	return 0;
}

int tree_parse(const char *text, size_t len, struct tree_desc *t, char *why, size_t whylen)
{
	struct tree_scan_ctx c = {.t = t, .why = why, .whylen = whylen};
	uint64_t nfiles, total, ndirs;
	int ended = 0;
	memset(t, 0, sizeof *t);
	int rc = tree_parse_lines(&c, text, len, &ended);
	t->size = c.size;
	nfiles = t->nfiles;
	total = t->total;
	ndirs = t->ndirs;
	if (rc == 0 && !ended)
		rc = tree_why(why, whylen, "cut short (no 'end' line)");
	if (rc == 0 && tree_settle(t, 0) != 0)
		rc = tree_why(why, whylen, "out of memory or a file outside its directories");
	if (rc == 0 && (nfiles != t->nfiles || total != t->total || ndirs != t->ndirs))
		rc = tree_why(why, whylen, "its counts differ from its lines");
	if (rc == 0 && (t->text = malloc(len + 1)) == NULL)
		rc = tree_why(why, whylen, "out of memory");
	if (rc != 0) {
		tree_free(t);
		return -1;
	}
	memcpy(t->text, text, len);
	t->text[len] = '\0';
	t->text_len = len;
	t->hash = tree_fnv(text, len);
	return 0;
}

/* ---- use ---- */

const char *tree_file_path(const struct tree_desc *t, uint64_t i, int in_place)
{
	return tree_str(in_place ? &t->files : &t->twin_files, i);
}

const char *tree_dir_path(const struct tree_desc *t, uint64_t k, int twin)
{
	return tree_str(twin ? &t->twin_dirs : &t->dirs, k);
}

/* What cfg_free calls to release an attached description (it was malloc'ed whole). */
static void tree_release(struct tree_desc *t)
{
	tree_free(t);
	free(t);
}

void tree_attach(struct cfg_dataset *d, struct tree_desc *t)
{
	d->tree = t;
	d->tree_release = tree_release;
	d->sizes = CFG_SIZES_TREE;
	d->nfiles = t->nfiles;
	d->total_size = t->total;
	d->file_size = t->median;
}
