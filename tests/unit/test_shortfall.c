/* test_shortfall: what the report says of a cold cell below its ceiling, on hand-made cells:
 * nothing at or near the ceiling or for a warm cell, the read path's likely cause where one is
 * known (mmap on a network or FUSE mount, MADV_SEQUENTIAL on FUSE, collective MPI-IO's lock
 * step, O_DIRECT with small transfers), and a sibling read path that reached the
 * ceiling as proof that the read path is the cause. */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "tap.h"

static struct report_cell cell(const char *backend, const char *advice, const char *pattern,
			       double efficiency)
{
	struct report_cell c;
	memset(&c, 0, sizeof c);
	snprintf(c.sweep.dataset, sizeof c.sweep.dataset, "%s", "small");
	c.sweep.file_size = 16u << 20;
	c.sweep.readers_per_node = 1;
	snprintf(c.sweep.backend, sizeof c.sweep.backend, "%s", backend);
	snprintf(c.sweep.advice, sizeof c.sweep.advice, "%s", advice);
	snprintf(c.sweep.pattern, sizeof c.sweep.pattern, "%s", pattern);
	snprintf(c.sweep.order, sizeof c.sweep.order, "sorted");
	snprintf(c.sweep.cache, sizeof c.sweep.cache, "drop");
	snprintf(c.sweep.decomposition, sizeof c.sweep.decomposition, "block");
	c.sweep.transfer_size = 4u << 20;
	c.sweep.queue_depth = 1;
	c.state = CACHE_COLD;
	c.n = 3;
	c.readers = c.reader_nodes = 2;
	c.ceiling_MBps = 95.8;
	snprintf(c.limit, sizeof c.limit, "reader links");
	c.efficiency = efficiency;
	c.mean_MBps = efficiency * c.ceiling_MBps;
	return c;
}

static const struct report_fs fuse = {1, 1}, nfs = {1, 0}, local = {0, 0};

static void test_nothing_said(void)
{
	struct report_cell c = cell("posix", "sequential", "per-reader", 0.95);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(c.shortfall[0] == '\0' && c.cause[0] == '\0', "95%% of the ceiling: nothing said");
	c = cell("mmap", "none", "per-reader", 0.90);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(c.shortfall[0] == '\0', "exactly 90%%: nothing said");
	c = cell("mmap", "none", "per-reader", 0.5);
	c.state = CACHE_WARM;
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(c.shortfall[0] == '\0', "a warm cell is never short of the link");
	c = cell("mmap", "none", "per-reader", NAN);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(c.shortfall[0] == '\0', "no ceiling: nothing said");
	snprintf(c.shortfall, sizeof c.shortfall, "stale");
	c.efficiency = 1.0;
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(c.shortfall[0] == '\0', "a cell that reaches it is cleared");
}

