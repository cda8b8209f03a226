/* calibrate_fs: the read figure through the file system (calibrate --through-fs DATASET): what
 * a node's reads of the data cross (its link, the servers, the file system's client), not only
 * MPI between nodes. Step by step 1, 2, 4, ... readers per node (each node's first ranks), all
 * nodes at once, read files of the data set, each reader its own, with O_DIRECT (buffered
 * after POSIX_FADV_DONTNEED where it is refused); a node's rate in a repetition is its readers'
 * bytes over the time from its first reader's start to its last reader's end. The readers
 * double while the mean node rate rises (calib_fs_rising); the figure is the step that read
 * fastest. */
#include "cmd/calibrate_fs.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/calibrate_read.h"
#include "dataset/dataset.h"
#include "run/guard.h"
#include "util/stop.h"

/* What one rank did in one repetition, as rank 0 gathers it. */
struct calfs_rank {
	double t0, t1;  /* its reads' start and end on its node's clock; NaN: it did not read */
	double bytes;
	int32_t node;
	int32_t err;    /* errno of a failed read, 0 */
	int32_t stop;   /* a signal arrived */
};

static const struct cfg_dataset *calfs_find(const struct experiment *x, const char *name)
{
	for (size_t i = 0; i < x->ndatasets; i++)
		if (strcmp(x->datasets[i].name, name) == 0)
			return &x->datasets[i];
	return NULL;
}

int calfs_check(const struct experiment *x, const struct calfs_opts *o, struct pf_err *e)
{
	char dir[CFG_PATH_MAX + CFG_NAME_MAX + 2];
	struct manifest m;
	struct pf_err why = {0};
	if (o->dataset == NULL)
		return 0;
	const struct cfg_dataset *d = calfs_find(x, o->dataset);
	if (d == NULL)
		return pf_fail(e, PF_USAGE, "calibrate: --through-fs: %s has no data set '%s'",
			       x->source, o->dataset);
	if (d->sizes != CFG_SIZES_FIXED || d->layout.kind == CFG_LAYOUT_HASHED)
		return pf_fail(e, PF_USAGE, "calibrate: --through-fs: data set '%s' of %s: its "
			       "files must be of one size and not hashed", o->dataset, x->source);
	if (dataset_dir(x, d, dir, sizeof dir) != 0 || manifest_read(dir, &m, &why) != 0 ||
	    !m.complete)
		return pf_fail(e, PF_USAGE, "calibrate: --through-fs: data set '%s' of %s is not "
			       "generated (run pfsread generate first)%s%s", o->dataset, x->source,
			       why.msg[0] ? ": " : "", why.msg);
	return 0;
}

/* Read up to want bytes of one file into buf; *got adds what came. Returns 0 or an errno. */
static int calfs_file(const char *path, uint64_t want, uint64_t transfer, char *buf,
		      uint64_t *got)
{
	int direct;
	int fd = calrd_open(path, &direct);
	if (fd < 0)
		return errno;
	int64_t n = calrd_all(fd, buf, want, transfer);
	int err = n < 0 ? (int)-n : 0;
	if (n > 0)
		*got += (uint64_t)n;
	if (close(fd) != 0 && err == 0)
		err = errno;
	return err;
}

/* One reader's share of one repetition: files first, first + stride, ... until bytes. */
static void calfs_read(const struct experiment *x, const struct cfg_dataset *d, uint64_t first,
		       uint64_t stride, const struct calfs_opts *o, char *buf,
		       struct calfs_rank *me)
{
	char path[CFG_PATH_MAX + 256];
	uint64_t got = 0;
	me->t0 = topology_clock();
	for (uint64_t f = first % d->nfiles, i = 0; got < o->bytes && me->err == 0 && i < d->nfiles;
	     f = (f + stride) % d->nfiles, i++) {
		uint64_t want = o->bytes - got < d->file_size ? o->bytes - got : d->file_size;
		if (dataset_file_path(x, d, f, path, sizeof path) != 0)
			me->err = ENAMETOOLONG;
		else
			me->err = calfs_file(path, want, o->transfer, buf, &got);
	}
	me->t1 = topology_clock();
	me->bytes = (double)got;
}

/* Rank 0: each node's rate in repetition r from every rank's records of a step, reps to a
 * rank (NaN for a node whose read failed); the first failure into note. */
