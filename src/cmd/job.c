/* job: `pfsread job [CONFIG] [--chain N] [--script FILE]`, what a batch job script execs: the
 * allocation from the batch system, plan's checks against it, generate (when a data set is not
 * complete) and run through the launcher, the chain's follow-on job, then the report. One
 * process without MPI of its own: the ranks are the launcher's. The decisions are
 * job_logic's; the processes job_proc's. */
#include "cmd/cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/datasets.h"
#include "cmd/job_logic.h"
#include "cmd/job_proc.h"
#include "cmd/plan.h"
#include "config/config.h"
#include "results/results.h"
#include "run/budget.h"
#include "util/safe.h"

extern char **environ;

#define JOB_PATH (PATH_MAX + 256)
#define JOB_TEXT 65536 /* the most of a command's output read (qstat -f, scontrol) */
#define JOB_WAIT_S 60  /* the longest a scheduler's command may take to answer */

struct job {
	const char *config;
	const char *script_arg;      /* --script: the job script as the batch system ran it */
	const char *complete;        /* --complete FILE: only say whether FILE is complete */
	unsigned chain;              /* the most jobs of the chain, this one included */
	const char *chain_results;   /* PFSREAD_CHAIN_RESULTS: this job continues a chain */
	char self[JOB_PATH];         /* the binary the ranks run */
	char script[JOB_PATH];       /* where the follow-on is submitted from */
	char results_dir[JOB_PATH], results[JOB_PATH + 256];
	char next[JOB_ID_MAX];       /* the follow-on's id, or "" */
	struct job_alloc al;
	struct job_argv launch;
	struct experiment x;
	int generate;
};

static const char *job_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

static const struct job_env job_environ = {job_getenv, NULL};

static const char *job_var(const char *name)
{
	return job_env_get(&job_environ, name);
}

/* "pfsread job: ..." on stdout, in the job's log; what comes from outside by util/safe's rule. */
__attribute__((format(printf, 1, 2))) static void job_say(const char *fmt, ...)
{
	char line[4 * JOB_PATH];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fputs("pfsread job: ", stdout);
	safe_fput(stdout, line, 0);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---- the job: arguments, binary, allocation, launcher ---------------------------------- */

static int job_parse(int argc, char **argv, struct job *j, struct pf_err *e)
{
	const char *chain = job_var("PFSREAD_CHAIN");
	j->config = job_var("PFSREAD_CONFIG");
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--chain") == 0 && i + 1 < argc)
			chain = argv[++i];
		else if (strcmp(argv[i], "--script") == 0 && i + 1 < argc)
			j->script_arg = argv[++i];
		else if (strcmp(argv[i], "--complete") == 0 && i + 1 < argc)
			j->complete = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			return pf_fail(e, PF_USAGE, "job: unexpected argument '%s'", argv[i]);
		else
			j->config = argv[i];
	}
	if (j->complete != NULL) /* a question about a file: no config, no job */
		return 0;
	if (chain != NULL && job_chain_parse(chain, &j->chain, e) != 0)
		return -1;
	j->chain_results = job_var("PFSREAD_CHAIN_RESULTS");
	if (j->config == NULL)
		return pf_fail(e, PF_USAGE, "job: name the config: first argument or PFSREAD_CONFIG");
	if (access(j->config, R_OK) != 0) {
		char cwd[JOB_PATH];
		return pf_fail(e, PF_USAGE, "job: %s: no such file (relative to %s)", j->config,
			       getcwd(cwd, sizeof cwd) ? cwd : "the working directory");
	}
	return 0;
}

/* The binary the launched ranks run: PFSREAD, else this one. */
static int job_self(struct job *j, struct pf_err *e)
{
	const char *set = job_var("PFSREAD");
	if (set != NULL) {
		snprintf(j->self, sizeof j->self, "%s", set);
		return 0;
	}
	ssize_t n = readlink("/proc/self/exe", j->self, sizeof j->self - 1);
	if (n <= 0)
		return pf_fail_errno(e, errno, "job: cannot tell where this pfsread is (set PFSREAD)");
	j->self[n] = '\0';
	return 0;
}

/* The node file's text, or NULL when it cannot be read (*text malloc'ed). */
static char *job_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	if (f == NULL)
		return NULL;
	FILE *m = open_memstream(&text, &len);
	char buf[8192];
	size_t got;
	while (m != NULL && (got = fread(buf, 1, sizeof buf, f)) > 0)
		if (fwrite(buf, 1, got, m) != got)
			break;
	int bad = ferror(f);
	fclose(f);
	if (m == NULL || fclose(m) != 0 || bad) {
		free(text);
		return NULL;
	}
	return text;
}

