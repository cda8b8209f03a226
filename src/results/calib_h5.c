/* calib_h5: the calibration file, written by rank 0 of `pfsread calibrate` and read by the
 * report. Plain (serial) HDF5, no MPI. Layout (README "Calibration"):
 *   /  attrs pfsread_version, calibration_version, config_path, config_yaml, command_line,
 *            start_time, nnodes, status
 *   /calibration  attrs disk_source, disk_method, disk_bytes, mem_bytes, msg_bytes,
 *                 repetitions (version 2)
 *   /calibration/{hostname, disk_MBps, memcpy_MBps, link_MBps}  [nnodes] (medians)
 *   /calibration/{disk,memcpy,link}_MBps_reps  [nnodes][repetitions] (version 2)
 *   /calibration/pairs  compound {from, to, MBps} [npairs]
 * and when calibrate read through the file system (--through-fs), attrs fs_dataset, fs_bytes,
 * fs_readers, fs_flat on /calibration and
 *   /calibration/fs_read_MBps_reps  [nnodes][repetitions] (at fs_readers per node)
 *   /calibration/fs_read_steps  compound {readers, MBps} [steps] */
#include <hdf5.h>

#include "results/calib.h"
#include "util/stats.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct results_field calib_pair_fields[] = {
	{"from", offsetof(struct calib_pair, from), sizeof(int32_t), RESULTS_I32, 1},
	{"to", offsetof(struct calib_pair, to), sizeof(int32_t), RESULTS_I32, 1},
	{"MBps", offsetof(struct calib_pair, MBps), sizeof(double), RESULTS_F64, 1},
};
#define CALIB_NPAIR_FIELDS (sizeof calib_pair_fields / sizeof calib_pair_fields[0])

static const struct results_field calib_step_fields[] = {
	{"readers", offsetof(struct calib_fs_step, readers), sizeof(int32_t), RESULTS_I32, 1},
	{"MBps", offsetof(struct calib_fs_step, MBps), sizeof(double), RESULTS_F64, 1},
};
#define CALIB_NSTEP_FIELDS (sizeof calib_step_fields / sizeof calib_step_fields[0])

/* The per-node figures, in file order. */
static const struct {
	const char *name;
	size_t offset;
} calib_node_sets[] = {
	{"disk_MBps", offsetof(struct calib_node, disk_MBps)},
	{"memcpy_MBps", offsetof(struct calib_node, memcpy_MBps)},
	{"link_MBps", offsetof(struct calib_node, link_MBps)},
};
#define CALIB_NNODE_SETS (sizeof calib_node_sets / sizeof calib_node_sets[0])

/* Every repetition of each figure, by enum calib_figure. */
static const char *const calib_rep_sets[CALIB_NFIG] = {"disk_MBps_reps", "memcpy_MBps_reps",
						       "link_MBps_reps"};

