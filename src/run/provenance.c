/* provenance: the kernel's counters of where a phase's bytes came from (provenance.h). */
#include "run/provenance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/detect.h"
#include "run/envinfo.h"

int prov_parse_io(const char *text, uint64_t *read_bytes, uint64_t *rchar)
{
	const char *r = strstr(text, "\nread_bytes: "), *c = strstr(text, "rchar: ");
	if (r == NULL || c == NULL || (c != text && c[-1] != '\n'))
		return -1;
	*read_bytes = strtoull(r + 13, NULL, 10);
	*rchar = strtoull(c + 7, NULL, 10);
	return 0;
}

double prov_verdict(enum prov_kind kind, uint64_t bytes, uint64_t from_storage, char *out,
		    size_t len)
{
	if (kind == PROV_UNKNOWN || bytes == 0) {
		snprintf(out, len, "unknown");
		return NAN;
	}
	double f = (double)from_storage / (double)bytes;
	if (f > 1)
		f = 1; /* protocol headers, readahead past the end, other traffic */
	if (f >= 0.9)
		snprintf(out, len, "storage");
	else if (f <= 0.1)
		snprintf(out, len, "cache");
	else
		snprintf(out, len, "mixed: %.0f%% from cache", (1 - f) * 100);
	return f;
}

uint64_t prov_net_storage(uint64_t rx, double local)
{
	if (!(local > 0 && local < 1))
		return rx;
	double b = (double)rx / (1 - local);
	return b >= 18e18 ? UINT64_MAX : (uint64_t)llround(b);
}

enum prov_kind prov_kind_of(const char *desc)
{
	if (strcmp(desc, "read_bytes") == 0)
		return PROV_DISK;
	if (strncmp(desc, "net rx of ", 10) == 0)
		return PROV_NET;
	return PROV_UNKNOWN;
}

/* Every interface that is up, loopback aside: where a remote server cannot be placed. */
static void prov_all_ifaces(struct prov_source *ps)
{
	ps->nifaces = detect_ifaces_up(ps->ifaces, PROV_IFACES_MAX);
}

static void prov_net(const struct mount_info *m, struct prov_source *ps)
{
	char why[160];
	ps->kind = PROV_NET;
	if (detect_mount_iface(m, ps->ifaces[0], sizeof ps->ifaces[0], why, sizeof why) == 0) {
		ps->nifaces = 1;
		snprintf(ps->desc, sizeof ps->desc, "net rx of %s", ps->ifaces[0]);
		return;
	}
	prov_all_ifaces(ps);
	if (ps->nifaces == 0) {
		ps->kind = PROV_UNKNOWN;
		snprintf(ps->desc, sizeof ps->desc, "unknown: %.80s; no interface up", why);
		return;
	}
	snprintf(ps->desc, sizeof ps->desc, "net rx of all interfaces up (%.60s)", why);
}

void prov_setup(const char *path, int leader, struct prov_source *ps)
{
	struct mount_info m;
	struct pf_err ignored = {0};
	char text[1024];
	uint64_t rb, rc;
	memset(ps, 0, sizeof *ps);
	ps->leader = leader;
	if (envinfo_mount(path, &m, &ignored) != 0) {
		snprintf(ps->desc, sizeof ps->desc, "unknown: the mount of the data is not known");
		return;
	}
	int remote = envinfo_fs_remote(m.fstype, m.source);
	if (remote == 1) {
		prov_net(&m, ps);
	} else if (remote == 0 && strncmp(m.fstype, "fuse", 4) != 0) {
		if (detect_read("/proc/self/io", text, sizeof text) < 0 ||
		    prov_parse_io(text, &rb, &rc) != 0)
			snprintf(ps->desc, sizeof ps->desc, "unknown: no /proc/self/io");
		else
			ps->kind = PROV_DISK;
		if (ps->kind == PROV_DISK)
			snprintf(ps->desc, sizeof ps->desc, "read_bytes");
	} else {
		/* a FUSE daemon reads for us: our read_bytes stay 0 whatever it does */
		snprintf(ps->desc, sizeof ps->desc, "unknown: %.40s from %.30s: no local disk, no "
			 "server placed", m.fstype, m.source);
	}
}

void prov_sample(const struct prov_source *ps, struct prov_sample *out)
{
	char text[1024];
	memset(out, 0, sizeof *out);
	out->ok = detect_read("/proc/self/io", text, sizeof text) >= 0 &&
		  prov_parse_io(text, &out->read_bytes, &out->rchar) == 0;
	for (int i = 0; ps->kind == PROV_NET && ps->leader && i < ps->nifaces; i++) {
		uint64_t rx;
		if (detect_rx_bytes(ps->ifaces[i], &rx) != 0)
			out->ok = 0;
		else
			out->rx_bytes += rx;
	}
}
