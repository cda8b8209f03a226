/* gnuplot: what every chart shares: strings written safely into a gnuplot script, and the
 * script run by gnuplot with its complaints kept in a log (removed when empty), for a bounded
 * time. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/internal.h"
#include "util/safe.h"

extern char **environ;

/* Everything the script says comes from the results file (data set names, host names, the
 * config's path, ...), which may be someone else's: gnuplot runs `cmd` in backquotes and
 * expands @macros everywhere on a line except inside single-quoted strings, and a newline
 * ends a command. So every string goes out single-quoted (a quote doubled), what util/safe
 * does not keep (controls, C1, bytes not UTF-8: the chart is SVG, XML) is \xNN, and a path
 * that holds a control character is refused rather than altered. */

int rp_gp_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* s as a gnuplot single-quoted string: no substitution of any kind happens inside one. */
void rp_gp_text(FILE *gp, const char *s)
{
	fputc('\'', gp);
	while (*s) {
		struct safe_unit u = safe_next(s);
		char buf[SAFE_UNIT_MAX];
		if (*s == '\'')
			fputc('\'', gp);
		fwrite(buf, 1, safe_unit_text(s, u, 0, buf), gp);
		s += u.len;
	}
	fputc('\'', gp);
}

/* The first line of gnuplot's complaints, from its log. */
static void gp_log_line(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(buf, (int)len, f) != NULL)
		if (strstr(buf, "error") != NULL || strstr(buf, "line ") != NULL)
			break;
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f); /* read only: nothing to lose */
}

/* The seconds gnuplot may take: PFSREAD_GNUPLOT_TIMEOUT when set (a whole number from 1),
 * else RP_GP_TIMEOUT_S. 0, or -1 with e set when the variable holds anything else. */
static int gp_timeout(long *secs, struct pf_err *e)
{
	const char *v = getenv("PFSREAD_GNUPLOT_TIMEOUT");
	char *end = NULL;
	*secs = RP_GP_TIMEOUT_S;
	if (v == NULL)
		return 0;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < 1 || n > 86400 * 7)
		return pf_fail(e, PF_USAGE, "report: PFSREAD_GNUPLOT_TIMEOUT must be a whole number "
			       "of seconds from 1 to 604800, not '%s'", v);
	*secs = n;
	return 0;
}

static double gp_now(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_MONOTONIC, &t) != 0)
		return 0; /* CLOCK_MONOTONIC is always there on Linux: never taken */
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait for pid at most secs seconds: 0 when it ended (*status filled), 1 when it did not and
 * was killed (SIGKILL to its PID) and reaped, -errno when waiting failed. */
static int gp_wait(pid_t pid, long secs, int *status)
{
	const struct timespec tick = {0, 20 * 1000 * 1000};
	double deadline = gp_now() + (double)secs;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (gp_now() >= deadline)
			break;
		(void)nanosleep(&tick, NULL); /* woken early by a signal: the loop looks again */
	}
	if (kill(pid, SIGKILL) != 0 && errno != ESRCH)
		return -errno;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 1;
}

/* After gnuplot succeeded: its log removed when it holds nothing (a warning stays to read). */
static void gp_drop_empty(const char *log)
{
	struct stat st;
	if (stat(log, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		(void)unlink(log); /* an empty file left behind is harmless */
}

int rp_gp_run(const char *script, const char *log, struct pf_err *e)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {"gnuplot", (char *)script, NULL}, line[512];
	pid_t pid;
	long secs;
	int status = 0, rc;
	if (gp_timeout(&secs, e) != 0)
		return -1;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return pf_fail(e, PF_RUNTIME, "report: cannot start gnuplot: out of memory");
	rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rc == 0)
		rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT)
		return pf_fail(e, PF_RUNTIME, "report: gnuplot not found on PATH: install it "
			       "(Debian: apt-get install gnuplot-nox) to draw charts");
	if (rc != 0)
		return pf_fail_errno(e, rc, "report: cannot start gnuplot");
	rc = gp_wait(pid, secs, &status);
	if (rc < 0)
		return pf_fail_errno(e, -rc, "report: waiting for gnuplot (pid %d)", (int)pid);
	if (rc == 1)
		return pf_fail(e, PF_RUNTIME, "report: gnuplot did not finish %s within %ld s "
			       "(PFSREAD_GNUPLOT_TIMEOUT): killed it (pid %d); the charts it was "
			       "drawing are removed (log: %s)", script, secs, (int)pid, log);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		gp_drop_empty(log);
		return 0;
	}
	gp_log_line(log, line, sizeof line);
	return pf_fail(e, PF_RUNTIME, "report: gnuplot failed on %s (%s %d)%s%s (log: %s)", script,
		       WIFEXITED(status) ? "exit status" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		       line[0] ? ": " : "", line, log);
}

int rp_gp_remove(const char *path)
{
	return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
}
