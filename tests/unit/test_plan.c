/* test_plan: block decomposition, reader numbering and orderings, a reader's share of a phase
 * (whole files, slices of shared files, sorted by name), without MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "tap.h"

/* A map where node n has sizes[n] ranks, ranks numbered node by node. */
static int make_map(struct topo_map *t, const int *sizes, int nnodes)
{
	int nranks = 0;
	for (int n = 0; n < nnodes; n++)
		nranks += sizes[n];
	t->nranks = nranks;
	t->nnodes = nnodes;
	t->node_of_rank = malloc(sizeof(int) * (size_t)nranks);
	t->local_rank = malloc(sizeof(int) * (size_t)nranks);
	t->node_size = malloc(sizeof(int) * (size_t)nnodes);
	if (!t->node_of_rank || !t->local_rank || !t->node_size)
		return -1;
	for (int n = 0, r = 0; n < nnodes; n++) {
		t->node_size[n] = sizes[n];
		for (int l = 0; l < sizes[n]; l++, r++) {
			t->node_of_rank[r] = n;
			t->local_rank[r] = l;
		}
	}
	return 0;
}

/* Every file read exactly once, loads within one file, the right ranks active per node. */
static int check_cover(const struct topo_map *t, uint64_t nfiles, const struct plan_rule *rule)
{
	int rpn = rule->readers_per_node;
	unsigned char *seen = calloc(nfiles + 1, 1);
	uint64_t least = UINT64_MAX, most = 0;
	int bad = 0;
	int *active = calloc((size_t)t->nnodes, sizeof(int));
	for (int r = 0; r < t->nranks && !bad; r++) {
		uint64_t *files, n;
		if (plan_files(t, r, nfiles, rule, &files, &n) != 0)
			return 0;
		int is_reader = plan_reader_index(t, r, rpn) >= 0;
		active[t->node_of_rank[r]] += is_reader;
		if (is_reader) {
			least = n < least ? n : least;
			most = n > most ? n : most;
		} else if (n != 0) {
			bad = 1;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (files[i] >= nfiles || seen[files[i]]++)
				bad = 1;
		}
		free(files);
	}
	for (uint64_t f = 0; f < nfiles; f++)
		if (seen[f] != 1)
			bad = 1;
	for (int n = 0; n < t->nnodes; n++)
		if (active[n] != (t->node_size[n] < rpn ? t->node_size[n] : rpn))
			bad = 1;
	if (most - least > 1 && rule->shift_use == 0)
		bad = 1; /* shifted phases balance within a node, not across nodes */
	free(seen);
	free(active);
	return !bad;
}

static void test_block(void)
{
	uint64_t first, count, sum = 0, next = 0;
	int contiguous = 1;
	for (uint64_t p = 0; p < 7; p++) {
		plan_block(100, 7, p, &first, &count);
		contiguous &= first == next;
		next = first + count;
		sum += count;
	}
	ok(contiguous && sum == 100, "plan_block: 100 over 7 contiguous and complete");
	plan_block(100, 7, 0, &first, &count);
	ok(first == 0 && count == 15, "plan_block: the first parts take the remainder");
	plan_block(3, 10, 5, &first, &count);
	ok(count == 0, "plan_block: more parts than items leaves some empty");
}

static void test_many_combinations(void)
{
	int combos = 0, good = 0;
	static const uint64_t nfiles[] = {1, 2, 3, 7, 16, 100, 1001};
	for (int nnodes = 1; nnodes <= 5; nnodes++)
		for (int rpn = 1; rpn <= 4; rpn++)
			for (int per = 1; per <= 4; per++)
				for (size_t f = 0; f < sizeof nfiles / sizeof *nfiles; f++)
					for (int o = 0; o < 6; o++) {
						int sizes[5];
						struct topo_map t;
						for (int n = 0; n < nnodes; n++)
							sizes[n] = per + (n % 2); /* uneven nodes too */
						if (make_map(&t, sizes, nnodes) != 0)
							continue;
						combos++;
						struct plan_rule rule = {rpn, (enum cfg_decomp)(o / 3),
									 (enum cfg_order)(o % 3), 42, 0};
						good += check_cover(&t, nfiles[f], &rule);
						rule.shift_use = 1 + (uint64_t)o;
						combos++;
						good += check_cover(&t, nfiles[f], &rule);
						topo_map_free(&t);
					}
	ok(combos > 1000 && good == combos,
	   "decomposition: %d of %d (files, nodes, ranks per node, readers, order, block|cyclic) "
	   "combinations "
	   "read each file once with loads within one",
	   good, combos);
}

