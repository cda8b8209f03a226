/* answer: the report's opening lines (answer.h): the best and worst cell of each table against
 * its ceiling, then what explains the gap, heaviest first, each with what to do about it. */
#include "report/answer.h"
#include "report/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *answer_thousands(double v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;
	if (!isfinite(v) || fabs(v) >= 1e18) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(digits, sizeof digits, "%.0f", fabs(v));
	n = strlen(digits);
	if (v <= -0.5 && out + 1 < len)
		buf[out++] = '-';
	for (size_t i = 0; i < n && out + 2 < len; i++) {
		buf[out++] = digits[i];
		if ((n - i - 1) % 3 == 0 && i + 1 < n)
			buf[out++] = ',';
	}
	buf[out] = '\0';
	return buf;
}

static struct answer_line *an_add(struct answer *a, enum answer_kind kind, const char *tag,
				  double weight, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct answer_line *an_add(struct answer *a, enum answer_kind kind, const char *tag,
				  double weight, const char *fmt, ...)
{
	va_list ap;
	if (a->n >= ANSWER_MAX)
		return NULL;
	struct answer_line *l = &a->line[a->n++];
	l->kind = kind;
	l->tag = tag;
	l->weight = weight;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof l->text, fmt, ap);
	va_end(ap);
	return l;
}

/* Where the figure that limits c came from. */
static const char *an_source(const struct answer_in *in, const struct report_cell *c)
{
	if (in->source != NULL && c >= in->cells && c < in->cells + in->ncells &&
	    in->source[c - in->cells] != NULL)
		return in->source[c - in->cells];
	return in->hw_source;
}

/* How far the calibration's repetitions of the figure that limits c were apart (max / min), or
 * 0 when it is not calibrated. */
static double an_spread(const struct answer_in *in, const struct report_cell *c)
{
	if (in->spread == NULL || c < in->cells || c >= in->cells + in->ncells)
		return 0;
	return in->spread[c - in->cells] > 0 ? in->spread[c - in->cells] : 0;
}

/* "1GB x 2 readers/node" (" (warm)", " (mixed)" or " (cache unknown)" for a cell not measured
 * cold). */
static void an_cell(const struct report_cell *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s x %d reader%s/node%s", c->sweep.dataset,
		 (int)c->sweep.readers_per_node, c->sweep.readers_per_node == 1 ? "" : "s",
		 rp_state_note(c->state));
}

/* Cells of one table: every key but the axes (data set, readers per node) alike. */
static int an_same_table(const struct report_cell *a, const struct report_cell *b)
{
	return sweep_same(&a->sweep, &b->sweep, sweep_keys_with(SWEEP_AXIS)) &&
	       a->state == b->state;
}

/* The keys that tell c's table from the others ("backend mmap, cache state warm: "). */
static void an_table_label(const struct answer_in *in, const struct report_cell *c, char *buf,
			   size_t len)
{
	char v[192];
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < REPORT_NKEYS && used + 1 < len; k++) {
		if (!report_key_own(k) || report_key_axis(k) ||
		    !report_key_varies(in->cells, in->ncells, k))
			continue;
		/* "cold" says what it is; other values need their key ("backend mmap") */
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s", used ? ", " : "",
					 k == REPORT_KEY_STATE ? "" : report_key_name(k),
					 k == REPORT_KEY_STATE ? "" : " ",
					 report_key_value(c, k, v, sizeof v));
	}
	if (used > 0 && used + 3 < len)
		strcat(buf, ": ");
}

/* "best: 1GB x 2 readers/node: 1218 MB/s = 10.3% of 11,818 (reader links, declared)" */
static void an_cell_line(struct answer *a, const struct answer_in *in, const char *tag,
			 const struct report_cell *c, const char *table)
{
	char name[192], ceil[32], how[96];
	const char *source = an_source(in, c);
	an_cell(c, name, sizeof name);
	double mean = units_rate(c->mean_MBps, in->units);
	const char *unit = units_rate_name(in->units);
	if (!isfinite(c->ceiling_MBps) || !isfinite(c->efficiency)) {
		an_add(a, ANSWER_CELL, tag, 0, "%s%s: %s: %.0f %s (no ceiling known)", table, tag,
		       name, mean, unit);
		return;
	}
	answer_thousands(units_rate(c->ceiling_MBps, in->units), ceil, sizeof ceil);
	snprintf(how, sizeof how, "%s%s%s", c->limit, source ? ", " : "", source ? source : "");
	if (an_spread(in, c) > 0) /* a calibrated figure: how far its repetitions were apart */
		snprintf(how + strlen(how), sizeof how - strlen(how), ", repetitions max/min %.2f%s",
			 an_spread(in, c), an_spread(in, c) > ANSWER_CALIB_WIDE ? ": NOT STABLE" : "");
	if (c->efficiency > ANSWER_ABOVE)
		an_add(a, ANSWER_CELL, tag, 0,
		       "%s%s: %s: %.0f %s = %.0f%% of %s (%s): ABOVE it, the ceiling is "
		       "contradicted", table, tag, name, mean, unit, c->efficiency * 100, ceil, how);
	else
		an_add(a, ANSWER_CELL, tag, 0, "%s%s: %s: %.0f %s = %.1f%% of %s (%s)", table, tag,
		       name, mean, unit, c->efficiency * 100, ceil, how);
}

