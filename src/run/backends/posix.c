/* posix backend: open, a pread loop, close. The reference read path. */
#include "run/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- options: {advice: A}, the advice when sweep.advice is default ---- */

const struct cfg_opt posix_advice_keys[1] = {
	{"advice", CFG_OPT_ADVICE, offsetof(struct posix_advice_opts, advice), 0, 0, NULL},
};

const struct posix_advice_opts posix_advice_defaults = {.advice = CFG_ADVICE_DEFAULT};

enum cfg_advice posix_block_advice(const struct experiment *x, const struct cfg_block *b)
{
	return ((const struct posix_advice_opts *)cfg_block_values(x, b))->advice;
}

static const struct cfg_block posix_block = POSIX_ADVICE_BLOCK("posix");

static const struct cfg_block *const posix_config[] = {&posix_block, NULL};

static enum cfg_advice posix_advice_default(const struct experiment *x)
{
	return posix_advice_or(x, posix_block_advice(x, &posix_block));
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
	.hints = posix_hints,
};
