/* target: the per-rank context of storage target lookups (target.h): a local device's answer
 * asked in the rank, else a helper process (this program again, see TARGET_HELPER_ARG) that
 * asks the file system, waited for with a time limit; the names seen so far and the answer
 * per data set and file; and the merge of all ranks' names into one table per phase.
 * Why a process and not a thread: a FUSE request the daemon never answers holds its caller
 * in an uninterruptible wait, and a thread so held keeps the whole rank from exiting; a child
 * so held is killed and left behind, and the rank goes on and ends. The helper makes no MPI
 * call and writes nothing but its answers. */
#include "run/target.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define TG_PATH 4160 /* PHASE_PATH and then some */
/* Paths asked at once: written in one go (far below a socket's buffer, so the write never
 * waits on a hung child), answered in one go (the child's time slice, not a round trip per
 * file: 5,000 files per rank cost 0.66 s one by one on this busy 2-core machine) */
#define TG_BATCH 64
#define TG_BATCH_BYTES 32768
#define TG_FLUSH_S 0.01 /* the longest the helper holds answers it has */

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
	char rx[8192];                  /* answers read but not taken yet */
	size_t nrx;
	char batch[TG_BATCH_BYTES];     /* the paths of the batch being asked */
	int local;                      /* 0 not known yet, 1 a local device's answer, -1 none */
	dev_t local_dev;                /* that device */
	uint32_t local_id;              /* its answer's local id */
};

static double tg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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

/* The answer to one path, for the child: a device's answer is its every file's (one stat
 * instead of the whole lookup); last and last_dev remember the latest such. */
static void tg_answer_path(const char *path, const char *host, char *out, size_t len,
			   char *last, dev_t *last_dev, int *have)
{
	struct stat st;
	int dev_known = stat(path, &st) == 0;
	if (dev_known && *have && st.st_dev == *last_dev) {
		snprintf(out, len, "%s", last);
	} else if (target_lookup(path, host, out, len) == 1 && dev_known) {
		snprintf(last, RECORD_TARGET_MAX, "%s", out);
		*last_dev = st.st_dev;
		*have = 1;
	}
}

/* The helper: paths in (NUL-terminated, many at once), an answer out for each, until the
 * rank closes the socket (fd). Answers go out together, at the end of what was asked or after
 * TG_FLUSH_S (a slow lookup does not hold those before it): one wake-up of the rank per
 * batch rather than per file. */
static void tg_child(int fd, const char *host)
{
	static char in[TG_BATCH_BYTES + TG_PATH]; /* the helper process's own, once */
	static char outs[TG_BATCH * RECORD_TARGET_MAX];
	char out[RECORD_TARGET_MAX], last[RECORD_TARGET_MAX] = "";
	dev_t last_dev = 0;
	size_t used = 0, nouts = 0;
	int have = 0;
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* a rank that dies takes it along */
	for (;;) {
		ssize_t n = read(fd, in + used, sizeof in - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
		char *at = in, *nul;
		double flushed = tg_now();
		while ((nul = memchr(at, '\0', used - (size_t)(at - in))) != NULL) {
			tg_answer_path(at, host, out, sizeof out, last, &last_dev, &have);
			size_t k = strlen(out) + 1;
			if (nouts + k > sizeof outs || tg_now() - flushed > TG_FLUSH_S) {
				if (tg_write_all(fd, outs, nouts) != 0)
					return;
				nouts = 0;
				flushed = tg_now();
			}
			memcpy(outs + nouts, out, k);
			nouts += k;
			at = nul + 1;
		}
		if (nouts > 0 && tg_write_all(fd, outs, nouts) != 0)
			return;
		nouts = 0;
		used -= (size_t)(at - in);
		memmove(in, at, used);
		if (used == sizeof in)
			break; /* no NUL in all of it: not a path of ours */
	}
}

int target_helper_main(int argc, char **argv)
{
	tg_child(STDIN_FILENO, argc > 0 ? argv[0] : "");
	return 0;
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

/* Start the helper on first use: this program again, its socket on standard input, its
 * output to /dev/null (nothing of the rank's output stays open in it: mpirun and prove wait
 * for that), the default signal actions. 0, or -1 (none: lookups say so). */
static int tg_start(struct target_ctx *c)
{
	int sv[2], rc = -1;
	pid_t pid;
	char *argv[] = {"pfsread", TARGET_HELPER_ARG, c->host, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	if (c->started)
		return c->fd >= 0 ? 0 : -1;
	c->started = 1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	if (posix_spawn_file_actions_init(&fa) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (posix_spawnattr_init(&at) == 0) {
		sigfillset(&all);
		sigemptyset(&none);
		if (posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO) == 0 &&
		    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) == 0 &&
		    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0) == 0 &&
		    posix_spawnattr_setsigdefault(&at, &all) == 0 &&
		    posix_spawnattr_setsigmask(&at, &none) == 0 &&
		    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) == 0 &&
		    posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ) == 0)
			rc = 0;
		posix_spawnattr_destroy(&at);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		return -1;
	}
	c->child = pid;
	c->fd = sv[0];
	return 0;
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

/* The next answer from the child into out (at most len - 1 bytes kept), waiting until
 * `until` at most. 0, or -1 at the deadline or when the child is gone. */
static int tg_answer(struct target_ctx *c, char *out, size_t len, double until)
{
	for (;;) {
		char *nul = memchr(c->rx, '\0', c->nrx);
		if (nul != NULL) {
			size_t n = (size_t)(nul - c->rx), keep = n < len - 1 ? n : len - 1;
			memcpy(out, c->rx, keep);
			out[keep] = '\0';
			c->nrx -= n + 1;
			memmove(c->rx, nul + 1, c->nrx);
			return 0;
		}
		if (c->nrx == sizeof c->rx)
			return -1; /* an answer longer than any: not the child's */
		double left = until - tg_now();
		struct pollfd p = {c->fd, POLLIN, 0};
		int r = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t got = read(c->fd, c->rx + c->nrx, sizeof c->rx - c->nrx);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		c->nrx += (size_t)got;
	}
}

