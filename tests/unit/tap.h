/* tap: the smallest Test Anything Protocol emitter, for unit tests run by prove. */
#ifndef PFSREAD_TAP_H
#define PFSREAD_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failures;

__attribute__((format(printf, 4, 5))) static int tap_ok(int pass, const char *file, int line,
							 const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failures++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define ok(cond, ...) tap_ok((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* Print the plan and return the exit status: 0 when every test passed. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failures == 0 && tap_count > 0 ? 0 : 1;
}

#endif
