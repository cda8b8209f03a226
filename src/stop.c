/* stop: signal flags and the phase timer. These are the only globals of the program: a
 * signal handler can reach nothing else, and the timer lives as long as the process. */
#include "pfsread/stop.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t stop_alarm;

static void stop_on_signal(int sig)
{
	if (sig == SIGALRM)
		stop_alarm = 1;
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
	    sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGALRM, &sa, NULL) != 0)
		return -1;
	return 0;
}

int stop_signal(void)
{
	return stop_sig;
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

/* The watchdog: its own timer and signal (SIGVTALRM, which nothing else here uses), and the
 * message written ahead, since a handler may only write and _exit. */
static char stop_watch_msg[768];
static size_t stop_watch_len;

static void stop_on_watchdog(int sig)
{
	(void)sig;
	ssize_t n = write(STDERR_FILENO, stop_watch_msg, stop_watch_len);
	(void)n; /* nothing more can be done about a failed write here */
	_exit(1);
}

int stop_watchdog(double seconds, int rank, const char *what)
{
	static timer_t timer;
	static int have_timer;
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	if (!have_timer) {
		struct sigevent sev;
		struct sigaction sa;
		if (seconds <= 0)
			return 0;
		memset(&sev, 0, sizeof sev);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = stop_on_watchdog;
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGVTALRM;
		if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIGVTALRM, &sa, NULL) != 0 ||
		    timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
			return -1;
		have_timer = 1;
	}
	if (seconds > 0) {
		int n = snprintf(stop_watch_msg, sizeof stop_watch_msg,
				 "pfsread: rank %d: %s: stuck for %g s; aborting\n", rank,
				 what ? what : "a step", seconds);
		stop_watch_len = n < 0 ? 0 : (size_t)n < sizeof stop_watch_msg ? (size_t)n
									: sizeof stop_watch_msg - 1;
		it.it_value.tv_sec = (time_t)seconds;
		it.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
	}
	return timer_settime(timer, 0, &it, NULL) == 0 ? 0 : -1;
}
