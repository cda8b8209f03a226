/* report/internal: what the report's source files share among themselves (a run analysed once
 * for every output, the sections each output file writes). Not an interface for other modules;
 * the writing helpers they all use are report/fmt.h. */
#ifndef PFSREAD_REPORT_INT_H
#define PFSREAD_REPORT_INT_H

#include <stdio.h>

#include "results/calib.h"
#include "report/fmt.h"
#include "report/report.h"

#define RP_SLOW 5 /* slowest nodes and files listed per run */
_Static_assert(RP_SLOW <= RESULTS_SLOWEST, "a streamed phase keeps its RESULTS_SLOWEST slowest files");

/* A run analysed once for every output. */
struct rp_run {
	const struct run_data *run;
	struct report_cell *cells;
	long ncells;
	struct report_size_class *sizes;
	long nsizes;
	struct report_straggler slow_nodes[RP_SLOW], slow_files[RP_SLOW];
	size_t nslow_nodes, nslow_files;
	struct report_node *nodes;     /* [run->nnodes] */
	struct report_attrib attrib;   /* by node and storage target */
	const struct ceil_hw *hw;      /* NULL: no ceilings */
	const char *hw_note;           /* where the hardware figures came from */
	double local;                  /* share of a node's reads from its own server (0: none) */
	char stem[96];                 /* file name stem of its charts */
	enum units_rate units;         /* how its rates are shown (report --units) */
	int host_reclaims;             /* its node hands freed memory to its host (/environment) */
};

/* A rate kept in MB/s as run r's report shows it, the unit's name ("MB/s", "MiB/s") and the
 * suffix of its CSV columns and JSON keys ("MBps", "MiBps"). */
static inline double rp_rate(const struct rp_run *r, double MBps)
{
	return units_rate(MBps, r->units);
}
static inline const char *rp_ru(const struct rp_run *r)
{
	return units_rate_name(r->units);
}
static inline const char *rp_rk(const struct rp_run *r)
{
	return units_rate_key(r->units);
}

/* (report.c) */
int rp_run_init(struct rp_run *r, const struct run_data *run, const struct ceil_hw *hw,
		const char *hw_note, struct pf_err *e);
/* Release what r holds, leaving it zeroed; NULL is accepted. */
void rp_run_free(struct rp_run *r);

/* Sections of one run for text, markdown and html (text.c; comparisons and the calibration:
 * text_compare.c). */
