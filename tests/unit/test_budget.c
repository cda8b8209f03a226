/* test_budget: the time budget's estimates and test (run/budget.c), and the line resume names
 * when a config differs (cmd/resume.c). */
#include <math.h>
#include <string.h>

#include "cmd/resume.h"
#include "run/budget.h"
#include "run/progress.h"
#include "tap.h"

static void test_estimate(void)
{
	struct budget_phase done[] = {
		{0, 1000000000, 10, 10.0},   /* big files: 100 MB/s */
		{0, 1000000000, 10, 12.0},   /* the same data set, slower */
		{1, 100000000, 100000, 50.0}, /* small files: 2 MB/s, 0.5 ms a file */
	};
	ok(budget_estimate(done, 0, 0, 1, 1) == -1, "nothing timed: unknown (-1)");
	ok(fabs(budget_estimate(done, 3, 0, 2000000000, 20) - 24.0) < 1e-9,
	   "same data set: the slowest of its phases, scaled by bytes (24 s)");
	ok(fabs(budget_estimate(done, 3, 1, 100000000, 100000) - 50.0) < 1e-9,
	   "small files: their own phase (50 s)");
	/* a data set never timed, of 1 kB files: nearest is data set 1 (1 kB mean), not 0 */
	ok(fabs(budget_estimate(done, 3, 7, 50000000, 50000) - 25.0) < 1e-9,
	   "an untimed data set takes the nearest mean file size (25 s)");
	ok(fabs(budget_estimate(done, 3, 8, 500000000, 5) - 6.0) < 1e-9,
	   "large files take the large files' slowest cost per byte (6 s)");
}

static void test_allows(void)
{
	ok(budget_margin(100) == 5 && budget_margin(10) == 2 && budget_margin(100000) == 300,
	   "margin: 5%%, at least 2 s, at most 300 s");
	ok(budget_allows(0, 1e9, 1e9), "no budget: always");
	ok(budget_allows(100, 50, 45), "50 + 45 <= 95: starts");
	ok(!budget_allows(100, 50, 46), "50 + 46 > 95: not started");
	ok(budget_allows(100, 94, -1), "unknown estimate, time left before the margin: starts");
	ok(!budget_allows(100, 95, -1), "unknown estimate, inside the margin: not started");
}

static void test_diff(void)
{
	char buf[256];
	ok(resume_text_diff("a\nb\n", "a\nb\n", buf, sizeof buf) == 0, "equal texts");
	ok(resume_text_diff("a\nb\n", "a\nc\n", buf, sizeof buf) == 1 &&
		   strcmp(buf, "line 2: 'b' in the file, 'c' in the config") == 0,
	   "the first differing line: %s", buf);
	ok(resume_text_diff("a\n", "a\nx\n", buf, sizeof buf) == 1 &&
		   strcmp(buf, "line 2: '' in the file, 'x' in the config") == 0,
	   "a line more: %s", buf);
	ok(resume_text_diff("a", "a\n", buf, sizeof buf) == 0, "a missing last newline is no difference");
}

static void test_progress_line(void)
{
	char buf[512];
	progress_format(buf, sizeof buf, "phase 2/4 a x 2 r/node", 50000000, 5, 100000000, 10,
			25e6, 2.0, 200000000, 0);
	ok(strcmp(buf, "progress: phase 2/4 a x 2 r/node: 50 MB of 100 MB (50%), 5 of 10 "
		       "files, 25.0 MB/s now, ETA 2.00 s, study ETA 10.0 s") == 0,
	   "the line: %s", buf);
	progress_format(buf, sizeof buf, "x", 0, 0, 100, 1, 0, 1.0, 0, 0);
	ok(strstr(buf, "ETA ?, study ETA ?") != NULL, "nothing read yet: ETAs unknown: %s", buf);
}


/* qstat -f of a running PBS Pro job (shape as PBS prints it: four spaces, continuation lines
 * indented by a tab). */
