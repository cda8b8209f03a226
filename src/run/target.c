/* target: the per-rank context of storage target lookups (target.h): a helper process that
 * asks the file system, waited for with a time limit, the names seen so far and the answer
 * per data set and file; and the merge of all ranks' names into one table per phase.
 * Why a process and not a thread: a FUSE request the daemon never answers holds its caller
 * in an uninterruptible wait, and a thread so held keeps the whole rank from exiting; a child
 * so held is killed and left behind, and the rank goes on and ends. The child makes no MPI
 * call, writes nothing to the rank's output and leaves with _exit. */
#include "run/target.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TG_PATH 4160 /* PHASE_PATH and then some */

struct tg_set {
	uint64_t nfiles;
	uint32_t *id; /* [nfiles]: local id, 0 when not asked yet */
};

struct target_ctx {
	pid_t child;
	int fd;       /* the socket to the child; -1 before it starts or once given up */
	int started, stuck;
	char host[RECORD_HOST_MAX];
	struct tg_set *sets;
	size_t nsets;
	char (*names)[RECORD_TARGET_MAX];
	uint32_t nnames, room;
};

/* Read from fd into buf (len bytes of room, *at used) until a NUL arrives; in the parent
 * with a deadline (until > 0, on CLOCK_MONOTONIC). 0 with buf ending at the NUL, -1 at EOF,
 * an error or the deadline. */
static int tg_read_msg(int fd, char *buf, size_t len, double until);

static double tg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int tg_read_msg(int fd, char *buf, size_t len, double until)
{
	size_t at = 0;
	for (;;) {
		if (until > 0) {
			double left = until - tg_now();
			struct pollfd p = {fd, POLLIN, 0};
			int r = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
		}
		ssize_t n = read(fd, buf + at, len - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += (size_t)n;
		if (memchr(buf + at - (size_t)n, '\0', (size_t)n) != NULL)
			return 0;
		if (at == len)
			return -1; /* no NUL in room: not a message of ours */
	}
}

/* Write all of buf[0..n) to fd (no SIGPIPE: the other end may be gone). 0 or -1. */
static int tg_write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child: a path in, its answer out, until the parent closes the socket. */
static void tg_child(int fd, const char *host)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGALRM, SIGHUP, SIGUSR1, SIGUSR2};
	char path[TG_PATH], out[RECORD_TARGET_MAX];
	int null = open("/dev/null", O_RDWR);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		(void)signal(sigs[i], SIG_DFL); /* the rank's handlers are not for it */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null >= 0) { /* nothing of the rank's output stays open in it (mpirun, prove) */
		(void)dup2(null, STDIN_FILENO);
		(void)dup2(null, STDOUT_FILENO);
		(void)dup2(null, STDERR_FILENO);
	}
	while (tg_read_msg(fd, path, sizeof path, 0) == 0) {
		target_lookup(path, host, out, sizeof out);
		if (tg_write_all(fd, out, strlen(out) + 1) != 0)
			break;
	}
	_exit(0); /* never the rank's exit handlers (MPI, HDF5) */
}

int target_ctx_new(size_t ndatasets, const char *host, struct target_ctx **out)
{
	struct target_ctx *c = calloc(1, sizeof *c);
	*out = NULL;
	if (c == NULL || (c->sets = calloc(ndatasets ? ndatasets : 1, sizeof *c->sets)) == NULL) {
		free(c);
		return -ENOMEM;
	}
	c->nsets = ndatasets;
	c->fd = -1;
	c->child = -1;
	snprintf(c->host, sizeof c->host, "%s", host ? host : "");
	*out = c;
	return 0;
}

/* Give the child up: killed, its socket closed; reaped now if it is gone (else it is left). */
static void tg_stop(struct target_ctx *c, int kill_it)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->child > 0) {
		if (kill_it)
			(void)kill(c->child, SIGKILL);
		/* an idle child leaves at the closed socket; a stuck one is not waited for */
		(void)waitpid(c->child, NULL, kill_it ? WNOHANG : 0);
	}
	c->child = -1;
}