/* The best and worst cell of the table of cells[first]. */
static void an_extremes(const struct answer_in *in, long first, const struct report_cell **best,
			const struct report_cell **worst)
{
	*best = *worst = NULL;
	for (long i = first; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (!an_same_table(c, &in->cells[first]) || !isfinite(c->mean_MBps))
			continue;
		if (*best == NULL || c->mean_MBps > (*best)->mean_MBps)
			*best = c;
		if (*worst == NULL || c->mean_MBps < (*worst)->mean_MBps)
			*worst = c;
	}
}

static int an_first_of_table(const struct answer_in *in, long i)
{
	for (long k = 0; k < i; k++)
		if (an_same_table(&in->cells[k], &in->cells[i]))
			return 0;
	return 1;
}

/* Per table its best and worst cell; with more tables than fit, the best and worst overall. */
static void an_cells(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *best, *worst, *top = NULL, *bottom = NULL;
	char label[512], other[512];
	long tables = 0;
	for (long i = 0; i < in->ncells; i++)
		tables += an_first_of_table(in, i);
	for (long i = 0; i < in->ncells; i++) {
		if (!an_first_of_table(in, i))
			continue;
		an_extremes(in, i, &best, &worst);
		if (best == NULL)
			continue;
		if (top == NULL || best->mean_MBps > top->mean_MBps)
			top = best;
		if (bottom == NULL || worst->mean_MBps < bottom->mean_MBps)
			bottom = worst;
		if (tables * 2 > ANSWER_CELL_LINES)
			continue;
		an_table_label(in, best, label, sizeof label);
		an_cell_line(a, in, best == worst ? "only cell" : "best", best, label);
		if (best != worst)
			an_cell_line(a, in, "worst", worst, label);
	}
	if (tables * 2 <= ANSWER_CELL_LINES || top == NULL)
		return;
	an_table_label(in, top, label, sizeof label);
	an_table_label(in, bottom, other, sizeof other);
	an_cell_line(a, in, "best of all", top, label);
	an_cell_line(a, in, "worst of all", bottom, other);
}

/* ---- findings ---- */

/* The cell furthest above its ceiling: the model is wrong, so it comes first. */
static void an_above(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192], ceil[32];
	for (long i = 0; i < in->ncells; i++)
		if (in->cells[i].efficiency > ANSWER_ABOVE &&
		    (w == NULL || in->cells[i].efficiency > w->efficiency))
			w = &in->cells[i];
	if (w == NULL)
		return;
	char spread[96] = "";
	an_cell(w, name, sizeof name);
	if (an_spread(in, w) > 0)
		snprintf(spread, sizeof spread, "; its repetitions %s max/min %.2f",
			 an_spread(in, w) > ANSWER_CALIB_WIDE ? "were far apart:" : "agreed:",
			 an_spread(in, w));
	an_add(a, ANSWER_FINDING, "contradicted", 1.0,
	       "ceiling contradicted: the %s figure %s %s (%s%s) is contradicted: %s measured "
	       "%.0f %s above it (%.0f%%) -> correct hardware: or run pfsread calibrate%s",
	       an_source(in, w) ? an_source(in, w) : "hardware",
	       answer_thousands(units_rate(w->ceiling_MBps, in->units), ceil, sizeof ceil),
	       units_rate_name(in->units), w->limit, spread, name,
	       units_rate(w->mean_MBps, in->units), units_rate_name(in->units), w->efficiency * 100,
	       w->state == CACHE_COLD ? "; a cache elsewhere (the servers') may have served it" : "");
}

