/* test_ceiling: the limits of a phase for declared hardware, checked against figures worked
 * out by hand; the reference study's cluster (100 nodes on 1 GbE, 3 racks with 4 x 10 GbE
 * uplinks each, 200 MB/s RAID0, data striped over all nodes) first. */
#include <math.h>
#include <string.h>

#include "report/ceiling.h"
#include "config/config.h"
#include "report/report.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) + 1);
}

static const struct ceil_term *term(const struct ceil_result *r, const char *resource)
{
	for (int i = 0; i < r->nterms; i++)
		if (strcmp(r->term[i].resource, resource) == 0)
			return &r->term[i];
	return NULL;
}

static const char *limit(const struct ceil_result *r)
{
	return r->limit >= 0 ? r->term[r->limit].resource : "(none)";
}

static const struct ceil_hw reference = {
	.node_disk_MBps = 200, .node_link_MBps = 117, .storage_servers = 100,
	.data_on_compute_nodes = 1, .racks = 3, .rack_uplink_MBps = 5000,
};

static void test_reference(void)
{
	struct ceil_result r;
	struct ceil_point p = {100, 100, 100, 0};
	ceiling_compute(&reference, &p, &r);
	/* 1% of each reader's data is on its own node: 100 x 117 / 0.99 */
	ok(term(&r, "reader links") && near(term(&r, "reader links")->MBps, 11818.181818),
	   "reader links: 100 x 117 / 0.99 = 11818.18 MB/s");
	ok(term(&r, "server links") && near(term(&r, "server links")->MBps, 11818.181818),
	   "server links: the same nodes, the other direction: 11818.18 MB/s");
	ok(term(&r, "server disks") && near(term(&r, "server disks")->MBps, 20000),
	   "server disks: 100 x 200 = 20000 MB/s");
	/* a rack holds 1/3 of the readers, 2/3 of their data is in other racks: 2/9 of all */
	ok(term(&r, "rack uplinks") && near(term(&r, "rack uplinks")->MBps, 22500),
	   "rack uplinks: 5000 / (1/3 x 2/3) = 22500 MB/s");
	ok(r.nterms == 4 && strcmp(limit(&r), "reader links") == 0 && near(r.MBps, 11818.181818),
	   "the ceiling: reader links, 11818.18 MB/s (got %s %.2f)", limit(&r), r.MBps);
	ok(near(ceiling_local_share(&reference, 100), 0.01) &&
		   near(ceiling_uplink_share(&reference, 100), 2.0 / 9),
	   "local share 1/100, uplink share 2/9");

	struct report_cell c = {.readers = 100, .reader_nodes = 100, .mean_MBps = 660};
	report_cell_ceiling(&c, &reference, 100, NULL);
	ok(near(c.efficiency, 660 / 11818.181818) && strcmp(c.limit, "reader links") == 0,
	   "660 MB/s is 5.58%% of it (got %.4f%%)", c.efficiency * 100);
	c.mean_MBps = 502;
	report_cell_ceiling(&c, &reference, 100, NULL);
	ok(near(c.efficiency, 0.042476923), "502 MB/s is 4.25%% of it (got %.4f%%)",
	   c.efficiency * 100);
}

static void test_per_reader_and_memory(void)
{
	struct ceil_hw hw = reference;
	struct ceil_result r;
	struct ceil_point p = {100, 400, 100, 0};
	hw.reader_MBps = 6.6;
	ceiling_compute(&hw, &p, &r);
	ok(strcmp(limit(&r), "per-reader rate") == 0 && near(r.MBps, 2640),
	   "400 readers x 6.6 MB/s = 2640 MB/s limits first");
	p.warm = 1;
	ceiling_compute(&hw, &p, &r);
	ok(r.nterms == 0 && r.limit == -1 && isnan(r.MBps),
	   "warm without a memory-copy figure: no limit known");
	hw.node_memcpy_MBps = 5000;
	ceiling_compute(&hw, &p, &r);
	ok(r.nterms == 1 && strcmp(limit(&r), "memory copy") == 0 && near(r.MBps, 500000),
	   "warm: only memory copy, 100 x 5000 = 500000 MB/s");
}

