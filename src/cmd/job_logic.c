/* job_logic: the decisions of `pfsread job` from strings alone (see the header): the
 * allocation, the argument vectors of the launcher, sbatch and qsub, the budget and the chain. */
#include "cmd/job_logic.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *job_env_get(const struct job_env *env, const char *name)
{
	const char *v = env->get(env->ctx, name);
	return v != NULL && *v != '\0' ? v : NULL;
}

int job_count(const char *text, int *n)
{
	long v = 0;
	if (text == NULL || *text < '1' || *text > '9')
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*n = (int)v;
	return 0;
}

int job_least_tasks(const char *text, int *least)
{
	int best = 0;
	const char *p = text;
	while (p != NULL && *p) {
		char item[32];
		size_t len = strcspn(p, ",");
		size_t num = strcspn(p, "(,");
		int n;
		if (num >= sizeof item)
			return -1;
		memcpy(item, p, num);
		item[num] = '\0';
		if (job_count(item, &n) != 0)
			return -1;
		if (best == 0 || n < best)
			best = n;
		p += len;
		if (*p == ',')
			p++;
	}
	if (best == 0)
		return -1;
	*least = best;
	return 0;
}

static int job_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The node file's host names (blanks at a line's end dropped), in order, into *lines. */
static int job_nodefile_lines(char *copy, char ***lines, size_t *n)
{
	size_t cap = 64;
	*n = 0;
	if ((*lines = malloc(cap * sizeof **lines)) == NULL)
		return -1;
	for (char *line = strtok(copy, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		size_t len = strlen(line);
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (*n == cap) {
			char **more = realloc(*lines, 2 * cap * sizeof *more);
			if (more == NULL)
				return -1;
			*lines = more;
			cap *= 2;
		}
		(*lines)[(*n)++] = line;
	}
	return 0;
}

int job_nodefile_count(const char *text, int *nodes, int *least)
{
	char *copy = strdup(text), **lines = NULL;
	size_t n = 0;
	int rc = -1, hosts = 0, fewest = 0;
	if (copy == NULL || job_nodefile_lines(copy, &lines, &n) != 0 || n == 0)
		goto out;
	qsort(lines, n, sizeof *lines, job_strcmp);
	for (size_t i = 0, run = 1; i < n; i++, run++) {
		if (i + 1 < n && strcmp(lines[i], lines[i + 1]) == 0)
			continue;
		hosts++;
		if (fewest == 0 || (int)run < fewest)
			fewest = (int)run;
		run = 0;
	}
	*nodes = hosts;
	*least = fewest;
	rc = 0;
out:
	free(lines);
	free(copy);
	return rc;
}

/* Slurm's nodes and ranks per node, as text. */
static void job_slurm_counts(const struct job_env *env, const char **nodes, const char **per,
			     char *least, size_t len)
{
	const char *tasks = job_env_get(env, "SLURM_TASKS_PER_NODE");
	int n;
	*nodes = job_env_get(env, "SLURM_JOB_NUM_NODES");
	if (*nodes == NULL)
		*nodes = job_env_get(env, "SLURM_NNODES");
	if (*nodes == NULL)
		*nodes = "1";
	*per = job_env_get(env, "SLURM_NTASKS_PER_NODE");
	if (*per == NULL && tasks == NULL)
		*per = "1";
	else if (*per == NULL && job_least_tasks(tasks, &n) == 0) {
		snprintf(least, len, "%d", n);
		*per = least;
	} else if (*per == NULL)
		*per = tasks;
}

static int job_alloc_pbs(const struct job_env *env, const char *nodefile, struct job_alloc *a,
			 struct pf_err *e)
{
	const char *id = job_env_get(env, "PBS_JOBID");
	if (id == NULL)
		return pf_fail(e, PF_USAGE, "job: PBS_NODEFILE is set but PBS_JOBID is not");
	if (nodefile == NULL)
		return pf_fail(e, PF_USAGE, "job: PBS_NODEFILE %s is not readable",
			       job_env_get(env, "PBS_NODEFILE"));
	a->batch = JOB_PBS;
	snprintf(a->id, sizeof a->id, "%s", id);
	if (job_nodefile_count(nodefile, &a->nodes, &a->per_node) != 0)
		return pf_fail(e, PF_USAGE, "job: PBS_NODEFILE %s names no host",
			       job_env_get(env, "PBS_NODEFILE"));
	return 0;
}

int job_alloc_parse(const struct job_env *env, const char *nodefile, struct job_alloc *a,
		    struct pf_err *e)
{
	const char *nodes = NULL, *per = NULL, *id = job_env_get(env, "SLURM_JOB_ID");
	char least[32], have[32];
	memset(a, 0, sizeof *a);
	if (job_env_get(env, "PBS_NODEFILE") != NULL) {
		if (job_alloc_pbs(env, nodefile, a, e) != 0)
			return -1;
		snprintf(have, sizeof have, "%d", a->nodes);
		nodes = have;
		snprintf(least, sizeof least, "%d", a->per_node);
		per = least;
	} else if (id != NULL) {
		a->batch = JOB_SLURM;
		snprintf(a->id, sizeof a->id, "%s", id);
		job_slurm_counts(env, &nodes, &per, least, sizeof least);
	} else {
		return pf_fail(e, PF_USAGE, "job: not inside a Slurm or PBS job (on one machine use "
			       "jobscripts/local/pfsread-local.sh)");
	}
	if (job_env_get(env, "PFSREAD_RANKS_PER_NODE") != NULL)
		per = job_env_get(env, "PFSREAD_RANKS_PER_NODE");
	if (job_count(nodes, &a->nodes) != 0 || job_count(per, &a->per_node) != 0 ||
	    a->nodes > INT_MAX / a->per_node)
		return pf_fail(e, PF_USAGE, "job: cannot tell the allocation: '%s' nodes, '%s' ranks "
			       "per node", nodes, per);
	a->ranks = a->nodes * a->per_node;
	return 0;
}

/* ---- argument vectors ------------------------------------------------------------------- */

int job_argv_add(struct job_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		char **v = realloc(a->v, cap * sizeof *v);
		if (v == NULL)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	if ((a->v[a->n] = strdup(s)) == NULL)
		return -1;
	a->v[++a->n] = NULL;
	return 0;
}

int job_argv_addf(struct job_argv *a, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof buf)
		return -1;
	return job_argv_add(a, buf);
}

