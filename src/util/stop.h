/* stop: why a run should end early. SIGTERM or SIGINT (a batch system's time limit, a user's
 * Ctrl-C) and the per-phase time limit (SIGALRM) only set a flag here; the phase driver looks
 * at it between reads and after an interrupted system call, finishes the phase as
 * "interrupted" or "timeout", and the results file is closed properly. */
#ifndef PFSREAD_STOP_H
#define PFSREAD_STOP_H

#include "util/err.h"

/* Install the handlers (without SA_RESTART, so a blocked open or read returns EINTR). */
int stop_install(void);

/* The signal that asked to stop (SIGTERM, SIGINT), or 0. */
int stop_signal(void);

/* 1 once SIGUSR1 arrived: the batch system's warning that the job's time is nearly up
 * (`#SBATCH --signal=B:USR1@300`, forwarded by mpirun). Unlike SIGTERM it does not interrupt
 * the phase in progress: run finishes it, starts no other and closes the file "partial". */
int stop_wrap_up(void);

/* Start the phase's time limit (seconds > 0), or cancel it (0). */
int stop_arm(double seconds);

/* 1 once the armed time limit has passed. Cleared by stop_arm. */
int stop_timed_out(void);

/* stop_signal() || stop_timed_out(). */
int stop_now(void);

/* The exit status of a run stopped by a signal: 128 + the signal (143 for SIGTERM), as a shell
 * reports a killed job; PF_RUNTIME when no signal asked (a time limit). */
int stop_status(void);

/* Every long loop outside a timed phase (config load, planning, generation, verify, clean,
 * calibrate) asks this once per item: 0 to go on, or -1 with e set ("WHAT: interrupted by
 * signal N", status stop_status()) once SIGTERM or SIGINT arrived. Cheap: one load. */
int stop_check(struct pf_err *e, const char *what);

/* The start-up watchdog: a run that has not reached its first phase (or a command its work)
 * seconds after the first call here is stuck (an MPI start-up that hangs spins without a
 * word). Then this process prints the stage it was at and exits with status 1. Later calls
 * set a new limit, still counted from the first call; 0 disarms it. Returns 0 or -1. */
int stop_watchdog_arm(double seconds);

/* What start-up is doing now, for the watchdog's message: a string that outlives the run. */
void stop_watchdog_stage(const char *stage);

/* This process's rank, for the watchdog's message (-1: not known yet); the host name is
 * taken then too. */
void stop_watchdog_rank(int rank);

/* The same watchdog for one step after start-up that no signal can interrupt (a collective
 * HDF5 write whose ranks went separate ways after one's write failed without an error):
 * seconds counted from now; once they have passed the process prints "pfsread: rank R: WHAT:
 * stuck for N s; giving up" and exits with status 1. 0 disarms it. Returns 0 or -1. */
int stop_watchdog_step(double seconds, const char *what);

/* Before a step's watchdog ends the process, it runs argv (argv[0] a path; a helper that
 * closes the results file by a path of its own) and waits for it a few seconds; its message
 * then says whether the helper did it (exit 0). The strings must live until the call with
 * NULL, which clears it. */
void stop_watchdog_last_words(char *const *argv);

/* The other ranks of this node, rank[i] running as pid[i]: a step's watchdog names those
 * that are stopped (SIGSTOP: state T in /proc) as the likely cause. The arrays must live
 * until the call with n 0. */
void stop_watchdog_peers(const int *rank, const int *pid, int n);

/* fn runs in the watchdog's thread just before it ends the process (util/lock gives up the
 * locks this process holds); NULL: nothing. fn must not wait for the main thread. */
void stop_watchdog_on_exit(void (*fn)(void));

#endif
