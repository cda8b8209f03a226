/* stop: signal flags and the phase timer. These are the only globals of the program: a
 * signal handler can reach nothing else, and the timer lives as long as the process. */
#include "pfsread/stop.h"

#include <signal.h>
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