static void test_reader_numbering(void)
{
	int sizes[] = {4, 4, 4};
	struct topo_map t;
	if (make_map(&t, sizes, 3) != 0)
		return;
	ok(plan_reader_count(&t, 2) == 6, "2 readers on 3 nodes of 4 ranks: 6 readers");
	ok(plan_reader_index(&t, 4, 2) == 2 && plan_reader_index(&t, 5, 2) == 3 &&
	       plan_reader_index(&t, 6, 2) == -1,
	   "readers numbered node by node; local rank 2 waits with 2 readers per node");
	ok(plan_min_node_size(&t) == 4, "min node size");
	topo_map_free(&t);
}

static void test_orders(void)
{
	int sizes[] = {1};
	struct topo_map t;
	uint64_t *a, *b, *c, na, nb, nc;
	if (make_map(&t, sizes, 1) != 0)
		return;
	struct plan_rule rule = {1, CFG_DECOMP_BLOCK, CFG_ORDER_SORTED, 1, 0};
	plan_files(&t, 0, 50, &rule, &a, &na);
	ok(na == 50 && a[0] == 0 && a[49] == 49, "sorted order ascends");
	free(a);
	rule.order = CFG_ORDER_REVERSE;
	plan_files(&t, 0, 50, &rule, &a, &na);
	ok(na == 50 && a[0] == 49 && a[49] == 0, "reverse order descends");
	free(a);
	rule.order = CFG_ORDER_RANDOM;
	rule.seed = 7;
	plan_files(&t, 0, 50, &rule, &a, &na);
	plan_files(&t, 0, 50, &rule, &b, &nb);
	rule.seed = 8;
	plan_files(&t, 0, 50, &rule, &c, &nc);
	int perm = 1, moved = 0;
	unsigned char seen[50] = {0};
	for (int i = 0; i < 50; i++) {
		perm &= a[i] < 50 && !seen[a[i]]++;
		moved += a[i] != (uint64_t)i;
	}
	ok(perm && moved > 10, "random order is a real permutation");
	ok(memcmp(a, b, sizeof(uint64_t) * 50) == 0, "random order reproducible from the seed");
	ok(memcmp(a, c, sizeof(uint64_t) * 50) != 0, "another seed, another order");
	free(a), free(b), free(c);
	topo_map_free(&t);
}

static void test_even_map(void)
{
	struct topo_map t;
	ok(plan_even_map(10, 4, &t) == 0, "even map built");
	ok(t.node_size[0] == 3 && t.node_size[1] == 3 && t.node_size[2] == 2 && t.node_size[3] == 2,
	   "10 ranks on 4 nodes: 3 3 2 2");
	ok(t.node_of_rank[3] == 1 && t.local_rank[3] == 0 && t.node_of_rank[9] == 3,
	   "ranks placed in blocks");
	topo_map_free(&t);
}

static void test_phase_enumeration(void)
{
	struct experiment x;
	memset(&x, 0, sizeof x);
	struct cfg_dataset ds[2];
	x.datasets = ds;
	x.ndatasets = 2;
	x.nreaders = 3;
	x.readers_per_node[0] = 1, x.readers_per_node[1] = 2, x.readers_per_node[2] = 4;
	x.nbackends = 1;
	x.ntransfers = 2;
	x.transfer_sizes[0] = 1, x.transfer_sizes[1] = 2;
	x.norders = 1;
	x.npatterns = 1;
	x.ndecomps = 1;
	x.nadvices = 1;
	x.repetitions = 2;
	uint64_t n = plan_phase_count(&x);
	ok(n == 24, "2 reps x 2 data sets x 3 readers x 2 transfers = 24 phases");
	int seen[2][2][3][2] = {{{{0}}}}, once = 1;
	for (uint64_t i = 0; i < n; i++) {
		struct plan_point p;
		plan_phase_at(&x, i, &p);
		int rpn = x.readers_per_node[p.at[SWEEP_READERS]];
		int r = rpn == 1 ? 0 : rpn == 2 ? 1 : 2;
		seen[p.repetition][p.dataset][r][x.transfer_sizes[p.at[SWEEP_TRANSFER]] - 1]++;
	}
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int c = 0; c < 3; c++)
				for (int d = 0; d < 2; d++)
					once &= seen[a][b][c][d] == 1;
	ok(once, "every sweep point appears exactly once");
	struct plan_point last;
	plan_phase_at(&x, 23, &last);
	ok(last.repetition == 1 && last.dataset == 1, "repetition is the outermost loop");
	/* plan_dataset_use is O(1): the same count as looking at every phase before */
	int same = 1;
	for (uint64_t i = 0; i < n; i++) {
		struct plan_point me, p;
		uint64_t use = 0;
		plan_phase_at(&x, i, &me);
		for (uint64_t j = 0; j <= i; j++) {
			plan_phase_at(&x, j, &p);
			use += p.dataset == me.dataset;
		}
		same &= plan_dataset_use(&x, i) == use;
	}
	ok(same, "plan_dataset_use: the u-th phase on its data set, counted without a scan");
}

