/* run_check: what run checks before any timed read, and plan checks at submission (the
 * experiment against the ranks and nodes, the data sets' manifests, each rank's files). */
#include "cmd/run_check.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/dataset.h"
#include "run/backend.h"
#include "run/cache.h"
#include "util/stop.h"

#define RUN_PATH (CFG_PATH_MAX + 64)

/* process: what read-and-process phases cannot do. A backend with its own pipeline
 * (read_share) completes a file's reads out of order, so it must be able to hand them back in
 * order (BACKEND_IN_ORDER); a reader of a shared file sees only its slice of it, which no
 * whole-file digest can check. */
static int run_check_process(const struct experiment *x, struct pf_err *e)
{
	if (!cfg_processes(x))
		return 0;
	for (size_t i = 0; i < x->nbackends; i++)
		if (backend_find(x->backends[i])->read_share != NULL &&
		    !(backend_flags(backend_find(x->backends[i]), x) & BACKEND_IN_ORDER))
			return cfg_fail_at(e, x, x->process_pos, "process",
					   "not with the %s backend (sweep.backend[%zu]): its "
					   "pipeline has no in-order consumer of the bytes read",
					   x->backends[i], i);
	for (size_t i = 0; x->process_digest != DIGEST_NONE && i < x->npatterns; i++)
		if (x->patterns[i] == CFG_PATTERN_SHARED)
			return cfg_fail_at(e, x, x->process_pos, "process.digest",
					   "needs pattern per-reader: a reader of a shared file reads "
					   "only its slice, and the digest list has whole files");
	return 0;
}

/* The config's own mistakes, whatever runs it: unknown backends, cache: direct with a backend
 * that reads through the cache, process and advice a backend cannot honour. Each names the
 * config key at its file:line:col. */
int run_check_config(const struct experiment *x, struct pf_err *e)
{
	for (size_t i = 0; i < x->nbackends; i++) {
		if (backend_find(x->backends[i]) != NULL)
			continue;
		char key[64];
		snprintf(key, sizeof key, "sweep.backend[%zu]", i);
		const char *near = backend_nearest(x->backends[i]);
		if (near)
			return cfg_fail_at(e, x, x->backends_pos[i], key,
					   "unknown backend '%s': did you mean '%s'? (known: %s)",
					   x->backends[i], near, backend_names());
		return cfg_fail_at(e, x, x->backends_pos[i], key, "unknown backend '%s' (known: %s)",
				   x->backends[i], backend_names());
	}
	for (size_t i = 0; x->cache == CFG_CACHE_DIRECT && i < x->nbackends; i++)
		if (!(backend_flags(backend_find(x->backends[i]), x) & BACKEND_BYPASSES_CACHE))
			return cfg_fail_at(e, x, x->cache_pos, "cache",
					   "'direct' needs backends that bypass the page cache, and "
					   "'%s' does not (use backend: [direct])",
					   x->backends[i]);
	if (run_check_process(x, e) != 0 || backend_check_advice(x, e) != 0)
		return -1;
	return 0;
}

/* Usage errors that need the topology: they name the config key, like load errors. */
int run_check_experiment(const struct experiment *x, const struct topo_map *map, int generated,
			 struct pf_err *e)
{
	if (cfg_check_readers(x, plan_min_node_size(map), e) != 0 || run_check_config(x, e) != 0)
		return -1;
	if (x->cache == CFG_CACHE_SHIFT && map->nnodes < 2)
		return cfg_fail_at(e, x, x->cache_pos, "cache",
				   "'shift' reads each file on another node, and this job has one node");
	if (x->cache == CFG_CACHE_SHIFT && !plan_shift_is_cold(plan_dataset_uses(x), map->nnodes) &&
	    cache_check_allowed(x->shift_fallback, e) != 0) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		pf_err_clear(e);
		return cfg_fail_at(e, x, x->shift_fallback_pos, "shift_fallback", "%s", why);
	}
	if (cache_check_allowed(x->cache, e) != 0) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		pf_err_clear(e);
		return cfg_fail_at(e, x, x->cache_pos, "cache", "%s", why);
	}
	struct stat st;
	if (generated && (stat(x->root, &st) != 0 || !S_ISDIR(st.st_mode)))
		return cfg_fail_at(e, x, x->root_pos, "root",
				   "'%s' is not a directory (run 'pfsread generate' first)", x->root);
	return 0;
}

