/* units: sizes parsed exactly, in integers; sizes, rates and durations printed for people. */
#include "util/units.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNITS_KI 1024ULL

struct units_suffix {
	const char *name;
	uint64_t mult;
};

/* Every unit a size may carry; "" is a bare number of bytes. */
static const struct units_suffix units_sizes[] = {
	{"", 1},
	{"B", 1},
	{"KB", 1000ULL},
	{"MB", 1000000ULL},
	{"GB", 1000000000ULL},
	{"TB", 1000000000000ULL},
	{"PB", 1000000000000000ULL},
	{"KiB", UNITS_KI},
	{"MiB", UNITS_KI * UNITS_KI},
	{"GiB", UNITS_KI * UNITS_KI * UNITS_KI},
	{"TiB", UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI},
	{"PiB", UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI},
	/* Bare letters are binary, as dd and fio read them. */
	{"K", UNITS_KI},
	{"M", UNITS_KI * UNITS_KI},
	{"G", UNITS_KI * UNITS_KI * UNITS_KI},
	{"T", UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI},
	{"P", UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI * UNITS_KI},
};

struct units_dsuffix {
	const char *name;
	double mult;
};

static const struct units_dsuffix units_durations[] = {
	{"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"min", 60.0}, {"h", 3600.0},
};

/* A number as written: the whole part exactly, the fraction kept as its digits so the
 * unit can scale it without rounding. */
struct units_number {
	uint64_t whole;
	const char *frac;
	size_t nfrac;
};

static const char *units_skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* *acc = *acc * mul + add; -1 when that does not fit in 64 bits. */
static int units_mul_add(uint64_t *acc, uint64_t mul, uint64_t add)
{
	if (mul != 0 && *acc > UINT64_MAX / mul)
		return -1;
	uint64_t v = *acc * mul;
	if (v > UINT64_MAX - add)
		return -1;
	*acc = v + add;
	return 0;
}

/* Read "DIGITS[.DIGITS]" at p. Returns the first character after it, or NULL with *why. */
static const char *units_scan_number(const char *p, struct units_number *n, const char **why)
{
	n->whole = 0;
	n->frac = NULL;
	n->nfrac = 0;
	if (!isdigit((unsigned char)*p)) {
		*why = "not a number";
		return NULL;
	}
	for (; isdigit((unsigned char)*p); p++) {
		if (units_mul_add(&n->whole, 10, (uint64_t)(*p - '0')) != 0) {
			*why = "does not fit in 64 bits";
			return NULL;
		}
	}
	if (*p != '.')
		return p;
	n->frac = ++p;
	while (isdigit((unsigned char)p[n->nfrac]))
		n->nfrac++;
	if (n->nfrac == 0) {
		*why = "no digits after the decimal point";
		return NULL;
	}
	return p + n->nfrac;
}

/* Bytes of the fraction digits times mult, by schoolbook multiplication from the last digit:
 * the low digits of the product are the part below one byte and must all be zero. The carry
 * stays below mult, so nothing overflows whatever the number of digits. */
static int units_frac_bytes(const char *digits, size_t n, uint64_t mult, uint64_t *bytes)
{
	uint64_t carry = 0;
	int partial = 0;
	for (size_t i = n; i-- > 0;) {
		uint64_t v = (uint64_t)(digits[i] - '0') * mult + carry;
		if (v % 10 != 0)
			partial = 1;
		carry = v / 10;
	}
	*bytes = carry;
	return partial ? -1 : 0;
}

/* Look up the unit of length len at p; -1 when unknown. */
static int units_find_size_unit(const char *p, size_t len, uint64_t *mult)
{
	for (size_t i = 0; i < sizeof units_sizes / sizeof units_sizes[0]; i++) {
		const struct units_suffix *u = &units_sizes[i];
		if (strlen(u->name) == len && strncmp(u->name, p, len) == 0) {
			*mult = u->mult;
			return 0;
		}
	}
	return -1;
}

/* Read "[space]UNIT[space]" up to the end of text; the unit may be empty. */
static int units_scan_unit(const char *p, const char **unit, size_t *len, const char **why)
{
	p = units_skip_space(p);
	*unit = p;
	while (*p != '\0' && !isspace((unsigned char)*p))
		p++;
	*len = (size_t)(p - *unit);
	if (*units_skip_space(p) != '\0') {
		*why = "unexpected text after the unit";
		return -1;
	}
	return 0;
}

/* Leading checks shared by sizes and durations: returns the first digit or NULL with *why. */
static const char *units_start(const char *text, const char *empty, const char *negative,
			       const char **why)
{
	if (text == NULL || *units_skip_space(text) == '\0') {
		*why = empty;
		return NULL;
	}
	text = units_skip_space(text);
	if (*text == '-') {
		*why = negative;
		return NULL;
	}
	return text;
}

int units_parse_size(const char *text, uint64_t *bytes, const char **why)
{
	struct units_number n;
	const char *p, *unit;
	size_t ulen;
	uint64_t mult, frac = 0, total;

	p = units_start(text, "empty size", "negative size", why);
	if (p == NULL || (p = units_scan_number(p, &n, why)) == NULL)
		return -1;
	if (units_scan_unit(p, &unit, &ulen, why) != 0)
		return -1;
	if (units_find_size_unit(unit, ulen, &mult) != 0) {
		*why = "unknown unit (use B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)";
		return -1;
	}
	if (n.nfrac > 0 && units_frac_bytes(n.frac, n.nfrac, mult, &frac) != 0) {
		*why = "not a whole number of bytes";
		return -1;
	}
	total = n.whole;
	if (units_mul_add(&total, mult, frac) != 0) {
		*why = "does not fit in 64 bits";
		return -1;
	}
	*bytes = total;
	return 0;
}

/* Length of "DIGITS[.DIGITS][e[+-]DIGITS]" at p: the only number shape a duration takes,
 * so strtod's hex, inf and nan spellings are refused. */
static size_t units_number_span(const char *p)
{
	size_t i = strspn(p, "0123456789");
	if (p[i] == '.')
		i += 1 + strspn(p + i + 1, "0123456789");
	if (p[i] == 'e' || p[i] == 'E') {
		size_t j = i + 1;
		if (p[j] == '+' || p[j] == '-')
			j++;
		size_t digits = strspn(p + j, "0123456789");
		if (digits > 0)
			i = j + digits;
	}
	return i;
}

int units_parse_duration(const char *text, double *seconds, const char **why)
{
	const char *p, *unit;
	char *end;
	size_t ulen;

	p = units_start(text, "empty duration", "negative duration", why);
	if (p == NULL)
		return -1;
	size_t span = units_number_span(p);
	double v = strtod(p, &end);
	if (span == 0 || !isdigit((unsigned char)p[p[0] == '.' ? 1 : 0]) || end != p + span) {
		*why = "not a number";
		return -1;
	}
	if (units_scan_unit(end, &unit, &ulen, why) != 0)
		return -1;
	for (size_t i = 0; i < sizeof units_durations / sizeof units_durations[0]; i++) {
		const struct units_dsuffix *u = &units_durations[i];
		if (strlen(u->name) == ulen && strncmp(u->name, unit, ulen) == 0) {
			*seconds = v * u->mult;
			if (*seconds > 1e300) {
				*why = "too large";
				return -1;
			}
			return 0;
		}
	}
	*why = "unknown unit (use s, ms, us, min, h)";
	return -1;
}

/* snprintf into the caller's buffer. The caller chose its size: a cut-off text is still
 * NUL-terminated and is what was asked for, so the length is not needed. */
__attribute__((format(printf, 3, 4))) static char *units_put(char *buf, size_t len,
							     const char *fmt, ...)
{
	va_list ap;
	if (len == 0)
		return buf;
	va_start(ap, fmt);
	if (vsnprintf(buf, len, fmt, ap) < 0)
		buf[0] = '\0';
	va_end(ap);
	return buf;
}

/* Decimals that keep three significant digits once v is rounded: 4.56, 12.3, 850. */
static int units_decimals(double v)
{
	if (v >= 99.95)
		return 0;
	if (v >= 9.995)
		return 1;
	return 2;
}

/* Index of the largest unit of base (1000 or 1024) not above bytes; *div gets its size. */
static size_t units_largest(uint64_t bytes, uint64_t base, size_t last, uint64_t *div)
{
	size_t u = 0;
	*div = 1;
	while (u < last && bytes / *div >= base) {
		*div *= base;
		u++;
	}
	return u;
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
	const size_t last = sizeof names / sizeof names[0] - 1;
	uint64_t div;
	size_t u = units_largest(bytes, 1000, last, &div);

	if (bytes % div == 0)
		return units_put(buf, len, "%" PRIu64 " %s", bytes / div, names[u]);
	double v = (double)bytes / (double)div;
	if (v >= 999.95 && u < last) { /* would print as 1000.0: say 1.0 of the next unit */
		v /= 1000;
		u++;
	}
	return units_put(buf, len, "%.1f %s", v, names[u]);
}

/* Binary when it reads exactly in its own largest unit (64 MiB); else decimal when that does
 * (64 MB); else binary one unit down when exact (1536 KiB); else rounded decimal (1.6 TB). */
char *units_format_size_binary(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	const size_t last = sizeof names / sizeof names[0] - 1;
	uint64_t bdiv, ddiv;
	size_t u = units_largest(bytes, UNITS_KI, last, &bdiv);

	(void)units_largest(bytes, 1000, last, &ddiv); /* only the decimal divisor matters */
	if (bytes == 0 || bytes % UNITS_KI != 0 || (bytes % bdiv != 0 && bytes % ddiv == 0))
		return units_format_size(bytes, buf, len);
	if (bytes % bdiv != 0) {
		bdiv /= UNITS_KI;
		u--;
	}
	if (bytes % bdiv != 0)
		return units_format_size(bytes, buf, len);
	return units_put(buf, len, "%" PRIu64 " %s", bytes / bdiv, names[u]);
}

char *units_format_rate(double bytes_per_s, char *buf, size_t len)
{
	double mb = bytes_per_s / 1e6;
	if (!(mb >= 0) || mb >= 999.5) /* NaN, negative or large: no decimals worth showing */
		return units_put(buf, len, "%.0f MB/s", mb);
	if (mb < 0.995)
		return units_put(buf, len, "%.3g MB/s", mb);
	return units_put(buf, len, "%.*f MB/s", units_decimals(mb), mb);
}

int units_parse_rate(const char *name, enum units_rate *u)
{
	if (strcmp(name, "decimal") == 0 || strcmp(name, "MB/s") == 0)
		*u = UNITS_RATE_DECIMAL;
	else if (strcmp(name, "binary") == 0 || strcmp(name, "MiB/s") == 0)
		*u = UNITS_RATE_BINARY;
	else
		return -1;
	return 0;
}

double units_rate(double MBps, enum units_rate u)
{
	return u == UNITS_RATE_BINARY ? MBps * (1e6 / 1048576.0) : MBps;
}

const char *units_rate_name(enum units_rate u)
{
	return u == UNITS_RATE_BINARY ? "MiB/s" : "MB/s";
}

const char *units_rate_key(enum units_rate u)
{
	return u == UNITS_RATE_BINARY ? "MiBps" : "MBps";
}

char *units_format_duration(double seconds, char *buf, size_t len)
{
	double s = seconds;
	if (!(s >= 0) || s > 1e15) /* NaN, negative or absurd: print it plainly */
		return units_put(buf, len, "%g s", s);
	if (s == 0)
		return units_put(buf, len, "0 s");
	/* Thresholds sit where the rounded value would reach 1000 of the smaller unit. */
	if (s * 1e6 < 999.5)
		return units_put(buf, len, "%.*f us", units_decimals(s * 1e6), s * 1e6);
	if (s * 1e3 < 999.5)
		return units_put(buf, len, "%.*f ms", units_decimals(s * 1e3), s * 1e3);
	if (s < 59.95)
		return units_put(buf, len, "%.*f s", units_decimals(s), s);
	uint64_t whole = (uint64_t)(s + 0.5);
	if (whole < 3600)
		return units_put(buf, len, "%" PRIu64 " min %02" PRIu64 " s", whole / 60,
				 whole % 60);
	uint64_t minutes = (uint64_t)(s / 60 + 0.5);
	return units_put(buf, len, "%" PRIu64 " h %02" PRIu64 " min", minutes / 60, minutes % 60);
}

const char *units_s(unsigned long long count)
{
	return count == 1 ? "" : "s";
}
