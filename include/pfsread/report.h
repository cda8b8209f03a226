/* report: tables from results already in memory (struct run_data). The maths (cells, means)
 * is pure and tested on its own; output goes to a FILE in text, markdown, csv or json. */
#ifndef PFSREAD_REPORT_H
#define PFSREAD_REPORT_H

#include <stdio.h>

#include "pfsread/err.h"
#include "pfsread/results.h"

enum report_format { REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON };

/* "text" | "markdown" | "csv" | "json". Returns 0 or -1. */
int report_parse_format(const char *name, enum report_format *f);

/* One cell of the summary table: all completed phases that share every sweep key but the
 * repetition. Bandwidths in MB/s (10^6 B/s). */
struct report_cell {
	char dataset[128];
	uint64_t file_size;
	int32_t readers_per_node;
	char backend[32];
	uint64_t transfer_size;
	char order[16];
	char cache[16];
	int n;                 /* repetitions aggregated */
	double mean_MBps, min_MBps, max_MBps;
};

/* Group run's completed phases into cells, in first-seen order. *cells is malloc'ed.
 * Returns the number of cells, or -1 on allocation failure. */
long report_cells(const struct run_data *run, struct report_cell **cells);

/* Write the whole report of nruns runs: the summary table (rows data sets, columns readers
 * per node) then the per-phase details. */
int report_write(FILE *out, const struct run_data *runs, size_t nruns, enum report_format f,
		 struct pf_err *e);

/* Only the summary table, as text: what run prints at its end. */
int report_write_summary(FILE *out, const struct run_data *run, struct pf_err *e);

/* The one line run prints as each phase completes. */
void report_phase_line(FILE *out, const struct phase_info *p);

#endif
