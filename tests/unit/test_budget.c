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

int main(void)
{
	test_progress_line();
	test_estimate();
	test_allows();
	test_diff();
	return tap_done();
}
