/* append: a results file continued by a resumed run (run --resume): what it holds, the
 * interrupted phases dropped, a new part begun (writer.c writes /parts). Collective like the writer: every rank reads the same metadata and makes the
 * same calls. */
#include <hdf5.h>
#include <mpi.h>

#include "results/results.h"
#include "results/writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading what is there ---- */

/* A variable-length string attribute of loc into a malloc'd copy. 0, or -1 with *out NULL. */
static int app_str(hid_t loc, const char *name, char **out)
{
	char *vl = NULL;
	int rc = -1;
	*out = NULL;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT), t = a < 0 ? -1 : H5Aget_type(a);
	if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0 &&
	    results_h5_attr_single(a) && H5Aread(a, t, &vl) >= 0) {
		*out = strdup(vl != NULL ? vl : "");
		rc = *out != NULL ? 0 : -1;
	}
	if (vl != NULL)
		(void)H5free_memory(vl); /* a copy is kept: a failure here leaks, nothing more */
	(void)results_h5_close(t);
	(void)results_h5_close(a);
	return rc;
}

static int app_int(hid_t loc, const char *name, int *out)
{
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	int rc = a >= 0 && results_h5_attr_single(a) && H5Aread(a, H5T_NATIVE_INT, out) >= 0
			 ? 0
			 : -1;
	(void)results_h5_close(a);
	return rc;
}

static int app_double(hid_t loc, const char *name, double *out)
{
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	int rc = a >= 0 && results_h5_attr_single(a) && H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0
			 ? 0
			 : -1;
	(void)results_h5_close(a);
	return rc;
}

/* /topology/node_of_rank, when the file has it and it has nranks rows. */
static int app_topology(hid_t file, struct results_prior *p)
{
	htri_t has = H5Lexists(file, "/topology", H5P_DEFAULT);
	if (has <= 0 || H5Lexists(file, "/topology/node_of_rank", H5P_DEFAULT) <= 0)
		return has < 0 ? -1 : 0;
	hid_t d = H5Dopen2(file, "/topology/node_of_rank", H5P_DEFAULT);
	hid_t s = d < 0 ? -1 : H5Dget_space(d);
	hssize_t n = s < 0 ? -1 : H5Sget_simple_extent_npoints(s);
	int rc = -1;
	if (n == p->nranks && n > 0 && (p->node_of_rank = calloc((size_t)n, sizeof(int32_t))) &&
	    H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, p->node_of_rank) >= 0)
		rc = 0;
	else if (n >= 0 && n != p->nranks)
		rc = 0; /* another shape: node_of_rank stays NULL, the caller names the difference */
	(void)results_h5_close(s);
	(void)results_h5_close(d);
	return rc;
}

/* One group of /phases: which phase, and whether it is whole and to be kept. */
static herr_t app_phase(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
	struct results_prior *p = data;
	char *end, *status = NULL, *ds = NULL;
	(void)info;
	unsigned long long i = strtoull(name, &end, 10);
	if (*name == '\0' || *end != '\0' || i >= p->nphases) {
		p->beyond++;
		return 0;
	}
	p->present[i] = 1;
	hid_t ph = H5Gopen2(g, name, H5P_DEFAULT);
	if (ph < 0)
		return 0; /* not readable: redone */
	int whole = H5Lexists(ph, "ranks", H5P_DEFAULT) > 0 &&
		    H5Lexists(ph, "files", H5P_DEFAULT) > 0 && app_str(ph, "status", &status) == 0 &&
		    app_str(ph, "dataset", &ds) == 0 && app_double(ph, "elapsed_s", &p->elapsed_s[i]) == 0;
	if (whole && results_phase_status_parse(status) != PHASE_INTERRUPTED) {
		p->kept[i] = 1;
		snprintf(p->dataset[i], sizeof p->dataset[i], "%s", ds);
	}
	free(status);
	free(ds);
	(void)results_h5_close(ph);
	return 0;
}

