/* lock: the file system half of util/lock.h: taking, judging and giving up lock files, and the
 * heartbeat thread that keeps the held ones' mtime fresh. The held locks are also listed for
 * the start-up watchdog, which ends the process without returning through its callers. */
#include "util/lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/stop.h"

#define LOCK_HELD_MAX 8 /* a command holds its data sets' lock and its results file's */
#define LOCK_TRIES 5    /* a lock directory removed by a leaving holder as it was entered */

/* The held locks, for the heartbeat thread and the watchdog. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char path[LOCK_HELD_MAX][LOCK_PATH_MAX];
	int n, beating, quit;
	pthread_t thread;
} lock_reg = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* ---- heartbeat ------------------------------------------------------------------------ */

static void *lock_beat(void *unused)
{
	(void)unused;
	if (pthread_mutex_lock(&lock_reg.mu) != 0)
		return NULL;
	while (!lock_reg.quit) {
		struct timespec until;
		if (clock_gettime(CLOCK_REALTIME, &until) != 0)
			break;
		until.tv_sec += LOCK_BEAT_S;
		int rc = pthread_cond_timedwait(&lock_reg.cv, &lock_reg.mu, &until);
		if (rc != 0 && rc != ETIMEDOUT)
			break;
		for (int i = 0; !lock_reg.quit && i < lock_reg.n; i++)
			(void)utimensat(AT_FDCWD, lock_reg.path[i], NULL, 0); /* gone: nothing to keep */
	}
	(void)pthread_mutex_unlock(&lock_reg.mu);
	return NULL;
}

/* A data sets' lock directory goes with its last holder (path: a holder's file in it). */
static void lock_drop_dir(const char *path)
{
	char dir[LOCK_PATH_MAX];
	size_t dl = strlen("/" LOCK_DIR);
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && (size_t)(slash - dir) >= dl && memcmp(slash - dl, "/" LOCK_DIR, dl) == 0) {
		*slash = '\0';
		(void)rmdir(dir); /* others still there: it stays */
	}
}

/* The watchdog's way out: the held locks go with the process. */
static void lock_drop_all(void)
{
	if (pthread_mutex_trylock(&lock_reg.mu) != 0)
		return; /* the main thread is inside the list: the locks become stale instead */
	for (int i = 0; i < lock_reg.n; i++) {
		(void)unlink(lock_reg.path[i]);
		lock_drop_dir(lock_reg.path[i]);
	}
	(void)pthread_mutex_unlock(&lock_reg.mu);
}

/* Start the heartbeat thread with every signal blocked (they belong to the main thread, whose
 * blocked calls they must interrupt). Called with the mutex held. */
static int lock_beat_start(void)
{
	sigset_t all, old;
	if (lock_reg.beating)
		return 0;
	lock_reg.quit = 0;
	if (sigfillset(&all) != 0 || pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
		return -1;
	int rc = pthread_create(&lock_reg.thread, NULL, lock_beat, NULL);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -1;
	lock_reg.beating = 1;
	stop_watchdog_on_exit(lock_drop_all);
	return 0;
}

static int lock_register(const char *path)
{
	int rc = -1;
	if (pthread_mutex_lock(&lock_reg.mu) != 0)
		return -1;
	if (lock_reg.n < LOCK_HELD_MAX && lock_beat_start() == 0) {
		snprintf(lock_reg.path[lock_reg.n++], LOCK_PATH_MAX, "%s", path);
		rc = 0;
	}
	(void)pthread_mutex_unlock(&lock_reg.mu);
	return rc;
}

/* Off the list; the last one stops the thread. */
static void lock_unregister(const char *path)
{
	int join = 0;
	if (pthread_mutex_lock(&lock_reg.mu) != 0)
		return;
	for (int i = 0; i < lock_reg.n; i++)
		if (strcmp(lock_reg.path[i], path) == 0) {
			memmove(lock_reg.path[i], lock_reg.path[lock_reg.n - 1], LOCK_PATH_MAX);
			lock_reg.n--;
			break;
		}
	if (lock_reg.n == 0 && lock_reg.beating) {
		lock_reg.quit = 1;
		lock_reg.beating = 0;
		join = 1;
		(void)pthread_cond_signal(&lock_reg.cv);
	}
	(void)pthread_mutex_unlock(&lock_reg.mu);
	if (join)
		(void)pthread_join(lock_reg.thread, NULL);
}

/* ---- reading and judging a lock ------------------------------------------------------- */

static void lock_hostname(char *host)
{
	if (gethostname(host, LOCK_HOST_MAX - 1) != 0 || host[0] == '\0')
		snprintf(host, LOCK_HOST_MAX, "unknown-host");
	host[LOCK_HOST_MAX - 1] = '\0';
	for (char *c = host; *c; c++)
		if (*c == '\n' || *c == ' ' || *c == '/')
			*c = '_';
}

/* A lock file's text (caller frees *text) and the seconds since its heartbeat. 0 or -errno
 * (-ENOENT: gone meanwhile; -EFBIG: larger than any lock). */
static int lock_read(const char *path, char **text, size_t *len, double *age)
{
	struct stat st;
	int rc = 0, fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	*text = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_size > (off_t)LOCK_FILE_MAX)
		rc = -EFBIG;
	else if ((*text = malloc((size_t)st.st_size + 1)) == NULL)
		rc = -ENOMEM;
	size_t got = 0;
	while (rc == 0 && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *text + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shorter than it said: parsed as what it is */
		got += (size_t)n;
	}
	close(fd);
	if (rc != 0) {
		free(*text);
		*text = NULL;
		return rc;
	}
	(*text)[got] = '\0';
	*len = got;
	*age = difftime(time(NULL), st.st_mtime);
	return 0;
}