/* Rank 0: every data set was generated whole and as the config describes it. */
int run_check_datasets(const struct experiment *x, struct pf_err *e)
{
	char dir[RUN_PATH];
	for (size_t i = 0; i < x->ndatasets; i++) {
		struct manifest want, have;
		manifest_from_config(x, &x->datasets[i], &want);
		if (dataset_dir(x, &x->datasets[i], dir, sizeof dir) != 0)
			return pf_fail(e, PF_USAGE, "%s: path too long", x->root);
		int found = manifest_read(dir, &have, e);
		if (found < 0)
			return -1;
		if (found == 1 || !have.complete)
			return pf_fail(e, PF_RUNTIME,
				       "data set '%s' is not generated completely in %s "
				       "(run 'pfsread generate %s' first)",
				       want.name, dir, x->source);
		if (!manifest_same_files(&want, &have))
			return pf_fail(e, PF_RUNTIME,
				       "data set '%s' in %s was made with other parameters than %s "
				       "describes (run 'pfsread clean' and 'pfsread generate')",
				       want.name, dir, x->source);
		if (x->process_digest != DIGEST_NONE && !(have.digests & (1u << x->process_digest)))
			return pf_fail(e, PF_RUNTIME,
				       "data set '%s' in %s has no %s digest list (run 'pfsread generate "
				       "%s' to add it)",
				       want.name, dir, digest_name(x->process_digest), x->source);
	}
	return 0;
}

/* Before any timing: each rank checks the files generate gave it (a block of every data set
 * over all ranks) are there, regular, with their sizes, so that a missing, short or long file
 * (or a FIFO whose open would block, a directory) is named up front rather than found in the
 * middle of a timed phase. */
int run_check_files(const struct experiment *x, const struct topology *t, struct pf_err *e)
{
	char path[RUN_PATH], hex[DIGEST_HEX_MAX];
	int rc = 0, any = 0;
	for (size_t d = 0; d < x->ndatasets && rc == 0; d++) {
		const struct cfg_dataset *ds = &x->datasets[d];
		uint64_t first, count;
		int nfd = -1; /* a hashed data set's name list: this rank reads its own lines */
		plan_block(ds->nfiles, (uint64_t)t->nranks, (uint64_t)t->rank, &first, &count);
		if (ds->layout.kind == CFG_LAYOUT_HASHED && count > 0) {
			if (dataset_names_path(x, ds, path, sizeof path) != 0)
				rc = pf_fail(e, PF_USAGE, "%s: path too long", x->root);
			else if ((nfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
				rc = pf_fail_errno(e, errno, "data set %s: %s: cannot open the name "
						   "list", ds->name, path);
		}
		for (uint64_t f = first; f < first + count && rc == 0; f++) {
			struct stat st;
			if (stop_check(e, "run: checking the files") != 0) {
				rc = -1;
				break;
			}
			int got = nfd >= 0 ? dataset_read_line(nfd, ds->layout.digest, f, hex) : 0;
			if (got != 0)
				rc = pf_fail(e, PF_RUNTIME, "data set %s: file %llu has no name in its "
					     "name list (run 'pfsread generate' to finish it)", ds->name,
					     (unsigned long long)f);
			else if (dataset_path(x, ds, f, hex, path, sizeof path) != 0)
				rc = pf_fail(e, PF_USAGE, "%s: path too long", x->root);
			else if (stat(path, &st) != 0)
				rc = pf_fail_errno(e, errno, "data set %s: %s", ds->name, path);
			else if (dataset_not_regular(st.st_mode) != NULL)
				rc = pf_fail(e, PF_RUNTIME, "data set %s: %s: is %s, not a regular file",
					     ds->name, path, dataset_not_regular(st.st_mode));
			else if ((uint64_t)st.st_size != dataset_file_size(ds, f))
				rc = pf_fail(e, PF_RUNTIME, "data set %s: %s: %lld bytes, the manifest says %llu "
					     "(run 'pfsread generate' to remake it)",
					     ds->name, path, (long long)st.st_size,
					     (unsigned long long)dataset_file_size(ds, f));
		}
		if (nfd >= 0)
			close(nfd);
	}
	if (MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return pf_fail(e, PF_RUNTIME, "run: MPI_Allreduce failed");
	if (any != 0 && rc == 0)
		return pf_fail(e, PF_RUNTIME, "run: files are missing or of the wrong size (see above)");
	return rc;
}
