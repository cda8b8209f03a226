/* detect: the limits the machine states about itself (detect.h). A figure found is a ceiling
 * the user did not have to declare; one not found stays 0 with the reason in its source, and
 * nothing here fails a run. */
#include "run/detect.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define DETECT_TEXT_MAX (256 * 1024) /* /proc/net/route of a router stays far below */

/* ---- pure parsers ---- */

int detect_source_host(const char *source, char *host, size_t len)
{
	const char *p = source, *hash;
	if (source == NULL || len == 0)
		return -1;
	if ((hash = strchr(p, '#')) != NULL) /* mfs#host:port */
		p = hash + 1;
	size_t n = strcspn(p, ":,@/ ");
	if (n == 0 || n >= len || p[n] == '\0' || p[n] == '/' || p[n] == ' ')
		return -1; /* "/dev/sda1", "tmpfs", a bare word: no host */
	memcpy(host, p, n);
	host[n] = '\0';
	return 0;
}

int detect_hosts_lookup(const char *hosts_text, const char *name, uint32_t *addr)
{
	const char *line = hosts_text;
	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
		char buf[512], *save = NULL, *tok, *ip;
		if (n < sizeof buf) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			char *hash = strchr(buf, '#');
			if (hash != NULL)
				*hash = '\0';
			ip = strtok_r(buf, " \t", &save);
			struct in_addr a;
			if (ip != NULL && inet_pton(AF_INET, ip, &a) == 1)
				while ((tok = strtok_r(NULL, " \t", &save)) != NULL)
					if (strcmp(tok, name) == 0) {
						*addr = a.s_addr;
						return 0;
					}
		}
		line = end != NULL ? end + 1 : NULL;
	}
	return -1;
}

static int detect_bits(uint32_t mask)
{
	int n = 0;
	for (; mask != 0; mask &= mask - 1)
		n++;
	return n;
}

/* The kernel prints each route's destination and mask as the 32-bit value it holds in
 * network byte order, read back here as a native integer: the same representation as addr. */
