/* ceiling: the limits a phase goes through (disks, links, uplinks, per-reader rate, memory
 * copy) from the declared or measured hardware; the least one is the ceiling. Pure maths. */
#include "report/ceiling.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"

static void ceil_add(struct ceil_result *r, const char *resource, double MBps, const char *how)
{
	if (r->nterms >= CEIL_MAX_TERMS || !(MBps > 0) || !isfinite(MBps))
		return;
	struct ceil_term *t = &r->term[r->nterms++];
	t->resource = resource;
	t->MBps = MBps;
	snprintf(t->how, sizeof t->how, "%s", how);
}

static const char *ceil_s(int n)
{
	return n == 1 ? "" : "s";
}

static double ceil_servers(const struct ceil_hw *hw, int run_nodes)
{
	if (hw->storage_servers > 0)
		return hw->storage_servers;
	return hw->data_on_compute_nodes ? (double)run_nodes : 0;
}

double ceiling_local_share(const struct ceil_hw *hw, int run_nodes)
{
	double servers = ceil_servers(hw, run_nodes);
	return hw->data_on_compute_nodes && servers > 0 ? 1.0 / servers : 0;
}

double ceiling_uplink_share(const struct ceil_hw *hw, int reader_nodes)
{
	if (!(hw->racks >= 2) || reader_nodes < 1)
		return 0;
	double used = fmin(hw->racks, (double)reader_nodes);
	double outside = hw->data_on_compute_nodes ? 1.0 - 1.0 / hw->racks : 1.0;
	return outside / used;
}

/* A figure of hw (MB/s) for a how string: the number and its unit as hw->shown says. */
#define CEIL_SHOW(hw, v) units_rate((v), (hw)->shown), units_rate_name((hw)->shown)

/* "/ 0.99 (1% of the data is local)" or "" when nothing is local. */
static void ceil_local_note(double local, char *buf, size_t len)
{
	buf[0] = '\0';
	if (local > 0)
		snprintf(buf, len, " / %.3g (%.3g%% of the data is local)", 1 - local, local * 100);
}

static void ceil_network(const struct ceil_hw *hw, const struct ceil_point *p,
			 struct ceil_result *r)
{
	char how[160], note[64];
	double servers = ceil_servers(hw, p->run_nodes), local = ceiling_local_share(hw, p->run_nodes);
	double slink = hw->server_link_MBps > 0 ? hw->server_link_MBps
			: hw->data_on_compute_nodes ? hw->node_link_MBps : 0;
	double sdisk = hw->server_disk_MBps > 0 ? hw->server_disk_MBps
			: hw->data_on_compute_nodes ? hw->node_disk_MBps : 0;
	ceil_local_note(local, note, sizeof note);
	snprintf(how, sizeof how, "%d node%s x %.6g %s%s", p->reader_nodes, ceil_s(p->reader_nodes),
		 CEIL_SHOW(hw, hw->node_link_MBps), note);
	ceil_add(r, "reader links", p->reader_nodes * hw->node_link_MBps / (1 - local), how);
	snprintf(how, sizeof how, "%.6g servers x %.6g %s%s", servers, CEIL_SHOW(hw, slink), note);
	ceil_add(r, "server links", servers * slink / (1 - local), how);
	snprintf(how, sizeof how, "%.6g servers x %.6g %s", servers, CEIL_SHOW(hw, sdisk));
	ceil_add(r, "server disks", servers * sdisk, how);
	double share = ceiling_uplink_share(hw, p->reader_nodes);
	if (share > 0) {
		snprintf(how, sizeof how, "%.6g %s per rack / %.3g (the share of all reads one "
			 "rack's uplinks carry)", CEIL_SHOW(hw, hw->rack_uplink_MBps), share);
		ceil_add(r, "rack uplinks", hw->rack_uplink_MBps / share, how);
	}
}