void target_ctx_free(struct target_ctx *c)
{
	if (c == NULL)
		return;
	tg_stop(c, c->stuck);
	for (size_t i = 0; i < c->nsets; i++)
		free(c->sets[i].id);
	free(c->sets);
	free(c->names);
	free(c);
}

/* Start the child on first use. 0, or -1 (none: lookups say so). */
static int tg_start(struct target_ctx *c)
{
	int sv[2];
	if (c->started)
		return c->fd >= 0 ? 0 : -1;
	c->started = 1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		tg_child(sv[1], c->host);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	c->child = pid;
	c->fd = sv[0];
	return 0;
}

/* Ask the child about path, waiting at most wait_s; out gets its answer or why not. */
static void tg_ask(struct target_ctx *c, const char *path, double wait_s, char *out, size_t len)
{
	char answer[RECORD_TARGET_MAX + 1];
	if (c->stuck) {
		snprintf(out, len, "unknown: timeout");
		return;
	}
	if (tg_start(c) != 0) {
		snprintf(out, len, "unknown: no lookup process (%s)", strerror(errno));
		return;
	}
	double until = tg_now() + wait_s;
	if (tg_write_all(c->fd, path, strlen(path) + 1) == 0 &&
	    tg_read_msg(c->fd, answer, sizeof answer, until) == 0) {
		size_t n = strnlen(answer, len - 1);
		memcpy(out, answer, n);
		out[n] = '\0';
		return;
	}
	/* no answer in time (or the child is gone): this rank asks nothing more */
	c->stuck = 1;
	tg_stop(c, 1);
	snprintf(out, len, "unknown: timeout");
}

/* The local id of name, added when new; 0 when out of memory. */
static uint32_t tg_intern(struct target_ctx *c, const char *name)
{
	for (uint32_t i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i], name) == 0)
			return i + 1;
	if (c->nnames >= TARGET_NAMES_MAX && strcmp(name, "unknown: many") != 0)
		return tg_intern(c, "unknown: many");
	if (c->nnames == c->room) {
		uint32_t room = c->room ? c->room * 2 : 16;
		void *p = realloc(c->names, room * sizeof *c->names);
		if (p == NULL)
			return 0;
		c->names = p;
		c->room = room;
	}
	snprintf(c->names[c->nnames], RECORD_TARGET_MAX, "%s", name);
	return ++c->nnames;
}

uint32_t target_of(struct target_ctx *c, size_t ds, uint64_t nfiles, uint64_t file,
		   const char *path, double *budget_s)
{
	char out[RECORD_TARGET_MAX];
	struct tg_set *s = ds < c->nsets ? &c->sets[ds] : NULL;
	if (s != NULL && s->id == NULL && nfiles > 0 && (s->id = calloc(nfiles, sizeof *s->id)))
		s->nfiles = nfiles;
	if (s != NULL && file < s->nfiles && s->id[file] != 0)
		return s->id[file];
	if (*budget_s <= 0) {
		snprintf(out, sizeof out, "unknown: the phase's lookup budget was spent");
		return tg_intern(c, out); /* not kept: a later phase may have budget */
	}
	double t0 = tg_now();
	tg_ask(c, path, *budget_s < TARGET_LOOKUP_S ? *budget_s : TARGET_LOOKUP_S, out, sizeof out);
	*budget_s -= tg_now() - t0;
	target_clean(out);
	uint32_t id = tg_intern(c, out);
	if (s != NULL && file < s->nfiles)
		s->id[file] = id;
	return id;
}

const char *target_name(const struct target_ctx *c, uint32_t id)
{
	return id >= 1 && id <= c->nnames ? c->names[id - 1] : RECORD_TARGET_NONE;
}

uint32_t target_count(const struct target_ctx *c)
{
	return c->nnames;
}

void target_table_free(struct target_table *t)
{
	free(t->name);
	t->name = NULL;
	t->n = 0;
}

/* The names this rank's rows use, in local id order, NUL-separated, into *blob; used[id] is
 * set for each. */
