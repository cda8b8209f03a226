/* report: the command `pfsread report FILE... [--format F] [--plot DIR] [--html FILE]`.
 * Reads every results file and at most one calibration file, takes each run's hardware from
 * the config text stored in it (hardware:) and from the calibration, and writes the report. */
#include "cmd/cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/calib.h"
#include "config/config.h"
#include "run/backend.h"
#include "run/envinfo.h"
#include "report/report.h"
#include "util/safe.h"

#define RC_MAX_FILES 256
#define RC_NOTE_MAX 1024

struct rc_args {
	struct report_opts o;
	int wide; /* --wide: text tables whole, however wide */
	int format_given; /* --format named: --per-file and --per-rank then need it to be csv */
	const char *files[RC_MAX_FILES];
	size_t nfiles;
};

static int rc_usage(struct pf_err *e, const char *what, const char *arg)
{
	return pf_fail(e, PF_USAGE, "report: %s%s%s", what, arg ? " " : "", arg ? arg : "");
}

/* path without repeated slashes and "." components, in place (it only gets shorter): the
 * report prints it as it is kept ("results//a.h5", "./a.h5" and ".//a.h5" are "results/a.h5"
 * and "a.h5"). "/" and "." stay. Returns path. */
static char *rc_normalize(char *path)
{
	char *r = path, *w = path;
	int absolute = *path == '/';
	while (*r) {
		while (*r == '/')
			r++;
		size_t n = strcspn(r, "/");
		if (n == 1 && r[0] == '.') {
			r += n;
			continue;
		}
		if (n == 0)
			break;
		if (w != path || absolute)
			*w++ = '/';
		memmove(w, r, n);
		w += n;
		r += n;
	}
	if (w == path)
		*w++ = absolute ? '/' : '.';
	*w = '\0';
	return path;
}

static int rc_parse(int argc, char **argv, struct rc_args *a, struct pf_err *e)
{
	for (int i = 0; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(argv[i], "--format") == 0 && next) {
			if (report_parse_format(argv[++i], &a->o.format) != 0 ||
			    a->o.format == REPORT_HTML)
				return rc_usage(e, "unknown format (text, markdown, csv, json; for a "
						"page use --html FILE):", argv[i]);
			a->format_given = 1;
		} else if (strcmp(argv[i], "--plot") == 0 && next) {
			a->o.plot_dir = argv[++i];
		} else if (strcmp(argv[i], "--html") == 0 && next) {
			a->o.html_path = argv[++i];
		} else if (strcmp(argv[i], "--wide") == 0) {
			a->wide = 1;
		} else if (strcmp(argv[i], "--units") == 0 && next) {
			if (units_parse_rate(argv[++i], &a->o.units) != 0)
				return rc_usage(e, "unknown units (decimal: MB/s, binary: MiB/s):",
						argv[i]);
		} else if (strcmp(argv[i], "--brief") == 0) {
			a->o.brief = 1;
		} else if (strcmp(argv[i], "--per-file") == 0) {
			a->o.records = REPORT_RECORDS_FILES;
		} else if (strcmp(argv[i], "--per-rank") == 0) {
			a->o.records = REPORT_RECORDS_RANKS;
		} else if (argv[i][0] == '-') {
			return rc_usage(e, "unknown option or missing value:", argv[i]);
		} else if (a->nfiles == RC_MAX_FILES) {
			return rc_usage(e, "too many files (at most 256)", NULL);
		} else {
			a->files[a->nfiles++] = rc_normalize(argv[i]);
		}
	}
	if (a->nfiles == 0)
		return rc_usage(e, "name at least one results file", NULL);
	/* records are rows of a table: CSV is the one format that holds them */
	if (a->o.records && !a->format_given)
		a->o.format = REPORT_CSV;
	if (a->o.records && a->o.format != REPORT_CSV)
		return rc_usage(e, "--per-file and --per-rank write CSV (they imply --format csv); "
				"leave --format out or give --format csv", NULL);
	if (a->o.brief && a->o.format == REPORT_CSV)
		return rc_usage(e, "--brief goes with --format text, markdown or json", NULL);
	if (a->wide && a->o.format == REPORT_TEXT)
		a->o.format = REPORT_TEXT_WIDE;
	return 0;
}

/* Append "what figure unit" to note when the figure is known (a rate in MB/s: given in
 * units u; a count: unit ""). */
static void rc_note(char *note, const char *what, double v, const char *unit, enum units_rate u)
{
	if (unit[0] != '\0') {
		v = units_rate(v, u);
		unit = u == UNITS_RATE_BINARY ? " MiB/s" : " MB/s";
	}
	size_t used = strlen(note);
	if (v > 0 && used + 1 < RC_NOTE_MAX)
		snprintf(note + used, RC_NOTE_MAX - used, "%s%s %.6g%s", used ? ", " : "", what, v,
			 unit);
}