static void calfs_rates(const struct calfs_rank *all, int nranks, int reps, int r, int nnodes,
			double *rate, char *note, size_t nlen)
{
	for (int n = 0; n < nnodes; n++) {
		double t0 = INFINITY, t1 = -INFINITY, bytes = 0;
		int bad = 0;
		for (int i = 0; i < nranks; i++) {
			const struct calfs_rank *a = &all[(size_t)i * (size_t)reps + (size_t)r];
			if (a->node != n || !isfinite(a->t0))
				continue;
			if (a->err != 0 && note[0] == '\0')
				snprintf(note, nlen, "node %d: a read through the file system failed: "
					 "%s", n, strerror(a->err));
			bad |= a->err != 0;
			t0 = fmin(t0, a->t0);
			t1 = fmax(t1, a->t1);
			bytes += a->bytes;
		}
		rate[n] = !bad && t1 > t0 && bytes > 0 ? bytes / (t1 - t0) / 1e6 : NAN;
	}
}

/* The state of a measurement, shared by its steps. */
struct calfs_run {
	const struct experiment *x;
	const struct cfg_dataset *d;
	const struct calfs_opts *o;
	const struct topology *t;
	int per_node;             /* the most readers every node has */
	char *buf;
	struct calfs_rank *all;   /* [nranks], rank 0 */
	double *one;              /* [nnodes]: one repetition's node rates, rank 0 */
	double *step_reps;        /* [CALIB_FS_STEPS][nnodes x reps], rank 0 */
	char *note;
	size_t nlen;
	int stopped;
	struct guard start;       /* a repetition's start: the readers' barrier, short naps */
	struct guard idle;        /* a step's end: long naps (GUARD_NAP_IDLE_S) */
};

/* One step of k readers per node, every repetition; rank 0 keeps the rates. The step's
 * readers alone meet before each repetition; the other ranks wait for the step's end napping
 * (s->idle), so that a node with fewer cores than ranks does not measure its idle ranks. */
