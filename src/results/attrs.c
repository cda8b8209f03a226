/* attrs: the reader's helpers for what any group of a results file holds (reader.c reads the
 * run and its phases with them, parts.c the parts): its failure message, string and numeric
 * attributes checked to be single values, the numbered members of a group in order. */
#include "results/reader_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one failure path of the reader once the file opened as HDF5. */
int rd_fail(const struct rd *c, const char *obj, const char *what)
{
	char detail[512];
	results_h5_detail(detail, sizeof detail);
	return pf_fail(c->e, PF_RUNTIME, "%s: truncated or damaged: %s: %s%s%s", c->path, obj, what,
		       detail[0] ? ": " : "", detail);
}

/* Open attribute name of loc and check it holds one value. */
static hid_t rd_attr_open(const struct rd *c, hid_t loc, const char *obj, const char *name)
{
	char what[192];
	snprintf(what, sizeof what, "attribute %s", name);
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	if (a < 0)
		return rd_fail(c, obj, what);
	if (!results_h5_attr_single(a)) {
		(void)results_h5_close(a); /* already failing */
		snprintf(what, sizeof what, "attribute %s is not a single value", name);
		return rd_fail(c, obj, what);
	}
	return a;
}

/* Control characters but newline and tab become '?': a damaged or hostile file must not
 * drive the terminal the report is printed on. */
static void rd_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 ? *s != '\n' && *s != '\t' : *s == 0x7f)
			*s = '?';
}

/* A string attribute, fixed or variable length, into *out (malloc'ed, set only on success). */
int rd_attr_str(const struct rd *c, hid_t loc, const char *obj, const char *name,
		       char **out)
{
	int rc = -1;
	char *vl = NULL, *s = NULL, what[192];
	hid_t t = -1, a = rd_attr_open(c, loc, obj, name);
	if (a < 0)
		return -1;
	snprintf(what, sizeof what, "attribute %s", name);
	t = H5Aget_type(a);
	htri_t var = t < 0 || H5Tget_class(t) != H5T_STRING ? -1 : H5Tis_variable_str(t);
	size_t size = var == 0 ? H5Tget_size(t) : 0;
	if (var < 0 || (var == 0 && size == 0)) {
		snprintf(what, sizeof what, "attribute %s is not a string", name);
		rd_fail(c, obj, what);
		goto out;
	}
	if (var == 0 && (s = calloc(size + 1, 1)) == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading %s %s", c->path, obj, what);
		goto out;
	}
	if (H5Aread(a, t, var ? (void *)&vl : (void *)s) < 0) {
		rd_fail(c, obj, what);
		goto out;
	}
	if (var && (s = strdup(vl ? vl : "")) == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading %s %s", c->path, obj, what);
		goto out;
	}
	rd_printable(s);
	rc = 0;
out:
	if (((vl != NULL && H5free_memory(vl) < 0) | results_h5_close(t) | results_h5_close(a)) &&
	    rc == 0)
		rc = rd_fail(c, obj, what);
	if (rc == 0)
		*out = s;
	else
		free(s);
	return rc;
}

/* A numeric attribute into dst, converted by HDF5 to the native type of kind. */
int rd_attr_num(const struct rd *c, hid_t loc, const char *obj, const char *name,
		       enum results_kind kind, void *dst)
{
	char what[192];
	hid_t a = rd_attr_open(c, loc, obj, name);
	if (a < 0)
		return -1;
	snprintf(what, sizeof what, "attribute %s", name);
	int rc = H5Aread(a, results_h5_type(kind, 0), dst) < 0 ? rd_fail(c, obj, what) : 0;
	if (results_h5_close(a) < 0 && rc == 0)
		rc = rd_fail(c, obj, what);
	return rc;
}

static int rd_name_cmp(const void *a, const void *b)
{
	const struct rd_name *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

struct rd_names {
	const struct rd *c;
	struct rd_name *names;
	size_t n, room;
	int failed; /* a member was refused (the message is in c->e) */
};

/* One member of /phases: its name, checked to be a number. */
static herr_t rd_phase_name(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
	struct rd_names *l = data;
	char *end = NULL;
	(void)g;
	(void)info;
	l->failed = 1;
	if (l->n == l->room)
		return rd_fail(l->c, "/phases", "more members than it listed");
	struct rd_name *nm = &l->names[l->n];
	if (name[0] == '\0' || strlen(name) >= sizeof nm->name || name[0] == '-')
		return rd_fail(l->c, "/phases", "a member's name is not a phase number");
	strcpy(nm->name, name);
	nm->index = strtoul(nm->name, &end, 10);
	if (*end != '\0')
		return rd_fail(l->c, "/phases", "a member's name is not a phase number");
	l->n++;
	l->failed = 0;
	return 0;
}

/* The names of /phases's members, checked to be numbers, in numeric order. One pass over the
 * links (H5Lget_name_by_idx by name order rebuilds and sorts the group's whole link table on
 * every call: quadratic in phases). */
int rd_phase_names(const struct rd *c, hid_t g, struct rd_name **names, size_t *n)
{
	H5G_info_t gi;
	hsize_t idx = 0;
	if (H5Gget_info(g, &gi) < 0)
		return rd_fail(c, "/phases", "cannot list");
	struct rd_names l = {c, NULL, 0, (size_t)gi.nlinks, 0};
	*n = 0;
	*names = NULL;
	if (l.room == 0)
		return 0;
	if ((l.names = calloc(l.room, sizeof *l.names)) == NULL)
		return pf_fail_errno(c->e, ENOMEM, "%s: listing /phases", c->path);
	*names = l.names; /* the caller frees it, also on failure */
	herr_t rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, rd_phase_name, &l);
	if (rc < 0)
		return l.failed ? -1 : rd_fail(c, "/phases", "cannot list");
	if (l.n != l.room)
		return rd_fail(c, "/phases", "fewer members than it listed");
	*n = l.n;
	qsort(l.names, l.n, sizeof *l.names, rd_name_cmp);
	return 0;
}