/* A ceiling from a calibrated figure whose repetitions were over CALIB_WIDE apart: the cell
 * whose limiting figure moved most. */
static void an_unstable(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192];
	for (long i = 0; i < in->ncells; i++)
		if (an_spread(in, &in->cells[i]) > ANSWER_CALIB_WIDE &&
		    (w == NULL || an_spread(in, &in->cells[i]) > an_spread(in, w)))
			w = &in->cells[i];
	if (w == NULL)
		return;
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "calibration", 0.6,
	       "calibration not stable: the %s figure that sets %s's ceiling moved %.0f%% over its "
	       "repetitions (max/min %.2f, above %.2f): its share of the ceiling is uncertain by "
	       "as much -> calibrate again on a quiet node, with more --repetitions", w->limit,
	       name, (an_spread(in, w) - 1) * 100, an_spread(in, w), ANSWER_CALIB_WIDE);
}

/* "the only cell" or "N of M cells": n cells among a run's total. */
static const char *an_of_cells(long n, long total, char *buf, size_t len)
{
	if (total == 1)
		snprintf(buf, len, "the only cell");
	else
		snprintf(buf, len, "%ld of %ld cells", n, total);
	return buf;
}

/* Repetitions whose page cache the kernel would not describe: nothing says what they measured. */
static void an_cache_unknown(struct answer *a, const struct answer_in *in)
{
	long unknown = 0;
	char cells[64];
	for (long i = 0; i < in->ncells; i++)
		unknown += in->cells[i].state == CACHE_UNKNOWN;
	if (unknown > 0)
		an_add(a, ANSWER_FINDING, "cache", (double)unknown / (double)in->ncells,
		       "page cache: %s of unknown cache state (the kernel says what is cached only "
		       "to a file's owner, root or a user who may write it) -> run as the files' "
		       "owner or root", an_of_cells(unknown, in->ncells, cells, sizeof cells));
}

/* Repetitions that found their data in the page cache measure memory, not storage. */
static void an_cache(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	long warm = 0;
	char name[192], cells[64];
	an_cache_unknown(a, in);
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (c->state != CACHE_WARM && c->state != CACHE_MIXED)
			continue;
		warm++;
		if (w == NULL || c->resident_fraction > w->resident_fraction)
			w = c;
	}
	if (w == NULL)
		return;
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "cache", (double)warm / (double)in->ncells,
	       "page cache: %s warm or mixed (%s: %.0f%% of its bytes cached, cache %s) measure "
	       "memory, not storage -> cache: drop or fadvise",
	       an_of_cells(warm, in->ncells, cells, sizeof cells), name,
	       w->resident_fraction * 100, w->sweep.cache);
}

/* On a node whose host takes back the memory it frees (free page reporting), a cold read
 * through the page cache may land on memory the host took and pay a host fault per page: the
 * figure is then the host's. O_DIRECT reads into the reader's own buffer, kept from phase to
 * phase. Light (a twentieth of the cells' share): a risk the run cannot measure, so it gives
 * way to every finding with evidence. */
static void an_host_reclaim(struct answer *a, const struct answer_in *in)
{
	long cold = 0;
	char cells[64];
	if (!in->host_reclaims)
		return;
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		cold += c->state == CACHE_COLD && strcmp(c->sweep.backend, "direct") != 0 &&
			strcmp(c->sweep.cache, "direct") != 0;
	}
	if (cold > 0)
		an_add(a, ANSWER_FINDING, "host memory", 0.05 * (double)cold / (double)in->ncells,
		       "host memory: %s read cold through the page cache of a node that hands the "
		       "memory it frees back to its host (free page reporting); a read landing on "
		       "memory the host took pays a host fault per page, several times slower -> "
		       "backend direct for the storage's figure",
		       an_of_cells(cold, in->ncells, cells, sizeof cells));
}

static void an_slow(struct answer *a, const struct answer_in *in)
{
	if (in->slow_node != NULL && in->slow_node_x > 1)
		an_add(a, ANSWER_FINDING, "slow node", 1 - 1 / in->slow_node_x,
		       "slow node: %s read %.1fx slower than its phase's median node -> check it "
		       "(its link, its load) or leave it out", in->slow_node, in->slow_node_x);
	if (in->slow_target != NULL && in->slow_target_x > 1)
		an_add(a, ANSWER_FINDING, "slow target", 1 - 1 / in->slow_target_x,
		       "slow storage target: %s took %.1fx the other targets' time from every "
		       "node -> check its server and disks", in->slow_target, in->slow_target_x);
}

