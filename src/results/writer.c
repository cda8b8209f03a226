/* writer: the collective writer of a run's HDF5 file (schema: README "Results file").
 * Every rank calls every function with the same arguments but its own records; metadata
 * (groups, attributes) is identical everywhere and only the data selections differ by rank. */
#include <hdf5.h>
#include <mpi.h>

#include "results/results.h"
#include "results/writer.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>


/* Room a phase needs on the results file system beyond its rows: its group, attributes and
 * the heaps they grow, and the final close (status attribute, superblock). Generous: the
 * margin is what keeps a file system that fills up from failing a write half-way. */
#define RES_PHASE_MARGIN (256u * 1024u)

/* The one failure path: "FILE: OBJECT: what failed: HDF5's innermost message". A write that
 * fails may fail on some ranks only (parallel HDF5 writes metadata from rank 0, and each rank
 * its own rows), and HDF5 then leaves the ranks in different collective calls: no further
 * HDF5 call can be trusted to complete, so the failure is PF_HUNG and main aborts. The file
 * keeps what the last successful flush wrote. */
int res_fail(struct results *r, const char *obj, const char *what, struct pf_err *e)
{
	char detail[512];
	results_h5_detail(detail, sizeof detail);
	r->lost = 1;
	return pf_fail_lost(e, "%s: %s: %s failed%s%s; the file holds what was written before "
			    "(aborting: parallel HDF5 cannot close a file after a failed write)",
			    r->path, obj, what, detail[0] ? ": " : "", detail);
}

/* Group creation properties for a group that will hold up to n links named in up to len
 * characters: its header is made big enough for all of them at once (compact links, no
 * dense storage), so that adding a link rewrites the header in place and never allocates
 * a continuation of it. Why: a SIGKILL in the middle of a flush keeps any subset of its
 * writes, and the superblock's end of allocation (EOA) may not be among them; a header
 * that grew was then written pointing at a continuation beyond the recorded EOA ("addr
 * overflow"), and /phases, with every phase in it, could no longer be opened. A header
 * rewritten in place is one write: either the old links or the new ones. Past RES_ROOMY_MAX
 * links a group grows as before (a larger header would be rewritten whole at every flush). */
#define RES_ROOMY_MAX 4096u
hid_t res_roomy_gcpl(hid_t cls, uint64_t n, unsigned len)
{
	unsigned links = n < 8 ? 8u : n > RES_ROOMY_MAX ? RES_ROOMY_MAX : (unsigned)n;
	hid_t p = H5Pcreate(cls);
	if (p >= 0 && (H5Pset_link_phase_change(p, links, links < 6 ? links : 6) < 0 ||
		       H5Pset_est_link_info(p, links, len) < 0)) {
		(void)results_h5_close(p);
		p = -1;
	}
	return p;
}

/* ---- attributes ---- */

/* Open attribute name of loc, creating it with type t on a scalar space when it is new; one
 * that is there must hold one value, as a write of one reads one. */
static hid_t res_attr(hid_t loc, const char *name, hid_t t)
{
	htri_t has = H5Aexists(loc, name);
	if (has != 0) {
		hid_t a = has > 0 ? H5Aopen(loc, name, H5P_DEFAULT) : -1;
		if (a >= 0 && !results_h5_attr_single(a)) {
			(void)results_h5_close(a); /* already failing */
			return -1;
		}
		return a;
	}
	hid_t s = H5Screate(H5S_SCALAR);
	hid_t a = s < 0 ? -1 : H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
	if (results_h5_close(s) < 0 && a >= 0) {
		(void)results_h5_close(a); /* already failing */
		return -1;
	}
	return a;
}

int res_attr_str(struct results *r, hid_t loc, const char *obj, const char *name,
			const char *value, struct pf_err *e)
{
	int rc = 0;
	const char *v = value ? value : "";
	char what[160];
	hid_t a = -1;
	snprintf(what, sizeof what, "writing attribute %s", name);
	if ((a = res_attr(loc, name, r->str)) < 0 || H5Awrite(a, r->str, &v) < 0)
		rc = res_fail(r, obj, what, e);
	if (results_h5_close(a) < 0 && rc == 0)
		rc = res_fail(r, obj, what, e);
	return rc;
}

