/* mpiio backend: MPI_File_open per file (on MPI_COMM_SELF, or on the phase's readers for
 * pattern shared, where reads are collective), MPI_File_read_at[_all], hints from the config.
 * Its config keys: mpiio: {collective: true|false} and mpiio_hints: {key: value, ...}. */
#include "run/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MPIIO_FLAGS BACKEND_COLLECTIVE

/* ---- options ---- */

/* mpiio: {...}. */
struct mpiio_opts {
	int collective; /* pattern shared reads collectively (MPI_File_read_at_all); default true */
};

static const struct mpiio_opts mpiio_defaults = {.collective = 1};

static const struct cfg_opt mpiio_opts[] = {
	{"collective", CFG_OPT_BOOL, offsetof(struct mpiio_opts, collective), 0, 0, NULL},
};

static const struct cfg_block mpiio_block = {
	.key = "mpiio", .opts = mpiio_opts, .nopts = sizeof mpiio_opts / sizeof mpiio_opts[0],
	.size = sizeof(struct mpiio_opts), .defaults = &mpiio_defaults,
	.note = "MPI-IO passes no access hint (advice) to the kernel; its hints go under "
		"mpiio_hints",
};

/* mpiio_hints: {key: value, ...}: any keys (MPI_Info passes them through). */
static const struct cfg_pairs mpiio_no_hints;

static const struct cfg_block mpiio_hints_block = {
	.key = "mpiio_hints", .opts = NULL, .item = "hint", .size = sizeof(struct cfg_pairs),
	.defaults = &mpiio_no_hints,
};

static const struct cfg_block *const mpiio_config[] = {&mpiio_block, &mpiio_hints_block, NULL};

/* collective: false takes the capability away: shared files are then read independently. */
static unsigned mpiio_flags(const struct experiment *x)
{
	const struct mpiio_opts *o = cfg_block_values(x, &mpiio_block);
	return o->collective ? MPIIO_FLAGS : MPIIO_FLAGS & ~BACKEND_COLLECTIVE;
}

/* Every phase records the hints as "key=value,..." ("" for none), whatever its backend. */
static void mpiio_record(const struct experiment *x, struct phase_info *p)
{
	const struct cfg_pairs *h = cfg_block_values(x, &mpiio_hints_block);
	for (size_t i = 0, used = 0; i < h->n; i++)
		used += (size_t)snprintf(p->mpiio_hints + used, sizeof p->mpiio_hints - used, "%s%s=%s",
					 i ? "," : "", h->pair[i].key, h->pair[i].value);
}

/* MPI-IO has no access advice of its own: its hints are the info keys, and how shared files
 * are read. */
static void mpiio_hints(const struct experiment *x, enum cfg_advice a, char *buf, size_t len)
{
	struct phase_info p;
	(void)a;
	p.mpiio_hints[0] = '\0';
	mpiio_record(x, &p);
	snprintf(buf, len, "MPI-IO info: %s; shared files read %s", p.mpiio_hints[0] != '\0'
		 ? p.mpiio_hints : "none", mpiio_flags(x) & BACKEND_COLLECTIVE
		 ? "collectively (MPI_File_read_at_all)" : "independently (MPI_File_read_at)");
}

/* ---- reads ---- */

struct mpiio_file {
	MPI_File fh;
	int collective;
	uint64_t size; /* what the file should hold: a read that ends before it is looked into */
};

/* MPI error classes -> the errno a user recognises in a message. */
static int mpiio_errno(int rc)
{
	int cls = MPI_ERR_OTHER;
	if (MPI_Error_class(rc, &cls) != MPI_SUCCESS)
		return -EIO;
	switch (cls) {
	case MPI_ERR_NO_SUCH_FILE: return -ENOENT;
	case MPI_ERR_ACCESS: return -EACCES;
	case MPI_ERR_BAD_FILE: return -EINVAL;
	case MPI_ERR_NO_MEM: return -ENOMEM;
	default: return -EIO;
	}
}

/* The config's mpiio_hints as an MPI_Info; MPI_INFO_NULL when there are none. */
static int mpiio_info(const struct experiment *x, MPI_Info *info)
{
	const struct cfg_pairs *h = cfg_block_values(x, &mpiio_hints_block);
	*info = MPI_INFO_NULL;
	if (h->n == 0)
		return 0;
	if (MPI_Info_create(info) != MPI_SUCCESS)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++) {
		if (MPI_Info_set(*info, h->pair[i].key, h->pair[i].value) != MPI_SUCCESS) {
			MPI_Info_free(info);
			return -EINVAL;
		}
	}
	return 0;
}

static int mpiio_open(const char *path, const struct bopen *o, struct bfile *f)
{
	struct mpiio_file *m = malloc(sizeof *m);
	MPI_Info info;
	int rc = m == NULL ? -ENOMEM : mpiio_info(o->x, &info);
	if (rc != 0) {
		free(m);
		return rc;
	}
	m->collective = o->comm != MPI_COMM_SELF;
	m->size = o->size;
	rc = MPI_File_open(o->comm, path, MPI_MODE_RDONLY, info, &m->fh);
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	if (rc != MPI_SUCCESS) {
		free(m);
		return mpiio_errno(rc);
	}
	f->priv = m;
	f->fd = -1;
	f->noatime_used = 0; /* MPI-IO has no way to ask for O_NOATIME */
	return 0;
}

/* A read came back short before the file's expected end. Open MPI's OMPIO drops the errno of
 * a failed pread and returns the bytes before it as a success, so the file itself is asked:
 * one byte at the offset where the read stopped, through a descriptor of our own. -errno when
 * it fails there (EIO from the device, say), 0 when the file really ends (the core records a
 * short file). Only on this failure path: never for a whole read. */
static int mpiio_why_short(const char *path, uint64_t at)
{
	char byte;
	if (path == NULL)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = 0;
	if (fd < 0)
		return -errno;
	if (pread(fd, &byte, 1, (off_t)at) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int mpiio_read(struct bfile *f, void *buf, size_t len, uint64_t offset, size_t *got)
{
	struct mpiio_file *m = f->priv;
	MPI_Status st;
	int count = 0, rc;
	if (len > INT_MAX)
		return -EINVAL;
	if (m->collective)
		rc = MPI_File_read_at_all(m->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st);
	else
		rc = MPI_File_read_at(m->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st);
	if (rc != MPI_SUCCESS)
		return mpiio_errno(rc);
	if (MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
		return -EIO;
	*got = (size_t)count;
	if ((size_t)count < len && offset + (uint64_t)count < m->size)
		return mpiio_why_short(f->path, offset + (uint64_t)count);
	return 0;
}

static int mpiio_close(struct bfile *f)
{
	struct mpiio_file *m = f->priv;
	int rc = MPI_File_close(&m->fh);
	free(m);
	f->priv = NULL;
	return rc == MPI_SUCCESS ? 0 : mpiio_errno(rc);
}

const struct backend mpiio_backend = {
	.name = "mpiio",
	.flags = MPIIO_FLAGS,
	.open = mpiio_open,
	.read = mpiio_read,
	.close = mpiio_close,
	.config = mpiio_config,
	.flags_for = mpiio_flags,
	.record = mpiio_record,
	.hints = mpiio_hints,
};