/* The cold cell with the largest share of reader time in open and close. */
static void an_metadata(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192];
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (c->state == CACHE_COLD && c->meta_fraction >= ANSWER_META &&
		    (w == NULL || c->meta_fraction > w->meta_fraction))
			w = c;
	}
	if (w == NULL)
		return;
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "metadata", w->meta_fraction,
	       "metadata-bound: %s spends %.1f%% of reader time in open+close (%.0f files/s) -> "
	       "fewer, larger files; more readers", name, w->meta_fraction * 100, w->files_per_s);
}

static double an_per_reader(const struct report_cell *c)
{
	return c->readers > 0 ? c->mean_MBps / c->readers : NAN;
}

/* Whether more readers per node (b) show c's readers waiting on round trips: the aggregate
 * grows, each reader's rate stays flat, and b is still short of the ceiling. */
static int an_waits(const struct report_cell *c, const struct report_cell *b)
{
	return b->state == CACHE_COLD && b->sweep.readers_per_node > c->sweep.readers_per_node &&
	       sweep_same(&b->sweep, &c->sweep, 1u << SWEEP_READERS) &&
	       b->mean_MBps >= ANSWER_SCALES * c->mean_MBps &&
	       an_per_reader(b) >= ANSWER_FLAT * an_per_reader(c) &&
	       an_per_reader(c) >= ANSWER_FLAT * an_per_reader(b) &&
	       !(isfinite(b->efficiency) && b->efficiency >= REPORT_SHORT_OF);
}

/* Readers that wait for each request's round trip: the aggregate grows with the readers while
 * each reader's rate stays flat, far below the ceiling. Each cell is paired with its best
 * such step up in readers, not with the best cell of its row: further readers may reach a
 * resource that binds (the link), and the signature is in the steps before it. The row (data
 * set) that shows it most. */
static void an_round_trips(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *lo = NULL, *hi = NULL;
	double weight = 0;
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i], *b = NULL;
		if (c->state != CACHE_COLD || !(an_per_reader(c) > 0))
			continue;
		for (long k = 0; k < in->ncells; k++) {
			const struct report_cell *o = &in->cells[k];
			if (an_waits(c, o) && (b == NULL || o->mean_MBps > b->mean_MBps))
				b = o;
		}
		if (b == NULL)
			continue;
		double w = isfinite(b->efficiency) ? 1 - b->efficiency : 0.5;
		if (w > weight) {
			weight = w;
			lo = c;
			hi = b;
		}
	}
	if (lo == NULL)
		return;
	an_add(a, ANSWER_FINDING, "round trips", weight,
	       "readers wait on round trips: %s aggregate %.2fx from %d to %d readers/node, per "
	       "reader flat (%.2f -> %.2f %s) -> more requests in flight: larger transfers, "
	       "uring, more readers", lo->sweep.dataset, hi->mean_MBps / lo->mean_MBps,
	       (int)lo->sweep.readers_per_node, (int)hi->sweep.readers_per_node,
	       units_rate(an_per_reader(lo), in->units), units_rate(an_per_reader(hi), in->units),
	       units_rate_name(in->units));
}

/* A cold cell below REPORT_SHORT_OF of its ceiling (or with none): storage-bound figures can
 * explain its gap. */
static int an_short_cold(const struct report_cell *c)
{
	return c->state == CACHE_COLD &&
	       !(isfinite(c->efficiency) && c->efficiency >= REPORT_SHORT_OF);
}

/* The cold cell short of its ceiling whose readers left most of the targets they could have
 * used idle: files that lie whole on one target each, read by readers that meet on a few of
 * them. A target-bound phase draws only that share of the targets' combined rate, which the
 * ceiling (every target busy) assumes. */
static void an_crowded(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192];
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (an_short_cold(c) && c->target_share < ANSWER_CROWDED && c->targets_could >= 2 &&
		    (w == NULL || c->target_share < w->target_share))
			w = c;
	}
	if (w == NULL)
		return;
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "targets", 1 - w->target_share,
	       "readers meet on few targets: %s read from %.1f of its %d targets at a time, "
	       "where its readers could use %.1f (%.0f%%): each file lies on one target -> stripe "
	       "files over the targets, or more readers so that more files are read at once", name,
	       w->targets_used, w->targets, w->targets_could, w->target_share * 100);
}

