/* parts: the runs that wrote a results file (/parts/NNNN, one per job of a study resumed over
 * several), read for the report; and how many phases a part whose run was killed left. */
#include "results/reader_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A string attribute of a part, or "" when its run ended before writing it. */
static int rd_part_str(const struct rd *c, hid_t g, const char *obj, const char *name, char **out)
{
	htri_t has = H5Aexists(g, name);
	if (has < 0)
		return rd_fail(c, obj, "cannot list its attributes");
	if (has)
		return rd_attr_str(c, g, obj, name, out);
	return (*out = strdup("")) ? 0 : pf_fail_errno(c->e, ENOMEM, "%s: reading %s", c->path, obj);
}

static int rd_part(const struct rd *c, hid_t parts, const char *name, struct run_part *pt)
{
	char obj[64];
	int rc = -1;
	hid_t g = (snprintf(obj, sizeof obj, "/parts/%s", name), H5Gopen2(parts, name, H5P_DEFAULT));
	char **s[] = {&pt->start_time, &pt->end_time, &pt->job_id, &pt->hosts, &pt->command_line,
		      &pt->status};
	if (g < 0) { /* a run killed as it began it (link written, group not): "unreadable" */
		for (size_t i = 0; i < 6; i++)
			if ((*s[i] = strdup(i < 5 ? "" : "unreadable")) == NULL)
				return pf_fail_errno(c->e, ENOMEM, "%s: %s", c->path, obj);
		return 0;
	}
	static const char *const nm[] = {"start_time", "end_time", "job_id", "hosts",
					 "command_line", "status"};
	for (size_t i = 0; i < 6 && (rc = rd_part_str(c, g, obj, nm[i], s[i])) == 0;)
		i++;
	pt->phases_count = RESULTS_PART_UNKNOWN; /* until rd_parts_kept, if it has no count */
	if (rc == 0 && H5Aexists(g, "phases_written") > 0) {
		rc = rd_attr_num(c, g, obj, "phases_written", RESULTS_U32, &pt->phases_written);
		pt->phases_count = RESULTS_PART_WRITTEN;
	}
	if (results_h5_close(g) < 0 && rc == 0)
		rc = rd_fail(c, obj, "cannot close");
	return rc;
}

/* /parts, when the file has it (written since run --resume exists). */
int rd_parts(const struct rd *c, hid_t file)
{
	struct rd_name *names = NULL;
	size_t n = 0;
	int rc = -1;
	htri_t has = H5Lexists(file, "/parts", H5P_DEFAULT);
	hid_t g = has > 0 ? H5Gopen2(file, "/parts", H5P_DEFAULT) : -1;
	if (g < 0)
		return has == 0 ? 0 : rd_fail(c, "/parts", "cannot open");
	if (rd_phase_names(c, g, &names, &n) < 0)
		goto out;
	if (n && (c->run->parts = calloc(n, sizeof *c->run->parts)) == NULL) {
		pf_fail_errno(c->e, ENOMEM, "%s: reading /parts", c->path);
		goto out;
	}
	c->run->nparts = n;
	for (size_t i = 0; i < n; i++)
		if (rd_part(c, g, names[i].name, &c->run->parts[i]) < 0)
			goto out;
	rc = 0;
out:
	free(names);
	if (results_h5_close(g) < 0 && rc == 0)
		rc = rd_fail(c, "/parts", "cannot close");
	return rc;
}

/* A part whose run was killed wrote no count: when it is the only one, its phases are those in
 * the file that the other parts did not count (a phase redone by a later part is counted by
 * that part). */
void rd_parts_kept(struct run_data *run)
{
	uint64_t counted = 0;
	size_t uncounted = 0;
	for (size_t i = 0; i < run->nparts; i++) {
		if (run->parts[i].phases_count == RESULTS_PART_WRITTEN)
			counted += run->parts[i].phases_written;
		else
			uncounted++;
	}
	for (size_t i = 0; uncounted == 1 && i < run->nparts; i++) {
		struct run_part *pt = &run->parts[i];
		if (pt->phases_count == RESULTS_PART_WRITTEN)
			continue;
		uint64_t left = run->nphases > counted ? run->nphases - counted : 0;
		pt->phases_written = left < UINT32_MAX ? (uint32_t)left : UINT32_MAX;
		pt->phases_count = RESULTS_PART_KEPT;
	}
}

