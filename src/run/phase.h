/* phase: one timed phase. Cache preparation, opening barrier, this rank's files read
 * (open, read with the transfer size, close, each timed), closing barrier; then the phase's
 * outcome agreed over all ranks. Nothing between the barriers but the reads being measured. */
#ifndef PFSREAD_PHASE_H
#define PFSREAD_PHASE_H

#include <stdint.h>

#include "run/backend.h"
#include "run/guard.h"
#include "config/config.h"
#include "util/err.h"
#include "pfsread/record.h"
#include "run/plan.h"
#include "run/provenance.h"
#include "run/target.h"
#include "run/topology.h"

struct progress;

struct phase_spec {
	struct plan_point point;  /* where the phase is in the sweep (what the record says) */
	const struct experiment *x;
	const struct cfg_dataset *ds;
	const struct backend *be;
	int readers_per_node;
	uint64_t transfer_size;
	uint64_t io_size;         /* min(transfer_size, the data set's largest file), at least 1:
				   * the most one read moves, what read buffers are sized by */
	enum cfg_order order;
	enum cfg_pattern pattern;
	enum cfg_decomp decomp;
	enum cfg_advice advice;   /* resolved (backend_advice): none or sequential */
	int repetition;
	uint32_t index;
	uint64_t shift_use;       /* cache: shift: the u-th phase on this data set; else 0 */
	const char *atime_mode;   /* of the data set's mount, for the record */
	struct progress *progress; /* the run's progress lines, or NULL */
	const struct prov_source *prov; /* this rank's counters of where the bytes came from */
	const char *provenance;   /* rank 0's description of them, for the record */
	int pilot;                /* plan --pilot: read a sample of each share */
	uint64_t pilot_files;     /* its files per phase (plan_pilot_limit; 0: its default) */
	struct target_ctx *targets; /* this rank's storage target lookups, or NULL for none */
	size_t target_set;        /* the data set's number in it */
	struct guard *guard;      /* the run's deadline of collective steps, or NULL for none */
};

/* What one rank holds after a phase. files is malloc'ed; phase_output_free releases it. */
struct phase_output {
	struct phase_info info;   /* the same on every rank */
	struct rank_rec me;
	struct file_rec *files;
	uint64_t nfiles;
	struct target_table targets; /* what files[].target indexes, the same on every rank */
};

/* Collective. buf: aligned to BACKEND_BUF_ALIGN, with a whole BACKEND_BUF_ALIGN of room past
 * buflen (where a backend's buffer_offset moves its reads). Returns 0 when every rank read
 * every byte it should; -1 otherwise, with e set on the ranks that failed and info.status
 * PHASE_FAILED on all ranks (the output stays usable for the results file). A read error never
 * leaves the other ranks stuck. */
int phase_run(const struct phase_spec *s, const struct topology *t, void *buf, size_t buflen,
	      struct phase_output *out, struct pf_err *e);

/* Release what o holds (its rows, its target table); NULL is accepted. */
void phase_output_free(struct phase_output *o);

#endif
