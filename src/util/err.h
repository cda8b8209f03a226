/* err: the one error record every module fills; only main prints it and picks the exit status. */
#ifndef PFSREAD_ERR_H
#define PFSREAD_ERR_H

#include <stddef.h>

/* Exit classes of the command line contract. */
enum pf_status {
	PF_OK = 0,
	PF_RUNTIME = 1, /* I/O error, short file, verification mismatch */
	PF_USAGE = 2,   /* bad command line or configuration, found before any file is touched */
	PF_PARTIAL = 75, /* run: stopped by its time budget or SIGUSR1 with phases left; the file
			  * says "partial" and `run --resume FILE` continues it (EX_TEMPFAIL) */
	PF_BUSY = 75,   /* another pfsread holds the lock of a data set or results file this
			 * one needs (util/lock.h): nothing was done; try again when it ends */
	PF_HUNG = 3     /* a rank is stuck where no signal reaches it, or a collective write
			 * failed on some ranks only (their states differ): only MPI_Abort is left */
};

struct pf_err {
	int status;     /* enum pf_status of the first failure */
	char msg[2048]; /* one line, no trailing newline, says what failed and where */
};

/* Record a failure and return -1, so callers write `return pf_fail(e, ...)`.
 * The first failure wins: a later call keeps the earlier message. e may be NULL. */
int pf_fail(struct pf_err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As pf_fail, with ": " and strerror(errnum) appended (errnum positive or negative). */
int pf_fail_errno(struct pf_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A failure after which the ranks can no longer make collective calls together (PF_HUNG):
 * it replaces an earlier failure, whose message is kept after its own, because main must
 * abort rather than finalize. The arguments must not point into e. Returns -1. */
int pf_fail_lost(struct pf_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clear e back to "no error". */
void pf_err_clear(struct pf_err *e);

#endif
