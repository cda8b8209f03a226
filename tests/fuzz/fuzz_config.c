/* fuzz_config: libFuzzer target for the config loader. Any bytes go through cfg_parse as if
 * they were a config file; it must return 0 or -1 with a message, never crash or leak, and a
 * config it accepts must keep the promises of config.h (checked here, abort on a breach). The
 * backends' config blocks are handed to the loader, as the commands do. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "run/backend.h"

#define FZ_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* abort with a reason: libFuzzer reports it as a crash and keeps the input. */
#define FZ_CHECK(cond)                                                                     \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "fuzz_config: broken promise: %s (%s:%d)\n", #cond, \
				__FILE__, __LINE__);                                       \
			abort();                                                           \
		}                                                                          \
	} while (0)

static int fz_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* The backends' blocks keep what their tables promise: each key in its range, pairs named. */
static void fz_check_block(const struct cfg_values *bv)
{
	const struct cfg_block *b = bv->block;
	const char *v = bv->values;
	if (b->opts == NULL) {
		const struct cfg_pairs *p = bv->values;
		FZ_CHECK(p->n <= CFG_PAIRS_MAX);
		for (size_t i = 0; i < p->n; i++)
			FZ_CHECK(fz_terminated(p->pair[i].key, sizeof p->pair[i].key) &&
				 fz_terminated(p->pair[i].value, sizeof p->pair[i].value) &&
				 p->pair[i].key[0] != '\0');
		return;
	}
	for (size_t i = 0; i < b->nopts; i++) {
		const struct cfg_opt *o = &b->opts[i];
		int n;
		uint64_t u;
		if (o->kind == CFG_OPT_SIZE) {
			memcpy(&u, v + o->offset, sizeof u);
			FZ_CHECK(u > 0 && u <= o->max);
			continue;
		}
		memcpy(&n, v + o->offset, sizeof n);
		if (o->kind == CFG_OPT_BOOL)
			FZ_CHECK(n == 0 || n == 1);
		else
			FZ_CHECK(n >= 0 && (uint64_t)n >= o->min && (uint64_t)n <= o->max);
	}
}

/* The sizes a loaded data set promises. A from_tree data set, and its one-file twin, are
 * sized only once the tree is described (plan, generate, or the saved description): 0 here. */
static void fz_check_sizes(const struct experiment *x, const struct cfg_dataset *d)
{
	const struct cfg_dataset *of = d->twin_of ? &x->datasets[d->twin_of - 1] : NULL;
	if (d->sizes == CFG_SIZES_TREE) {
		FZ_CHECK(d->from_tree != NULL && d->from_tree[0] != '\0' && d->nfiles == 0 && d->total_size == 0);
	} else if (of != NULL && of->sizes == CFG_SIZES_TREE) {
		FZ_CHECK(d->nfiles == 1 && d->file_size == 0 && d->total_size == 0);
	} else if (d->sizes == CFG_SIZES_FIXED) {
		FZ_CHECK(d->file_size > 0 && d->nfiles > 0);
		FZ_CHECK(d->nfiles <= UINT64_MAX / d->file_size);
		FZ_CHECK(d->total_size == d->nfiles * d->file_size);
	} else {
		FZ_CHECK(d->file_size > 0 && d->nfiles > 0 && d->total_size > 0);
	}
	/* the limits (README, Safety): what loads is representable with room */
	FZ_CHECK(d->file_size <= CFG_FILE_SIZE_MAX); /* a one-file twin's too */
	FZ_CHECK(d->nfiles <= CFG_FILES_MAX && d->total_size <= CFG_DATASET_BYTES_MAX);
}

static void fz_check_dataset(const struct experiment *x, const struct cfg_dataset *d)
{
	FZ_CHECK(fz_terminated(d->name, sizeof d->name));
	FZ_CHECK(d->name[0] != '\0' && strcmp(d->name, ".") != 0 && strcmp(d->name, "..") != 0);
	FZ_CHECK(strchr(d->name, '/') == NULL);
	FZ_CHECK(d->twin_of == 0 || (size_t)d->twin_of <= x->ndatasets);
	fz_check_sizes(x, d);
	FZ_CHECK(d->pos.line >= 1 && d->pos.col >= 1);
}

/* A rate is 0 (not given) or in (0, 1e12] MB/s. */
static void fz_check_rate(double r)
{
	FZ_CHECK(r == 0 || (isfinite(r) && r > 0 && r <= 1e12));
}

static void fz_check_hw(const struct cfg_hardware *h)
{
	const double rates[] = {h->node_disk_MBps,   h->node_link_MBps,   h->node_memcpy_MBps,
				h->reader_MBps,      h->server_disk_MBps, h->server_link_MBps,
				h->rack_uplink_MBps, h->node_client_MBps};
	for (size_t i = 0; i < FZ_LEN(rates); i++)
		fz_check_rate(rates[i]);
	FZ_CHECK(h->given == 0 || h->given == 1);
	FZ_CHECK(h->data_on_compute_nodes == 0 || h->data_on_compute_nodes == 1);
}

