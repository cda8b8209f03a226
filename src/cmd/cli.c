/* cli: the table of commands and options, and everything printed or checked from it: the
 * usage, each command's help, the man page, the bash completion, --version, and the checks
 * main makes before dispatching (unknown names get "did you mean ...?"). */
#include "cmd/cli.h"

#include <hdf5.h>
#include <mpi.h>
#include <string.h>
#include <strings.h>

#include "run/backend.h"
#include "util/suggest.h"

#ifndef PFSREAD_VERSION
#define PFSREAD_VERSION "unknown"
#endif
#ifndef PFSREAD_GIT
#define PFSREAD_GIT "unknown"
#endif
#ifndef PFSREAD_BUILD
#define PFSREAD_BUILD "unknown"
#endif

#ifdef __clang__
static const char cli_compiler[] = "clang";
#else
static const char cli_compiler[] = "gcc";
#endif

static const char *const formats[] = {"text", "markdown", "csv", "json", NULL};
static const char *const rate_units[] = {"decimal", "binary", NULL};
static const char *const print_keys[] = {"name", "readers-per-node-max", NULL};

#define HELP_OPT {"--help", "-h", NULL, NULL, "print this help and exit"}

#define PROGRESS_OPT {"--progress", NULL, "SECONDS", NULL, \
		      "a progress line every SECONDS on rank 0 (default 30; 0: none)"}

