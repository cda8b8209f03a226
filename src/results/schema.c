/* schema: the results file's layout in one place, shared by the writer (writer.c), the
 * readers (reader.c, calib_h5.c) and the fuzz target: every attribute of a phase and member of
 * a record by name, offset, size, kind and the schema version that brought it; the HDF5 types
 * they map to; closing and error details. The writer and a reader cannot disagree on a name. */
#include <hdf5.h>

#include "results/results.h"

#include "config/sweep.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define RES_FIELD_SINCE(type, member, kind, since) \
	{ #member, offsetof(struct type, member), sizeof(((struct type *)0)->member), kind, since }
#define RES_FIELD(type, member, kind) RES_FIELD_SINCE(type, member, kind, 1)

/* The attributes of /phases/NNNN after the index and the sweep point's keys (sweep.h). */
static const struct results_field results_phase_rest[] = {
	RES_FIELD(phase_info, nfiles, RESULTS_U64),
	RES_FIELD(phase_info, active_readers, RESULTS_I32),
	RES_FIELD(phase_info, repetition, RESULTS_I32),
	RES_FIELD(phase_info, seed, RESULTS_U64),
	RES_FIELD(phase_info, noatime, RESULTS_I32),
	RES_FIELD(phase_info, atime_mode, RESULTS_STR),
	RES_FIELD(phase_info, mpiio_hints, RESULTS_STR),
	RES_FIELD(phase_info, process, RESULTS_STR),
	RES_FIELD(phase_info, resident_fraction, RESULTS_F64),
	RES_FIELD(phase_info, bytes, RESULTS_U64),
	RES_FIELD(phase_info, elapsed_s, RESULTS_F64),
	RES_FIELD(phase_info, bandwidth_MBps, RESULTS_F64),
	RES_FIELD(phase_info, status, RESULTS_STATUS),
	RES_FIELD_SINCE(phase_info, cache_state, RESULTS_STR, 2),
	RES_FIELD_SINCE(phase_info, cache_evict, RESULTS_STR, 2),
	RES_FIELD_SINCE(phase_info, start_skew_s, RESULTS_F64, 2),
	RES_FIELD_SINCE(phase_info, clock_bound_s, RESULTS_F64, 2),
	RES_FIELD_SINCE(phase_info, flags, RESULTS_STR, 2),
	RES_FIELD_SINCE(phase_info, provenance, RESULTS_STR, 3),
	RES_FIELD_SINCE(phase_info, hints, RESULTS_STR, 4),
	RES_FIELD_SINCE(phase_info, origin_s, RESULTS_F64, 7),
};
#define RESULTS_NREST (sizeof results_phase_rest / sizeof results_phase_rest[0])

const size_t results_nphase_attrs = 1 + SWEEP_NKEYS + RESULTS_NREST;

void results_phase_attr(size_t i, struct results_field *f)
{
	static const struct results_field index = RES_FIELD(phase_info, index, RESULTS_U32);
	static const enum results_kind kinds[] = {[SWEEP_STR] = RESULTS_STR,
						  [SWEEP_I32] = RESULTS_I32,
						  [SWEEP_U64] = RESULTS_U64};
	if (i == 0) {
		*f = index;
	} else if (i <= SWEEP_NKEYS) {
		const struct sweep_field *k = &sweep_fields[i - 1];
		*f = (struct results_field){k->name, offsetof(struct phase_info, sweep) + k->offset,
					    k->size, kinds[k->kind], k->since};
	} else {
		*f = results_phase_rest[i - 1 - SWEEP_NKEYS];
	}
}

const struct results_field results_rank_fields[] = {
	RES_FIELD(rank_rec, rank, RESULTS_I32),
	RES_FIELD(rank_rec, node, RESULTS_I32),
	RES_FIELD(rank_rec, active, RESULTS_I32),
	RES_FIELD(rank_rec, start, RESULTS_F64),
	RES_FIELD(rank_rec, end, RESULTS_F64),
	RES_FIELD(rank_rec, bytes, RESULTS_U64),
	RES_FIELD(rank_rec, files, RESULTS_U64),
	RES_FIELD(rank_rec, open_s, RESULTS_F64),
	RES_FIELD(rank_rec, read_s, RESULTS_F64),
	RES_FIELD(rank_rec, close_s, RESULTS_F64),
	RES_FIELD(rank_rec, resident_fraction, RESULTS_F64),
	RES_FIELD(rank_rec, verify_s, RESULTS_F64),
	RES_FIELD(rank_rec, io_s, RESULTS_F64),
	RES_FIELD(rank_rec, process_s, RESULTS_F64),
	RES_FIELD_SINCE(rank_rec, barrier_s, RESULTS_F64, 2),
	RES_FIELD_SINCE(rank_rec, clock_offset_s, RESULTS_F64, 2),
	RES_FIELD_SINCE(rank_rec, clock_error_s, RESULTS_F64, 2),
	RES_FIELD_SINCE(rank_rec, storage_read_bytes, RESULTS_U64, 3),
	RES_FIELD_SINCE(rank_rec, rchar, RESULTS_U64, 3),
	RES_FIELD_SINCE(rank_rec, net_rx_bytes, RESULTS_U64, 3),
	RES_FIELD_SINCE(rank_rec, counted, RESULTS_I32, 3),
	RES_FIELD_SINCE(rank_rec, peak_rss, RESULTS_U64, 3),
	RES_FIELD_SINCE(rank_rec, overlap_s, RESULTS_F64, 4),
	RES_FIELD_SINCE(rank_rec, cpu_user_s, RESULTS_F64, 6),
	RES_FIELD_SINCE(rank_rec, cpu_sys_s, RESULTS_F64, 6),
};
const size_t results_nrank_fields = sizeof results_rank_fields / sizeof results_rank_fields[0];

const struct results_field results_file_fields[] = {
	RES_FIELD(file_rec, file, RESULTS_U64),
	RES_FIELD(file_rec, rank, RESULTS_I32),
	RES_FIELD(file_rec, open_start, RESULTS_F64),
	RES_FIELD(file_rec, open_end, RESULTS_F64),
	RES_FIELD(file_rec, read_end, RESULTS_F64),
	RES_FIELD(file_rec, close_end, RESULTS_F64),
	RES_FIELD(file_rec, bytes, RESULTS_U64),
	RES_FIELD(file_rec, error, RESULTS_I32),
	RES_FIELD_SINCE(file_rec, target, RESULTS_U32, 5),
};
const size_t results_nfile_fields = sizeof results_file_fields / sizeof results_file_fields[0];

hid_t results_h5_type(enum results_kind k, int file)
{
	switch (k) {
	case RESULTS_I32:
		return file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
	case RESULTS_U32:
		return file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
	case RESULTS_U64:
		return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
	case RESULTS_F64:
		return file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
	case RESULTS_STR:
	case RESULTS_STATUS:
		break;
	}
	return -1;
}

hid_t results_compound(const struct results_field *f, size_t n, size_t size, int file)
{
	size_t packed = 0;
	for (size_t i = 0; i < n; i++)
		packed += f[i].size;
	hid_t t = H5Tcreate(H5T_COMPOUND, file ? packed : size);
	if (t < 0)
		return -1;
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		hid_t member = results_h5_type(f[i].kind, file);
		if (member < 0 || H5Tinsert(t, f[i].name, file ? at : f[i].offset, member) < 0) {
			(void)results_h5_close(t); /* already failing */
			return -1;
		}
		at += f[i].size;
	}
	return t;
}

