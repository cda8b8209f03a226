/* report_data: the report for programs. csv: one row per cell with a header row; json: every
 * run's meta data, hardware, memory per rank, cells, time split, nodes, stragglers and phases,
 * the comparisons and the calibration (schema in the README, "Reports"). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"
#include "report/internal.h"
#include "util/safe.h"

/* ---- csv ---- */

/* A string cell. A results file may be someone else's: what util/safe does not keep
 * (controls, C1, bytes that are not UTF-8) and the backslash are written \xNN (SAFE_EXACT),
 * so a cell is one line, nothing in it drives a terminal, and undoing each \xNN gives the
 * bytes back (docs/report.md). A spreadsheet runs a cell that starts with = + - @ as a
 * formula (a tab or carriage return, \x09 and \x0d here, cannot come first): such a cell
 * gets a leading ' (shown as text, the way spreadsheets mark text). Numbers never come here
 * (csv_num), so a negative figure stays a number. */
void rp_csv_field(FILE *out, const char *s)
{
	int formula = s[0] != '\0' && strchr("=+-@", s[0]) != NULL;
	int quote = formula || strpbrk(s, ",\"") != NULL;
	if (quote)
		fputs(formula ? "\"'" : "\"", out);
	while (*s) {
		struct safe_unit u = safe_next(s);
		char buf[SAFE_UNIT_MAX];
		if (*s == '"')
			fputc('"', out);
		fwrite(buf, 1, safe_unit_text(s, u, SAFE_EXACT, buf), out);
		s += u.len;
	}
	if (quote)
		fputc('"', out);
}

/* ",value" with the given decimals; an empty field when it is not finite. */
static void csv_num(FILE *out, double v, int decimals)
{
	fputc(',', out);
	if (isfinite(v))
		fprintf(out, "%.*f", decimals, v);
}

static void csv_str(FILE *out, const char *s)
{
	fputc(',', out);
	rp_csv_field(out, s);
}

/* A cell's sweep key k as a CSV column or JSON key: its name, with _B for a byte count. */
static const char *cell_key_name(int k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", sweep_fields[k].name,
		 sweep_fields[k].flags & SWEEP_BYTES ? "_B" : "");
	return buf;
}

/* The sweep keys' CSV columns, those of SWEEP_CSV_LATE or the others. */
static void csv_key_names(FILE *out, unsigned late)
{
	char name[64];
	for (int k = 0; k < SWEEP_NKEYS; k++)
		if (!(sweep_fields[k].flags & SWEEP_CSV_LATE) == !late)
			fprintf(out, ",%s", cell_key_name(k, name, sizeof name));
}

/* ",value": a number as digits, a string as csv_str writes it. */
static void csv_keys(FILE *out, const struct sweep_point *p, unsigned late)
{
	for (int k = 0; k < SWEEP_NKEYS; k++) {
		if (!(sweep_fields[k].flags & SWEEP_CSV_LATE) != !late)
			continue;
		if (sweep_fields[k].kind == SWEEP_STR)
			csv_str(out, sweep_string(p, k));
		else if (sweep_fields[k].kind == SWEEP_I32)
			fprintf(out, ",%d", (int)(int64_t)sweep_number(p, k));
		else
			fprintf(out, ",%" PRIu64, sweep_number(p, k));
	}
}

void rp_csv_names(FILE *out, enum units_rate u, const char *names)
{
	const char *at;
	while ((at = strstr(names, "MBps")) != NULL) {
		fprintf(out, "%.*s%s", (int)(at - names), names, units_rate_key(u));
		names = at + strlen("MBps");
	}
	fputs(names, out);
}

void rp_csv_header(FILE *out, enum units_rate u, const char *more)
{
	fputs("file", out);
	csv_key_names(out, 0);
	rp_csv_names(out, u, ",n,mean_MBps,min_MBps,max_MBps");
	csv_key_names(out, 1);
	rp_csv_names(out, u, ",warm,sd_MBps,ci95_MBps,median_MBps,stonewall_MBps,spread_s,"
		     "files_per_s,metadata_fraction,resident_fraction,readers,reader_nodes,"
		     "ceiling_MBps,limit,efficiency,cache_state,repetitions,bytes_from,"
		     "from_storage_fraction,short_cause,shortfall,cpu_s_per_GB,ceiling_contradicted");
	rp_csv_names(out, u, more);
	fputc('\n', out);
}

