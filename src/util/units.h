/* units: sizes, durations and rates, parsed exactly and printed for people. Pure, no MPI. */
#ifndef PFSREAD_UNITS_H
#define PFSREAD_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parse a size: a non-negative decimal number (fraction allowed, "1.6TB") followed by an
 * optional unit: B, KB MB GB TB PB (powers of 1000), KiB MiB GiB TiB PiB (powers of 1024),
 * also K M G T P as binary (the way dd and fio read them). Case of the unit matters for the
 * B/iB part only as written here. Whitespace between number and unit is allowed.
 * The result must be a whole number of bytes (1.5B fails) and fit in 64 bits.
 * Returns 0, or -1 with *why pointing at a static reason ("unknown unit", ...). */
int units_parse_size(const char *text, uint64_t *bytes, const char **why);

/* Parse a duration: number with optional unit s, ms, us, min, h (default seconds). */
int units_parse_duration(const char *text, double *seconds, const char **why);

/* Format bytes for people with the largest decimal unit that keeps the value >= 1,
 * e.g. 1600000000000 -> "1.6 TB", 2097152 -> "2.1 MB"; exact values print without
 * a fraction ("64 MB"). Returns buf. */
char *units_format_size(uint64_t bytes, char *buf, size_t len);

/* Format bytes in the binary unit when exact ("64 MiB", "2 MiB", "4 KiB"), else decimal. */
char *units_format_size_binary(uint64_t bytes, char *buf, size_t len);

/* Format a rate in MB/s (10^6 bytes per second) with a sensible number of digits. */
char *units_format_rate(double bytes_per_s, char *buf, size_t len);

/* The unit a report shows rates in: MB/s (10^6 B/s, the default) or MiB/s (2^20 B/s, as IOR
 * prints them). Every rate is measured and kept in MB/s; only its showing changes. */
enum units_rate { UNITS_RATE_DECIMAL, UNITS_RATE_BINARY };

/* "decimal" or "binary" (also "MB/s", "MiB/s"). Returns 0, or -1 for anything else. */
int units_parse_rate(const char *name, enum units_rate *u);

/* A rate in MB/s in unit u: the same figure, or MBps x 10^6 / 2^20. NaN stays NaN. */
double units_rate(double MBps, enum units_rate u);

/* "MB/s" or "MiB/s"; and the suffix of a CSV column or JSON key, "MBps" or "MiBps". */
const char *units_rate_name(enum units_rate u);
const char *units_rate_key(enum units_rate u);

/* Format a duration: "850 us", "12.3 ms", "4.56 s", "3 min 20 s", "1 h 05 min". */
char *units_format_duration(double seconds, char *buf, size_t len);

/* The plural ending of a noun after a count: "" for 1, else "s" ("1 rank", "2 ranks"). */
const char *units_s(unsigned long long count);

#endif