/* The phases of x, in double: a product that wraps in 64 bits must not pass for a small one. */
static double fz_phases(const struct experiment *x)
{
	return (double)x->repetitions * (double)x->ndatasets * (double)x->nreaders *
	       (double)x->nbackends * (double)x->ntransfers * (double)x->norders *
	       (double)x->npatterns * (double)x->ndecomps;
}

/* What a loaded experiment promises its users (plan, run, generate). */
static void fz_check(const struct experiment *x, const char *text, size_t len)
{
	FZ_CHECK(x->yaml_text != NULL && x->yaml_len == len);
	FZ_CHECK(memcmp(x->yaml_text, text, len) == 0 && x->yaml_text[len] == '\0');
	FZ_CHECK(fz_terminated(x->name, sizeof x->name) && x->name[0] != '\0');
	FZ_CHECK(fz_terminated(x->root, sizeof x->root) && x->root[0] != '\0');
	FZ_CHECK(fz_terminated(x->results, sizeof x->results) && x->results[0] != '\0');
	FZ_CHECK(x->files_per_dir > 0);
	FZ_CHECK(x->datasets != NULL && x->ndatasets >= 1);
	for (size_t i = 0; i < x->ndatasets; i++)
		fz_check_dataset(x, &x->datasets[i]);
	FZ_CHECK(x->nreaders >= 1 && x->nreaders <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->nreaders; i++)
		FZ_CHECK(x->readers_per_node[i] >= 1 && x->readers_pos[i].line >= 1);
	FZ_CHECK(x->nbackends >= 1 && x->nbackends <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->nbackends; i++)
		FZ_CHECK(fz_terminated(x->backends[i], sizeof x->backends[i]) &&
			 x->backends[i][0] != '\0');
	FZ_CHECK(x->ntransfers >= 1 && x->ntransfers <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->ntransfers; i++)
		FZ_CHECK(x->transfer_sizes[i] > 0 && x->transfer_sizes[i] <= CFG_TRANSFER_MAX);
	for (size_t i = 0; i < x->nreaders; i++)
		FZ_CHECK(x->readers_per_node[i] <= CFG_READERS_MAX);
	FZ_CHECK(x->norders >= 1 && x->norders <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->norders; i++)
		FZ_CHECK(strcmp(cfg_order_name(x->orders[i]), "unknown") != 0);
	FZ_CHECK(x->npatterns >= 1 && x->npatterns <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->npatterns; i++)
		FZ_CHECK(strcmp(cfg_pattern_name(x->patterns[i]), "unknown") != 0);
	FZ_CHECK(x->ndecomps >= 1 && x->ndecomps <= CFG_LIST_MAX);
	for (size_t i = 0; i < x->ndecomps; i++)
		FZ_CHECK(strcmp(cfg_decomp_name(x->decomps[i]), "unknown") != 0);
	FZ_CHECK(x->repetitions >= 1 && x->repetitions <= CFG_REPETITIONS_MAX);
	FZ_CHECK(fz_phases(x) <= (double)CFG_PHASES_MAX);
	FZ_CHECK(x->space_check == 0 || x->space_check == 1);
	FZ_CHECK(strcmp(cfg_cache_name(x->cache), "unknown") != 0);
	FZ_CHECK(x->noatime == 0 || x->noatime == 1);
	FZ_CHECK(x->verify == 0 || x->verify == 1);
	FZ_CHECK(isfinite(x->phase_timeout) && x->phase_timeout >= 0 &&
		 x->phase_timeout <= CFG_TIMEOUT_MAX);
	fz_check_hw(&x->hw);
	for (size_t i = 0; i < x->nblocks; i++)
		fz_check_block(&x->blocks[i]);
}

/* 1 when s holds no control character: a message is one line and cannot drive a terminal. */
static int fz_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* A failure is one line that names where: "fuzz.yaml:LINE:COL: ..." or "fuzz.yaml: ...". */
static void fz_check_error(const struct experiment *x, const struct pf_err *e)
{
	static const struct experiment zero;
	FZ_CHECK(memcmp(x, &zero, sizeof zero) == 0); /* "*x is left freed" */
	FZ_CHECK(e->status == PF_USAGE || e->status == PF_RUNTIME);
	FZ_CHECK(fz_terminated(e->msg, sizeof e->msg));
	FZ_CHECK(strncmp(e->msg, "fuzz.yaml:", 10) == 0);
	FZ_CHECK(fz_printable(e->msg));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	struct experiment x;
	struct pf_err e = {0};
	backend_config(blocks, BACKEND_BLOCKS_MAX); /* every backend's keys are fuzzed too */
	/* An exact-size copy: ASan catches a read one past the end (text is not NUL-terminated). */
	char *text = malloc(size > 0 ? size : 1);
	if (text == NULL)
		return 0;
	if (size > 0)
		memcpy(text, data, size);
	if (cfg_parse("fuzz.yaml", text, size, blocks, &x, &e) == 0) {
		FZ_CHECK(e.status == PF_OK);
		fz_check(&x, text, size);
		cfg_free(&x);
	} else {
		fz_check_error(&x, &e);
	}
	free(text);
	return 0;
}