void rp_csv_cell(FILE *out, const char *path, const struct report_cell *c, enum units_rate u)
{
	rp_csv_field(out, path);
	csv_keys(out, &c->sweep, 0);
	fprintf(out, ",%d", c->n);
	csv_num(out, units_rate(c->mean_MBps, u), 3);
	csv_num(out, units_rate(c->min_MBps, u), 3);
	csv_num(out, units_rate(c->max_MBps, u), 3);
	csv_keys(out, &c->sweep, 1);
	fprintf(out, ",%d", c->state != CACHE_COLD);
	csv_num(out, units_rate(c->sd_MBps, u), 3);
	csv_num(out, units_rate(c->ci95_MBps, u), 3);
	csv_num(out, units_rate(c->median_MBps, u), 3);
	csv_num(out, units_rate(c->stonewall_MBps, u), 3);
	csv_num(out, c->spread_s, 6);
	csv_num(out, c->files_per_s, 3);
	csv_num(out, c->meta_fraction, 6);
	csv_num(out, c->resident_fraction, 6);
	fprintf(out, ",%d,%d", c->readers, c->reader_nodes);
	csv_num(out, units_rate(c->ceiling_MBps, u), 3);
	csv_str(out, c->limit);
	csv_num(out, c->efficiency, 6);
	csv_str(out, cache_state_name(c->state));
	csv_str(out, c->repetitions);
	csv_str(out, c->from);
	csv_num(out, c->from_storage, 6);
	csv_str(out, c->cause);
	csv_str(out, c->shortfall);
	csv_num(out, c->cpu_s_per_GB, 6);
	/* 1: above REPORT_ABOVE of its ceiling, which it contradicts; empty: no ceiling */
	if (isfinite(c->efficiency))
		fprintf(out, ",%d", c->efficiency > REPORT_ABOVE);
	else
		fputc(',', out);
}

/* ---- json ---- */

/* "name": value pairs, with the separator in front of all but the first. */
static void json_key(FILE *out, const char *key, int first)
{
	fputs(first ? "" : ", ", out);
	rp_json_str(out, key); /* keys from the file (environment) too: escaped */
	fputs(": ", out);
}

static void json_kstr(FILE *out, const char *key, const char *s, int first)
{
	json_key(out, key, first);
	rp_json_str(out, s);
}

static void json_kint(FILE *out, const char *key, long long v, int first)
{
	json_key(out, key, first);
	fprintf(out, "%lld", v);
}

static void json_ku64(FILE *out, const char *key, uint64_t v, int first)
{
	json_key(out, key, first);
	fprintf(out, "%" PRIu64, v);
}

static void json_knum(FILE *out, const char *key, double v, int first)
{
	json_key(out, key, first);
	rp_json_num(out, v);
}

/* A rate: the figure (MB/s) in unit u, under key with its "MBps" as u names it ("MiBps"). */
static void json_krate(FILE *out, enum units_rate u, const char *key, double v, int first)
{
	const char *at = strstr(key, "MBps");
	fputs(first ? "" : ", ", out);
	fputc('"', out);
	if (at != NULL)
		fprintf(out, "%.*s%s%s", (int)(at - key), key, units_rate_key(u), at + strlen("MBps"));
	else
		fputs(key, out);
	fputs("\": ", out);
	rp_json_num(out, units_rate(v, u));
}

static void json_kbool(FILE *out, const char *key, int v, int first)
{
	json_key(out, key, first);
	fputs(v ? "true" : "false", out);
}

