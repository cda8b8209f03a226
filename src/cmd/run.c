/* run: the run command, from a loaded experiment to a closed results file and a printed table.
 * Checks everything it can (topology, backends, cache, data sets) before any timed read. */
#include "cmd/run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/locks.h"
#include "cmd/resume.h"
#include "cmd/run_check.h"
#include "cmd/run_steps.h"
#include "run/backend.h"
#include "run/budget.h"
#include "run/progress.h"
#include "run/cache.h"
#include "dataset/dataset.h"
#include "run/envinfo.h"
#include "run/phase.h"
#include "report/report.h"
#include "results/results.h"
#include "util/space.h"
#include "util/stop.h"
#include "run/topology.h"
#include "util/safe.h"


int run_expand_results_path(const char *pattern, const char *name, const char *jobid,
			    const char *time, char *buf, size_t len)
{
	static const char *const keys[] = {"{name}", "{jobid}", "{time}"};
	const char *values[] = {name, jobid, time};
	size_t used = 0;
	for (const char *p = pattern; *p;) {
		size_t k = 0;
		while (k < 3 && strncmp(p, keys[k], strlen(keys[k])) != 0)
			k++;
		const char *piece = k < 3 ? values[k] : p;
		size_t n = k < 3 ? strlen(values[k]) : 1;
		if (used + n >= len)
			return -1;
		memcpy(buf + used, piece, n);
		used += n;
		p += k < 3 ? strlen(keys[k]) : 1;
	}
	buf[used] = '\0';
	return 0;
}

const char *run_job_id(void)
{
	const char *id = getenv("SLURM_JOB_ID");
	if (id == NULL || *id == '\0')
		id = getenv("PBS_JOBID");
	return id != NULL ? id : "";
}

