/* posix backend: open, a pread loop, close. The reference read path. */
#include "run/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* O_NOATIME is refused (EPERM) unless we own the file or are root: then fall back, and
 * say so through noatime_used. Shared with the direct backend. */
int posix_open_flags(const char *path, int flags, const struct bopen *o, struct bfile *f)
{
	f->noatime_used = 0;
	if (o->noatime) {
		f->fd = open(path, flags | O_NOATIME);
		if (f->fd >= 0) {
			f->noatime_used = 1;
			return 0;
		}
		if (errno != EPERM)
			return -errno;
	}
	f->fd = open(path, flags);
	return f->fd < 0 ? -errno : 0;
}

int posix_open_with(const char *path, int flags, const struct bopen *o, struct bfile *f,
		    size_t priv_size, int (*init)(int fd, const struct bopen *o, void *priv))
{
	int rc = posix_open_flags(path, flags, o, f);
	if (rc != 0)
		return rc;
	void *p = malloc(priv_size);
	rc = p == NULL ? -ENOMEM : init(f->fd, o, p);
	if (rc == 0) {
		f->priv = p;
		return 0;
	}
	free(p);
	(void)posix_close(f); /* the open's failure is the one to report */
	return rc;
}

/* A reader of whole files (or of one contiguous slice each) reads sequentially, and saying
 * so is what a streaming reader should do: with 4 MiB reads the default read-ahead window
 * cuts a cold 1 GiB file into twice as many device requests. */
int posix_hint_sequential(int fd, enum cfg_advice advice, uint64_t size)
{
	if (advice != CFG_ADVICE_SEQUENTIAL && advice != CFG_ADVICE_WILLNEED)
		return 0;
	/* A file of one page is read whole by its first read whatever the window: the hint
	 * would be a system call per file for nothing (a tenth of a warm 4 KiB file's time) */
	if (advice == CFG_ADVICE_SEQUENTIAL && size <= POSIX_HINT_MIN_SIZE)
		return 0;
	int rc = posix_fadvise(fd, 0, 0,
			       advice == CFG_ADVICE_WILLNEED ? POSIX_FADV_WILLNEED
							     : POSIX_FADV_SEQUENTIAL);
	return rc == ESPIPE ? 0 : -rc; /* a pipe or FIFO has no read-ahead to widen */
}

enum cfg_advice posix_advice_or(const struct experiment *x, enum cfg_advice own)
{
	if (own != CFG_ADVICE_DEFAULT)
		return own;
	return x == NULL || x->sequential_hint ? CFG_ADVICE_SEQUENTIAL : CFG_ADVICE_NONE;
}

/* ---- options: posix: {advice: A, buffer_offset: B} ---- */

struct posix_opts {
	enum cfg_advice advice; /* when sweep.advice is default; CFG_ADVICE_DEFAULT: not given */
	int buffer_offset;      /* bytes past a 2 MiB boundary where reads land; default 0 */
};

static const struct posix_opts posix_defaults = {.advice = CFG_ADVICE_DEFAULT,
						 .buffer_offset = 0};

/* Below a page: a consumer's buffer is placed within one, and the core's buffer has a whole
 * alignment (2 MiB) of room past its length. */
#define POSIX_OFFSET_MAX 4095

static const struct cfg_opt posix_keys[] = {
	{"advice", CFG_OPT_ADVICE, offsetof(struct posix_opts, advice), 0, 0, NULL},
	{"buffer_offset", CFG_OPT_INT, offsetof(struct posix_opts, buffer_offset), 0,
	 POSIX_OFFSET_MAX, NULL},
};

static const struct cfg_block posix_block = {
	.key = "posix", .opts = posix_keys, .nopts = sizeof posix_keys / sizeof posix_keys[0],
	.size = sizeof(struct posix_opts), .defaults = &posix_defaults,
};

static const struct cfg_block *const posix_config[] = {&posix_block, NULL};

static const struct posix_opts *posix_opts_of(const struct experiment *x)
{
	return cfg_block_values(x, &posix_block);
}

static enum cfg_advice posix_advice_default(const struct experiment *x)
{
	return posix_advice_or(x, posix_opts_of(x)->advice);
}

/* Where the kernel's copy out of the page cache lands sets its speed, and which placement is
 * the fast one is the CPU's: on an Intel Xeon VM a copy 16 B past a cache line ran 4-9% faster
 * than one onto it, at every transfer size from 64 KiB to 16 MiB; on an AMD EPYC VM the one 16 B
 * past ran at less than half the speed (docs/performance.md). The
 * default stays on the boundary, as IOR's buffer (a page); the option places the reads where
 * an application's buffer sits (malloc's, and fio's by default: 16 B past a page). */
static size_t posix_buffer_offset(const struct experiment *x)
{
	return (size_t)posix_opts_of(x)->buffer_offset;
}

void posix_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len)
{
	(void)x;
	snprintf(buf, len, "%s", a == CFG_ADVICE_SEQUENTIAL
					 ? "posix_fadvise(POSIX_FADV_SEQUENTIAL) on every file opened "
					   "(of more than 4 KiB)"
				 : a == CFG_ADVICE_WILLNEED
					 ? "posix_fadvise(POSIX_FADV_WILLNEED) on every file opened"
					 : "");
}

/* posix's hints, and where its reads land when the user moved them. */
static void posix_own_hints(const struct experiment *x, enum cfg_advice a, char *buf,
			    size_t len)
{
	size_t off = posix_buffer_offset(x), n;
	posix_hints(x, a, buf, len);
	n = strlen(buf);
	if (off != 0 && n < len)
		snprintf(buf + n, len - n, "%sreads into a buffer %zu B past a 2 MiB boundary",
			 n ? "; " : "", off);
}

int posix_open(const char *path, const struct bopen *o, struct bfile *f)
{
	int rc = posix_open_flags(path, O_RDONLY | O_CLOEXEC, o, f);
	if (rc == 0 && (rc = posix_hint_sequential(f->fd, o->advice, o->size)) != 0)
		(void)posix_close(f); /* the advice's failure is the one to report */
	return rc;
}

/* Fill as much of buf as the file has: pread may return less than asked without EOF. */
int posix_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR) {
			*got = done; /* the core decides whether to go on */
			return -EINTR;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

int posix_close(struct bfile *f)
{
	int rc = close(f->fd);
	f->fd = -1;
	return rc == 0 ? 0 : -errno;
}

const struct backend posix_backend = {
	.name = "posix",
	.flags = 0,
	.open = posix_open,
	.read = posix_read,
	.close = posix_close,
	.advice = 1u << CFG_ADVICE_SEQUENTIAL | 1u << CFG_ADVICE_WILLNEED,
	.config = posix_config,
	.advice_default = posix_advice_default,
	.hints = posix_own_hints,
	.buffer_offset = posix_buffer_offset,
};
