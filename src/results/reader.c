/* reader: a results file into struct run_data, for the report: every attribute and record by
 * the schema's tables (schema.c), older schema versions too. Plain HDF5 (sec2 driver), no MPI.
 * Nothing in the file is trusted: sizes, types and strings are checked as they are read. */
#include <hdf5.h>

#include "results/reader_int.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "dataset/dataset.h"

/* ---- the reader ---- */

#define RD_CHUNK ((size_t)1 << 15) /* file rows per read when streaming: 2 MiB */

static int rd_xfer(struct rd *c)
{
	if ((c->xfer = results_xfer_list(&c->xfer_bufs)) < 0)
		return rd_fail(c, "/", "cannot set up the transfer buffers");
	return 0;
}

static int rd_open(const struct rd *c, hid_t *file)
{
	int sig = results_h5_signature(c->path, c->e);
	if (sig < 0)
		return -1;
	if (!sig)
		return pf_fail(c->e, PF_RUNTIME, "%s: not an HDF5 file", c->path);
	*file = H5Fopen(c->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (*file < 0)
		return rd_fail(c, "/", "HDF5 cannot open it");
	return 0;
}

static int rd_version(const struct rd *c, hid_t file)
{
	htri_t has = H5Aexists(file, "schema_version");
	if (has < 0)
		return rd_fail(c, "/", "attribute schema_version");
	if (has == 0)
		return pf_fail(c->e, PF_RUNTIME,
			       "%s: not a pfsread results file (no schema_version attribute)",
			       c->path);
	int32_t v = 0;
	if (rd_attr_num(c, file, "/", "schema_version", RESULTS_I32, &v) < 0)
		return -1;
	c->run->schema_version = v;
	if (v < 1 || v > RESULTS_SCHEMA_VERSION)
		return pf_fail(
			c->e, PF_RUNTIME,
			"%s: schema version %d not supported (this pfsread reads versions 1 to %d)",
			c->path, (int)v, RESULTS_SCHEMA_VERSION);
	return 0;
}

/* One attribute of /environment into run->env (strings only; others are skipped). */
static herr_t rd_env_attr(hid_t g, const char *name, const H5A_info_t *info, void *data)
{
	const struct rd *c = data;
	struct environment *env = &c->run->env;
	char *value = NULL;
	(void)info;
	if (env->n >= ENV_MAX)
		return 1; /* stop: more than this version keeps */
	if (rd_attr_str(c, g, "/environment", name, &value) < 0)
		return -1;
	snprintf(env->e[env->n].key, sizeof env->e[env->n].key, "%s", name);
	snprintf(env->e[env->n].value, sizeof env->e[env->n].value, "%s", value);
	env->n++;
	free(value);
	return 0;
}

/* /environment is optional: files from runs that stopped early may lack it. */
static int rd_environment(const struct rd *c, hid_t file)
{
	hid_t g = -1;
	int rc = 0;
	htri_t has = H5Lexists(file, "environment", H5P_DEFAULT);
	if (has < 0)
		return rd_fail(c, "/environment", "H5Lexists");
	if (has == 0)
		return 0;
	if ((g = H5Gopen2(file, "environment", H5P_DEFAULT)) < 0)
		return rd_fail(c, "/environment", "H5Gopen2");
	/* in the order written where the file tracks it, else by name */
	hsize_t idx = 0;
	if (H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, rd_env_attr, (void *)c) < 0) {
		c->run->env.n = 0;
		idx = 0;
		if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, rd_env_attr, (void *)c) < 0)
			rc = rd_fail(c, "/environment", "H5Aiterate2");
	}
	if (results_h5_close(g) < 0 && rc == 0)
		rc = rd_fail(c, "/environment", "H5Gclose");
	return rc;
}

static int rd_root(const struct rd *c, hid_t file)
{
	static const struct {
		const char *name;
		size_t offset;
	} strs[] = {
		{"pfsread_version", offsetof(struct run_data, pfsread_version)},
		{"config_yaml", offsetof(struct run_data, config_yaml)},
		{"config_path", offsetof(struct run_data, config_path)},
		{"command_line", offsetof(struct run_data, command_line)},
		{"start_time", offsetof(struct run_data, start_time)},
		{"mpi_version", offsetof(struct run_data, mpi_version)},
		{"hdf5_version", offsetof(struct run_data, hdf5_version)},
		{"job_id", offsetof(struct run_data, job_id)},
		{"status", offsetof(struct run_data, status)},
	};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		if (rd_attr_str(c, file, "/", strs[i].name,
				(char **)((char *)c->run + strs[i].offset)) < 0)
			return -1;
	int32_t nranks = 0, nnodes = 0;
	if (rd_attr_num(c, file, "/", "nranks", RESULTS_I32, &nranks) < 0 ||
	    rd_attr_num(c, file, "/", "nnodes", RESULTS_I32, &nnodes) < 0)
		return -1;
	if (nranks < 1 || nnodes < 1 || nnodes > nranks)
		return rd_fail(c, "/", "nranks or nnodes out of range");
	c->run->nranks = nranks;
	c->run->nnodes = nnodes;
	return 0;
}