int job_argv_push(struct job_argv *a, ...)
{
	va_list ap;
	int rc = 0;
	va_start(ap, a);
	for (const char *s = va_arg(ap, const char *); s != NULL && rc == 0;
	     s = va_arg(ap, const char *))
		rc = job_argv_add(a, s);
	va_end(ap);
	return rc;
}

int job_argv_split(struct job_argv *a, const char *text)
{
	const char *blanks = " \t\n";
	for (const char *p = text; p != NULL && *p;) {
		p += strspn(p, blanks);
		size_t len = strcspn(p, blanks);
		if (len == 0)
			break;
		char *word = strndup(p, len);
		int rc = word == NULL ? -1 : job_argv_add(a, word);
		free(word);
		if (rc != 0)
			return -1;
		p += len;
	}
	return 0;
}

int job_argv_cat(struct job_argv *a, const struct job_argv *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (job_argv_add(a, b->v[i]) != 0)
			return -1;
	return 0;
}

void job_argv_free(struct job_argv *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* 1 when the shell takes word as it is: no blank, quote, glob or other special character. */
static int job_word_plain(const char *word)
{
	if (*word == '\0')
		return 0;
	for (const char *p = word; *p; p++)
		if (!isalnum((unsigned char)*p) && strchr("_-+=:,./@%^", *p) == NULL)
			return 0;
	return 1;
}

void job_argv_show(const struct job_argv *a, char *out, size_t len)
{
	size_t used = 0;
	if (len == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < a->n && used + 1 < len; i++) {
		const char *w = a->v[i];
		if (i > 0)
			out[used++] = ' ';
		if (job_word_plain(w)) {
			used += (size_t)snprintf(out + used, len - used, "%s", w);
			continue;
		}
		out[used++] = '\'';
		for (; *w && used + 5 < len; w++)
			used += *w == '\'' ? (size_t)snprintf(out + used, len - used, "'\\''")
					   : (size_t)snprintf(out + used, len - used, "%c", *w);
		if (used + 1 < len)
			out[used++] = '\'';
		out[used < len ? used : len - 1] = '\0';
	}
	if (used >= len)
		out[len - 1] = '\0';
}

/* ---- the launcher ----------------------------------------------------------------------- */

int job_launcher_parse(const char *name, enum job_launcher *l, struct pf_err *e)
{
	if (strcmp(name, "mpirun") == 0)
		*l = JOB_MPIRUN;
	else if (strcmp(name, "srun") == 0)
		*l = JOB_SRUN;
	else
		return pf_fail(e, PF_USAGE, "job: PFSREAD_LAUNCHER must be mpirun or srun, not '%s'",
			       name);
	return 0;
}

enum job_mpi job_mpi_kind(const char *version_text)
{
	if (strstr(version_text, "Open MPI") != NULL || strstr(version_text, "OpenRTE") != NULL)
		return JOB_OPEN_MPI;
	return JOB_HYDRA;
}

static int job_mpirun_argv(const struct job_alloc *al, const struct job_launch *l,
			   struct job_argv *out)
{
	char np[16], per[32];
	snprintf(np, sizeof np, "%d", al->ranks);
	if (l->mpi == JOB_OPEN_MPI) {
		snprintf(per, sizeof per, "ppr:%d:node", al->per_node);
		if (job_argv_push(out, "mpirun", "-np", np, "--map-by", per, NULL) != 0 ||
		    (l->root && job_argv_push(out, "--allow-run-as-root", NULL) != 0))
			return -1;
		return l->nodefile ? job_argv_push(out, "--hostfile", l->nodefile, NULL) : 0;
	}
	snprintf(per, sizeof per, "%d", al->per_node);
	if (job_argv_push(out, "mpirun", "-np", np, "-ppn", per, NULL) != 0)
		return -1;
	return l->nodefile ? job_argv_push(out, "-f", l->nodefile, NULL) : 0;
}

static int job_srun_argv(const struct job_alloc *al, const struct job_launch *l,
			 struct job_argv *out)
{
	char mpi[128], nodes[32], ntasks[32], per[48];
	snprintf(mpi, sizeof mpi, "--mpi=%s", l->srun_mpi ? l->srun_mpi : "pmix");
	snprintf(nodes, sizeof nodes, "--nodes=%d", al->nodes);
	snprintf(ntasks, sizeof ntasks, "--ntasks=%d", al->ranks);
	snprintf(per, sizeof per, "--ntasks-per-node=%d", al->per_node);
	return job_argv_push(out, "srun", mpi, nodes, ntasks, per, NULL);
}

int job_launch_argv(const struct job_alloc *al, const struct job_launch *l, struct job_argv *out)
{
	int rc = l->launcher == JOB_SRUN ? job_srun_argv(al, l, out) : job_mpirun_argv(al, l, out);
	if (rc == 0 && l->flags != NULL)
		rc = job_argv_split(out, l->flags);
	return rc;
}

int job_run_argv(struct job_argv *out, const char *self, const char *config, const char *results,
		 int resume, const char *budget)
{
	if (job_argv_push(out, self, "run", config, "--no-table", resume ? "--resume" : "-o",
			  results, NULL) != 0)
		return -1;
	return budget ? job_argv_push(out, "--time-budget", budget, NULL) : 0;
}

/* ---- time and the chain ----------------------------------------------------------------- */

int job_budget(double left_s, long *budget_s)
{
	long left = (long)left_s;
	if (!(left_s > 20) || left_s > 1e12)
		return -1;
	*budget_s = left > 240 ? left - 60 : left - left / 4;
	return 0;
}

int job_generate_parse(const char *text, enum job_generate *g, struct pf_err *e)
{
	if (text == NULL || strcmp(text, "auto") == 0)
		*g = JOB_GEN_AUTO;
	else if (strcmp(text, "always") == 0)
		*g = JOB_GEN_ALWAYS;
	else if (strcmp(text, "never") == 0)
		*g = JOB_GEN_NEVER;
	else
		return pf_fail(e, PF_USAGE, "job: PFSREAD_GENERATE must be auto, always or never");
	return 0;
}

enum job_start job_start_of(int follow_on, int exists, int complete)
{
	if (!follow_on)
		return exists ? JOB_START_EXISTS : JOB_START_NEW;
	if (!exists)
		return JOB_START_NEW;
	return complete ? JOB_START_DONE : JOB_START_RESUME;
}

int job_chain_parse(const char *text, unsigned *chain, struct pf_err *e)
{
	unsigned long v = 0;
	if (text == NULL || *text == '\0')
		return pf_fail(e, PF_USAGE, "job: --chain needs a number of jobs, not ''");
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000)
			return pf_fail(e, PF_USAGE, "job: --chain needs a number of jobs, not '%s'",
				       text);
		v = v * 10 + (unsigned long)(*p - '0');
	}
	*chain = (unsigned)v;
	return 0;
}

