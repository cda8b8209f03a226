/* slow: an LD_PRELOAD shim for stop.t. It makes the calls named in PFSREAD_SLOW slow
 * ("stat:2,unlinkat:2": milliseconds each), so that a stage made of many of them (a resume's
 * stat of every file, clean's unlinks, verify's reads) lasts long enough for a signal to land
 * inside it, on any machine and without filling anything. Path calls are slowed only under
 * PFSREAD_SLOW_UNDER; PFSREAD_SLOW_LOG names a file created at the first slowed call (the
 * test's cue that the stage has begun). A sleep cut short by a signal is not resumed.
 * PFSREAD_KILL_AT=pwrite:N kills the process (SIGKILL, at once) at its Nth pwrite, before
 * it writes: a run killed in the middle of writing its results file, at the same point every
 * time (resume.t). "fadvise:N" slows posix_fadvise, the one libc call the io_uring pipeline
 * makes per file (its hint), so that a uring phase outlasts a progress tick (progress.t).
 * PFSREAD_STOP_AT=pread:N stops the process (SIGSTOP, as a user's kill -STOP
 * or a frozen node) at its Nth pread of a file under PFSREAD_STOP_UNDER, before it reads;
 * PFSREAD_STOP_AT=MPI_Ibarrier:N (or MPI_Iallreduce:N, MPI_Exscan:N) at its Nth such call, before it
 * (MPI_Ibarrier+:N: just after it, the rank inside the barrier); in the rank
 * PFSREAD_STOP_RANK (OMPI_COMM_WORLD_RANK or PMI_RANK) only. Its pid is appended to
 * PFSREAD_STOP_LOG first, so that the test can find, wake or kill it (lost_rank.t).
 * PFSREAD_HOLD_UNTIL=FILE makes each slowed call wait, instead of its
 * milliseconds, until FILE exists (or a signal comes): a command held mid-way for as long as
 * the test needs, then let go (locks.t). PFSREAD_SLOW_CALLS=N slows only the first N calls
 * that would be slowed, the rest run at full speed: one repetition of a measurement made slow
 * and the others not (calibrate.t). PFSREAD_RATE=PROC:NODE caps pread at PROC MB/s per process
 * and NODE MB/s over all the processes that share $TMPDIR (a node; each fake node has its
 * own): every call waits until its bytes would have crossed both pipes, each a clock of when
 * it is next free (the node's in $TMPDIR/pfsread-rate, under flock), so k readers get
 * min(k x PROC, NODE) on any machine (calibrate_fs.t). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long slow_ms(const char *name)
{
	const char *spec = getenv("PFSREAD_SLOW"), *p;
	size_t n = strlen(name);
	for (p = spec; p != NULL && (p = strstr(p, name)) != NULL; p += n)
		if ((p == spec || p[-1] == ',') && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	return 0;
}

static void slow(const char *name, const char *path)
{
	const char *under = getenv("PFSREAD_SLOW_UNDER"), *log = getenv("PFSREAD_SLOW_LOG");
	long ms = slow_ms(name);
	if (ms <= 0 || (path != NULL && under != NULL && strncmp(path, under, strlen(under)) != 0))
		return;
	static long slowed;
	const char *calls = getenv("PFSREAD_SLOW_CALLS");
	if (calls != NULL && ++slowed > strtol(calls, NULL, 10))
		return;
	if (log != NULL) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	const char *until = getenv("PFSREAD_HOLD_UNTIL");
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000}, tick = {0, 20000000};
	if (until == NULL)
		nanosleep(&ts, NULL);
	while (until != NULL && access(until, F_OK) != 0 && nanosleep(&tick, NULL) == 0)
		;
}

/* The Nth pwrite of PFSREAD_KILL_AT=pwrite:N is never written: SIGKILL first. */
static void kill_at_pwrite(void)
{
	static long calls;
	const char *at = getenv("PFSREAD_KILL_AT");
	if (at != NULL && strncmp(at, "pwrite:", 7) == 0 && ++calls == strtol(at + 7, NULL, 10))
		raise(SIGKILL);
}

/* This process's rank under the launcher, or NULL outside one. */
static const char *stop_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	return r != NULL ? r : getenv("PMI_RANK");
}

/* Appends this process's pid to PFSREAD_STOP_LOG and stops it. */
static void stop_here(void)
{
	const char *log = getenv("PFSREAD_STOP_LOG");
	if (log != NULL) {
		int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		char line[32];
		int len = snprintf(line, sizeof line, "%d\n", (int)getpid());
		if (lfd >= 0) {
			if (write(lfd, line, (size_t)len) < 0)
				len = 0; /* the test then finds no pid and fails: nothing else to do */
			close(lfd);
		}
	}
	raise(SIGSTOP);
}

/* PFSREAD_STOP_AT=NAME:N: the Nth call of NAME (for pread, of a file under
 * PFSREAD_STOP_UNDER: fd >= 0) stops here, in the rank PFSREAD_STOP_RANK, before the call
 * (after 0) or, with NAME+:N, after it (after 1; the caller asks twice). */
