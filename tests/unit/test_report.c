/* test_report: the report's cells (counts, means, extremes) against values worked out by hand,
 * and its csv, json, text and markdown output, from a struct run_data built in memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "tap.h"

#define NPHASES 15

static struct phase_data phases[NPHASES];
static struct rank_rec ranks[NPHASES][2];
static char hosts[1][RECORD_HOST_MAX] = {"node0"};

/* Bandwidths in MB/s of the 2 data sets x 2 readers per node x 3 repetitions, posix. */
static const double bw[2][2][3] = {
	{{1000.0, 1010.0, 1020.0}, {2000.0, 2100.0, 1900.0}},
	{{100.0, 110.0, 120.0}, {250.0, 205.0, 215.5}},
};
static const char *const names[2] = {"1GB", "2MB"};
static const uint64_t sizes[2] = {1000000000, 2000000};

static void set_phase(size_t i, int ds, int readers, const char *backend, int rep, double mbps,
		      const char *status)
{
	struct phase_info *p = &phases[i].info;
	memset(p, 0, sizeof *p);
	p->index = (uint32_t)i;
	snprintf(p->sweep.dataset, sizeof p->sweep.dataset, "%s", names[ds]);
	p->sweep.file_size = sizes[ds];
	p->nfiles = 8;
	p->sweep.readers_per_node = readers;
	p->active_readers = readers;
	snprintf(p->sweep.backend, sizeof p->sweep.backend, "%s", backend);
	p->sweep.transfer_size = 4 << 20;
	snprintf(p->sweep.order, sizeof p->sweep.order, "sorted");
	snprintf(p->sweep.cache, sizeof p->sweep.cache, "drop");
	p->repetition = rep;
	p->bytes = 8 * sizes[ds];
	p->bandwidth_MBps = mbps;
	p->elapsed_s = (double)p->bytes / (mbps * 1e6);
	p->status = results_phase_status_parse(status);
	ranks[i][0] = (struct rank_rec){0, 0, 1, 0.0, 1.0, p->bytes, 8, 0.25, 0.5, 0.125, 0.0, 0.0, 0.875, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	ranks[i][1] = (struct rank_rec){1, 0, 0, 0.0, 0.0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	phases[i].ranks = ranks[i];
	phases[i].nranks = 2;
	phases[i].files = NULL;
	phases[i].nfiles = 8;
}

/* 12 posix phases, one failed phase (NaN bandwidth), 2 mmap phases. */
static void build_run(struct run_data *run, char *path, char *yaml)
{
	size_t i = 0;
	for (int ds = 0; ds < 2; ds++)
		for (int r = 0; r < 2; r++)
			for (int rep = 0; rep < 3; rep++, i++)
				set_phase(i, ds, r + 1, "posix", rep, bw[ds][r][rep], "complete");
	set_phase(i++, 0, 1, "posix", 3, NAN, "failed");
	set_phase(i++, 0, 1, "mmap", 0, 3000.0, "complete");
	set_phase(i++, 0, 1, "mmap", 1, 3300.0, "complete");
	memset(run, 0, sizeof *run);
	run->path = path;
	run->schema_version = 1;
	run->config_yaml = yaml;
	run->config_path = "configs/test.yaml";
	run->start_time = "2024-05-01T10:00:00Z";
	run->status = "complete";
	run->job_id = "";
	run->nranks = 2;
	run->nnodes = 1;
	run->hostnames = hosts;
	run->phases = phases;
	run->nphases = i;
}

static const struct report_cell *find_cell(const struct report_cell *c, long n, const char *ds,
					   int readers, const char *backend)
{
	for (long i = 0; i < n; i++)
		if (strcmp(c[i].sweep.dataset, ds) == 0 && c[i].sweep.readers_per_node == readers &&
		    strcmp(c[i].sweep.backend, backend) == 0)
			return &c[i];
	return NULL;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

static void test_cells(const struct run_data *run)
{
	struct report_cell *c = NULL;
	long n = report_cells(run, 0, &c);
	ok(n == 5, "5 cells: 2 data sets x 2 readers posix, 1 mmap (got %ld)", n);
	/* means and extremes worked out by hand from bw[][][] */
	const struct {
		const char *ds;
		int readers;
		const char *backend;
		int n;
		double mean, min, max;
	} want[] = {
		{"1GB", 1, "posix", 3, 1010.0, 1000.0, 1020.0},
		{"1GB", 2, "posix", 3, 2000.0, 1900.0, 2100.0},
		{"2MB", 1, "posix", 3, 110.0, 100.0, 120.0},
		{"2MB", 2, "posix", 3, 223.5, 205.0, 250.0},
		{"1GB", 1, "mmap", 2, 3150.0, 3000.0, 3300.0},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct report_cell *k = find_cell(c, n, want[i].ds, want[i].readers,
							want[i].backend);
		ok(k != NULL && k->n == want[i].n && near(k->mean_MBps, want[i].mean) &&
			   near(k->min_MBps, want[i].min) && near(k->max_MBps, want[i].max),
		   "cell %s x %d %s: n %d mean %.1f min %.1f max %.1f", want[i].ds, want[i].readers,
		   want[i].backend, want[i].n, want[i].mean, want[i].min, want[i].max);
	}
	ok(n > 0 && strcmp(c[0].sweep.dataset, "1GB") == 0 && c[0].sweep.readers_per_node == 1 &&
		   c[0].sweep.file_size == 1000000000 && c[0].sweep.transfer_size == 4 << 20 &&
		   strcmp(c[0].sweep.order, "sorted") == 0 && strcmp(c[0].sweep.cache, "drop") == 0,
	   "cells come in first-seen order with every key copied");
	free(c);

	struct run_data empty;
	struct report_cell dummy;
	memset(&empty, 0, sizeof empty);
	c = &dummy; /* must be overwritten */
	ok(report_cells(&empty, 0, &c) == 0 && c == NULL, "no phases: no cells");
}

/* The whole of f (rewound) as a NUL-terminated string. */
static char *slurp(FILE *f)
{
	long len;
	char *s;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		return NULL;
	s = calloc((size_t)len + 1, 1);
	if (s != NULL && fread(s, 1, (size_t)len, f) != (size_t)len) {
		free(s);
		return NULL;
	}
	return s;
}

static char *render(const struct run_data *runs, size_t n, enum report_format f)
{
	struct pf_err e = {0};
	FILE *tmp = tmpfile();
	char *s = NULL;
	if (tmp == NULL)
		return NULL;
	if (report_write(tmp, runs, n, f, &e) == 0)
		s = slurp(tmp);
	else
		diag("report_write: %s", e.msg);
	fclose(tmp);
	return s;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_csv(const struct run_data *run)
{
	char *s = render(run, 1, REPORT_CSV);
	ok(s != NULL, "csv written");
	if (s == NULL)
		return;
	ok(count_lines(s) == 6, "csv: a header and 5 cells (%d lines)", count_lines(s));
	ok(strncmp(s,
		   "file,dataset,file_size_B,readers_per_node,backend,transfer_size_B,order,cache,"
		   "n,mean_MBps,min_MBps,max_MBps,pattern,decomposition,queue_depth,advice,warm,sd_MBps,"
		   "ci95_MBps,median_MBps,stonewall_MBps,spread_s,files_per_s,metadata_fraction,"
		   "resident_fraction,readers,reader_nodes,ceiling_MBps,limit,efficiency,cache_state,"
		   "repetitions,bytes_from,from_storage_fraction,short_cause,shortfall,cpu_s_per_GB,"
		   "ceiling_contradicted,compared_with,a_n,a_mean_MBps,a_ci95_MBps,ratio,difference,"
		   "mdd_percent,reps_to_decide\n",
		   strlen("file,dataset,file_size_B,readers_per_node,backend,transfer_size_B,order,"
			  "cache,n,mean_MBps,min_MBps,max_MBps,pattern,decomposition,queue_depth,"
			  "advice,warm,sd_MBps,ci95_MBps,median_MBps,stonewall_MBps,spread_s,files_per_s,"
			  "metadata_fraction,resident_fraction,readers,reader_nodes,ceiling_MBps,"
			  "limit,efficiency,cache_state,repetitions,bytes_from,"
			  "from_storage_fraction,short_cause,shortfall,cpu_s_per_GB,"
			  "ceiling_contradicted,compared_with,a_n,a_mean_MBps,a_ci95_MBps,ratio,"
			  "difference,mdd_percent,reps_to_decide\n")) == 0,
	   "csv: the header row (the first 12 columns as before, then the new ones)");
	/* sd of 1000, 1010, 1020 is 10; the 95% CI 4.303 x 10 / sqrt 3 = 24.843 */
	ok(strstr(s, "\n\"we\"\"ird,run.h5\",1GB,1000000000,1,posix,4194304,sorted,drop,3,1010.000,"
		     "1000.000,1020.000,,,0,,0,10.000,24.843,1010.000,") != NULL,
	   "csv: the 1GB x 1 cell, its file name quoted, sd and CI");
	ok(strstr(s, ",2MB,2000000,2,posix,4194304,sorted,drop,3,223.500,205.000,250.000,") !=
		   NULL,
	   "csv: the 2MB x 2 cell");
	ok(strstr(s, "failed") == NULL && strstr(s, "nan") == NULL,
	   "csv: the failed phase left out");
	free(s);
}

/* Brackets balance outside strings, and strings are closed. */
static int json_balanced(const char *s)
{
	char stack[64];
	int depth = 0, in_str = 0;
	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\' && s[1] != '\0')
				s++;
			else if (*s == '"')
				in_str = 0;
			else if ((unsigned char)*s < 0x20)
				return 0;
		} else if (*s == '"') {
			in_str = 1;
		} else if (*s == '{' || *s == '[') {
			if (depth == (int)sizeof stack)
				return 0;
			stack[depth++] = *s;
		} else if (*s == '}' || *s == ']') {
			if (depth == 0 || stack[--depth] != (*s == '}' ? '{' : '['))
				return 0;
		}
	}
	return depth == 0 && !in_str;
}

static void test_json(const struct run_data *run)
{
	struct run_data two[2] = {*run, *run};
	char *s = render(two, 2, REPORT_JSON);
	ok(s != NULL, "json written");
	if (s == NULL)
		return;
	ok(json_balanced(s), "json: brackets balance, strings close, no raw control characters");
	ok(strncmp(s, "{\"answer\": [", 12) == 0 && strstr(s, ",\n \"runs\": [") != NULL,
	   "json: an object of the answer, then the runs");
	ok(strstr(s, "\"file\": \"we\\\"ird,run.h5\"") != NULL, "json: the file name escaped");
	ok(strstr(s, "\"config_yaml\": \"a: 1\\n\\\"q\\\" \\\\ \\u0001 caf\xc3\xa9 \\ufffd\"") !=
		   NULL,
	   "json: newline, quote, backslash, control byte escaped; UTF-8 kept; bad byte replaced");
	ok(strstr(s, "\"dataset\": \"2MB\", \"file_size_B\": 2000000, \"readers_per_node\": 2") !=
			   NULL &&
		   strstr(s, "\"mean_MBps\": 223.5, \"min_MBps\": 205, \"max_MBps\": 250") != NULL,
	   "json: a cell's keys and figures");
	ok(strstr(s, "\"bandwidth_MBps\": null, \"status\": \"failed\"") != NULL,
	   "json: a NaN bandwidth is null");
	ok(strstr(s, "\"open_s\": 0.25, \"read_s\": 0.5, \"close_s\": 0.125") != NULL,
	   "json: per-phase times summed over ranks");
	ok(strstr(s, "\"job_id\": \"\"") != NULL && strstr(s, "\"hostnames\": [\"node0\"]") != NULL,
	   "json: meta");
	free(s);
}

static void test_text(const struct run_data *run)
{
	char *s = render(run, 1, REPORT_TEXT);
	ok(s != NULL, "text written");
	if (s == NULL)
		return;
	ok(strstr(s, "1 reader/node [MB/s]") != NULL && strstr(s, "2 readers/node [MB/s]") != NULL,
	   "text: readers per node columns with their unit");
	ok(strstr(s, "1GB (1 GB files)") != NULL && strstr(s, "2MB (2 MB files)") != NULL,
	   "text: data set rows named with the file size");
	ok(strstr(s, "1010.0 (1000.0-1020.0)") != NULL &&
		   strstr(s, "3150.0 (3000.0-3300.0)") != NULL,
	   "text: mean (min-max) cells");
	ok(strstr(s, "posix backend") != NULL && strstr(s, "mmap backend") != NULL,
	   "text: one table per backend, titled");
	ok(strstr(s, "bandwidth [MB/s]") != NULL && strstr(s, "elapsed [s]") != NULL &&
		   strstr(s, "failed") != NULL,
	   "text: per-phase details with units, the failed phase listed");
	free(s);
	s = render(run, 1, REPORT_MARKDOWN);
	ok(s != NULL && strstr(s, "| data set | 1 reader/node [MB/s] | 2 readers/node [MB/s] |\n"
				 "| --- | ---: | ---: |\n") != NULL,
	   "markdown: a pipe table");
	free(s);
}

static void test_summary_and_line(const struct run_data *run)
{
	struct pf_err e = {0};
	FILE *tmp = tmpfile(), *line = tmpfile();
	char *s = NULL;
	if (tmp != NULL && report_write_summary(tmp, run, &e) == 0)
		s = slurp(tmp);
	ok(s != NULL && strstr(s, "2000.0 (1900.0-2100.0)") != NULL &&
		   strstr(s, "elapsed [s]") == NULL,
	   "summary: the table without the details");
	free(s);
	s = NULL;
	if (line != NULL) {
		report_phase_line(line, &run->phases[4].info);
		s = slurp(line);
	}
	ok(s != NULL && strstr(s, "phase 0004: 1GB x 2 readers/node, posix") != NULL &&
		   strstr(s, "2100.0 MB/s") != NULL && strstr(s, "(8 files)") != NULL,
	   "phase line: %s", s ? strtok(s, "\n") : "(none)");
	free(s);
	if (tmp != NULL)
		fclose(tmp);
	if (line != NULL)
		fclose(line);
}

/* A run whose only phase does not count: the summary says why, with no verdict on where the
 * bytes came from (of no cell). */
static void test_nothing_counts(const struct run_data *full)
{
	struct run_data run = *full;
	struct phase_data one = full->phases[12]; /* failed, bandwidth NaN */
	run.phases = &one;
	run.nphases = 1;
	char *s = render(&run, 1, REPORT_TEXT);
	ok(s != NULL && strstr(s, "no completed phases: 1 phase, none complete") != NULL &&
		   strstr(s, "every cell") == NULL,
	   "a failed phase alone: none complete, no provenance verdict");
	free(s);
	one.info.status = PHASE_COMPLETE;
	one.info.elapsed_s = NAN;
	s = render(&run, 1, REPORT_TEXT);
	ok(s != NULL &&
		   strstr(s, "1 phase is INVALID (phase 0012 first: elapsed time not a number)") !=
			   NULL &&
		   strstr(s, "every cell") == NULL && strstr(s, "where the bytes came from (") == NULL,
	   "a complete phase whose times are NaN: INVALID, no provenance verdict");
	free(s);
}

int main(void)
{
	char path[] = "we\"ird,run.h5";
	char yaml[] = "a: 1\n\"q\" \\ \x01 caf\xc3\xa9 \xff";
	struct run_data run;
	enum report_format f;
	build_run(&run, path, yaml);
	ok(report_parse_format("json", &f) == 0 && f == REPORT_JSON &&
		   report_parse_format("markdown", &f) == 0 && f == REPORT_MARKDOWN &&
		   report_parse_format("xml", &f) == -1,
	   "report_parse_format");
	test_cells(&run);
	test_csv(&run);
	test_json(&run);
	test_text(&run);
	test_summary_and_line(&run);
	test_nothing_counts(&run);
	return tap_done();
}
