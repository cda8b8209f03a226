/* job_logic: the decisions of `pfsread job`, with nothing of the machine in them: the
 * allocation from the batch system's variables and node file, the launcher's and the
 * follow-on job's argument vectors, the time the job has left, the chain's next step and a
 * command line shown to a person. The variables come in through a lookup, the text of the
 * node file and of scontrol, squeue and qstat as strings: no environment, no processes, no
 * MPI. Unit-tested (test_job_logic). */
#ifndef PFSREAD_CMD_JOB_LOGIC_H
#define PFSREAD_CMD_JOB_LOGIC_H

#include <stddef.h>

#include "util/err.h"

/* A variable's value, or NULL when it is unset or empty (as the job scripts took both). */
struct job_env {
	const char *(*get)(void *ctx, const char *name);
	void *ctx;
};
const char *job_env_get(const struct job_env *env, const char *name);

enum job_batch { JOB_SLURM, JOB_PBS };

#define JOB_ID_MAX 128

struct job_alloc {
	enum job_batch batch;
	char id[JOB_ID_MAX];     /* SLURM_JOB_ID or PBS_JOBID */
	int nodes, per_node;     /* per_node: the least ranks any node has */
	int ranks;               /* nodes * per_node */
};

/* The allocation: PBS when PBS_NODEFILE is set (nodefile: its text, NULL when it could not be
 * read), else Slurm when SLURM_JOB_ID is set (SLURM_JOB_NUM_NODES or SLURM_NNODES;
 * SLURM_NTASKS_PER_NODE, else the least count of SLURM_TASKS_PER_NODE). PFSREAD_RANKS_PER_NODE
 * replaces the ranks per node. 0, or -1 with e set (PF_USAGE). */
int job_alloc_parse(const struct job_env *env, const char *nodefile, struct job_alloc *a,
		    struct pf_err *e);

/* The least count of Slurm's SLURM_TASKS_PER_NODE ("4(x99),3" gives 3): 0, or -1. */
int job_least_tasks(const char *text, int *least);

/* A node file (a host name a line, once per slot): *nodes the distinct hosts, *least the
 * fewest lines of any host. Blank lines do not count. 0, or -1 when it names no host. */
int job_nodefile_count(const char *text, int *nodes, int *least);

/* A positive decimal count without sign or leading zero, as a job's variables hold it: 0
 * and *n, or -1. */
int job_count(const char *text, int *n);

