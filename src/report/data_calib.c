/* data_calib: a calibration in the report's JSON (its "calibration" object): the file's
 * figures, every node's, and the spread of their repetitions. Keys and strings escaped. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/internal.h"

/* "name": value pairs, with the separator in front of all but the first. */
static void dc_key(FILE *out, const char *key, int first)
{
	fputs(first ? "" : ", ", out);
	rp_json_str(out, key);
	fputs(": ", out);
}

static void dc_str(FILE *out, const char *key, const char *s, int first)
{
	dc_key(out, key, first);
	rp_json_str(out, s);
}

static void dc_num(FILE *out, const char *key, double v)
{
	dc_key(out, key, 0);
	rp_json_num(out, v);
}

/* A rate (MB/s) in unit u, its key's "_MBps" as u names it ("_MiBps"). */
static void dc_rate(FILE *out, enum units_rate u, const char *key, double v)
{
	size_t n = strlen(key) - strlen("MBps"); /* every key given here ends in MBps */
	fprintf(out, ", \"%.*s%s\": ", (int)n, key, units_rate_key(u));
	rp_json_num(out, units_rate(v, u));
}

static void dc_u64(FILE *out, const char *key, uint64_t v)
{
	dc_key(out, key, 0);
	fprintf(out, "%" PRIu64, v);
}

/* "KEY": {n, median_MBps, min_MBps, max_MBps, q1_MBps, q3_MBps, max_over_min, stable} */
static void dc_spread(FILE *out, const char *key, const struct calib_spread *s,
		      enum units_rate u)
{
	dc_key(out, key, 0);
	fprintf(out, "{\"n\": %d", s->n);
	dc_rate(out, u, "median_MBps", s->median);
	dc_rate(out, u, "min_MBps", s->min);
	dc_rate(out, u, "max_MBps", s->max);
	dc_rate(out, u, "q1_MBps", s->q1);
	dc_rate(out, u, "q3_MBps", s->q3);
	dc_num(out, "max_over_min", s->ratio);
	dc_key(out, "stable", 0);
	fputs(s->n >= 2 && !calib_spread_wide(s) ? "true}" : "false}", out);
}

/* "fs_read": null, or the read through the file system: its steps, figure and spread */
static void dc_fs(FILE *out, const struct calib_data *c, enum units_rate u)
{
	dc_key(out, "fs_read", 0);
	if (c->fs_dataset == NULL || c->fs_nsteps < 1) {
		fputs("null", out);
		return;
	}
	fputs("{", out);
	dc_str(out, "dataset", c->fs_dataset, 1);
	dc_u64(out, "bytes", c->fs_bytes);
	dc_u64(out, "readers_per_node", (uint64_t)(c->fs_readers > 0 ? c->fs_readers : 0));
	dc_key(out, "stopped_rising", 0);
	fputs(c->fs_flat ? "true" : "false", out);
	dc_rate(out, u, "MBps", c->fs_read_MBps);
	dc_spread(out, "spread", &c->fs_spread, u);
	dc_key(out, "steps", 0);
	fputc('[', out);
	for (int i = 0; i < c->fs_nsteps; i++) {
		fprintf(out, "%s{\"readers_per_node\": %d", i ? ", " : "", (int)c->fs_step[i].readers);
		dc_rate(out, u, "MBps", c->fs_step[i].MBps);
		fputc('}', out);
	}
	fputs("]}", out);
}

void rp_json_calib(FILE *out, const struct calib_data *c, enum units_rate u)
{
	static const char *const spread_key[CALIB_NFIG] = {"disk_spread", "memcpy_spread",
							   "link_spread"};
	fputs("\"calibration\": ", out);
	if (c == NULL) {
		fputs("null", out);
		return;
	}
	fputs("{", out);
	dc_str(out, "file", c->path, 1);
	dc_str(out, "start_time", c->start_time, 0);
	dc_str(out, "disk_source", c->disk_source, 0);
	dc_str(out, "disk_method", c->disk_method, 0);
	dc_u64(out, "disk_bytes", c->disk_bytes);
	dc_u64(out, "mem_bytes", c->mem_bytes);
	dc_u64(out, "msg_bytes", c->msg_bytes);
	dc_rate(out, u, "disk_MBps", c->disk_MBps);
	dc_rate(out, u, "memcpy_MBps", c->memcpy_MBps);
	dc_rate(out, u, "link_MBps", c->link_MBps);
	dc_u64(out, "repetitions", (uint64_t)(c->reps > 0 ? c->reps : 0));
	dc_u64(out, "llc_bytes", c->llc_bytes);
	dc_num(out, "disk_resident", c->disk_resident);
	for (int k = 0; k < CALIB_NFIG; k++)
		dc_spread(out, spread_key[k], &c->spread[k], u);
	dc_fs(out, c, u);
	dc_key(out, "nodes", 0);
	fputc('[', out);
	for (int n = 0; n < c->nnodes; n++) {
		fputs(n ? ", {" : "{", out);
		dc_str(out, "host", c->nodes[n].host, 1);
		dc_rate(out, u, "disk_MBps", c->nodes[n].disk_MBps);
		dc_rate(out, u, "memcpy_MBps", c->nodes[n].memcpy_MBps);
		dc_rate(out, u, "link_MBps", c->nodes[n].link_MBps);
		for (int k = 0; k < CALIB_NFIG; k++)
			dc_spread(out, spread_key[k], &c->nodes[n].spread[k], u);
		dc_rate(out, u, "fs_read_MBps", c->fs_dataset ? c->nodes[n].fs_read_MBps : NAN);
		if (c->fs_dataset != NULL)
			dc_spread(out, "fs_read_spread", &c->nodes[n].fs_spread, u);
		fputc('}', out);
	}
	fputs("]}", out);
}
