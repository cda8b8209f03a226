/* detect: the limits a machine states about itself, for the ceilings of a run whose config
 * declares no hardware: the speed of the network interface that carries the file system's
 * traffic (found from the mount's source and the routing table) and a cgroup's read limit on
 * the data's disk (v2 io.max, v1 blkio throttle). Each figure comes with the place it was read
 * from. The parsers
 * are pure; detect_limits reads /proc and /sys and never fails (unknown stays 0). No MPI. */
#ifndef PFSREAD_DETECT_H
#define PFSREAD_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "run/envinfo.h"

#define DETECT_SOURCE_MAX 256
#define DETECT_IFNAME_MAX 32

struct detected {
	double link_MBps;                     /* 0: unknown */
	char link_source[DETECT_SOURCE_MAX];  /* where it was read, or why it is unknown */
	double disk_MBps;                     /* 0: no limit found */
	char disk_source[DETECT_SOURCE_MAX];
};

/* What this process sees for data under root, mounted as m, remote (1) or local (0). Only a
 * remote file system's data crosses a link; only a local disk has an io.max of ours. */
void detect_limits(const char *root, const struct mount_info *m, int remote, struct detected *d);

/* The interface that carries the traffic of mount m: its source's host, placed by address
 * or /etc/hosts (no DNS), and the route to it (lo for 127.0.0.0/8). Returns 0 with ifname,
 * or -1 with why. */
int detect_mount_iface(const struct mount_info *m, char *ifname, size_t len, char *why,
		       size_t wlen);

/* The interfaces of this process's network namespace that are up, loopback aside (from
 * /proc/self/net/dev, which is always this namespace's): up to max names. Returns how many. */
int detect_ifaces_up(char (*names)[DETECT_IFNAME_MAX], int max);

/* The bytes received so far on this namespace's interface ifname. Returns 0, or -1. */
int detect_rx_bytes(const char *ifname, uint64_t *rx);

/* The at-th interface of a /proc/net/dev text: its name and bytes received. Returns 0, or -1
 * past the last. Pure. */
int detect_netdev(const char *text, size_t at, char *ifname, size_t len, uint64_t *rx);

/* The IPv4 host of a mount source ("10.0.0.1:/vol", "mfs#host:9421", "10.0.0.1@tcp:/fs",
 * "1.2.3.4:6789,1.2.3.5:6789:/"): the first host, before any port, NID suffix or path, into
 * host. Returns 0, or -1 when the source names no host. */
int detect_source_host(const char *source, char *host, size_t len);

/* The IPv4 address of name in the text of an /etc/hosts file. Returns 0 with *addr (network
 * byte order, as struct in_addr holds it), or -1. */
int detect_hosts_lookup(const char *hosts_text, const char *name, uint32_t *addr);

/* The interface of the route to addr (network byte order) in the text of /proc/net/route: the
 * longest matching prefix of the routes that are up, the lowest metric among equals. Returns
 * 0 with ifname, or -1 when no route matches. */
int detect_route_iface(const char *route_text, uint32_t addr, char *ifname, size_t len);

/* MB/s (10^6 B/s) from /sys/class/net/IF/speed (Mb/s); 0 for unknown (-1, empty, junk). */
double detect_speed_MBps(const char *speed_text);

/* MB/s from an InfiniBand port's rate file ("100 Gb/sec (4X EDR)"); 0 for unknown. */
double detect_ib_rate_MBps(const char *rate_text);

/* The read limit in MB/s that a cgroup sets on device major:minor: v2's io.max ("8:0
 * rbps=104857600 wbps=max ...") or, v1 != 0, blkio.throttle.read_bps_device ("8:0
 * 104857600"); 0 when it sets none. */
double detect_io_max_MBps(const char *text, unsigned major, unsigned minor, int v1);

#endif
