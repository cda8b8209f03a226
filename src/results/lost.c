/* lost: the results file of a run that lost a rank (stopped, or stuck where no signal
 * reaches it): closed by the reporter through a handle of its own process (MPI_COMM_SELF), or
 * by a helper process without MPI, since the collective close would wait for the lost rank. */
#include <hdf5.h>
#include <mpi.h>

#include "results/results.h"
#include "results/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void results_drop(struct results *r)
{
	if (r == NULL)
		return;
	free(r->path);
	free(r);
}

/* The last group of /parts (this run's), opened in s, or -1. */
static hid_t res_last_part(struct results *s)
{
	H5G_info_t info;
	char name[24];
	hid_t g = H5Gopen2(s->file, "/parts", H5P_DEFAULT), part = -1;
	if (g < 0)
		return -1;
	if (H5Gget_info(g, &info) >= 0 && info.nlinks > 0) {
		snprintf(name, sizeof name, "%04llu", (unsigned long long)info.nlinks - 1);
		part = H5Gopen2(g, name, H5P_DEFAULT);
	}
	(void)results_h5_close(g); /* read only: nothing to lose */
	return part;
}

/* The phase as the reporter knows it: its own row, the other ranks' rows zero but for their
 * rank and node. */
static int res_lost_phase(struct results *s, const struct phase_info *p,
			  const struct rank_rec *mine, const struct file_rec *files, uint64_t nfiles,
			  const struct target_table *targets, const int *node_of_rank,
			  struct pf_err *e)
{
	struct rank_rec *rows = calloc((size_t)s->nranks, sizeof *rows);
	int rc;
	if (rows == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory", s->path);
	for (int i = 0; i < s->nranks; i++) {
		rows[i].rank = i;
		rows[i].node = node_of_rank[i];
	}
	if (mine->rank >= 0 && mine->rank < s->nranks)
		rows[mine->rank] = *mine;
	rc = res_write_phase(s, p, rows, 0, (uint64_t)s->nranks, files, nfiles, targets, e);
	free(rows);
	return rc;
}

int results_record_lost(struct results *r, const struct phase_info *p,
			const struct rank_rec *mine, const struct file_rec *files, uint64_t nfiles,
			const struct target_table *targets, const int *node_of_rank,
			const char *status, const char *why, struct pf_err *e)
{
	struct results *s = res_new(r->path, MPI_COMM_SELF, r->nnodes);
	int rc = 0;
	if (s == NULL) {
		pf_fail(e, PF_RUNTIME, "%s: out of memory", r->path);
		results_drop(r);
		return -1;
	}
	s->rank = 0;
	s->nranks = r->nranks;
	s->part_phases = r->part_phases;
	results_drop(r); /* its HDF5 objects are never closed: that would wait for the lost rank */
	if ((rc = res_open(s, 0, 2, e)) < 0)
		goto out;
	if ((s->phases = H5Gopen2(s->file, "/phases", H5P_DEFAULT)) < 0) {
		rc = res_fail(s, "/phases", "H5Gopen2", e);
		goto out;
	}
	if (p != NULL && (rc = res_lost_phase(s, p, mine, files, nfiles, targets, node_of_rank,
					    e)) < 0)
		goto out;
	s->part = res_last_part(s); /* a file without parts gets its root status only */
	rc = res_attr_str(s, s->file, "/", "error", why, e);
out:
	if (s->lost) { /* a failed write: close nothing more, as results_close would not */
		results_drop(s);
		return -1;
	}
	if (results_close(s, rc == 0 ? status : NULL, rc == 0 ? e : NULL) < 0 && rc == 0)
		rc = -1;
	return rc;
}

/* "2026-12-01T22:00:00Z" now, here (the helper has no rank 0 to ask). */
static void res_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}

int results_mark_alone(const char *path, const char *status, uint32_t phases, const char *why,
		       struct pf_err *e)
{
	char end[32];
	int rc = 0;
	struct results *r;
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot silence HDF5's error printing", path);
	if ((r = res_new(path, MPI_COMM_NULL, 1)) == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory", path);
	res_now(end, sizeof end);
	if ((r->file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
		rc = res_fail(r, "/", "H5Fopen", e);
		goto out;
	}
	if ((r->str = results_str_type()) < 0) {
		rc = res_fail(r, "/", "string type", e);
		goto out;
	}
	r->part = res_last_part(r);
	if (res_attr_str(r, r->file, "/", "status", status, e) < 0 ||
	    res_attr_str(r, r->file, "/", "error", why, e) < 0 ||
	    (r->part >= 0 &&
	     (res_attr_str(r, r->part, "/parts", "end_time", end, e) < 0 ||
	      res_attr_str(r, r->part, "/parts", "status", status, e) < 0 ||
	      res_attr_num(r, r->part, "/parts", "phases_written", RESULTS_U32, &phases, e) < 0)))
		rc = -1;
out:
	if ((results_h5_close(r->part) | results_h5_close(r->str) | results_h5_close(r->file)) < 0 &&
	    rc == 0)
		rc = pf_fail(e, PF_RUNTIME, "%s: closing failed", path);
	results_drop(r);
	return rc;
}

int results_mark_main(int argc, char **argv)
{
	struct pf_err e = {0};
	char *end = NULL;
	unsigned long phases = argc == 4 ? strtoul(argv[2], &end, 10) : 0;
	if (argc != 4 || end == NULL || *end != '\0' || phases > UINT32_MAX)
		return PF_USAGE;
	if (results_mark_alone(argv[0], argv[1], (uint32_t)phases, argv[3], &e) != 0) {
		fprintf(stderr, "pfsread: %s\n", e.msg);
		return PF_RUNTIME;
	}
	return 0;
}
