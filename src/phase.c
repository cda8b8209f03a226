/* phase: one timed phase. Everything that is not the measured reads (planning, allocation,
 * cache preparation, agreeing on the outcome) happens outside the two barriers. */
#include "pfsread/phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfsread/cache.h"
#include "pfsread/dataset.h"
#include "pfsread/plan.h"

#define PHASE_MPI(call)                                                                 \
	do {                                                                            \
		int phase_rc_ = (call);                                                 \
		if (phase_rc_ != MPI_SUCCESS) {                                         \
			rc = pf_fail(e, PF_RUNTIME, "phase %u: %s failed (MPI error %d)", \
				     s->index, #call, phase_rc_);                       \
			goto out;                                                       \
		}                                                                       \
	} while (0)

static void phase_fill_info(const struct phase_spec *s, struct phase_info *p)
{
	memset(p, 0, sizeof *p);
	p->index = s->index;
	snprintf(p->dataset, sizeof p->dataset, "%s", s->ds->name);
	p->file_size = s->ds->file_size;
	p->nfiles = s->ds->nfiles;
	p->readers_per_node = s->readers_per_node;
	snprintf(p->backend, sizeof p->backend, "%s", s->be->name);
	p->transfer_size = s->transfer_size;
	snprintf(p->order, sizeof p->order, "%s", cfg_order_name(s->order));
	snprintf(p->cache, sizeof p->cache, "%s", cfg_cache_name(s->x->cache));
	p->repetition = s->repetition;
	p->seed = s->x->seed;
}

/* Before the opening barrier: empty the cache the way the experiment asks. */
static int phase_prepare_cache(const struct phase_spec *s, const struct topology *t,
			       const uint64_t *files, uint64_t nfiles, struct pf_err *e)
{
	char path[CFG_PATH_MAX + 64];
	if (s->x->cache == CFG_CACHE_DROP && t->local_rank == 0)
		return cache_drop_node(e);
	if (s->x->cache != CFG_CACHE_FADVISE)
		return 0;
	for (uint64_t i = 0; i < nfiles; i++) {
		if (dataset_file_path(s->x, s->ds, files[i], path, sizeof path) != 0)
			return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
		if (cache_fadvise_file(path, e) != 0)
			return -1;
	}
	return 0;
}

/* Open, read the whole file with the transfer size, close; times on the common clock. */
static int phase_read_file(const struct phase_spec *s, const struct topology *t, uint64_t file,
			   void *buf, struct file_rec *r, double *open_s, double *read_s,
			   struct pf_err *e)
{
	char path[CFG_PATH_MAX + 64];
	struct bfile f = {.fd = -1, .priv = NULL, .path = path};
	uint64_t size = s->ds->file_size, off = 0;
	int rc;
	if (dataset_file_path(s->x, s->ds, file, path, sizeof path) != 0)
		return pf_fail(e, PF_RUNTIME, "%s: path too long", s->x->root);
	r->file = file;
	r->rank = t->rank;
	r->open_start = topology_now(t);
	rc = s->be->open(path, &f);
	if (rc != 0) {
		r->read_end = r->close_end = r->open_start;
		return pf_fail_errno(e, rc, "%s: cannot open", path);
	}
	double opened = topology_now(t);
	while (off < size) {
		size_t want = size - off < s->transfer_size ? (size_t)(size - off) : s->transfer_size;
		size_t got = 0;
		rc = s->be->read(&f, buf, want, off, &got);
		if (rc != 0 || got == 0)
			break;
		off += got;
	}
	r->read_end = topology_now(t);
	int crc = s->be->close(&f);
	r->close_end = topology_now(t);
	r->bytes = off;
	*open_s += opened - r->open_start;
	*read_s += r->read_end - opened;
	if (rc != 0)
		return pf_fail_errno(e, rc, "%s: read failed at offset %llu", path,
				     (unsigned long long)off);
	if (off != size)
		return pf_fail(e, PF_RUNTIME, "%s: short file: %llu bytes, expected %llu", path,
			       (unsigned long long)off, (unsigned long long)size);
	if (crc != 0)
		return pf_fail_errno(e, crc, "%s: close failed", path);
	return 0;
}

/* The timed part: this rank's files, in plan order. Stops at the first failure so that the
 * rank still reaches the closing barrier. */
static int phase_read_share(const struct phase_spec *s, const struct topology *t,
			    const uint64_t *files, void *buf, struct phase_output *o,
			    struct pf_err *e)
{
	double open_s = 0, read_s = 0;
	int rc = 0;
	for (uint64_t i = 0; i < o->nfiles && rc == 0; i++) {
		struct file_rec *r = &o->files[i];
		rc = phase_read_file(s, t, files[i], buf, r, &open_s, &read_s, e);
		o->me.bytes += r->bytes;
		o->me.files++;
		o->me.close_s += r->close_end - r->read_end;
	}
	o->me.open_s = open_s;
	o->me.read_s = read_s;
	if (o->me.files > 0) {
		o->me.start = o->files[0].open_start;
		o->me.end = o->files[o->me.files - 1].close_end;
	}
	o->nfiles = o->me.files;
	return rc;
}

/* After the closing barrier: times relative to the earliest barrier exit, and the phase's
 * outcome (bytes, first start, last end, failure) agreed by all ranks. */
static int phase_agree(const struct phase_spec *s, double opened, int failed,
		       struct phase_output *o, struct pf_err *e)
{
	int rc = 0, any_failed = 0;
	double base, first = o->me.files ? o->me.start : 1e300, last = o->me.files ? o->me.end : -1e300;
	uint64_t bytes = 0;
	PHASE_MPI(MPI_Allreduce(&opened, &base, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&o->me.bytes, &bytes, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
	PHASE_MPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	for (uint64_t i = 0; i < o->nfiles; i++) {
		o->files[i].open_start -= base;
		o->files[i].read_end -= base;
		o->files[i].close_end -= base;
	}
	if (o->me.files > 0) {
		o->me.start -= base;
		o->me.end -= base;
	}
	o->info.bytes = bytes;
	o->info.elapsed_s = last > first ? last - first : 0;
	o->info.bandwidth_MBps = o->info.elapsed_s > 0 ? bytes / o->info.elapsed_s / 1e6 : 0;
	snprintf(o->info.status, sizeof o->info.status, "%s", any_failed ? "failed" : "complete");
	if (any_failed && !failed)
		rc = -1; /* another rank failed: that rank says why */
out:
	return rc;
}

int phase_run(const struct phase_spec *s, const struct topology *t, void *buf, size_t buflen,
	      struct phase_output *o, struct pf_err *e)
{
	int rc = 0, failed = 0;
	uint64_t *files = NULL, nfiles = 0;
	memset(o, 0, sizeof *o);
	phase_fill_info(s, &o->info);
	o->me.rank = t->rank;
	o->me.node = t->node;
	o->info.active_readers = (int32_t)plan_reader_count(&t->map, s->readers_per_node);
	if (buflen < s->transfer_size)
		failed = pf_fail(e, PF_RUNTIME, "phase %u: buffer smaller than transfer size", s->index);
	else if (plan_files(&t->map, t->rank, s->ds->nfiles, s->readers_per_node, s->order,
			    s->x->seed, &files, &nfiles) != 0 ||
		 (nfiles > 0 && (o->files = calloc(nfiles, sizeof *o->files)) == NULL))
		failed = pf_fail(e, PF_RUNTIME, "phase %u: out of memory", s->index);
	o->me.active = plan_reader_index(&t->map, t->rank, s->readers_per_node) >= 0;
	o->nfiles = failed ? 0 : nfiles;
	if (!failed && phase_prepare_cache(s, t, files, nfiles, e) != 0)
		failed = -1;

	PHASE_MPI(MPI_Barrier(MPI_COMM_WORLD));
	double opened = topology_now(t);
	if (!failed && phase_read_share(s, t, files, buf, o, e) != 0)
		failed = -1;
	PHASE_MPI(MPI_Barrier(MPI_COMM_WORLD));

	rc = phase_agree(s, opened, failed != 0, o, e);
	if (failed)
		rc = -1;
out:
	free(files);
	return rc;
}

void phase_output_free(struct phase_output *o)
{
	free(o->files);
	o->files = NULL;
	o->nfiles = 0;
}
