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

/* The run as its steps see it: the command's input, what start-up builds, and what the phases
 * and the close use. One per run_experiment. */
struct run_ctx {
	const struct experiment *x;
	const struct run_opts *o;
	struct pf_err *e;
	struct topology t;
	struct results *r;
	char path[RUN_PATH], start[32], mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
	struct run_meta meta;
	struct environment *env;
	struct results_prior prior;
	struct run_limits limits;
	char *hosts;
	struct run_prov prov;
	struct lock_held held;
	enum run_status status;   /* the run's, for the file */
};

static void run_ctx_init(struct run_ctx *c, const struct experiment *x, const struct run_opts *o,
			 struct pf_err *e)
{
	memset(c, 0, sizeof *c);
	c->x = x;
	c->o = o;
	c->e = e;
	c->env = malloc(sizeof *c->env); /* NULL: the environment step says so */
	c->limits.t0 = MPI_Wtime();     /* the time budget counts from here */
	c->limits.stopped_at = UINT64_MAX;
	c->limits.progress.comm = MPI_COMM_NULL;
	c->limits.progress.req = MPI_REQUEST_NULL;
	c->status = RUN_FAILED;
}

static void run_ctx_free(struct run_ctx *c)
{
	run_peers_free(&c->limits);
	lock_release(&c->held);
	free(c->limits.done);
	if (c->e->status != PF_HUNG)
		progress_free(&c->limits.progress);
	results_prior_free(&c->prior);
	free(c->hosts);
	free(c->env);
	run_prov_free(&c->prov);
	topology_free(&c->t);
}

static int run_step_check(struct run_ctx *c)
{
	return run_check_experiment(c->x, &c->t.map, 1, c->e);
}

static int run_step_manifests(struct run_ctx *c)
{
	return run_share_verdict(c->t.rank == 0 ? run_check_datasets(c->x, c->e) : 0, c->e);
}

static int run_step_files(struct run_ctx *c)
{
	return run_check_files(c->x, &c->t, c->e);
}

/* The results file's path, and its lock: its one writer is this run. */
static int run_step_results_path(struct run_ctx *c)
{
	if (run_results_path(c->x, c->o, &c->t, c->path, c->start, c->e) != 0)
		return -1;
	return locks_results(c->path, c->o->resume ? "run --resume" : "run", c->t.rank, &c->held,
			     c->e);
}

static int run_step_environment(struct run_ctx *c)
{
	if (c->env == NULL)
		return pf_fail(c->e, PF_RUNTIME, "out of memory");
	return run_environment(c->x, &c->t, c->env, c->e);
}

/* Whether some phase reads cold through the page cache: a cache strategy that evicts, and a
 * backend other than direct. */
static int run_reads_cold_cached(const struct experiment *x)
{
	if (x->cache == CFG_CACHE_NONE || x->cache == CFG_CACHE_DIRECT)
		return 0;
	for (size_t i = 0; i < x->nbackends; i++)
		if (strcmp(x->backends[i], "direct") != 0)
			return 1;
	return 0;
}

/* Rank 0: the run's first line, cache: shift's plan, and a host that takes back the memory
 * this node frees. */
static void run_print_banner(const struct run_ctx *c)
{
	const struct experiment *x = c->x;
	char shift[512], shown[SAFE_ROOM(RUN_PATH)];
	unsigned long long nph = (unsigned long long)plan_phase_count(x);
	printf("pfsread %s: %s, %d rank%s on %d node%s, %llu phase%s -> %s\n", PFSREAD_VERSION,
	       x->name, c->t.nranks, c->t.nranks == 1 ? "" : "s", c->t.nnodes,
	       c->t.nnodes == 1 ? "" : "s", nph, nph == 1 ? "" : "s",
	       safe_text(shown, sizeof shown, c->path, 0));
	plan_shift_describe(x, c->t.nnodes, shift, sizeof shift);
	if (x->cache == CFG_CACHE_SHIFT)
		printf("%s\n", shift);
	if (run_reads_cold_cached(x) && envinfo_value(c->env, "free_page_reporting") != NULL)
		printf("warning: this node hands the memory it frees back to its host (free page "
		       "reporting): a cold read through the page cache that lands on memory the host "
		       "took pays a host fault per page, several times slower; backend direct reads "
		       "the storage without it\n");
}