int detect_route_iface(const char *route_text, uint32_t addr, char *ifname, size_t len)
{
	const char *line = route_text;
	int best_bits = -1;
	unsigned long best_metric = 0;
	while (line != NULL && *line != '\0') {
		char name[64];
		unsigned long dest, gw, flags, refcnt, use, metric, mask;
		if (sscanf(line, "%63s %lx %lx %lx %lu %lu %lu %lx", name, &dest, &gw, &flags, &refcnt,
			   &use, &metric, &mask) == 8 &&
		    (flags & 0x1) != 0 && ((uint32_t)addr & (uint32_t)mask) == (uint32_t)dest) {
			int bits = detect_bits((uint32_t)mask);
			if (bits > best_bits || (bits == best_bits && metric < best_metric)) {
				if (strlen(name) >= len)
					return -1;
				strcpy(ifname, name);
				best_bits = bits;
				best_metric = metric;
			}
		}
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return best_bits >= 0 ? 0 : -1;
}

double detect_speed_MBps(const char *speed_text)
{
	char *end;
	errno = 0;
	long mbit = strtol(speed_text, &end, 10);
	if (errno != 0 || end == speed_text || mbit <= 0)
		return 0;
	return (double)mbit / 8.0; /* Mb/s -> MB/s */
}

double detect_ib_rate_MBps(const char *rate_text)
{
	char *end;
	double gbit = strtod(rate_text, &end);
	if (end == rate_text || !(gbit > 0) || strncmp(end, " Gb/sec", 7) != 0)
		return 0;
	return gbit * 1000.0 / 8.0;
}

double detect_io_max_MBps(const char *io_max_text, unsigned major, unsigned minor, int v1)
{
	const char *line = io_max_text;
	while (line != NULL && *line != '\0') {
		unsigned ma, mi;
		int at = 0;
		if (sscanf(line, "%u:%u%n", &ma, &mi, &at) == 2 && ma == major && mi == minor) {
			if (v1) { /* "8:0 104857600" */
				double bps = strtod(line + at, NULL);
				return bps > 0 ? bps / 1e6 : 0;
			}
			const char *r = strstr(line + at, "rbps=");
			const char *eol = strchr(line, '\n');
			if (r == NULL || (eol != NULL && r > eol) || !isdigit((unsigned char)r[5]))
				return 0; /* rbps=max or none: no read limit */
			return strtod(r + 5, NULL) / 1e6;
		}
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	return 0;
}

int detect_netdev(const char *text, size_t at, char *ifname, size_t len, uint64_t *rx)
{
	const char *line = text;
	size_t i = 0;
	while (line != NULL && *line != '\0') {
		const char *colon = strchr(line, ':'), *eol = strchr(line, '\n');
		if (colon != NULL && (eol == NULL || colon < eol)) {
			const char *name = line;
			while (*name == ' ')
				name++;
			size_t n = (size_t)(colon - name);
			if (n > 0 && n < len && i++ == at) {
				memcpy(ifname, name, n);
				ifname[n] = '\0';
				*rx = strtoull(colon + 1, NULL, 10);
				return 0;
			}
		}
		line = eol != NULL ? eol + 1 : NULL;
	}
	return -1;
}

/* ---- the machine ---- */

/* snprintf for the sources: a description cut short is still a description. */
static int detect_say(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int detect_say(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	if (n < 0)
		out[0] = '\0';
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* The whole of a small file into buf (NUL-terminated). Returns its length, or -1. */
static ssize_t detect_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t got = 0;
	if (fd < 0)
		return -1;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return close(fd) == 0 ? (ssize_t)got : -1;
}

/* Whether /sys/class/net/IF is this process's interface IF: a mount namespace made for a
 * network namespace without a sysfs of its own shows another namespace's interfaces there,
 * perhaps under the same name. Its index and hardware address must be ours (an ioctl on a
 * socket that is never connected: nothing is sent). */
static int detect_sysfs_ours(const char *ifname)
{
	char path[300], text[64];
	struct ifreq ifr;
	int ours = 0, fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || strlen(ifname) >= sizeof ifr.ifr_name) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, ifname);
	snprintf(path, sizeof path, "/sys/class/net/%s/ifindex", ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) == 0 && detect_read(path, text, sizeof text) > 0 &&
	    strtol(text, NULL, 10) == ifr.ifr_ifindex && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		const unsigned char *a = (const unsigned char *)ifr.ifr_hwaddr.sa_data;
		char mac[32];
		snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3],
			 a[4], a[5]);
		snprintf(path, sizeof path, "/sys/class/net/%s/address", ifname);
		ours = detect_read(path, text, sizeof text) > 0 && strncmp(text, mac, 17) == 0;
	}
	return close(fd) == 0 && ours;
}

/* Whether this process's interface IF is up (its own namespace's flags). */
static int detect_up(const char *ifname)
{
	struct ifreq ifr;
	int up = 0, fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof ifr);
	if (strlen(ifname) < sizeof ifr.ifr_name) {
		strcpy(ifr.ifr_name, ifname);
		up = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) &&
		     (ifr.ifr_flags & IFF_RUNNING);
	}
	return close(fd) == 0 && up;
}

/* An InfiniBand interface (IPoIB): the fastest rate of its device's ports. */
static double detect_ib_MBps(const char *ifname, char *how, size_t len)
{
	char dir[512], path[1024], text[128];
	double best = 0;
	snprintf(dir, sizeof dir, "/sys/class/net/%s/device/infiniband", ifname);
	DIR *d = opendir(dir);
	struct dirent *de;
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		for (int port = 1; port <= 4; port++) {
			snprintf(path, sizeof path, "%s/%s/ports/%d/rate", dir, de->d_name, port);
			double r = detect_read(path, text, sizeof text) > 0 ? detect_ib_rate_MBps(text) : 0;
			if (r > best) {
				best = r;
				text[strcspn(text, "\n")] = '\0';
				detect_say(how, len, "%s: %s", path, text);
			}
		}
	}
	closedir(d);
	return best;
}

