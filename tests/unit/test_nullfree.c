/* test_nullfree: every destructor of src/ accepts NULL (returns at once), so that an error
 * path may release whatever it had without checking what it got to. */
#include <stdlib.h>

#include "tap.h"
#include "cmd/run_steps.h"
#include "config/config.h"
#include "config/internal.h"
#include "dataset/tree.h"
#include "report/internal.h"
#include "report/report.h"
#include "results/calib.h"
#include "results/results.h"
#include "run/inorder.h"
#include "run/phase.h"
#include "run/plan.h"
#include "run/progress.h"
#include "run/target.h"
#include "run/topology.h"
#include "util/digest.h"
#include "util/htab.h"
#include "util/lock.h"
#include "util/ydoc.h"

int main(void)
{
	/* each call crashes (SIGSEGV) when its destructor reads through the pointer */
	ydoc_free(NULL);
	ok(1, "ydoc_free(NULL)");
	htab_free(NULL);
	ok(1, "htab_free(NULL)");
	digest_close(NULL);
	ok(1, "digest_close(NULL)");
	cfg_blocks_free(NULL);
	ok(1, "cfg_blocks_free(NULL)");
	cfg_free(NULL);
	ok(1, "cfg_free(NULL)");
	tree_free(NULL);
	ok(1, "tree_free(NULL)");
	inorder_free(NULL);
	ok(1, "inorder_free(NULL)");
	topo_map_free(NULL);
	ok(1, "topo_map_free(NULL)");
	plan_share_free(NULL);
	ok(1, "plan_share_free(NULL)");
	target_ctx_free(NULL);
	ok(1, "target_ctx_free(NULL)");
	target_table_free(NULL);
	ok(1, "target_table_free(NULL)");
	topology_free(NULL);
	ok(1, "topology_free(NULL)");
	progress_free(NULL);
	ok(1, "progress_free(NULL)");
	phase_output_free(NULL);
	ok(1, "phase_output_free(NULL)");
	lock_release(NULL);
	ok(1, "lock_release(NULL)");
	results_prior_free(NULL);
	ok(1, "results_prior_free(NULL)");
	results_free(NULL);
	ok(1, "results_free(NULL)");
	calib_free(NULL);
	ok(1, "calib_free(NULL)");
	ok(results_close(NULL, NULL, NULL) == 0, "results_close(NULL) is 0");
	report_attrib_free(NULL);
	ok(1, "report_attrib_free(NULL)");
	report_cmp_free(NULL);
	ok(1, "report_cmp_free(NULL)");
	rp_run_free(NULL);
	ok(1, "rp_run_free(NULL)");
	run_peers_free(NULL);
	ok(1, "run_peers_free(NULL)");
	return tap_done();
}
