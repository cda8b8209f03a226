/* mmap backend: map the whole file and copy out of the mapping, as a consumer of mapped data
 * would. The page faults and the kernel's readahead for them are what it measures; with
 * huge_pages: true, a consumer's mapping on transparent huge pages (MADV_HUGEPAGE); with
 * keep_mapped: true, a consumer that keeps its data set mapped (each file's mapping is undone
 * after the phase, outside the timing). A page the kernel cannot supply (the file shrank, the
 * device failed) raises SIGBUS: the copy runs under a handler that jumps back out, so the
 * failure is recorded on the file's row like a read path's (short, or EIO) instead of killing
 * the rank. */
#include "run/backends/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mapping of one open file; size is the file's size at open. With keep_mapped the file's
 * record outlives its close: it joins the phase's kept ones. */
struct mmap_priv {
	void *base; /* NULL for an empty file: mmap refuses length 0 */
	size_t size;
	struct mmap_state *keep; /* NULL: unmapped at close */
	struct mmap_priv *next;  /* among the kept */
};

/* The phase's state: with keep_mapped, the files closed and still mapped. */
struct mmap_state {
	struct mmap_priv *kept;
	/* kept_bytes and the open file's together within max_bytes (a larger file alone) */
	size_t kept_bytes, max_bytes;
	int keep;
};

/* ---- options: mmap: {advice: A, huge_pages: B, keep_mapped: C} ---- */

struct mmap_opts {
	enum cfg_advice advice; /* when sweep.advice is default; CFG_ADVICE_DEFAULT: none */
	int huge_pages;         /* MADV_HUGEPAGE over each mapping; default false */
	int keep_mapped;        /* unmap after the phase instead of at each close; default false */
};

static const struct mmap_opts mmap_defaults = {.advice = CFG_ADVICE_DEFAULT, .huge_pages = 0,
					       .keep_mapped = 0};

static const struct cfg_opt mmap_opts[] = {
	{"advice", CFG_OPT_ADVICE, offsetof(struct mmap_opts, advice), 0, 0, NULL},
	{"huge_pages", CFG_OPT_BOOL, offsetof(struct mmap_opts, huge_pages), 0, 0, NULL},
	{"keep_mapped", CFG_OPT_BOOL, offsetof(struct mmap_opts, keep_mapped), 0, 0, NULL},
};

static const struct cfg_block mmap_block = {
	.key = "mmap", .opts = mmap_opts, .nopts = sizeof mmap_opts / sizeof mmap_opts[0],
	.size = sizeof(struct mmap_opts), .defaults = &mmap_defaults,
};

static const struct mmap_opts *mmap_opts_of(const struct experiment *x)
{
	return cfg_block_values(x, &mmap_block);
}

/* The phase's advice, then with huge_pages MADV_HUGEPAGE, over the mapping m of len bytes.
 * A hint asked for and not given would mislabel the phase: fail rather than time it. No
 * POSIX_FADV_SEQUENTIAL on the descriptor, as fio's mmap engine gives: it doubles the faults'
 * read-ahead window, and on a loop ext4 a cold read of 64 MiB files then took nearly twice
 * the mapping's faults and some 30% more CPU per byte (docs/performance.md). 0 or -errno. */
static int mmap_advise(void *m, size_t len, const struct bopen *o)
{
	/* MADV_SEQUENTIAL is not the default: on a FUSE mount (GlusterFS in the box) it cut a cold
	 * read to a sixth of the link (README, Read paths and their hints). */
	if (o->advice != CFG_ADVICE_NONE &&
	    madvise(m, len, o->advice == CFG_ADVICE_WILLNEED ? MADV_WILLNEED : MADV_SEQUENTIAL) != 0)
		return -errno;
	/* where the file system caches large folios (ext4, XFS) the page cache then reads 2 MiB
	 * folios that one fault maps whole, where 4 KiB pages take a fault per 64 KiB (the
	 * kernel's fault-around); elsewhere the advice changes nothing */
	if (mmap_opts_of(o->x)->huge_pages && madvise(m, len, MADV_HUGEPAGE) != 0)
		return -errno;
	return 0;
}

