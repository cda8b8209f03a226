/* writer.h: the writer's state, shared by writer.c (a new file) and append.c (a file a
 * resumed run continues) only. */
#ifndef PFSREAD_RESULTS_WRITER_H
#define PFSREAD_RESULTS_WRITER_H

#include <hdf5.h>
#include <mpi.h>

#include "results/results.h"

struct results {
	char *path;
	MPI_Comm comm;             /* the caller's; it must outlive the writer */
	int rank, nranks, nnodes;
	hid_t file, phases;        /* the file and its /phases group */
	hid_t rank_mem, rank_disk; /* struct rank_rec: native layout, packed little-endian */
	hid_t file_mem, file_disk; /* struct file_rec */
	hid_t str;                 /* variable-length UTF-8 string of every string attribute */
	hid_t dxpl;                /* collective data transfer (results_xfer_list) */
	void *xfer_bufs;           /* its buffers */
	hid_t dcpl;                /* no fill values: every row is written */
	int lost;                  /* a write failed: the ranks' HDF5 states may differ */
	hid_t part;                /* this run's group in /parts, or -1 */
	uint32_t part_phases;      /* phases this part wrote */
};

/* A new writer for path on comm (nothing opened yet), or NULL when out of memory. */
struct results *res_new(const char *path, MPI_Comm comm, int nnodes);

/* Open the file (create it; with append 1 open it read-only, 2 read-write) and the types and
 * property lists every later call uses. */
int res_open(struct results *r, int force, int append, struct pf_err *e);

/* The length of a phase's name in /phases ("0042"; longer past 9999 phases, see writer.c). */
#define RES_PHASE_NAME_LEN 4

/* Group (or, with H5P_FILE_CREATE, root group) creation properties that keep n links named in
 * len characters in a header allocated whole at creation (see writer.c). -1 on failure. */
hid_t res_roomy_gcpl(hid_t cls, uint64_t n, unsigned len);

/* A phase's group: ranks_n rows of /ranks from this rank at ranks_at (its own row, or every
 * row when it writes alone), its files after the other ranks'. Collective on r's comm. */
int res_write_phase(struct results *r, const struct phase_info *p,
		    const struct rank_rec *ranks_rows, uint64_t ranks_at, uint64_t ranks_n,
		    const struct file_rec *files, uint64_t nfiles,
		    const struct target_table *targets, struct pf_err *e);

/* The one failure path after the file is open: see writer.c. Returns -1. */
int res_fail(struct results *r, const char *obj, const char *what, struct pf_err *e);

/* Write (or overwrite) a string or numeric attribute of loc, collectively. 0 or -1. */
int res_attr_str(struct results *r, hid_t loc, const char *obj, const char *name,
		 const char *value, struct pf_err *e);
int res_attr_num(struct results *r, hid_t loc, const char *obj, const char *name,
		 enum results_kind kind, const void *value, struct pf_err *e);

/* Begin this run's part in /parts (made if missing): start time, job id, hosts, command line.
 * Collective. 0 or -1. */
int res_part_begin(struct results *r, const struct run_meta *m, struct pf_err *e);

/* End the part: end time (rank 0's clock), status, phases written. Collective. 0 or -1. */
int res_part_end(struct results *r, const char *status, struct pf_err *e);

#endif
