/* resume: run --resume FILE continues a results file that an earlier run (another batch job,
 * maybe) left partial, interrupted, or "running" after it was killed. What it keeps must be
 * comparable with what it adds: the same config (verbatim), the same ranks on the same nodes
 * shape, and each kept phase the data set the config puts at its index. */
#include "cmd/resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "util/safe.h"
#include "util/units.h"

/* The length of the line at s (without its newline). */
static size_t resume_line_len(const char *s)
{
	const char *nl = strchr(s, '\n');
	return nl != NULL ? (size_t)(nl - s) : strlen(s);
}

int resume_text_diff(const char *a, const char *b, char *buf, size_t len)
{
	unsigned line = 1;
	while (*a != '\0' || *b != '\0') {
		size_t la = resume_line_len(a), lb = resume_line_len(b);
		if (la != lb || memcmp(a, b, la) != 0 || (*a == '\0') != (*b == '\0')) {
			snprintf(buf, len, "line %u: '%.*s' in the file, '%.*s' in the config", line,
				 (int)(la > 80 ? 80 : la), a, (int)(lb > 80 ? 80 : lb), b);
			return 1;
		}
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
		line++;
	}
	return 0;
}

/* The difference that makes the file's phases incomparable with this run's, or 0. */
static int resume_compare(const struct experiment *x, const struct topology *t, const char *path,
			  const struct results_prior *p, struct pf_err *e)
{
	char diff[512];
	if (resume_text_diff(p->config_yaml, x->yaml_text, diff, sizeof diff))
		return pf_fail(e, PF_USAGE, "%s: cannot be continued with %s: the config differs "
			       "(%s); its phases would not compare with this run's", path, x->source,
			       diff);
	if (p->nranks != t->nranks || p->nnodes != t->nnodes)
		return pf_fail(e, PF_USAGE, "%s: cannot be continued: it was run on %d rank%s over %d "
			       "node%s, this job has %d rank%s over %d node%s", path, p->nranks,
			       units_s((unsigned long long)p->nranks), p->nnodes,
			       units_s((unsigned long long)p->nnodes), t->nranks,
			       units_s((unsigned long long)t->nranks), t->nnodes,
			       units_s((unsigned long long)t->nnodes));
	if (p->node_of_rank == NULL)
		return pf_fail(e, PF_USAGE, "%s: cannot be continued: it has no topology (its run "
			       "stopped before the first phase): nothing to keep; rerun without "
			       "--resume (with --force to overwrite it)", path);
	for (int i = 0; i < t->nranks; i++)
		if (p->node_of_rank[i] != t->map.node_of_rank[i])
			return pf_fail(e, PF_USAGE, "%s: cannot be continued: rank %d was on node %d, "
				       "it is on node %d in this job (another placement of ranks)",
				       path, i, (int)p->node_of_rank[i], t->map.node_of_rank[i]);
	if (p->beyond > 0)
		return pf_fail(e, PF_USAGE, "%s: cannot be continued: %llu of its phases are not "
			       "among the %llu phases of %s", path, (unsigned long long)p->beyond,
			       (unsigned long long)p->nphases, x->source);
	for (uint64_t i = 0; i < p->nphases; i++) {
		struct plan_point pt;
		if (!p->kept[i])
			continue;
		plan_phase_at(x, i, &pt);
		if (strcmp(p->dataset[i], x->datasets[pt.dataset].name) != 0)
			return pf_fail(e, PF_USAGE, "%s: cannot be continued: its phase %llu read "
				       "data set '%s', %s puts '%s' there", path,
				       (unsigned long long)i, p->dataset[i], x->source,
				       x->datasets[pt.dataset].name);
	}
	return 0;
}

int resume_open(const struct experiment *x, const struct topology *t, const char *path,
		const struct run_meta *m, struct results **r, struct results_prior *p,
		struct pf_err *e)
{
	int rc = results_open_append(path, MPI_COMM_WORLD, plan_phase_count(x), r, p, e);
	if (rc == 0 && resume_compare(x, t, path, p, e) != 0) {
		(void)results_close(*r, NULL, NULL); /* nothing written: the file stays as it was */
		*r = NULL;
		return -1;
	}
	if (rc == 0)
		rc = results_append_begin(*r, p, m, e);
	return rc;
}

/* The job's node names, comma-separated, for its part of the results file. Caller frees. */
char *resume_hosts(const struct topology *t)
{
	size_t len = 1;
	for (int i = 0; i < t->nnodes; i++)
		len += strnlen(t->hostnames[i], RECORD_HOST_MAX) + 1;
	char *s = malloc(len), *at = s;
	for (int i = 0; s != NULL && i < t->nnodes; i++)
		at += sprintf(at, "%s%.*s", i ? "," : "", RECORD_HOST_MAX, t->hostnames[i]);
	if (s != NULL)
		*at = '\0';
	return s;
}

/* Rank 0, resuming: what the file holds and what this part will do. */
void resume_print(const char *path, const struct results_prior *p)
{
	uint64_t kept = 0, redo = 0;
	for (uint64_t i = 0; i < p->nphases; i++) {
		kept += p->kept[i];
		redo += p->present[i] && !p->kept[i];
	}
	char shown[SAFE_ROOM(CFG_PATH_MAX + 64)];
	safe_text(shown, sizeof shown, path, 0);
	printf("resuming %s (status %s%s, %llu parts so far): %llu of %llu phases kept, %llu "
	       "interrupted to redo, %llu to run\n", shown, results_run_status_name(p->status),
	       p->status == RUN_RUNNING ? ": its run ended without closing it" : "",
	       (unsigned long long)p->nparts, (unsigned long long)kept,
	       (unsigned long long)p->nphases, (unsigned long long)redo,
	       (unsigned long long)(p->nphases - kept));
	if (p->status_lost)
		fprintf(stderr, "pfsread: %s: its status attribute cannot be read (its run was "
			"killed as it rewrote it): taken as \"running\", the unreadable one kept "
			"as status-lost; the phases are kept as counted above\n", shown);
}