static int tg_used(const struct target_ctx *c, const struct file_rec *rows, uint64_t n,
		   uint8_t *used, char **blob, int *len)
{
	size_t at = 0;
	for (uint64_t i = 0; i < n; i++)
		if (rows[i].target >= 1 && rows[i].target <= c->nnames)
			used[rows[i].target] = 1;
	for (uint32_t id = 1; id <= c->nnames; id++)
		if (used[id])
			at += strlen(c->names[id - 1]) + 1;
	if (at > (size_t)INT32_MAX || (*blob = malloc(at ? at : 1)) == NULL)
		return -1;
	at = 0;
	for (uint32_t id = 1; id <= c->nnames; id++)
		if (used[id]) {
			size_t k = strlen(c->names[id - 1]) + 1;
			memcpy(*blob + at, c->names[id - 1], k);
			at += k;
		}
	*len = (int)at;
	return 0;
}

/* The table of every rank's names (all[0..total), each NUL-terminated), each once. */
static int tg_table(const char *all, size_t total, struct target_table *out)
{
	size_t n = 1;
	for (size_t i = 0; i < total; i++)
		n += all[i] == '\0';
	if ((out->name = calloc(n, sizeof *out->name)) == NULL)
		return -1;
	snprintf(out->name[0], RECORD_TARGET_MAX, "%s", RECORD_TARGET_NONE);
	out->n = 1;
	for (size_t i = 0; i < total; i += strlen(all + i) + 1) {
		uint32_t k = 0;
		while (k < out->n && strcmp(out->name[k], all + i) != 0)
			k++;
		if (k == out->n)
			snprintf(out->name[out->n++], RECORD_TARGET_MAX, "%s", all + i);
	}
	return 0;
}

int target_merge(const struct target_ctx *c, struct file_rec *rows, uint64_t n, MPI_Comm comm,
		 struct target_table *out)
{
	int size = 0, len = 0, rc = -1, ok = 1, all_ok = 0;
	int *lens = NULL, *at = NULL;
	char *mine = NULL, *all = NULL;
	uint8_t *used = NULL;
	uint32_t *map = NULL, nn = c ? c->nnames : 0;
	memset(out, 0, sizeof *out);
	if (MPI_Comm_size(comm, &size) != MPI_SUCCESS)
		goto out;
	used = calloc((size_t)nn + 1, 1);
	map = calloc((size_t)nn + 1, sizeof *map);
	lens = calloc((size_t)size, sizeof *lens);
	at = calloc((size_t)size, sizeof *at);
	ok = used && map && lens && at && (c == NULL || tg_used(c, rows, n, used, &mine, &len) == 0);
	if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all_ok)
		goto out;
	if (MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, comm) != MPI_SUCCESS)
		goto out;
	size_t total = 0;
	for (int r = 0; r < size; r++) {
		at[r] = (int)total;
		total += (size_t)lens[r];
	}
	ok = total <= (size_t)INT32_MAX && (all = malloc(total ? total : 1)) != NULL;
	if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !ok)
		goto out;
	if (MPI_Allgatherv(mine ? mine : "", len, MPI_CHAR, all, lens, at, MPI_CHAR, comm) !=
	    MPI_SUCCESS)
		goto out;
	ok = tg_table(all, total, out) == 0;
	if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !ok)
		goto out;
	for (uint32_t id = 1; id <= nn; id++)
		for (uint32_t k = 1; used[id] && k < out->n; k++)
			if (strcmp(out->name[k], c->names[id - 1]) == 0) {
				map[id] = k;
				break;
			}
	for (uint64_t i = 0; i < n; i++)
		rows[i].target = rows[i].target <= nn ? map[rows[i].target] : 0;
	rc = 0;
out:
	if (rc != 0) {
		target_table_free(out);
		for (uint64_t i = 0; i < n; i++)
			rows[i].target = 0;
	}
	free(used);
	free(map);
	free(lens);
	free(at);
	free(mine);
	free(all);
	return rc;
}