static void test_causes(void)
{
	struct report_cell c = cell("mmap", "none", "per-reader", 0.62);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "mmap-page-faults") == 0 && strstr(c.shortfall, "likely mmap reads by "
	   "page faults: the copy stops at each fault") != NULL,
	   "mmap on FUSE: page faults, likely (%s: %s)", c.cause,
	   c.shortfall);
	report_cell_shortfall(&c, &c, 1, &nfs);
	ok(strcmp(c.cause, "mmap-page-faults") == 0, "mmap on a network file system: page faults");
	report_cell_shortfall(&c, &c, 1, &local);
	ok(strcmp(c.cause, "unknown") == 0 && strstr(c.shortfall, "no known cause") != NULL,
	   "mmap on a local disk: no known cause (%s)", c.shortfall);
	c = cell("mmap", "sequential", "per-reader", 0.08);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "madv-sequential-fuse") == 0 && strstr(c.shortfall, "MADV_SEQUENTIAL"),
	   "mmap sequential on FUSE: MADV_SEQUENTIAL named (%s)", c.shortfall);
	report_cell_shortfall(&c, &c, 1, &nfs);
	ok(strcmp(c.cause, "mmap-page-faults") == 0, "mmap sequential on NFS: page faults");

	c = cell("mpiio", "none", "shared", 0.7);
	snprintf(c.hints, sizeof c.hints, "MPI-IO info: none; shared files read collectively "
		 "(MPI_File_read_at_all)");
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "mpiio-collective") == 0 && strstr(c.shortfall, "lock step"),
	   "collective mpiio shared: its lock step (%s)", c.shortfall);
	c.hints[0] = '\0';
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "mpiio-collective") == 0, "no hints recorded (old file): collective, "
	   "the default then");
	snprintf(c.hints, sizeof c.hints, "MPI-IO info: none; shared files read independently "
		 "(MPI_File_read_at)");
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "unknown") == 0, "independent mpiio shared: not collective");
	c = cell("mpiio", "none", "shared", 0.7);
	c.readers = 1;
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "unknown") == 0, "collective with one reader: no lock step");
	c = cell("mpiio", "none", "per-reader", 0.7);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "unknown") == 0, "mpiio per reader: not collective");

	c = cell("direct", "none", "per-reader", 0.5);
	c.sweep.transfer_size = 64u << 10;
	report_cell_shortfall(&c, &c, 1, &local);
	ok(strcmp(c.cause, "direct-small-transfers") == 0 && strstr(c.shortfall, "O_DIRECT"),
	   "direct with 64 KiB transfers: small O_DIRECT requests (%s)", c.shortfall);
	c.sweep.transfer_size = 4u << 20;
	report_cell_shortfall(&c, &c, 1, &local);
	ok(strcmp(c.cause, "unknown") == 0, "direct with 4 MiB transfers: no known cause");
	c = cell("posix", "none", "per-reader", 0.5);
	c.sweep.transfer_size = 64u << 10;
	report_cell_shortfall(&c, &c, 1, &local);
	ok(strcmp(c.cause, "unknown") == 0, "posix with 64 KiB transfers: through the page cache, "
	   "no known cause");
	c = cell("mmap2", "sequential", "per-reader", 0.5);
	report_cell_shortfall(&c, &c, 1, &fuse);
	ok(strcmp(c.cause, "unknown") == 0, "a backend this build does not have: no cause claimed "
	   "(%s)", c.shortfall);
}

static void test_sibling(void)
{
	struct report_cell all[4];
	all[0] = cell("posix", "sequential", "per-reader", 0.98);
	all[1] = cell("mmap", "none", "per-reader", 0.62);
	all[2] = cell("uring", "sequential", "per-reader", 0.93);
	all[3] = cell("posix", "none", "per-reader", 0.70);
	for (int i = 0; i < 4; i++)
		report_cell_shortfall(&all[i], all, 4, &fuse);
	ok(all[0].shortfall[0] == '\0' && all[2].shortfall[0] == '\0', "the ones at the link: "
	   "nothing said");
	ok(strstr(all[1].shortfall, "likely mmap reads") != NULL &&
	   strstr(all[1].shortfall, "backend posix, advice sequential reached 98% of the same "
		  "ceiling in this run, so the read path is the cause") != NULL,
	   "mmap: its likely mechanism, and posix's 98%% as proof (%s)", all[1].shortfall);
	ok(strcmp(all[3].cause, "unknown") == 0 &&
	   strstr(all[3].shortfall, "no known cause in its read path; backend posix, advice "
		  "sequential reached 98%") != NULL,
	   "posix advice none: no known mechanism, the sibling as proof (%s)", all[3].shortfall);

	/* another data set, another ceiling or a warm cell proves nothing */
	all[0].sweep.readers_per_node = 2;
	all[2].ceiling_MBps = 191.6;
	all[2].efficiency = 0.99;
	report_cell_shortfall(&all[1], all, 4, &fuse);
	ok(strstr(all[1].shortfall, "in this run") == NULL, "no sibling with the same data set, "
	   "readers and ceiling: no proof claimed (%s)", all[1].shortfall);
}

int main(void)
{
	test_nothing_said();
	test_causes();
	test_sibling();
	ok(report_fs_fuse("fuse.glusterfs") && report_fs_fuse("fuse") &&
	   !report_fs_fuse("nfs4") && !report_fs_fuse(NULL), "FUSE mounts by their type");
	return tap_done();
}