/* The counters of where the bytes come from; then what the results file and the watchdog are
 * told of the run (its metadata, this node's other ranks, the hosts), and its first line. */
static int run_step_counters(struct run_ctx *c)
{
	if (run_prov_setup(c->x, &c->t, &c->prov, c->e) != 0)
		return -1;
	run_fill_meta(c->x, c->o, &c->t, c->start, c->mpi_version, &c->meta);
	snprintf(c->limits.words.path, sizeof c->limits.words.path, "%s", c->path);
	(void)run_peers(&c->t, &c->limits); /* the watchdog's names: never a reason to fail */
	c->meta.env = c->env;
	if ((c->hosts = resume_hosts(&c->t)) == NULL)
		return pf_fail(c->e, PF_RUNTIME, "run: out of memory");
	c->meta.hosts = c->hosts;
	if (c->t.rank == 0)
		run_print_banner(c);
	return 0;
}

/* The results file: a new one with the topology, or the one --resume continues. */
static int run_step_results_file(struct run_ctx *c)
{
	int rc;
	if (c->o->resume != NULL) {
		rc = resume_open(c->x, &c->t, c->path, &c->meta, &c->r, &c->prior, c->e);
		if (rc == 0 && c->t.rank == 0)
			resume_print(c->path, &c->prior);
		return rc;
	}
	rc = results_create(c->path, c->o->force, MPI_COMM_WORLD, &c->meta, &c->r, c->e);
	if (rc == 0)
		rc = results_write_topology(c->r, c->t.map.node_of_rank,
					    (const char(*)[RECORD_HOST_MAX])c->t.hostnames,
					    c->t.clock_offset_s, c->t.mem_total_bytes, c->e);
	return rc;
}

/* What decides whether each phase starts (a resumed file's kept phases, the budget, the
 * pilot), the progress lines, then the phases. */
static int run_step_phases(struct run_ctx *c)
{
	struct run_limits *L = &c->limits;
	L->prior = c->o->resume ? &c->prior : NULL;
	L->budget_s = c->o->time_budget;
	L->pilot = c->o->pilot;
	L->pilot_files = c->o->pilot_files;
	if ((L->done = calloc(plan_phase_count(c->x) + 1, sizeof *L->done)) == NULL)
		return pf_fail(c->e, PF_RUNTIME, "run: out of memory");
	if (c->t.rank == 0)
		run_limits_seed(c->x, L);
	if (progress_init(&L->progress, c->o->progress_s) != 0)
		return pf_fail(c->e, PF_RUNTIME, "run: cannot set up the progress lines (MPI_Comm_dup)");
	return run_phases(c->x, &c->t, &c->prov, &c->r, L, &c->status, c->e);
}

/* Every rank at the close, then the file closed with the run's status. 1 when the run ends
 * here (a rank was lost, and recorded; or the close is stuck), else 0; *rc -1 when the close
 * failed. */
static int run_close_results(struct run_ctx *c, int *rc)
{
	struct pf_err cerr = {0};
	if (guard_barrier(&c->limits.guard, &c->t, MPI_COMM_WORLD, guard_wait_s(c->x->phase_timeout),
			  "before closing the results file", c->e) != 0 && c->limits.guard.lost) {
		run_lost(c->x, &c->t, &c->limits.guard, &c->r, NULL, c->e);
		return 1;
	}
	run_watchdog(c->x, &c->t, &c->limits.words, "", c->limits.written,
		     "closing the results file");
	int crc = results_close(c->r, results_run_status_name(c->status), &cerr);
	c->r = NULL;
	(void)run_watchdog_end(); /* the close is over either way */
	if (crc != 0) {
		if (cerr.status == PF_HUNG)
			pf_fail_lost(c->e, "%s", cerr.msg);
		else
			pf_fail(c->e, cerr.status, "%s", cerr.msg);
		*rc = -1;
	}
	return c->e->status == PF_HUNG;
}