static void test_cyclic(void)
{
	int sizes[] = {2, 2};
	struct topo_map t;
	uint64_t *a, n;
	if (make_map(&t, sizes, 2) != 0)
		return;
	struct plan_rule rule = {2, CFG_DECOMP_CYCLIC, CFG_ORDER_SORTED, 1, 0};
	plan_files(&t, 1, 10, &rule, &a, &n);
	ok(n == 3 && a[0] == 1 && a[1] == 5 && a[2] == 9, "cyclic: reader 1 of 4 takes 1, 5, 9");
	free(a);
	topo_map_free(&t);
}

/* cache: shift: in the u-th phase on a data set, no file is read on the node that generated
 * it (u = 1) or read it in the phase before (u - 1). */
static void test_shift(void)
{
	int sizes[] = {3, 2, 3};
	struct topo_map t;
	if (make_map(&t, sizes, 3) != 0)
		return;
	const uint64_t nfiles = 101;
	int *last = malloc(nfiles * sizeof *last), good = 1;
	for (uint64_t f = 0; f < nfiles; f++)
		last[f] = t.node_of_rank[plan_generator_rank(nfiles, t.nranks, f)];
	for (uint64_t use = 1; use <= 4; use++) {
		struct plan_rule rule = {2, CFG_DECOMP_BLOCK, CFG_ORDER_SORTED, 1, use};
		int *now = malloc(nfiles * sizeof *now);
		for (uint64_t f = 0; f < nfiles; f++)
			now[f] = -1;
		for (int r = 0; r < t.nranks; r++) {
			uint64_t *a, n;
			plan_files(&t, r, nfiles, &rule, &a, &n);
			for (uint64_t i = 0; i < n; i++)
				now[a[i]] = t.node_of_rank[r];
			free(a);
		}
		for (uint64_t f = 0; f < nfiles; f++)
			good &= now[f] >= 0 && now[f] != last[f];
		free(last);
		last = now;
	}
	free(last);
	ok(good, "shift: 4 phases in a row, every file read on another node than the one before");
	ok(plan_generator_rank(10, 4, 0) == 0 && plan_generator_rank(10, 4, 2) == 0 &&
	       plan_generator_rank(10, 4, 3) == 1 && plan_generator_rank(10, 4, 9) == 3,
	   "generator rank inverts the block decomposition (10 files over 4 ranks: 3 3 2 2)");
	topo_map_free(&t);
}

/* A data set of n files of size bytes each. */
static struct cfg_dataset fixed_dataset(uint64_t n, uint64_t size)
{
	struct cfg_dataset d;
	memset(&d, 0, sizeof d);
	snprintf(d.name, sizeof d.name, "d");
	d.sizes = CFG_SIZES_FIXED;
	d.file_size = size;
	d.nfiles = n;
	d.total_size = n * size;
	return d;
}

static void test_share_per_reader(void)
{
	struct topo_map t;
	const int sizes[] = {2, 2};
	struct cfg_dataset d = fixed_dataset(11, 3000);
	const struct plan_rule rule = {2, CFG_DECOMP_CYCLIC, CFG_ORDER_REVERSE, 7, 0};
	int same = 1, covered = 0;
	if (make_map(&t, sizes, 2) != 0)
		return;
	for (int r = 0; r < t.nranks; r++) {
		struct plan_share s;
		uint64_t *files, n;
		if (plan_share_per_reader(&t, r, &d, &rule, &s) != 0 ||
		    plan_files(&t, r, d.nfiles, &rule, &files, &n) != 0) {
			same = 0;
			continue;
		}
		same &= s.n == n && s.size == NULL && (n == 0 || memcmp(s.file, files, n * 8) == 0);
		for (uint64_t i = 0; i < s.n; i++)
			same &= s.offset[i] == 0 && s.length[i] == 3000;
		covered += (int)s.n;
		free(files);
		plan_share_free(&s);
	}
	ok(same && covered == 11, "per-reader share: plan_files' files, whole, in its order");
	topo_map_free(&t);
}

