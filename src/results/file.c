/* file: what every reader of a results file needs beside the reading itself: whether a path
 * is an HDF5 file at all (without blocking on a FIFO or scanning a device), and the release of
 * what was read. No HDF5 calls, no MPI. */
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "dataset/dataset.h"

int results_h5_signature(const char *path, struct pf_err *e)
{
	static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
	unsigned char buf[8];
	struct stat st;
	int found = 0, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pf_fail_errno(e, errno, "%s: cannot open", path);
	if (fstat(fd, &st) != 0) {
		int err = errno;
		close(fd);
		return pf_fail_errno(e, err, "%s: cannot read", path);
	}
	if (dataset_not_regular(st.st_mode) != NULL) {
		close(fd);
		return pf_fail(e, PF_RUNTIME, "%s: is %s, not a results file", path,
			       dataset_not_regular(st.st_mode));
	}
	/* bounded by the file's size; at doubles only while at most half of it, so cannot wrap */
	for (off_t at = 0; !found && at <= st.st_size - (off_t)sizeof buf;
	     at = at ? at * 2 : 512) {
		ssize_t n = pread(fd, buf, sizeof buf, at);
		if (n < 0) {
			int err = errno;
			close(fd);
			return pf_fail_errno(e, err, "%s: cannot read", path);
		}
		found = n == (ssize_t)sizeof buf && memcmp(buf, sig, sizeof sig) == 0;
		if (at > st.st_size / 2)
			break;
	}
	close(fd); /* read only: nothing to lose */
	return found;
}

void results_free(struct run_data *run)
{
	if (run == NULL)
		return;
	char **strs[] = {&run->path,        &run->pfsread_version, &run->config_yaml,
			 &run->config_path, &run->command_line,    &run->start_time,
			 &run->mpi_version, &run->hdf5_version,    &run->job_id,
			 &run->status};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		free(*strs[i]);
	free(run->node_of_rank);
	free(run->hostnames);
	free(run->clock_offset_s);
	for (size_t i = 0; i < run->nphases; i++) {
		free(run->phases[i].ranks);
		free(run->phases[i].files);
		free(run->phases[i].digest.secs);
		free(run->phases[i].digest.cells);
		free(run->phases[i].digest.use.bytes);
		free(run->phases[i].targets.name);
	}
	free(run->phases);
	for (struct run_part *pt = run->parts; pt != NULL && pt < run->parts + run->nparts; pt++) {
		free(pt->start_time), free(pt->end_time), free(pt->job_id);
		free(pt->hosts), free(pt->command_line), free(pt->status);
	}
	free(run->parts);
	memset(run, 0, sizeof *run);
}
