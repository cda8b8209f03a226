/* stop: signal flags, the phase timer and the start-up watchdog. These are the only globals
 * of the program: a signal handler or a timer's thread can reach nothing else, and the timers
 * live as long as the process. */
#include "util/stop.h"

#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t stop_alarm;
static volatile sig_atomic_t stop_usr1; /* the scheduler's "time is nearly up" */

/* The watchdog's timer, what start-up is doing, for whom, and since when. */
static timer_t watchdog_timer;
static int watchdog_have_timer;
static _Atomic(const char *) watchdog_stage = "starting";
static _Atomic int watchdog_rank = -1;
static _Atomic(double) watchdog_limit;
static _Atomic int watchdog_step; /* armed by stop_watchdog_step, not for start-up */
static char watchdog_host[256];   /* set once, before any timer can fire */
static _Atomic(char *const *) watchdog_words; /* see stop_watchdog_last_words */
static const int *_Atomic watchdog_peer_rank;  /* see stop_watchdog_peers */
static const int *_Atomic watchdog_peer_pid;
static _Atomic int watchdog_npeers;

#define STOP_WORDS_WAIT_S 10 /* the last words' helper gets this long, then SIGKILL */

extern char **environ;

/* "; rank 1 (n1) is stopped": the peers of stop_watchdog_peers whose state in /proc is
 * stopped (SIGSTOP, or stopped by a debugger), into buf. */
static void stop_stopped_peers(char *buf, size_t len)
{
	const int *rank = atomic_load(&watchdog_peer_rank), *pid = atomic_load(&watchdog_peer_pid);
	int n = atomic_load(&watchdog_npeers);
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; rank != NULL && pid != NULL && i < n && used + 1 < len; i++) {
		char path[64], stat[512];
		snprintf(path, sizeof path, "/proc/%d/stat", pid[i]);
		FILE *f = fopen(path, "re");
		size_t got = f != NULL ? fread(stat, 1, sizeof stat - 1, f) : 0;
		if (f != NULL)
			fclose(f);
		stat[got] = '\0';
		const char *end = strrchr(stat, ')'); /* the command name may hold anything */
		if (end == NULL || (end[2] != 'T' && end[2] != 't'))
			continue;
		int k = snprintf(buf + used, len - used, "; rank %d (%s) is stopped", rank[i],
				 watchdog_host);
		used += k > 0 ? (size_t)k : 0;
	}
}

/* The helper of stop_watchdog_last_words, waited for at most STOP_WORDS_WAIT_S: "" when it
 * said it is done (exit 0), else why not. */
static const char *stop_last_words(char *const *argv)
{
	const struct timespec nap = {0, 50000000}; /* 50 ms */
	pid_t pid;
	int status = 0;
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return "; the results file could not be closed (its helper did not start)";
	for (int i = 0; i < STOP_WORDS_WAIT_S * 20; i++) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0
				       ? "" : "; the results file could not be closed (its helper failed)";
		if (got < 0)
			break;
		nanosleep(&nap, NULL);
	}
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, &status, 0);
	return "; the results file could not be closed (its helper hung)";
}
static struct timespec watchdog_start;
static void (*_Atomic watchdog_exit_fn)(void);

static void stop_on_signal(int sig)
{
	if (sig == SIGALRM)
		stop_alarm = 1;
	else if (sig == SIGUSR1)
		stop_usr1 = 1;
	else
		stop_sig = sig;
}

int stop_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = stop_on_signal;
	sa.sa_flags = 0; /* no SA_RESTART: a read stuck on a pipe or a hung mount returns EINTR */
	if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGALRM, &sa, NULL) != 0 ||
	    sigaction(SIGUSR1, &sa, NULL) != 0)
		return -1;
	return 0;
}

int stop_signal(void)
{
	return stop_sig;
}

int stop_wrap_up(void)
{
	return stop_usr1;
}

/* The timer signals the thread that armed it (the one reading), not whichever of the MPI
 * library's threads the kernel would pick for a process-wide SIGALRM: only a signal to the
 * reading thread interrupts its blocked open or read. */
static int stop_timer_create(timer_t *timer)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = gettid(); /* glibc 2.36 lacks the sigev_notify_thread_id name */
	return timer_create(CLOCK_MONOTONIC, &sev, timer);
}

int stop_arm(double seconds)
{
	static timer_t timer;
	static int have_timer;
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	stop_alarm = 0;
	if (!have_timer) {
		if (seconds <= 0)
			return 0;
		if (stop_timer_create(&timer) != 0)
			return -1;
		have_timer = 1;
	}
	if (seconds > 0) {
		it.it_value.tv_sec = (time_t)seconds;
		it.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_nsec == 0)
			it.it_value.tv_nsec = 1;
		/* again every second: a read that retried after the first EINTR is woken again */
		it.it_interval.tv_sec = 1;
	}
	return timer_settime(timer, 0, &it, NULL) == 0 ? 0 : -1;
}