static int calfs_step(struct calfs_run *s, int step, int k, struct pf_err *e)
{
	const struct topology *t = s->t;
	const int reps = s->o->reps, reading = t->local_rank < k;
	uint64_t stride = (uint64_t)t->nnodes * (uint64_t)s->per_node;
	uint64_t id = (uint64_t)t->node * (uint64_t)s->per_node + (uint64_t)t->local_rank;
	struct calfs_rank mine[CALIB_REPS_MAX];
	MPI_Comm readers = MPI_COMM_NULL;
	MPI_Request q;
	int rc = 0;
	if (MPI_Comm_split(MPI_COMM_WORLD, reading ? 0 : MPI_UNDEFINED, t->rank, &readers) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Comm_split failed");
	for (int r = 0; r < reps && rc == 0; r++) {
		/* every repetition of every step starts on files no reader read before */
		uint64_t first = id + stride * (uint64_t)(step * reps + r) *
					      ((s->o->bytes + s->d->file_size - 1) / s->d->file_size);
		mine[r] = (struct calfs_rank){NAN, NAN, 0, t->node, 0, 0};
		if (reading)
			rc = guard_barrier(&s->start, t, readers, 0, "calibrate", e);
		if (reading && rc == 0)
			calfs_read(s->x, s->d, first, stride, s->o, s->buf, &mine[r]);
		mine[r].stop = stop_signal() != 0;
	}
	if (readers != MPI_COMM_NULL && MPI_Comm_free(&readers) != MPI_SUCCESS && rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Comm_free failed");
	if (rc != 0)
		return -1;
	int size = (int)sizeof mine[0] * reps;
	if (MPI_Igather(mine, size, MPI_BYTE, s->all, size, MPI_BYTE, 0, MPI_COMM_WORLD, &q) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Igather failed");
	if (guard_wait(&s->idle, t, MPI_COMM_WORLD, &q, 1, 0, "calibrate", e) != 0)
		return -1;
	if (t->rank != 0)
		return 0;
	double *rate = s->step_reps + (size_t)step * (size_t)t->nnodes * (size_t)reps;
	for (int r = 0; r < reps; r++) {
		calfs_rates(s->all, t->nranks, reps, r, t->nnodes, s->one, s->note, s->nlen);
		for (int n = 0; n < t->nnodes; n++)
			rate[(size_t)n * (size_t)reps + (size_t)r] = s->one[n];
	}
	for (size_t i = 0; i < (size_t)t->nranks * (size_t)reps; i++)
		s->stopped |= s->all[i].stop;
	return 0;
}

/* Rank 0: step i's figure, the mean over nodes of each node's median. */
static double calfs_step_rate(const struct calfs_run *s, int i)
{
	size_t reps = (size_t)s->o->reps;
	const double *v = s->step_reps + (size_t)i * (size_t)s->t->nnodes * reps;
	double sum = 0;
	int k = 0;
	for (int n = 0; n < s->t->nnodes; n++) {
		struct calib_spread sp;
		calib_spread_of(v + (size_t)n * reps, reps, &sp);
		if (isfinite(sp.median)) {
			sum += sp.median;
			k++;
		}
	}
	return k == s->t->nnodes ? sum / k : NAN; /* a node without a figure: no step figure */
}

/* Rank 0: c's fs_* fields from the steps measured. */
static int calfs_fill(const struct calfs_run *s, int nsteps, int flat, struct calib_data *c,
		      struct pf_err *e)
{
	size_t per = (size_t)s->t->nnodes * (size_t)s->o->reps;
	c->fs_nsteps = nsteps;
	c->fs_flat = flat;
	c->fs_bytes = s->o->bytes;
	for (int i = 0; i < nsteps; i++)
		c->fs_step[i] = (struct calib_fs_step){1 << i, calfs_step_rate(s, i)};
	int best = calib_fs_best(c);
	c->fs_readers = best >= 0 ? c->fs_step[best].readers : 0;
	c->fs_dataset = strdup(s->o->dataset);
	c->fs_reps_MBps = malloc(per * sizeof *c->fs_reps_MBps);
	if (c->fs_dataset == NULL || c->fs_reps_MBps == NULL)
		return pf_fail(e, PF_RUNTIME, "calibrate: out of memory");
	memcpy(c->fs_reps_MBps, s->step_reps + (size_t)(best >= 0 ? best : 0) * per,
	       per * sizeof *c->fs_reps_MBps);
	return 0;
}

/* Every rank: the steps, doubling the readers while rank 0 sees the rate rise. */
static int calfs_steps(struct calfs_run *s, struct calib_data *c, struct pf_err *e)
{
	double best = NAN;
	int step = 0, go = 1, flat = 0;
	for (; go && step < CALIB_FS_STEPS && (1 << step) <= s->per_node; step++) {
		if (calfs_step(s, step, 1 << step, e) != 0)
			return -1;
		if (s->t->rank == 0) {
			double now = calfs_step_rate(s, step);
			go = !s->stopped && calib_fs_rising(best, now);
			flat = !s->stopped && isfinite(now) && !go;
			best = isfinite(best) && !(now > best) ? best : now;
		}
		MPI_Request q;
		if (MPI_Ibcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD, &q) != MPI_SUCCESS)
			return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Ibcast failed");
		if (guard_wait(&s->idle, s->t, MPI_COMM_WORLD, &q, 1, 0, "calibrate", e) != 0)
			return -1;
	}
	if (s->t->rank == 0 && !s->stopped)
		return calfs_fill(s, step, flat, c, e);
	return 0;
}

int calfs_measure(const struct experiment *x, const struct calfs_opts *o,
		  const struct topology *t, struct calib_data *c, char *note, size_t nlen,
		  struct pf_err *e)
{
	struct calfs_run s = {.x = x, .d = calfs_find(x, o->dataset), .o = o, .t = t, .note = note,
			      .nlen = nlen, .idle = {.nap_max_s = GUARD_NAP_IDLE_S}};
	void *buf = NULL;
	int rc = 0, ok = 1, all_ok = 0;
	if (MPI_Allreduce(&t->local_size, &s.per_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "calibrate: MPI_Allreduce failed");
	if (posix_memalign(&buf, 4096, o->transfer) != 0)
		ok = 0;
	s.buf = buf;
	if (t->rank == 0) {
		s.all = calloc((size_t)t->nranks * (size_t)o->reps, sizeof *s.all);
		s.one = calloc((size_t)t->nnodes, sizeof *s.one);
		s.step_reps = calloc((size_t)CALIB_FS_STEPS * (size_t)t->nnodes * (size_t)o->reps,
				     sizeof *s.step_reps);
		ok &= s.all != NULL && s.one != NULL && s.step_reps != NULL;
	}
	if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: MPI_Allreduce failed");
	else if (!all_ok || s.d == NULL)
		rc = pf_fail(e, PF_RUNTIME, "calibrate: out of memory for the read through the "
			     "file system");
	if (rc == 0)
		rc = calfs_steps(&s, c, e);
	free(buf);
	free(s.all);
	free(s.one);
	free(s.step_reps);
	return rc;
}