int res_attr_num(struct results *r, hid_t loc, const char *obj, const char *name,
			enum results_kind kind, const void *value, struct pf_err *e)
{
	int rc = 0;
	char what[160];
	hid_t a = -1;
	snprintf(what, sizeof what, "writing attribute %s", name);
	if ((a = res_attr(loc, name, results_h5_type(kind, 1))) < 0 ||
	    H5Awrite(a, results_h5_type(kind, 0), value) < 0)
		rc = res_fail(r, obj, what, e);
	if (results_h5_close(a) < 0 && rc == 0)
		rc = res_fail(r, obj, what, e);
	return rc;
}

static int res_root_attrs(struct results *r, const struct run_meta *m, struct pf_err *e)
{
	unsigned maj = 0, min = 0, rel = 0;
	char hdf5[64];
	int32_t schema = RESULTS_SCHEMA_VERSION, nranks = m->nranks, nnodes = m->nnodes;
	if (H5get_libversion(&maj, &min, &rel) < 0)
		return res_fail(r, "/", "H5get_libversion", e);
	snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
	if (res_attr_str(r, r->file, "/", "pfsread_version", m->pfsread_version, e) < 0 ||
	    res_attr_num(r, r->file, "/", "schema_version", RESULTS_I32, &schema, e) < 0 ||
	    res_attr_str(r, r->file, "/", "config_yaml", m->config_yaml, e) < 0 ||
	    res_attr_str(r, r->file, "/", "config_path", m->config_path, e) < 0 ||
	    res_attr_str(r, r->file, "/", "command_line", m->command_line, e) < 0 ||
	    res_attr_str(r, r->file, "/", "start_time", m->start_time, e) < 0 ||
	    res_attr_str(r, r->file, "/", "mpi_version", m->mpi_version, e) < 0 ||
	    res_attr_str(r, r->file, "/", "hdf5_version", hdf5, e) < 0 ||
	    res_attr_str(r, r->file, "/", "job_id", m->job_id, e) < 0 ||
	    res_attr_str(r, r->file, "/", "status", "running", e) < 0 ||
	    res_attr_num(r, r->file, "/", "nranks", RESULTS_I32, &nranks, e) < 0 ||
	    res_attr_num(r, r->file, "/", "nnodes", RESULTS_I32, &nnodes, e) < 0)
		return -1;
	return 0;
}