/* The fixed-length, NUL-terminated string type of size bytes. Caller closes it. */
hid_t results_fixed_str_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
		(void)results_h5_close(t); /* already failing */
		return -1;
	}
	return t;
}

hid_t results_host_type(void)
{
	return results_fixed_str_type(RECORD_HOST_MAX);
}

/* 1 when dataset name under loc holds variable-length strings, 0 when not, -1 on error; the
 * character set into *cset. */
int results_is_vlen_str(hid_t loc, const char *name, H5T_cset_t *cset)
{
	hid_t d = H5Dopen2(loc, name, H5P_DEFAULT), t = d < 0 ? -1 : H5Dget_type(d);
	htri_t v = t < 0 ? -1 : H5Tis_variable_str(t);
	*cset = t < 0 ? H5T_CSET_ERROR : H5Tget_cset(t);
	if ((results_h5_close(t) | results_h5_close(d)) < 0 || *cset == H5T_CSET_ERROR)
		return -1;
	return v < 0 ? -1 : v > 0;
}

hid_t results_str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		(void)results_h5_close(t); /* already failing */
		return -1;
	}
	return t;
}

int results_h5_attr_single(hid_t a)
{
	hid_t s = H5Aget_space(a);
	if (s < 0)
		return 0;
	hssize_t n = H5Sget_simple_extent_npoints(s);
	return results_h5_close(s) == 0 && n == 1;
}

hid_t results_xfer_list(void **bufs)
{
	char *b = malloc(2 * RESULTS_XFER_BUF);
	hid_t list = b != NULL ? H5Pcreate(H5P_DATASET_XFER) : -1;
	if (list < 0 || H5Pset_buffer(list, RESULTS_XFER_BUF, b, b + RESULTS_XFER_BUF) < 0) {
		(void)results_h5_close(list); /* already failing */
		free(b);
		*bufs = NULL;
		return -1;
	}
	*bufs = b;
	return list;
}

int results_h5_close(hid_t id)
{
	if (id < 0)
		return 0;
	switch (H5Iget_type(id)) {
	case H5I_FILE:
		return H5Fclose(id) < 0 ? -1 : 0;
	case H5I_GROUP:
		return H5Gclose(id) < 0 ? -1 : 0;
	case H5I_DATASET:
		return H5Dclose(id) < 0 ? -1 : 0;
	case H5I_ATTR:
		return H5Aclose(id) < 0 ? -1 : 0;
	case H5I_DATATYPE:
		return H5Tclose(id) < 0 ? -1 : 0;
	case H5I_DATASPACE:
		return H5Sclose(id) < 0 ? -1 : 0;
	case H5I_GENPROP_LST:
		return H5Pclose(id) < 0 ? -1 : 0;
	default:
		return -1;
	}
}

struct detail_buf {
	char *buf;
	size_t len;
};

static herr_t detail_take(unsigned n, const H5E_error2_t *err, void *data)
{
	struct detail_buf *d = data;
	if (n == 0 && err->desc != NULL)
		snprintf(d->buf, d->len, "%s", err->desc);
	return 0;
}

void results_h5_detail(char *buf, size_t len)
{
	struct detail_buf d = {buf, len};
	if (len == 0)
		return;
	buf[0] = '\0';
	if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, detail_take, &d) < 0)
		buf[0] = '\0';
}