static int job_allocation(struct job *j, struct pf_err *e)
{
	const char *path = job_var("PBS_NODEFILE");
	char *nodefile = path ? job_read_file(path) : NULL;
	int rc = job_alloc_parse(&job_environ, nodefile, &j->al, e);
	free(nodefile);
	return rc;
}

/* mpirun's kind, from what mpirun --version says. */
static enum job_mpi job_mpirun_kind(void)
{
	char *argv[] = {"mpirun", "--version", NULL};
	char text[4096];
	int status = 0;
	struct pf_err ignored = {0};
	if (job_proc_capture(argv, NULL, 1, JOB_WAIT_S, text, sizeof text, &status, &ignored) != 0)
		return JOB_HYDRA;
	return job_mpi_kind(text);
}

static int job_launcher(struct job *j, struct pf_err *e)
{
	struct job_launch l = {JOB_MPIRUN, JOB_OPEN_MPI, geteuid() == 0, job_var("PBS_NODEFILE"),
			       job_var("PFSREAD_SRUN_MPI"), job_var("PFSREAD_LAUNCH_FLAGS")};
	const char *name = job_var("PFSREAD_LAUNCHER");
	if (name != NULL) {
		if (job_launcher_parse(name, &l.launcher, e) != 0)
			return -1;
	} else if (!job_proc_on_path("mpirun")) {
		if (job_var("SLURM_JOB_ID") == NULL)
			return pf_fail(e, PF_USAGE, "job: no mpirun on PATH (load the MPI module, "
				       "or set PFSREAD_LAUNCHER)");
		l.launcher = JOB_SRUN;
	}
	if (l.launcher == JOB_MPIRUN)
		l.mpi = job_mpirun_kind();
	if (job_launch_argv(&j->al, &l, &j->launch) != 0)
		return pf_fail(e, PF_RUNTIME, "job: out of memory");
	return 0;
}

/* ---- the plan and the results file ------------------------------------------------------ */

/* 1 when some data set is not generated whole (or cannot be told), saying which. */
static int job_datasets_missing(const struct experiment *x)
{
	for (size_t i = 0; i < x->ndatasets; i++) {
		const struct cfg_dataset *d = &x->datasets[i];
		struct manifest have;
		struct pf_err ignored = {0};
		int state = GEN_FRESH;
		if (d->layout.kind == CFG_LAYOUT_IN_PLACE)
			continue;
		if (gen_classify(x, d, &state, &have, &ignored) != 0 || state != GEN_DONE) {
			job_say("data set %s is missing or incomplete in %s", d->name, x->root);
			return 1;
		}
	}
	return 0;
}

static int job_plan(struct job *j, struct pf_err *e)
{
	enum job_generate g;
	if (job_generate_parse(job_var("PFSREAD_GENERATE"), &g, e) != 0 ||
	    plan_check_quiet(j->config, j->al.ranks, j->al.nodes, &j->x, e) != 0)
		return -1;
	const char *dir = job_var("PFSREAD_RESULTS_DIR");
	char cwd[JOB_PATH];
	if (dir == NULL)
		dir = job_var("PBS_O_WORKDIR");
	if (dir == NULL)
		dir = job_var("SLURM_SUBMIT_DIR");
	if (dir == NULL && (dir = getcwd(cwd, sizeof cwd)) == NULL)
		return pf_fail_errno(e, errno, "job: the working directory");
	snprintf(j->results_dir, sizeof j->results_dir, "%s", dir);
	snprintf(j->results, sizeof j->results, "%s/%s-%s.h5", dir, j->x.name, j->al.id);
	if (j->chain_results != NULL)
		snprintf(j->results, sizeof j->results, "%s", j->chain_results);
	j->generate = g == JOB_GEN_ALWAYS;
	if (g == JOB_GEN_AUTO)
		j->generate = -1; /* decided once the results file says the job has work */
	return 0;
}

