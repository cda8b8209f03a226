/* mpiio backend: MPI_File_open per file (on MPI_COMM_SELF, or on the phase's readers for
 * pattern shared, where reads are collective), MPI_File_read_at[_all], hints from the config. */
#include "run/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

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
	*info = MPI_INFO_NULL;
	if (x == NULL || x->nhints == 0)
		return 0;
	if (MPI_Info_create(info) != MPI_SUCCESS)
		return -ENOMEM;
	for (size_t i = 0; i < x->nhints; i++) {
		if (MPI_Info_set(*info, x->mpiio_hints[i].key, x->mpiio_hints[i].value) != MPI_SUCCESS) {
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
	.flags = BACKEND_COLLECTIVE,
	.open = mpiio_open,
	.read = mpiio_read,
	.close = mpiio_close,
};
