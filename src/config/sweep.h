/* sweep: the sweep key table. Every key of a phase's sweep point (struct sweep_point in
 * pfsread/record.h) is declared once here: its name (the HDF5 attribute of /phases/NNNN, the
 * JSON key and the CSV column, and for a sweep list the config key under sweep:), its type and
 * place in the struct, how people see its value and a heading names it, its default, the
 * schema version that brought it, and for a sweep list how the config reads it. The config's
 * sweep lists, the phases' enumeration, the phase record, the results schema and the report's
 * keys, columns and "same cell" comparisons all work from this table.
 *
 * Adding a key: its row and enum constant here and in sweep.c, its member in struct
 * sweep_point, and for a sweep list its list in struct experiment (config.h) with an element
 * handler; then only the code that acts on it (plan, phase). */
#ifndef PFSREAD_CONFIG_SWEEP_H
#define PFSREAD_CONFIG_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "pfsread/record.h"

/* The rows of sweep_fields, in the table's order (the order of columns, headings and of the
 * phases' enumeration: the last sweep list varies fastest). */
enum sweep_key {
	SWEEP_DATASET,
	SWEEP_FILE_SIZE,
	SWEEP_READERS,
	SWEEP_BACKEND,
	SWEEP_TRANSFER,
	SWEEP_ORDER,
	SWEEP_CACHE,
	SWEEP_PATTERN,
	SWEEP_DECOMP,
	SWEEP_QDEPTH,
	SWEEP_ADVICE,
	SWEEP_NKEYS
};

enum sweep_kind { SWEEP_STR, SWEEP_I32, SWEEP_U64 };

/* How people see a value. */
enum sweep_show {
	SWEEP_AS_IS,
	SWEEP_SIZE,       /* bytes in decimal units ("67.1 MB") */
	SWEEP_SIZE_BINARY /* bytes in binary units where exact ("4 MiB") */
};

#define SWEEP_AXIS 0x1u     /* an axis of the study's table (rows: data sets, columns: readers
			     * per node): always named, never a heading's */
#define SWEEP_PART 0x2u     /* shown within the key before it ("1GB (1.07 GB files)"), no report
			     * key of its own */
#define SWEEP_BYTES 0x4u    /* a byte count: its CSV column and cell JSON key end in _B */
#define SWEEP_CSV_LATE 0x8u /* its CSV column follows the mean, min and max (where the columns of
			     * keys added later go, so that earlier columns keep their places) */
#define SWEEP_QUIET 0x10u   /* a heading names it only when it is not its default */

struct cfg_sweep_list; /* the config's side of a sweep list (sweep.c) */

struct sweep_field {
	const char *name;   /* the member of struct sweep_point, the HDF5 attribute, the JSON key,
			     * the CSV column, the config key under sweep: */
	const char *label;  /* the report's name of the key ("readers/node") */
	enum sweep_kind kind;
	size_t offset, size; /* in struct sweep_point */
	unsigned flags;     /* SWEEP_* above */
	enum sweep_show show;
	const char *format; /* how its value shows for people: "%s", or for a PART key how it shows
			     * within the key before it: " (%s files)" */
	const char *heading; /* how a summary table's heading names a value ("%s pattern"), NULL:
			      * never */
	const char *dflt;   /* the default, as text (a sweep list's when none is given) */
	int since;          /* the results schema version that brought it */
	const struct cfg_sweep_list *list; /* its sweep: list in the config, or NULL */
};

extern const struct sweep_field sweep_fields[SWEEP_NKEYS];

/* The keys whose flags have any of flags, as a mask (bits 1u << enum sweep_key). */
unsigned sweep_keys_with(unsigned flags);

/* 1 when a and b agree on every key but those in except (bits 1u << enum sweep_key). */
int sweep_same(const struct sweep_point *a, const struct sweep_point *b, unsigned except);

/* Key k of p for people, the PART keys after k folded in: "1GB (1.07 GB files)", "4", "4 MiB",
 * "sorted". Returns buf. */
char *sweep_value(const struct sweep_point *p, int k, char *buf, size_t len);

/* Key k's number (SWEEP_I32, SWEEP_U64) or string (SWEEP_STR) in p. */
uint64_t sweep_number(const struct sweep_point *p, int k);
const char *sweep_string(const struct sweep_point *p, int k);

/* A summary table's heading for p: every key with a heading, as the heading says, ", " between
 * them ("posix backend, 4 MiB transfers, sorted order, cache drop, shared pattern"). */
void sweep_heading(const struct sweep_point *p, char *buf, size_t len);

/* ---- the config's sweep lists ---- */

/* Entries of key k's list in x (1 for a key that is not a list). */
size_t cfg_sweep_count(const struct experiment *x, int k);

/* The combinations of the sweep lists: the phases of one data set and repetition. */
uint64_t cfg_sweep_cells(const struct experiment *x);

/* The list keys of p as entries at[k] of x's lists say (enum lists by their names); the keys
 * that are not lists are left as they are. */
void cfg_sweep_record(const struct experiment *x, const size_t *at, struct sweep_point *p);

#endif