static int app_read(struct results *r, uint64_t nphases, struct results_prior *p,
		    struct pf_err *e)
{
	char *status = NULL;
	H5G_info_t info;
	size_t n = nphases > 0 ? (size_t)nphases : 1;
	p->nphases = nphases;
	p->present = calloc(n, 1);
	p->kept = calloc(n, 1);
	p->elapsed_s = calloc(n, sizeof *p->elapsed_s);
	p->dataset = calloc(n, sizeof *p->dataset);
	if (!p->present || !p->kept || !p->elapsed_s || !p->dataset)
		return pf_fail_errno(e, ENOMEM, "%s: reading it", r->path);
	if (app_str(r->file, "config_yaml", &p->config_yaml) != 0 ||
	    app_int(r->file, "nranks", &p->nranks) != 0 ||
	    app_int(r->file, "nnodes", &p->nnodes) != 0) {
		return pf_fail(e, PF_USAGE, "%s: cannot be continued (--resume): not a pfsread "
			       "results file, or one killed before it was (its root attributes "
			       "config_yaml, status, nranks, nnodes cannot be read); rerun without "
			       "--resume (with --force to overwrite it)", r->path);
	}
	/* A run killed while it rewrote status (a resume's "running", a close's last word) can
	 * leave the attribute pointing at a heap collection never written: the run was killed,
	 * which is what "running" says; results_append_begin sets the unreadable one aside */
	p->status_lost = app_str(r->file, "status", &status) != 0;
	p->status = p->status_lost ? RUN_RUNNING : results_run_status_parse(status);
	free(status);
	if (app_topology(r->file, p) != 0)
		return res_fail(r, "/topology/node_of_rank", "reading", e);
	if (H5Lexists(r->file, "/parts", H5P_DEFAULT) > 0) {
		hid_t g = H5Gopen2(r->file, "/parts", H5P_DEFAULT);
		if (g >= 0 && H5Gget_info(g, &info) >= 0)
			p->nparts = info.nlinks;
		(void)results_h5_close(g);
	}
	/* A read that fails here fails alike on every rank (they read the same bytes) and
	 * leaves nothing to write back: the file is refused and closed as it was, not lost. */
	htri_t has = H5Lexists(r->file, "/phases", H5P_DEFAULT);
	if (has == 0)
		return pf_fail(e, PF_USAGE, "%s: cannot be continued (--resume): it holds no "
			       "phases (its run was killed before its first phase); nothing to "
			       "keep: rerun without --resume (with --force to overwrite it)", r->path);
	if (has < 0 || (r->phases = H5Gopen2(r->file, "/phases", H5P_DEFAULT)) < 0 ||
	    H5Literate(r->phases, H5_INDEX_NAME, H5_ITER_INC, NULL, app_phase, p) < 0) {
		char detail[512];
		results_h5_detail(detail, sizeof detail);
		return pf_fail(e, PF_USAGE, "%s: cannot be continued (--resume): its /phases group "
			       "cannot be read (%s), so none of its phases can be kept; rerun "
			       "without --resume (with --force to overwrite it)", r->path,
			       detail[0] ? detail : "HDF5 gave no reason");
	}
	return 0;
}

int results_open_append(const char *path, MPI_Comm comm, uint64_t nphases, struct results **out,
			struct results_prior *p, struct pf_err *e)
{
	int rc = 0, nnodes = 1;
	memset(p, 0, sizeof *p);
	*out = NULL;
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot silence HDF5's error printing", path);
	struct results *r = res_new(path, comm, nnodes);
	if (r == NULL)
		return pf_fail_errno(e, ENOMEM, "%s: cannot open", path);
	if (MPI_Comm_rank(comm, &r->rank) != MPI_SUCCESS ||
	    MPI_Comm_size(comm, &r->nranks) != MPI_SUCCESS) {
		rc = pf_fail(e, PF_RUNTIME, "%s: MPI_Comm_rank failed", path);
		goto out;
	}
	if ((rc = res_open(r, 0, 1, e)) < 0) {
		/* not opened: no HDF5 state differs between the ranks, a plain failure */
		r->lost = 0;
		char why[sizeof e->msg];
		/* HDF5's reason only: res_fail's "aborting" does not apply, nothing was opened */
		const char *at = strstr(e->msg, " failed: ");
		snprintf(why, sizeof why, "%s", at != NULL ? at + 9 : e->msg);
		char *cut = strstr(why, "; the file holds");
		if (cut != NULL)
			*cut = '\0';
		pf_err_clear(e);
		rc = pf_fail(e, PF_USAGE, "%s: cannot be continued (--resume): %s; nothing in it "
			     "can be read, so nothing can be kept: rerun without --resume (with "
			     "--force to overwrite it)", path, why);
		goto out;
	}
	if ((rc = app_read(r, nphases, p, e)) < 0)
		goto out;
	r->nnodes = p->nnodes;
	*out = r;
	r = NULL;
out:
	(void)results_close(r, NULL, NULL);
	return rc;
}

/* The phases to keep, linked into a new group that takes the place of /phases; the old one,
 * with the phases to redo, moves whole to /discarded/phases-partP. Nothing touches a phase
 * to redo: one that a killed run half wrote may have no object header at all (its link was
 * written, its header never was), and moving or deleting its link would open or free that
 * header, which fails ("bad object header version number", or "len not positive after
 * adjustment for EOA") and leaves parallel HDF5 unable to close the file. Linking a kept
 * phase again and moving the groups touch only headers that are whole. */