static void stop_at(const char *name, int fd, int after)
{
	static long calls;
	const char *at = getenv("PFSREAD_STOP_AT"), *under = getenv("PFSREAD_STOP_UNDER");
	const char *want = getenv("PFSREAD_STOP_RANK"), *rank = stop_rank();
	size_t n = strlen(name);
	char link[64], path[4096];
	if (at == NULL || strncmp(at, name, n) != 0 || want == NULL || rank == NULL ||
	    strcmp(want, rank) != 0)
		return;
	if (at[n] == '+')
		n++;
	if (at[n] != ':' || (at[n - 1] == '+') != after)
		return;
	if (fd >= 0 && under != NULL) {
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t len = readlink(link, path, sizeof path - 1);
		if (len < 0)
			return;
		path[len] = '\0';
		if (strncmp(path, under, strlen(under)) != 0)
			return;
	}
	if (++calls == strtol(at + n + 1, NULL, 10))
		stop_here();
}

static double rate_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* When the node's pipe, shared through a file under flock, is done with n more bytes. */
static double rate_node(double now, double MBps, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	double next = 0;
	snprintf(path, sizeof path, "%s/pfsread-rate", tmp != NULL ? tmp : "/tmp");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		if (fd >= 0)
			close(fd);
		return now; /* no shared clock: the process's cap alone */
	}
	if (read(fd, &next, sizeof next) != (ssize_t)sizeof next || next < now)
		next = now;
	next += (double)n / (MBps * 1e6);
	if (lseek(fd, 0, SEEK_SET) != 0 || write(fd, &next, sizeof next) != (ssize_t)sizeof next)
		next = now;
	close(fd); /* the lock goes with it */
	return next;
}

/* PFSREAD_RATE=PROC:NODE: wait until n bytes would have crossed both pipes. */
static void rate_cap(size_t n)
{
	static double proc_next;
	const char *spec = getenv("PFSREAD_RATE");
	char *end = NULL;
	if (spec == NULL)
		return;
	double proc = strtod(spec, &end), node = *end == ':' ? strtod(end + 1, NULL) : 0;
	double now = rate_now(), done = now;
	if (proc > 0) {
		proc_next = (proc_next > now ? proc_next : now) + (double)n / (proc * 1e6);
		done = proc_next;
	}
	if (node > 0) {
		double node_done = rate_node(now, node, n);
		done = node_done > done ? node_done : done;
	}
	for (double left = done - rate_now(); left > 0; left = done - rate_now()) {
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		if (nanosleep(&ts, NULL) != 0)
			break; /* a signal: let the caller see it */
	}
}

typedef int (*stat_fn)(const char *, struct stat *);
typedef int (*mkdir_fn)(const char *, mode_t);
typedef int (*unlinkat_fn)(int, const char *, int);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*fadvise_fn)(int, off_t, off_t, int);

#define REAL(name, type) type real = (type)dlsym(RTLD_NEXT, name)

int stat(const char *path, struct stat *st)
{
	REAL("stat", stat_fn);
	slow("stat", path);
	return real(path, st);
}

int mkdir(const char *path, mode_t mode)
{
	REAL("mkdir", mkdir_fn);
	slow("mkdir", path);
	return real(path, mode);
}

int unlinkat(int dirfd, const char *name, int flags)
{
	REAL("unlinkat", unlinkat_fn);
	slow("unlinkat", NULL);
	return real(dirfd, name, flags);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	REAL("pread", pread_fn);
	stop_at("pread", fd, 0);
	slow("pread", NULL);
	rate_cap(len);
	return real(fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	REAL("pread64", pread_fn);
	stop_at("pread", fd, 0);
	slow("pread", NULL);
	rate_cap(len);
	return real(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	REAL("pwrite", pwrite_fn);
	kill_at_pwrite();
	slow("pwrite", NULL);
	return real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	REAL("pwrite64", pwrite_fn);
	kill_at_pwrite();
	slow("pwrite", NULL);
	return real(fd, buf, len, off);
}

int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	REAL("posix_fadvise", fadvise_fn);
	slow("fadvise", NULL);
	return real(fd, off, len, advice);
}

int posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
	REAL("posix_fadvise64", fadvise_fn);
	slow("fadvise", NULL);
	return real(fd, off, len, advice);
}

/* MPI_Ibarrier, to stop a rank just before a given collective step of the run (Open MPI's
 * MPI_Comm and MPI_Request are pointers: passed on untouched). */
typedef int (*ibarrier_fn)(void *, void *);
int MPI_Ibarrier(void *comm, void *req)
{
	REAL("MPI_Ibarrier", ibarrier_fn);
	stop_at("MPI_Ibarrier", -1, 0);
	int rc = real(comm, req);
	stop_at("MPI_Ibarrier", -1, 1);
	return rc;
}

/* MPI_Iallreduce likewise (a rank stopped at the agreement on a phase's outcome). */
typedef int (*iallreduce_fn)(const void *, void *, int, void *, void *, void *, void *);
int MPI_Iallreduce(const void *in, void *out, int n, void *type, void *op, void *comm, void *req)
{
	REAL("MPI_Iallreduce", iallreduce_fn);
	stop_at("MPI_Iallreduce", -1, 0);
	return real(in, out, n, type, op, comm, req);
}

/* MPI_Exscan likewise: the results writer's first collective call of each phase it writes (a
 * rank stopped inside the results write). */
typedef int (*exscan_fn)(const void *, void *, int, void *, void *, void *);
int MPI_Exscan(const void *in, void *out, int n, void *type, void *op, void *comm)
{
	REAL("MPI_Exscan", exscan_fn);
	stop_at("MPI_Exscan", -1, 0);
	return real(in, out, n, type, op, comm);
}
