/* test_detect: the parsers behind the detected ceilings: a mount source's host, /etc/hosts,
 * the route to an address (longest prefix, metric, routes that are down), interface speeds
 * (Ethernet and InfiniBand) and cgroup read limits (v2 io.max, v1 blkio throttle). */
#include <arpa/inet.h>
#include <string.h>

#include "run/detect.h"
#include "tap.h"

static int near(double a, double b)
{
	return a > b - 1e-9 && a < b + 1e-9;
}

static uint32_t ip(const char *text)
{
	struct in_addr a;
	return inet_pton(AF_INET, text, &a) == 1 ? a.s_addr : 0;
}

static void test_source_host(void)
{
	char h[64];
	ok(detect_source_host("10.0.0.1:/vol", h, sizeof h) == 0 && strcmp(h, "10.0.0.1") == 0,
	   "nfs and glusterfs: host:/path -> %s", h);
	ok(detect_source_host("server1:gv0", h, sizeof h) == 0 && strcmp(h, "server1") == 0,
	   "glusterfs: host:volume -> %s", h);
	ok(detect_source_host("mfs#mfsmaster:9421", h, sizeof h) == 0 &&
	   strcmp(h, "mfsmaster") == 0, "moosefs: mfs#host:port -> %s", h);
	ok(detect_source_host("10.1.0.5@o2ib:10.1.0.6@o2ib:/lfs", h, sizeof h) == 0 &&
	   strcmp(h, "10.1.0.5") == 0, "lustre: the first NID's address -> %s", h);
	ok(detect_source_host("10.2.0.1:6789,10.2.0.2:6789:/", h, sizeof h) == 0 &&
	   strcmp(h, "10.2.0.1") == 0, "ceph: the first monitor -> %s", h);
	ok(detect_source_host("/dev/sda1", h, sizeof h) != 0, "a device names no host");
	ok(detect_source_host("tmpfs", h, sizeof h) != 0, "a bare word names no host");
	ok(detect_source_host("averyveryverylonghostname:/x", h, 8) != 0,
	   "a host longer than the buffer is refused, not cut");
}

static void test_hosts(void)
{
	const char *hosts = "127.0.0.1\tlocalhost\n# 10.9.9.9 server1\n::1 ip6-localhost\n"
			    "10.0.0.7   store1 store1.example.org # the server\n";
	uint32_t a = 0;
	ok(detect_hosts_lookup(hosts, "store1.example.org", &a) == 0 && a == ip("10.0.0.7"),
	   "an alias of a line");
	ok(detect_hosts_lookup(hosts, "server1", &a) != 0, "a commented line is no entry");
	ok(detect_hosts_lookup(hosts, "ip6-localhost", &a) != 0, "IPv6 lines are skipped");
	ok(detect_hosts_lookup(hosts, "the", &a) != 0, "a comment's words are no names");
}

static void test_route(void)
{
	/* as the kernel prints it on a little-endian machine: 0.0.0.0/0 via 192.0.2.1 on eth0,
	 * 192.0.2.0/24 on eth0, 10.99.0.0/16 on ib0, 10.99.7.0/24 on eth1 with two metrics,
	 * and a route that is down */
	char text[1024];
	snprintf(text, sizeof text,
		 "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		 "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
		 "eth0\t%08X\t00000000\t0001\t0\t0\t0\t%08X\t0\t0\t0\n"
		 "ib0\t%08X\t00000000\t0001\t0\t0\t0\t%08X\t0\t0\t0\n"
		 "eth2\t%08X\t00000000\t0001\t0\t0\t20\t%08X\t0\t0\t0\n"
		 "eth1\t%08X\t00000000\t0001\t0\t0\t10\t%08X\t0\t0\t0\n"
		 "eth3\t%08X\t00000000\t0000\t0\t0\t0\t%08X\t0\t0\t0\n",
		 ip("192.0.2.0"), ip("255.255.255.0"), ip("10.99.0.0"), ip("255.255.0.0"),
		 ip("10.99.7.0"), ip("255.255.255.0"), ip("10.99.7.0"), ip("255.255.255.0"),
		 ip("10.99.7.9"), ip("255.255.255.255"));
	char ifn[32];
	ok(detect_route_iface(text, ip("10.99.3.4"), ifn, sizeof ifn) == 0 && strcmp(ifn, "ib0") == 0,
	   "the /16 beats the default route -> %s", ifn);
	ok(detect_route_iface(text, ip("10.99.7.9"), ifn, sizeof ifn) == 0 &&
	   strcmp(ifn, "eth1") == 0, "the /24 beats the /16, the lower metric wins, a route that "
	   "is down counts for nothing -> %s", ifn);
	ok(detect_route_iface(text, ip("8.8.8.8"), ifn, sizeof ifn) == 0 && strcmp(ifn, "eth0") == 0,
	   "elsewhere: the default route -> %s", ifn);
	ok(detect_route_iface("Iface\tDestination\n", ip("10.0.0.1"), ifn, sizeof ifn) != 0,
	   "no route, no interface");
}