static int app_set_aside(struct results *r, const struct results_prior *p, struct pf_err *e)
{
	char name[24], to[64];
	hid_t keep = -1, gone = -1;
	htri_t has = H5Lexists(r->file, "/discarded", H5P_DEFAULT);
	hid_t gcpl = has == 0 ? res_roomy_gcpl(H5P_GROUP_CREATE, 16, 15) : H5P_DEFAULT;
	gone = has > 0 ? H5Gopen2(r->file, "/discarded", H5P_DEFAULT)
	     : has == 0 && gcpl >= 0 ? H5Gcreate2(r->file, "/discarded", H5P_DEFAULT, gcpl,
						   H5P_DEFAULT)
				     : -1;
	if (has == 0)
		(void)results_h5_close(gcpl); /* a property list: nothing in the file */
	if (gone < 0)
		return res_fail(r, "/discarded", "opening", e);
	gcpl = res_roomy_gcpl(H5P_GROUP_CREATE, p->nphases, RES_PHASE_NAME_LEN);
	keep = gcpl < 0 ? -1 : H5Gcreate2(r->file, "/phases-kept", H5P_DEFAULT, gcpl, H5P_DEFAULT);
	(void)results_h5_close(gcpl);
	if (keep < 0) {
		(void)results_h5_close(gone);
		return res_fail(r, "/phases-kept", "H5Gcreate2", e);
	}
	for (uint64_t i = 0; i < p->nphases; i++) {
		if (!p->present[i] || !p->kept[i])
			continue;
		snprintf(name, sizeof name, "%04llu", (unsigned long long)i);
		if (H5Lcreate_hard(r->phases, name, keep, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
			goto fail;
	}
	snprintf(to, sizeof to, "phases-part%04llu", (unsigned long long)p->nparts);
	if (results_h5_close(r->phases) < 0) {
		r->phases = -1;
		goto fail;
	}
	r->phases = -1;
	if (H5Lmove(r->file, "/phases", gone, to, H5P_DEFAULT, H5P_DEFAULT) < 0 ||
	    H5Lmove(r->file, "/phases-kept", r->file, "/phases", H5P_DEFAULT, H5P_DEFAULT) < 0)
		goto fail;
	r->phases = keep;
	return results_h5_close(gone) < 0 ? res_fail(r, "/discarded", "closing", e) : 0;
fail:
	(void)results_h5_close(keep);
	(void)results_h5_close(gone);
	return res_fail(r, "/phases", "setting the interrupted phases aside, to /discarded", e);
}

/* The file read-only until now, opened again read-write: the resume goes on. A file opened
 * read-write is written back at close (its superblock, and cut to its end of allocation after
 * a kill left more), so a refused one is only ever opened read-only. */
static int app_reopen(struct results *r, struct pf_err *e)
{
	hid_t fapl = -1;
	int bad = results_h5_close(r->phases) | results_h5_close(r->file);
	r->phases = r->file = -1;
	if (bad < 0 || (fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
	    H5Pset_fapl_mpio(fapl, r->comm, MPI_INFO_NULL) < 0 ||
	    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0 ||
	    (r->file = H5Fopen(r->path, H5F_ACC_RDWR, fapl)) < 0 ||
	    (r->phases = H5Gopen2(r->file, "/phases", H5P_DEFAULT)) < 0) {
		(void)results_h5_close(fapl);
		return res_fail(r, "/", "opening it read-write", e);
	}
	return results_h5_close(fapl) < 0 ? res_fail(r, "/", "H5Pclose", e) : 0;
}

int results_append_begin(struct results *r, const struct results_prior *p,
			 const struct run_meta *m, struct pf_err *e)
{
	int rc = 0, redo = 0;
	if (app_reopen(r, e) != 0)
		return -1;
	for (uint64_t i = 0; i < p->nphases; i++)
		redo |= p->present[i] && !p->kept[i];
	if (redo && app_set_aside(r, p, e) != 0)
		return -1;
	/* renamed, not overwritten: overwriting a variable-length string frees its old heap
	 * object, which reads the collection that was never written and fails */
	if (p->status_lost && H5Arename(r->file, "status", "status-lost") < 0)
		return res_fail(r, "/", "setting the unreadable status attribute aside", e);
	if (res_attr_str(r, r->file, "/", "status", "running", e) < 0 ||
	    res_part_begin(r, m, e) < 0)
		rc = -1;
	return rc;
}

void results_prior_free(struct results_prior *p)
{
	if (p == NULL)
		return;
	free(p->config_yaml);
	free(p->node_of_rank);
	free(p->present);
	free(p->kept);
	free(p->elapsed_s);
	free(p->dataset);
	memset(p, 0, sizeof *p);
}
