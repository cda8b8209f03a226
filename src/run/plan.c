/* plan: block decomposition of a data set's files over the active readers, the order in which
 * each reader takes its share, and the share itself (whole files, or each file's slice with
 * pattern shared; a hashed data set's by name). Pure: the same answer on every rank, with no
 * traffic and no file system. */
#include "run/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset/dataset.h"

void plan_block(uint64_t nitems, uint64_t nparts, uint64_t part, uint64_t *first, uint64_t *count)
{
	uint64_t base = nitems / nparts, extra = nitems % nparts;
	*count = base + (part < extra ? 1 : 0);
	*first = part * base + (part < extra ? part : extra);
}

static int readers_on_node(const struct topo_map *t, int node, int readers_per_node)
{
	int n = t->node_size[node];
	return n < readers_per_node ? n : readers_per_node;
}

uint64_t plan_reader_count(const struct topo_map *t, int readers_per_node)
{
	uint64_t total = 0;
	for (int n = 0; n < t->nnodes; n++)
		total += (uint64_t)readers_on_node(t, n, readers_per_node);
	return total;
}

int64_t plan_reader_index(const struct topo_map *t, int rank, int readers_per_node)
{
	int node = t->node_of_rank[rank], local = t->local_rank[rank];
	if (local >= readers_per_node)
		return -1;
	int64_t before = 0;
	for (int n = 0; n < node; n++)
		before += readers_on_node(t, n, readers_per_node);
	return before + local;
}

int plan_min_node_size(const struct topo_map *t)
{
	int least = t->nnodes > 0 ? t->node_size[0] : 0;
	for (int n = 1; n < t->nnodes; n++)
		if (t->node_size[n] < least)
			least = t->node_size[n];
	return least;
}

/* splitmix64: a small, well-mixed generator; the seed alone decides every shuffle. */
static uint64_t plan_next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void plan_shuffle(uint64_t *v, uint64_t n, uint64_t seed)
{
	uint64_t state = seed;
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = plan_next_random(&state) % i;
		uint64_t tmp = v[i - 1];
		v[i - 1] = v[j];
		v[j] = tmp;
	}
}

void plan_cyclic(uint64_t nitems, uint64_t nparts, uint64_t part, uint64_t *count)
{
	*count = nitems / nparts + (part < nitems % nparts ? 1 : 0);
}

int plan_generator_rank(uint64_t nfiles, int nranks, uint64_t f)
{
	uint64_t base = nfiles / (uint64_t)nranks, extra = nfiles % (uint64_t)nranks;
	if (f < extra * (base + 1))
		return (int)(f / (base + 1));
	return (int)(extra + (f - extra * (base + 1)) / base);
}

/* Phases run repetition by repetition, data set by data set, the sweep lists inside: the
 * phases of one data set in one repetition are a run of "inner" consecutive ones. So the
 * count is O(1), not a scan of every phase before (quadratic over a run of 10^6 phases). */
uint64_t plan_dataset_use(const struct experiment *x, uint64_t index)
{
	uint64_t inner = cfg_sweep_cells(x);
	uint64_t repetition = index / (inner * x->ndatasets);
	return repetition * inner + index % inner + 1;
}

uint64_t plan_dataset_uses(const struct experiment *x)
{
	return plan_phase_count(x) / x->ndatasets;
}

int plan_shift_is_cold(uint64_t use, int nnodes)
{
	return use >= 1 && use < (uint64_t)nnodes;
}

void plan_shift_describe(const struct experiment *x, int nnodes, char *buf, size_t len)
{
	uint64_t uses = plan_dataset_uses(x), cold = nnodes > 1 ? (uint64_t)nnodes - 1 : 0;
	if (uses <= cold) {
		snprintf(buf, len, "cache: shift: %d nodes give each data set %llu cold use%s (every "
			 "file read on a node that neither wrote nor read it), enough for its %llu",
			 nnodes, (unsigned long long)cold, cold == 1 ? "" : "s",
			 (unsigned long long)uses);
		return;
	}
	snprintf(buf, len, "cache: shift: %d nodes give each data set %llu cold use%s (every file "
		 "read on a node that neither wrote nor read it), and each is read %llu times: "
		 "uses %llu-%llu %s (shift_fallback: %s)", nnodes, (unsigned long long)cold,
		 cold == 1 ? "" : "s", (unsigned long long)uses, (unsigned long long)cold + 1,
		 (unsigned long long)uses,
		 x->shift_fallback == CFG_CACHE_NONE ? "go back to nodes that hold the files and will "
						       "be warm"
						     : "evict the files on the reading node first",
		 cfg_cache_name(x->shift_fallback));
}

/* The node that reads file f in the use-th shifted phase of its data set. */
static int plan_shift_node(const struct topo_map *t, uint64_t nfiles, uint64_t use, uint64_t f)
{
	int gen = t->node_of_rank[plan_generator_rank(nfiles, t->nranks, f)];
	return (int)(((uint64_t)gen + use) % (uint64_t)t->nnodes);
}

/* The files this rank's node gets in a shifted phase, in index order; the rank takes its block
 * of them. Every rank scans all file indices (cheap arithmetic) but keeps only its own share. */
