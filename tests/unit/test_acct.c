/* test_acct: a rank's wall time in open, read and close from hand-made file records. One file
 * after another: the per-file sums, no overlap. Files in flight together (the uring case):
 * each instant counted once, read before open before close, the parts adding up to the busy
 * wall time and the excess of the sums reported as overlap; gaps between files count nowhere;
 * records with times not finite are left out. */
#include <math.h>
#include <string.h>

#include "run/acct.h"
#include "tap.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static struct file_rec rec(double os, double oe, double re, double ce)
{
	struct file_rec r;
	memset(&r, 0, sizeof r);
	r.open_start = os, r.open_end = oe, r.read_end = re, r.close_end = ce;
	return r;
}

static void test_serial(void)
{
	/* open 0.1, read 1, close 0.2; a gap of 0.5; open 0.2, read 2, close 0.1 */
	struct file_rec f[] = {rec(0, 0.1, 1.1, 1.3), rec(1.8, 2.0, 4.0, 4.1)};
	struct acct a;
	ok(acct_rank(f, 2, &a) == 0, "serial: accounted");
	ok(NEAR(a.open_s, 0.3) && NEAR(a.read_s, 3.0) && NEAR(a.close_s, 0.3) && a.overlap_s == 0,
	   "serial: the per-file sums (open %g read %g close %g overlap %g)", a.open_s, a.read_s,
	   a.close_s, a.overlap_s);
	ok(acct_rank(f, 0, &a) == 0 && a.open_s == 0 && a.read_s == 0 && a.overlap_s == 0,
	   "no files: all zero");
}

static void test_overlap(void)
{
	/* Three files in flight at once, as a pipeline issues them: all opened over [0, 0.1), read
	 * over [0.1, 3), each closed over [3, 3.2). The sums: open 0.3, read 8.7, close 0.6 = 9.6;
	 * the wall time: 0.1 + 2.9 + 0.2 = 3.2. */
	struct file_rec f[] = {rec(0, 0.1, 3, 3.2), rec(0, 0.1, 3, 3.2), rec(0, 0.1, 3, 3.2)};
	struct acct a;
	ok(acct_rank(f, 3, &a) == 0, "overlap: accounted");
	ok(NEAR(a.open_s, 0.1) && NEAR(a.read_s, 2.9) && NEAR(a.close_s, 0.2),
	   "overlap: each instant once (open %g read %g close %g)", a.open_s, a.read_s, a.close_s);
	ok(NEAR(a.overlap_s, 9.6 - 3.2), "overlap: the sums' excess apart (%g)", a.overlap_s);
	/* Staggered: file 2 is opened while file 1 is read (the open is hidden: read wins), and
	 * file 1 is closed while file 2 is read (hidden too). File 1: open [0,1) read [1,3) close
	 * [3,3.5); file 2: open [2,2.5) read [2.5,5) close [5,6). Wall: open [0,1) = 1; read [1,5)
	 * = 4; close [5,6) = 1; sums 1+2+0.5 + 0.5+2.5+1 = 7.5, wall 6, overlap 1.5. */
	struct file_rec g[] = {rec(0, 1, 3, 3.5), rec(2, 2.5, 5, 6)};
	int rc = acct_rank(g, 2, &a);
	ok(rc == 0 && NEAR(a.open_s, 1) && NEAR(a.read_s, 4) &&
		   NEAR(a.close_s, 1) && NEAR(a.overlap_s, 1.5),
	   "staggered: read hides open and close (open %g read %g close %g overlap %g)", a.open_s,
	   a.read_s, a.close_s, a.overlap_s);
	/* a gap while nothing is in flight counts nowhere */
	struct file_rec h[] = {rec(0, 0, 1, 1), rec(0.5, 0.5, 1, 1), rec(3, 3, 4, 4)};
	rc = acct_rank(h, 3, &a);
	ok(rc == 0 && NEAR(a.read_s, 2) && NEAR(a.overlap_s, 0.5),
	   "gap between files: not counted (read %g overlap %g)", a.read_s, a.overlap_s);
}

static void test_unfinished(void)
{
	/* a file that failed before its read ended: read_end and close_end not finite */
	struct file_rec f[] = {rec(0, 0.5, 2, 2.5), rec(0.2, 0.4, NAN, NAN)};
	struct acct a;
	int rc = acct_rank(f, 2, &a);
	ok(rc == 0 && NEAR(a.read_s, 1.5) && NEAR(a.open_s, 0.5) &&
		   NEAR(a.close_s, 0.5) && NEAR(a.overlap_s, 0.2),
	   "a step with a time not finite is left out (open %g read %g close %g overlap %g)",
	   a.open_s, a.read_s, a.close_s, a.overlap_s);
}

int main(void)
{
	test_serial();
	test_overlap();
	test_unfinished();
	return tap_done();
}