/* 1 when path is a regular file. */
static int job_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* What this job does with its results file; JOB_START_DONE and _EXISTS end it here. */
static enum job_start job_start(const struct job *j, struct pf_err *e)
{
	int exists = access(j->results, F_OK) == 0, complete = 0;
	if (j->chain_results != NULL && job_is_file(j->results)) {
		struct pf_err ignored = {0};
		complete = results_is_complete(j->results, &ignored) == 1;
	}
	enum job_start s = job_start_of(j->chain_results != NULL, exists, complete);
	if (s == JOB_START_DONE)
		job_say("%s is complete: nothing left for this follow-on job", j->results);
	if (s == JOB_START_EXISTS)
		pf_fail(e, PF_USAGE, "job: %s exists: move it away or set PFSREAD_RESULTS_DIR",
			j->results);
	return s;
}

/* ---- the chain ------------------------------------------------------------------------- */

/* The job script the follow-on is submitted from: PFSREAD_JOB_SCRIPT, else Slurm's Command
 * of the job, else --script (the copy the batch system ran). */
static int job_script(struct job *j, struct pf_err *e)
{
	char text[JOB_TEXT], command[JOB_PATH];
	const char *set = job_var("PFSREAD_JOB_SCRIPT");
	int status = 1;
	if (set != NULL) {
		snprintf(j->script, sizeof j->script, "%s", set);
		return 0;
	}
	if (j->al.batch == JOB_SLURM && job_proc_on_path("scontrol")) {
		char *argv[] = {"scontrol", "show", "job", j->al.id, NULL};
		struct pf_err ignored = {0};
		if (job_proc_capture(argv, NULL, 0, JOB_WAIT_S, text, sizeof text, &status,
				     &ignored) == 0 && status == 0 &&
		    job_scontrol_command(text, command, sizeof command) == 0 &&
		    job_script_of_command(command, job_is_file, j->script, sizeof j->script) == 0)
			return 0;
	}
	if (j->script_arg == NULL)
		return pf_fail(e, PF_USAGE, "job: --chain needs the job script: set PFSREAD_JOB_SCRIPT");
	snprintf(j->script, sizeof j->script, "%s", j->script_arg);
	return 0;
}

/* A chain passes the config, the results file and the job script to its follow-on: a
 * newline in any of them would not reach it intact (Slurm's Command line), so it is refused
 * before anything runs. */
static int job_chain_check(struct job *j, struct pf_err *e)
{
	if (j->chain <= 1)
		return 0;
	if (job_script(j, e) != 0)
		return -1;
	const char *paths[] = {j->config, j->results, j->script};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (strchr(paths[i], '\n') != NULL)
			return pf_fail(e, PF_USAGE, "job: a chain cannot pass a path with a newline to "
				       "its follow-on jobs: '%s'", paths[i]);
	return 0;
}

/* What a command prints when it succeeds, else "" (a command that is not there included). */
static void job_ask(char *const *argv, char *text, size_t len)
{
	int status = 1;
	struct pf_err ignored = {0};
	text[0] = '\0';
	if (!job_proc_on_path(argv[0]) ||
	    job_proc_capture(argv, NULL, 0, JOB_WAIT_S, text, len, &status, &ignored) != 0 ||
	    status != 0)
		text[0] = '\0';
}

/* The follow-on's command line (Slurm: sbatch with this job's shape and limit; PBS: qsub with
 * its resources as qstat -f lists them, and the names of the variables it gets). */
static int job_submit_argv(const struct job *j, struct job_argv *out, char *names, size_t len)
{
	char text[JOB_TEXT], limit[64];
	struct job_next n = {j->al.id, j->script, j->config, j->al.nodes, j->al.per_node,
			     NULL, job_var("SLURM_JOB_PARTITION"), names};
	if (j->al.batch == JOB_SLURM) {
		char *argv[] = {"squeue", "-h", "-j", (char *)j->al.id, "-o", "%l", NULL};
		job_ask(argv, text, sizeof text);
		if (job_slurm_limit(text, limit, sizeof limit) == 0)
			n.limit = limit;
		return job_sbatch_argv(&n, out);
	}
	char *argv[] = {"qstat", "-f", (char *)j->al.id, NULL};
	struct job_argv res = {0};
	job_ask(argv, text, sizeof text);
	int rc = job_pbs_resources(text, &res) != 0 || job_pbs_names(environ, names, len) != 0 ||
		 job_qsub_argv(&n, &res, out) != 0;
	job_argv_free(&res);
	return rc ? -1 : 0;
}

/* With a chain of more than this job: the follow-on, submitted before this job runs, to start
 * after it ends however it ends (afterany: also after a kill at the time limit). It continues
 * the same file and exits at once when this job completed it. Its variables travel in the
 * environment of sbatch (--export=ALL) or qsub (-v with names only, the values from qsub's
 * environment): never in a NAME=VALUE list, which Slurm and PBS split at every comma. */