static int plan_shifted(const struct topo_map *t, int rank, uint64_t nfiles,
			const struct plan_rule *r, uint64_t **files, uint64_t *count)
{
	int node = t->node_of_rank[rank];
	uint64_t on_node = 0, first, n, j = 0, k = 0;
	for (uint64_t f = 0; f < nfiles; f++)
		on_node += plan_shift_node(t, nfiles, r->shift_use, f) == node;
	plan_block(on_node, (uint64_t)readers_on_node(t, node, r->readers_per_node),
		   (uint64_t)t->local_rank[rank], &first, &n);
	*count = n;
	if (n == 0)
		return 0;
	if ((*files = malloc(n * sizeof **files)) == NULL)
		return -1;
	for (uint64_t f = 0; f < nfiles && k < n; f++) {
		if (plan_shift_node(t, nfiles, r->shift_use, f) != node)
			continue;
		if (j >= first)
			(*files)[k++] = f;
		j++;
	}
	return 0;
}

/* The files of a plain (unshifted) phase: this reader's block or cycle. */
static int plan_unshifted(uint64_t nfiles, uint64_t readers, uint64_t part, enum cfg_decomp d,
			  uint64_t **files, uint64_t *count)
{
	uint64_t first = 0, n;
	if (d == CFG_DECOMP_CYCLIC)
		plan_cyclic(nfiles, readers, part, &n);
	else
		plan_block(nfiles, readers, part, &first, &n);
	*count = n;
	if (n == 0)
		return 0;
	if ((*files = malloc(n * sizeof **files)) == NULL)
		return -1;
	for (uint64_t k = 0; k < n; k++)
		(*files)[k] = d == CFG_DECOMP_CYCLIC ? part + k * readers : first + k;
	return 0;
}

static void plan_reverse(uint64_t *v, uint64_t n)
{
	for (uint64_t i = 0; i < n / 2; i++) {
		uint64_t tmp = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = tmp;
	}
}

int plan_files(const struct topo_map *t, int rank, uint64_t nfiles, const struct plan_rule *r,
	       uint64_t **files, uint64_t *count)
{
	*files = NULL;
	*count = 0;
	int64_t reader = plan_reader_index(t, rank, r->readers_per_node);
	if (reader < 0)
		return 0;
	int rc = r->shift_use > 0
			 ? plan_shifted(t, rank, nfiles, r, files, count)
			 : plan_unshifted(nfiles, plan_reader_count(t, r->readers_per_node),
					  (uint64_t)reader, r->decomp, files, count);
	if (rc != 0 || *count == 0)
		return rc;
	if (r->order == CFG_ORDER_REVERSE)
		plan_reverse(*files, *count);
	if (r->order == CFG_ORDER_RANDOM)
		plan_shuffle(*files, *count, r->seed ^ ((uint64_t)reader * 0x2545f4914f6cdd1dull));
	return 0;
}

int plan_even_map(int nranks, int nnodes, struct topo_map *t)
{
	t->nranks = nranks;
	t->nnodes = nnodes;
	t->node_of_rank = malloc((size_t)nranks * sizeof(int));
	t->local_rank = malloc((size_t)nranks * sizeof(int));
	t->node_size = calloc((size_t)nnodes, sizeof(int));
	if (t->node_of_rank == NULL || t->local_rank == NULL || t->node_size == NULL) {
		topo_map_free(t);
		return -1;
	}
	for (int r = 0; r < nranks; r++) {
		uint64_t first, count;
		int node = 0;
		/* the node whose block of ranks holds r */
		for (node = 0; node < nnodes; node++) {
			plan_block((uint64_t)nranks, (uint64_t)nnodes, (uint64_t)node, &first, &count);
			if ((uint64_t)r < first + count)
				break;
		}
		t->node_of_rank[r] = node;
		t->local_rank[r] = t->node_size[node]++;
	}
	return 0;
}

void topo_map_free(struct topo_map *t)
{
	if (t == NULL)
		return;
	free(t->node_of_rank);
	free(t->local_rank);
	free(t->node_size);
	t->node_of_rank = t->local_rank = t->node_size = NULL;
}

uint64_t plan_phase_count(const struct experiment *x)
{
	return (uint64_t)x->repetitions * x->ndatasets * cfg_sweep_cells(x);
}

/* Mixed-radix digits of index, the last list varying fastest. */
void plan_phase_at(const struct experiment *x, uint64_t index, struct plan_point *p)
{
	for (int k = SWEEP_NKEYS - 1; k >= 0; k--) {
		uint64_t n = cfg_sweep_count(x, k);
		p->at[k] = (size_t)(index % n);
		index /= n;
	}
	p->dataset = index % x->ndatasets;
	index /= x->ndatasets;
	p->repetition = (int)index;
}

/* ---- a reader's share of a phase ---- */

/* Room for n items' offsets and lengths. -1 on allocation failure. */
static int plan_share_alloc(struct plan_share *s, uint64_t n)
{
	s->n = n;
	if (n == 0)
		return 0;
	s->offset = calloc(n, sizeof *s->offset);
	s->length = calloc(n, sizeof *s->length);
	return s->offset && s->length ? 0 : -1;
}

