/* reader_int: what the reader's files share: the state of one read (reader.c), the helpers
 * that read attributes and list numbered groups, each failing with a message that names the
 * file and the object (attrs.c), and the parts (parts.c). Not an interface for other modules. */
#ifndef PFSREAD_RESULTS_READER_INT_H
#define PFSREAD_RESULTS_READER_INT_H

#include <hdf5.h>

#include "results/results.h"

struct rd {
	const char *path;
	struct pf_err *e;
	struct run_data *run;
	hid_t rank_mem, file_mem; /* compound memory types of the records */
	hid_t xfer;               /* every H5Dread's transfer list (results_xfer_list) */
	void *xfer_bufs;          /* its buffers */
	const struct results_rows *rows; /* NULL: every phase's rows read whole */
	struct file_rec *chunk;   /* RD_CHUNK rows, when streaming */
};

/* (attrs.c) The one failure path of the reader once the file opened as HDF5: -1, e set. */
int rd_fail(const struct rd *c, const char *obj, const char *what);

/* A string attribute, fixed or variable length, into *out (malloc'ed, set only on success). */
int rd_attr_str(const struct rd *c, hid_t loc, const char *obj, const char *name, char **out);

/* A numeric attribute into dst, converted by HDF5 to the native type of kind. */
int rd_attr_num(const struct rd *c, hid_t loc, const char *obj, const char *name,
		enum results_kind kind, void *dst);

/* A member of a group of numbered members (/phases, /parts). */
struct rd_name {
	unsigned long index;
	char name[32];
};

/* The names of g's members, checked to be numbers, in numeric order; *names malloc'ed (the
 * caller frees it, also on failure). */
int rd_phase_names(const struct rd *c, hid_t g, struct rd_name **names, size_t *n);

/* (parts.c) /parts, when the file has it, into c->run->parts. */
int rd_parts(const struct rd *c, hid_t file);
/* (parts.c) After the phases: the count of the one part whose run was killed before it wrote
 * its own (RESULTS_PART_KEPT), or RESULTS_PART_UNKNOWN when several were. */
void rd_parts_kept(struct run_data *run);

#endif
