/* stop: signal flags. These are the only globals of the program: a signal handler can reach
 * nothing else. */
#include "pfsread/stop.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>

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

int stop_arm(double seconds)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	stop_alarm = 0;
	if (seconds > 0) {
		it.it_value.tv_sec = (time_t)seconds;
		it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
		if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
			it.it_value.tv_usec = 1;
		/* again every second: a read that retried after the first EINTR is woken again */
		it.it_interval.tv_sec = 1;
	}
	return setitimer(ITIMER_REAL, &it, NULL) == 0 ? 0 : -1;
}

int stop_timed_out(void)
{
	return stop_alarm;
}

int stop_now(void)
{
	return stop_sig != 0 || stop_alarm != 0;
}