static void rc_declared(const struct cfg_hardware *d, struct ceil_hw *hw, char *note,
			enum units_rate u)
{
	ceil_hw_declared(hw, d);
	char decl[RC_NOTE_MAX] = "declared in the config: ";
	size_t start = strlen(decl), used = strlen(note);
	rc_note(decl + start, "node disk", d->node_disk_MBps, " MB/s", u);
	rc_note(decl + start, "node link", d->node_link_MBps, " MB/s", u);
	rc_note(decl + start, "node memory copy", d->node_memcpy_MBps, " MB/s", u);
	rc_note(decl + start, "one reader", d->reader_MBps, " MB/s", u);
	rc_note(decl + start, "storage servers", (double)d->storage_servers, "", u);
	rc_note(decl + start, "server disk", d->server_disk_MBps, " MB/s", u);
	rc_note(decl + start, "server link", d->server_link_MBps, " MB/s", u);
	rc_note(decl + start, "racks", (double)d->racks, "", u);
	rc_note(decl + start, "uplinks per rack", d->rack_uplink_MBps, " MB/s", u);
	rc_note(decl + start, "node client read", d->node_client_MBps, " MB/s", u);
	if (d->data_on_compute_nodes)
		strncat(decl, ", data on the compute nodes", RC_NOTE_MAX - strlen(decl) - 1);
	snprintf(note + used, RC_NOTE_MAX - used, "%s", decl);
}

/* Append "what figure MB/s (median of R: lo-hi, max/min x)" to note for a calibrated figure,
 * and note its spread in *slot (max/min; 0 when unknown): the report shows how far to trust
 * the ceilings it sets. A wide spread says so in the same part of the note. */
static void rc_note_measured(char *note, const char *what, double v,
			     const struct calib_spread *s, double *slot, enum units_rate u)
{
	size_t used = strlen(note);
	const char *unit = units_rate_name(u);
	if (!(v > 0) || used + 1 >= RC_NOTE_MAX)
		return;
	*slot = s->n >= 2 && isfinite(s->ratio) ? s->ratio : 0;
	if (s->n < 2)
		snprintf(note + used, RC_NOTE_MAX - used, "%s%s %.6g %s (one measurement: spread "
			 "unknown)", used ? ", " : "", what, units_rate(v, u), unit);
	else
		snprintf(note + used, RC_NOTE_MAX - used, "%s%s %.6g %s (%d repetitions: "
			 "%.1f-%.1f, max/min %.2f%s)", used ? ", " : "", what, units_rate(v, u), unit,
			 s->n, units_rate(s->min, u), units_rate(s->max, u), s->ratio,
			 calib_spread_wide(s) ? ", NOT STABLE: a ceiling from it is uncertain" : "");
}

/* Measured figures fill what the config left out. Calibration reads its disk figure under the
 * data root: on a local file system that is the node's disk; on a network one it is one
 * synchronous reader per node through the file system (all nodes at once), which says
 * nothing of a local disk, so it becomes the per-reader rate. Returns 1 when any was used. */
static int rc_measured(const struct calib_data *c, struct ceil_hw *hw, char *note)
{
	enum units_rate u = hw->shown;
	char m[RC_NOTE_MAX] = "";
	const struct calib_spread *sp = c != NULL ? c->spread : NULL;
	if (c == NULL)
		return 0;
	if (hw->data_remote && !(hw->reader_MBps > 0) && isfinite(c->disk_MBps) && c->disk_MBps > 0)
		rc_note_measured(m, "one reader through the file system", hw->reader_MBps = c->disk_MBps,
				 &sp[CALIB_DISK], &hw->reader_spread, u);
	if (!hw->data_remote && !(hw->node_disk_MBps > 0) && isfinite(c->disk_MBps) &&
	    c->disk_MBps > 0)
		rc_note_measured(m, "node disk", hw->node_disk_MBps = c->disk_MBps, &sp[CALIB_DISK],
				 &hw->node_disk_spread, u);
	if (!(hw->node_link_MBps > 0) && isfinite(c->link_MBps) && c->link_MBps > 0)
		rc_note_measured(m, "node link", hw->node_link_MBps = c->link_MBps, &sp[CALIB_LINK],
				 &hw->node_link_spread, u);
	if (!(hw->node_memcpy_MBps > 0) && isfinite(c->memcpy_MBps) && c->memcpy_MBps > 0)
		rc_note_measured(m, "node memory copy", hw->node_memcpy_MBps = c->memcpy_MBps,
				 &sp[CALIB_MEMCPY], &hw->node_memcpy_spread, u);
	if (isfinite(c->fs_read_MBps) && c->fs_read_MBps > 0) { /* the per-node read ceiling */
		hw->node_fsread_readers = c->fs_readers;
		rc_note_measured(m, "node read through the file system",
				 hw->node_fsread_MBps = c->fs_read_MBps, &c->fs_spread,
				 &hw->node_fsread_spread, u);
	}
	if (m[0] == '\0')
		return 0;
	size_t used = strlen(note);
	snprintf(note + used, RC_NOTE_MAX - used, "%smeasured by calibration (%s, mean of %d "
		 "node%s, each the median of its repetitions): %s", used ? "; " : "", c->path,
		 c->nnodes, c->nnodes == 1 ? "" : "s", m);
	return 1;
}