static void json_meta(FILE *out, const struct run_data *run)
{
	fputs("\"meta\": {", out);
	json_kstr(out, "pfsread_version", run->pfsread_version, 1);
	json_kint(out, "schema_version", run->schema_version, 0);
	json_kstr(out, "config_path", run->config_path, 0);
	json_kstr(out, "command_line", run->command_line, 0);
	json_kstr(out, "start_time", run->start_time, 0);
	json_kstr(out, "mpi_version", run->mpi_version, 0);
	json_kstr(out, "hdf5_version", run->hdf5_version, 0);
	json_kstr(out, "job_id", run->job_id, 0);
	json_kstr(out, "status", run->status, 0);
	json_kint(out, "nranks", run->nranks, 0);
	json_kint(out, "nnodes", run->nnodes, 0);
	json_key(out, "hostnames", 0);
	fputc('[', out);
	for (int i = 0; run->hostnames != NULL && i < run->nnodes; i++) {
		fputs(i ? ", " : "", out);
		rp_json_str(out, run->hostnames[i]);
	}
	fputs("], \"environment\": {", out);
	for (size_t i = 0; i < run->env.n && i < ENV_MAX; i++)
		json_kstr(out, run->env.e[i].key, run->env.e[i].value, i == 0);
	fputs("}, ", out);
	json_kstr(out, "config_yaml", run->config_yaml, 1);
	fputs("}", out);
}

/* A hardware figure: its rate, null when unknown (<= 0). */
static void json_khw(FILE *out, const struct rp_run *r, const char *key, double v)
{
	json_krate(out, r->units, key, v > 0 ? v : NAN, 0);
}

static void json_hardware(FILE *out, const struct rp_run *r)
{
	const struct ceil_hw *h = r->hw;
	fputs("\"hardware\": ", out);
	if (h == NULL) {
		fputs("null", out);
		return;
	}
	fputs("{", out);
	json_kstr(out, "source", r->hw_note, 1);
	json_khw(out, r, "node_disk_MBps", h->node_disk_MBps);
	json_khw(out, r, "node_link_MBps", h->node_link_MBps);
	json_khw(out, r, "node_memcpy_MBps", h->node_memcpy_MBps);
	json_khw(out, r, "reader_MBps", h->reader_MBps);
	json_knum(out, "storage_servers", h->storage_servers > 0 ? h->storage_servers : NAN, 0);
	json_khw(out, r, "server_disk_MBps", h->server_disk_MBps);
	json_khw(out, r, "server_link_MBps", h->server_link_MBps);
	json_kbool(out, "data_on_compute_nodes", h->data_on_compute_nodes, 0);
	json_kbool(out, "data_remote", h->data_remote, 0);
	json_knum(out, "racks", h->racks > 0 ? h->racks : NAN, 0);
	json_khw(out, r, "rack_uplink_MBps", h->rack_uplink_MBps);
	/* a calibrated figure's repetitions, max / min; null for one not measured */
	json_knum(out, "node_disk_max_over_min", h->node_disk_spread > 0 ? h->node_disk_spread : NAN, 0);
	json_knum(out, "node_link_max_over_min", h->node_link_spread > 0 ? h->node_link_spread : NAN, 0);
	json_knum(out, "node_memcpy_max_over_min",
		  h->node_memcpy_spread > 0 ? h->node_memcpy_spread : NAN, 0);
	json_knum(out, "reader_max_over_min", h->reader_spread > 0 ? h->reader_spread : NAN, 0);
	/* calibrate --through-fs: the per-node read ceiling, its readers per node and spread */
	json_khw(out, r, "node_fsread_MBps", h->node_fsread_MBps);
	json_knum(out, "node_fsread_readers",
		  h->node_fsread_readers > 0 ? (double)h->node_fsread_readers : NAN, 0);
	json_knum(out, "node_fsread_max_over_min",
		  h->node_fsread_spread > 0 ? h->node_fsread_spread : NAN, 0);
	/* declared: a plain sequential read through the file system's client on one node */
	json_khw(out, r, "node_client_MBps", h->node_client_MBps);
	fputs("}", out);
}