int calib_probe(const char *path)
{
	/* a regular HDF5 file only: a FIFO would block the open, /dev/zero never end a scan */
	if (results_h5_signature(path, NULL) != 1 || H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return 0;
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (file < 0)
		return 0;
	htri_t has = H5Lexists(file, "calibration", H5P_DEFAULT);
	(void)results_h5_close(file); /* read only */
	return has > 0;
}

/* ---- reading ---- */

struct cr {
	const char *path;
	struct pf_err *e;
};

static int cr_fail(const struct cr *c, const char *what)
{
	char detail[512];
	results_h5_detail(detail, sizeof detail);
	return pf_fail(c->e, PF_RUNTIME, "%s: not a readable calibration file: %s%s%s", c->path,
		       what, detail[0] ? ": " : "", detail);
}

static int cr_attr_str(const struct cr *c, hid_t loc, const char *name, char **out)
{
	char *vl = NULL;
	hid_t t = results_str_type(), a = H5Aopen(loc, name, H5P_DEFAULT);
	int rc = a < 0 || t < 0 || !results_h5_attr_single(a) || H5Aread(a, t, &vl) < 0
			 ? cr_fail(c, name)
			 : 0;
	if (rc == 0 && (*out = strdup(vl ? vl : "")) == NULL)
		rc = pf_fail_errno(c->e, ENOMEM, "%s: reading %s", c->path, name);
	if (vl != NULL)
		H5free_memory(vl);
	if ((results_h5_close(a) | results_h5_close(t)) < 0 && rc == 0)
		rc = cr_fail(c, name);
	return rc;
}

static int cr_attr_num(const struct cr *c, hid_t loc, const char *name, enum results_kind k,
		       void *dst)
{
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	int rc = a < 0 || !results_h5_attr_single(a) || H5Aread(a, results_h5_type(k, 0), dst) < 0
			 ? cr_fail(c, name)
			 : 0;
	if (results_h5_close(a) < 0 && rc == 0)
		rc = cr_fail(c, name);
	return rc;
}

/* A 1-D dataset of exactly n rows (n == SIZE_MAX: any; *got says how many) into buf of
 * elem-byte rows, allocated when *buf is NULL. */
static int cr_rows(const struct cr *c, hid_t g, const char *name, hid_t mem, size_t elem,
		   size_t n, void **buf, size_t *got)
{
	hsize_t dims[1] = {0};
	hid_t s = -1, d = H5Dopen2(g, name, H5P_DEFAULT);
	int rc = -1;
	if (d < 0 || (s = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(s) != 1 ||
	    H5Sget_simple_extent_dims(s, dims, NULL) != 1 ||
	    (n != SIZE_MAX && dims[0] != n) || dims[0] > 1000000) {
		cr_fail(c, name);
		goto out;
	}
	*got = (size_t)dims[0];
	if (*buf == NULL && (*buf = calloc(*got ? *got : 1, elem)) == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading %s", c->path, name);
		goto out;
	}
	if (*got && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) < 0) {
		cr_fail(c, name);
		goto out;
	}
	rc = 0;
out:
	if ((results_h5_close(s) | results_h5_close(d)) < 0 && rc == 0)
		rc = cr_fail(c, name);
	return rc;
}

/* One per-node figure: read into a scratch array, then spread over c->nodes. */
static int cr_node_set(const struct cr *r, hid_t g, size_t i, struct calib_data *c)
{
	double *v = NULL;
	size_t got = 0;
	if (cr_rows(r, g, calib_node_sets[i].name, H5T_NATIVE_DOUBLE, sizeof(double),
		    (size_t)c->nnodes, (void **)&v, &got) != 0) {
		free(v);
		return -1;
	}
	for (int n = 0; n < c->nnodes; n++)
		*(double *)((char *)&c->nodes[n] + calib_node_sets[i].offset) = v[n];
	free(v);
	return 0;
}

/* A [nnodes][reps] dataset of doubles into a new array. */
static int cr_reps(const struct cr *r, hid_t g, const char *name, const struct calib_data *c,
		   double **out)
{
	hsize_t dims[2] = {0, 0};
	hid_t s = -1, d = H5Dopen2(g, name, H5P_DEFAULT);
	int rc = -1;
	if (d < 0 || (s = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(s) != 2 ||
	    H5Sget_simple_extent_dims(s, dims, NULL) != 2 || dims[0] != (hsize_t)c->nnodes ||
	    dims[1] != (hsize_t)c->reps) {
		cr_fail(r, name);
		goto out;
	}
	if ((*out = calloc((size_t)c->nnodes * (size_t)c->reps, sizeof **out)) == NULL) {
		pf_fail_errno(r->e, ENOMEM, "%s: reading %s", r->path, name);
		goto out;
	}
	if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
		cr_fail(r, name);
		goto out;
	}
	rc = 0;
out:
	if ((results_h5_close(s) | results_h5_close(d)) < 0 && rc == 0)
		rc = cr_fail(r, name);
	return rc;
}

static int cr_nodes(const struct cr *r, hid_t g, struct calib_data *c)
{
	char (*hosts)[RECORD_HOST_MAX] = NULL;
	size_t got = 0;
	hid_t ht = results_host_type();
	int rc = ht < 0 ? cr_fail(r, "hostname type") : 0;
	if (rc == 0)
		rc = cr_rows(r, g, "hostname", ht, RECORD_HOST_MAX, (size_t)c->nnodes,
			     (void **)&hosts, &got);
	for (int n = 0; rc == 0 && n < c->nnodes; n++) {
		memcpy(c->nodes[n].host, hosts[n], RECORD_HOST_MAX);
		c->nodes[n].host[RECORD_HOST_MAX - 1] = '\0';
	}
	free(hosts);
	(void)results_h5_close(ht); /* a type: nothing to lose */
	for (size_t i = 0; rc == 0 && i < CALIB_NNODE_SETS; i++)
		rc = cr_node_set(r, g, i, c);
	for (int f = 0; rc == 0 && c->version >= 2 && f < CALIB_NFIG; f++)
		rc = cr_reps(r, g, calib_rep_sets[f], c, &c->reps_MBps[f]);
	return rc;
}

/* The read through the file system, when the file has it. */
static int cr_fs(const struct cr *r, hid_t g, struct calib_data *c)
{
	int32_t readers = 0, flat = 0;
	size_t got = 0;
	struct calib_fs_step *steps = NULL;
	htri_t has = H5Lexists(g, "fs_read_steps", H5P_DEFAULT);
	if (has <= 0)
		return has < 0 ? cr_fail(r, "fs_read_steps") : 0;
	hid_t st = results_compound(calib_step_fields, CALIB_NSTEP_FIELDS, sizeof *steps, 0);
	int rc = st < 0 ? cr_fail(r, "fs_read_steps") : 0;
	if (rc == 0)
		rc = cr_attr_str(r, g, "fs_dataset", &c->fs_dataset) |
		     cr_attr_num(r, g, "fs_bytes", RESULTS_U64, &c->fs_bytes) |
		     cr_attr_num(r, g, "fs_readers", RESULTS_I32, &readers) |
		     cr_attr_num(r, g, "fs_flat", RESULTS_I32, &flat);
	if (rc == 0)
		rc = cr_rows(r, g, "fs_read_steps", st, sizeof *steps, SIZE_MAX, (void **)&steps,
			     &got);
	if (rc == 0 && (got < 1 || got > CALIB_FS_STEPS))
		rc = cr_fail(r, "fs_read_steps: 1 to 8 steps");
	for (size_t i = 0; rc == 0 && i < got; i++)
		c->fs_step[i] = steps[i];
	c->fs_nsteps = rc == 0 ? (int)got : 0;
	c->fs_readers = readers;
	c->fs_flat = flat != 0;
	if (rc == 0)
		rc = cr_reps(r, g, "fs_read_MBps_reps", c, &c->fs_reps_MBps);
	free(steps);
	if (results_h5_close(st) < 0 && rc == 0)
		rc = cr_fail(r, "fs_read_steps");
	return rc;
}

static int cr_group(const struct cr *r, hid_t file, struct calib_data *c)
{
	hid_t g = H5Gopen2(file, "calibration", H5P_DEFAULT);
	hid_t pt = results_compound(calib_pair_fields, CALIB_NPAIR_FIELDS, sizeof(struct calib_pair), 0);
	int rc = g < 0 || pt < 0 ? cr_fail(r, "/calibration") : 0;
	if (rc == 0)
		rc = cr_attr_str(r, g, "disk_source", &c->disk_source) |
		     cr_attr_str(r, g, "disk_method", &c->disk_method) |
		     cr_attr_num(r, g, "disk_bytes", RESULTS_U64, &c->disk_bytes) |
		     cr_attr_num(r, g, "mem_bytes", RESULTS_U64, &c->mem_bytes) |
		     cr_attr_num(r, g, "msg_bytes", RESULTS_U64, &c->msg_bytes);
	c->reps = 1;
	if (rc == 0 && c->version >= 2) {
		int32_t reps = 0;
		rc = cr_attr_num(r, g, "repetitions", RESULTS_I32, &reps) |
		     cr_attr_num(r, g, "llc_bytes", RESULTS_U64, &c->llc_bytes) |
		     cr_attr_num(r, g, "disk_resident", RESULTS_F64, &c->disk_resident);
		if (rc == 0 && (reps < 1 || reps > CALIB_REPS_MAX))
			rc = cr_fail(r, "repetitions out of range");
		c->reps = reps;
	}
	if (rc == 0)
		rc = cr_nodes(r, g, c);
	if (rc == 0)
		rc = cr_rows(r, g, "pairs", pt, sizeof(struct calib_pair), SIZE_MAX,
			     (void **)&c->pairs, &c->npairs);
	if (rc == 0)
		rc = cr_fs(r, g, c);
	if ((results_h5_close(pt) | results_h5_close(g)) < 0 && rc == 0)
		rc = cr_fail(r, "/calibration");
	return rc == 0 ? 0 : -1;
}

static int cr_root(const struct cr *r, hid_t file, struct calib_data *c)
{
	int32_t version = 0, nnodes = 0;
	if (cr_attr_num(r, file, "calibration_version", RESULTS_I32, &version) != 0)
		return -1;
	if (version < 1 || version > CALIB_SCHEMA_VERSION)
		return pf_fail(r->e, PF_RUNTIME, "%s: calibration version %d not supported (this "
			       "pfsread reads versions 1 to %d)", r->path, (int)version,
			       CALIB_SCHEMA_VERSION);
	c->version = version;
	if (cr_attr_num(r, file, "nnodes", RESULTS_I32, &nnodes) != 0 ||
	    cr_attr_str(r, file, "config_path", &c->config_path) != 0 ||
	    cr_attr_str(r, file, "start_time", &c->start_time) != 0 ||
	    cr_attr_str(r, file, "command_line", &c->command_line) != 0)
		return -1;
	if (nnodes < 1 || nnodes > 1000000)
		return cr_fail(r, "nnodes out of range");
	c->nnodes = nnodes;
	c->nodes = calloc((size_t)nnodes, sizeof *c->nodes);
	if (c->nodes == NULL)
		return pf_fail_errno(r->e, ENOMEM, "%s: reading", r->path);
	return 0;
}

static void calib_means(struct calib_data *c)
{
	double *v = malloc((size_t)c->nnodes * sizeof *v);
	c->disk_MBps = c->memcpy_MBps = c->link_MBps = NAN;
	if (v == NULL)
		return; /* the means stay unknown: the report then uses no measured figure */
	for (int n = 0; n < c->nnodes; n++)
		v[n] = c->nodes[n].disk_MBps;
	c->disk_MBps = stats_mean(v, (size_t)c->nnodes);
	for (int n = 0; n < c->nnodes; n++)
		v[n] = c->nodes[n].memcpy_MBps;
	c->memcpy_MBps = stats_mean(v, (size_t)c->nnodes);
	for (int n = 0; n < c->nnodes; n++)
		v[n] = c->nodes[n].link_MBps;
	c->link_MBps = stats_mean(v, (size_t)c->nnodes);
	free(v);
}

int calib_read(const char *path, struct calib_data *c, struct pf_err *e)
{
	struct cr r = {path, e};
	memset(c, 0, sizeof *c);
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot configure HDF5 error reporting", path);
	if ((c->path = strdup(path)) == NULL)
		return pf_fail_errno(e, ENOMEM, "%s: reading", path);
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	int rc = file < 0 ? cr_fail(&r, "HDF5 cannot open it") : 0;
	if (rc == 0)
		rc = cr_root(&r, file, c);
	if (rc == 0)
		rc = cr_group(&r, file, c);
	if (results_h5_close(file) < 0 && rc == 0)
		rc = cr_fail(&r, "cannot close");
	if (rc != 0) {
		calib_free(c);
		return -1;
	}
	calib_means(c);
	calib_summarise(c);
	return 0;
}

void calib_free(struct calib_data *c)
{
	if (c == NULL)
		return;
	free(c->path);
	free(c->config_path);
	free(c->start_time);
	free(c->command_line);
	free(c->disk_source);
	free(c->disk_method);
	free(c->nodes);
	free(c->pairs);
	for (int f = 0; f < CALIB_NFIG; f++)
		free(c->reps_MBps[f]);
	free(c->fs_dataset);
	free(c->fs_reps_MBps);
	memset(c, 0, sizeof *c);
}

/* ---- writing (rank 0 of calibrate) ---- */

struct cw {
	const char *path;
	struct pf_err *e;
	hid_t str;
};

static int cw_fail(const struct cw *w, const char *what)
{
	char detail[512];
	results_h5_detail(detail, sizeof detail);
	return pf_fail(w->e, PF_RUNTIME, "%s: writing %s failed%s%s", w->path, what,
		       detail[0] ? ": " : "", detail);
}

static int cw_attr(const struct cw *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
		   const void *v)
{
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = s < 0 ? -1 : H5Acreate2(loc, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT);
	int rc = a < 0 || H5Awrite(a, mtype, v) < 0 ? cw_fail(w, name) : 0;
	if ((results_h5_close(a) | results_h5_close(s)) < 0 && rc == 0)
		rc = cw_fail(w, name);
	return rc;
}

static int cw_str(const struct cw *w, hid_t loc, const char *name, const char *v)
{
	const char *s = v ? v : "";
	return cw_attr(w, loc, name, w->str, w->str, &s);
}

static int cw_num(const struct cw *w, hid_t loc, const char *name, enum results_kind k,
		  const void *v)
{
	return cw_attr(w, loc, name, results_h5_type(k, 1), results_h5_type(k, 0), v);
}

static int cw_rows(const struct cw *w, hid_t g, const char *name, hid_t ftype, hid_t mtype,
		   size_t n, const void *buf)
{
	hsize_t dims[1] = {n};
	hid_t s = H5Screate_simple(1, dims, NULL);
	hid_t d = s < 0 ? -1 : H5Dcreate2(g, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 || (n && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
			 ? cw_fail(w, name) : 0;
	if ((results_h5_close(d) | results_h5_close(s)) < 0 && rc == 0)
		rc = cw_fail(w, name);
	return rc;
}

/* 1 when c holds every repetition of every figure (reps_MBps), else 0: the node figures are
 * then the one repetition written. */
static int cw_has_reps(const struct calib_data *c)
{
	for (int f = 0; f < CALIB_NFIG; f++)
		if (c->reps_MBps[f] == NULL)
			return 0;
	return c->reps > 0;
}

/* Every repetition of figure f as [nnodes][reps]; without them, the node figures as one. */
static int cw_reps(const struct cw *w, hid_t g, enum calib_figure f, const struct calib_data *c)
{
	size_t n = (size_t)c->nnodes, reps = cw_has_reps(c) ? (size_t)c->reps : 1;
	hsize_t dims[2] = {n, reps};
	double *one = NULL;
	const double *v = cw_has_reps(c) ? c->reps_MBps[f] : NULL;
	if (v == NULL) {
		if ((one = calloc(n ? n : 1, sizeof *one)) == NULL)
			return cw_fail(w, calib_rep_sets[f]);
		for (size_t i = 0; i < n; i++)
			one[i] = *(const double *)((const char *)&c->nodes[i] + calib_node_sets[f].offset);
		v = one;
	}
	hid_t s = H5Screate_simple(2, dims, NULL);
	hid_t d = s < 0 ? -1 : H5Dcreate2(g, calib_rep_sets[f], H5T_IEEE_F64LE, s, H5P_DEFAULT,
					  H5P_DEFAULT, H5P_DEFAULT);
	int rc = d < 0 || (n && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
			 ? cw_fail(w, calib_rep_sets[f]) : 0;
	if ((results_h5_close(d) | results_h5_close(s)) < 0 && rc == 0)
		rc = cw_fail(w, calib_rep_sets[f]);
	free(one);
	return rc;
}

static int cw_nodes(const struct cw *w, hid_t g, const struct calib_data *c)
{
	size_t n = (size_t)c->nnodes;
	char (*hosts)[RECORD_HOST_MAX] = calloc(n, sizeof *hosts);
	double *v = calloc(n, sizeof *v);
	hid_t ht = results_host_type();
	int rc = hosts == NULL || v == NULL || ht < 0 ? cw_fail(w, "node figures") : 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		memcpy(hosts[i], c->nodes[i].host, RECORD_HOST_MAX);
	if (rc == 0)
		rc = cw_rows(w, g, "hostname", ht, ht, n, hosts);
	for (size_t k = 0; rc == 0 && k < CALIB_NNODE_SETS; k++) {
		for (size_t i = 0; i < n; i++)
			v[i] = *(const double *)((const char *)&c->nodes[i] + calib_node_sets[k].offset);
		rc = cw_rows(w, g, calib_node_sets[k].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
	}
	for (int f = 0; rc == 0 && f < CALIB_NFIG; f++)
		rc = cw_reps(w, g, (enum calib_figure)f, c);
	(void)results_h5_close(ht); /* a type: nothing to lose */
	free(hosts);
	free(v);
	return rc;
}

/* The read through the file system, when measured (fs_dataset set). */
static int cw_fs(const struct cw *w, hid_t g, const struct calib_data *c)
{
	int32_t readers = c->fs_readers, flat = c->fs_flat;
	size_t n = (size_t)c->nnodes, reps = (size_t)c->reps;
	hsize_t dims[2] = {n, reps};
	if (c->fs_dataset == NULL || c->fs_reps_MBps == NULL || c->fs_nsteps < 1)
		return 0;
	hid_t sm = results_compound(calib_step_fields, CALIB_NSTEP_FIELDS, sizeof c->fs_step[0], 0);
	hid_t sf = results_compound(calib_step_fields, CALIB_NSTEP_FIELDS, sizeof c->fs_step[0], 1);
	int rc = sm < 0 || sf < 0 ? cw_fail(w, "fs_read_steps") : 0;
	if (rc == 0)
		rc = cw_str(w, g, "fs_dataset", c->fs_dataset) |
		     cw_num(w, g, "fs_bytes", RESULTS_U64, &c->fs_bytes) |
		     cw_num(w, g, "fs_readers", RESULTS_I32, &readers) |
		     cw_num(w, g, "fs_flat", RESULTS_I32, &flat);
	if (rc == 0)
		rc = cw_rows(w, g, "fs_read_steps", sf, sm, (size_t)c->fs_nsteps, c->fs_step);
	hid_t s = rc == 0 ? H5Screate_simple(2, dims, NULL) : -1;
	hid_t d = s < 0 ? -1 : H5Dcreate2(g, "fs_read_MBps_reps", H5T_IEEE_F64LE, s, H5P_DEFAULT,
					  H5P_DEFAULT, H5P_DEFAULT);
	if (rc == 0 && (d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
					  c->fs_reps_MBps) < 0))
		rc = cw_fail(w, "fs_read_MBps_reps");
	if ((results_h5_close(d) | results_h5_close(s) | results_h5_close(sf) |
	     results_h5_close(sm)) < 0 && rc == 0)
		rc = cw_fail(w, "fs_read_MBps_reps");
	return rc;
}

static int cw_group(const struct cw *w, hid_t file, const struct calib_data *c)
{
	hid_t g = H5Gcreate2(file, "calibration", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t pm = results_compound(calib_pair_fields, CALIB_NPAIR_FIELDS, sizeof(struct calib_pair), 0);
	hid_t pf = results_compound(calib_pair_fields, CALIB_NPAIR_FIELDS, sizeof(struct calib_pair), 1);
	int rc = g < 0 || pm < 0 || pf < 0 ? cw_fail(w, "/calibration") : 0;
	if (rc == 0)
		rc = cw_str(w, g, "disk_source", c->disk_source) |
		     cw_str(w, g, "disk_method", c->disk_method) |
		     cw_num(w, g, "disk_bytes", RESULTS_U64, &c->disk_bytes) |
		     cw_num(w, g, "mem_bytes", RESULTS_U64, &c->mem_bytes) |
		     cw_num(w, g, "msg_bytes", RESULTS_U64, &c->msg_bytes);
	int32_t reps = cw_has_reps(c) ? c->reps : 1;
	if (rc == 0)
		rc = cw_num(w, g, "repetitions", RESULTS_I32, &reps) |
		     cw_num(w, g, "llc_bytes", RESULTS_U64, &c->llc_bytes) |
		     cw_num(w, g, "disk_resident", RESULTS_F64, &c->disk_resident);
	if (rc == 0)
		rc = cw_nodes(w, g, c);
	if (rc == 0)
		rc = cw_rows(w, g, "pairs", pf, pm, c->npairs, c->pairs);
	if (rc == 0 && cw_has_reps(c))
		rc = cw_fs(w, g, c);
	if ((results_h5_close(pf) | results_h5_close(pm) | results_h5_close(g)) < 0 && rc == 0)
		rc = cw_fail(w, "/calibration");
	return rc == 0 ? 0 : -1;
}

static int cw_root(const struct cw *w, hid_t file, const struct calib_data *c,
		   const char *config_yaml)
{
	int32_t version = CALIB_SCHEMA_VERSION, nnodes = c->nnodes;
	if (cw_str(w, file, "pfsread_version", PFSREAD_VERSION) |
	    cw_num(w, file, "calibration_version", RESULTS_I32, &version) |
	    cw_str(w, file, "config_path", c->config_path) |
	    cw_str(w, file, "config_yaml", config_yaml) |
	    cw_str(w, file, "command_line", c->command_line) |
	    cw_str(w, file, "start_time", c->start_time) |
	    cw_num(w, file, "nnodes", RESULTS_I32, &nnodes) |
	    cw_str(w, file, "status", "complete"))
		return -1;
	return 0;
}

int calib_write(const char *path, int force, const struct calib_data *c, const char *config_yaml,
		struct pf_err *e)
{
	struct cw w = {path, e, -1};
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot configure HDF5 error reporting", path);
	if (!force && access(path, F_OK) == 0)
		return pf_fail(e, PF_USAGE, "%s exists; give --force to overwrite it", path);
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	w.str = results_str_type();
	int rc = file < 0 || w.str < 0 ? cw_fail(&w, "the file") : 0;
	if (rc == 0)
		rc = cw_root(&w, file, c, config_yaml);
	if (rc == 0)
		rc = cw_group(&w, file, c);
	if ((results_h5_close(w.str) | results_h5_close(file)) < 0 && rc == 0)
		rc = cw_fail(&w, "the file (close)");
	return rc;
}
