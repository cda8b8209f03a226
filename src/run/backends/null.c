/* null backend: touches no file and "reads" whatever is asked, instantly. It lets the whole
 * chain (config, phases, HDF5, report) run anywhere, and measures the harness's own cost. */
#include "run/backend.h"

static int null_open(const char *path, const struct bopen *o, struct bfile *f)
{
	(void)path, (void)o;
	f->fd = -1;
	return 0;
}

static int null_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	(void)f, (void)buf, (void)offset;
	*got = len;
	return 0;
}

static int null_close(struct bfile *f)
{
	(void)f;
	return 0;
}

/* null: takes no keys; the block is there to say why, to whoever writes one. */
static const struct cfg_opt null_no_opts[1];
static const struct cfg_block null_block = {
	.key = "null", .opts = null_no_opts, .nopts = 0,
	.note = "the null backend reads no file: it takes no options, and no advice",
};

static const struct cfg_block *const null_config[] = {&null_block, NULL};

const struct backend null_backend = {
	.name = "null",
	.config = null_config,
	.flags = 0,
	.open = null_open,
	.read = null_read,
	.close = null_close,
	/* touches no file: any advice is accepted, and none is given */
	.advice = 1u << CFG_ADVICE_SEQUENTIAL | 1u << CFG_ADVICE_WILLNEED,
};