/* "name": value of sweep key k of p: a number as digits, a string as a JSON string. */
static void json_ksweep(FILE *out, const char *name, const struct sweep_point *p, int k,
			int first)
{
	if (sweep_fields[k].kind == SWEEP_STR)
		json_kstr(out, name, sweep_string(p, k), first);
	else if (sweep_fields[k].kind == SWEEP_I32)
		json_kint(out, name, (int64_t)sweep_number(p, k), first);
	else
		json_ku64(out, name, sweep_number(p, k), first);
}

static void json_cell_keys(FILE *out, const struct report_cell *c)
{
	char name[64];
	for (int k = 0; k < SWEEP_NKEYS; k++)
		json_ksweep(out, cell_key_name(k, name, sizeof name), &c->sweep, k, k == 0);
	json_kbool(out, "warm", c->state != CACHE_COLD, 0);
	json_kstr(out, "cache_state", cache_state_name(c->state), 0);
	json_kstr(out, "repetitions", c->repetitions, 0);
}

static void json_ceiling(FILE *out, const struct rp_run *r, const struct report_cell *c)
{
	struct ceil_result res;
	struct report_cell tmp = *c;
	json_key(out, "ceiling", 0);
	if (r->hw == NULL) {
		fputs("null", out);
		return;
	}
	report_cell_ceiling(&tmp, r->hw, r->run->nnodes, &res);
	fputs("{", out);
	json_krate(out, r->units, "MBps", res.MBps, 1);
	json_kstr(out, "limit", res.limit >= 0 ? res.term[res.limit].resource : NULL, 0);
	json_knum(out, "efficiency", tmp.efficiency, 0);
	/* above REPORT_ABOVE of it: the measurement contradicts the ceiling */
	json_key(out, "contradicted", 0);
	fputs(tmp.efficiency > REPORT_ABOVE ? "true" : "false", out);
	/* the limiting figure's spread over its calibration's repetitions; null: not measured */
	double spread = ceiling_spread(r->hw, res.limit >= 0 ? res.term[res.limit].resource : NULL);
	json_knum(out, "limit_max_over_min", spread > 0 ? spread : NAN, 0);
	/* its share of the client's own ceiling, limit or not: pfsread / the declared peer */
	struct ceil_point p = {c->reader_nodes, c->readers, r->run->nnodes, c->state != CACHE_COLD};
	json_knum(out, "client_share", ceiling_client_share(r->hw, &p, c->mean_MBps), 0);
	/* below REPORT_SHORT_OF of it (cold): the likely cause; null when it is not short */
	json_kstr(out, "short_cause", c->cause[0] ? c->cause : NULL, 0);
	json_kstr(out, "shortfall", c->shortfall[0] ? c->shortfall : NULL, 0);
	json_key(out, "terms", 0);
	fputc('[', out);
	for (int i = 0; i < res.nterms; i++) {
		fputs(i ? ", {" : "{", out);
		json_kstr(out, "resource", res.term[i].resource, 1);
		json_krate(out, r->units, "MBps", res.term[i].MBps, 0);
		json_kstr(out, "how", res.term[i].how, 0);
		fputc('}', out);
	}
	fputs("]}", out);
}

static void json_cell(FILE *out, const struct rp_run *r, const struct report_cell *c)
{
	fputs("{", out);
	json_cell_keys(out, c);
	json_kint(out, "n", c->n, 0);
	json_krate(out, r->units, "mean_MBps", c->mean_MBps, 0);
	json_krate(out, r->units, "min_MBps", c->min_MBps, 0);
	json_krate(out, r->units, "max_MBps", c->max_MBps, 0);
	json_krate(out, r->units, "sd_MBps", c->sd_MBps, 0);
	json_krate(out, r->units, "ci95_MBps", c->ci95_MBps, 0);
	json_krate(out, r->units, "median_MBps", c->median_MBps, 0);
	json_knum(out, "cpu_s_per_GB", c->cpu_s_per_GB, 0);
	json_krate(out, r->units, "stonewall_MBps", c->stonewall_MBps, 0);
	json_knum(out, "spread_s", c->spread_s, 0);
	json_knum(out, "files_per_s", c->files_per_s, 0);
	json_knum(out, "metadata_fraction", c->meta_fraction, 0);
	json_knum(out, "resident_fraction", c->resident_fraction, 0);
	json_kint(out, "readers", c->readers, 0);
	json_kint(out, "reader_nodes", c->reader_nodes, 0);
	json_kint(out, "targets", c->targets, 0);
	json_knum(out, "targets_used", c->targets_used, 0);
	json_knum(out, "targets_could", c->targets_could, 0);
	json_knum(out, "targets_used_share", c->target_share, 0);
	json_knum(out, "targets_heaviest_share", c->target_heaviest, 0);
	json_kstr(out, "bytes_from", c->from, 0);
	json_knum(out, "from_storage_fraction", c->from_storage, 0);
	json_ceiling(out, r, c);
	fputs("}", out);
}