static void test_speeds(void)
{
	ok(near(detect_speed_MBps("10000\n"), 1250), "10 GbE: 1250 MB/s");
	ok(near(detect_speed_MBps("400"), 50), "400 Mb/s: 50 MB/s");
	ok(detect_speed_MBps("-1\n") == 0, "-1 (no carrier, virtual): unknown");
	ok(detect_speed_MBps("") == 0 && detect_speed_MBps("fast") == 0, "junk: unknown");
	ok(near(detect_ib_rate_MBps("100 Gb/sec (4X EDR)\n"), 12500), "EDR: 12500 MB/s");
	ok(near(detect_ib_rate_MBps("56 Gb/sec (4X FDR)"), 7000), "FDR: 7000 MB/s");
	ok(detect_ib_rate_MBps("100 Mb/sec") == 0, "other units: unknown");
}

static void test_io_max(void)
{
	const char *v2 = "8:0 rbps=104857600 wbps=max riops=max wiops=max\n"
			 "259:0 rbps=max wbps=2000000 riops=max wiops=max\n";
	ok(near(detect_io_max_MBps(v2, 8, 0, 0), 104.8576), "io.max rbps on 8:0");
	ok(detect_io_max_MBps(v2, 259, 0, 0) == 0, "rbps=max is no limit (wbps is not ours)");
	ok(detect_io_max_MBps(v2, 8, 16, 0) == 0, "another device: no limit");
	ok(detect_io_max_MBps("8:0 wbps=5\n8:16 rbps=7000000\n", 8, 0, 0) == 0,
	   "a limit on the next line is not this device's");
	ok(near(detect_io_max_MBps("7:3 52428800\n", 7, 3, 1), 52.4288), "v1 blkio throttle");
	ok(detect_io_max_MBps("", 7, 3, 1) == 0, "an empty throttle file: no limit");
}

static void test_netdev(void)
{
	const char *text = "Inter-|   Receive                            |  Transmit\n"
			   " face |bytes    packets errs drop fifo frame compressed multicast|bytes\n"
			   "    lo:  123456     100    0    0    0     0          0         0  123456\n"
			   "  pv0: 98765432109  5000    0    0    0     0          0         0  42\n";
	char name[32];
	uint64_t rx = 0;
	ok(detect_netdev(text, 0, name, sizeof name, &rx) == 0 && strcmp(name, "lo") == 0 &&
	   rx == 123456, "/proc/net/dev: the first interface, lo, %llu bytes received",
	   (unsigned long long)rx);
	ok(detect_netdev(text, 1, name, sizeof name, &rx) == 0 && strcmp(name, "pv0") == 0 &&
	   rx == 98765432109ull, "the second, pv0, beyond 2^32 bytes");
	ok(detect_netdev(text, 2, name, sizeof name, &rx) != 0, "none past the last");
}

int main(void)
{
	test_netdev();
	test_source_host();
	test_hosts();
	test_route();
	test_speeds();
	test_io_max();
	return tap_done();
}