static int job_chain_next(struct job *j, struct pf_err *e)
{
	char names[8192], chain[32], text[JOB_TEXT];
	char cfg[JOB_PATH + 32], res[JOB_PATH + 320], self[JOB_PATH + 16];
	struct job_argv argv = {0};
	int status = 1;
	if (j->chain <= 1)
		return 0;
	text[0] = '\0';
	snprintf(chain, sizeof chain, "PFSREAD_CHAIN=%u", j->chain - 1);
	snprintf(cfg, sizeof cfg, "PFSREAD_CONFIG=%s", j->config);
	snprintf(res, sizeof res, "PFSREAD_CHAIN_RESULTS=%s", j->results);
	snprintf(self, sizeof self, "PFSREAD=%s", j->self);
	char *env_add[] = {chain, cfg, res, self, NULL};
	int rc = job_submit_argv(j, &argv, names, sizeof names);
	if (rc == 0)
		rc = job_proc_capture(argv.v, env_add, 0, JOB_WAIT_S, text, sizeof text, &status, e);
	job_argv_free(&argv);
	size_t n = strcspn(text, "\r\n");
	text[n] = '\0';
	if (rc != 0 || status != 0 || n == 0 || n >= sizeof j->next)
		return pf_fail(e, PF_USAGE, "job: cannot submit the follow-on job");
	snprintf(j->next, sizeof j->next, "%s", text);
	job_say("chain: follow-on job %s submitted (%u more at most)", j->next, j->chain - 1);
	return 0;
}

/* ---- the steps -------------------------------------------------------------------------- */

/* The launcher with the command's words after its own. */
static int job_launch(const struct job *j, const struct job_argv *cmd, int *status,
		      struct pf_err *e)
{
	struct job_argv argv = {0};
	int rc = job_argv_cat(&argv, &j->launch) != 0 || job_argv_cat(&argv, cmd) != 0
			 ? pf_fail(e, PF_RUNTIME, "job: out of memory")
			 : job_proc_run(argv.v, NULL, status, e);
	job_argv_free(&argv);
	return rc;
}

static int job_generate(const struct job *j, int *status, struct pf_err *e)
{
	struct job_argv cmd = {0};
	*status = 0;
	if (!j->generate) {
		job_say("every data set is complete: no generate");
		return 0;
	}
	job_say("generating the data sets");
	int rc = job_argv_push(&cmd, j->self, "generate", j->config, NULL) != 0
			 ? pf_fail(e, PF_RUNTIME, "job: out of memory")
			 : job_launch(j, &cmd, status, e);
	job_argv_free(&cmd);
	return rc;
}

/* The budget: PFSREAD_TIME_BUDGET, else what the job has left (squeue %L; qstat -f's walltime
 * asked less used) less a margin for the report, into buf; "" when unknown (no budget: SIGUSR1
 * and SIGTERM end the run). */
static void job_time_budget(const struct job *j, char *buf, size_t len)
{
	char text[JOB_TEXT];
	double left = -1;
	long budget;
	const char *set = job_var("PFSREAD_TIME_BUDGET");
	buf[0] = '\0';
	if (set != NULL) {
		snprintf(buf, len, "%s", set);
		return;
	}
	if (j->al.batch == JOB_SLURM) {
		char *argv[] = {"squeue", "-h", "-j", (char *)j->al.id, "-o", "%L", NULL};
		job_ask(argv, text, sizeof text);
		char *t = text + strspn(text, " \t");
		t[strcspn(t, " \r\n")] = '\0';
		if (budget_parse_hms(t, &left) != 0)
			left = -1;
	} else {
		char *argv[] = {"qstat", "-f", (char *)j->al.id, NULL};
		job_ask(argv, text, sizeof text);
		if (budget_pbs_left(text, &left) != 0)
			left = -1;
	}
	if (job_budget(left, &budget) == 0)
		snprintf(buf, len, "%ld", budget);
}

static int job_run(const struct job *j, int resume, int *status, struct pf_err *e)
{
	char budget[64];
	struct job_argv cmd = {0};
	job_time_budget(j, budget, sizeof budget);
	int rc = job_run_argv(&cmd, j->self, j->config, j->results, resume,
			      budget[0] ? budget : NULL) != 0
			 ? pf_fail(e, PF_RUNTIME, "job: out of memory")
			 : job_launch(j, &cmd, status, e);
	job_argv_free(&cmd);
	if (rc == 0 && (*status == PF_PARTIAL || *status >= 128))
		job_say("the study is not complete (exit status %d)%s%s%s", *status,
			j->next[0] ? ": job " : "", j->next, j->next[0] ? " continues it" : "");
	return rc;
}