/* A phase: its attributes under their HDF5 names, then figures derived from its records. */
static void json_phase(FILE *out, const struct rp_run *r, size_t i)
{
	const struct phase_data *pd = &r->run->phases[i];
	const struct phase_info *p = &pd->info;
	struct phase_summary s;
	struct phase_provenance from;
	analyze_phase(pd, &s);
	analyze_provenance(pd, r->local, &from);
	fputs("{", out);
	json_kint(out, "index", p->index, 1);
	for (int k = 0; k < SWEEP_NKEYS; k++)
		json_ksweep(out, sweep_fields[k].name, &p->sweep, k, 0);
	json_ku64(out, "nfiles", p->nfiles, 0);
	json_kint(out, "active_readers", p->active_readers, 0);
	json_kint(out, "repetition", p->repetition, 0);
	json_ku64(out, "seed", p->seed, 0);
	json_knum(out, "resident_fraction", p->resident_fraction, 0);
	json_ku64(out, "bytes", p->bytes, 0);
	json_knum(out, "elapsed_s", p->elapsed_s, 0);
	json_krate(out, r->units, "bandwidth_MBps", p->bandwidth_MBps, 0);
	json_kstr(out, "status", results_phase_status_name(p->status), 0);
	json_kstr(out, "invalid", report_phase_invalid(p), 0); /* null: its figures can be true */
	json_kbool(out, "warm", report_phase_state(p) != CACHE_COLD, 0);
	json_kstr(out, "cache_state", cache_state_name(report_phase_state(p)), 0);
	json_knum(out, "start_skew_s", p->start_skew_s, 0);
	json_knum(out, "clock_bound_s", p->clock_bound_s, 0);
	json_kstr(out, "flags", p->flags, 0);
	json_kstr(out, "cache_evict", p->cache_evict, 0);
	json_kstr(out, "provenance", p->provenance, 0);
	json_kstr(out, "bytes_from", from.verdict, 0);
	json_knum(out, "from_storage_fraction", from.fraction, 0);
	json_ku64(out, "from_storage_bytes", from.from_storage, 0);
	json_kstr(out, "provenance_note", from.why, 0);
	json_kstr(out, "hints", p->hints, 0);
	json_knum(out, "origin_s", r->run->schema_version >= 7 ? p->origin_s : NAN, 0);
	json_knum(out, "outside_s", analyze_outside_s(r->run, i), 0);
	json_ku64(out, "files_read", s.files, 0);
	json_knum(out, "files_per_s", s.files_per_s, 0);
	json_knum(out, "open_s", s.open_s, 0);
	json_knum(out, "read_s", s.read_s, 0);
	json_knum(out, "close_s", s.close_s, 0);
	json_knum(out, "overlap_s", s.overlap_s, 0);
	json_knum(out, "cpu_user_s", s.cpu_user_s, 0);
	json_knum(out, "cpu_sys_s", s.cpu_sys_s, 0);
	json_knum(out, "cpu_s_per_GB", s.cpu_s_per_GB, 0);
	json_knum(out, "metadata_fraction", s.meta_fraction, 0);
	json_kint(out, "readers", s.readers, 0);
	json_knum(out, "first_finish_s", s.first_end, 0);
	json_knum(out, "last_finish_s", s.last_end, 0);
	json_knum(out, "stonewall_bytes", s.stonewall_bytes, 0);
	json_krate(out, r->units, "stonewall_MBps", s.stonewall_MBps, 0);
	json_knum(out, "spread_s", s.spread_s, 0);
	fputs("}", out);
}