void plan_share_free(struct plan_share *s)
{
	if (s == NULL)
		return;
	free(s->file);
	free(s->offset);
	free(s->length);
	free(s->size);
	memset(s, 0, sizeof *s);
}

int plan_share_per_reader(const struct topo_map *t, int rank, const struct cfg_dataset *d,
			  const struct plan_rule *r, struct plan_share *s)
{
	uint64_t n;
	memset(s, 0, sizeof *s);
	if (plan_files(t, rank, d->nfiles, r, &s->file, &n) != 0 || plan_share_alloc(s, n) != 0) {
		plan_share_free(s);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++)
		s->length[i] = dataset_file_size(d, s->file[i]);
	return 0;
}

/* Every file in the order's order: the same shuffle on every reader, so that all read the same
 * file at the same time. */
static int plan_share_order(uint64_t *file, uint64_t n, enum cfg_order order, uint64_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		file[i] = order == CFG_ORDER_REVERSE ? n - 1 - i : i;
	if (order != CFG_ORDER_RANDOM)
		return 0;
	struct topo_map one = {1, 1, (int[]){0}, (int[]){0}, (int[]){1}};
	const struct plan_rule rule = {1, CFG_DECOMP_BLOCK, CFG_ORDER_RANDOM, seed, 0};
	uint64_t *shuffled = NULL, m;
	if (plan_files(&one, 0, n, &rule, &shuffled, &m) != 0)
		return -1;
	if (n > 0)
		memcpy(file, shuffled, n * sizeof *shuffled);
	free(shuffled);
	return 0;
}

int plan_share_shared(const struct cfg_dataset *d, enum cfg_order order, uint64_t seed,
		      uint64_t readers, int64_t reader, struct plan_share *s)
{
	uint64_t n = d->nfiles;
	memset(s, 0, sizeof *s);
	if (reader < 0)
		return 0;
	if (plan_share_alloc(s, n) != 0 || (s->file = malloc(n * sizeof *s->file)) == NULL ||
	    (s->size = malloc(n * sizeof *s->size)) == NULL ||
	    plan_share_order(s->file, n, order, seed) != 0) {
		plan_share_free(s);
		return -1;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t size = dataset_file_size(d, s->file[i]), first, len;
		plan_block((size + PLAN_SLICE_ALIGN - 1) / PLAN_SLICE_ALIGN, readers, (uint64_t)reader,
			   &first, &len);
		first *= PLAN_SLICE_ALIGN;
		len = first >= size ? 0 : first + len * PLAN_SLICE_ALIGN > size ? size - first
										 : len * PLAN_SLICE_ALIGN;
		s->size[i] = size;
		s->offset[i] = first;
		s->length[i] = len;
	}
	return 0;
}

uint64_t plan_pilot_limit(uint64_t pilot, uint64_t readers, int shared)
{
	if (readers == 0)
		readers = 1;
	uint64_t files = pilot > 0 ? pilot : 2 * readers > 8 ? 2 * readers : 8;
	if (shared)
		return files;
	uint64_t each = files / readers + (files % readers != 0);
	return each > 0 ? each : 1;
}

void plan_share_sample(struct plan_share *s, uint64_t most)
{
	if (s->n > most)
		s->n = most;
}

/* qsort_r's comparison of two item numbers by their names. */
static int plan_cmp_names(const void *a, const void *b, void *arg)
{
	const struct plan_names *nm = arg;
	return strcmp(nm->names + *(const uint64_t *)a * nm->len,
		      nm->names + *(const uint64_t *)b * nm->len);
}

/* Put v's items in the order given by perm (perm[k]: the item that goes to place k). */
static void plan_permute(uint64_t *v, const uint64_t *perm, uint64_t *tmp, uint64_t n)
{
	if (v == NULL)
		return;
	for (uint64_t k = 0; k < n; k++)
		tmp[k] = v[perm[k]];
	memcpy(v, tmp, n * sizeof *v);
}

int plan_share_sort_by_name(struct plan_share *s, struct plan_names *nm, int reverse)
{
	uint64_t n = s->n, *perm = malloc(n * sizeof *perm), *tmp = malloc(n * sizeof *tmp);
	char *names = malloc(n * nm->len);
	int rc = -1;
	if (perm == NULL || tmp == NULL || names == NULL)
		goto out;
	for (uint64_t k = 0; k < n; k++)
		perm[k] = k;
	qsort_r(perm, n, sizeof *perm, plan_cmp_names, nm);
	if (reverse)
		plan_reverse(perm, n);
	plan_permute(s->file, perm, tmp, n);
	plan_permute(s->offset, perm, tmp, n);
	plan_permute(s->length, perm, tmp, n);
	plan_permute(s->size, perm, tmp, n);
	for (uint64_t k = 0; k < n; k++)
		memcpy(names + k * nm->len, nm->names + perm[k] * nm->len, nm->len);
	free(nm->names);
	nm->names = names;
	names = NULL;
	rc = 0;
out:
	free(perm);
	free(tmp);
	free(names);
	return rc;
}
