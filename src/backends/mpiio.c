/* mpiio backend: MPI_File_open per file (on MPI_COMM_SELF, or on the phase's readers for
 * pattern shared, where reads are collective), MPI_File_read_at[_all], hints from the config. */
#include "pfsread/backend.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

struct mpiio_file {
	MPI_File fh;
	int collective;
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