/* A run stopped by a signal exits as a shell's killed job does; one stopped before a phase
 * (the budget, SIGUSR1) says how to continue it. Returns the run's rc. */
static int run_stopped(const struct run_ctx *c, int rc)
{
	struct pf_err *e = c->e;
	if (c->status == RUN_INTERRUPTED && stop_signal() != 0 && e->status != PF_OK)
		e->status = 128 + stop_signal(); /* the exit status a shell gives a killed job */
	if (c->status != RUN_PARTIAL || e->status == PF_HUNG)
		return rc;
	pf_fail(e, PF_PARTIAL, "run stopped before phase %llu of %llu (%s): the file is partial; "
		"continue it with 'pfsread run %s --resume %s'",
		(unsigned long long)c->limits.stopped_at, (unsigned long long)plan_phase_count(c->x),
		c->limits.reason == RUN_STOP_WRAP_UP ? "SIGUSR1: the job's time is nearly up"
						     : "time budget",
		c->x->source, c->path);
	e->status = PF_PARTIAL; /* also after a failed phase: the study is not over */
	return -1;
}

/* Rank 0's last lines: where the results are, and the table unless it was asked not to or was
 * stopped by a signal. Returns the run's rc. */
static int run_last_lines(const struct run_ctx *c, int rc)
{
	char shown[SAFE_ROOM(RUN_PATH)];
	struct pf_err perr = {0};
	if (c->t.rank != 0)
		return rc;
	if (stop_signal() != 0) {
		printf("results: %s (interrupted: 'pfsread report %s' shows what was measured)\n",
		       safe_text(shown, sizeof shown, c->path, 0), shown); /* asked to stop */
	} else if (c->o->no_table) {
		printf("results: %s\n", safe_text(shown, sizeof shown, c->path, 0));
	} else if (run_print_summary(c->path, &perr) != 0) {
		pf_fail(c->e, perr.status, "%s", perr.msg);
		rc = -1;
	}
	return rc;
}

/* After the phases (or a start-up that failed): the results file closed, the run's exit
 * status, the last lines. rc: the run's so far; returns the run's. */
static int run_finish(struct run_ctx *c, int rc)
{
	if (c->e->status == PF_HUNG)
		return rc; /* main aborts: a collective close would wait for the stuck rank */
	c->limits.guard.where[0] = '\0'; /* the phases are over */
	int had_file = c->r != NULL;
	if (had_file && run_close_results(c, &rc) != 0)
		return rc;
	rc = run_stopped(c, rc);
	return had_file ? run_last_lines(c, rc) : rc;
}

/* A step of the run's start-up: stage is what the start-up watchdog names while it runs
 * (resume_stage instead under --resume, when set). 0, or -1 with the run's e set. */
struct run_step {
	const char *stage, *resume_stage;
	int (*run)(struct run_ctx *c);
};

static const struct run_step run_startup[] = {
	{"checking the experiment", NULL, run_step_check},
	{"checking the data sets' manifests (rank 0)", NULL, run_step_manifests},
	{"checking each rank's files (stat)", NULL, run_step_files},
	{"choosing the results path", NULL, run_step_results_path},
	{"recording the environment (rank 0)", NULL, run_step_environment},
	{"finding the counters of where the bytes come from", NULL, run_step_counters},
	{"creating the results file (H5Fcreate, collective)",
	 "opening the results file (H5Fopen, collective)", run_step_results_file},
};

int run_experiment(const struct experiment *x, const struct run_opts *o, struct pf_err *e)
{
	struct run_ctx c;
	run_ctx_init(&c, x, o, e);
	int rc = topology_discover(&c.t, e);
	for (size_t i = 0; rc == 0 && i < sizeof run_startup / sizeof run_startup[0]; i++) {
		const struct run_step *s = &run_startup[i];
		stop_watchdog_stage(o->resume != NULL && s->resume_stage != NULL ? s->resume_stage
										   : s->stage);
		rc = s->run(&c);
	}
	if (rc == 0) /* the start-up watchdog ends as the phases begin (run_phases) */
		rc = run_step_phases(&c);
	rc = run_finish(&c, rc);
	run_ctx_free(&c);
	return rc;
}
