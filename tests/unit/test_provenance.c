/* test_provenance: where a phase's bytes came from. /proc/self/io parsing; the verdict's
 * thresholds (storage at >= 90%, cache at <= 10%, mixed between, capped at 100%); the phase
 * verdict from hand-made rank records (local: every rank's read_bytes; remote: the node
 * leaders' bytes received; a rank whose counters could not be read, or a file older than the
 * counters, is "unknown", never a guess); and a cell's verdict over its phases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/report.h"
#include "run/provenance.h"
#include "tap.h"

static void test_parse(void)
{
	uint64_t rb = 0, rc = 0;
	int got = prov_parse_io("rchar: 1000\nwchar: 5\nsyscr: 3\nsyscw: 1\nread_bytes: 4096\n"
				"write_bytes: 0\ncancelled_write_bytes: 0\n", &rb, &rc);
	ok(got == 0 && rb == 4096 && rc == 1000, "/proc/self/io: read_bytes %llu, rchar %llu",
	   (unsigned long long)rb, (unsigned long long)rc);
	ok(prov_parse_io("rchar: 1000\nwchar: 5\n", &rb, &rc) != 0, "no read_bytes: refused");
	ok(prov_parse_io("xrchar: 1\nread_bytes: 2\n", &rb, &rc) != 0, "rchar must start a line");
}

static void test_verdict(void)
{
	char v[48];
	ok(prov_verdict(PROV_DISK, 1000, 900, v, sizeof v) == 0.9 && strcmp(v, "storage") == 0,
	   "90%% from storage: storage");
	ok(fabs(prov_verdict(PROV_DISK, 1000, 899, v, sizeof v) - 0.899) < 1e-12 &&
	   strcmp(v, "mixed: 10% from cache") == 0, "89.9%%: %s", v);
	ok(prov_verdict(PROV_NET, 1000, 100, v, sizeof v) == 0.1 && strcmp(v, "cache") == 0,
	   "10%% from storage: cache");
	ok(prov_verdict(PROV_NET, 1000, 1500, v, sizeof v) == 1 && strcmp(v, "storage") == 0,
	   "more bytes on the wire than read (headers): capped at 100%%");
	ok(strcmp((prov_verdict(PROV_DISK, 1000, 400, v, sizeof v), v), "mixed: 60% from cache") == 0,
	   "40%% from storage: %s", v);
	ok(isnan(prov_verdict(PROV_UNKNOWN, 1000, 1000, v, sizeof v)) && strcmp(v, "unknown") == 0,
	   "no counter: unknown");
	ok(isnan(prov_verdict(PROV_DISK, 0, 0, v, sizeof v)) && strcmp(v, "unknown") == 0,
	   "nothing read: unknown, not cache");
	ok(prov_kind_of("read_bytes") == PROV_DISK && prov_kind_of("net rx of eth0") == PROV_NET &&
	   prov_kind_of("net rx of all interfaces up (x)") == PROV_NET &&
	   prov_kind_of("unknown: fuse") == PROV_UNKNOWN && prov_kind_of("") == PROV_UNKNOWN,
	   "the kind a recorded description names");
}

/* A phase of 4 ranks on 2 nodes (leaders 0 and 2) that read bytes in all. */
static void make_phase(struct phase_data *pd, struct rank_rec *r, const char *desc, uint64_t bytes)
{
	memset(pd, 0, sizeof *pd);
	memset(r, 0, 4 * sizeof *r);
	snprintf(pd->info.provenance, sizeof pd->info.provenance, "%s", desc);
	pd->info.bytes = bytes;
	for (int i = 0; i < 4; i++) {
		r[i].rank = i;
		r[i].node = i / 2;
		r[i].counted = 1;
		r[i].bytes = bytes / 4;
	}
	pd->ranks = r;
	pd->nranks = 4;
}

static void test_phase(void)
{
	struct phase_data pd;
	struct rank_rec r[4];
	struct phase_provenance p;

	make_phase(&pd, r, "read_bytes", 4000);
	for (int i = 0; i < 4; i++)
		r[i].storage_read_bytes = 1000;
	r[0].net_rx_bytes = 99999; /* not the evidence for local data */
	analyze_provenance(&pd, 0, &p);
	ok(p.from_storage == 4000 && strcmp(p.verdict, "storage") == 0,
	   "local: every rank's read_bytes (%llu): %s", (unsigned long long)p.from_storage,
	   p.verdict);

	make_phase(&pd, r, "read_bytes", 4000);
	r[1].storage_read_bytes = 2000;
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "mixed: 50% from cache") == 0, "local, half from disk: %s", p.verdict);

	make_phase(&pd, r, "net rx of eth0", 4000);
	r[0].net_rx_bytes = 2100; /* leaders only; the others' stay 0 */
	r[2].net_rx_bytes = 2100;
	for (int i = 0; i < 4; i++)
		r[i].storage_read_bytes = 0; /* a FUSE client's reads are its daemon's */
	analyze_provenance(&pd, 0, &p);
	ok(p.from_storage == 4200 && strcmp(p.verdict, "storage") == 0 &&
	   fabs(p.fraction - 1) < 1e-12, "remote: the leaders' bytes received: %s", p.verdict);

	make_phase(&pd, r, "net rx of eth0", 4000);
	r[0].net_rx_bytes = 10;
	r[2].counted = 0; /* a leader that could not read its counters */
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "unknown") == 0 && strstr(p.why, "rank 2") != NULL,
	   "remote, a leader uncounted: unknown (%s), not cache", p.why);

	make_phase(&pd, r, "read_bytes", 4000);
	r[3].counted = 0;
	r[3].bytes = 0; /* read nothing: its counters do not matter */
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "cache") == 0, "local, an idle rank uncounted: still %s", p.verdict);

	make_phase(&pd, r, "", 4000);
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "unknown") == 0 && strstr(p.why, "schema 3") != NULL,
	   "a file older than the counters: unknown (%s)", p.why);

	make_phase(&pd, r, "unknown: fuse.faultfs from faultfs: no local disk, no server placed",
		   4000);
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "unknown") == 0 && strncmp(p.why, "unknown: fuse", 13) == 0,
	   "a mount the run could not place: unknown, with its reason");
}

