/* job_proc: the processes `pfsread job` starts from argument vectors: run with its output
 * shown, or captured with a deadline (see the header). */
#include "cmd/job_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child being waited for, for the handler that passes signals on. */
static volatile pid_t job_proc_child;

static void job_proc_forward(int sig)
{
	if (job_proc_child > 0)
		(void)kill(job_proc_child, sig);
}

/* In the child: the added variables, then the command; never returns. */
static void job_proc_exec(char *const *argv, char *const *env_add)
{
	for (size_t i = 0; env_add != NULL && env_add[i] != NULL; i++)
		if (putenv(env_add[i]) != 0)
			_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "pfsread: job: cannot run %s: %s\n", argv[0], strerror(errno));
	fflush(stderr);
	_exit(127);
}

/* The shell's reading of a wait status: the exit code, or 128 + the signal. */
static int job_proc_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

static int job_proc_wait(pid_t pid, int *status, struct pf_err *e)
{
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return pf_fail_errno(e, errno, "job: waiting for process %ld", (long)pid);
	*status = job_proc_status(ws);
	return 0;
}

int job_proc_run(char *const *argv, char *const *env_add, int *status, struct pf_err *e)
{
	struct sigaction fwd, old1, old2;
	memset(&fwd, 0, sizeof fwd);
	fwd.sa_handler = job_proc_forward;
	if (sigemptyset(&fwd.sa_mask) != 0 || sigaction(SIGUSR1, &fwd, &old1) != 0 ||
	    sigaction(SIGUSR2, &fwd, &old2) != 0)
		return pf_fail_errno(e, errno, "job: cannot pass signals on to %s", argv[0]);
	fflush(NULL); /* the child must not write this process's buffered lines again */
	pid_t pid = fork();
	if (pid == 0) {
		(void)sigaction(SIGUSR1, &old1, NULL);
		(void)sigaction(SIGUSR2, &old2, NULL);
		job_proc_exec(argv, env_add);
	}
	int rc;
	if (pid < 0) {
		rc = pf_fail_errno(e, errno, "job: cannot start %s", argv[0]);
	} else {
		job_proc_child = pid;
		rc = job_proc_wait(pid, status, e);
		job_proc_child = 0;
	}
	if ((sigaction(SIGUSR1, &old1, NULL) | sigaction(SIGUSR2, &old2, NULL)) != 0 && rc == 0)
		rc = pf_fail_errno(e, errno, "job: cannot restore the signal handlers");
	return rc;
}

/* In the child of a capture: stdin /dev/null, stdout (and stderr) the pipe. */
static void job_proc_capture_child(int wfd, int merge, char *const *argv, char *const *env_add)
{
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(wfd, STDOUT_FILENO) < 0 ||
	    (merge && dup2(wfd, STDERR_FILENO) < 0))
		_exit(127);
	job_proc_exec(argv, env_add);
}

/* Reads fd into buf until its end or the deadline (CLOCK_MONOTONIC seconds); 0, or -1 on
 * timeout. Bytes beyond len - 1 are read and dropped. */
static int job_proc_drain(int fd, char *buf, size_t len, double deadline)
{
	size_t used = 0;
	for (;;) {
		struct timespec now;
		struct pollfd p = {fd, POLLIN, 0};
		char spill[512];
		clock_gettime(CLOCK_MONOTONIC, &now);
		double left = deadline - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
		if (left <= 0)
			return -1;
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -1 : 0;
		ssize_t got = used + 1 < len ? read(fd, buf + used, len - 1 - used)
					     : read(fd, spill, sizeof spill);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (used + 1 < len)
			used += (size_t)got;
	}
	buf[used] = '\0';
	return 0;
}

int job_proc_capture(char *const *argv, char *const *env_add, int merge, int timeout_s,
		     char *buf, size_t len, int *status, struct pf_err *e)
{
	int fds[2];
	struct timespec now;
	buf[0] = '\0';
	if (pipe(fds) != 0)
		return pf_fail_errno(e, errno, "job: cannot run %s", argv[0]);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		job_proc_capture_child(fds[1], merge, argv, env_add);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return pf_fail_errno(e, errno, "job: cannot start %s", argv[0]);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	int late = job_proc_drain(fds[0], buf, len,
				  (double)now.tv_sec + (double)now.tv_nsec / 1e9 + timeout_s);
	if (late)
		(void)kill(pid, SIGKILL);
	close(fds[0]);
	return job_proc_wait(pid, status, e);
}

int job_proc_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];
	struct stat st;
	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; p != NULL;) {
		size_t n = strcspn(p, ":");
		int w = snprintf(file, sizeof file, "%.*s/%s", (int)n, n ? p : ".", name);
		if (n == 0)
			w = snprintf(file, sizeof file, "./%s", name);
		if (w > 0 && (size_t)w < sizeof file && stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(file, X_OK) == 0)
			return 1;
		p = p[n] == ':' ? p + n + 1 : NULL;
	}
	return 0;
}
