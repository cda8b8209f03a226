/* cmd: the commands, as main dispatches them. Each takes argv without "pfsread" and the
 * command's name, returns 0 or -1 with e set, and prints nothing of its failure (main does). */
#ifndef PFSREAD_CMD_H
#define PFSREAD_CMD_H

#include "util/err.h"

/* `pfsread report FILE... [options]`: reads the files (results and calibration), each run's
 * hardware from its stored config, and writes the report. No MPI. */
int report_command(int argc, char **argv, struct pf_err *e);

/* `pfsread plan CONFIG --ranks N --nodes M`: the dry run, on one process. No MPI (with
 * --pilot main starts MPI and runs plan_pilot_command, cmd/plan.h, instead). */
int plan_command(int argc, char **argv, struct pf_err *e);

/* The commands that run under MPI (MPI is up): cmd is "run", "generate", "verify", "clean" or
 * "calibrate"; command_line is the whole line as typed, for the results file. Collective. */
int mpi_command(const char *cmd, int argc, char **argv, const char *command_line,
		struct pf_err *e);

/* `pfsread job [CONFIG] [--chain N] [--script FILE]`: a batch job's whole experiment (the
 * allocation, plan's checks, generate and run through the launcher, the chain's follow-on,
 * the report), on one process without MPI. Returns the job's exit status (0, or the
 * launcher's or the report's), or -1 with e set when it stopped before the launch. */
int job_command(int argc, char **argv, struct pf_err *e);

struct experiment;

/* Collective: rank 0 reads the config at path once and broadcasts its text; every rank
 * parses the same bytes into x. Rank 0 makes run's config checks (run_check_config) first, so
 * a config run would refuse is refused by every command before it writes. 0 or -1 with e set
 * (the same on every rank). */
int mpi_load_config(const char *path, int rank, struct experiment *x, struct pf_err *e);

/* `pfsread calibrate CONFIG [-o FILE] [--force] [--disk-size SIZE] [--mem-size SIZE]
 * [--msg-size SIZE]`. Collective over MPI_COMM_WORLD. */
int calibrate_command(int argc, char **argv, const char *command_line, struct pf_err *e);

#endif