static void test_other_shapes(void)
{
	struct ceil_result r;
	struct ceil_hw local = {.node_disk_MBps = 200, .node_link_MBps = 117};
	struct ceil_point p = {2, 8, 2, 0};
	ceiling_compute(&local, &p, &r);
	ok(r.nterms == 1 && strcmp(limit(&r), "node disks") == 0 && near(r.MBps, 400),
	   "no servers: each node reads its own disk, 2 x 200 = 400 MB/s, no link limit");

	struct ceil_hw remote = {.node_link_MBps = 117, .storage_servers = 10,
				 .server_disk_MBps = 500, .server_link_MBps = 1170, .racks = 3,
				 .rack_uplink_MBps = 5000};
	struct ceil_point q = {30, 30, 30, 0};
	ceiling_compute(&remote, &q, &r);
	ok(near(term(&r, "reader links")->MBps, 3510) && near(term(&r, "server links")->MBps, 11700) &&
		   near(term(&r, "server disks")->MBps, 5000) &&
		   near(term(&r, "rack uplinks")->MBps, 15000) &&
		   strcmp(limit(&r), "reader links") == 0,
	   "separate servers: links 3510, servers 11700 and 5000, uplinks 5000 x 3 = 15000");

	struct ceil_point one = {1, 1, 100, 0};
	ceiling_compute(&reference, &one, &r);
	ok(near(term(&r, "rack uplinks")->MBps, 7500) && near(r.MBps, 117 / 0.99),
	   "one reader node: its rack carries 2/3 of all (7500); its link limits (118.18)");
	struct ceil_hw onerack = reference;
	onerack.racks = 1;
	ceiling_compute(&onerack, &one, &r);
	ok(term(&r, "rack uplinks") == NULL, "one rack: no uplink limit");
	struct ceil_hw none = {0};
	ceiling_compute(&none, &p, &r);
	ok(r.nterms == 0 && r.limit == -1, "nothing declared: no limit");

	/* a network file system whose servers are unknown: the links still bound it, and a
	 * node's disk (not in the way) does not */
	struct ceil_hw fuse = {.node_disk_MBps = 124, .node_link_MBps = 47.9, .reader_MBps = 124,
			       .data_remote = 1};
	struct ceil_point three = {3, 6, 3, 0};
	ceiling_compute(&fuse, &three, &r);
	ok(term(&r, "node disks") == NULL && near(term(&r, "reader links")->MBps, 143.7) &&
		   near(term(&r, "per-reader rate")->MBps, 744) &&
		   strcmp(limit(&r), "reader links") == 0 && near(r.MBps, 143.7),
	   "remote data, servers unknown: 3 links x 47.9 = 143.7 MB/s limit, no node disks");
}

/* The config's hardware block: every key read, a bad figure refused with its place. */
static void test_config_block(void)
{
	static const char yaml[] =
		"root: /nonexistent/pfsread-test\n"
		"datasets: [{name: a, file_size: 1MB, file_count: 2}]\n"
		"hardware: {node_disk_MBps: 200, node_link_MBps: 117.5, storage_servers: 100,\n"
		"           server_disk_MBps: 210, server_link_MBps: 118, racks: 3,\n"
		"           rack_uplink_MBps: 5000, data_on_compute_nodes: true,\n"
		"           node_memcpy_MBps: 4000, reader_MBps: 6.6, node_client_MBps: 310.5}\n";
	struct experiment x;
	struct pf_err e = {0};
	ok(cfg_parse("hw.yaml", yaml, sizeof yaml - 1, NULL, &x, &e) == 0, "hardware block parses %s",
	   e.msg);
	ok(x.hw.given && x.hw.node_disk_MBps == 200 && x.hw.node_link_MBps == 117.5 &&
		   x.hw.storage_servers == 100 && x.hw.server_disk_MBps == 210 &&
		   x.hw.server_link_MBps == 118 && x.hw.racks == 3 &&
		   x.hw.rack_uplink_MBps == 5000 && x.hw.data_on_compute_nodes == 1 &&
		   x.hw.node_memcpy_MBps == 4000 && x.hw.reader_MBps == 6.6 &&
		   x.hw.node_client_MBps == 310.5,
	   "every hardware key read");
	cfg_free(&x);
	static const char bad[] = "root: /nonexistent/x\ndatasets: [{name: a, file_size: 1MB, "
				  "file_count: 2}]\nhardware: {node_link_MBps: -1}\n";
	pf_err_clear(&e);
	ok(cfg_parse("bad.yaml", bad, sizeof bad - 1, NULL, &x, &e) != 0 && e.status == PF_USAGE &&
		   strstr(e.msg, "bad.yaml:3:") && strstr(e.msg, "hardware.node_link_MBps"),
	   "a negative rate refused at its place: %s", e.msg);
	static const char none[] = "root: /nonexistent/x\ndatasets: [{name: a, file_size: 1MB, "
				   "file_count: 2}]\n";
	ok(cfg_parse("none.yaml", none, sizeof none - 1, NULL, &x, &e) == 0 && !x.hw.given,
	   "no hardware block: nothing given");
	cfg_free(&x);
}

/* The reference cluster calibrated through its file system: 40 MB/s per node (4 readers/node
 * at best) is below its 117 MB/s links, so 100 nodes x 40 = 4000 MB/s is the ceiling for cold
 * reads, with its spread; warm reads are not limited by it. */