static void json_sizes(FILE *out, const struct rp_run *r)
{
	fputs("\"size_classes\": [", out);
	for (long i = 0; i < r->nsizes; i++) {
		const struct report_size_class *k = &r->sizes[i];
		fputs(i ? ", {" : "{", out);
		json_ku64(out, "file_size_B", k->file_size, 1);
		json_kint(out, "phases", k->phases, 0);
		json_ku64(out, "files", k->files, 0);
		json_knum(out, "open_s_per_file", k->open_s, 0);
		json_knum(out, "read_s_per_file", k->read_s, 0);
		json_knum(out, "close_s_per_file", k->close_s, 0);
		json_knum(out, "metadata_fraction", k->meta_fraction, 0);
		fputc('}', out);
	}
	fputs("]", out);
}

static void json_nodes(FILE *out, const struct rp_run *r)
{
	char host[RECORD_HOST_MAX];
	fputs("\"nodes\": [", out);
	for (int n = 0; n < r->run->nnodes; n++) {
		const struct report_node *k = &r->nodes[n];
		fputs(n ? ", {" : "{", out);
		json_kint(out, "node", n, 1);
		json_kstr(out, "host", rp_host(r->run, n, host, sizeof host), 0);
		json_kint(out, "ranks", k->ranks, 0);
		json_kint(out, "phases", k->phases, 0);
		json_krate(out, r->units, "mean_MBps", k->mean_MBps, 0);
		json_knum(out, "vs_median_mean", k->rel_mean, 0);
		json_knum(out, "vs_median_worst", k->rel_worst, 0);
		fputc('}', out);
	}
	fputs("]", out);
}

static void json_stragglers(FILE *out, const struct rp_run *r, const char *key,
			    const struct report_straggler *s, size_t n, int files, int first);

/* The storage targets, node x target and the verdict (report_attrib). */
static void json_targets(FILE *out, const struct rp_run *r)
{
	const struct report_attrib *a = &r->attrib;
	char host[RECORD_HOST_MAX];
	fputs("\"targets\": [", out);
	for (size_t t = 0; t < a->ntargets; t++) {
		const struct report_target *k = &a->targets[t];
		fputs(t ? ", {" : "{", out);
		json_kstr(out, "target", k->name, 1);
		json_kint(out, "known", k->known, 0);
		json_ku64(out, "files", k->files, 0);
		json_ku64(out, "bytes", k->bytes, 0);
		json_krate(out, r->units, "MBps_per_file", k->MBps, 0);
		json_knum(out, "vs_phase_median", k->rel, 0);
		json_kbool(out, "slow_from_every_node", k->slow_all, 0);
		json_knum(out, "vs_other_targets_least", k->ratio, 0);
		json_stragglers(out, r, "slowest_files", k->slow, k->nslow, 1, 0);
		fputc('}', out);
	}
	fputs("],\n   \"attribution\": {", out);
	json_kstr(out, "verdict", a->verdict, 1);
	json_key(out, "slow_nodes", 0);
	fputc('[', out);
	for (int n = 0, k = 0; n < a->nnodes; n++)
		if (a->node_slow[n]) {
			fputs(k++ ? ", " : "", out);
			rp_json_str(out, rp_host(r->run, n, host, sizeof host));
		}
	fputc(']', out);
	json_key(out, "slow_targets", 0);
	fputc('[', out);
	for (size_t t = 0, k = 0; t < a->ntargets; t++)
		if (a->targets[t].slow_all) {
			fputs(k++ ? ", " : "", out);
			rp_json_str(out, a->targets[t].name);
		}
	fputc(']', out);
	json_knum(out, "node_threshold_x", REPORT_SLOW_NODE, 0);
	json_knum(out, "target_threshold_x", REPORT_SLOW_TARGET, 0);
	json_key(out, "node_x_target", 0);
	fputc('[', out); /* per node: each target's mean file time over its phase's median */
	for (int n = 0; n < a->nnodes; n++) {
		fputs(n ? ", [" : "[", out);
		for (size_t t = 0; t < a->ntargets; t++) {
			fputs(t ? ", " : "", out);
			rp_json_num(out, a->cell[(size_t)n * a->ntargets + t]);
		}
		fputc(']', out);
	}
	fputs("]}", out);
}