/* The value of /environment's key, or NULL. */
static const char *rc_env(const struct run_data *run, const char *key)
{
	for (size_t i = 0; i < run->env.n; i++)
		if (strcmp(run->env.e[i].key, key) == 0)
			return run->env.e[i].value;
	return NULL;
}

/* 1 when the run's data root is a network file system (its mount as recorded), with a note
 * that says so; the ceilings then take the links, not a node's disk. */
static int rc_data_remote(const struct run_data *run, char *note)
{
	const char *type = rc_env(run, "fs_mount_type"), *source = rc_env(run, "fs_mount_source");
	if (envinfo_fs_remote(type, source) != 1)
		return 0;
	snprintf(note, RC_NOTE_MAX, "the data is on %s from %s: every byte crosses the reading "
		 "node's link; ", type, source != NULL ? source : "a server");
	return 1;
}

/* A detected figure from /environment: its value (0 when absent) and its source. */
static double rc_env_figure(const struct run_data *run, const char *key, const char *src_key,
			    const char **src)
{
	const char *v = rc_env(run, key);
	*src = rc_env(run, src_key);
	double f = v != NULL ? strtod(v, NULL) : 0;
	return isfinite(f) && f > 0 && *src != NULL ? f : 0;
}

/* One figure the machine stated (detect.c, recorded at run time): it fills *slot when nothing
 * declared or measured did (returns 1), and beside a declared figure it is shown when the two
 * differ by more than 20%. */
static int rc_detected_one(char *note, const char *what, double found, const char *src,
			   double declared, double *slot, enum units_rate u)
{
	size_t used = strlen(note);
	const char *unit = units_rate_name(u);
	if (!(found > 0))
		return 0;
	if (declared > 0) {
		double off = fabs(found - declared) / declared;
		if (off > 0.2)
			snprintf(note + used, RC_NOTE_MAX - used, "; the machine says %s %.6g %s "
				 "(%s), %.0f%% from the declared %.6g", what, units_rate(found, u),
				 unit, src, off * 100, units_rate(declared, u));
		return 0;
	}
	if (*slot > 0)
		return 0; /* measured by calibration: that wins over what the machine states */
	*slot = found;
	snprintf(note + used, RC_NOTE_MAX - used, "%sdetected: %s %.6g %s (%s)",
		 used ? "; " : "", what, units_rate(found, u), unit, src);
	return 1;
}

/* The limits the machine stated at run time: the link of the file system's interface for
 * remote data, a cgroup's io.max on the local disk. Returns 1 when any was used. */
static int rc_detected(const struct run_data *run, const double declared[2], struct ceil_hw *hw,
		       char *note)
{
	const char *src;
	double link = rc_env_figure(run, "detected_link_MBps", "detected_link_source", &src);
	int used = hw->data_remote &&
		   rc_detected_one(note, "node link", link, src, declared[0], &hw->node_link_MBps,
				   hw->shown);
	double disk = rc_env_figure(run, "detected_disk_MBps", "detected_disk_source", &src);
	if (!hw->data_remote)
		used |= rc_detected_one(note, "node disk", disk, src, declared[1],
					&hw->node_disk_MBps, hw->shown);
	return used;
}

/* The hardware of one run: 1 when any figure is known (*hw, note filled), else 0 with note
 * saying why there is none. */
