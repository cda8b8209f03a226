/* job_proc: the processes `pfsread job` starts, each from an argument vector (fork, execvp,
 * waitpid: never through a shell, so no word of a path is split, globbed or quoted): the
 * launcher, whose output goes where the job's goes, and the batch system's commands, whose
 * output is captured. */
#ifndef PFSREAD_CMD_JOB_PROC_H
#define PFSREAD_CMD_JOB_PROC_H

#include <stddef.h>

#include "util/err.h"

/* Runs argv[0] (looked up in PATH) with argv, its environment this process's plus env_add
 * ("NAME=VALUE" strings, NULL-terminated; NULL: none), and waits for it. SIGUSR1 and SIGUSR2
 * that reach this process meanwhile are passed on to it (the batch system's warning, sent to
 * the job script alone with --signal=B:USR1). *status: its exit status, 128 + the signal that
 * ended it, or 127 when it could not be started (said on stderr). 0, or -1 with e set when no
 * process could be made. */
int job_proc_run(char *const *argv, char *const *env_add, int *status, struct pf_err *e);

/* As job_proc_run, but what it writes on stdout (and stderr, with merge) goes into buf (the
 * first len - 1 bytes, NUL-terminated), stdin is /dev/null, and a command still running after
 * timeout_s seconds is killed (status 128 + 9): a scheduler that does not answer must not hold
 * the job. */
int job_proc_capture(char *const *argv, char *const *env_add, int merge, int timeout_s,
		     char *buf, size_t len, int *status, struct pf_err *e);

/* 1 when name is an executable file in a directory of PATH. */
int job_proc_on_path(const char *name);

#endif