/* Where /proc says: 1 when pid is a zombie (dead, not reaped: in a container whose first
 * process reaps nothing, an orphaned rank stays one for good) or started well after start (the
 * pid was given to another process since); 0 when it is not or /proc cannot say. */
static int lock_proc_gone(long pid, long long start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	unsigned long long ticks = 0;
	char state = '?';
	/* after the name: state (field 3) ... starttime (field 22) */
	if (p == NULL || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				 "%*s %*s %*s %*s %*s %llu", &state, &ticks) != 2)
		return 0;
	if (state == 'Z' || state == 'X')
		return 1;
	long hz = sysconf(_SC_CLK_TCK);
	long long boot = 0;
	char line[128];
	if (hz <= 0 || (f = fopen("/proc/stat", "re")) == NULL)
		return 0;
	while (boot == 0 && fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "btime %lld", &boot) != 1)
			boot = 0;
	fclose(f);
	/* two minutes of slack: a clock stepped forward since must not make a live holder gone */
	return boot > 0 && boot + (long long)(ticks / (unsigned long long)hz) > start + 120;
}

static enum lock_state lock_state_of(const struct lock_info *li, const char *host, double age)
{
	int gone = 0;
	if (strcmp(li->host, host) == 0)
		gone = (kill((pid_t)li->pid, 0) != 0 && errno == ESRCH) ||
		       lock_proc_gone(li->pid, li->start);
	return lock_judge(li, host, gone, age, LOCK_STALE_S);
}

/* The one line said when a stale lock is removed. */
static void lock_say_stale(const char *path, const struct lock_info *li, enum lock_state s,
			   double age)
{
	char who[LOCK_HOST_MAX + 128];
	lock_describe(li, who, sizeof who);
	if (s == LOCK_GONE)
		fprintf(stderr, "pfsread: lock %s of %s is stale (that process is gone): taken over\n",
			path, who);
	else
		fprintf(stderr, "pfsread: lock %s of %s is stale (its heartbeat is %.0f s old, stale "
			"after %d s): taken over\n", path, who, age, LOCK_STALE_S);
}

/* Write text to path, made here (O_EXCL). 0 or -errno; nothing left behind on failure. */
static int lock_write_new(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), rc = 0;
	if (fd < 0)
		return -errno;
	for (size_t done = 0; rc == 0 && done < len;) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		(void)unlink(path);
	return rc;
}

/* A name's characters that may stand in a file name. */
static void lock_name_part(const char *s, char *out, size_t len)
{
	size_t i = 0;
	for (; s[i] != '\0' && s[i] != ' ' && i + 1 < len; i++) {
		char c = s[i];
		int good = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
		out[i] = good ? c : '_';
	}
	out[i] = '\0';
}

/* ---- data sets: one file per holder ---------------------------------------------------- */

/* Make root/LOCK_DIR. 0, 1 when no lock is needed or possible (said), or -1 with e set. */
static int lock_make_dir(const char *root, const char *dir, const char *command, struct pf_err *e)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return 0;
	if (errno == ENOENT || errno == EROFS)
		return 1; /* no root (nothing there to guard), or nobody can write there */
	if (errno == EACCES || errno == EPERM) {
		fprintf(stderr, "pfsread: %s: cannot lock the data sets in %s (%s): going on without "
			"a lock\n", command, root, strerror(errno));
		return 1;
	}
	return pf_fail_errno(e, errno, "%s: cannot make the lock directory %s", command, dir);
}

