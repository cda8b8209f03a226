/* test_job_logic: pfsread job's decisions without a batch system: the allocation from Slurm's
 * and PBS's variables and node files, the launcher's, sbatch's and qsub's argument vectors
 * (paths with blanks, commas, globs and a PBS array id's [1] kept as one word each), the
 * budget, the chain's start, the script from Slurm's Command line, and qsub -v's name list. */
#include <stdio.h>
#include <string.h>

#include "cmd/job_logic.h"
#include "tap.h"

/* A job's variables: "NAME=VALUE" strings, NULL-terminated. */
static const char *vars_get(void *ctx, const char *name)
{
	size_t n = strlen(name);
	for (const char *const *v = ctx; *v != NULL; v++)
		if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
			return *v + n + 1;
	return NULL;
}

static int alloc_of(const char *const *vars, const char *nodefile, struct job_alloc *a,
		    struct pf_err *e)
{
	struct job_env env = {vars_get, (void *)vars};
	memset(e, 0, sizeof *e);
	return job_alloc_parse(&env, nodefile, a, e);
}

/* argv joined with '|' between words, to compare with one string. */
static const char *joined(const struct job_argv *a)
{
	static char buf[4096];
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < a->n; i++)
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? "|" : "", a->v[i]);
	return buf;
}

static void test_alloc(void)
{
	struct job_alloc a = {0};
	struct pf_err e;
	const char *slurm[] = {"SLURM_JOB_ID=77", "SLURM_JOB_NUM_NODES=100",
			       "SLURM_TASKS_PER_NODE=4(x99),3", NULL};
	ok(alloc_of(slurm, NULL, &a, &e) == 0 && a.batch == JOB_SLURM && a.nodes == 100 &&
	   a.per_node == 3 && a.ranks == 300 && strcmp(a.id, "77") == 0,
	   "Slurm: the least of SLURM_TASKS_PER_NODE (%d x %d)", a.nodes, a.per_node);
	const char *asked[] = {"SLURM_JOB_ID=78", "SLURM_NNODES=2", "SLURM_NTASKS_PER_NODE=4",
			       "SLURM_TASKS_PER_NODE=5(x2)", NULL};
	ok(alloc_of(asked, NULL, &a, &e) == 0 && a.nodes == 2 && a.per_node == 4,
	   "Slurm: SLURM_NNODES and SLURM_NTASKS_PER_NODE when asked for");
	const char *over[] = {"SLURM_JOB_ID=79", "PFSREAD_RANKS_PER_NODE=2", NULL};
	ok(alloc_of(over, NULL, &a, &e) == 0 && a.nodes == 1 && a.per_node == 2 && a.ranks == 2,
	   "PFSREAD_RANKS_PER_NODE replaces the allocation's");
	const char *pbs[] = {"PBS_JOBID=300[1].pbs", "PBS_NODEFILE=/x/300[1].pbs",
			     "SLURM_JOB_ID=9", NULL};
	ok(alloc_of(pbs, "n2\nn1\nn1\nn2\nn3\nn3\nn3\n\n", &a, &e) == 0 && a.batch == JOB_PBS &&
	   a.nodes == 3 && a.per_node == 2 && strcmp(a.id, "300[1].pbs") == 0,
	   "PBS: hosts counted in the node file, the fewest lines of a host per node");
	ok(alloc_of(pbs, NULL, &a, &e) == -1 && strstr(e.msg, "not readable") != NULL,
	   "PBS: an unreadable node file is named");
	const char *noid[] = {"PBS_NODEFILE=/x/n", NULL};
	ok(alloc_of(noid, "n1\n", &a, &e) == -1 && strstr(e.msg, "PBS_JOBID is not") != NULL,
	   "PBS: a node file without PBS_JOBID is refused");
	const char *none[] = {"HOME=/root", "PBS_JOBID=", NULL};
	ok(alloc_of(none, NULL, &a, &e) == -1 && e.status == PF_USAGE &&
	   strstr(e.msg, "not inside a Slurm or PBS job") != NULL, "outside a job: refused");
	const char *bad[] = {"SLURM_JOB_ID=1", "SLURM_JOB_NUM_NODES=02", NULL};
	ok(alloc_of(bad, NULL, &a, &e) == -1 && strstr(e.msg, "'02' nodes") != NULL,
	   "a count with a leading zero is refused, naming it");
	const char *zero[] = {"SLURM_JOB_ID=1", "PFSREAD_RANKS_PER_NODE=0", NULL};
	ok(alloc_of(zero, NULL, &a, &e) == -1, "0 ranks per node is refused");
	int least = 0, nodes = 0;
	ok(job_least_tasks("2", &least) == 0 && least == 2 && job_least_tasks("x", &least) == -1,
	   "SLURM_TASKS_PER_NODE: one count, and garbage refused");
	ok(job_nodefile_count("\n\n", &nodes, &least) == -1, "a node file with no host");
}

