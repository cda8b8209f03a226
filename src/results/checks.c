/* checks: what the reader makes sure of before it reads a table of a results file someone
 * else may have made: no more rows than the phase's own attributes vouch for, every field of
 * the file's schema present in its records, and every row it declares stored in the file. A
 * file of a few KB must not make the report allocate gigabytes, nor a renamed field read as 0. */
#include <hdf5.h>

#include "results/results.h"

#include <stdio.h>
#include <string.h>

uint64_t results_rows_allowed(const struct phase_info *p, int nranks)
{
	uint64_t readers = 1;
	if (strcmp(p->sweep.pattern, "shared") == 0 && p->active_readers > 1)
		readers = (uint64_t)(p->active_readers < nranks ? p->active_readers : nranks);
	if (readers == 0)
		readers = 1; /* nranks below 1 is refused before any phase: never taken */
	return p->nfiles > UINT64_MAX / readers ? UINT64_MAX : p->nfiles * readers;
}

/* The reader's message for what HDF5 refused, with HDF5's own innermost one. */
static int tb_fail(const struct results_table *t, const char *where, const char *what,
		   struct pf_err *e)
{
	char detail[512];
	results_h5_detail(detail, sizeof detail);
	return pf_fail(e, PF_RUNTIME, "%s: truncated or damaged: %s: %s%s%s", t->path, where, what,
		       detail[0] ? ": " : "", detail);
}

/* Every field of t's table that the file's schema version has is a member of the records of
 * d (no table: d holds no records). */
static int tb_members(const struct results_table *t, hid_t d, const char *where,
		      struct pf_err *e)
{
	int rc = 0;
	if (t->fields == NULL)
		return 0;
	hid_t type = H5Dget_type(d);
	if (type < 0 || H5Tget_class(type) != H5T_COMPOUND) {
		(void)results_h5_close(type); /* already failing */
		return tb_fail(t, where, "not a table of records (compound type)", e);
	}
	for (size_t i = 0; i < t->nfields && rc == 0; i++)
		if (t->fields[i].since <= t->schema_version &&
		    H5Tget_member_index(type, t->fields[i].name) < 0)
			rc = pf_fail(e, PF_RUNTIME,
				     "%s: %s: its records have no field '%s' (schema version %d "
				     "has it): renamed or missing, it cannot be read",
				     t->path, where, t->fields[i].name, t->schema_version);
	if (results_h5_close(type) < 0 && rc == 0)
		rc = tb_fail(t, where, "cannot close its type", e);
	return rc;
}

/* 0 when dataset d stores the n rows it declares, else -1 (e set): the rows of a contiguous
 * dataset never written (or cut short) read as fill values, rows nobody wrote. Other layouts
 * (chunked, compact) are not looked at: the bound by the phase's attributes holds them. */
static int tb_stored(const struct results_table *t, hid_t d, const char *where, uint64_t n,
		     struct pf_err *e)
{
	int rc = 0;
	hid_t pl = H5Dget_create_plist(d), type = H5Dget_type(d);
	H5D_layout_t layout = pl < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(pl);
	size_t size = type < 0 ? 0 : H5Tget_size(type);
	if (layout == H5D_LAYOUT_ERROR || size == 0) {
		rc = tb_fail(t, where, "cannot read its layout", e);
	} else if (layout == H5D_CONTIGUOUS && n > 0) {
		uint64_t stored = (uint64_t)H5Dget_storage_size(d) / size;
		if (stored < n)
			rc = pf_fail(e, PF_RUNTIME,
				     "%s: %s: declares %llu rows but the file stores %llu of them: "
				     "refused, not read", t->path, where, (unsigned long long)n,
				     (unsigned long long)stored);
	}
	if ((results_h5_close(type) | results_h5_close(pl)) < 0 && rc == 0)
		rc = tb_fail(t, where, "cannot close its layout", e);
	return rc;
}

hid_t results_table_open(hid_t g, const struct results_table *t, uint64_t *n, struct pf_err *e)
{
	char where[96];
	hsize_t dims[1] = {0};
	hid_t s = -1, d = H5Dopen2(g, t->name, H5P_DEFAULT);
	int rc = -1;
	snprintf(where, sizeof where, "%s/%s", t->obj, t->name);
	if (d < 0 || (s = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(s) != 1 ||
	    H5Sget_simple_extent_dims(s, dims, NULL) != 1 || dims[0] >= SIZE_MAX / 256)
		tb_fail(t, where, "missing or not a 1-D dataset", e);
	else if (dims[0] > t->most)
		pf_fail(e, PF_RUNTIME, "%s: %s: %llu rows, more than %s: refused, not read", t->path,
			where, (unsigned long long)dims[0], t->why);
	else if (tb_members(t, d, where, e) == 0 && tb_stored(t, d, where, dims[0], e) == 0)
		rc = 0;
	*n = dims[0];
	if (results_h5_close(s) < 0 && rc == 0)
		rc = tb_fail(t, where, "cannot close its space", e);
	if (rc < 0) {
		(void)results_h5_close(d); /* already failing */
		return -1;
	}
	return d;
}
