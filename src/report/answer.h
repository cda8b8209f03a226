/* answer: the lines every report opens with, "is this figure reasonable, and why": per table
 * the best and the worst cell against its ceiling, then findings ranked by how much of the gap
 * they explain, each with its evidence and a recommendation. Pure: it reads cells and figures
 * the report already computed (ceilings, shortfalls, stragglers, slow targets) and writes
 * lines of text; escaping them is the output's business. */
#ifndef PFSREAD_REPORT_ANSWER_H
#define PFSREAD_REPORT_ANSWER_H

#include "report/report.h"
#include "results/calib.h"

#define ANSWER_MAX 11      /* lines at most, a heading aside */
#define ANSWER_CELL_LINES 6 /* best and worst lines at most; more tables: the overall two */
#define ANSWER_TEXT 400

/* A measured figure above this share of its ceiling contradicts the ceiling. */
#define ANSWER_ABOVE REPORT_ABOVE
/* A calibrated figure whose repetitions are further apart than this (max / min) is not stable
 * (calibrate's own threshold). */
#define ANSWER_CALIB_WIDE CALIB_WIDE
/* A cold cell that spends this share of reader time in open and close is metadata-bound. */
#define ANSWER_META 0.20
/* Readers wait on round trips when the aggregate grows at least this much with the readers
 * while the rate per reader stays flat: neither falls below ANSWER_FLAT of the other. */
#define ANSWER_SCALES 1.3
#define ANSWER_FLAT 0.7

/* Readers meet on few targets when, at a typical moment, they used less than this share of
 * the targets they could have (spread_of_phase). Whole-file placement drawn at random
 * gives about 0.68 for 4 readers on 4 targets, so a phase below it is crowded beyond chance
 * or has fewer targets than readers can spread over. */
#define ANSWER_CROWDED 0.85
/* Placement is uneven when the target that holds most of a cell's bytes holds this many times
 * an even share (1 / targets) or more. */
#define ANSWER_UNEVEN 1.2
enum answer_kind { ANSWER_CELL, ANSWER_FINDING };

struct answer_line {
	enum answer_kind kind;
	const char *tag; /* "best", "worst", "contradicted", "cache", "slow node", ... */
	double weight;   /* a finding's rank: about the share of the gap it explains, 0..1 */
	char text[ANSWER_TEXT];
};

/* What the answer is made from. Strings may come from a results file: they are copied as they
 * are into the lines. */
struct answer_in {
	const struct report_cell *cells; /* with report_cell_ceiling and _shortfall applied */
	long ncells;
	int ceilings;            /* hardware known (else the cells have no ceiling) */
	const char *hw_source;   /* "declared", "calibrated" or "detected"; NULL: unsaid */
	const char *const *source; /* [ncells]: where each cell's limiting figure came from (as
				    * hw_source), or NULL: hw_source for every cell */
	const char *slow_node;   /* the slowest straggler node ("n2 (ranks 2-3)"), or NULL */
	double slow_node_x;      /* how many times slower than its phase's median node */
	const char *slow_target; /* a target slow from every node, or NULL */
	double slow_target_x;    /* its time over the other targets' from the same node */
	const double *spread;    /* [ncells]: max / min of the calibration's repetitions of each
				  * cell's limiting figure (0: not calibrated), or NULL for none */
	enum units_rate units;   /* the unit the lines give rates in (the cells hold MB/s) */
	int host_reclaims;       /* the run's node hands the memory it frees back to its host */
};

struct answer {
	struct answer_line line[ANSWER_MAX];
	int n;
};

/* Fill a from in: the cell lines first, then the findings, heaviest first. */
void answer_build(const struct answer_in *in, struct answer *a);

/* "11,818": v rounded to a whole number with thousands separated. Returns buf. */
char *answer_thousands(double v, char *buf, size_t len);

#endif
