/* test_units: exact size and duration parsing; formatting of sizes, rates and durations. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/units.h"
#include "tap.h"

#define KI 1024ULL

struct size_case {
	const char *text;
	uint64_t bytes;
};

struct bad_case {
	const char *text;
	const char *why; /* a part of the reason */
};

static void test_parse_good(void)
{
	static const struct size_case cases[] = {
		{"1.6TB", 1600000000000ULL},
		{"4MiB", 4194304ULL},
		{"7B", 7},
		{"512", 512},
		{"0", 0},
		{"0B", 0},
		{"1KB", 1000},
		{"1MB", 1000000ULL},
		{"1GB", 1000000000ULL},
		{"1TB", 1000000000000ULL},
		{"1PB", 1000000000000000ULL},
		{"1KiB", KI},
		{"1MiB", KI * KI},
		{"1GiB", KI * KI * KI},
		{"1TiB", KI * KI * KI * KI},
		{"1PiB", KI * KI * KI * KI * KI},
		{"1K", KI},
		{"2M", 2 * KI * KI},
		{"3G", 3 * KI * KI * KI},
		{"1T", KI * KI * KI * KI},
		{"1P", KI * KI * KI * KI * KI},
		{"64MiB", 64 * KI * KI},
		{"2MB", 2000000ULL},
		{"1.5KB", 1500},
		{"0.5KiB", 512},
		{"1.5MiB", 1572864ULL},
		{"0.001KB", 1},
		{"2.25GiB", 2415919104ULL},
		{"1.000000000000000000000000MB", 1000000ULL},
		{"0.000001TB", 1000000ULL},
		{"00012KB", 12000},
		{"3.0B", 3},
		/* 2^-50 PiB is one byte: 50 fraction digits, still exact */
		{"0.00000000000000088817841970012523233890533447265625PiB", 1},
		{"4 MiB", 4 * KI * KI},
		{" 4MiB ", 4 * KI * KI},
		{"\t1.6 \tTB ", 1600000000000ULL},
		{"18446744073709551615", UINT64_MAX},
		{"18446744073709551615B", UINT64_MAX},
		{"18446.744073709551615PB", UINT64_MAX},
		{"16383PiB", 16383 * KI * KI * KI * KI * KI},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 12345;
		const char *why = NULL;
		int rc = units_parse_size(cases[i].text, &v, &why);
		ok(rc == 0 && v == cases[i].bytes, "parse '%s' = %llu (got rc %d, %llu, %s)",
		   cases[i].text, (unsigned long long)cases[i].bytes, rc, (unsigned long long)v,
		   why ? why : "-");
	}
}