/* Kept mappings cost page tables (4 KiB per 2 MiB mapped in pages), and the page cache's
 * reclaim must unmap a kept page before it can free it: a reader keeps at most a quarter of
 * the node's memory mapped. */
static size_t mmap_keep_max(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return (size_t)1 << 30; /* not known: 1 GiB, a share any node can keep */
	return (size_t)pages / 4 * (size_t)page;
}

/* Unmap every kept mapping and free its record. 0 or -errno (the first failure). */
static int mmap_unmap_kept(struct mmap_state *st)
{
	int rc = 0;
	while (st->kept != NULL) {
		struct mmap_priv *p = st->kept;
		st->kept = p->next;
		if (munmap(p->base, p->size) != 0 && rc == 0)
			rc = -errno;
		free(p);
	}
	st->kept_bytes = 0;
	return rc;
}

/* Room for a mapping of size bytes beside the kept ones: where it would take them over the
 * most, those kept so far are unmapped first, in the timing, as a consumer at its limit would.
 * 0 or -errno. */
static int mmap_make_room(struct mmap_state *st, size_t size)
{
	return st->kept_bytes + size > st->max_bytes ? mmap_unmap_kept(st) : 0;
}

/* Map the whole of fd read-only and give the phase's hints over the mapping (mmap_advise). 0
 * or -errno; on failure nothing stays mapped. */
static int mmap_map(int fd, const struct bopen *o, void *priv)
{
	struct mmap_priv *p = priv;
	struct mmap_state *st = o->state;
	struct stat sb;
	void *m;
	int rc;
	p->base = NULL;
	p->keep = st != NULL && st->keep ? st : NULL;
	p->next = NULL;
	if (fstat(fd, &sb) != 0)
		return -errno;
	p->size = (size_t)sb.st_size;
	if (p->size == 0)
		return 0;
	if (p->keep != NULL && (rc = mmap_make_room(p->keep, p->size)) != 0)
		return rc;
	m = mmap(NULL, p->size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	rc = mmap_advise(m, p->size, o);
	if (rc != 0) {
		(void)munmap(m, p->size); /* the madvise failure is the one to report */
		return rc;
	}
	p->base = m;
	return 0;
}

static int mmap_open(const char *path, const struct bopen *o, struct bfile *f)
{
	return posix_open_with(path, O_RDONLY | O_CLOEXEC, o, f,
			       sizeof(struct mmap_priv), mmap_map);
}

/* ---- SIGBUS: signals force these globals (a handler reaches nothing else) ---- */

/* The thread copying out of a mapping arms its own jump (thread-local: ranks may have other
 * threads, MPI's, which must not jump into a reader's stack); the address that faulted comes
 * back the same way. Static TLS of the executable, so reading it in the handler is safe. */
static _Thread_local sigjmp_buf *volatile mmap_jump;
static _Thread_local void *volatile mmap_fault_at;
static struct sigaction mmap_bus_prev; /* the action before setup, restored by teardown */

static void mmap_on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	sigjmp_buf *jb = mmap_jump;
	if (jb == NULL) {
		/* not a copy of ours: the previous action again, and the fault repeats under it */
		(void)sigaction(sig, &mmap_bus_prev, NULL);
		return;
	}
	mmap_jump = NULL;
	mmap_fault_at = si->si_addr;
	siglongjmp(*jb, 1);
}

/* For the phase (outside the timing): the handler, SA_NODEFER so that a jump out of it leaves
 * SIGBUS unblocked without the cost of saving the signal mask at every copy. */
static int mmap_setup(const struct experiment *x, size_t transfer, void **state)
{
	struct sigaction sa;
	(void)transfer;
	struct mmap_state *st = calloc(1, sizeof *st);
	if (st == NULL)
		return -ENOMEM;
	st->keep = mmap_opts_of(x)->keep_mapped;
	st->max_bytes = mmap_keep_max();
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = mmap_on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIGBUS, &sa, &mmap_bus_prev) != 0) {
		int rc = -errno;
		free(st);
		return rc;
	}
	*state = st;
	return 0;
}