/* An interface's speed, and where it was read; 0 with the reason in how. */
static double detect_iface_MBps(const char *ifname, char *how, size_t len)
{
	char path[512], text[64];
	if (!detect_sysfs_ours(ifname)) {
		detect_say(how, len, "/sys/class/net/%s is not this network namespace's (no sysfs "
			   "of its own)", ifname);
		return 0;
	}
	double r = detect_ib_MBps(ifname, how, len);
	if (r > 0)
		return r;
	snprintf(path, sizeof path, "/sys/class/net/%s/speed", ifname);
	if (detect_read(path, text, sizeof text) <= 0 || !((r = detect_speed_MBps(text)) > 0)) {
		detect_say(how, len, "%s states no speed", ifname);
		return 0;
	}
	detect_say(how, len, "%s: %ld Mb/s", path, strtol(text, NULL, 10));
	return r;
}

int detect_ifaces_up(char (*names)[DETECT_IFNAME_MAX], int max)
{
	char *text = malloc(DETECT_TEXT_MAX), name[DETECT_IFNAME_MAX];
	uint64_t rx;
	int n = 0;
	if (text == NULL || detect_read("/proc/self/net/dev", text, DETECT_TEXT_MAX) < 0) {
		free(text);
		return 0;
	}
	for (size_t i = 0; n < max && detect_netdev(text, i, name, sizeof name, &rx) == 0; i++)
		if (strcmp(name, "lo") != 0 && detect_up(name))
			strcpy(names[n++], name);
	free(text);
	return n;
}

int detect_rx_bytes(const char *ifname, uint64_t *rx)
{
	char *text = malloc(DETECT_TEXT_MAX), name[DETECT_IFNAME_MAX];
	int rc = -1;
	if (text != NULL && detect_read("/proc/self/net/dev", text, DETECT_TEXT_MAX) >= 0)
		for (size_t i = 0; rc != 0 && detect_netdev(text, i, name, sizeof name, rx) == 0; i++)
			if (strcmp(name, ifname) == 0)
				rc = 0;
	free(text);
	return rc;
}

/* Every interface that is up but loopback: their sum bounds what the node can receive. */
static double detect_all_ifaces(char *how, size_t len, const char *why)
{
	char names[160] = "", one[DETECT_SOURCE_MAX], up[16][DETECT_IFNAME_MAX];
	double sum = 0;
	int n = detect_ifaces_up(up, 16);
	for (int i = 0; i < n; i++) {
		double r = detect_iface_MBps(up[i], one, sizeof one);
		if (r > 0) {
			sum += r;
			size_t used = strlen(names);
			detect_say(names + used, sizeof names - used, "%s%s", used ? "+" : "", up[i]);
		}
	}
	if (sum > 0)
		detect_say(how, len, "the sum of the interfaces that are up (%s: /sys/class/net/*/speed; "
			   "%s)", names, why);
	return sum;
}

int detect_mount_iface(const struct mount_info *m, char *ifname, size_t len, char *why,
		       size_t wlen)
{
	char host[256], *text;
	uint32_t addr = 0;
	struct in_addr a;
	if (detect_source_host(m->source, host, sizeof host) != 0) {
		detect_say(why, wlen, "the mount source '%.100s' names no host", m->source);
		return -1;
	}
	if (inet_pton(AF_INET, host, &a) == 1) {
		addr = a.s_addr;
	} else {
		text = malloc(DETECT_TEXT_MAX);
		int found = text != NULL && detect_read("/etc/hosts", text, DETECT_TEXT_MAX) >= 0 &&
			    detect_hosts_lookup(text, host, &addr) == 0;
		free(text);
		if (!found) {
			detect_say(why, wlen, "%.100s is not in /etc/hosts (no DNS is asked)", host);
			return -1;
		}
	}
	if ((ntohl(addr) >> 24) == 127) /* the local table, not in /proc/net/route */
		return detect_say(ifname, len, "lo");
	text = malloc(DETECT_TEXT_MAX);
	int routed = text != NULL && detect_read("/proc/net/route", text, DETECT_TEXT_MAX) >= 0 &&
		     detect_route_iface(text, addr, ifname, len) == 0;
	free(text);
	if (!routed) {
		detect_say(why, wlen, "no IPv4 route to %.100s", host);
		return -1;
	}
	return 0;
}