/* Write this holder's file into dir: *own gets its path. 0, 1 (dir gone meanwhile: again), or
 * -1 with e set. */
static int lock_publish(const char *dir, const char *command, const char *host,
			const char *text, size_t len, char *own, struct pf_err *e)
{
	char tmp[LOCK_PATH_MAX], cmd[32];
	lock_name_part(command, cmd, sizeof cmd);
	if (snprintf(tmp, sizeof tmp, "%s/.tmp.%s.%ld", dir, host, (long)getpid()) >=
		    (int)sizeof tmp ||
	    snprintf(own, LOCK_PATH_MAX, "%s/%s.%s.%ld", dir, cmd, host, (long)getpid()) >=
		    LOCK_PATH_MAX)
		return pf_fail(e, PF_USAGE, "%s: %s: path too long", command, dir);
	(void)unlink(tmp); /* a leftover of a killed process that had this pid */
	int rc = lock_write_new(tmp, text, len);
	if (rc == 0 && rename(tmp, own) != 0) {
		rc = -errno;
		(void)unlink(tmp);
	}
	if (rc == -ENOENT)
		return 1;
	if (rc != 0)
		return pf_fail_errno(e, -rc, "%s: cannot write its lock %s", command, own);
	return 0;
}

/* Look at one other holder's file: stale ones are removed (said), a live one that conflicts
 * with mine refuses. 0 or -1 with e set. */
static int lock_check_other(const char *path, const char *host, const struct lock_info *mine,
			    const char *root, struct pf_err *e)
{
	char *text, name[256], who[LOCK_HOST_MAX + 128];
	size_t len;
	double age;
	struct lock_info li;
	int rc = lock_read(path, &text, &len, &age);
	if (rc != 0)
		return 0; /* gone meanwhile, or not a lock file: not a holder */
	if (lock_parse(text, len, &li) != 0) {
		free(text);
		return 0;
	}
	enum lock_state s = lock_state_of(&li, host, age);
	if (s != LOCK_LIVE) {
		if (unlink(path) == 0)
			lock_say_stale(path, &li, s, age);
	} else if (lock_conflict(mine, &li, name, sizeof name)) {
		lock_describe(&li, who, sizeof who);
		rc = pf_fail(e, PF_BUSY, "%s: data set '%s' in %s is in use by %s (lock %s): try "
			     "again when it ends", mine->command, name, root, who, path);
	}
	free(text);
	return rc;
}

/* Every other holder in dir against mine. 0 or -1 with e set. */
static int lock_scan(const char *dir, const char *own, const char *host,
		     const struct lock_info *mine, const char *root, struct pf_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[LOCK_PATH_MAX];
	int rc = 0;
	if (d == NULL)
		return pf_fail_errno(e, errno, "%s: cannot read the lock directory %s",
				     mine->command, dir);
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
			continue; /* not a name pfsread gives */
		if (strcmp(path, own) != 0)
			rc = lock_check_other(path, host, mine, root, e);
	}
	if (rc == 0 && errno != 0)
		rc = pf_fail_errno(e, errno, "%s: cannot read the lock directory %s", mine->command,
				   dir);
	closedir(d);
	return rc;
}

int lock_take_datasets(const char *root, const char *command, int exclusive,
		       const char *const *names, size_t n, struct lock_held *h, struct pf_err *e)
{
	char host[LOCK_HOST_MAX], dir[LOCK_PATH_MAX], own[LOCK_PATH_MAX] = "";
	size_t len = 0;
	struct lock_info mine;
	int rc = 1;
	h->path[0] = '\0';
	lock_hostname(host);
	if (snprintf(dir, sizeof dir, "%s/%s", root, LOCK_DIR) >= (int)sizeof dir)
		return pf_fail(e, PF_USAGE, "%s: %s: path too long", command, root);
	char *text = lock_format(command, exclusive, host, (long)getpid(), (long long)time(NULL),
				 names, n, &len);
	if (text == NULL || lock_parse(text, len, &mine) != 0) {
		free(text);
		return pf_fail(e, PF_RUNTIME, "%s: cannot describe its lock (out of memory, or a "
			       "host name too long)", command);
	}
	for (int tries = 0; rc == 1 && tries < LOCK_TRIES; tries++) {
		rc = lock_make_dir(root, dir, command, e);
		if (rc != 0) { /* 1 here: no lock needed or possible */
			free(text);
			return rc;
		}
		rc = lock_publish(dir, command, host, text, len, own, e);
	}
	if (rc == 1)
		rc = pf_fail(e, PF_RUNTIME, "%s: the lock directory %s keeps vanishing", command, dir);
	if (rc == 0 && lock_register(own) != 0)
		rc = pf_fail(e, PF_RUNTIME, "%s: cannot start the heartbeat of its lock %s",
			     command, own);
	else if (rc == 0) {
		snprintf(h->path, sizeof h->path, "%s", own);
		rc = lock_scan(dir, own, host, &mine, root, e);
		if (rc != 0)
			lock_release(h);
	} else if (own[0] != '\0')
		(void)unlink(own);
	free(text);
	return rc;
}