int rp_text_run(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
/* What rp_text_run prints after the summary: twins, statistics per cell, ceilings, sizes,
 * nodes, stragglers, phases. */
int rp_text_details(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_summary(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
void rp_text_header(FILE *out, const struct run_data *run, enum report_format f);
/* 1 when rp_text_header shows /environment's key (its fs and mount lines), so that a page
 * listing the environment below it leaves that row out. */
int rp_header_shows(const char *key);
int rp_text_compare(FILE *out, const struct rp_run *a, const struct rp_run *b,
		    enum report_format f, struct pf_err *e);
/* (text_compare.c) "256MB, readers/node 4, cold": the keys of c in keys (bits 1u << enum
 * report key), short: the data set by its name, no explanation in parentheses. */
void rp_cell_name(const struct report_cell *c, unsigned keys, char *buf, size_t len);
/* (text_compare.c) a calibration's figures, rates in unit u */
int rp_text_calib(FILE *out, const struct calib_data *c, enum units_rate u, enum report_format f,
		  struct pf_err *e);

/* Sections of one run (text_phases.c): where reader time goes per file size, the nodes, the
 * slowest nodes and files, every phase; and the note " (warm)", " (mixed)" or "" of a state. */
int rp_text_sizes(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_nodes(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_slow_nodes(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_memory(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_slow_files(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
int rp_text_phases(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
/* (text_targets.c) the storage targets, node x target, and who is slow */
int rp_text_targets(FILE *out, const struct rp_run *r, enum report_format f, struct pf_err *e);
/* (text_phases.c) a cell's cache state where it is not cold: " (warm)" for a note in a line,
 * "WARM" for a heading or a chart's series; "" for cold */
const char *rp_state_note(enum cache_state s);
const char *rp_state_caps(enum cache_state s);

/* The answer block every report opens with (text_answer.c, lines from report/answer.c): one
 * block per run in text, markdown or HTML; in JSON the "answer" member, a list of objects
 * {run, kind (cell | finding), tag, weight, text}. */
struct answer;
void rp_answer(const struct rp_run *r, struct answer *a);
void rp_text_answer(FILE *out, const struct rp_run *runs, size_t nruns, enum report_format f);
void rp_json_answer(FILE *out, const struct rp_run *runs, size_t nruns);

/* csv and json (data.c): the header of the cells' CSV with more columns after its own (more
 * starts with a comma, or is ""), and one cell's columns, no newline. */
void rp_csv_header(FILE *out, enum units_rate u, const char *more);
void rp_csv_cell(FILE *out, const char *path, const struct report_cell *c, enum units_rate u);
/* CSV column names as given, each "MBps" in them as unit u names it ("MiBps"). */
void rp_csv_names(FILE *out, enum units_rate u, const char *names);
/* (csv_compare.c) every run's cells, one row each, and for a run after the first the columns
 * of its comparison with the first (its partner cell's mean and interval, b/a, the verdict,
 * MDD, repetitions to decide). 0, or -1 with e set when out of memory. */
int rp_csv_cells(FILE *out, const struct rp_run *runs, size_t nruns, struct pf_err *e);
/* (text_compare.c) a pair's verdict in words: "faster", "slower", "within noise",
 * "1 repetition: no noise estimate" or "no noise estimate". */
const char *rp_noise_verdict(const struct report_pair *p, const struct report_cell *a,
			     const struct report_cell *b);
int rp_json(FILE *out, const struct rp_run *runs, size_t nruns, const struct calib_data *calib,
	    enum units_rate u, struct pf_err *e);
/* {"answer": [...]} alone (report --brief). */
void rp_json_brief(FILE *out, const struct rp_run *runs, size_t nruns);
/* "calibration": null, or the calibration's figures and their spread (data_calib.c). */
void rp_json_calib(FILE *out, const struct calib_data *c, enum units_rate u);

/* Charts (plot.c): for every run, data files, a gnuplot script, PNG and SVG in dir.
 * The SVG of chart `which` of run r is dir/STEM-WHICH.svg. */
extern const char *const rp_chart_names[];
extern const char *const rp_chart_titles[];
#define RP_NCHARTS 4
/* (data.c) one CSV field: quoted when it must be, a leading formula character defused */
void rp_csv_field(FILE *out, const char *s);
/* (csv_records.c) every phase's per-file or per-rank records of every run, one CSV table; the
 * per-file rows of a phase not kept in memory are streamed from its results file again.
 * rp_csv_files returns 0, or -1 with e set when that read fails. */
int rp_csv_files(FILE *out, const struct rp_run *runs, size_t nruns, struct pf_err *e);
void rp_csv_ranks(FILE *out, const struct rp_run *runs, size_t nruns);
int rp_plot(const char *dir, struct rp_run *runs, size_t nruns, struct pf_err *e);
/* 1 when run r had data for chart i (so its files exist after rp_plot). */
int rp_chart_has_data(const struct rp_run *r, int i);
/* (gnuplot.c) for every chart: a gnuplot single-quoted string; run a script, its complaints
 * into log; 1 when a path holds a control character (refused, never altered). */
void rp_gp_text(FILE *gp, const char *s);
/* gnuplot runs script for at most PFSREAD_GNUPLOT_TIMEOUT seconds (environment), else
 * RP_GP_TIMEOUT_S: a gnuplot that never returns (a hung font server or display, a stand-in
 * that waits) is killed by its PID and the report fails with a message. On any failure the
 * caller removes the charts the script names (rp_gp_remove), so none is left half-written. */
#define RP_GP_TIMEOUT_S 600
int rp_gp_run(const char *script, const char *log, struct pf_err *e);
/* unlink path; 0 also when it is not there, else -errno */
int rp_gp_remove(const char *path);
int rp_gp_has_control(const char *s);
/* (plot_overlay.c) With two or more runs: one chart per backend, bandwidth vs readers per node,
 * a line per run and data set with its 95% interval, in DIR/NAME.{png,svg,pdf}, NAME as
 * rp_overlay_names gives it (backends in order of first appearance). Returns the number of
 * charts (0 with fewer than two runs), or -1 with e set. */
int rp_plot_overlay(const char *dir, struct rp_run *runs, size_t nruns, struct pf_err *e);
/* The overlay charts' file names without extension, one per backend in order of first
 * appearance, into names[0..max): "overlay-posix", or "overlay-NAME-K" when two backends'
 * names read the same in a file name. Returns how many (0 with fewer than two runs). */
#define RP_OVERLAY_NAME 64
size_t rp_overlay_names(const struct rp_run *runs, size_t nruns,
			char (*names)[RP_OVERLAY_NAME], size_t max);
#define RP_OVERLAY_MAX 16 /* backends drawn at most */

/* The self-contained page (html.c); charts read from dir, or drawn into a scratch
 * directory (removed afterwards) when dir is NULL. */
int rp_html(const char *path, struct rp_run *runs, size_t nruns,
	    const struct calib_data *calib, const char *dir, struct pf_err *e);

#endif
