/* values: the handlers of single values: strings and names, paths, sizes with units,
 * durations, rates. Each checks its range and says what it expected. (An integer is read by
 * walk.c's cfg_read, from the range its table gives.) */
#include "config/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/units.h"

/* Names become directory and file names, so keep them to a portable set. */
static int cfg_name_ok(const char *s)
{
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	return s[0] != '\0' && strspn(s, CFG_NAME_CHARS) == strlen(s);
}

int cfg_h_str(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	size_t n = strlen(s);
	if (n == 0)
		return cfg_fail(c, v, key, "must not be empty");
	if (n >= size)
		return cfg_fail(c, v, key, "is too long (at most %zu characters)", size - 1);
	memcpy(dst, s, n + 1);
	return 0;
}

int cfg_h_name(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	if (!cfg_name_ok(dst))
		return cfg_fail(c, v, key,
				"invalid name '%s' (use letters, digits, '.', '_' and '-'; "
				"not '.' or '..')",
				(const char *)dst);
	return 0;
}

/* A path's repeated and trailing slashes dropped ("/mnt//x/" is "/mnt/x"; "/" stays), so
 * that the paths built from it and printed read as the user would write them. */
static void cfg_tidy_path(char *p)
{
	char *out = p;
	for (const char *in = p; *in; in++)
		if (*in != '/' || out == p || out[-1] != '/')
			*out++ = *in;
	while (out > p + 1 && out[-1] == '/')
		out--;
	*out = '\0';
}

/* root: a missing directory is for the caller to judge, anything else in the way is not. */
int cfg_h_root(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	struct stat st;
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	cfg_tidy_path(dst);
	c->x->root_pos = cfg_pos_of(v);
	if (stat(dst, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		return cfg_fail(c, v, key, "cannot check '%s': %s", (const char *)dst,
				strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return cfg_fail(c, v, key, "'%s' exists but is not a directory", (const char *)dst);
	return 0;
}

static int cfg_is_placeholder(const char *p, size_t n)
{
	static const char *const ok[] = {"{name}", "{jobid}", "{time}"};
	for (size_t i = 0; i < CFG_LEN(ok); i++)
		if (strlen(ok[i]) == n && strncmp(ok[i], p, n) == 0)
			return 1;
	return 0;
}

int cfg_h_results(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			 size_t size)
{
	if (cfg_h_str(c, key, v, dst, size) != 0)
		return -1;
	for (const char *p = strchr(dst, '{'); p != NULL; p = strchr(p + 1, '{')) {
		const char *end = strchr(p, '}');
		if (end == NULL)
			return cfg_fail(c, v, key, "'{' without '}' in '%s'", (const char *)dst);
		size_t n = (size_t)(end - p) + 1;
		if (!cfg_is_placeholder(p, n))
			return cfg_fail(c, v, key,
					"unknown placeholder '%.*s' (use {name}, {jobid}, {time})",
					(int)n, p);
	}
	return 0;
}

/* A size with a unit, from 1 byte to max, into *out; what says what max is the largest of. */
int cfg_size_upto(struct cfg_ctx *c, const char *key, struct ynode *v, uint64_t max,
			 const char *what, uint64_t *out)
{
	const char *s, *why;
	char most[32];
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (units_parse_size(s, out, &why) != 0)
		return cfg_fail(c, v, key, "invalid size '%s': %s", s, why);
	if (*out == 0)
		return cfg_fail(c, v, key, "must be greater than zero, got '%s'", s);
	if (*out > max)
		return cfg_fail(c, v, key, "'%s' is more than %s, the largest %s pfsread accepts "
				"(README, Safety)", s, units_format_size_binary(max, most, sizeof most),
				what);
	return 0;
}

/* A file's size (file_size, a distribution's median, min and max, a histogram's sizes). */
int cfg_h_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_FILE_SIZE_MAX, "file", dst);
}

int cfg_h_total_size(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			    size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_DATASET_BYTES_MAX, "data set", dst);
}

/* A transfer size: a reader's buffer holds one, rounded up (an allocation that must succeed). */
int cfg_h_transfer(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	(void)size;
	return cfg_size_upto(c, key, v, CFG_TRANSFER_MAX, "transfer size", dst);
}

/* A duration > 0 ("90s", "10min", "2h", a bare number of seconds), into a double. */
int cfg_h_duration(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst,
			  size_t size)
{
	const char *s, *why;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (units_parse_duration(s, dst, &why) != 0)
		return cfg_fail(c, v, key, "invalid duration '%s': %s", s, why);
	if (*(double *)dst <= 0)
		return cfg_fail(c, v, key, "must be greater than zero, got '%s'", s);
	if (*(double *)dst > CFG_TIMEOUT_MAX)
		return cfg_fail(c, v, key, "'%s' is more than %g days, the longest pfsread accepts",
				s, CFG_TIMEOUT_MAX / 86400);
	return 0;
}

/* A plain decimal number above 0 and at most max ("117", "117.5"; no sign, exponent or
 * unit); -1 when the text is anything else. */
static int cfg_positive_decimal(const char *s, double max, double *out)
{
	char *end = NULL;
	errno = 0;
	double r = strtod(s, &end);
	if (strspn(s, "0123456789.") != strlen(s) || end == s || *end != '\0' || errno != 0 ||
	    !(r > 0) || r > max)
		return -1;
	*out = r;
	return 0;
}

/* A rate in MB/s, into a double. */
int cfg_h_rate(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (cfg_positive_decimal(s, 1e12, dst) != 0)
		return cfg_fail(c, v, key, "expected a rate in MB/s greater than zero, got '%s'", s);
	return 0;
}

/* sigma: at most 10 (e^10 spans more than 64 bits). */
int cfg_h_sigma(struct cfg_ctx *c, const char *key, struct ynode *v, void *dst, size_t size)
{
	const char *s;
	(void)size;
	if (cfg_scalar(c, key, v, &s) != 0)
		return -1;
	if (cfg_positive_decimal(s, 10, dst) != 0)
		return cfg_fail(c, v, key, "expected a decimal number above 0 and at most 10, got '%s'",
				s);
	return 0;
}