/* Data on the compute nodes, striped over 4 servers, one on each node: a node reads a quarter
 * of its data from its own server through loopback, so only 3/4 of it crosses its link. */
static void test_converged(void)
{
	struct phase_data pd;
	struct rank_rec r[4];
	struct phase_provenance p;

	ok(prov_net_storage(750, 0.25) == 1000, "3/4 received over the link: 1000 from storage");
	ok(prov_net_storage(750, 0) == 750 && prov_net_storage(750, 1) == 750 &&
	   prov_net_storage(750, -0.5) == 750 && prov_net_storage(750, NAN) == 750,
	   "no local share (or a nonsensical one): the bytes received as they are");

	make_phase(&pd, r, "net rx of eth0", 4000);
	for (int i = 0; i < 4; i++)
		r[i].storage_read_bytes = 0;
	r[0].net_rx_bytes = 1520; /* (S-1)/S of the node's 2000, and headers */
	r[2].net_rx_bytes = 1520;
	analyze_provenance(&pd, 0, &p);
	ok(strcmp(p.verdict, "mixed: 24% from cache") == 0,
	   "converged, no local share given: the own stripe looks like cache (%s)", p.verdict);
	analyze_provenance(&pd, 0.25, &p);
	ok(strcmp(p.verdict, "storage") == 0 && p.fraction == 1 && p.from_storage == 4053,
	   "converged, a quarter local: storage (%s, %llu B)", p.verdict,
	   (unsigned long long)p.from_storage);
	ok(strstr(p.why, "net rx of eth0, / 0.75: 25% of the data is on the reader's own node") ==
		   p.why, "... saying so: %s", p.why);

	r[0].net_rx_bytes = 0; /* node 0 served from its page cache */
	r[2].net_rx_bytes = 0;
	analyze_provenance(&pd, 0.25, &p);
	ok(strcmp(p.verdict, "cache") == 0, "converged, nothing received: still cache (%s)",
	   p.verdict);

	make_phase(&pd, r, "read_bytes", 4000);
	for (int i = 0; i < 4; i++)
		r[i].storage_read_bytes = 750;
	analyze_provenance(&pd, 0.25, &p);
	ok(p.from_storage == 3000, "local disks' read_bytes are not scaled (%llu)",
	   (unsigned long long)p.from_storage);
}

/* Two repetitions of one cell: one from storage, one from the cache; then one unknown. */
static void test_cells(void)
{
	struct rank_rec r[2][4];
	struct phase_data pd[2];
	struct run_data run;
	struct report_cell *cells = NULL;
	memset(&run, 0, sizeof run);
	for (int k = 0; k < 2; k++) {
		make_phase(&pd[k], r[k], "read_bytes", 4000);
		snprintf(pd[k].info.sweep.dataset, sizeof pd[k].info.sweep.dataset, "d");
		pd[k].info.status = PHASE_COMPLETE;
		pd[k].info.sweep.readers_per_node = 2;
		pd[k].info.repetition = k;
		pd[k].info.elapsed_s = 1;
		pd[k].info.bandwidth_MBps = 0.004;
		for (int i = 0; i < 4; i++)
			r[k][i].storage_read_bytes = k == 0 ? 1000 : 0;
	}
	run.phases = pd;
	run.nphases = 2;
	run.nnodes = 2;
	long n = report_cells(&run, 0, &cells);
	ok(n == 1 && strcmp(cells[0].from, "mixed: 50% from cache") == 0,
	   "a cell over a cold and a warm repetition: %s", n == 1 ? cells[0].from : "-");
	free(cells);
	pd[1].info.provenance[0] = '\0';
	n = report_cells(&run, 0, &cells);
	ok(n == 1 && strcmp(cells[0].from, "unknown") == 0 && isnan(cells[0].from_storage),
	   "a cell with an unknown phase: unknown");
	free(cells);
	for (int k = 0; k < 2; k++) {
		snprintf(pd[k].info.provenance, sizeof pd[k].info.provenance, "net rx of eth0");
		for (int i = 0; i < 4; i++)
			r[k][i].net_rx_bytes = i % 2 == 0 ? 1500 : 0;
	}
	n = report_cells(&run, 0, &cells);
	ok(n == 1 && strcmp(cells[0].from, "mixed: 25% from cache") == 0,
	   "converged, no local share: %s", n == 1 ? cells[0].from : "-");
	free(cells);
	n = report_cells(&run, 0.25, &cells);
	ok(n == 1 && strcmp(cells[0].from, "storage") == 0,
	   "converged, a quarter on the node's own server: %s", n == 1 ? cells[0].from : "-");
	free(cells);
}

int main(void)
{
	test_parse();
	test_verdict();
	test_phase();
	test_converged();
	test_cells();
	return tap_done();
}
