/* gnuplot: what every chart shares: strings written safely into a gnuplot script, and the
 * script run by gnuplot with its complaints kept in a log. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
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

int rp_gp_run(const char *script, const char *log, struct pf_err *e)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {"gnuplot", (char *)script, NULL}, line[512];
	pid_t pid;
	int status = 0, rc;
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
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return pf_fail_errno(e, errno, "report: waiting for gnuplot");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	gp_log_line(log, line, sizeof line);
	return pf_fail(e, PF_RUNTIME, "report: gnuplot failed on %s (%s %d)%s%s (log: %s)", script,
		       WIFEXITED(status) ? "exit status" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		       line[0] ? ": " : "", line, log);
}

