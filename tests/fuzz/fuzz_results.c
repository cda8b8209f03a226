/* fuzz_results: libFuzzer target for the results reader and the report that prints what it
 * read, i.e. `pfsread report FILE` on any bytes. The input is written to a scratch file in
 * $TMPDIR or /dev/shm (HDF5 wants a real path: /proc/self/fd/N of a memfd fails its realpath),
 * read with results_read, checked, rendered in every format to /dev/null, then given to the
 * report command itself. It must fail with a message naming the file, never crash, leak memory
 * or leave an HDF5 identifier open; what it accepts must keep the promises of results.h. */
#include <hdf5.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "report/report.h"
#include "results/results.h"

#define FZ_CHECK(cond)                                                                      \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "fuzz_results: broken promise: %s (%s:%d)\n", #cond, \
				__FILE__, __LINE__);                                        \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* Identifiers left open are leaks LeakSanitizer cannot see (HDF5 keeps them reachable).
 * Only identifiers handed to the caller count: HDF5 registers identifiers of its own while it
 * converts (H5Aread of a damaged variable-length string in 1.10.8 leaves its two conversion
 * datatypes registered, for good), and those are the library's defects, not ours. Objects of
 * open files are counted through the public API; types, spaces and property lists through
 * HDF5's internal H5I_iterate, which skips identifiers the caller never got (public H5Isearch
 * refuses library types), used when the library exports it (1.10.8 does). */
extern herr_t H5I_iterate(H5I_type_t type, H5I_search_func_t func, void *udata,
			  hbool_t app_ref) __attribute__((weak));

static const H5I_type_t fz_id_types[] = {H5I_DATATYPE, H5I_DATASPACE, H5I_GENPROP_LST};
static const char *const fz_id_names[] = {"file object", "datatype", "dataspace",
					  "property list"};
#define FZ_NCOUNTS (1 + sizeof fz_id_types / sizeof fz_id_types[0])

static int fz_fd = -1;
static char fz_path[4096];
static FILE *fz_null;

static int fz_count_one(void *obj, hid_t id, void *n)
{
	(void)obj;
	(void)id;
	(*(int64_t *)n)++;
	return 0;
}

static void fz_id_counts(int64_t *n)
{
	ssize_t files = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
	FZ_CHECK(files >= 0);
	n[0] = (int64_t)files;
	for (size_t i = 1; i < FZ_NCOUNTS; i++) {
		n[i] = 0;
		if (H5I_iterate != NULL)
			FZ_CHECK(H5I_iterate(fz_id_types[i - 1], fz_count_one, &n[i], 1) >= 0);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
const char *__lsan_default_suppressions(void);

/* HDF5 1.10 itself leaks on some damaged files (an object header that fails to load in its
 * metadata cache: regress/results/leak-hdf5-*). Not ours to fix. With the default fast
 * unwinder a leak's stack stops at the first libhdf5 frame, so this hides only memory that HDF5
 * allocated; what our code allocates is still checked, and valgrind.t checks the rest. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libhdf5\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_cleanup(void)
{
	(void)unlink(fz_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* A crash skips atexit: run.sh and triage.sh point TMPDIR at a directory they remove. */
	const char *dir = getenv("TMPDIR");
	if (dir == NULL || dir[0] == '\0')
		dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(fz_path, sizeof fz_path, "%s/pfsread-fuzz-XXXXXX.h5", dir);
	fz_fd = mkstemps(fz_path, 3);
	FZ_CHECK(fz_fd >= 0);
	atexit(fz_cleanup);
	fz_null = fopen("/dev/null", "w");
	FZ_CHECK(fz_null != NULL);
	FZ_CHECK(freopen("/dev/null", "w", stdout) != NULL); /* report_command prints there */
	FZ_CHECK(H5open() >= 0);
	return 0;
}

static void fz_write(const uint8_t *data, size_t size)
{
	FZ_CHECK(ftruncate(fz_fd, 0) == 0);
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(fz_fd, data + done, size - done, (off_t)done);
		FZ_CHECK(n > 0);
		done += (size_t)n;
	}
}

static int fz_str_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void fz_check_phase(const struct run_data *run, const struct phase_data *pd)
{
	const struct phase_info *p = &pd->info;
	for (int k = 0; k < SWEEP_NKEYS; k++) /* every string key of the sweep point, terminated */
		FZ_CHECK(sweep_fields[k].kind != SWEEP_STR ||
			 fz_str_ok(sweep_string(&p->sweep, k), sweep_fields[k].size));
	FZ_CHECK(fz_str_ok(p->atime_mode, sizeof p->atime_mode) &&
		 fz_str_ok(p->mpiio_hints, sizeof p->mpiio_hints));
	FZ_CHECK(p->status >= PHASE_COMPLETE && p->status <= PHASE_UNKNOWN);
	FZ_CHECK(pd->nranks == (size_t)run->nranks && pd->ranks != NULL);
	FZ_CHECK((pd->nfiles == 0) == (pd->files == NULL));
}