static void detect_link(const struct mount_info *m, struct detected *d)
{
	char host[256] = "", iface[64], why[160], how[DETECT_SOURCE_MAX - 64];
	if (detect_mount_iface(m, iface, sizeof iface, why, sizeof why) == 0) {
		(void)detect_source_host(m->source, host, sizeof host);
		if ((d->link_MBps = detect_iface_MBps(iface, how, sizeof how)) > 0) {
			detect_say(d->link_source, sizeof d->link_source,
				   "%s, the interface of the route to %s", how, host);
			return;
		}
		detect_say(why, sizeof why, "%.100s (the interface of the route to %.40s)", how,
			   host);
	}
	if ((d->link_MBps = detect_all_ifaces(how, sizeof how, why)) > 0)
		detect_say(d->link_source, sizeof d->link_source, "%s", how);
	else
		detect_say(d->link_source, sizeof d->link_source, "unknown: %s; no interface "
			   "states its speed", why);
}

/* This process's cgroup as a directory: with v1's blkio controller mounted, its blkio
 * directory (*v1 = 1); else the v2 one. */
static int detect_cgroup(char *dir, size_t len, int *v1)
{
	char text[4096], *line, *save = NULL;
	if (detect_read("/proc/self/cgroup", text, sizeof text) <= 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(line, ':'), *path = ctl != NULL ? strchr(ctl + 1, ':') : NULL;
		if (path == NULL)
			continue;
		*path++ = '\0';
		ctl++;
		*v1 = strcmp(ctl, "blkio") == 0;
		if (*v1 && detect_say(dir, len, "/sys/fs/cgroup/blkio%s", path) == 0 &&
		    access(dir, F_OK) == 0)
			return 0;
		if (!*v1 && ctl[0] == '\0' &&
		    detect_say(dir, len, "/sys/fs/cgroup%s", path) == 0 && access(dir, F_OK) == 0)
			return 0;
	}
	return -1;
}

/* The least rbps over this cgroup and its parents, on the data's device or on the whole disk
 * it is a partition of. */
static void detect_disk(const char *root, struct detected *d)
{
	struct stat st;
	char dir[1024], path[1200], text[4096];
	unsigned maj, min, pmaj = 0, pmin = 0;
	int v1 = 0;
	if (stat(root, &st) != 0 || detect_cgroup(dir, sizeof dir, &v1) != 0)
		return;
	const char *file = v1 ? "blkio.throttle.read_bps_device" : "io.max";
	const char *top = v1 ? "/sys/fs/cgroup/blkio" : "/sys/fs/cgroup";
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/../dev", maj, min);
	if (detect_read(path, text, sizeof text) > 0 && sscanf(text, "%u:%u", &pmaj, &pmin) != 2)
		pmaj = pmin = 0;
	for (;;) {
		snprintf(path, sizeof path, "%s/%s", dir, file);
		if (detect_read(path, text, sizeof text) > 0) {
			double r = detect_io_max_MBps(text, maj, min, v1);
			double p = pmaj ? detect_io_max_MBps(text, pmaj, pmin, v1) : 0;
			if (p > 0 && (r == 0 || p < r))
				r = p;
			if (r > 0 && (d->disk_MBps == 0 || r < d->disk_MBps)) {
				d->disk_MBps = r;
				detect_say(d->disk_source, sizeof d->disk_source, "%.200s: %u:%u",
					 path, p == r ? pmaj : maj, p == r ? pmin : min);
			}
		}
		char *slash = strrchr(dir, '/');
		if (slash == NULL || strcmp(dir, top) == 0)
			break;
		*slash = '\0';
	}
}

void detect_limits(const char *root, const struct mount_info *m, int remote, struct detected *d)
{
	memset(d, 0, sizeof *d);
	if (remote == 1 && m != NULL)
		detect_link(m, d);
	else
		detect_disk(root, d);
}