static void test_parse_bad(void)
{
	static const struct bad_case cases[] = {
		{"", "empty size"},
		{"   ", "empty size"},
		{"-1MB", "negative size"},
		{" -5", "negative size"},
		{"-0", "negative size"},
		{"MB", "not a number"},
		{"abc", "not a number"},
		{"+1", "not a number"},
		{".5MB", "not a number"},
		{"1.5B", "not a whole number of bytes"},
		{"1.0001KB", "not a whole number of bytes"},
		{"0.3KiB", "not a whole number of bytes"},
		{"1.", "no digits after the decimal point"},
		{"1.KB", "no digits after the decimal point"},
		{"1XB", "unknown unit"},
		{"1mb", "unknown unit"},
		{"1kB", "unknown unit"},
		{"1b", "unknown unit"},
		{"1Mi", "unknown unit"},
		{"1EiB", "unknown unit"},
		{"0x10", "unknown unit"},
		{"1e3", "unknown unit"},
		{"1,5MB", "unknown unit"},
		{"1.6.3TB", "unknown unit"},
		{"4 MiB x", "unexpected text after the unit"},
		{"18446744073709551616", "does not fit in 64 bits"},
		{"99999999999999999999999", "does not fit in 64 bits"},
		{"16384PiB", "does not fit in 64 bits"},
		{"18446.744073709551616PB", "does not fit in 64 bits"},
		{"20000000TB", "does not fit in 64 bits"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 0;
		const char *why = NULL;
		int rc = units_parse_size(cases[i].text, &v, &why);
		ok(rc == -1 && why != NULL && strstr(why, cases[i].why) != NULL,
		   "reject '%s': %s (got rc %d, %s)", cases[i].text, cases[i].why, rc,
		   why ? why : "-");
	}
	uint64_t v;
	const char *why = NULL;
	ok(units_parse_size(NULL, &v, &why) == -1 && why != NULL && strcmp(why, "empty size") == 0,
	   "reject NULL as empty");
	static const char unknown[] =
		"unknown unit (use B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)";
	why = NULL;
	ok(units_parse_size("12 parsecs", &v, &why) == -1 && why != NULL &&
		   strcmp(why, unknown) == 0,
	   "unknown unit reason lists the units exactly");
}

static void test_duration(void)
{
	static const struct {
		const char *text;
		double seconds;
	} good[] = {
		{"1", 1},      {"1.5s", 1.5},    {"250ms", 0.25}, {"10us", 10e-6},
		{"2min", 120}, {"1h", 3600},     {"0.5 h", 1800}, {" 3 s ", 3},
		{"1e3", 1000}, {"2.5e-3s", 2.5e-3}, {".5s", 0.5},
	};
	static const struct bad_case bad[] = {
		{"", "empty duration"}, {"-1s", "negative duration"}, {"abc", "not a number"},
		{"1d", "unknown unit"}, {"1 s x", "unexpected text"}, {"0x10", "not a number"},
		{"inf", "not a number"}, {"nan", "not a number"}, {".", "not a number"},
		{"1e999", "too large"},
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		double s = -1;
		const char *why = NULL;
		int rc = units_parse_duration(good[i].text, &s, &why);
		double diff = s - good[i].seconds;
		ok(rc == 0 && diff < 1e-12 && diff > -1e-12, "duration '%s' = %g s (got %g, %s)",
		   good[i].text, good[i].seconds, s, why ? why : "-");
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double s;
		const char *why = NULL;
		int rc = units_parse_duration(bad[i].text, &s, &why);
		ok(rc == -1 && why != NULL && strstr(why, bad[i].why) != NULL,
		   "reject duration '%s': %s (got %s)", bad[i].text, bad[i].why, why ? why : "-");
	}
}

static void test_format_size(void)
{
	static const struct {
		uint64_t bytes;
		const char *dec;
		const char *bin;
	} cases[] = {
		{0, "0 B", "0 B"},
		{7, "7 B", "7 B"},
		{999, "999 B", "999 B"},
		{1000, "1 KB", "1 KB"},
		{1024, "1.0 KB", "1 KiB"},
		{1500, "1.5 KB", "1.5 KB"},
		{4096, "4.1 KB", "4 KiB"},
		{999999, "1.0 MB", "1.0 MB"},
		{2097152, "2.1 MB", "2 MiB"},
		{1572864, "1.6 MB", "1536 KiB"},
		{64000000, "64 MB", "64 MB"},
		{64 * KI * KI, "67.1 MB", "64 MiB"},
		{KI * KI * KI, "1.1 GB", "1 GiB"},
		{1600000000000ULL, "1.6 TB", "1.6 TB"},
		{1000000000000000ULL, "1 PB", "1 PB"},
		{KI * KI * KI * KI * KI, "1.1 PB", "1 PiB"},
		{UINT64_MAX, "18.4 EB", "18.4 EB"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		units_format_size(cases[i].bytes, buf, sizeof buf);
		ok(strcmp(buf, cases[i].dec) == 0, "format %llu = '%s' (got '%s')",
		   (unsigned long long)cases[i].bytes, cases[i].dec, buf);
		units_format_size_binary(cases[i].bytes, buf, sizeof buf);
		ok(strcmp(buf, cases[i].bin) == 0, "format binary %llu = '%s' (got '%s')",
		   (unsigned long long)cases[i].bytes, cases[i].bin, buf);
	}
	ok(units_format_size(1600000000000ULL, buf, 4) == buf && strcmp(buf, "1.6") == 0,
	   "a short buffer is cut and terminated");
	buf[0] = 'x';
	ok(units_format_size(1, buf, 0) == buf && buf[0] == 'x',
	   "a zero-length buffer is untouched");
}

static void test_format_rate_duration(void)
{
	static const struct {
		double v;
		const char *text;
	} rates[] = {
		{0, "0 MB/s"}, {123000, "0.123 MB/s"}, {1234000, "1.23 MB/s"},
		{12340000, "12.3 MB/s"}, {123400000, "123 MB/s"}, {1234400000, "1234 MB/s"},
		{45678900000.0, "45679 MB/s"},
	};
	static const struct {
		double s;
		const char *text;
	} durs[] = {
		{0, "0 s"},           {850e-6, "850 us"},       {1.5e-6, "1.50 us"},
		{0.0123, "12.3 ms"},  {0.9999, "1.00 s"},       {4.56, "4.56 s"},
		{59.96, "1 min 00 s"}, {200, "3 min 20 s"},     {185, "3 min 05 s"},
		{3900, "1 h 05 min"}, {3599.9, "1 h 00 min"},  {36000, "10 h 00 min"},
		{-1, "-1 s"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		units_format_rate(rates[i].v, buf, sizeof buf);
		ok(strcmp(buf, rates[i].text) == 0, "rate %g B/s = '%s' (got '%s')", rates[i].v,
		   rates[i].text, buf);
	}
	for (size_t i = 0; i < sizeof durs / sizeof durs[0]; i++) {
		units_format_duration(durs[i].s, buf, sizeof buf);
		ok(strcmp(buf, durs[i].text) == 0, "duration %g s = '%s' (got '%s')", durs[i].s,
		   durs[i].text, buf);
	}
}

static void test_rate_units(void)
{
	enum units_rate u = UNITS_RATE_DECIMAL;
	ok(units_parse_rate("binary", &u) == 0 && u == UNITS_RATE_BINARY, "binary: MiB/s");
	ok(units_parse_rate("decimal", &u) == 0 && u == UNITS_RATE_DECIMAL, "decimal: MB/s");
	ok(units_parse_rate("MiB/s", &u) == 0 && u == UNITS_RATE_BINARY, "MiB/s as its own name");
	ok(units_parse_rate("mib", &u) == -1 && units_parse_rate("", &u) == -1,
	   "anything else is refused");
	ok(units_rate(1048.576, UNITS_RATE_BINARY) == 1000.0, "1048.576 MB/s = 1000 MiB/s (got %.9g)",
	   units_rate(1048.576, UNITS_RATE_BINARY));
	ok(units_rate(117, UNITS_RATE_DECIMAL) == 117, "decimal leaves the figure as it is");
	ok(fabs(units_rate(117, UNITS_RATE_BINARY) - 111.5798950195) < 1e-9,
	   "117 MB/s = 111.58 MiB/s (got %.10g)", units_rate(117, UNITS_RATE_BINARY));
	ok(isnan(units_rate(NAN, UNITS_RATE_BINARY)), "NaN stays NaN: a figure that does not exist");
	ok(strcmp(units_rate_name(UNITS_RATE_BINARY), "MiB/s") == 0 &&
	   strcmp(units_rate_name(UNITS_RATE_DECIMAL), "MB/s") == 0, "the units' names");
	ok(strcmp(units_rate_key(UNITS_RATE_BINARY), "MiBps") == 0 &&
	   strcmp(units_rate_key(UNITS_RATE_DECIMAL), "MBps") == 0, "the key suffixes");
}

int main(void)
{
	test_rate_units();
	test_parse_good();
	test_parse_bad();
	test_duration();
	test_format_size();
	test_format_rate_duration();
	return tap_done();
}