/* Local disk and memory file systems by statfs's f_type: their answer is their device's,
 * found without any extended attribute (target_lookup: statfs, stat and sysfs), nothing that
 * a hung daemon could hold. */
static int tg_local_type(uint32_t type)
{
	return type == EXT4_SUPER_MAGIC || type == XFS_SUPER_MAGIC || type == BTRFS_SUPER_MAGIC ||
	       type == TMPFS_MAGIC;
}

/* The answer for path asked in the rank itself, with one stat, when it lies on the local
 * device found before: no helper to start and no round trip, for the files of a local disk or
 * a tmpfs. The first path asked decides: when it is on such a file system its device's answer
 * is kept; otherwise (FUSE, a network file system, where a request can hang) every lookup
 * goes to the helper, as does a file on another device. 0 answered into *id, -1 not. */
static int tg_local(struct target_ctx *c, const char *path, uint32_t *id)
{
	struct stat st;
	struct statfs sf;
	char out[RECORD_TARGET_MAX];
	if (c->local == 0) {
		c->local = -1;
		if (statfs(path, &sf) == 0 && tg_local_type((uint32_t)sf.f_type) &&
		    stat(path, &st) == 0 && target_lookup(path, c->host, out, sizeof out) == 1 &&
		    (c->local_id = tg_intern(c, out)) != 0) {
			c->local = 1;
			c->local_dev = st.st_dev;
			*id = c->local_id;
			return 0;
		}
		return -1;
	}
	if (c->local < 0 || stat(path, &st) != 0 || st.st_dev != c->local_dev)
		return -1;
	*id = c->local_id;
	return 0;
}

/* Ask about the n paths of batch (NUL-separated, `bytes` in all) at once, the answers'
 * local ids into ids[]; each answer is waited for at most TARGET_LOOKUP_S and not past the
 * budget. One that overstays makes this rank give its lookups up. */
static void tg_batch(struct target_ctx *c, const char *batch, size_t bytes, size_t n,
		     uint32_t *ids, double *budget_s)
{
	char out[RECORD_TARGET_MAX];
	size_t i = 0;
	double t0 = tg_now();
	if (!c->stuck && tg_start(c) != 0) {
		snprintf(out, sizeof out, "unknown: no lookup process");
		for (; i < n; i++)
			ids[i] = tg_intern(c, out);
		return;
	}
	if (!c->stuck && tg_write_all(c->fd, batch, bytes) != 0)
		c->stuck = 1;
	for (; i < n && !c->stuck; i++) {
		double left = *budget_s - (tg_now() - t0);
		double until = tg_now() + (left < TARGET_LOOKUP_S ? left : TARGET_LOOKUP_S);
		if (tg_answer(c, out, sizeof out, until) != 0) {
			c->stuck = 1; /* no answer in time, or the child is gone */
			break;
		}
		target_clean(out);
		ids[i] = tg_intern(c, out);
	}
	if (c->stuck && c->fd >= 0)
		tg_stop(c, 1);
	for (; i < n; i++)
		ids[i] = tg_intern(c, "unknown: timeout");
	*budget_s -= tg_now() - t0;
}

void target_ids(struct target_ctx *c, size_t ds, uint64_t nfiles, const uint64_t *file,
		uint64_t n, target_path_fn path_of, void *arg, uint32_t *ids, double *budget_s)
{
	char *batch = c->batch;
	uint64_t at[TG_BATCH];
	uint32_t got[TG_BATCH];
	char path[TG_PATH];
	struct tg_set *s = ds < c->nsets ? &c->sets[ds] : NULL;
	if (s != NULL && s->id == NULL && nfiles > 0 && (s->id = calloc(nfiles, sizeof *s->id)))
		s->nfiles = nfiles;
	for (uint64_t i = 0; i < n;) {
		size_t k = 0, bytes = 0;
		/* the next items not known yet, as many as fit one batch */
		for (; i < n && k < TG_BATCH; i++) {
			int kept = s != NULL && file[i] < s->nfiles;
			if (kept && s->id[file[i]] != 0) {
				ids[i] = s->id[file[i]];
				continue;
			}
			if (c->stuck || *budget_s <= 0) {
				/* not kept: a later phase may have budget (a stuck rank stays so) */
				ids[i] = tg_intern(c, c->stuck ? "unknown: timeout"
							       : "unknown: the phase's lookup budget "
								 "was spent");
				continue;
			}
			size_t len = path_of(arg, i, path, sizeof path) == 0 ? strlen(path) + 1 : 0;
			if (len == 0 || len > TG_PATH) {
				ids[i] = tg_intern(c, "unknown: path too long");
				continue;
			}
			if (tg_local(c, path, &ids[i]) == 0) {
				if (kept)
					s->id[file[i]] = ids[i];
				continue;
			}
			if (bytes + len > sizeof c->batch)
				break;
			memcpy(batch + bytes, path, len);
			bytes += len;
			at[k++] = i;
		}
		if (k == 0)
			continue;
		tg_batch(c, batch, bytes, k, got, budget_s);
		for (size_t j = 0; j < k; j++) {
			ids[at[j]] = got[j];
			if (s != NULL && file[at[j]] < s->nfiles &&
			    strcmp(target_name(c, got[j]), "unknown: timeout") != 0)
				s->id[file[at[j]]] = got[j];
		}
	}
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
	if (t == NULL)
		return;
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
