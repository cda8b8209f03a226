/* err: formatting of the single error record (see err.h). */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int err_vset(struct pf_err *e, int status, int errnum, const char *fmt, va_list ap)
{
	if (e == NULL || e->status != PF_OK)
		return -1;
	e->status = status;
	int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	if (errnum != 0 && n >= 0 && (size_t)n < sizeof e->msg)
		snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s",
			 strerror(errnum < 0 ? -errnum : errnum));
	return -1;
}

int pf_fail(struct pf_err *e, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, status, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int pf_fail_errno(struct pf_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, PF_RUNTIME, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int pf_fail_lost(struct pf_err *e, const char *fmt, ...)
{
	char before[sizeof e->msg];
	va_list ap;
	if (e == NULL)
		return -1;
	snprintf(before, sizeof before, "%s", e->status != PF_OK ? e->msg : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->status = PF_HUNG;
	if (before[0] == '\0' || strcmp(before, e->msg) == 0)
		return -1;
	static const char sep[] = " (before that: ";
	size_t n = strlen(e->msg), room = sizeof e->msg - 1;
	for (const char *p = sep; *p && n < room; p++)
		e->msg[n++] = *p;
	for (const char *p = before; *p && n < room; p++)
		e->msg[n++] = *p;
	if (n < room)
		e->msg[n++] = ')';
	e->msg[n] = '\0';
	return -1;
}

void pf_err_clear(struct pf_err *e)
{
	e->status = PF_OK;
	e->msg[0] = '\0';
}