/* ---- a results file: one writer --------------------------------------------------------- */

/* A live or unreadable lock at path refuses; a stale one is removed (said). 0 when path may be
 * tried again, -1 with e set. */
static int lock_file_busy(const char *file, const char *path, const char *command,
			  const char *host, struct pf_err *e)
{
	char *text, who[LOCK_HOST_MAX + 128];
	size_t len;
	double age;
	struct lock_info li;
	int rc = lock_read(path, &text, &len, &age);
	if (rc == -ENOENT)
		return 0;
	if (rc != 0)
		return pf_fail_errno(e, -rc, "%s: cannot read the lock %s of %s", command, path, file);
	if (lock_parse(text, len, &li) != 0) {
		free(text);
		if (age <= LOCK_STALE_S)
			return pf_fail(e, PF_BUSY, "%s: %s is locked by %s, which does not name its "
				       "holder (being written as we look, or not pfsread's): try "
				       "again; remove it once no process writes %s", command, file,
				       path, file);
		if (unlink(path) == 0)
			fprintf(stderr, "pfsread: lock %s names no holder and is %.0f s old: taken "
				"over\n", path, age);
		return 0;
	}
	enum lock_state s = lock_state_of(&li, host, age);
	if (s == LOCK_LIVE) {
		lock_describe(&li, who, sizeof who);
		rc = pf_fail(e, PF_BUSY, "%s: %s is being written by %s (lock %s): try again when it "
			     "ends", command, file, who, path);
	} else if (unlink(path) == 0)
		lock_say_stale(path, &li, s, age);
	free(text);
	return rc;
}

int lock_take_file(const char *file, const char *command, struct lock_held *h,
		   struct pf_err *e)
{
	char host[LOCK_HOST_MAX], path[LOCK_PATH_MAX];
	size_t len = 0;
	int rc = 1;
	h->path[0] = '\0';
	lock_hostname(host);
	if (snprintf(path, sizeof path, "%s%s", file, LOCK_SUFFIX) >= (int)sizeof path)
		return pf_fail(e, PF_USAGE, "%s: %s: path too long", command, file);
	char *text = lock_format(command, 1, host, (long)getpid(), (long long)time(NULL), NULL, 0,
				 &len);
	if (text == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory", command);
	for (int tries = 0; rc == 1 && tries < LOCK_TRIES; tries++) {
		rc = lock_write_new(path, text, len);
		if (rc == -EEXIST)
			rc = lock_file_busy(file, path, command, host, e) == 0 ? 1 : -1;
		else if (rc < 0)
			rc = pf_fail_errno(e, -rc, "%s: cannot write the lock %s of %s", command, path,
					   file);
	}
	if (rc == 1)
		rc = pf_fail(e, PF_BUSY, "%s: the lock %s of %s keeps changing hands: try again",
			     command, path, file);
	if (rc == 0 && lock_register(path) != 0) {
		(void)unlink(path);
		rc = pf_fail(e, PF_RUNTIME, "%s: cannot start the heartbeat of its lock %s",
			     command, path);
	}
	if (rc == 0)
		snprintf(h->path, sizeof h->path, "%s", path);
	free(text);
	return rc;
}

/* 1 when the lock at path is still this process's: one taken over meanwhile (this process
 * was stopped past LOCK_STALE_S, say) is its new holder's and stays. */
static int lock_still_mine(const char *path)
{
	char *text, host[LOCK_HOST_MAX];
	size_t len;
	double age;
	struct lock_info li;
	int mine = 0;
	if (lock_read(path, &text, &len, &age) != 0)
		return 0;
	lock_hostname(host);
	mine = lock_parse(text, len, &li) == 0 && li.pid == (long)getpid() &&
	       strcmp(li.host, host) == 0;
	free(text);
	return mine;
}

void lock_release(struct lock_held *h)
{
	if (h == NULL || h->path[0] == '\0')
		return;
	lock_unregister(h->path);
	if (lock_still_mine(h->path))
		(void)unlink(h->path);
	lock_drop_dir(h->path);
	h->path[0] = '\0';
}
