/* plan_estimate: how long each phase and the whole study will take, before it runs, and
 * whether one batch job holds it (see the header for the sources, in order of preference). */
#include "cmd/plan_estimate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/ceiling.h"
#include "results/calib.h"
#include "results/results.h"
#include "run/budget.h"
#include "util/units.h"
#include "util/safe.h"

#define PE_NOTE 512

/* Seconds between two "2026-12-01T22:00:00Z" stamps, or -1. */
static double pe_span(const char *a, const char *b)
{
	struct tm ta, tb;
	memset(&ta, 0, sizeof ta);
	memset(&tb, 0, sizeof tb);
	if (a == NULL || b == NULL || strptime(a, "%Y-%m-%dT%H:%M:%SZ", &ta) == NULL ||
	    strptime(b, "%Y-%m-%dT%H:%M:%SZ", &tb) == NULL)
		return -1;
	return difftime(timegm(&tb), timegm(&ta));
}

/* A run's cost per phase beyond its reads (cache preparation, barriers, the results write),
 * from its parts' start and end against the phases' elapsed_s. 0 when it cannot be told. */
static double pe_overhead(const struct run_data *r)
{
	double wall = 0, reads = 0;
	uint64_t n = 0;
	for (size_t i = 0; i < r->nparts; i++) {
		double s = pe_span(r->parts[i].start_time, r->parts[i].end_time);
		if (s < 0 || r->parts[i].phases_written == 0)
			continue;
		wall += s;
		n += r->parts[i].phases_written;
	}
	for (size_t i = 0; i < r->nphases; i++)
		reads += r->phases[i].info.elapsed_s;
	if (n == 0 || r->nphases == 0)
		return 0;
	double per = wall / (double)n - reads / (double)r->nphases;
	return per > 0 ? per : 0;
}

/* A job id as the batch system prints it (digits, letters, dots, brackets, dashes), so that
 * it can stand in a command line unquoted. */