static int rc_hardware(const struct run_data *run, const struct calib_data *calib,
		       enum units_rate u, struct ceil_hw *hw, char *note)
{
	const struct cfg_block *blocks[BACKEND_BLOCKS_MAX];
	struct experiment x;
	struct pf_err err = {0};
	int declared = 0;
	double declared_figs[2] = {0, 0}; /* node link, node disk */
	backend_config(blocks, BACKEND_BLOCKS_MAX); /* a stored config may hold their keys */
	memset(hw, 0, sizeof *hw);
	hw->shown = u;
	note[0] = '\0';
	hw->data_remote = rc_data_remote(run, note);
	if (run->config_yaml != NULL &&
	    cfg_parse(run->config_path && run->config_path[0] ? run->config_path : run->path,
		      run->config_yaml, strlen(run->config_yaml), blocks, &x, &err) == 0) {
		declared = x.hw.given;
		if (declared) {
			rc_declared(&x.hw, hw, note, u);
			declared_figs[0] = x.hw.node_link_MBps;
			declared_figs[1] = x.hw.node_disk_MBps;
		}
		cfg_free(&x);
	} else if (run->config_yaml != NULL) {
		if (snprintf(note, RC_NOTE_MAX, "the run's config could not be read again (%s); ",
			     err.msg) < 0)
			note[0] = '\0';
	}
	int measured = rc_measured(calib, hw, note);
	if (rc_detected(run, declared_figs, hw, note) || measured || declared)
		return 1;
	size_t used = strlen(note);
	snprintf(note + used, RC_NOTE_MAX - used, "no hardware: declared in the config "
		 "(hardware:), measured (give a pfsread calibrate file alongside) nor stated by the "
		 "machine");
	return 0;
}

struct rc_state {
	struct run_data *runs;
	size_t nruns;
	struct calib_data calib;
	int have_calib;
	struct ceil_hw *hw;
	const struct ceil_hw **hw_ptr;
	char (*notes)[RC_NOTE_MAX];
	const char **note_ptr;
};

static int rc_read(const struct rc_args *a, struct rc_state *s, struct pf_err *e)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		if (calib_probe(a->files[i])) {
			if (s->have_calib)
				return rc_usage(e, "give at most one calibration file; another:",
						a->files[i]);
			if (calib_read(a->files[i], &s->calib, e) != 0)
				return -1;
			s->have_calib = 1;
		} else if (report_read(a->files[i], &s->runs[s->nruns], e) != 0) {
			return -1;
		} else {
			s->nruns++;
		}
	}
	if (s->nruns == 0 && !s->have_calib)
		return rc_usage(e, "name at least one results or calibration file", NULL);
	if (s->nruns == 0 && (a->o.plot_dir != NULL || a->o.html_path != NULL))
		return rc_usage(e, "a calibration alone has no charts or page: name a results file "
				"too", NULL);
	return 0;
}

static void rc_free(struct rc_state *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nruns; i++)
		results_free(&s->runs[i]);
	free(s->runs);
	if (s->have_calib)
		calib_free(&s->calib);
	free(s->hw);
	free(s->hw_ptr);
	free(s->notes);
	free(s->note_ptr);
}

int report_command(int argc, char **argv, struct pf_err *e)
{
	struct rc_args a;
	struct rc_state s;
	int rc = -1;
	memset(&a, 0, sizeof a);
	memset(&s, 0, sizeof s);
	if (rc_parse(argc, argv, &a, e) != 0)
		return -1;
	s.runs = calloc(a.nfiles, sizeof *s.runs);
	s.hw = calloc(a.nfiles, sizeof *s.hw);
	s.hw_ptr = calloc(a.nfiles, sizeof *s.hw_ptr);
	s.notes = calloc(a.nfiles, sizeof *s.notes);
	s.note_ptr = calloc(a.nfiles, sizeof *s.note_ptr);
	if (s.runs == NULL || s.hw == NULL || s.hw_ptr == NULL || s.notes == NULL || s.note_ptr == NULL) {
		pf_fail(e, PF_RUNTIME, "report: out of memory");
		goto out;
	}
	if (rc_read(&a, &s, e) != 0)
		goto out;
	for (size_t i = 0; i < s.nruns; i++) {
		if (rc_hardware(&s.runs[i], s.have_calib ? &s.calib : NULL, a.o.units, &s.hw[i],
				s.notes[i]))
			s.hw_ptr[i] = &s.hw[i];
		s.note_ptr[i] = s.notes[i];
	}
	a.o.hw = s.hw_ptr;
	a.o.hw_note = s.note_ptr;
	a.o.calib = s.have_calib ? &s.calib : NULL;
	rc = report_write_opts(stdout, s.runs, s.nruns, &a.o, e);
	/* where the files went, on stderr: stdout may be a CSV or JSON being saved */
	if (rc == 0 && a.o.plot_dir != NULL) {
		fputs("pfsread: charts written to ", stderr);
		safe_fput(stderr, a.o.plot_dir, 0);
		fputs("/ (PNG, SVG)\n", stderr);
	}
	if (rc == 0 && a.o.html_path != NULL) {
		fputs("pfsread: HTML page written to ", stderr);
		safe_fput(stderr, a.o.html_path, 0);
		fputc('\n', stderr);
	}
out:
	rc_free(&s);
	return rc;
}