/* plan --pilot: the sample each reader keeps, and that it is the head of its share as read */
static void test_pilot_sample(void)
{
	ok(plan_pilot_limit(0, 1, 0) == 8 && plan_pilot_limit(0, 2, 0) == 4 &&
	   plan_pilot_limit(0, 400, 0) == 2, "pilot default: 2 files per reader, at least 8 a phase");
	ok(plan_pilot_limit(10, 4, 0) == 3 && plan_pilot_limit(3, 8, 0) == 1 &&
	   plan_pilot_limit(8, 0, 0) == 8, "pilot N: spread over the readers, at least one each");
	ok(plan_pilot_limit(5, 4, 1) == 5 && plan_pilot_limit(0, 4, 1) == 8,
	   "pilot, pattern shared: N files, every reader a slice of each");
	struct topo_map t;
	const int sizes[] = {2};
	struct cfg_dataset d = fixed_dataset(20, 100);
	const struct plan_rule rule = {2, CFG_DECOMP_BLOCK, CFG_ORDER_RANDOM, 3, 0};
	struct plan_share s;
	uint64_t head[3];
	if (make_map(&t, sizes, 1) != 0)
		return;
	int same = plan_share_per_reader(&t, 1, &d, &rule, &s) == 0 && s.n == 10;
	if (same)
		memcpy(head, s.file, sizeof head);
	plan_share_sample(&s, 3);
	same &= s.n == 3 && memcmp(head, s.file, sizeof head) == 0;
	plan_share_sample(&s, 5);
	ok(same && s.n == 3, "the sample is the share's first files, in its order; never grows");
	plan_share_free(&s);
	topo_map_free(&t);
}

static void test_share_shared(void)
{
	struct cfg_dataset d = fixed_dataset(5, 10000);
	uint64_t bytes[5] = {0}, order0[5];
	int aligned = 1, same_order = 1;
	for (int64_t r = 0; r < 3; r++) {
		struct plan_share s;
		if (plan_share_shared(&d, CFG_ORDER_RANDOM, 42, 3, r, &s) != 0 || s.n != 5) {
			ok(0, "shared share of reader %lld", (long long)r);
			return;
		}
		for (uint64_t i = 0; i < 5; i++) {
			if (r == 0)
				order0[i] = s.file[i];
			same_order &= s.file[i] == order0[i];
			aligned &= s.offset[i] % PLAN_SLICE_ALIGN == 0 && s.size[i] == 10000;
			aligned &= s.offset[i] + s.length[i] <= 10000;
			bytes[s.file[i]] += s.length[i];
		}
		plan_share_free(&s);
	}
	int whole = 1, perm = 1;
	for (int i = 0; i < 5; i++) {
		whole &= bytes[i] == 10000;
		for (int j = 0; j < i; j++)
			perm &= order0[i] != order0[j];
	}
	ok(whole && aligned, "shared share: the readers' slices cover every file once, cut at %d",
	   PLAN_SLICE_ALIGN);
	ok(same_order && perm, "shared share: one shuffle, the same on every reader");
	struct plan_share s;
	ok(plan_share_shared(&d, CFG_ORDER_REVERSE, 1, 3, 1, &s) == 0 && s.n == 5 &&
		   s.file[0] == 4 && s.file[4] == 0 && s.offset[0] == 4096 && s.length[0] == 4096,
	   "shared share: reverse order, reader 1's middle slice");
	plan_share_free(&s);
	ok(plan_share_shared(&d, CFG_ORDER_SORTED, 1, 3, -1, &s) == 0 && s.n == 0 && s.file == NULL,
	   "shared share: a rank that waits gets nothing");
}

static void test_share_sort_by_name(void)
{
	static const char *const names[] = {"c", "a", "e", "b", "d"};
	for (int reverse = 0; reverse < 2; reverse++) {
		struct plan_share s = {5, malloc(40), malloc(40), malloc(40), NULL};
		struct plan_names nm = {malloc(5 * 2), 2};
		int good = s.file && s.offset && s.length && nm.names;
		for (uint64_t i = 0; good && i < 5; i++) {
			s.file[i] = 10 + i;
			s.offset[i] = 100 + i;
			s.length[i] = 1000 + i;
			memcpy(nm.names + i * 2, names[i], 2);
		}
		good = good && plan_share_sort_by_name(&s, &nm, reverse) == 0;
		for (uint64_t k = 0; good && k < 5; k++) {
			uint64_t i = s.file[k] - 10; /* the item that came to place k */
			good = s.offset[k] == 100 + i && s.length[k] == 1000 + i &&
			       strcmp(nm.names + k * 2, names[i]) == 0 &&
			       nm.names[k * 2] == (reverse ? 'e' - (char)k : 'a' + (char)k);
		}
		ok(good && s.size == NULL, "sort by name%s: items and names move together",
		   reverse ? ", reversed" : "");
		plan_share_free(&s);
		free(nm.names);
	}
}

int main(void)
{
	test_share_per_reader();
	test_pilot_sample();
	test_share_shared();
	test_share_sort_by_name();
	test_cyclic();
	test_shift();
	test_block();
	test_many_combinations();
	test_reader_numbering();
	test_orders();
	test_even_map();
	test_phase_enumeration();
	return tap_done();
}