/* An argument vector under construction: v[n] is NULL; the strings are its own copies. */
struct job_argv {
	char **v;
	size_t n, cap;
};
int job_argv_add(struct job_argv *a, const char *s);
int job_argv_addf(struct job_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Each string up to a NULL, in order. 0, or -1 when out of memory. */
int job_argv_push(struct job_argv *a, ...) __attribute__((sentinel));
/* Every word of text (split at blanks, tabs and newlines, no other meaning given to any
 * character): PFSREAD_LAUNCH_FLAGS. */
int job_argv_split(struct job_argv *a, const char *text);
/* Every string of b after a's. */
int job_argv_cat(struct job_argv *a, const struct job_argv *b);
void job_argv_free(struct job_argv *a);

/* The command line a person reads: each word as it is where the shell would take it so,
 * else in single quotes ('\'' for a quote), into out (cut short when it does not fit). */
void job_argv_show(const struct job_argv *a, char *out, size_t len);

enum job_launcher { JOB_MPIRUN, JOB_SRUN };
enum job_mpi { JOB_OPEN_MPI, JOB_HYDRA }; /* mpirun's kind: Open MPI, or MPICH's hydra */

struct job_launch {
	enum job_launcher launcher;
	enum job_mpi mpi;
	int root;              /* Open MPI refuses root unless told */
	const char *nodefile;  /* PBS_NODEFILE, or NULL */
	const char *srun_mpi;  /* srun's --mpi= plugin */
	const char *flags;     /* PFSREAD_LAUNCH_FLAGS, or NULL */
};

/* "mpirun" or "srun" into *l, or -1 (PF_USAGE) for another name. */
int job_launcher_parse(const char *name, enum job_launcher *l, struct pf_err *e);

/* mpirun --version's text: Open MPI (or its OpenRTE) or, for anything else, hydra. */
enum job_mpi job_mpi_kind(const char *version_text);

/* The launcher's words for the allocation, into out (empty): mpirun -np N*R --map-by
 * ppr:R:node [--allow-run-as-root] [--hostfile F] (Open MPI), mpirun -np N*R -ppn R [-f F]
 * (hydra), or srun --mpi=P --nodes=N --ntasks=N*R --ntasks-per-node=R; then the flags. */
int job_launch_argv(const struct job_alloc *al, const struct job_launch *l, struct job_argv *out);

/* What generate, run and --time-budget get: budget NULL for none. */
int job_run_argv(struct job_argv *out, const char *self, const char *config, const char *results,
		 int resume, const char *budget);

/* The budget for a job with left_s seconds to go: a minute less (a quarter less when it has
 * 4 minutes or less). 0 and *budget_s, or -1 when 20 s or less are left (no budget). */
int job_budget(double left_s, long *budget_s);

enum job_generate { JOB_GEN_AUTO, JOB_GEN_ALWAYS, JOB_GEN_NEVER };
/* PFSREAD_GENERATE (NULL: auto). 0, or -1 (PF_USAGE). */
int job_generate_parse(const char *text, enum job_generate *g, struct pf_err *e);

/* What the job does with its results file. */
enum job_start {
	JOB_START_NEW,    /* run -o FILE */
	JOB_START_RESUME, /* run --resume FILE: a follow-on continues the chain's file */
	JOB_START_DONE,   /* a follow-on finds the file complete: nothing left, exit 0 */
	JOB_START_EXISTS  /* not a follow-on and the file exists (a requeued job): refused */
};
enum job_start job_start_of(int follow_on, int exists, int complete);

/* The jobs a chain may still take: the most, from --chain or PFSREAD_CHAIN (digits only). */
int job_chain_parse(const char *text, unsigned *chain, struct pf_err *e);

/* The script Slurm's Command line names: the whole line, else the line with words cut from
 * its end until exists() says yes (arguments may follow the path, the path may hold blanks).
 * 0 and out, or -1 when no such file is left. */
int job_script_of_command(const char *command, int (*exists)(const char *path), char *out,
			  size_t len);

/* The value of the first "KEY=VALUE" line of scontrol show job's text with key "Command"
 * (blanks before it), into out. 0, or -1. */
int job_scontrol_command(const char *text, char *out, size_t len);

/* The follow-on's shape as qstat -f lists it for this job: -l NAME=VALUE for each of
 * Resource_List.select, .nodes, .walltime and .place, -q for queue, in the text's order. */
int job_pbs_resources(const char *qstat_text, struct job_argv *out);

/* What the follow-on is submitted with. */
struct job_next {
	const char *id;          /* this job's id: the follow-on runs after it (afterany) */
	const char *script;      /* the job script */
	const char *config;
	int nodes, per_node;
	const char *limit;       /* Slurm: this job's time limit (squeue %l), or NULL */
	const char *partition;   /* Slurm: SLURM_JOB_PARTITION, or NULL */
	const char *names;       /* PBS: the variables' names for qsub -v */
};
int job_sbatch_argv(const struct job_next *n, struct job_argv *out);
/* resources: job_pbs_resources's words. */
int job_qsub_argv(const struct job_next *n, const struct job_argv *resources,
		  struct job_argv *out);

/* qsub -v's list: the chain's variables and every name of environ ("NAME=VALUE" strings,
 * NULL-terminated) that starts with PFSREAD, sorted (C order), once each, comma-separated.
 * Names only: qsub takes each value from its environment, so a value's commas never split
 * the list. 0, or -1 when it does not fit in len. */
int job_pbs_names(char *const *environ_list, char *out, size_t len);

/* A Slurm time limit from squeue %l, blanks dropped; 0 and out, or -1 when it holds no digit
 * (UNLIMITED, NOT_SET). */
int job_slurm_limit(const char *text, char *out, size_t len);

#endif