static void test_fsread(void)
{
	struct ceil_hw hw = reference;
	struct ceil_result r;
	struct ceil_point p = {100, 200, 100, 0};
	hw.node_fsread_MBps = 40;
	hw.node_fsread_readers = 4;
	hw.node_fsread_spread = 1.04;
	ceiling_compute(&hw, &p, &r);
	ok(strcmp(limit(&r), CEIL_FSREAD) == 0 && near(r.MBps, 4000),
	   "the read through the file system sets the ceiling: %s %.1f", limit(&r), r.MBps);
	const struct ceil_term *t = term(&r, CEIL_FSREAD);
	ok(t != NULL && strcmp(t->how, "100 nodes x 40 MB/s (calibrated: read through the file "
				    "system, 4 readers/node)") == 0,
	   "labelled: '%s'", t ? t->how : "");
	ok(near(ceiling_spread(&hw, CEIL_FSREAD), 1.04), "its spread goes with it");
	p.warm = 1;
	ceiling_compute(&hw, &p, &r);
	ok(term(&r, CEIL_FSREAD) == NULL, "warm reads: not a limit");
	hw.node_fsread_MBps = 0;
	p.warm = 0;
	ceiling_compute(&hw, &p, &r);
	ok(term(&r, CEIL_FSREAD) == NULL && strcmp(limit(&r), "reader links") == 0,
	   "not calibrated: no such limit");
}

/* A FUSE client on 3 nodes read by dd at 300 MB/s a node, behind 1170 MB/s links: 3 x 300 =
 * 900 MB/s is the ceiling for cold reads, and a cell at 873 MB/s is 97% of it, the share
 * being pfsread / dd whether or not the client is the least limit. */
static void test_client(void)
{
	struct ceil_hw hw = {.node_link_MBps = 1170, .data_remote = 1, .node_client_MBps = 300,
			     .node_memcpy_MBps = 5000};
	struct ceil_result r;
	struct ceil_point p = {3, 6, 3, 0};
	ceiling_compute(&hw, &p, &r);
	const struct ceil_term *t = term(&r, CEIL_CLIENT);
	ok(strcmp(limit(&r), CEIL_CLIENT) == 0 && near(r.MBps, 900),
	   "the client's own ceiling limits: %s %.1f", limit(&r), r.MBps);
	ok(t != NULL && strcmp(t->how, "3 nodes x 300 MB/s (declared: one plain sequential read "
				    "through the file system's client)") == 0,
	   "labelled: '%s'", t ? t->how : "");
	ok(near(ceiling_client_share(&hw, &p, 873), 0.97), "873 MB/s on 3 nodes is 0.97 of it");
	struct report_cell c = {.readers = 6, .reader_nodes = 3, .mean_MBps = 873};
	report_cell_ceiling(&c, &hw, 3, NULL);
	ok(near(c.efficiency, 0.97) && strcmp(c.limit, CEIL_CLIENT) == 0,
	   "the cell's share of its ceiling is that share: %.4f (%s)", c.efficiency, c.limit);
	struct ceil_point one = {1, 1, 3, 0};
	ok(near(ceiling_client_share(&hw, &one, 291), 0.97), "per reader node: 291 / (1 x 300)");
	hw.node_link_MBps = 100; /* the links bind first: the share is still pfsread / dd */
	ceiling_compute(&hw, &p, &r);
	ok(strcmp(limit(&r), "reader links") == 0 && term(&r, CEIL_CLIENT) != NULL &&
		   near(ceiling_client_share(&hw, &p, 270), 0.3),
	   "not the least limit: still a term, share 270 / 900 = 0.3");
	p.warm = 1;
	ceiling_compute(&hw, &p, &r);
	ok(term(&r, CEIL_CLIENT) == NULL && isnan(ceiling_client_share(&hw, &p, 873)),
	   "warm reads: no client limit, no share");
	p.warm = 0;
	hw.node_client_MBps = 0;
	ceiling_compute(&hw, &p, &r);
	ok(term(&r, CEIL_CLIENT) == NULL && isnan(ceiling_client_share(&hw, &p, 873)),
	   "not declared: no such limit, no share");
	/* every limit at once fits: links, servers (2), disks, uplinks, reader, fsread, client,
	 * memory copy */
	struct ceil_hw all = {.node_link_MBps = 117, .storage_servers = 4, .server_disk_MBps = 200,
			      .server_link_MBps = 117, .racks = 2, .rack_uplink_MBps = 500,
			      .reader_MBps = 90, .node_fsread_MBps = 80, .node_client_MBps = 70,
			      .node_memcpy_MBps = 5000};
	struct ceil_point q = {4, 4, 4, 0};
	ceiling_compute(&all, &q, &r);
	ok(r.nterms == 8 && term(&r, CEIL_CLIENT) != NULL && strcmp(limit(&r), CEIL_CLIENT) == 0 &&
		   near(r.MBps, 280),
	   "all eight limits kept, the client's the least: %d terms, %s %.1f", r.nterms,
	   limit(&r), r.MBps);
}

int main(void)
{
	test_client();
	test_fsread();
	test_config_block();
	test_reference();
	test_per_reader_and_memory();
	test_other_shapes();
	return tap_done();
}