static const char *const qstat_running =
	"Job Id: 4242.pbs01\n"
	"    Job_Name = pfsread\n"
	"    Job_Owner = alice@login1\n"
	"    resources_used.cpupercent = 190\n"
	"    resources_used.cput = 00:20:31\n"
	"    resources_used.mem = 1832kb\n"
	"    resources_used.walltime = 00:10:05\n"
	"    job_state = R\n"
	"    queue = workq\n"
	"    Resource_List.ncpus = 8\n"
	"    Resource_List.nodect = 2\n"
	"    Resource_List.select = 2:ncpus=4\n"
	"    Resource_List.walltime = 02:00:00\n"
	"    Resource_List.walltime_min = 00:30:00\n"
	"    Variable_List = PBS_O_HOME=/home/alice,PBS_O_LANG=C,PBS_O_PATH=/usr/bin:/bin,\n"
	"\tPBS_O_WORKDIR=/home/alice\n";

static void test_schedulers(void)
{
	double s = 0;
	ok(budget_parse_hms("02:00:00", &s) == 0 && s == 7200, "HH:MM:SS (2 h)");
	ok(budget_parse_hms("59:30", &s) == 0 && s == 3570, "MM:SS");
	ok(budget_parse_hms("45", &s) == 0 && s == 45, "SS");
	ok(budget_parse_hms("1-00:00:10", &s) == 0 && s == 86410, "D-HH:MM:SS");
	ok(budget_parse_hms("2-12", &s) == 0 && s == 2 * 86400 + 12 * 3600, "D-HH");
	ok(budget_parse_hms("1-01:02", &s) == 0 && s == 86400 + 3600 + 120, "D-HH:MM");
	ok(budget_parse_hms("  1:00:00\n", &s) == 0 && s == 3600, "squeue's padding and newline");
	ok(budget_parse_hms("UNLIMITED", &s) == -1, "UNLIMITED: no limit (-1)");
	ok(budget_parse_hms("INVALID", &s) == -1 && budget_parse_hms("", &s) == -1 &&
	   budget_parse_hms("1:2:3:4", &s) == -1 && budget_parse_hms("1:x", &s) == -1,
	   "garbage refused");
	ok(budget_pbs_left(qstat_running, &s) == 0 && s == 7200 - 605,
	   "PBS: Resource_List.walltime less resources_used.walltime (1 h 49 min 55 s)");
	ok(budget_pbs_left("Job Id: 1.x\n    Resource_List.walltime = 00:30:00\n", &s) == 0 &&
	   s == 1800, "PBS: a queued job (nothing used yet) has its whole limit");
	ok(budget_pbs_left("Job Id: 1.x\n    Resource_List.walltime_min = 00:30:00\n", &s) == -1,
	   "PBS: walltime_min is not the limit; no limit: -1");
	ok(budget_pbs_left("Job Id: 1.x\n    resources_used.walltime = 03:00:00\n"
			   "    Resource_List.walltime = 02:00:00\n", &s) == 0 && s == 0,
	   "PBS: past its limit: nothing left");
}

static void test_jobs(void)
{
	long h = 0;
	int m = 0;
	ok(fabs(budget_rate_time(500000000, 100) - 5.0) < 1e-12, "500 MB at 100 MB/s: 5 s");
	ok(budget_rate_time(1, 0) == -1 && budget_rate_time(1, NAN) == -1, "no rate: unknown");
	/* a 1 h job keeps 180 s of margin and 60 s of start-up: 3360 s of phases */
	ok(budget_chain_jobs(3360, 3600) == 1, "what fits one job's usable time: 1 job");
	ok(budget_chain_jobs(3361, 3600) == 2, "a second more: 2 jobs");
	ok(budget_chain_jobs(86400, 7200) == 13, "a day in 2 h jobs (6780 s each): 13 jobs");
	ok(budget_chain_jobs(100, 30) == 0, "a job too short for anything: 0");
	budget_one_job(86400, &h, &m);
	ok(h == 30 && m == 0, "a day with a quarter to spare: 30:00");
	budget_one_job(61, &h, &m);
	ok(h == 0 && m == 2, "61 s: 2 minutes (76 s, rounded up)");
}

int main(void)
{
	test_progress_line();
	test_estimate();
	test_allows();
	test_diff();
	test_schedulers();
	test_jobs();
	return tap_done();
}