static void json_stragglers(FILE *out, const struct rp_run *r, const char *key,
			    const struct report_straggler *s, size_t n, int files, int first)
{
	char host[RECORD_HOST_MAX];
	json_key(out, key, first);
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", {" : "{", out);
		json_kint(out, "phase", r->run->phases[s[i].phase].info.index, 1);
		json_kint(out, "node", s[i].node, 0);
		json_kstr(out, "host", rp_host(r->run, s[i].node, host, sizeof host), 0);
		if (files) {
			json_kint(out, "rank", s[i].rank, 0);
			json_ku64(out, "file", s[i].file, 0);
		}
		if (files) {
			json_knum(out, "seconds", s[i].value, 0);
			json_knum(out, "median_seconds", s[i].median, 0);
		} else {
			json_krate(out, r->units, "MBps", s[i].value, 0);
			json_krate(out, r->units, "median_MBps", s[i].median, 0);
		}
		json_knum(out, "times_slower", s[i].slower, 0);
		fputc('}', out);
	}
	fputc(']', out);
}

/* What the run cost in memory per rank, as the text's memory line: null for a file that
 * records none (before schema 3). */
static int json_memory(FILE *out, const struct rp_run *r, struct pf_err *e)
{
	struct rss_summary s;
	if (analyze_peak_rss(r->run, &s) != 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	fputs("\"memory\": ", out);
	if (s.ranks == 0) {
		fputs("null", out);
		return 0;
	}
	fputs("{", out);
	json_ku64(out, "peak_rss_max_B", s.max, 1);
	json_kint(out, "peak_rss_max_rank", s.max_rank, 0);
	json_knum(out, "peak_rss_median_B", s.median, 0);
	json_ku64(out, "ranks", s.ranks, 0);
	fputs("}", out);
	return 0;
}

static int json_run(FILE *out, const struct rp_run *r, struct pf_err *e)
{
	fputs("  {", out);
	json_kstr(out, "file", r->run->path, 1);
	fputs(",\n   ", out);
	json_meta(out, r->run);
	fputs(",\n   ", out);
	json_hardware(out, r);
	fputs(",\n   ", out);
	if (json_memory(out, r, e) != 0)
		return -1;
	fputs(",\n   \"cells\": [", out);
	for (long i = 0; i < r->ncells; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_cell(out, r, &r->cells[i]);
	}
	fputs("],\n   ", out);
	json_sizes(out, r);
	fputs(",\n   ", out);
	json_nodes(out, r);
	fputs(",\n   ", out);
	json_targets(out, r);
	fputs(",\n   \"stragglers\": {", out);
	json_stragglers(out, r, "nodes", r->slow_nodes, r->nslow_nodes, 0, 1);
	json_stragglers(out, r, "files", r->slow_files, r->nslow_files, 1, 0);
	json_knum(out, "node_threshold_x", REPORT_SLOW_NODE, 0);
	json_knum(out, "file_threshold_x", REPORT_SLOW_FILE, 0);
	fputs("},\n   \"phases\": [", out);
	for (size_t i = 0; i < r->run->nphases; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_phase(out, r, i);
	}
	fputs("]}", out);
	return 0;
}

static void json_pair(FILE *out, const struct rp_run *a, const struct rp_run *b,
		      const struct report_pair *p)
{
	const struct report_cell *ca = &a->cells[p->a], *cb = &b->cells[p->b];
	fputs("{\"a\": {", out);
	json_cell_keys(out, ca);
	json_kint(out, "n", ca->n, 0);
	json_krate(out, a->units, "mean_MBps", ca->mean_MBps, 0);
	json_krate(out, a->units, "ci95_MBps", ca->ci95_MBps, 0);
	fputs("}, \"b\": {", out);
	json_cell_keys(out, cb);
	json_kint(out, "n", cb->n, 0);
	json_krate(out, a->units, "mean_MBps", cb->mean_MBps, 0);
	json_krate(out, a->units, "ci95_MBps", cb->ci95_MBps, 0);
	fputs("}", out);
	json_knum(out, "ratio", p->ratio, 0);
	json_key(out, "beyond_noise", 0);
	fputs(p->overlap < 0 ? "null" : p->overlap ? "false" : "true", out);
	json_krate(out, a->units, "mdd_MBps", p->mdd_MBps, 0);
	json_kint(out, "reps_to_decide", (long long)p->reps, 0);
	fputs("}", out);
}

static void json_key_list(FILE *out, const char *key, unsigned bits)
{
	int first = 1;
	json_key(out, key, 0);
	fputc('[', out);
	for (int k = 0; k < REPORT_NKEYS; k++)
		if (bits >> k & 1u) {
			fputs(first ? "" : ", ", out);
			rp_json_str(out, report_key_name(k));
			first = 0;
		}
	fputc(']', out);
}

static void json_only(FILE *out, const char *key, const struct rp_run *r, const long *idx,
		      long n)
{
	json_key(out, key, 0);
	fputc('[', out);
	for (long i = 0; i < n; i++) {
		fputs(i ? ", {" : "{", out);
		json_cell_keys(out, &r->cells[idx[i]]);
		fputc('}', out);
	}
	fputc(']', out);
}

static int json_compare(FILE *out, const struct rp_run *a, const struct rp_run *b,
			struct pf_err *e)
{
	struct report_cmp cmp;
	if (report_compare(a->cells, a->ncells, b->cells, b->ncells, &cmp) != 0)
		return pf_fail(e, PF_RUNTIME, "report: out of memory");
	fputs("{", out);
	json_kstr(out, "a", a->run->path, 1);
	json_kstr(out, "b", b->run->path, 0);
	json_key_list(out, "matched_keys", cmp.matched);
	json_key_list(out, "differing_keys", cmp.differ);
	json_only(out, "only_in_a", a, cmp.only_a, cmp.nonly_a);
	json_only(out, "only_in_b", b, cmp.only_b, cmp.nonly_b);
	fputs(", \"pairs\": [", out);
	for (long i = 0; i < cmp.npairs; i++) {
		fputs(i ? ",\n     " : "\n     ", out);
		json_pair(out, a, b, &cmp.pairs[i]);
	}
	fputs("]}", out);
	report_cmp_free(&cmp);
	return 0;
}

int rp_json(FILE *out, const struct rp_run *runs, size_t nruns, const struct calib_data *calib,
	    enum units_rate u, struct pf_err *e)
{
	fputs("{", out);
	rp_json_answer(out, runs, nruns);
	json_kstr(out, "rate_unit", units_rate_name(u), 0);
	fputs(",\n \"runs\": [\n", out);
	for (size_t i = 0; i < nruns; i++) {
		if (i > 0)
			fputs(",\n", out);
		if (json_run(out, &runs[i], e) != 0)
			return -1;
	}
	fputs("\n ],\n \"comparisons\": [", out);
	for (size_t i = 1; i < nruns; i++) {
		fputs(i > 1 ? ",\n  " : "\n  ", out);
		if (json_compare(out, &runs[0], &runs[i], e) != 0)
			return -1;
	}
	fputs("],\n ", out);
	rp_json_calib(out, calib, u);
	fputs("\n}\n", out);
	return 0;
}

void rp_json_brief(FILE *out, const struct rp_run *runs, size_t nruns)
{
	fputs("{", out);
	rp_json_answer(out, runs, nruns); /* alone: its lines name their units */
	fputs("}\n", out);
}