/* Read the 1-D dataset name of loc whole into *buf (malloc'ed; NULL when empty), converted to
 * memtype of elem bytes. expect is the row count it must have, or SIZE_MAX for any. */
static int rd_rows(const struct rd *c, hid_t loc, const char *obj, const char *name,
		   hid_t memtype, size_t elem, size_t expect, void **buf, size_t *n)
{
	int rc = -1;
	char where[192];
	hsize_t dims[1] = {0};
	hid_t s = -1, d = H5Dopen2(loc, name, H5P_DEFAULT);
	snprintf(where, sizeof where, "%s/%s", obj, name);
	if (d < 0 || (s = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(s) != 1 ||
	    H5Sget_simple_extent_dims(s, dims, NULL) != 1) {
		rd_fail(c, where, "missing or not a 1-D dataset");
		goto out;
	}
	if ((expect != SIZE_MAX && dims[0] != expect) || dims[0] >= SIZE_MAX / elem) {
		rd_fail(c, where, "unexpected number of rows");
		goto out;
	}
	*n = (size_t)dims[0];
	*buf = *n ? calloc(*n, elem) : NULL;
	if (*n && *buf == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading %s", c->path, where);
		goto out;
	}
	if (*n && H5Dread(d, memtype, H5S_ALL, H5S_ALL, c->xfer, *buf) < 0) {
		rd_fail(c, where, "cannot read");
		goto out;
	}
	rc = 0;
out:
	if ((results_h5_close(s) | results_h5_close(d)) < 0 && rc == 0)
		rc = rd_fail(c, where, "cannot close");
	return rc;
}

/* /topology/hostname as pfsread writes it (fixed-length, NUL-terminated) or as another writer
 * may have (variable-length strings, h5py's default): into run->hostnames either way, each
 * cut to RECORD_HOST_MAX - 1 bytes. */
static int rd_hostnames(const struct rd *c, hid_t g, size_t nn)
{
	struct run_data *run = c->run;
	H5T_cset_t cset;
	size_t n = 0;
	int vlen = results_is_vlen_str(g, "hostname", &cset), rc = -1;
	if (vlen < 0)
		return rd_fail(c, "/topology/hostname", "missing or not strings");
	hid_t mt = vlen ? H5Tcopy(H5T_C_S1) : results_host_type();
	if (mt < 0 || (vlen && (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, cset) < 0))) {
		(void)results_h5_close(mt);
		return rd_fail(c, "/topology/hostname", "cannot build the hostname type");
	}
	if (!vlen) {
		rc = rd_rows(c, g, "/topology", "hostname", mt, RECORD_HOST_MAX, nn,
			     (void **)&run->hostnames, &n);
		(void)results_h5_close(mt);
		return rc;
	}
	char **names = NULL;
	hsize_t dims[1] = {nn};
	hid_t space = -1;
	run->hostnames = calloc(nn ? nn : 1, sizeof *run->hostnames);
	if (run->hostnames == NULL)
		rd_fail(c, "/topology/hostname", "out of memory");
	else if (rd_rows(c, g, "/topology", "hostname", mt, sizeof *names, nn, (void **)&names,
			 &n) == 0)
		rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		snprintf(run->hostnames[i], RECORD_HOST_MAX, "%s", names[i] ? names[i] : "");
	if (names != NULL && (space = H5Screate_simple(1, dims, NULL)) >= 0)
		(void)H5Dvlen_reclaim(mt, space, H5P_DEFAULT, names); /* frees HDF5's strings */
	(void)results_h5_close(space);
	(void)results_h5_close(mt);
	free(names);
	return rc;
}