/* What a run that results_read accepted promises the report. */
static void fz_check_run(const struct run_data *run)
{
	const char *strs[] = {run->path,        run->pfsread_version, run->config_yaml,
			      run->config_path, run->command_line,    run->start_time,
			      run->mpi_version, run->hdf5_version,    run->job_id,
			      run->status};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		FZ_CHECK(strs[i] != NULL);
	FZ_CHECK(strcmp(run->path, fz_path) == 0);
	FZ_CHECK(run->schema_version >= 1 && run->schema_version <= RESULTS_SCHEMA_VERSION);
	FZ_CHECK(run->nranks >= 1 && run->nnodes >= 1 && run->nnodes <= run->nranks);
	int topo = run->node_of_rank != NULL;
	FZ_CHECK((run->hostnames != NULL) == topo && (run->clock_offset_s != NULL) == topo);
	for (int i = 0; topo && i < run->nnodes; i++)
		FZ_CHECK(fz_str_ok(run->hostnames[i], RECORD_HOST_MAX));
	FZ_CHECK((run->nphases == 0) == (run->phases == NULL));
	for (size_t i = 0; i < run->nphases; i++)
		fz_check_phase(run, &run->phases[i]);
}

/* Every renderer on what was read: the four stream formats, the HTML page, two runs side by
 * side (the comparison), the summary and the per-phase lines of run. */
static void fz_report(const struct run_data *run)
{
	static const enum report_format formats[] = {REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV,
						     REPORT_JSON};
	const struct run_data two[2] = {*run, *run};
	struct report_opts html = {.format = REPORT_HTML, .html_path = "/dev/null"};
	struct pf_err e = {0};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		pf_err_clear(&e);
		(void)report_write(fz_null, run, 1, formats[i], &e);
	}
	pf_err_clear(&e);
	(void)report_write_opts(fz_null, run, 1, &html, &e);
	pf_err_clear(&e);
	(void)report_write(fz_null, two, 2, REPORT_TEXT, &e);
	pf_err_clear(&e);
	(void)report_write_summary(fz_null, run, &e);
	for (size_t i = 0; i < run->nphases; i++)
		report_phase_line(fz_null, &run->phases[i].info);
}

/* `pfsread report FILE --format json` as main runs it: the calibration probe, the hardware
 * from the config text stored in the file, the ceilings. stdout is /dev/null (Initialize). */
static void fz_report_command(void)
{
	char fmt[] = "--format", json[] = "json";
	char *argv[] = {fz_path, fmt, json, NULL};
	struct pf_err e = {0};
	if (report_command(3, argv, &e) != 0) {
		FZ_CHECK(e.status != PF_OK && e.msg[0] != '\0');
		FZ_CHECK(strstr(e.msg, fz_path) != NULL || strncmp(e.msg, "report:", 7) == 0);
	}
}

/* Read the scratch file once, check what came back, report it; counts[] after. */
static void fz_read_once(int64_t *counts)
{
	static const struct run_data zero;
	struct run_data run;
	struct pf_err e = {0};
	if (results_read(fz_path, &run, &e) == 0) {
		FZ_CHECK(e.status == PF_OK);
		fz_check_run(&run);
		fz_report(&run);
		results_free(&run);
	} else {
		FZ_CHECK(memcmp(&run, &zero, sizeof zero) == 0); /* freed on failure */
		FZ_CHECK(e.status == PF_RUNTIME);
		FZ_CHECK(strncmp(e.msg, fz_path, strlen(fz_path)) == 0 &&
			 e.msg[strlen(fz_path)] == ':');
	}
	fz_report_command();
	fz_id_counts(counts);
}

static void fz_same_counts(const int64_t *before, const int64_t *after)
{
	for (size_t i = 0; i < FZ_NCOUNTS; i++) {
		if (after[i] != before[i])
			fprintf(stderr, "fuzz_results: %s identifiers: %lld before, %lld after\n",
				fz_id_names[i], (long long)before[i], (long long)after[i]);
		FZ_CHECK(after[i] == before[i]); /* no HDF5 identifier left open */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t before[FZ_NCOUNTS], after[FZ_NCOUNTS];

	fz_write(data, size);
	fz_id_counts(before);
	fz_read_once(after);
	fz_same_counts(before, after);
	return 0;
}