static void test_launch(void)
{
	struct job_alloc al = {JOB_PBS, "1", 2, 4, 8};
	struct job_argv a = {0};
	struct job_launch l = {JOB_MPIRUN, JOB_OPEN_MPI, 1, "/aux dir,x/300[1].pbs", NULL,
			       "-x A=* --mca\tbtl\n^openib"};
	ok(job_launch_argv(&al, &l, &a) == 0 &&
	   strcmp(joined(&a), "mpirun|-np|8|--map-by|ppr:4:node|--allow-run-as-root|--hostfile|"
			      "/aux dir,x/300[1].pbs|-x|A=*|--mca|btl|^openib") == 0,
	   "Open MPI: ppr per node, root, the node file one word, the flags split at blanks: %s",
	   joined(&a));
	char shown[256];
	job_argv_show(&a, shown, sizeof shown);
	ok(strcmp(shown, "mpirun -np 8 --map-by ppr:4:node --allow-run-as-root --hostfile "
			 "'/aux dir,x/300[1].pbs' -x 'A=*' --mca btl ^openib") == 0,
	   "shown: quoted where the shell would split or glob: %s", shown);
	job_argv_free(&a);
	l.mpi = JOB_HYDRA;
	l.root = 0;
	l.flags = NULL;
	ok(job_launch_argv(&al, &l, &a) == 0 &&
	   strcmp(joined(&a), "mpirun|-np|8|-ppn|4|-f|/aux dir,x/300[1].pbs") == 0,
	   "hydra (MPICH, Intel MPI): -ppn and -f: %s", joined(&a));
	job_argv_free(&a);
	l.launcher = JOB_SRUN;
	ok(job_launch_argv(&al, &l, &a) == 0 &&
	   strcmp(joined(&a), "srun|--mpi=pmix|--nodes=2|--ntasks=8|--ntasks-per-node=4") == 0,
	   "srun: --mpi=pmix by default: %s", joined(&a));
	job_argv_free(&a);
	struct pf_err e = {0};
	enum job_launcher which;
	ok(job_launcher_parse("mpiexec", &which, &e) == -1 && e.status == PF_USAGE,
	   "a launcher other than mpirun or srun is refused");
	ok(job_mpi_kind("mpirun (Open MPI) 4.1.4") == JOB_OPEN_MPI &&
	   job_mpi_kind("HYDRA build details:") == JOB_HYDRA, "mpirun's kind from --version");
	ok(job_run_argv(&a, "/b/pfsread", "c,1.yaml", "/r/q-1.h5", 1, "600") == 0 &&
	   strcmp(joined(&a), "/b/pfsread|run|c,1.yaml|--no-table|--resume|/r/q-1.h5|"
			      "--time-budget|600") == 0, "run: --resume and the budget");
	job_argv_free(&a);
	ok(job_run_argv(&a, "p", "c", "r", 0, NULL) == 0 &&
	   strcmp(joined(&a), "p|run|c|--no-table|-o|r") == 0, "run: -o, no budget");
	job_argv_free(&a);
	struct job_argv empty = {0};
	job_argv_push(&empty, "", "it's", NULL);
	job_argv_show(&empty, shown, sizeof shown);
	ok(strcmp(shown, "'' 'it'\\''s'") == 0, "an empty word and a quote shown: %s", shown);
	job_argv_free(&empty);
}

static void test_time_and_chain(void)
{
	long b = 0;
	ok(job_budget(600, &b) == 0 && b == 540, "10 minutes left: a minute less");
	ok(job_budget(200, &b) == 0 && b == 150, "under 4 minutes: a quarter less");
	ok(job_budget(20, &b) == -1 && job_budget(-1, &b) == -1, "20 s or unknown: no budget");
	ok(job_start_of(0, 0, 0) == JOB_START_NEW && job_start_of(0, 1, 0) == JOB_START_EXISTS &&
	   job_start_of(1, 0, 0) == JOB_START_NEW && job_start_of(1, 1, 0) == JOB_START_RESUME &&
	   job_start_of(1, 1, 1) == JOB_START_DONE, "the chain's start from the results file");
	unsigned chain = 0;
	struct pf_err e = {0};
	ok(job_chain_parse("10", &chain, &e) == 0 && chain == 10, "--chain 10");
	ok(job_chain_parse("1x", &chain, &e) == -1 && strstr(e.msg, "'1x'") != NULL &&
	   e.status == PF_USAGE, "--chain 1x refused, naming it");
	enum job_generate g;
	ok(job_generate_parse(NULL, &g, &e) == 0 && g == JOB_GEN_AUTO &&
	   job_generate_parse("never", &g, &e) == 0 && g == JOB_GEN_NEVER,
	   "PFSREAD_GENERATE: auto by default");
	char limit[32];
	ok(job_slurm_limit(" 1:00 \n", limit, sizeof limit) == 0 && strcmp(limit, "1:00") == 0 &&
	   job_slurm_limit("UNLIMITED", limit, sizeof limit) == -1, "squeue %%l: blanks dropped");
}