/* /topology, when the run got as far as writing it (else the arrays stay NULL). */
static int rd_topology(const struct rd *c, hid_t file)
{
	struct run_data *run = c->run;
	size_t nr = (size_t)run->nranks, nn = (size_t)run->nnodes, n = 0;
	int rc = -1;
	htri_t has = H5Lexists(file, "topology", H5P_DEFAULT);
	if (has <= 0)
		return has < 0 ? rd_fail(c, "/topology", "cannot look it up") : 0;
	hid_t g = H5Gopen2(file, "/topology", H5P_DEFAULT);
	if (g < 0) {
		rd_fail(c, "/topology", "cannot open");
		goto out;
	}
	if (rd_rows(c, g, "/topology", "node_of_rank", H5T_NATIVE_INT32, sizeof(int32_t), nr,
		    (void **)&run->node_of_rank, &n) < 0 ||
	    rd_hostnames(c, g, nn) < 0 ||
	    rd_rows(c, g, "/topology", "clock_offset_s", H5T_NATIVE_DOUBLE, sizeof(double), nn,
		    (void **)&run->clock_offset_s, &n) < 0)
		goto out;
	for (size_t i = 0; i < nn; i++)
		run->hostnames[i][RECORD_HOST_MAX - 1] = '\0';
	rc = 0;
out:
	if (results_h5_close(g) < 0 && rc == 0)
		rc = rd_fail(c, "/topology", "cannot close");
	return rc;
}

/* One attribute of a phase group into its member of *info, through the schema table. */
static int rd_phase_attr(const struct rd *c, hid_t g, const char *obj,
			 const struct results_field *f, struct phase_info *info)
{
	char *dst = (char *)info + f->offset, *s = NULL, what[192];
	int rc = 0;
	if (f->since > c->run->schema_version)
		return 0; /* an older file: left zero (or "") */
	if (f->kind != RESULTS_STR && f->kind != RESULTS_STATUS)
		return rd_attr_num(c, g, obj, f->name, f->kind, dst);
	if (strcmp(f->name, "process") == 0 && H5Aexists(g, f->name) == 0) {
		snprintf(dst, f->size, "none"); /* written before read-and-process phases */
		return 0;
	}
	if (rd_attr_str(c, g, obj, f->name, &s) < 0)
		return -1;
	if (f->kind == RESULTS_STATUS) { /* a word no pfsread writes: PHASE_UNKNOWN */
		*(int32_t *)(void *)dst = (int32_t)results_phase_status_parse(s);
	} else if (strlen(s) < f->size) {
		strcpy(dst, s);
	} else {
		snprintf(what, sizeof what, "attribute %s is too long", f->name);
		rc = rd_fail(c, obj, what);
	}
	free(s);
	return rc;
}

/* Rows [at, at + n) of the 1-D dataset d into buf. */
static int rd_slab(const struct rd *c, hid_t d, hid_t fspace, hsize_t at, size_t n, void *buf)
{
	hsize_t start[1] = {at}, count[1] = {n};
	hid_t m = H5Screate_simple(1, count, NULL);
	int rc = m < 0 ||
			 H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
			 H5Dread(d, c->file_mem, m, fspace, c->xfer, buf) < 0
		 ? -1
		 : 0;
	if (results_h5_close(m) < 0)
		rc = -1;
	return rc;
}

/* pd's file rows through c->rows->take: whole (and kept) when few, else chunk by chunk. d is
 * the files table (results_table_open), s its space. */
static int rd_files_streamed(const struct rd *c, hid_t g, hid_t d, hid_t s, const char *obj,
			     struct phase_data *pd)
{
	char where[96];
	snprintf(where, sizeof where, "%s/files", obj);
	if (pd->nfiles <= c->rows->keep) {
		size_t n = 0;
		if (rd_rows(c, g, obj, "files", c->file_mem, sizeof(struct file_rec), pd->nfiles,
			    (void **)&pd->files, &n) < 0)
			return -1;
		return c->rows->take(c->rows->ctx, pd, pd->files, pd->nfiles, c->e);
	}
	for (size_t at = 0; at < pd->nfiles; at += RD_CHUNK) {
		size_t n = pd->nfiles - at < RD_CHUNK ? pd->nfiles - at : RD_CHUNK;
		if (rd_slab(c, d, s, at, n, c->chunk) < 0)
			return rd_fail(c, where, "cannot read");
		if (c->rows->take(c->rows->ctx, pd, c->chunk, n, c->e) < 0)
			return -1;
	}
	return 0;
}

/* /phases/NNNN/files: no more rows than the phase's attributes allow (a file of a few KB
 * could declare 2^27 of them), then read whole or streamed through c->rows. */