/* After the closing barrier: the kept mappings undone, the handler back to what it was. */
static void mmap_teardown(void *state)
{
	struct mmap_state *st = state;
	int rc = mmap_unmap_kept(st);
	if (rc != 0) /* the phase is over: said, never its outcome */
		fprintf(stderr, "pfsread: mmap: a kept mapping could not be unmapped: %s\n",
			strerror(-rc));
	free(st);
	(void)sigaction(SIGBUS, &mmap_bus_prev, NULL); /* what sigaction read back: cannot fail */
}

/* The copy of [offset, offset + n) faulted: *got is what was copied before the page that
 * faulted. A file that now ends there is short (0: the core names it short); otherwise the
 * device could not supply the page (-EIO). */
static int mmap_fault(struct bfile *f, const struct mmap_priv *p, uint64_t offset, size_t n,
		      size_t *got)
{
	uintptr_t from = (uintptr_t)p->base + (uintptr_t)offset, at = (uintptr_t)mmap_fault_at;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	at -= at % page;
	*got = at > from ? (at - from < n ? (size_t)(at - from) : n) : 0;
	if (fstat(f->fd, &st) != 0)
		return -errno;
	return (uint64_t)st.st_size <= offset + *got ? 0 : -EIO;
}

/* memcpy touches every byte, as a consumer would, rather than one per page. The jump is armed
 * only while it copies (sigsetjmp without the mask: no system call per transfer). */
static int mmap_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	const struct mmap_priv *p = f->priv;
	size_t n = 0;
	sigjmp_buf jb;
	if (offset < p->size) {
		n = p->size - (size_t)offset;
		if (n > len)
			n = len;
		if (sigsetjmp(jb, 0) != 0)
			return mmap_fault(f, p, offset, n, got);
		mmap_jump = &jb;
		memcpy(buf, (const char *)p->base + offset, n);
		mmap_jump = NULL;
	}
	*got = n;
	return 0;
}

/* Unmap, or keep the mapping (its record then joins the kept ones), then close; the first
 * failure is the one returned. */
static int mmap_close(struct bfile *f)
{
	struct mmap_priv *p = f->priv;
	int rc = 0, crc;
	if (p != NULL && p->base != NULL && p->keep != NULL) {
		p->next = p->keep->kept;
		p->keep->kept = p;
		p->keep->kept_bytes += p->size;
	} else {
		if (p != NULL && p->base != NULL && munmap(p->base, p->size) != 0)
			rc = -errno;
		free(p);
	}
	f->priv = NULL;
	crc = posix_close(f);
	return rc != 0 ? rc : crc;
}

static void mmap_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len)
{
	const struct mmap_opts *m = mmap_opts_of(x);
	const char *advice = a == CFG_ADVICE_SEQUENTIAL ? ", madvise(MADV_SEQUENTIAL)"
			     : a == CFG_ADVICE_WILLNEED ? ", madvise(MADV_WILLNEED)"
							: "";
	const char *kept = m->keep_mapped ? ", kept mapped to the phase's end" : "";
	if (m->huge_pages)
		snprintf(buf, len, "mmap(MAP_SHARED)%s, madvise(MADV_HUGEPAGE) on every file%s",
			 advice, kept);
	else if (*advice != '\0')
		snprintf(buf, len, "mmap(MAP_SHARED)%s on every file%s", advice, kept);
	else
		snprintf(buf, len, "mmap(MAP_SHARED), no madvise%s", kept);
}

static const struct cfg_block *const mmap_config[] = {&mmap_block, NULL};

/* default none: MADV_SEQUENTIAL cut cold reads on FUSE to 5-10% of the link (docs/box.md) */
static enum cfg_advice mmap_advice_default(const struct experiment *x)
{
	enum cfg_advice a = mmap_opts_of(x)->advice;
	return a == CFG_ADVICE_DEFAULT ? CFG_ADVICE_NONE : a;
}

const struct backend mmap_backend = {
	.name = "mmap",
	.flags = BACKEND_MAPPED,
	.open = mmap_open,
	.read = mmap_read,
	.close = mmap_close,
	.setup = mmap_setup,
	.teardown = mmap_teardown,
	.config = mmap_config,
	.advice = 1u << CFG_ADVICE_SEQUENTIAL | 1u << CFG_ADVICE_WILLNEED,
	.advice_default = mmap_advice_default,
	.hints = mmap_hints,
};