int stop_timed_out(void)
{
	return stop_alarm;
}

int stop_now(void)
{
	return stop_sig != 0 || stop_alarm != 0;
}

int stop_status(void)
{
	return stop_sig != 0 ? 128 + stop_sig : PF_RUNTIME;
}

int stop_check(struct pf_err *e, const char *what)
{
	if (stop_sig == 0)
		return 0;
	return pf_fail(e, 128 + stop_sig, "%s: interrupted by signal %d", what, (int)stop_sig);
}

/* The watchdog's own thread (SIGEV_THREAD), not a signal handler: it may format and write.
 * A rank stuck in MPI cannot be woken into a clean exit, and the others wait for it in a
 * collective: this process ends, and the launcher ends the rest. */
static void stop_watchdog_fire(union sigval unused)
{
	char msg[1024], who[300] = "", stopped[256];
	int rank = atomic_load(&watchdog_rank);
	char *const *words = atomic_load(&watchdog_words);
	const char *after = "";
	(void)unused;
	if (rank >= 0)
		snprintf(who, sizeof who, "rank %d (%s): ", rank, watchdog_host);
	stop_stopped_peers(stopped, sizeof stopped);
	if (words != NULL && atomic_load(&watchdog_step))
		after = stop_last_words(words);
	int n = atomic_load(&watchdog_step)
			? snprintf(msg, sizeof msg, "pfsread: %s%s: stuck for %g s%s; giving up%s\n",
				   who, atomic_load(&watchdog_stage), atomic_load(&watchdog_limit),
				   stopped,
				   words != NULL && !after[0]
					   ? "; the results file is closed, status timeout" : after)
			: snprintf(msg, sizeof msg,
				   "pfsread: %sstart-up did not finish within %g s (startup_timeout); "
				   "it was at: %s; giving up\n",
				   who, atomic_load(&watchdog_limit), atomic_load(&watchdog_stage));
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
		n = 0; /* nothing more can be done about stderr */
	void (*fn)(void) = atomic_load(&watchdog_exit_fn);
	if (fn != NULL)
		fn();
	_exit(1);
}

static double stop_since(const struct timespec *t0)
{
	struct timespec now;
	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

int stop_watchdog_arm(double seconds)
{
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	if (!watchdog_have_timer) {
		struct sigevent sev;
		if (seconds <= 0)
			return 0;
		memset(&sev, 0, sizeof sev);
		sev.sigev_notify = SIGEV_THREAD;
		sev.sigev_notify_function = stop_watchdog_fire;
		if (timer_create(CLOCK_MONOTONIC, &sev, &watchdog_timer) != 0 ||
		    clock_gettime(CLOCK_MONOTONIC, &watchdog_start) != 0)
			return -1;
		watchdog_have_timer = 1;
	}
	atomic_store(&watchdog_limit, seconds);
	if (seconds > 0) {
		double left = seconds - stop_since(&watchdog_start);
		if (left < 1e-3)
			left = 1e-3;
		it.it_value.tv_sec = (time_t)left;
		it.it_value.tv_nsec = (long)((left - (double)(time_t)left) * 1e9);
	}
	return timer_settime(watchdog_timer, 0, &it, NULL) == 0 ? 0 : -1;
}

void stop_watchdog_stage(const char *stage)
{
	atomic_store(&watchdog_stage, stage);
}

void stop_watchdog_rank(int rank)
{
	if (gethostname(watchdog_host, sizeof watchdog_host - 1) != 0)
		snprintf(watchdog_host, sizeof watchdog_host, "unknown host");
	atomic_store(&watchdog_rank, rank);
}

void stop_watchdog_last_words(char *const *argv)
{
	atomic_store(&watchdog_words, argv);
}

void stop_watchdog_peers(const int *rank, const int *pid, int n)
{
	atomic_store(&watchdog_npeers, 0);
	atomic_store(&watchdog_peer_rank, rank);
	atomic_store(&watchdog_peer_pid, pid);
	atomic_store(&watchdog_npeers, n);
}

int stop_watchdog_step(double seconds, const char *what)
{
	if (seconds > 0) {
		atomic_store(&watchdog_step, 1);
		stop_watchdog_stage(what);
		if (watchdog_have_timer && clock_gettime(CLOCK_MONOTONIC, &watchdog_start) != 0)
			return -1;
	}
	return stop_watchdog_arm(seconds); /* counted from now: the start was just reset */
}

void stop_watchdog_on_exit(void (*fn)(void))
{
	atomic_store(&watchdog_exit_fn, fn);
}