static int exists_fake(const char *path)
{
	return strcmp(path, "/j s,x/pfsread.sbatch") == 0;
}

static void test_script(void)
{
	char out[256], cmd[256];
	ok(job_script_of_command("/j s,x/pfsread.sbatch /c d/t.yaml --chain 3", exists_fake, out,
				 sizeof out) == 0 && strcmp(out, "/j s,x/pfsread.sbatch") == 0,
	   "Command with arguments after the path: the path alone, its blank kept");
	ok(job_script_of_command("/nowhere x", exists_fake, out, sizeof out) == -1,
	   "no file left: none");
	ok(job_scontrol_command("JobId=5 JobName=p\n   Command=/j s/a.sbatch c\n   WorkDir=/w\n",
				cmd, sizeof cmd) == 0 && strcmp(cmd, "/j s/a.sbatch c") == 0,
	   "scontrol's Command line, whole");
}

static void test_follow_on(void)
{
	struct job_argv res = {0}, a = {0};
	const char *qstat = "Job Id: 300.pbs\n    queue = workq\n    Resource_List.ncpus = 2\n"
			    "    Resource_List.place = scatter\n"
			    "    Resource_List.select = 1:ncpus=2:mpiprocs=2\n"
			    "    Resource_List.walltime = 00:10:00\n"
			    "    resources_used.walltime = 00:00:05\n";
	ok(job_pbs_resources(qstat, &res) == 0 &&
	   strcmp(joined(&res), "-q|workq|-l|place=scatter|-l|select=1:ncpus=2:mpiprocs=2|-l|"
				"walltime=00:10:00") == 0, "qstat -f: queue, place, select, walltime: %s",
	   joined(&res));
	struct job_next n = {"300[1].pbs", "/j s,PFSREAD_CHAIN=9/pfsread.pbs", "/c/t*[1].yaml",
			     1, 2, NULL, NULL, "PFSREAD,PFSREAD_CHAIN"};
	ok(job_qsub_argv(&n, &res, &a) == 0 &&
	   strcmp(joined(&a), "qsub|-W|depend=afterany:300[1].pbs|-q|workq|-l|place=scatter|-l|"
			      "select=1:ncpus=2:mpiprocs=2|-l|walltime=00:10:00|-v|"
			      "PFSREAD,PFSREAD_CHAIN|/j s,PFSREAD_CHAIN=9/pfsread.pbs") == 0,
	   "qsub: after this job, its resources, names only, the script one word: %s", joined(&a));
	job_argv_free(&a);
	n.id = "100";
	n.limit = "1:00";
	n.partition = "one";
	ok(job_sbatch_argv(&n, &a) == 0 &&
	   strcmp(joined(&a), "sbatch|--parsable|--dependency=afterany:100|--nodes=1|"
			      "--ntasks-per-node=2|--time=1:00|--partition=one|--export=ALL|"
			      "/j s,PFSREAD_CHAIN=9/pfsread.pbs|/c/t*[1].yaml") == 0,
	   "sbatch: this job's shape and limit, --export=ALL, script and config one word each");
	job_argv_free(&a);
	job_argv_free(&res);
	char *env[] = {"HOME=/root", "PFSREAD_SRUN_MPI=pmix", "PFSREAD_CHAIN=3", "PFSREADX=1",
		       "XPFSREAD=2", "PFSREAD_LAUNCH_FLAGS=a,b=c", NULL};
	char names[256];
	ok(job_pbs_names(env, names, sizeof names) == 0 &&
	   strcmp(names, "PFSREAD,PFSREADX,PFSREAD_CHAIN,PFSREAD_CHAIN_RESULTS,PFSREAD_CONFIG,"
			 "PFSREAD_LAUNCH_FLAGS,PFSREAD_SRUN_MPI") == 0,
	   "qsub -v: the chain's names and the job's PFSREAD* names, sorted, once: %s", names);
	ok(job_pbs_names(env, names, 20) == -1, "a list that does not fit fails");
}

int main(void)
{
	test_alloc();
	test_launch();
	test_time_and_chain();
	test_script();
	test_follow_on();
	return tap_done();
}
