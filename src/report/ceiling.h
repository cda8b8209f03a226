/* ceiling: the most a phase could read per second on the hardware declared (config hardware:)
 * or measured (pfsread calibrate), as the least of the limits it goes through, with the
 * limiting resource named. Pure maths: no I/O, no MPI. Rates in MB/s (10^6 B/s). */
#ifndef PFSREAD_CEILING_H
#define PFSREAD_CEILING_H

#include "util/units.h"

/* What the hardware can do. A figure <= 0 is unknown and its limit is left out. */
struct ceil_hw {
	/* one compute node (where the readers run) */
	double node_disk_MBps;   /* its local disk or RAID, streaming */
	double node_link_MBps;   /* its network link, each direction (full duplex) */
	double node_memcpy_MBps; /* memory copy: the bound of reads served from the page cache */
	double node_fsread_MBps; /* what one node reads through the file system at best, all
				  * nodes at once (calibrate --through-fs): the per-node read
				  * ceiling, whatever the reads cross */
	int node_fsread_readers; /* the readers per node that read it */
	double node_client_MBps; /* what a plain sequential read (dd, one process) gets on one node
				  * through the file system's client (declared): a peer's figure,
				  * so a cell's share of it is pfsread / that peer */
	double reader_MBps;      /* one reader's best rate (a single synchronous stream) */
	/* storage: storage_servers > 0, data_on_compute_nodes or data_remote means the data comes
	 * over the network; none of them means each node reads its own local disk */
	double storage_servers;  /* servers holding the data, striped over all of them */
	double server_disk_MBps; /* per server; default node_disk when data_on_compute_nodes */
	double server_link_MBps; /* per server; default node_link when data_on_compute_nodes */
	int data_on_compute_nodes; /* the servers are the run's nodes (default: all of them) */
	int data_remote;         /* the data root is a network file system: every byte crosses the
				  * reader's link, servers known or not, and node_disk is not in
				  * the way */
	/* the network between racks: nodes spread evenly over racks, each rack's switch joined to
	 * the backbone by uplinks of rack_uplink_MBps in all, each direction */
	double racks;
	double rack_uplink_MBps;
	/* a measured figure's spread over its repetitions (max / min); 0: declared, detected or
	 * unknown. The report shows it beside a ceiling the figure sets, how far to trust it. */
	double node_disk_spread, node_link_spread, node_memcpy_spread, reader_spread;
	double node_fsread_spread;
	/* the unit the limits' how strings give the figures in (report --units): the figures
	 * themselves stay MB/s */
	enum units_rate shown;
};

/* hw gets the figures a config's hardware: section declares; the rest (data_remote) is kept. */
struct cfg_hardware;
void ceil_hw_declared(struct ceil_hw *hw, const struct cfg_hardware *d);

/* The phase whose ceiling is wanted. */
struct ceil_point {
	int reader_nodes; /* nodes with at least one active reader */
	int readers;      /* active readers over all nodes */
	int run_nodes;    /* nodes of the run (the servers when data_on_compute_nodes) */
	int warm;         /* the data was in the page cache: only memory copy limits */
};

#define CEIL_MAX_TERMS 10

/* The limit a calibrated read through the file system sets: per node, whatever it crosses. */
#define CEIL_FSREAD "node reads via the file system"

/* The limit a declared plain sequential read through the file system's client sets: per node. */
#define CEIL_CLIENT "client reads"

/* One limit: its resource, its figure, and how it was worked out (for people). */
struct ceil_term {
	const char *resource; /* "reader links", "server disks", "rack uplinks", ... */
	double MBps;
	char how[160];        /* "100 nodes x 117 MB/s / 0.99 (1% of the data is local)" */
};

struct ceil_result {
	struct ceil_term term[CEIL_MAX_TERMS];
	int nterms;
	int limit;   /* index of the least term, -1 when there is none */
	double MBps; /* the least term's figure, NaN when there is none */
};

/* The spread (hw's *_spread) of the measured figure a limit named resource is worked out from,
 * or 0 when it has none (declared, or not measured). */
double ceiling_spread(const struct ceil_hw *hw, const char *resource);

/* A cell's share of the client's own ceiling (mean / reader nodes x node_client_MBps): pfsread
 * against a plain sequential read of the same files. NaN when it is not declared or the cell
 * is not cold. */
double ceiling_client_share(const struct ceil_hw *hw, const struct ceil_point *p, double mean_MBps);

/* Work out every limit that hw and p allow and pick the least (the first of equal ones). */
void ceiling_compute(const struct ceil_hw *hw, const struct ceil_point *p, struct ceil_result *r);

/* The share of the data a reader finds on its own node (it crosses no link): 1 / servers
 * when the servers are the compute nodes, else 0. */
double ceiling_local_share(const struct ceil_hw *hw, int run_nodes);

/* The fraction of the aggregate read rate that one rack's uplinks carry inbound, with the
 * readers spread evenly over min(racks, reader_nodes) racks: (1 / those racks) x the share of
 * a reader's data held outside its rack (1 - 1/racks when the data is striped over servers in
 * every rack, 1 when the servers sit elsewhere). 0 when there is one rack. */
double ceiling_uplink_share(const struct ceil_hw *hw, int reader_nodes);

#endif