int job_script_of_command(const char *command, int (*exists)(const char *path), char *out,
			  size_t len)
{
	if (command == NULL || strlen(command) >= len)
		return -1;
	snprintf(out, len, "%s", command);
	while (*out != '\0' && !exists(out)) {
		char *blank = strrchr(out, ' ');
		if (blank == NULL)
			*out = '\0';
		else
			*blank = '\0';
	}
	return *out != '\0' ? 0 : -1;
}

/* The value of "KEY = VALUE" (qstat -f) or "KEY=VALUE" (scontrol) on the line at line, when
 * the line's first word is key: into out (cut at the line's end). 0, or -1. */
static int job_line_value(const char *line, const char *key, const char *sep, char *out,
			  size_t len)
{
	line += strspn(line, " \t");
	size_t k = strlen(key), s = strlen(sep);
	if (strncmp(line, key, k) != 0 || strncmp(line + k, sep, s) != 0)
		return -1;
	line += k + s;
	size_t v = strcspn(line, "\r\n");
	if (v >= len)
		return -1;
	memcpy(out, line, v);
	out[v] = '\0';
	return 0;
}

int job_scontrol_command(const char *text, char *out, size_t len)
{
	for (const char *p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (job_line_value(p, "Command", "=", out, len) == 0)
			return 0;
	return -1;
}

int job_pbs_resources(const char *qstat_text, struct job_argv *out)
{
	static const char *const kept[] = {"select", "nodes", "walltime", "place"};
	char key[64], value[1024];
	for (const char *p = qstat_text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (job_line_value(p, "queue", " = ", value, sizeof value) == 0) {
			if (job_argv_add(out, "-q") != 0 || job_argv_add(out, value) != 0)
				return -1;
			continue;
		}
		for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
			snprintf(key, sizeof key, "Resource_List.%s", kept[i]);
			if (job_line_value(p, key, " = ", value, sizeof value) == 0 &&
			    (job_argv_add(out, "-l") != 0 ||
			     job_argv_addf(out, "%s=%s", kept[i], value) != 0))
				return -1;
		}
	}
	return 0;
}