void ceiling_compute(const struct ceil_hw *hw, const struct ceil_point *p, struct ceil_result *r)
{
	char how[160];
	memset(r, 0, sizeof *r);
	r->limit = -1;
	r->MBps = NAN;
	if (!p->warm && (ceil_servers(hw, p->run_nodes) > 0 || hw->data_remote)) {
		ceil_network(hw, p, r);
	} else if (!p->warm) {
		snprintf(how, sizeof how, "%d node%s x %.6g %s", p->reader_nodes,
			 ceil_s(p->reader_nodes), CEIL_SHOW(hw, hw->node_disk_MBps));
		ceil_add(r, "node disks", p->reader_nodes * hw->node_disk_MBps, how);
	}
	if (!p->warm) {
		snprintf(how, sizeof how, "%d reader%s x %.6g %s", p->readers, ceil_s(p->readers),
			 CEIL_SHOW(hw, hw->reader_MBps));
		ceil_add(r, "per-reader rate", p->readers * hw->reader_MBps, how);
		snprintf(how, sizeof how, "%d node%s x %.6g %s (calibrated: read through the "
			 "file system, %d reader%s/node)", p->reader_nodes, ceil_s(p->reader_nodes),
			 CEIL_SHOW(hw, hw->node_fsread_MBps), hw->node_fsread_readers,
			 ceil_s(hw->node_fsread_readers));
		ceil_add(r, CEIL_FSREAD, p->reader_nodes * hw->node_fsread_MBps, how);
		snprintf(how, sizeof how, "%d node%s x %.6g %s (declared: one plain sequential read "
			 "through the file system's client)", p->reader_nodes, ceil_s(p->reader_nodes),
			 CEIL_SHOW(hw, hw->node_client_MBps));
		ceil_add(r, CEIL_CLIENT, p->reader_nodes * hw->node_client_MBps, how);
	}
	snprintf(how, sizeof how, "%d node%s x %.6g %s", p->reader_nodes, ceil_s(p->reader_nodes),
		 CEIL_SHOW(hw, hw->node_memcpy_MBps));
	ceil_add(r, "memory copy", p->reader_nodes * hw->node_memcpy_MBps, how);
	for (int i = 0; i < r->nterms; i++)
		if (r->limit < 0 || r->term[i].MBps < r->term[r->limit].MBps)
			r->limit = i;
	if (r->limit >= 0)
		r->MBps = r->term[r->limit].MBps;
}

double ceiling_client_share(const struct ceil_hw *hw, const struct ceil_point *p, double mean_MBps)
{
	if (p->warm || p->reader_nodes < 1 || !(hw->node_client_MBps > 0) ||
	    !isfinite(hw->node_client_MBps) || !isfinite(mean_MBps))
		return NAN;
	return mean_MBps / (p->reader_nodes * hw->node_client_MBps);
}

void ceil_hw_declared(struct ceil_hw *hw, const struct cfg_hardware *d)
{
	hw->node_disk_MBps = d->node_disk_MBps;
	hw->node_link_MBps = d->node_link_MBps;
	hw->node_memcpy_MBps = d->node_memcpy_MBps;
	hw->reader_MBps = d->reader_MBps;
	hw->storage_servers = (double)d->storage_servers;
	hw->server_disk_MBps = d->server_disk_MBps;
	hw->server_link_MBps = d->server_link_MBps;
	hw->data_on_compute_nodes = d->data_on_compute_nodes;
	hw->racks = (double)d->racks;
	hw->rack_uplink_MBps = d->rack_uplink_MBps;
	hw->node_client_MBps = d->node_client_MBps;
}

double ceiling_spread(const struct ceil_hw *hw, const char *resource)
{
	if (resource == NULL)
		return 0;
	if (strcmp(resource, "node disks") == 0)
		return hw->node_disk_spread;
	if (strcmp(resource, "reader links") == 0)
		return hw->node_link_spread;
	if (strcmp(resource, "server links") == 0 && !(hw->server_link_MBps > 0))
		return hw->node_link_spread;
	if (strcmp(resource, "server disks") == 0 && !(hw->server_disk_MBps > 0))
		return hw->node_disk_spread;
	if (strcmp(resource, "per-reader rate") == 0)
		return hw->reader_spread;
	if (strcmp(resource, "memory copy") == 0)
		return hw->node_memcpy_spread;
	if (strcmp(resource, CEIL_FSREAD) == 0)
		return hw->node_fsread_spread;
	return 0;
}