static const struct cli_opt config_opts[] = {HELP_OPT, {NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt progress_opts[] = {PROGRESS_OPT, HELP_OPT,
					       {NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt run_opts[] = {
	{"-o", "--output", "FILE", NULL,
	 "results file (HDF5); default: the config's results: pattern"},
	{"--force", NULL, NULL, NULL, "overwrite the results file if it exists"},
	{"--resume", NULL, "FILE", NULL,
	 "continue FILE: keep its whole phases, redo an interrupted one, run the rest"},
	{"--time-budget", NULL, "DURATION", NULL,
	 "start no phase that cannot end in time; stopped early: status partial, exit 75"},
	{"--no-table", NULL, NULL, NULL,
	 "print no table at the end (the job scripts print the whole report instead)"},
	PROGRESS_OPT,
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt report_opts[] = {
	{"--format", NULL, "FORMAT", formats, "text (default), markdown, csv or json, on stdout"},
	{"--plot", NULL, "DIR", NULL, "write the charts (gnuplot: PNG and SVG) into DIR"},
	{"--html", NULL, "FILE", NULL, "write one HTML page with the tables and charts"},
	{"--brief", NULL, NULL, NULL, "only the answer: each table's best and worst cell against "
	 "its ceiling, and the findings with what to do (text, markdown or json)"},
	{"--wide", NULL, NULL, NULL, "text tables whole, however wide (default: split to 100 columns)"},
	{"--units", NULL, "UNITS", rate_units, "rates in decimal MB/s (default, 10^6 B/s) or binary "
	 "MiB/s (2^20 B/s, as IOR prints them), in every format and chart"},
	{"--per-file", NULL, NULL, NULL, "every phase's per-file records as CSV (implies --format "
	 "csv): path, transfer size, advice, cache, times"},
	{"--per-rank", NULL, NULL, NULL, "every phase's per-rank records as CSV (implies --format "
	 "csv); a rank that read nothing has no times"},
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt calibrate_opts[] = {
	{"-o", "--output", "FILE", NULL, "calibration file (HDF5); default: results/NAME-calibration-TIME.h5"},
	{"--force", NULL, NULL, NULL, "overwrite the calibration file if it exists"},
	{"--disk-size", NULL, "SIZE", NULL, "bytes read for the disk figure (4 KiB to 1 TiB; "
	 "default 1 GiB, at least 256 MiB to stay above a drive's own cache)"},
	{"--mem-size", NULL, "SIZE", NULL, "bytes copied for the memory figure (default 256 MiB "
	 "or four times the CPU's last-level cache, whichever is more)"},
	{"--msg-size", NULL, "SIZE", NULL, "bytes of one message for the link figure"},
	{"--through-fs", NULL, "DATASET", NULL, "also read the generated DATASET through the "
	 "file system with 1, 2, 4, ... readers per node until the rate stops rising: the "
	 "per-node read ceiling"},
	{"--fs-size", NULL, "SIZE", NULL, "bytes each reader reads per repetition (default 256 "
	 "MiB)"},
	{"--repetitions", NULL, "N", NULL, "measure each figure N times (3 to 100, default 5): "
	 "the median, with the spread, and a warning when max/min exceeds 1.10"},
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt plan_opts[] = {
	{"--ranks", NULL, "N", NULL, "the job's MPI ranks (required)"},
	{"--nodes", NULL, "M", NULL, "the job's nodes (required)"},
	{"--from", NULL, "FILE", NULL, "estimate every phase from FILE's (a pilot's) phases"},
	{"--calibration", NULL, "FILE", NULL, "estimate every phase from FILE's measured hardware "
	 "(pfsread calibrate), else from the config's hardware:"},
	{"--walltime", NULL, "DURATION", NULL, "the job's limit, for the estimate's warning "
	 "(inside a Slurm or PBS job: the time the job has left)"},
	{"--pilot", NULL, NULL, NULL, "under mpirun: read a sample of every phase first and "
	 "estimate from it; a count after it (--pilot N) is the files per phase, spread over "
	 "the readers, at least one each (default two per reader, at least 8); --ranks and "
	 "--nodes default to the pilot's own"},
	{"--print", NULL, "KEY", print_keys, "after the checks, print only KEY's value on one "
	 "line, for scripts: name (the experiment's) or readers-per-node-max"},
	{"--pilot-output", NULL, "FILE", NULL, "keep the pilot's results in FILE (else a "
	 "temporary file next to the config's results, removed afterwards)"},
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt help_opts[] = {
	{"--man", NULL, NULL, NULL, "print the man page (roff) instead"},
	{"--completion", NULL, NULL, NULL, "print the bash completion script instead"},
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_opt job_opts[] = {
	{"--chain", NULL, "N", NULL, "carry the study over up to N jobs: each submits the next "
	 "(afterany) before it runs, with a time budget, and the next resumes the file"},
	{"--script", NULL, "FILE", NULL, "the job script as the batch system ran it (the job "
	 "scripts pass \"$0\"): the chain's follow-on is submitted from it when neither "
	 "PFSREAD_JOB_SCRIPT nor Slurm's Command of the job names the script"},
	{"--complete", NULL, "FILE", NULL, "no job: exit 0 when results FILE holds a complete "
	 "study, 1 when not (the sweep asks it of each job's file)"},
	HELP_OPT,
	{NULL, NULL, NULL, NULL, NULL}};

static const struct cli_cmd commands[] = {
	{"generate", "CONFIG", 1, "create the data sets (resumable)",
	 "Create the data sets of CONFIG under its root:, in parallel over the ranks, with "
	 "deterministic content that verify and the readers can check. Files already complete "
	 "are kept, so an interrupted generate resumes.",
	 "mpirun -np 4 pfsread generate configs/local.yaml", progress_opts},
	{"run", "CONFIG", 1, "run every phase, write results and the table",
	 "Run every phase of the study in CONFIG (data sets x sweep x repetitions), with a "
	 "barrier around each timed phase, write one HDF5 results file and print the study's "
	 "table (the text report).",
	 "mpirun -np 4 pfsread run configs/local.yaml -o results/local.h5", run_opts},
	{"report", "FILE...", 0, "the report of results files (no MPI)",
	 "Read one or more results files (and at most one calibration file) and print the "
	 "report: the answer first (per table the best and worst cell against its ceiling, "
	 "then what explains the gap and what to do), the comparison of the runs (when there "
	 "are several), then each run's table, then the details. A calibration file alone shows the calibration. Needs neither "
	 "MPI, the data sets nor the config.",
	 "pfsread report results/local.h5\n"
	 "pfsread report a.h5 b.h5 --format markdown --html report.html\n"
	 "pfsread report a.h5 --per-file > files.csv", report_opts},
	{"calibrate", "CONFIG", 1, "measure disk, memory copy and MPI links",
	 "Measure what a node's disk under CONFIG's root reads, how fast memory copies, and "
	 "what the MPI links carry, into a calibration file that report uses for its ceilings.",
	 "mpirun -np 2 pfsread calibrate configs/local.yaml -o calib.h5", calibrate_opts},
	{"verify", "CONFIG", 1, "check every file's size and content",
	 "Check that every file of CONFIG's data sets has its size and its content, byte by "
	 "byte.",
	 "mpirun -np 4 pfsread verify configs/local.yaml", progress_opts},
	{"clean", "CONFIG", 1, "remove what generate made, nothing else",
	 "Remove the files and directories generate made for CONFIG, and nothing else: a file "
	 "it did not make is left, and named.",
	 "mpirun -np 4 pfsread clean configs/local.yaml", config_opts},
	{"plan", "CONFIG", 0, "dry run: phases, bytes, files per reader, estimates (no MPI but --pilot)",
	 "Print what run would do on N ranks over M nodes: each data set's files and bytes, "
	 "each phase's readers and files per reader, and the volume read in all, then the "
	 "estimated time of every phase and of the study (from --from, --calibration or the "
	 "config's hardware:). Touches no file. With --pilot it runs under MPI (mpirun) and "
	 "reads: every phase once, on the first files of each reader's share, then estimates "
	 "from that pilot.",
	 "pfsread plan configs/pvfs2-study.yaml --ranks 400 --nodes 100\n"
	 "mpirun -np 4 pfsread plan configs/local.yaml --pilot", plan_opts},
	{"job", "[CONFIG]", 0, "a Slurm or PBS job: check, generate, run, chain, report",
	 "What a batch job script runs, inside the job: the allocation from SLURM_* or PBS_* "
	 "and PBS_NODEFILE, plan's checks against it, generate through the launcher (mpirun or "
	 "srun) when a data set is not complete, run into NAME-JOBID.h5, the follow-on job of a "
	 "chain, then the report. CONFIG defaults to PFSREAD_CONFIG; the other PFSREAD_* "
	 "variables it reads are in docs/scale.md. Exit status: run's (75: stopped with phases "
	 "left), or 2 when the checks stop the job before anything runs.",
	 "pfsread job configs/pvfs2-study.yaml\n"
	 "pfsread job configs/pvfs2-study.yaml --chain 10 --script \"$0\"", job_opts},
	{"help", "[COMMAND]", 0, "the command list, or one command's help",
	 "Print the list of commands, or the help of COMMAND (as COMMAND --help does).",
	 "pfsread help run", help_opts},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const struct cli_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

void cli_print_usage(FILE *f)
{
	fputs("usage: pfsread COMMAND [ARGS] [OPTIONS]\n\ncommands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %-10s %s%s\n", commands[i].name, commands[i].args,
			commands[i].summary, commands[i].mpi ? " (mpirun)" : "");
	fputs("\n  pfsread COMMAND --help    a command's options and an example\n"
	      "  pfsread --version         version, git commit and build options\n"
	      "\nExit status: 0 success, 1 run-time failure, 2 usage or configuration error, 75\n"
	      "run stopped by --time-budget or SIGUSR1 with phases left (continue: --resume), or\n"
	      "another pfsread holds a data set or results file this command needs (try again).\n",
	      f);
}

/* "-o, --output FILE" */
static void cli_opt_label(const struct cli_opt *o, char *buf, size_t len)
{
	if (o->alias)
		snprintf(buf, len, "%s, %s%s%s", o->name, o->alias, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(buf, len, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* text on lines of at most width columns, each begun with indent */
static void cli_wrap(FILE *f, const char *text, int width, const char *indent)
{
	int col = 0;
	while (*text) {
		size_t w = strcspn(text, " ");
		if (col > 0 && col + 1 + (int)w > width) {
			fputc('\n', f);
			col = 0;
		}
		if (col == 0)
			col = fprintf(f, "%s", indent);
		else
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", (int)w, text);
		text += w;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void cli_print_help(FILE *f, const struct cli_cmd *c)
{
	char label[64];
	fprintf(f, "usage: pfsread %s %s%s\n\n%s\n", c->name, c->args,
		c->opts[1].name ? " [OPTIONS]" : "", c->summary);
	if (c->mpi)
		fputs("Runs under mpirun (or as a single process).\n", f);
	fputc('\n', f);
	cli_wrap(f, c->text, 78, "");
	fputs("\noptions (--key VALUE or --key=VALUE):\n", f);
	for (const struct cli_opt *o = c->opts; o->name; o++) {
		cli_opt_label(o, label, sizeof label);
		fprintf(f, "  %-22s %s\n", label, o->help);
	}
	fprintf(f, "\nexample%s:\n  ", strchr(c->example, '\n') ? "s" : "");
	for (const char *p = c->example; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fputs("  ", f);
	}
	fputc('\n', f);
}

/* roff text: a leading dot or quote would be a request, a backslash an escape, '-' a hyphen */
static void man_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void man_command(FILE *f, const struct cli_cmd *c)
{
	char label[64];
	fprintf(f, ".SS %s\n.B pfsread %s\n", c->name, c->name);
	man_text(f, c->args);
	fputs("\n.br\n", f);
	man_text(f, c->text);
	fputs(c->mpi ? " Runs under mpirun (or as a single process).\n" : "\n", f);
	for (const struct cli_opt *o = c->opts; o->name; o++) {
		cli_opt_label(o, label, sizeof label);
		fputs(".TP\n.B ", f);
		man_text(f, label);
		fputc('\n', f);
		man_text(f, o->help);
		fputc('\n', f);
	}
	fputs(".PP\nExample:\n.nf\n", f);
	man_text(f, c->example);
	fputs("\n.fi\n", f);
}

/* Where make install puts the documents under the default PREFIX; make install writes its own
 * PREFIX into the installed man page instead. */
#define CLI_DOCDIR "/usr/local/share/doc/pfsread"

void cli_print_man(FILE *f)
{
	fprintf(f, ".TH PFSREAD 1 \"\" \"pfsread %s\" \"User Commands\"\n", PFSREAD_VERSION);
	fputs(".SH NAME\npfsread \\- how fast N nodes with r readers each read data sets from a "
	      "parallel file system\n.SH SYNOPSIS\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fprintf(f, ".B pfsread %s\n", commands[i].name);
		man_text(f, commands[i].args);
		fputs(" [OPTIONS]\n.br\n", f);
	}
	fputs(".B pfsread \\-\\-version\n.SH DESCRIPTION\npfsread generates data sets, reads them "
	      "under mpirun with a barrier around every timed phase, records per-rank and "
	      "per-file timings in one HDF5 file, and reports the bandwidth of the study. "
	      "Options are given as \\-\\-key VALUE or \\-\\-key=VALUE.\n.SH COMMANDS\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		man_command(f, &commands[i]);
	fputs(".SH EXIT STATUS\n.TP\n.B 0\nsuccess.\n.TP\n.B 1\na run-time failure: an I/O "
	      "error, a short or missing file, a verification mismatch, a file system about to "
	      "fill, a rank stuck past its time (the watchdog, or MPI_Abort).\n.TP\n.B 2\na usage "
	      "or configuration error (the config's file:line:col and key), found before any "
	      "file is touched.\n.TP\n.B 75\n.B run\nstopped by \\-\\-time\\-budget or SIGUSR1 with "
	      "phases left: the results file says partial, and\n.B run \\-\\-resume FILE\n"
	      "continues it (EX_TEMPFAIL); or a command refused because another pfsread process, "
	      "on this node or another, holds the lock of a data set or results file it needs "
	      "(the message names its host and pid): try again when it has ended.\n.TP\n"
	      ".B 128 + N\nstopped by signal N promptly, what "
	      "was written left consistent: 130 for SIGINT, 143 for SIGTERM.\n"
	      ".SH FILES\n.TP\n.I " CLI_DOCDIR "/docs/config.md\nthe config reference: every key, its "
	      "default, what is refused (docs/config.md in the source).\n.TP\n.I " CLI_DOCDIR
	      "/README.md\nwhere to start; the other documents in docs/ beside it.\n"
	      ".SH SEE ALSO\n.BR mpirun (1),\n.BR h5dump (1)\n", f);
}

void cli_print_completion(FILE *f)
{
	fputs("# bash completion for pfsread (pfsread help --completion prints it)\n"
	      "_pfsread() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "%s ", commands[i].name);
	fputs("--help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tcase \"${COMP_WORDS[1]}\" in\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fprintf(f, "\t%s) opts=\"", commands[i].name);
		for (const struct cli_opt *o = commands[i].opts; o->name; o++)
			fprintf(f, "%s %s ", o->name, o->alias ? o->alias : "");
		fputs("\" ;;\n", f);
	}
	fputs("\tesac\n\tcase \"$prev\" in\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		for (const struct cli_opt *o = commands[i].opts; o->name; o++)
			if (o->choices) {
				fprintf(f, "\t%s) COMPREPLY=($(compgen -W \"", o->name);
				for (const char *const *v = o->choices; *v; v++)
					fprintf(f, "%s ", *v);
				fputs("\" -- \"$cur\")); return ;;\n", f);
			}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n"
	      "complete -o filenames -F _pfsread pfsread\n", f);
}

void cli_print_version(FILE *f)
{
	char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0;
	/* one of the few MPI calls allowed before MPI_Init */
	if (MPI_Get_library_version(mpi, &len) != MPI_SUCCESS)
		snprintf(mpi, sizeof mpi, "unknown");
	mpi[strcspn(mpi, "\n")] = '\0'; /* the first line; MPICH's has a tab after "Version:" */
	for (char *p = mpi; *p; p++)
		if (*p == '\t')
			*p = ' ';
	fprintf(f, "pfsread %s (git %s)\n", PFSREAD_VERSION, PFSREAD_GIT);
	fprintf(f, "MPI: %s (MPI %d.%d)\nHDF5: %d.%d.%d\n", mpi, MPI_VERSION, MPI_SUBVERSION,
		H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
	/* the registry holds the uring backend only in a build with liburing */
	fprintf(f, "io_uring backend: %s\n",
		backend_find("uring") != NULL ? "yes (liburing)" : "no (built without liburing)");
	fprintf(f, "compiler: %s %s\nbuild: %s\n", cli_compiler, __VERSION__, PFSREAD_BUILD);
}

/* Before the command: an option that is not one of pfsread's own (--help, --version). */
static int cli_unknown_global(const char *name, struct pf_err *e)
{
	static const char *const globals[] = {"--help", "-h", "--version", "-V"};
	struct suggest s;
	suggest_init(&s, name, strlen(name));
	const char *best = NULL;
	for (size_t i = 0; i < sizeof globals / sizeof *globals; i++) {
		suggest_offer(&s, globals[i]);
		if (strcasecmp(globals[i], name) == 0) /* -v: -V, not the nearer -h */
			best = globals[i];
	}
	if (best == NULL)
		best = suggest_best(&s);
	if (best)
		return pf_fail(e, PF_USAGE, "unknown option '%s': did you mean '%s'? "
			       "(pfsread help lists the commands)", name, best);
	return pf_fail(e, PF_USAGE, "unknown option '%s' (before the command: --help, --version; "
		       "pfsread help lists the commands)", name);
}

int cli_unknown_command(const char *name, struct pf_err *e)
{
	struct suggest s;
	if (name[0] == '-' && name[1] != '\0') /* an option, not a command */
		return cli_unknown_global(name, e);
	suggest_init(&s, name, strlen(name));
	for (size_t i = 0; i < NCOMMANDS; i++)
		suggest_offer(&s, commands[i].name);
	const char *best = suggest_best(&s);
	if (best)
		return pf_fail(e, PF_USAGE, "unknown command '%s': did you mean '%s'? "
			       "(pfsread help lists the commands)", name, best);
	return pf_fail(e, PF_USAGE, "unknown command '%s' (pfsread help lists the commands)",
		       name);
}

/* The option named (len bytes of) name, by its name or alias, or NULL. */
static const struct cli_opt *cli_opt_find(const struct cli_cmd *c, const char *name, size_t len)
{
	for (const struct cli_opt *o = c->opts; o->name; o++)
		if ((strlen(o->name) == len && strncmp(o->name, name, len) == 0) ||
		    (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
			return o;
	return NULL;
}

/* An option: "-x" or "--xyz" (a lone "-" is a name, e.g. stdin). */
static int cli_is_option(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

int cli_wants_help(const struct cli_cmd *c, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!cli_is_option(argv[i]))
			continue;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
		const struct cli_opt *o = cli_opt_find(c, argv[i], strlen(argv[i]));
		if (o && o->arg)
			i++; /* its value, whatever it looks like */
	}
	return 0;
}

static int cli_bad_option(const struct cli_cmd *c, const char *arg, size_t len,
			  struct pf_err *e)
{
	struct suggest s;
	suggest_init(&s, arg, len);
	for (const struct cli_opt *o = c->opts; o->name; o++) {
		suggest_offer(&s, o->name);
		suggest_offer(&s, o->alias);
	}
	const char *best = suggest_best(&s);
	if (best)
		return pf_fail(e, PF_USAGE, "%s: unknown option '%.*s': did you mean '%s'? "
			       "(pfsread %s --help)", c->name, (int)len, arg, best, c->name);
	return pf_fail(e, PF_USAGE, "%s: unknown option '%.*s' (pfsread %s --help lists them)",
		       c->name, (int)len, arg, c->name);
}

static int cli_bad_choice(const struct cli_cmd *c, const struct cli_opt *o, const char *v,
			  struct pf_err *e)
{
	char list[256] = "";
	size_t used = 0;
	struct suggest s;
	suggest_init(&s, v, strlen(v));
	for (const char *const *p = o->choices; *p; p++) {
		if (strcmp(*p, v) == 0)
			return 0;
		suggest_offer(&s, *p);
		used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0,
					 "%s%s", used ? ", " : "", *p);
		if (used >= sizeof list)
			used = sizeof list - 1;
	}
	const char *best = suggest_best(&s);
	return pf_fail(e, PF_USAGE, "%s: %s: unknown value '%s'%s%s%s (use %s)", c->name, o->name,
		       v, best ? ": did you mean '" : "", best ? best : "", best ? "'?" : "", list);
}

int cli_normalize(const struct cli_cmd *c, int argc, char **argv, char **out, int *outc,
		  struct pf_err *e)
{
	int n = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!cli_is_option(a)) {
			out[n++] = argv[i];
			continue;
		}
		const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const struct cli_opt *o = cli_opt_find(c, a, len);
		if (o == NULL)
			return cli_bad_option(c, a, len, e);
		out[n++] = (char *)o->name; /* the parsers know the option by its name */
		if (o->arg == NULL && eq)
			return pf_fail(e, PF_USAGE, "%s: %s takes no value", c->name, o->name);
		if (o->arg == NULL)
			continue;
		const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (v == NULL)
			return pf_fail(e, PF_USAGE, "%s: %s needs a value (%s %s)", c->name, o->name,
				       o->name, o->arg);
		if (o->choices && cli_bad_choice(c, o, v, e) != 0)
			return -1;
		out[n++] = (char *)v;
	}
	*outc = n;
	return 0;
}