static int rd_files(const struct rd *c, hid_t g, const char *obj, struct phase_data *pd)
{
	char where[96], why[160];
	uint64_t n = 0;
	int rc = -1;
	hid_t s = -1, d;
	snprintf(where, sizeof where, "%s/files", obj);
	snprintf(why, sizeof why, "the phase's attributes allow (nfiles %llu, pattern %s, "
		 "active_readers %d)", (unsigned long long)pd->info.nfiles, pd->info.sweep.pattern,
		 (int)pd->info.active_readers);
	struct results_table tb = {c->path, obj, "files", results_file_fields,
				   results_nfile_fields, c->run->schema_version,
				   results_rows_allowed(&pd->info, c->run->nranks), why};
	if ((d = results_table_open(g, &tb, &n, c->e)) < 0)
		return -1;
	pd->nfiles = (size_t)n;
	if ((s = H5Dget_space(d)) < 0) {
		rd_fail(c, where, "cannot get its space");
		goto out;
	}
	if (c->rows != NULL)
		rc = rd_files_streamed(c, g, d, s, obj, pd);
	else
		rc = rd_rows(c, g, obj, "files", c->file_mem, sizeof(struct file_rec), pd->nfiles,
			     (void **)&pd->files, &pd->nfiles);
out:
	if ((results_h5_close(s) | results_h5_close(d)) < 0 && rc == 0)
		rc = rd_fail(c, where, "cannot close");
	return rc;
}

/* /phases/NNNN/targets (schema 5), each name cut to RECORD_TARGET_MAX - 1 bytes: entry 0 and
 * at most one entry per file row the phase may have. */
static int rd_targets(const struct rd *c, hid_t g, const char *obj, struct phase_data *pd)
{
	struct target_table *tg = &pd->targets;
	uint64_t rows = 0;
	size_t n = 0;
	/* none before schema 5, nor in a phase cut short before its table was written */
	if (c->run->schema_version < 5 || H5Lexists(g, "targets", H5P_DEFAULT) <= 0)
		return 0;
	char why[96];
	uint64_t most = results_rows_allowed(&pd->info, c->run->nranks);
	snprintf(why, sizeof why, "entry 0 and one per file row the phase may have (nfiles %llu)",
		 (unsigned long long)pd->info.nfiles);
	struct results_table tb = {c->path, obj, "targets", NULL, 0, c->run->schema_version,
				   most < UINT64_MAX ? most + 1 : most, why};
	hid_t d = results_table_open(g, &tb, &rows, c->e);
	if (d < 0 || results_h5_close(d) < 0)
		return d < 0 ? -1 : rd_fail(c, obj, "targets: cannot close");
	hid_t t = results_fixed_str_type(RECORD_TARGET_MAX);
	if (t < 0)
		return rd_fail(c, obj, "cannot build the target type");
	int rc = rd_rows(c, g, obj, "targets", t, RECORD_TARGET_MAX, (size_t)rows,
			 (void **)&tg->name, &n);
	(void)results_h5_close(t);
	tg->n = n <= UINT32_MAX ? (uint32_t)n : 0;
	for (size_t i = 0; i < tg->n; i++)
		tg->name[i][RECORD_TARGET_MAX - 1] = '\0';
	return rc;
}

static int rd_phase(const struct rd *c, hid_t phases, const char *name, struct phase_data *pd)
{
	char obj[64];
	uint64_t nranks = 0;
	int rc = -1;
	snprintf(obj, sizeof obj, "/phases/%s", name);
	hid_t d = -1, g = H5Gopen2(phases, name, H5P_DEFAULT);
	if (g < 0)
		return rd_fail(c, obj, "cannot open");
	for (size_t i = 0; i < results_nphase_attrs; i++) {
		struct results_field f;
		results_phase_attr(i, &f);
		if (rd_phase_attr(c, g, obj, &f, &pd->info) < 0)
			goto out;
	}
	struct results_table tb = {c->path, obj, "ranks", results_rank_fields,
				   results_nrank_fields, c->run->schema_version,
				   (uint64_t)c->run->nranks, "the run's ranks (nranks)"};
	if ((d = results_table_open(g, &tb, &nranks, c->e)) < 0 ||
	    rd_rows(c, g, obj, "ranks", c->rank_mem, sizeof(struct rank_rec),
		    (size_t)c->run->nranks, (void **)&pd->ranks, &pd->nranks) < 0)
		goto out;
	for (size_t i = 0; c->run->schema_version < 6 && i < pd->nranks; i++)
		pd->ranks[i].cpu_user_s = pd->ranks[i].cpu_sys_s = NAN; /* not recorded */
	/* the targets first: whoever takes the streamed rows names their targets */
	if (rd_targets(c, g, obj, pd) < 0 || rd_files(c, g, obj, pd) < 0)
		goto out;
	rc = 0;
out:
	if ((results_h5_close(d) | results_h5_close(g)) < 0 && rc == 0)
		rc = rd_fail(c, obj, "cannot close");
	return rc;
}

