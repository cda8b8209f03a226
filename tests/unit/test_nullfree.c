/* test_nullfree: every destructor of src/ accepts NULL (returns at once), so that an error
 * path may release whatever it had without checking what it got to. */
#include <stdlib.h>

#include "tap.h"
#include "config/config.h"
#include "config/internal.h"
#include "dataset/tree.h"
#include "run/inorder.h"
#include "run/plan.h"
#include "run/progress.h"
#include "run/target.h"
#include "run/topology.h"
#include "util/digest.h"
#include "util/htab.h"
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
	return tap_done();
}
