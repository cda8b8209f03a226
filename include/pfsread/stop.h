/* stop: why a run should end early. SIGTERM or SIGINT (a batch system's time limit, a user's
 * Ctrl-C) and the per-phase time limit (SIGALRM) only set a flag here; the phase driver looks
 * at it between reads and after an interrupted system call, finishes the phase as
 * "interrupted" or "timeout", and the results file is closed properly. */
#ifndef PFSREAD_STOP_H
#define PFSREAD_STOP_H

/* Install the handlers (without SA_RESTART, so a blocked open or read returns EINTR). */
int stop_install(void);

/* The signal that asked to stop (SIGTERM, SIGINT), or 0. */
int stop_signal(void);

/* Start the phase's time limit (seconds > 0), or cancel it (0). */
int stop_arm(double seconds);

/* 1 once the armed time limit has passed. Cleared by stop_arm. */
int stop_timed_out(void);

/* stop_signal() || stop_timed_out(). */
int stop_now(void);

/* A deadline for a step that no signal can interrupt (a collective HDF5 write whose ranks
 * went separate ways after one's write failed without an error): once seconds have passed,
 * the process writes "pfsread: rank RANK: WHAT: stuck for N s; aborting" to stderr and exits
 * with status 1 (mpirun then ends the other ranks). seconds 0 cancels it. 0 or -1. */
int stop_watchdog(double seconds, int rank, const char *what);

#endif