/* /environment: one string attribute per fact, in the order they were gathered. */
static int res_environment(struct results *r, const struct environment *env, struct pf_err *e)
{
	hid_t g = -1, gcpl = H5Pcreate(H5P_GROUP_CREATE);
	int rc = 0;
	if (gcpl < 0)
		rc = res_fail(r, "/environment", "H5Pcreate", e);
	else if (H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)
		rc = res_fail(r, "/environment", "H5Pset_attr_creation_order", e);
	else if ((g = H5Gcreate2(r->file, "/environment", H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
		rc = res_fail(r, "/environment", "H5Gcreate2", e);
	for (size_t i = 0; env != NULL && i < env->n && rc == 0; i++)
		if (res_attr_str(r, g, "/environment", env->e[i].key, env->e[i].value, e) < 0)
			rc = -1;
	if ((results_h5_close(g) < 0 || results_h5_close(gcpl) < 0) && rc == 0)
		rc = res_fail(r, "/environment", "H5Gclose", e);
	return rc;
}

/* ---- datasets ---- */

/* One dataset's worth of rows: total over all ranks; this rank's count rows go at offset. */
struct res_rows {
	const char *name;
	hid_t disk, mem;  /* file and memory types */
	uint64_t total, offset, count;
	const void *buf;  /* count rows of mem; may be NULL when count is 0 */
};

/* A space of n rows with offset..offset+count selected (nothing when count is 0). */
static hid_t res_space(uint64_t n, uint64_t offset, uint64_t count)
{
	hsize_t dims[1] = {n}, start[1] = {offset}, cnt[1] = {count};
	hid_t s = H5Screate_simple(1, dims, NULL);
	if (s < 0)
		return -1;
	herr_t rc = count ? H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, cnt, NULL)
			  : H5Sselect_none(s);
	if (rc < 0) {
		(void)results_h5_close(s); /* already failing */
		return -1;
	}
	return s;
}

/* Create loc/rows->name collectively and write every rank's rows in one collective call. */
static int res_write_rows(struct results *r, hid_t loc, const char *obj,
			  const struct res_rows *rows, struct pf_err *e)
{
	int rc = 0;
	char where[160];
	static const char none = 0; /* HDF5 wants a buffer even for an empty selection */
	hid_t fs = -1, ms = -1, d = -1;
	snprintf(where, sizeof where, "%s/%s", obj, rows->name);
	if ((fs = res_space(rows->total, rows->offset, rows->count)) < 0 ||
	    (ms = res_space(rows->count ? rows->count : 1, 0, rows->count)) < 0)
		rc = res_fail(r, where, "dataspace", e);
	else if ((d = H5Dcreate2(loc, rows->name, rows->disk, fs, H5P_DEFAULT, r->dcpl,
				 H5P_DEFAULT)) < 0)
		rc = res_fail(r, where, "H5Dcreate2", e);
	else if (rows->total > 0 &&
		 H5Dwrite(d, rows->mem, ms, fs, r->dxpl, rows->buf ? rows->buf : &none) < 0)
		rc = res_fail(r, where, "H5Dwrite", e);
	if ((results_h5_close(d) | results_h5_close(ms) | results_h5_close(fs)) < 0 && rc == 0)
		rc = res_fail(r, where, "closing", e);
	return rc;
}

int results_write_topology(struct results *r, const int *node_of_rank,
			   const char (*hostnames)[RECORD_HOST_MAX], const double *clock_offset_s,
			   const uint64_t *mem_total_bytes, struct pf_err *e)
{
	int rc = 0, root = r->rank == 0;
	uint64_t nr = (uint64_t)r->nranks, nn = (uint64_t)r->nnodes;
	hid_t g = -1, host = results_host_type();
	if (host < 0)
		return res_fail(r, "/topology/hostname", "string type", e);
	if ((g = H5Gcreate2(r->file, "/topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
		rc = res_fail(r, "/topology", "H5Gcreate2", e);
		goto out;
	}
	struct res_rows rows[] = {
		{"node_of_rank", H5T_STD_I32LE, H5T_NATIVE_INT, nr, 0, root ? nr : 0, node_of_rank},
		{"hostname", host, host, nn, 0, root ? nn : 0, hostnames},
		{"clock_offset_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nn, 0, root ? nn : 0,
		 clock_offset_s},
		{"mem_total_bytes", H5T_STD_U64LE, H5T_NATIVE_UINT64, nn, 0, root ? nn : 0,
		 mem_total_bytes},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if ((rc = res_write_rows(r, g, "/topology", &rows[i], e)) < 0)
			goto out;
	if (H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = res_fail(r, "/", "H5Fflush", e);
out:
	if ((results_h5_close(g) | results_h5_close(host)) < 0 && rc == 0)
		rc = res_fail(r, "/topology", "closing", e);
	return rc;
}

/* ---- phases ---- */

static int res_phase_attrs(struct results *r, hid_t g, const char *obj, const struct phase_info *p,
			   struct pf_err *e)
{
	for (size_t i = 0; i < results_nphase_attrs; i++) {
		struct results_field attr;
		const struct results_field *f = &attr;
		results_phase_attr(i, &attr);
		const char *v = (const char *)p + f->offset;
		char s[sizeof p->mpiio_hints]; /* the longest string attribute */
		int word = f->kind == RESULTS_STR || f->kind == RESULTS_STATUS;
		if (f->kind == RESULTS_STR)
			snprintf(s, sizeof s, "%.*s", (int)strnlen(v, f->size), v);
		else if (f->kind == RESULTS_STATUS)
			snprintf(s, sizeof s, "%s", results_phase_status_name(*(const int32_t *)v));
		if ((word ? res_attr_str(r, g, obj, f->name, s, e)
			  : res_attr_num(r, g, obj, f->name, f->kind, v, e)) < 0)
			return -1;
	}
	return 0;
}

/* This rank's offset among all ranks' file rows, and their total. No data moves to rank 0. */
static int res_file_offset(struct results *r, const char *obj, uint64_t n, uint64_t *offset,
			   uint64_t *total, struct pf_err *e)
{
	*offset = 0;
	if (MPI_Exscan(&n, offset, 1, MPI_UINT64_T, MPI_SUM, r->comm) != MPI_SUCCESS)
		return res_fail(r, obj, "MPI_Exscan", e);
	if (r->rank == 0)
		*offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
	if (MPI_Allreduce(&n, total, 1, MPI_UINT64_T, MPI_SUM, r->comm) != MPI_SUCCESS)
		return res_fail(r, obj, "MPI_Allreduce", e);
	return 0;
}

/* Before a phase is written: room for its rows and RES_PHASE_MARGIN on the results file
 * system, as rank 0 sees it (statvfs), the same verdict on every rank. A file system about to
 * fill up stops the run cleanly here, with every phase before in the file and the file closed
 * properly, instead of failing a write half-way (see res_fail). */
static int res_room(struct results *r, const char *obj, uint64_t rows, struct pf_err *e)
{
	uint64_t v[2] = {UINT64_MAX, rows * 2 + RES_PHASE_MARGIN}; /* bytes free, needed */
	struct statvfs st;
	if (r->rank == 0 && statvfs(r->path, &st) == 0)
		v[0] = (uint64_t)st.f_bavail * (uint64_t)st.f_frsize;
	if (MPI_Bcast(v, 2, MPI_UINT64_T, 0, r->comm) != MPI_SUCCESS)
		return res_fail(r, obj, "MPI_Bcast", e);
	if (v[0] < v[1])
		return pf_fail(e, PF_RUNTIME, "%s: %s not written: the file system holding the "
			       "results has %llu bytes free, the phase needs about %llu; stopping "
			       "(the phases before it are in the file)", r->path, obj,
			       (unsigned long long)v[0], (unsigned long long)v[1]);
	return 0;
}

/* /phases/NNNN/targets: the table the rows' target fields index, from rank 0. */
static int res_targets(struct results *r, hid_t g, const char *obj,
		       const struct target_table *tg, struct pf_err *e)
{
	static char none[1][RECORD_TARGET_MAX] = {RECORD_TARGET_NONE};
	uint64_t n = tg != NULL && tg->n > 0 ? tg->n : 1;
	hid_t t = results_fixed_str_type(RECORD_TARGET_MAX);
	if (t < 0)
		return res_fail(r, obj, "target string type", e);
	struct res_rows rows = {"targets", t, t, n, 0, r->rank == 0 ? n : 0,
				tg != NULL && tg->n > 0 ? (const void *)tg->name : (const void *)none};
	int rc = res_write_rows(r, g, obj, &rows, e);
	if (results_h5_close(t) < 0 && rc == 0)
		rc = res_fail(r, obj, "closing the target string type", e);
	return rc;
}

int res_write_phase(struct results *r, const struct phase_info *p,
		    const struct rank_rec *ranks_rows, uint64_t ranks_at, uint64_t ranks_n,
		    const struct file_rec *files, uint64_t nfiles,
		    const struct target_table *targets, struct pf_err *e)
{
	char name[16], obj[32];
	int rc = 0;
	uint64_t offset = 0, total = 0, nr = (uint64_t)r->nranks;
	hid_t g = -1;
	snprintf(name, sizeof name, "%04u", (unsigned)p->index);
	snprintf(obj, sizeof obj, "/phases/%s", name);
	if (r->lost)
		return pf_fail_lost(e, "%s: %s: not written after an earlier failure", r->path, obj);
	if (res_file_offset(r, obj, nfiles, &offset, &total, e) < 0 ||
	    res_room(r, obj, total * H5Tget_size(r->file_disk) + nr * H5Tget_size(r->rank_disk),
		     e) < 0)
		return -1;
	struct res_rows ranks = {"ranks", r->rank_disk, r->rank_mem, nr, ranks_at, ranks_n,
				 ranks_rows};
	struct res_rows rows = {"files", r->file_disk, r->file_mem, total, offset, nfiles, files};
	if ((g = H5Gcreate2(r->phases, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		return res_fail(r, obj, "H5Gcreate2", e);
	if ((rc = res_phase_attrs(r, g, obj, p, e)) < 0 ||
	    (rc = res_write_rows(r, g, obj, &ranks, e)) < 0 ||
	    (rc = res_write_rows(r, g, obj, &rows, e)) < 0 ||
	    (rc = res_targets(r, g, obj, targets, e)) < 0)
		goto out;
	if (results_h5_close(g) < 0) {
		rc = res_fail(r, obj, "H5Gclose", e);
		goto out;
	}
	g = -1;
	if (H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0) {
		rc = res_fail(r, "/", "H5Fflush", e);
		goto out;
	}
	r->part_phases++;
out:
	if (results_h5_close(g) < 0 && rc == 0)
		rc = res_fail(r, obj, "H5Gclose", e);
	return rc;
}

int results_write_phase(struct results *r, const struct phase_info *p, const struct rank_rec *mine,
			const struct file_rec *files, uint64_t nfiles,
			const struct target_table *targets, struct pf_err *e)
{
	return res_write_phase(r, p, mine, (uint64_t)r->rank, 1, files, nfiles, targets, e);
}

/* ---- parts: one per run that wrote the file ---- */

/* "2026-12-01T22:00:00Z" on rank 0, the same on every rank (attributes must agree). */
static int app_now(struct results *r, char *buf, struct pf_err *e)
{
	if (r->rank == 0) {
		time_t now = time(NULL);
		struct tm tm;
		if (gmtime_r(&now, &tm) == NULL || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
			snprintf(buf, 32, "unknown");
	}
	if (MPI_Bcast(buf, 32, MPI_CHAR, 0, r->comm) != MPI_SUCCESS)
		return res_fail(r, "/parts", "MPI_Bcast", e);
	return 0;
}

int res_part_begin(struct results *r, const struct run_meta *m, struct pf_err *e)
{
	char name[24], obj[40], start[32];
	H5G_info_t info;
	hid_t g = -1;
	int rc = 0;
	htri_t has = H5Lexists(r->file, "/parts", H5P_DEFAULT);
	if (has < 0)
		return res_fail(r, "/parts", "H5Lexists", e);
	if (has)
		g = H5Gopen2(r->file, "/parts", H5P_DEFAULT);
	else {
		hid_t gcpl = res_roomy_gcpl(H5P_GROUP_CREATE, 64, 4); /* a part per job */
		g = gcpl < 0 ? -1 : H5Gcreate2(r->file, "/parts", H5P_DEFAULT, gcpl, H5P_DEFAULT);
		if (results_h5_close(gcpl) < 0 && g >= 0) {
			(void)results_h5_close(g);
			g = -1;
		}
	}
	if (g < 0)
		return res_fail(r, "/parts", has ? "H5Gopen2" : "H5Gcreate2", e);
	if (H5Gget_info(g, &info) < 0) {
		rc = res_fail(r, "/parts", "H5Gget_info", e);
		goto out;
	}
	snprintf(name, sizeof name, "%04llu", (unsigned long long)info.nlinks);
	snprintf(obj, sizeof obj, "/parts/%s", name);
	if ((r->part = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
		rc = res_fail(r, obj, "H5Gcreate2", e);
		goto out;
	}
	if (app_now(r, start, e) < 0 ||
	    res_attr_str(r, r->part, obj, "start_time", start, e) < 0 ||
	    res_attr_str(r, r->part, obj, "job_id", m->job_id, e) < 0 ||
	    res_attr_str(r, r->part, obj, "hosts", m->hosts, e) < 0 ||
	    res_attr_str(r, r->part, obj, "command_line", m->command_line, e) < 0 ||
	    res_attr_str(r, r->part, obj, "status", "running", e) < 0) {
		rc = -1;
		goto out;
	}
	if (H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = res_fail(r, "/", "H5Fflush", e);
out:
	if (results_h5_close(g) < 0 && rc == 0)
		rc = res_fail(r, "/parts", "H5Gclose", e);
	return rc;
}

int res_part_end(struct results *r, const char *status, struct pf_err *e)
{
	char end[32];
	uint32_t n = r->part_phases;
	if (app_now(r, end, e) < 0 || res_attr_str(r, r->part, "/parts", "end_time", end, e) < 0 ||
	    res_attr_str(r, r->part, "/parts", "status", status, e) < 0 ||
	    res_attr_num(r, r->part, "/parts", "phases_written", RESULTS_U32, &n, e) < 0)
		return -1;
	return 0;
}

/* ---- create and close ---- */

/* Rank 0 looks at path and tells everyone: 0 to go on, -1 it exists (and no force), or the
 * errno of a parent directory that is missing or not writable. So all ranks fail alike, with
 * a clean message instead of HDF5's. */
static int res_precheck(struct results *r, int force, struct pf_err *e)
{
	int verdict = 0;
	if (r->rank == 0) {
		char *copy = strdup(r->path);
		if (copy == NULL)
			verdict = ENOMEM;
		else if (access(r->path, F_OK) == 0)
			verdict = force ? 0 : -1;
		else if (access(dirname(copy), W_OK | X_OK) != 0)
			verdict = errno;
		free(copy);
	}
	if (MPI_Bcast(&verdict, 1, MPI_INT, 0, r->comm) != MPI_SUCCESS)
		return res_fail(r, "/", "MPI_Bcast", e);
	if (verdict < 0)
		return pf_fail(e, PF_USAGE, "%s exists (use --force to overwrite)", r->path);
	if (verdict > 0)
		return pf_fail_errno(e, verdict, "%s: cannot create a file in its directory",
				     r->path);
	return 0;
}

/* The property lists and types every write uses, kept in r (results_close releases them). */
static int res_open_types(struct results *r, struct pf_err *e)
{
	const char *what = NULL; /* the call that failed */
	if ((r->dxpl = results_xfer_list(&r->xfer_bufs)) < 0)
		what = "the transfer buffers";
	else if (H5Pset_dxpl_mpio(r->dxpl, H5FD_MPIO_COLLECTIVE) < 0)
		what = "H5Pset_dxpl_mpio";
	else if ((r->dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0)
		what = "H5Pcreate";
	else if (H5Pset_fill_time(r->dcpl, H5D_FILL_TIME_NEVER) < 0)
		what = "H5Pset_fill_time";
	else if ((r->str = results_str_type()) < 0)
		what = "string type";
	else if ((r->rank_mem = results_compound(results_rank_fields, results_nrank_fields,
						 sizeof(struct rank_rec), 0)) < 0 ||
		 (r->rank_disk = results_compound(results_rank_fields, results_nrank_fields,
						  sizeof(struct rank_rec), 1)) < 0)
		what = "rank type";
	else if ((r->file_mem = results_compound(results_file_fields, results_nfile_fields,
						 sizeof(struct file_rec), 0)) < 0 ||
		 (r->file_disk = results_compound(results_file_fields, results_nfile_fields,
						  sizeof(struct file_rec), 1)) < 0)
		what = "file type";
	return what != NULL ? res_fail(r, "/", what, e) : 0;
}

/* The file (append: opened, 1 read-only, 2 read-write; else created), then the types and
 * property lists every later call uses. */
int res_open(struct results *r, int force, int append, struct pf_err *e)
{
	const char *what = NULL; /* the call that failed */
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = -1;
	if (fapl < 0)
		what = "H5Pcreate";
	else if (H5Pset_fapl_mpio(fapl, r->comm, MPI_INFO_NULL) < 0)
		what = "H5Pset_fapl_mpio";
	else if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
		what = "H5Pset_libver_bounds";
	/* append: read-only unless asked, so that a file refused stays as it was (see append.c) */
	else if (append && (r->file = H5Fopen(r->path, append > 1 ? H5F_ACC_RDWR : H5F_ACC_RDONLY,
					      fapl)) < 0)
		what = "H5Fopen";
	/* the root's links: environment, topology, parts, phases, then a resume's discarded and
	 * phases-kept (see res_roomy_gcpl) */
	else if (!append && (fcpl = res_roomy_gcpl(H5P_FILE_CREATE, 8, 12)) < 0)
		what = "H5Pcreate";
	else if (!append && (r->file = H5Fcreate(r->path, force ? H5F_ACC_TRUNC : H5F_ACC_EXCL,
						 fcpl, fapl)) < 0)
		what = "H5Fcreate";
	int rc = what != NULL ? res_fail(r, "/", what, e) : res_open_types(r, e);
	if ((results_h5_close(fapl) | results_h5_close(fcpl)) < 0 && rc == 0)
		rc = res_fail(r, "/", "H5Pclose", e);
	return rc;
}

struct results *res_new(const char *path, MPI_Comm comm, int nnodes)
{
	struct results *r = calloc(1, sizeof *r);
	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		return NULL;
	}
	r->comm = comm;
	r->nnodes = nnodes;
	r->file = r->phases = r->rank_mem = r->rank_disk = r->file_mem = r->file_disk = -1;
	r->str = r->dxpl = r->dcpl = r->part = -1;
	return r;
}

/* /phases, its header made for the run's phases (see res_roomy_gcpl), and a flush. */
static int res_phases_group(struct results *r, uint64_t nphases, struct pf_err *e)
{
	int rc = 0;
	hid_t gcpl = res_roomy_gcpl(H5P_GROUP_CREATE, nphases, RES_PHASE_NAME_LEN);
	if (gcpl < 0)
		return res_fail(r, "/phases", "H5Pcreate", e);
	if ((r->phases = H5Gcreate2(r->file, "/phases", H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0)
		rc = res_fail(r, "/phases", "H5Gcreate2", e);
	if (results_h5_close(gcpl) < 0 && rc == 0)
		rc = res_fail(r, "/phases", "H5Pclose", e);
	if (rc == 0 && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = res_fail(r, "/", "H5Fflush", e);
	return rc;
}

int results_create(const char *path, int force, MPI_Comm comm, const struct run_meta *m,
		   struct results **out, struct pf_err *e)
{
	/* failures become one message naming the file and object, not HDF5's stack dump */
	if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
		return pf_fail(e, PF_RUNTIME, "%s: cannot silence HDF5's error printing", path);
	struct results *r = res_new(path, comm, m->nnodes);
	int rc = 0;
	*out = NULL;
	if (r == NULL)
		return pf_fail_errno(e, ENOMEM, "%s: cannot create", path);
	if (MPI_Comm_rank(comm, &r->rank) != MPI_SUCCESS) {
		rc = res_fail(r, "/", "MPI_Comm_rank", e);
		goto out;
	}
	if (MPI_Comm_size(comm, &r->nranks) != MPI_SUCCESS) {
		rc = res_fail(r, "/", "MPI_Comm_size", e);
		goto out;
	}
	if (m->nranks != r->nranks || m->nnodes < 1 || m->nnodes > r->nranks) {
		rc = pf_fail(e, PF_RUNTIME,
			     "%s: %d ranks and %d nodes do not fit a communicator of %d", path,
			     m->nranks, m->nnodes, r->nranks);
		goto out;
	}
	if ((rc = res_precheck(r, force, e)) < 0 || (rc = res_open(r, force, 0, e)) < 0 ||
	    (rc = res_root_attrs(r, m, e)) < 0 || (rc = res_environment(r, m->env, e)) < 0 ||
	    (rc = res_part_begin(r, m, e)) < 0 || (rc = res_phases_group(r, m->nphases, e)) < 0)
		goto out;
	*out = r;
	r = NULL;
out:
	(void)results_close(r, NULL, NULL); /* NULL after success; else already failing */
	return rc;
}

int results_close(struct results *r, const char *status, struct pf_err *e)
{
	int rc = 0, bad = 0;
	if (r == NULL)
		return 0;
	if (r->lost) { /* no HDF5 call can be trusted: main aborts (see res_fail) */
		free(r->xfer_bufs);
		free(r->path);
		free(r);
		if (e != NULL && e->status == PF_HUNG)
			return -1;
		return pf_fail_lost(e, "results file not closed after a failed write");
	}
	if (status != NULL && r->file >= 0)
		rc = res_attr_str(r, r->file, "/", "status", status, e);
	if (status != NULL && r->part >= 0 && rc == 0)
		rc = res_part_end(r, status, e);
	const hid_t ids[] = {r->part, r->phases,    r->rank_mem, r->rank_disk, r->file_mem, r->file_disk,
			     r->str,       r->dxpl,     r->dcpl,      r->file};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		bad |= results_h5_close(ids[i]);
	if (bad && rc == 0)
		rc = res_fail(r, "/", "closing", e);
	free(r->xfer_bufs); /* after the list that names them is closed */
	free(r->path);
	free(r);
	return rc;
}