static int rd_phases(const struct rd *c, hid_t file)
{
	struct run_data *run = c->run;
	struct rd_name *names = NULL;
	size_t n = 0;
	int rc = -1;
	hid_t g = H5Gopen2(file, "/phases", H5P_DEFAULT);
	if (g < 0)
		return rd_fail(c, "/phases", "cannot open");
	if (rd_phase_names(c, g, &names, &n) < 0)
		goto out;
	run->phases = n ? calloc(n, sizeof *run->phases) : NULL;
	if (n && run->phases == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading /phases", c->path);
		goto out;
	}
	run->nphases = n; /* zeroed: results_free copes with the ones not read yet */
	for (size_t i = 0; i < n; i++)
		if (rd_phase(c, g, names[i].name, &run->phases[i]) < 0)
			goto out;
	rc = 0;
out:
	free(names);
	if (results_h5_close(g) < 0 && rc == 0)
		rc = rd_fail(c, "/phases", "cannot close");
	return rc;
}

static int rd_all(struct rd *c, hid_t file)
{
	c->rank_mem = results_compound(results_rank_fields, results_nrank_fields,
				       sizeof(struct rank_rec), 0);
	c->file_mem = results_compound(results_file_fields, results_nfile_fields,
				       sizeof(struct file_rec), 0);
	if (c->rank_mem < 0 || c->file_mem < 0)
		return rd_fail(c, "/", "cannot build the record types");
	if (rd_xfer(c) < 0)
		return -1;
	if (c->rows != NULL && (c->chunk = calloc(RD_CHUNK, sizeof *c->chunk)) == NULL)
		return pf_fail_errno(c->e, ENOMEM, "%s: reading", c->path);
	if (rd_version(c, file) < 0 || rd_root(c, file) < 0 || rd_environment(c, file) < 0 ||
	    rd_topology(c, file) < 0 || rd_parts(c, file) < 0 ||
	    rd_phases(c, file) < 0)
		return -1;
	rd_parts_kept(c->run);
	return 0;
}

int results_read(const char *path, struct run_data *run, struct pf_err *e)
{
	return results_read_rows(path, run, NULL, e);
}

int results_read_rows(const char *path, struct run_data *run, const struct results_rows *rows,
		      struct pf_err *e)
{
	struct rd c = {.path = path, .e = e, .run = run, .rank_mem = -1, .file_mem = -1, .xfer = -1,
		       .rows = rows};
	hid_t file = -1;
	int rc = -1;
	memset(run, 0, sizeof *run);
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot configure HDF5 error reporting", path);
	run->path = strdup(path);
	if (run->path == NULL) {
		pf_fail_errno(e, ENOMEM, "%s: reading", path);
		goto out;
	}
	if (rd_open(&c, &file) < 0 || rd_all(&c, file) < 0)
		goto out;
	rc = 0;
out:
	if ((results_h5_close(c.rank_mem) | results_h5_close(c.file_mem) |
	     results_h5_close(c.xfer) | results_h5_close(file)) < 0 &&
	    rc == 0)
		rc = rd_fail(&c, "/", "cannot close");
	free(c.xfer_bufs); /* after the list that names them is closed */
	free(c.chunk);
	if (rc < 0)
		results_free(run);
	return rc;
}

int results_is_complete(const char *path, struct pf_err *e)
{
	struct run_data run;
	struct rd c = {.path = path, .e = e, .run = &run, .rank_mem = -1, .file_mem = -1,
		       .xfer = -1};
	hid_t file = -1;
	char *status = NULL;
	memset(&run, 0, sizeof run);
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot configure HDF5 error reporting", path);
	int rc = rd_open(&c, &file) < 0 || rd_version(&c, file) < 0 ||
			 rd_attr_str(&c, file, "/", "status", &status) < 0
		 ? -1
		 : strcmp(status, "complete") == 0;
	free(status);
	if (results_h5_close(file) < 0 && rc >= 0)
		rc = rd_fail(&c, "/", "cannot close");
	return rc;
}