/* The whole report of the file, once (run printed no table); a failed report fails a job
 * that had not failed. */
static void job_report(const struct job *j, int *status)
{
	struct pf_err e = {0};
	char *argv[] = {(char *)j->results, NULL};
	if (access(j->results, F_OK) != 0)
		return;
	fputc('\n', stdout);
	if (report_command(1, argv, &e) != 0) {
		fflush(stdout);
		fputs("pfsread: ", stderr);
		safe_fput(stderr, e.msg, 0);
		fputc('\n', stderr);
		if (*status == 0)
			*status = PF_RUNTIME;
	}
	fflush(stdout);
}

/* mkdir -p */
static int job_mkdirs(const char *dir, struct pf_err *e)
{
	char path[JOB_PATH];
	snprintf(path, sizeof path, "%s", dir);
	if (path[0] == '\0')
		return 0;
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return pf_fail_errno(e, errno, "job: cannot make %s", path);
		if ((*p = c) == '\0')
			return 0;
	}
}

/* --complete FILE: 1 (nothing more to do, exit 0) when FILE's study is complete, else -1
 * with e set (PF_RUNTIME): the sweep asks it of each job's results. */
static int job_is_complete(const char *path, struct pf_err *e)
{
	int c = results_is_complete(path, e);
	if (c == 0)
		pf_fail(e, PF_RUNTIME, "job: %s: the study is not complete", path);
	return c == 1 ? 1 : -1;
}

/* Up to the launch: the checks, which stop the job before anything runs. 1 when nothing is
 * left to do (a complete chain), 0 to go on, -1 with e set. */
static int job_prepare(int argc, char **argv, struct job *j, struct pf_err *e)
{
	const char *work = job_var("PBS_O_WORKDIR");
	char shown[8192];
	if (work != NULL && chdir(work) != 0) /* PBS starts jobs in the home directory */
		return pf_fail_errno(e, errno, "job: cannot enter PBS_O_WORKDIR %s", work);
	if (job_parse(argc, argv, j, e) != 0)
		return -1;
	if (j->complete != NULL)
		return job_is_complete(j->complete, e);
	if (job_self(j, e) != 0 || job_allocation(j, e) != 0 ||
	    job_launcher(j, e) != 0 || job_plan(j, e) != 0)
		return -1;
	enum job_start s = job_start(j, e);
	if (s == JOB_START_DONE || s == JOB_START_EXISTS)
		return s == JOB_START_DONE ? 1 : -1;
	if (job_chain_check(j, e) != 0)
		return -1;
	job_say("job %s: %d node(s) x %d ranks, pfsread %s (git %s)", j->al.id, j->al.nodes,
		j->al.per_node, PFSREAD_VERSION, PFSREAD_GIT);
	job_say("config %s, results %s", j->config, j->results);
	job_argv_show(&j->launch, shown, sizeof shown);
	job_say("launch: %s", shown);
	if (j->generate < 0)
		j->generate = job_datasets_missing(&j->x);
	return 0;
}

static int job_steps(struct job *j, int *status, struct pf_err *e)
{
	int resume = j->chain_results != NULL && access(j->results, F_OK) == 0;
	if (job_generate(j, status, e) != 0 || *status != 0)
		return *status != 0 ? 0 : -1;
	if (job_mkdirs(j->results_dir, e) != 0 || job_chain_next(j, e) != 0 ||
	    job_run(j, resume, status, e) != 0)
		return -1;
	job_report(j, status);
	job_say("done, exit status %d, results in %s", *status, j->results);
	return 0;
}

int job_command(int argc, char **argv, struct pf_err *e)
{
	struct job *j = calloc(1, sizeof *j);
	int status = 0, rc;
	if (j == NULL)
		return pf_fail(e, PF_RUNTIME, "job: out of memory");
	if (setvbuf(stdout, NULL, _IOLBF, 0) != 0)
		rc = pf_fail(e, PF_RUNTIME, "job: cannot set up stdout");
	else
		rc = job_prepare(argc, argv, j, e);
	if (rc == 0)
		rc = job_steps(j, &status, e);
	job_argv_free(&j->launch);
	cfg_free(&j->x);
	free(j);
	fflush(stdout);
	return rc < 0 ? -1 : status;
}