int run_share_verdict(int rc, struct pf_err *e)
{
	struct {
		int rc;
		struct pf_err err;
	} v = {rc, *e};
	if (MPI_Bcast(&v, sizeof v, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	*e = v.err;
	return v.rc;
}

/* The directory the results file goes into, made if missing. Returns 0 or -errno. */
static int run_make_parent(const char *path)
{
	char dir[RUN_PATH];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	return dataset_mkdirs(dir);
}

/* An upper bound of the results file's size: per phase its group and attributes (about 5 KB
 * measured; 16 KiB counted), one record per rank and one per file read (one per reader of
 * each file with pattern shared), each a little more than its struct. Measured: 100 phases
 * of 200 files wrote 1.6 MB (bound 3.1 MB), 2 phases of 20,000 files 2.3 MB (2.9 MB). */
static uint64_t run_results_bytes(const struct experiment *x, const struct topology *t)
{
	uint64_t n = plan_phase_count(x), bytes = 256 << 10; /* the file's own metadata */
	for (uint64_t i = 0; i < n; i++) {
		struct plan_point p;
		plan_phase_at(x, i, &p);
		uint64_t rows = x->datasets[p.dataset].nfiles;
		if (x->patterns[p.at[SWEEP_PATTERN]] == CFG_PATTERN_SHARED)
			rows *= plan_reader_count(&t->map, x->readers_per_node[p.at[SWEEP_READERS]]);
		uint64_t phase = (16 << 10) + (uint64_t)t->nranks * (sizeof(struct rank_rec) + 16) +
				 rows * (sizeof(struct file_rec) + 8);
		bytes = bytes > UINT64_MAX - phase ? UINT64_MAX : bytes + phase;
	}
	return bytes;
}

/* Rank 0, space_check: the results file must fit where it goes, with the margin. */
static int run_check_space(const struct experiment *x, const struct topology *t,
			   const char *path, struct pf_err *e)
{
	struct space_fs fs;
	char dir[RUN_PATH];
	if (!x->space_check)
		return 0;
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	struct space_need need = {run_results_bytes(x, t), 2};
	if (space_probe(dir, &fs, e) != 0)
		return -1;
	return space_check(&fs, &need, "run (its results file)", e);
}

/* Decide the results path on rank 0 (one {time} for all) and make its directory. */
static int run_results_path(const struct experiment *x, const struct run_opts *o,
			    const struct topology *t, char *path, char *start, struct pf_err *e)
{
	int rc = 0;
	if (t->rank == 0) {
		time_t now = time(NULL);
		struct tm tm;
		char stamp[32];
		gmtime_r(&now, &tm);
		strftime(start, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
		strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
		const char *job = *run_job_id() ? run_job_id() : "local";
		if (o->resume != NULL)
			snprintf(path, RUN_PATH, "%s", o->resume);
		else if (o->output != NULL)
			snprintf(path, RUN_PATH, "%s", o->output);
		else if (run_expand_results_path(x->results, x->name, job, stamp, path, RUN_PATH) != 0)
			rc = pf_fail(e, PF_USAGE, "results path too long");
		if (rc == 0 && o->resume != NULL && access(path, F_OK) != 0)
			rc = pf_fail(e, PF_USAGE, "--resume %s: %s", path, strerror(errno));
		else if (rc == 0 && o->resume == NULL && !o->force && access(path, F_OK) == 0)
			rc = pf_fail(e, PF_USAGE, "%s exists (use --force to overwrite, or --resume "
				     "%s to continue it)", path, path);
		if (rc == 0)
			rc = run_check_space(x, t, path, e);
		if (rc == 0 && (rc = run_make_parent(path)) != 0)
			rc = pf_fail_errno(e, rc, "%s: cannot create its directory", path);
	}
	rc = run_share_verdict(rc, e);
	if (MPI_Bcast(path, RUN_PATH, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
	    MPI_Bcast(start, 32, MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	return rc;
}

#define RUN_ATIME_LEN 16 /* "strictatime" and a NUL */

/* Each data set's counters of where the bytes came from (this rank's own: a node's route to
 * the servers is its own) and rank 0's description of them, for the record. */
struct run_prov {
	struct prov_source *src;
	char (*desc)[PROV_DESC_MAX];
	struct target_ctx *tg; /* storage target lookups; NULL (none) when out of memory */
};

static int run_prov_setup(const struct experiment *x, const struct topology *t,
			  struct run_prov *p, struct pf_err *e)
{
	p->src = calloc(x->ndatasets, sizeof *p->src);
	p->desc = calloc(x->ndatasets, sizeof *p->desc);
	if (p->src == NULL || p->desc == NULL)
		return pf_fail(e, PF_RUNTIME, "run: out of memory");
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		prov_setup(d->in_place ? d->from_tree : x->root, t->local_rank == 0, &p->src[i]);
		snprintf(p->desc[i], PROV_DESC_MAX, "%s", p->src[i].desc);
	}
	/* without it every row says "not looked up": never a reason to fail the run */
	(void)target_ctx_new(x->ndatasets, t->hostnames[t->node], &p->tg);
	if (MPI_Bcast(p->desc, (int)(x->ndatasets * PROV_DESC_MAX), MPI_CHAR, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	return 0;
}

static void run_prov_free(struct run_prov *p)
{
	if (p == NULL)
		return;
	free(p->src);
	free(p->desc);
	target_ctx_free(p->tg);
}

/* largest: each data set's largest file (dataset_largest_file). */
static void run_phase_spec(const struct experiment *x, uint64_t index,
			   char (*atime_mode)[RUN_ATIME_LEN], const uint64_t *largest,
			   const struct run_prov *prov,
			   struct phase_spec *s)
{
	struct plan_point p;
	plan_phase_at(x, index, &p);
	s->point = p;
	s->pattern = x->patterns[p.at[SWEEP_PATTERN]];
	s->decomp = x->decomps[p.at[SWEEP_DECOMP]];
	s->shift_use = x->cache == CFG_CACHE_SHIFT ? plan_dataset_use(x, index) : 0;
	s->atime_mode = atime_mode[p.dataset];
	s->prov = &prov->src[p.dataset];
	s->provenance = prov->desc[p.dataset];
	s->targets = prov->tg;
	s->target_set = p.dataset;
	s->x = x;
	s->ds = &x->datasets[p.dataset];
	s->be = backend_find(x->backends[p.at[SWEEP_BACKEND]]);
	s->readers_per_node = x->readers_per_node[p.at[SWEEP_READERS]];
	s->transfer_size = x->transfer_sizes[p.at[SWEEP_TRANSFER]];
	s->io_size = largest[p.dataset] < s->transfer_size ? largest[p.dataset] : s->transfer_size;
	if (s->io_size == 0)
		s->io_size = 1; /* empty files: a backend's buffers still need a size */
	s->order = x->orders[p.at[SWEEP_ORDER]];
	s->advice = backend_advice(s->be, x, x->advices[p.at[SWEEP_ADVICE]]);
	s->repetition = p.repetition;
	s->index = (uint32_t)index;
}

/* The read buffer's size: the most one read of any phase moves, min(transfer size, largest
 * file of its data set) (a 1 GiB transfer over 4 KiB files needs 4 KiB, not 1 GiB). Every
 * transfer size goes with every data set in the sweep. largest gets each data set's. */
static uint64_t run_max_read(const struct experiment *x, uint64_t *largest)
{
	uint64_t most = 0;
	for (size_t d = 0; d < x->ndatasets; d++) {
		largest[d] = dataset_largest_file(&x->datasets[d]);
		for (size_t i = 0; i < x->ntransfers; i++) {
			uint64_t t = x->transfer_sizes[i] < largest[d] ? x->transfer_sizes[i]
								      : largest[d];
			most = t > most ? t : most;
		}
	}
	return most > 0 ? most : 1;
}

/* The atime mode of the mount holding the data sets, as rank 0 sees it, for every rank. */
/* Each data set's mount atime mode, from rank 0: the root's, or an in-place tree's own
 * (another mount, maybe). mode has RUN_ATIME_LEN bytes per data set. */
static int run_atime_mode(const struct experiment *x, const struct topology *t,
			  char (*mode)[RUN_ATIME_LEN], struct pf_err *e)
{
	struct pf_err ignored = {0};
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		struct mount_info m;
		snprintf(mode[i], RUN_ATIME_LEN, "unknown");
		if (t->rank == 0 && envinfo_mount(d->in_place ? d->from_tree : x->root, &m,
						  &ignored) == 0)
			snprintf(mode[i], RUN_ATIME_LEN, "%s", m.atime_mode);
	}
	if (MPI_Bcast(mode, (int)(x->ndatasets * RUN_ATIME_LEN), MPI_CHAR, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	return 0;
}

/* Rank 0, after each phase: one line, and a warning when the cache served the reads. */
static void run_print_phase(const struct experiment *x, const struct phase_info *p, uint64_t i,
			    uint64_t n)
{
	printf("[%llu/%llu] ", (unsigned long long)i + 1, (unsigned long long)n);
	report_phase_line(stdout, p);
	if (x->cache != CFG_CACHE_NONE && cache_state_of(p->resident_fraction) != CACHE_COLD)
		printf("  warning: %.0f%% of the phase's bytes were in the page cache before it "
		       "started: this measures memory, not storage\n",
		       p->resident_fraction * 100);
	if (strstr(p->flags, "clock") != NULL)
		printf("  warning: the ranks left the opening barrier %.3g s apart, more than their "
		       "clocks allow (%.3g s): a rank's clock disagrees, the times are in doubt\n",
		       p->start_skew_s, p->clock_bound_s);
	fflush(stdout);
}

/* The phases, in plan order. A failed phase (an I/O error, a short file) is kept, marked, and
 * the run goes on: the other phases are unaffected. A time limit or a signal ends the run
 * after the phase in progress is written. *status gets the run's status for the file. */
static int run_phases(const struct experiment *x, struct topology *t, const struct run_prov *prov,
		      struct results **rp, struct run_limits *L, const char **status,
		      struct pf_err *e)
{
	void *buf = NULL;
	char (*atime_mode)[RUN_ATIME_LEN] = calloc(x->ndatasets, RUN_ATIME_LEN);
	uint64_t *largest = calloc(x->ndatasets ? x->ndatasets : 1, sizeof *largest);
	if (atime_mode == NULL || largest == NULL) {
		free(atime_mode);
		free(largest);
		return pf_fail(e, PF_RUNTIME, "run: out of memory");
	}
	/* room for an O_DIRECT tail read rounded up: see BACKEND_BUF_ALIGN. The config keeps
	 * transfers to CFG_TRANSFER_MAX; the sum is checked all the same, since a wrapped size
	 * would be a buffer smaller than a read */
	uint64_t most = run_max_read(x, largest);
	size_t buflen = (size_t)most, alloc = 0;
	*status = "failed";
	if (most > CFG_TRANSFER_MAX || most > SIZE_MAX - 2 * BACKEND_BUF_ALIGN) {
		free(atime_mode);
		free(largest);
		return pf_fail(e, PF_USAGE, "run: a transfer size of %llu B cannot be allocated",
			       (unsigned long long)most);
	}
	alloc = (buflen + BACKEND_BUF_ALIGN - 1) / BACKEND_BUF_ALIGN * BACKEND_BUF_ALIGN +
		BACKEND_BUF_ALIGN;
	if (run_atime_mode(x, t, atime_mode, e) != 0) {
		free(atime_mode);
		free(largest);
		return -1;
	}
	int rc = iobuf_alloc(alloc, &buf), failed = 0;
	struct results *r = *rp;
	if (rc != 0) {
		free(atime_mode);
		free(largest);
		return pf_fail_errno(e, -rc, "run: cannot allocate a %zu-byte buffer", buflen);
	}
	*status = "complete";
	if (stop_watchdog_arm(0) != 0) {
		free(buf);
		free(atime_mode);
		free(largest);
		return pf_fail(e, PF_RUNTIME, "run: cannot stop the start-up watchdog");
	}
	uint64_t n = plan_phase_count(x);
	for (uint64_t i = 0; i < n; i++) {
		struct phase_spec s;
		struct phase_output out;
		struct pf_err werr = {0};
		if (L->prior != NULL && L->prior->kept[i])
			continue; /* measured by an earlier part of the run */
		snprintf(L->guard.where, sizeof L->guard.where, "phase %llu", (unsigned long long)i);
		int go = run_may_start(x, t, L, i, e);
		if (L->guard.lost) {
			run_lost(x, t, &L->guard, rp, NULL, e);
			rc = -1;
			break;
		}
		if (go <= 0) {
			rc = go;
			if (go == 0)
				*status = "partial"; /* earlier failed phases keep their own status */
			break;
		}
		double t_start = MPI_Wtime();
		run_phase_spec(x, i, atime_mode, largest, prov, &s);
		s.progress = &L->progress;
		s.pilot = L->pilot;
		s.pilot_files = L->pilot_files;
		s.guard = &L->guard;
		run_progress_begin(x, L, &s, i, n);
		if (run_resync_clocks(x, t, &L->guard, e) != 0) {
			if (L->guard.lost)
				run_lost(x, t, &L->guard, rp, NULL, e);
			rc = -1;
			break;
		}
		rc = phase_run(&s, t, buf, buflen, &out, e);
		/* every rank here before the results write (progress_end's sum too) */
		if (!L->guard.lost && e->status != PF_HUNG)
			(void)guard_barrier(&L->guard, t, MPI_COMM_WORLD,
					    guard_wait_s(x->phase_timeout),
					    "before writing the phase to the results file", e);
		if (L->guard.lost) {
			run_lost(x, t, &L->guard, rp, &out, e);
			phase_output_free(&out);
			rc = -1;
			break;
		}
		if (e->status == PF_HUNG) {
			phase_output_free(&out);
			break; /* nothing collective can be done any more */
		}
		if (progress_end(&L->progress) != 0) {
			phase_output_free(&out);
			rc = pf_fail(e, PF_RUNTIME, "run: the progress sums failed (MPI)");
			break;
		}
		run_watchdog(x, t, &L->words, L->guard.where, L->written,
			     "writing a phase to the results file");
		int wrc = results_write_phase(r, &out.info, &out.me, out.files, out.nfiles,
					      &out.targets, &werr);
		if (run_watchdog_end() != 0 && wrc == 0)
			wrc = pf_fail_errno(&werr, errno, "run: cannot stop the watchdog");
		if (wrc == 0)
			L->written++;
		if (wrc != 0) {
			if (werr.status == PF_HUNG)
				pf_fail_lost(e, "%s", werr.msg);
			else
				pf_fail(e, werr.status, "%s", werr.msg);
			rc = -1;
		}
		if (e->status == PF_HUNG) {
			phase_output_free(&out);
			break; /* the results file cannot be written any more: main aborts */
		}
		if (t->rank == 0) {
			run_print_phase(x, &out.info, i, n);
			L->done[L->ndone++] = (struct budget_phase){
				s.point.dataset, s.pilot ? out.info.bytes : s.ds->total_size,
				s.pilot ? out.info.nfiles : s.ds->nfiles, MPI_Wtime() - t_start};
			L->bytes_done += s.ds->total_size;
			L->wall_done += MPI_Wtime() - t_start;
		}
		int stop = strcmp(out.info.status, "timeout") == 0 ||
			   strcmp(out.info.status, "interrupted") == 0 || werr.status != PF_OK;
		if (rc != 0)
			*status = stop && werr.status == PF_OK ? (strcmp(out.info.status, "timeout") == 0
									 ? "timeout" : "interrupted")
								  : "failed";
		failed |= rc != 0;
		phase_output_free(&out);
		if (stop)
			break;
	}
	free(buf);
	free(atime_mode);
	free(largest);
	return failed || rc != 0 ? -1 : 0;
}

/* Rank 0's view of the environment, the same on every rank (the attributes are collective). */
static int run_environment(const struct experiment *x, const struct topology *t,
			   struct environment *env, struct pf_err *e)
{
	memset(env, 0, sizeof *env);
	if (t->rank == 0)
		envinfo_collect(x->root, env);
	if (MPI_Bcast(env, sizeof *env, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Bcast failed");
	return 0;
}

static void run_fill_meta(const struct experiment *x, const struct run_opts *o,
			  const struct topology *t, const char *start, char *mpi_version,
			  struct run_meta *m)
{
	int len = 0;
	if (MPI_Get_library_version(mpi_version, &len) != MPI_SUCCESS)
		snprintf(mpi_version, MPI_MAX_LIBRARY_VERSION_STRING, "unknown");
	char *nl = strchr(mpi_version, '\n');
	if (nl != NULL)
		*nl = '\0';
	memset(m, 0, sizeof *m);
	m->pfsread_version = PFSREAD_VERSION;
	m->config_yaml = x->yaml_text;
	m->config_path = x->source;
	m->command_line = o->command_line;
	m->start_time = start;
	m->mpi_version = mpi_version;
	m->job_id = run_job_id();
	m->nranks = t->nranks;
	m->nnodes = t->nnodes;
	m->nphases = plan_phase_count(x);
}

/* Rank 0 reads the file back and prints the table: the report sees what was stored. */
static int run_print_summary(const char *path, struct pf_err *e)
{
	struct run_data data;
	char shown[SAFE_ROOM(RUN_PATH)];
	memset(&data, 0, sizeof data);
	int rc = report_read(path, &data, e);
	if (rc == 0) {
		printf("\n");
		rc = report_write_summary(stdout, &data, e);
		printf("results: %s\n", safe_text(shown, sizeof shown, path, 0));
	}
	results_free(&data);
	return rc;
}

int run_experiment(const struct experiment *x, const struct run_opts *o, struct pf_err *e)
{
	struct topology t;
	struct results *r = NULL;
	char path[RUN_PATH] = "", start[32] = "", mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
	struct run_meta meta;
	struct environment *env = malloc(sizeof *env);
	struct results_prior prior;
	struct run_limits limits = {.t0 = MPI_Wtime(), /* the time budget counts from here */
				    .stopped_at = UINT64_MAX,
				    .progress = {.comm = MPI_COMM_NULL, .req = MPI_REQUEST_NULL}};
	char *hosts = NULL, shown[SAFE_ROOM(RUN_PATH)];
	struct run_prov prov = {NULL, NULL, NULL};
	struct lock_held held = {""};
	memset(&prior, 0, sizeof prior);
	int rc = topology_discover(&t, e);
	stop_watchdog_stage("checking the experiment");
	if (rc == 0)
		rc = run_check_experiment(x, &t.map, 1, e);
	stop_watchdog_stage("checking the data sets' manifests (rank 0)");
	if (rc == 0)
		rc = run_share_verdict(t.rank == 0 ? run_check_datasets(x, e) : 0, e);
	stop_watchdog_stage("checking each rank's files (stat)");
	if (rc == 0)
		rc = run_check_files(x, &t, e);
	stop_watchdog_stage("choosing the results path");
	if (rc == 0)
		rc = run_results_path(x, o, &t, path, start, e);
	if (rc == 0) /* its one writer: this run */
		rc = locks_results(path, o->resume ? "run --resume" : "run", t.rank, &held, e);
	stop_watchdog_stage("recording the environment (rank 0)");
	if (rc == 0)
		rc = env != NULL ? run_environment(x, &t, env, e) : pf_fail(e, PF_RUNTIME, "out of memory");
	stop_watchdog_stage("finding the counters of where the bytes come from");
	if (rc == 0)
		rc = run_prov_setup(x, &t, &prov, e);
	if (rc != 0)
		goto out;
	run_fill_meta(x, o, &t, start, mpi_version, &meta);
	snprintf(limits.words.path, sizeof limits.words.path, "%s", path);
	(void)run_peers(&t, &limits); /* the watchdog's names: never a reason to fail */
	meta.env = env;
	if ((hosts = resume_hosts(&t)) == NULL) {
		rc = pf_fail(e, PF_RUNTIME, "run: out of memory");
		goto out;
	}
	meta.hosts = hosts;
	if (t.rank == 0) {
		char shift[512];
		unsigned long long nph = (unsigned long long)plan_phase_count(x);
		printf("pfsread %s: %s, %d rank%s on %d node%s, %llu phase%s -> %s\n",
		       PFSREAD_VERSION, x->name, t.nranks, t.nranks == 1 ? "" : "s", t.nnodes,
		       t.nnodes == 1 ? "" : "s", nph, nph == 1 ? "" : "s",
		       safe_text(shown, sizeof shown, path, 0));
		plan_shift_describe(x, t.nnodes, shift, sizeof shift);
		if (x->cache == CFG_CACHE_SHIFT)
			printf("%s\n", shift);
	}
	stop_watchdog_stage(o->resume ? "opening the results file (H5Fopen, collective)"
				      : "creating the results file (H5Fcreate, collective)");
	if (rc == 0 && o->resume != NULL)
		rc = resume_open(x, &t, path, &meta, &r, &prior, e);
	else if (rc == 0)
		rc = results_create(path, o->force, MPI_COMM_WORLD, &meta, &r, e);
	if (rc == 0 && o->resume == NULL)
		rc = results_write_topology(r, t.map.node_of_rank,
					    (const char(*)[RECORD_HOST_MAX])t.hostnames,
					    t.clock_offset_s, t.mem_total_bytes, e);
	if (rc == 0 && o->resume != NULL && t.rank == 0)
		resume_print(path, &prior);
	const char *status = "failed";
	limits.prior = o->resume ? &prior : NULL;
	limits.budget_s = o->time_budget;
	limits.pilot = o->pilot;
	limits.pilot_files = o->pilot_files;
	if (rc == 0 && (limits.done = calloc(plan_phase_count(x) + 1, sizeof *limits.done)) == NULL)
		rc = pf_fail(e, PF_RUNTIME, "run: out of memory");
	if (rc == 0 && t.rank == 0)
		run_limits_seed(x, &limits);
	if (rc == 0 && progress_init(&limits.progress, o->progress_s) != 0)
		rc = pf_fail(e, PF_RUNTIME, "run: cannot set up the progress lines (MPI_Comm_dup)");
	if (rc == 0)
		rc = run_phases(x, &t, &prov, &r, &limits, &status, e);
	if (e->status == PF_HUNG)
		goto out; /* main aborts: a collective close would wait for the stuck rank */
	limits.guard.where[0] = '\0'; /* the phases are over */
	if (r != NULL && guard_barrier(&limits.guard, &t, MPI_COMM_WORLD,
				       guard_wait_s(x->phase_timeout),
				       "before closing the results file", e) != 0 &&
	    limits.guard.lost) {
		run_lost(x, &t, &limits.guard, &r, NULL, e);
		goto out;
	}
	if (r != NULL) {
		struct pf_err cerr = {0};
		run_watchdog(x, &t, &limits.words, "", limits.written, "closing the results file");
		int crc = results_close(r, status, &cerr);
		(void)run_watchdog_end(); /* the close is over either way */
		if (crc != 0) {
			if (cerr.status == PF_HUNG)
				pf_fail_lost(e, "%s", cerr.msg);
			else
				pf_fail(e, cerr.status, "%s", cerr.msg);
			rc = -1;
		}
		if (e->status == PF_HUNG)
			goto out;
	}
	if (strcmp(status, "interrupted") == 0 && stop_signal() != 0 && e->status != PF_OK)
		e->status = 128 + stop_signal(); /* the exit status a shell gives a killed job */
	if (strcmp(status, "partial") == 0 && e->status != PF_HUNG) {
		pf_fail(e, PF_PARTIAL, "run stopped before phase %llu of %llu (%s): the file is "
			"partial; continue it with 'pfsread run %s --resume %s'",
			(unsigned long long)limits.stopped_at, (unsigned long long)plan_phase_count(x),
			limits.reason == 2 ? "SIGUSR1: the job's time is nearly up" : "time budget",
			x->source, path);
		e->status = PF_PARTIAL; /* also after a failed phase: the study is not over */
		rc = -1;
	}
	if (r != NULL && t.rank == 0 && stop_signal() != 0) {
		printf("results: %s (interrupted: 'pfsread report %s' shows what was measured)\n",
		       safe_text(shown, sizeof shown, path, 0), shown); /* no table: asked to stop */
	} else if (r != NULL && t.rank == 0 && o->no_table) {
		printf("results: %s\n", safe_text(shown, sizeof shown, path, 0));
	} else if (r != NULL && t.rank == 0) {
		struct pf_err perr = {0};
		if (run_print_summary(path, &perr) != 0) {
			pf_fail(e, perr.status, "%s", perr.msg);
			rc = -1;
		}
	}
out:
	run_peers_free(&limits);
	lock_release(&held);
	free(limits.done);
	if (e->status != PF_HUNG)
		progress_free(&limits.progress);
	results_prior_free(&prior);
	free(hosts);
	free(env);
	run_prov_free(&prov);
	topology_free(&t);
	return rc;
}