static int pe_job_id_ok(const char *id)
{
	if (id == NULL || *id == '\0' || strlen(id) > 64)
		return 0;
	for (const char *p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-[]@", *p))
			return 0;
	return 1;
}

/* What command prints (its first len - 1 bytes), or -1 when it cannot be run or fails (the
 * commands are bounded by timeout: a scheduler that does not answer leaves the limit unknown). */
static int pe_command_text(const char *command, char *buf, size_t len)
{
	FILE *f = popen(command, "r");
	size_t n = 0, got;
	if (f == NULL)
		return -1;
	while (n + 1 < len && (got = fread(buf + n, 1, len - 1 - n, f)) > 0)
		n += got;
	buf[n] = '\0';
	char rest[256];
	while (fread(rest, 1, sizeof rest, f) > 0) /* the end of a long text: not needed */
		;
	return pclose(f) == 0 && n > 0 ? 0 : -1;
}

/* The job's time limit in seconds and where it came from: --walltime, else what is left of
 * this Slurm job (squeue's %L, else SLURM_JOB_END_TIME) or PBS job (qstat -f: the walltime
 * limit less what was used), else 0 (unknown: not inside a job). */
static double pe_walltime(double given, char *src, size_t len)
{
	char cmd[128], out[16384];
	const char *slurm = getenv("SLURM_JOB_ID"), *pbs = getenv("PBS_JOBID");
	const char *end = getenv("SLURM_JOB_END_TIME");
	double left;
	snprintf(src, len, "--walltime");
	if (given > 0)
		return given;
	if (pe_job_id_ok(slurm)) {
		snprintf(cmd, sizeof cmd, "timeout 20 squeue -h -j %s -o %%L 2>/dev/null", slurm);
		snprintf(src, len, "the time left of Slurm job %s", slurm);
		if (pe_command_text(cmd, out, sizeof out) == 0 && budget_parse_hms(out, &left) == 0)
			return left;
		if (end != NULL && *end != '\0' && (left = strtod(end, NULL) - (double)time(NULL)) > 0)
			return left;
	}
	if (pe_job_id_ok(pbs)) {
		snprintf(cmd, sizeof cmd, "timeout 20 qstat -f %s 2>/dev/null", pbs);
		snprintf(src, len, "the time left of PBS job %s", pbs);
		if (pe_command_text(cmd, out, sizeof out) == 0 && budget_pbs_left(out, &left) == 0)
			return left;
	}
	return 0;
}

/* The total against the job's limit: the --time a single job needs, or the chained jobs of
 * the shipped scripts (each job as long as this one). */
static void pe_warn(double total, double walltime)
{
	char src[128], t[32], lim[32];
	double limit = pe_walltime(walltime, src, sizeof src);
	if (!(limit > 0))
		return;
	units_format_duration(total, t, sizeof t);
	units_format_duration(limit, lim, sizeof lim);
	if (total <= limit - budget_margin(limit)) {
		printf("estimate: fits the job's %s (%s)\n", lim, src);
		return;
	}
	long h;
	int m;
	budget_one_job(total, &h, &m);
	unsigned long long jobs = budget_chain_jobs(total, limit);
	printf("warning: the study needs about %s, more than the job's %s (%s): one job needs "
	       "--time=%ld:%02d:00 (-l walltime=%ld:%02d:00, with 25%% to spare)", t, lim, src, h, m,
	       h, m);
	if (jobs > 0)
		printf(", or the job scripts' --chain %llu: %llu chained jobs of %s (run "
		       "--time-budget, --resume)", jobs, jobs, lim);
	printf("\n");
}

/* One line per phase, then the total; the warning. */
static void pe_print(const struct experiment *x, const double *est, double total,
		     uint64_t unknown, double walltime)
{
	char t[32];
	uint64_t n = plan_phase_count(x);
	for (uint64_t i = 0; i < n; i++) {
		if (est[i] < 0)
			printf("estimate phase %llu: unknown\n", (unsigned long long)i);
		else
			printf("estimate phase %llu: %s\n", (unsigned long long)i,
			       units_format_duration(est[i], t, sizeof t));
	}
	printf("estimate: %s in all for %llu phase%s%s\n",
	       units_format_duration(total, t, sizeof t), (unsigned long long)n, units_s(n), unknown ? " (some unknown: not counted)" : "");
	pe_warn(total, walltime);
}

/* From the phases of a results file (a pilot, or a study's first parts), with the model of
 * run --time-budget (budget.c), plus the file's cost per phase beyond its reads. */
static int pe_from_results(const struct experiment *x, const struct plan_est_opts *o,
			   double *est, double *total, uint64_t *unknown, struct pf_err *e)
{
	const char *from = o->from;
	struct run_data r;
	if (results_read(from, &r, e) != 0)
		return -1;
	struct budget_phase *done = calloc(r.nphases + 1, sizeof *done);
	if (done == NULL) {
		results_free(&r);
		return pf_fail(e, PF_RUNTIME, "plan: out of memory");
	}
	double over = pe_overhead(&r);
	size_t n = 0;
	for (size_t i = 0; i < r.nphases; i++)
		for (size_t d = 0; d < x->ndatasets; d++)
			if (strcmp(r.phases[i].info.sweep.dataset, x->datasets[d].name) == 0 &&
			    r.phases[i].info.status == PHASE_COMPLETE)
				done[n++] = (struct budget_phase){(uint32_t)d, r.phases[i].info.bytes,
								  r.phases[i].info.nfiles,
								  r.phases[i].info.elapsed_s};
	uint64_t count = plan_phase_count(x);
	for (uint64_t i = 0; i < count; i++) {
		struct plan_point p;
		plan_phase_at(x, i, &p);
		const struct cfg_dataset *d = &x->datasets[p.dataset];
		est[i] = budget_estimate(done, n, p.dataset, d->total_size, d->nfiles);
		if (est[i] >= 0) /* per phase, not per byte: a pilot's sample would scale it */
			est[i] += over;
		*unknown += est[i] < 0;
		*total += est[i] > 0 ? est[i] : 0;
	}
	char per[32], files[64], shown[SAFE_ROOM(CFG_PATH_MAX)];
	if (o->pilot_files > 0)
		snprintf(files, sizeof files, "%llu file%s per phase",
			 (unsigned long long)o->pilot_files, units_s(o->pilot_files));
	else
		snprintf(files, sizeof files, "2 files per reader, at least 8 per phase");
	if (o->pilot)
		printf("estimate: from a pilot of %s (the first of each reader's share, every "
		       "phase once): assumes the rest of each phase reads as its sample did\n",
		       files);
	printf("estimate: from %zu complete phase%s of %s: each phase as the slowest timed one of "
	       "its data set (else of the nearest mean file size), scaled by bytes, plus %s per "
	       "phase beyond the reads\n", n, units_s(n), safe_text(shown, sizeof shown, from, 0),
	       units_format_duration(over, per, sizeof per));
	free(done);
	results_free(&r);
	return 0;
}

/* "what figure MB/s" appended to note when the figure is known. */
static void pe_note(char *note, const char *what, double v)
{
	size_t used = strlen(note);
	if (v > 0 && isfinite(v) && used + 1 < PE_NOTE)
		snprintf(note + used, PE_NOTE - used, "%s%s %.6g MB/s", used ? ", " : "", what, v);
}

/* The hardware: the calibration's measured figures first, the config's hardware: for the rest
 * (and for what calibration does not measure: servers, racks). */
static int pe_hardware(const struct experiment *x, const char *calibration, struct ceil_hw *hw,
		       char *note, struct pf_err *e)
{
	const struct cfg_hardware *d = &x->hw;
	struct calib_data c;
	memset(hw, 0, sizeof *hw);
	ceil_hw_declared(hw, d);
	note[0] = '\0';
	if (calibration != NULL) {
		if (calib_read(calibration, &c, e) != 0)
			return -1;
		if (isfinite(c.disk_MBps) && c.disk_MBps > 0)
			hw->node_disk_MBps = c.disk_MBps;
		if (isfinite(c.link_MBps) && c.link_MBps > 0)
			hw->node_link_MBps = c.link_MBps;
		if (isfinite(c.memcpy_MBps) && c.memcpy_MBps > 0)
			hw->node_memcpy_MBps = c.memcpy_MBps;
		if (isfinite(c.fs_read_MBps) && c.fs_read_MBps > 0) { /* calibrate --through-fs */
			hw->node_fsread_MBps = c.fs_read_MBps;
			hw->node_fsread_readers = c.fs_readers;
		}
		snprintf(note, PE_NOTE, "calibration %s (mean of %d node%s)", calibration, c.nnodes,
			 c.nnodes == 1 ? "" : "s");
		calib_free(&c);
	}
	if (x->hw.given)
		snprintf(note + strlen(note), PE_NOTE - strlen(note), "%sthe config's hardware: section",
			 note[0] ? " and " : "");
	char figures[PE_NOTE] = "";
	pe_note(figures, "node disk", hw->node_disk_MBps);
	pe_note(figures, "node link", hw->node_link_MBps);
	pe_note(figures, "one reader", hw->reader_MBps);
	pe_note(figures, "node read through the file system", hw->node_fsread_MBps);
	pe_note(figures, "server disk", hw->server_disk_MBps);
	pe_note(figures, "server link", hw->server_link_MBps);
	pe_note(figures, "rack uplinks", hw->rack_uplink_MBps);
	pe_note(figures, "node client read", hw->node_client_MBps);
	snprintf(note + strlen(note), PE_NOTE - strlen(note), " (%s)", figures);
	return 0;
}

/* Each phase at its ceiling (report/ceiling.c), read from storage (cold): the least time it
 * could take; small files cost more than their bytes, which no figure here says. */
static int pe_from_hardware(const struct experiment *x, const struct topo_map *t,
			    const char *calibration, double *est, double *total,
			    uint64_t *unknown, struct pf_err *e)
{
	struct ceil_hw hw;
	char note[PE_NOTE], shown[SAFE_ROOM(PE_NOTE)];
	if (pe_hardware(x, calibration, &hw, note, e) != 0)
		return -1;
	uint64_t count = plan_phase_count(x);
	const char *limit = NULL;
	for (uint64_t i = 0; i < count; i++) {
		struct plan_point p;
		struct ceil_result r;
		plan_phase_at(x, i, &p);
		int rpn = x->readers_per_node[p.at[SWEEP_READERS]];
		struct ceil_point cp = {t->nnodes, (int)plan_reader_count(t, rpn), t->nnodes, 0};
		ceiling_compute(&hw, &cp, &r);
		est[i] = r.limit >= 0 ? budget_rate_time(x->datasets[p.dataset].total_size, r.MBps)
				      : -1;
		if (r.limit >= 0 && limit == NULL)
			limit = r.term[r.limit].resource;
		*unknown += est[i] < 0;
		*total += est[i] > 0 ? est[i] : 0;
	}
	printf("estimate: from %s: each phase read from storage at its ceiling (first limit: %s), "
	       "so the least it could take; per-file costs are not in these figures\n",
	       safe_text(shown, sizeof shown, note, 0),
	       limit != NULL ? limit : "none known");
	return 0;
}

int plan_estimate(const struct experiment *x, const struct topo_map *t,
		  const struct plan_est_opts *o, struct pf_err *e)
{
	uint64_t n = plan_phase_count(x), unknown = 0;
	double total = 0;
	int rc;
	if (o->from == NULL && o->calibration == NULL && !x->hw.given) {
		printf("estimate: none (give --from RESULTS, a pilot's or a study's first parts; "
		       "--calibration FILE; or a hardware: section)\n");
		return 0;
	}
	double *est = calloc(n + 1, sizeof *est);
	if (est == NULL)
		return pf_fail(e, PF_RUNTIME, "plan: out of memory");
	if (o->from != NULL)
		rc = pe_from_results(x, o, est, &total, &unknown, e);
	else
		rc = pe_from_hardware(x, t, o->calibration, est, &total, &unknown, e);
	if (rc == 0)
		pe_print(x, est, total, unknown, o->walltime);
	free(est);
	return rc;
}