int job_sbatch_argv(const struct job_next *n, struct job_argv *out)
{
	char dep[JOB_ID_MAX + 32], nodes[32], per[48];
	snprintf(dep, sizeof dep, "--dependency=afterany:%s", n->id);
	snprintf(nodes, sizeof nodes, "--nodes=%d", n->nodes);
	snprintf(per, sizeof per, "--ntasks-per-node=%d", n->per_node);
	if (job_argv_push(out, "sbatch", "--parsable", dep, nodes, per, NULL) != 0 ||
	    (n->limit && job_argv_addf(out, "--time=%s", n->limit) != 0) ||
	    (n->partition && job_argv_addf(out, "--partition=%s", n->partition) != 0))
		return -1;
	return job_argv_push(out, "--export=ALL", n->script, n->config, NULL);
}

int job_qsub_argv(const struct job_next *n, const struct job_argv *resources,
		  struct job_argv *out)
{
	char dep[JOB_ID_MAX + 32];
	snprintf(dep, sizeof dep, "depend=afterany:%s", n->id);
	if (job_argv_push(out, "qsub", "-W", dep, NULL) != 0 || job_argv_cat(out, resources) != 0)
		return -1;
	return job_argv_push(out, "-v", n->names, n->script, NULL);
}

/* A variable's name from "NAME=VALUE", into out; 0, or -1 when it is not PFSREAD's. */
static int job_pfsread_name(const char *entry, char *out, size_t len)
{
	size_t n = strcspn(entry, "=");
	if (strncmp(entry, "PFSREAD", 7) != 0 || entry[n] != '=' || n >= len)
		return -1;
	memcpy(out, entry, n);
	out[n] = '\0';
	return 0;
}

int job_pbs_names(char *const *environ_list, char *out, size_t len)
{
	static const char *const chain[] = {"PFSREAD", "PFSREAD_CONFIG", "PFSREAD_CHAIN",
					    "PFSREAD_CHAIN_RESULTS"};
	struct job_argv names = {0};
	char name[256];
	size_t used = 0;
	int rc = -1;
	for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++)
		if (job_argv_add(&names, chain[i]) != 0)
			goto out;
	for (size_t i = 0; environ_list != NULL && environ_list[i] != NULL; i++)
		if (job_pfsread_name(environ_list[i], name, sizeof name) == 0 &&
		    job_argv_add(&names, name) != 0)
			goto out;
	qsort(names.v, names.n, sizeof *names.v, job_strcmp);
	out[0] = '\0';
	for (size_t i = 0; i < names.n; i++) {
		if (i > 0 && strcmp(names.v[i], names.v[i - 1]) == 0)
			continue;
		int w = snprintf(out + used, len - used, "%s%s", used ? "," : "", names.v[i]);
		if (w < 0 || (size_t)w >= len - used)
			goto out;
		used += (size_t)w;
	}
	rc = 0;
out:
	job_argv_free(&names);
	return rc;
}

int job_slurm_limit(const char *text, char *out, size_t len)
{
	size_t used = 0;
	int digit = 0;
	for (const char *p = text; p != NULL && *p; p++) {
		if (isspace((unsigned char)*p))
			continue;
		if (used + 1 >= len)
			return -1;
		digit |= isdigit((unsigned char)*p) != 0;
		out[used++] = *p;
	}
	out[used] = '\0';
	return digit ? 0 : -1;
}