/* The cold cell short of its ceiling whose busiest target holds most over an even share of
 * its bytes: while the targets bind, the phase lasts at least that target's time. */
static void an_uneven(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192];
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (an_short_cold(c) && c->targets >= 2 &&
		    c->target_heaviest * c->targets >= ANSWER_UNEVEN &&
		    (w == NULL || c->target_heaviest * c->targets >
					  w->target_heaviest * w->targets))
			w = c;
	}
	if (w == NULL)
		return;
	double x = w->target_heaviest * w->targets;
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "placement", 1 - 1 / x,
	       "uneven placement: one of %s's %d targets holds %.0f%% of its bytes (even: %.0f%%), "
	       "so while the targets bind %s reads at most %.0f%% of their combined rate -> files "
	       "spread evenly (more, smaller files, or striped)", w->sweep.dataset, w->targets,
	       w->target_heaviest * 100, 100.0 / w->targets, name, 100 / x);
}

/* What to do about a read path's known cause (report_cell_shortfall's names). */
static const char *an_cause_fix(const char *cause)
{
	static const char *const fix[][2] = {
		{"madv-sequential-fuse", "advice none"},
		{"mmap-page-faults", "read() (backend posix) or more readers"},
		{"mpiio-collective", "mpiio: {collective: false}"},
		{"direct-small-transfers", "transfers of 1 MiB or more"},
	};
	for (size_t i = 0; i < sizeof fix / sizeof fix[0]; i++)
		if (strcmp(cause, fix[i][0]) == 0)
			return fix[i][1];
	return NULL;
}

/* The cold cell furthest below its ceiling whose read path is the measured or likely cause. */
static void an_read_path(struct answer *a, const struct answer_in *in)
{
	const struct report_cell *w = NULL;
	char name[192], peer[256] = "";
	for (long i = 0; i < in->ncells; i++) {
		const struct report_cell *c = &in->cells[i];
		if (c->shortfall[0] == '\0' ||
		    (an_cause_fix(c->cause) == NULL && strstr(c->shortfall, " reached ") == NULL))
			continue;
		if (w == NULL || c->efficiency < w->efficiency)
			w = c;
	}
	if (w == NULL)
		return;
	const char *p = strstr(w->shortfall, "; "), *fix = an_cause_fix(w->cause);
	const char *end = p ? strstr(p, " of the same ceiling") : NULL;
	if (p != NULL && end != NULL)
		snprintf(peer, sizeof peer, ", while %.*s of it", (int)(end - p - 2), p + 2);
	an_cell(w, name, sizeof name);
	an_add(a, ANSWER_FINDING, "read path", 1 - w->efficiency,
	       "read path below its peers: %s, backend %s, %.0f%% of its ceiling%s (%s%s) -> %s",
	       name, w->sweep.backend, w->efficiency * 100, peer,
	       fix ? "likely " : "cause unknown", fix ? w->cause : "",
	       fix ? fix : "the read path that reached it");
}

static void an_no_ceiling(struct answer *a, const struct answer_in *in)
{
	if (in->ceilings)
		return;
	an_add(a, ANSWER_FINDING, "no ceiling", 0.95,
	       "no ceiling known, so no share of one -> declare hardware: {node_link_MBps: N, "
	       "storage_servers: S, server_disk_MBps: D} in the config, or give a pfsread calibrate "
	       "file alongside");
}

static int an_heavier(const void *x, const void *y)
{
	const struct answer_line *a = x, *b = y;
	return (a->weight < b->weight) - (a->weight > b->weight);
}

void answer_build(const struct answer_in *in, struct answer *a)
{
	struct answer f;
	memset(a, 0, sizeof *a);
	memset(&f, 0, sizeof f);
	if (in->ncells <= 0) {
		an_add(a, ANSWER_CELL, "none", 0, "no completed phases: nothing to judge");
		return;
	}
	an_cells(a, in);
	an_above(&f, in);
	an_unstable(&f, in);
	an_no_ceiling(&f, in);
	an_slow(&f, in);
	an_cache(&f, in);
	an_host_reclaim(&f, in);
	an_metadata(&f, in);
	an_round_trips(&f, in);
	an_crowded(&f, in);
	an_uneven(&f, in);
	an_read_path(&f, in);
	qsort(f.line, (size_t)f.n, sizeof f.line[0], an_heavier);
	for (int i = 0; i < f.n && a->n < ANSWER_MAX; i++)
		a->line[a->n++] = f.line[i];
}
