/* cli: the command line's one source of truth: every command with its synopsis, options,
 * description and example. --help, `pfsread help`, the man page (help --man) and the bash
 * completion (help --completion) are printed from it, and main checks the options against it
 * (--key=value split, unknown names answered with "did you mean ...?"). A new option is one
 * line in the table of its command (cli.c). */
#ifndef PFSREAD_CLI_H
#define PFSREAD_CLI_H

#include <stdio.h>

#include "util/err.h"

struct cli_opt {
	const char *name;            /* "--format" or "-o" */
	const char *alias;           /* another spelling ("--output"), or NULL */
	const char *arg;             /* the value's name ("FILE"); NULL: a flag without value */
	const char *const *choices;  /* the values allowed (NULL-terminated), or NULL: any */
	const char *help;            /* one line */
};

struct cli_cmd {
	const char *name;
	const char *args;      /* positional arguments ("CONFIG", "FILE...") */
	int mpi;               /* 1: runs under mpirun (one process works too) */
	const char *summary;   /* one line for the command list */
	const char *text;      /* a paragraph for help and the man page */
	const char *example;   /* one or more command lines, '\n'-separated */
	const struct cli_opt *opts; /* terminated by an entry with name NULL */
};

/* The command named name, or NULL. */
const struct cli_cmd *cli_find(const char *name);

/* The overall usage (the command list) and one command's help. */
void cli_print_usage(FILE *f);
void cli_print_help(FILE *f, const struct cli_cmd *c);

/* The man page (roff) and the bash completion script, from the same table. */
void cli_print_man(FILE *f);
void cli_print_completion(FILE *f);

/* "pfsread 0.1.0 (git abc123)" and the build's options: compiler, flags, MPI and HDF5. */
void cli_print_version(FILE *f);

/* Fails (PF_USAGE) for an unknown command, with the nearest name if it looks like a typo; for
 * an unknown option in its place, with the nearest of --help, --version. */
int cli_unknown_command(const char *name, struct pf_err *e);

/* True when argv (the command's arguments) asks for help (-h or --help where an option may
 * stand, not as an option's value). */
int cli_wants_help(const struct cli_cmd *c, int argc, char **argv);

/* Checks the command's arguments against its table and writes them to out (room for argc
 * entries; the strings are argv's or, for --key=value, point into argv's): --key=value
 * becomes --key value, an alias becomes the option's name. An unknown option, a flag given a
 * value, a missing value or a value outside the option's choices fails (PF_USAGE) with
 * "did you mean ...?" where a name is near. *outc receives the count (at most 2 * argc). */
int cli_normalize(const struct cli_cmd *c, int argc, char **argv, char **out, int *outc,
		  struct pf_err *e);

#endif
