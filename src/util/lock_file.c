/* lock_file: the pure half of util/lock.h: a lock file's text (written and parsed), whether
 * its holder is gone, whether two holders conflict, and a holder said in words. */
#include "util/lock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOCK_MAGIC "pfsread-lock 1\n"

char *lock_format(const char *command, int exclusive, const char *host, long pid,
		  long long start, const char *const *names, size_t n, size_t *len)
{
	char head[LOCK_HOST_MAX + 256];
	int hl = snprintf(head, sizeof head, LOCK_MAGIC "command %s\nmode %s\nhost %s\npid %ld\n"
			  "start %lld\nnames %zu\n", command, exclusive ? "exclusive" : "shared",
			  host, pid, start, n);
	if (hl < 0 || (size_t)hl >= sizeof head)
		return NULL;
	size_t total = (size_t)hl;
	for (size_t i = 0; i < n; i++)
		total += strlen(names[i]) + 1;
	char *s = malloc(total + 1), *at = s;
	if (s == NULL)
		return NULL;
	memcpy(at, head, (size_t)hl);
	at += hl;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		memcpy(at, names[i], l);
		at[l] = '\n';
		at += l + 1;
	}
	*at = '\0';
	*len = total;
	return s;
}

/* The value of the line "key VALUE\n" at *p (advanced past it) into buf; -1 when the line at
 * *p is not that key or has no newline before end. */
static int lock_field(const char **p, const char *end, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *s = *p;
	if ((size_t)(end - s) <= kl || memcmp(s, key, kl) != 0 || s[kl] != ' ')
		return -1;
	s += kl + 1;
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	if (nl == NULL || (size_t)(nl - s) >= len || nl == s)
		return -1;
	memcpy(buf, s, (size_t)(nl - s));
	buf[nl - s] = '\0';
	*p = nl + 1;
	return 0;
}

/* A whole decimal number in s, in [min, max]. */
static int lock_number(const char *s, long long min, long long max, long long *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	long long n = strtoll(s, &end, 10);
	if (*end != '\0' || n < min || n > max)
		return -1;
	*v = n;
	return 0;
}

int lock_parse(const char *text, size_t len, struct lock_info *li)
{
	const char *p = text, *end = text + len;
	char mode[16], num[32];
	long long pid, start, n;
	memset(li, 0, sizeof *li);
	if (len < sizeof LOCK_MAGIC - 1 || memcmp(text, LOCK_MAGIC, sizeof LOCK_MAGIC - 1) != 0)
		return -1;
	p += sizeof LOCK_MAGIC - 1;
	if (lock_field(&p, end, "command", li->command, sizeof li->command) != 0 ||
	    lock_field(&p, end, "mode", mode, sizeof mode) != 0 ||
	    lock_field(&p, end, "host", li->host, sizeof li->host) != 0 ||
	    lock_field(&p, end, "pid", num, sizeof num) != 0 ||
	    lock_number(num, 1, 0x7fffffffLL, &pid) != 0 ||
	    lock_field(&p, end, "start", num, sizeof num) != 0 ||
	    lock_number(num, 0, 1LL << 50, &start) != 0 ||
	    lock_field(&p, end, "names", num, sizeof num) != 0 ||
	    lock_number(num, 0, 1LL << 40, &n) != 0)
		return -1;
	if (strcmp(mode, "exclusive") != 0 && strcmp(mode, "shared") != 0)
		return -1;
	uint64_t lines = 0;
	for (const char *q = p; q < end; q++) {
		if (*q == '\n')
			lines++;
		else if (*q == '\0')
			return -1;
	}
	if (lines != (uint64_t)n || (len > 0 && end > p && end[-1] != '\n'))
		return -1;
	li->exclusive = mode[0] == 'e';
	li->pid = (long)pid;
	li->start = start;
	li->names = p;
	li->names_len = (size_t)(end - p);
	li->nnames = (uint64_t)n;
	return 0;
}

enum lock_state lock_judge(const struct lock_info *li, const char *host, int pid_gone,
			   double age_s, double stale_s)
{
	if (strcmp(li->host, host) == 0 && pid_gone)
		return LOCK_GONE;
	if (age_s > stale_s)
		return LOCK_SILENT;
	return LOCK_LIVE;
}

/* The next name of a list at *p (before end): its start and length; 0 at the end. */
static int lock_next(const char **p, const char *end, const char **name, size_t *nl)
{
	while (*p < end) {
		const char *e = memchr(*p, '\n', (size_t)(end - *p));
		if (e == NULL)
			e = end;
		*name = *p;
		*nl = (size_t)(e - *p);
		*p = e + 1;
		if (*nl > 0)
			return 1;
	}
	return 0;
}

static uint64_t lock_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* b's names in an open-addressed table (slots of pointers into b's text, mask + 1 of them):
 * each of a's names is then found in constant time, so two holders of 10^5 data sets each
 * are compared in milliseconds. NULL when out of memory. */
static const char **lock_table(const struct lock_info *b, size_t *mask)
{
	size_t size = 16;
	while (size < 2 * b->nnames + 2)
		size *= 2;
	const char **t = calloc(size, sizeof *t), *p = b->names, *end = b->names + b->names_len, *s;
	size_t nl;
	while (t != NULL && lock_next(&p, end, &s, &nl)) {
		size_t i = (size_t)lock_hash(s, nl) & (size - 1);
		while (t[i] != NULL)
			i = (i + 1) & (size - 1);
		t[i] = s;
	}
	*mask = size - 1;
	return t;
}

/* 1 when the name s (nl bytes) is in table t of b's names. */
static int lock_in(const char **t, size_t mask, const char *end, const char *s, size_t nl)
{
	for (size_t i = (size_t)lock_hash(s, nl) & mask; t[i] != NULL; i = (i + 1) & mask) {
		const char *e = memchr(t[i], '\n', (size_t)(end - t[i]));
		size_t l = e != NULL ? (size_t)(e - t[i]) : (size_t)(end - t[i]);
		if (l == nl && memcmp(t[i], s, nl) == 0)
			return 1;
	}
	return 0;
}

int lock_conflict(const struct lock_info *a, const struct lock_info *b, char *name, size_t len)
{
	size_t mask, nl;
	const char *p = a->names, *end = a->names + a->names_len, *s;
	int found = 0;
	if (!a->exclusive && !b->exclusive)
		return 0;
	const char **t = lock_table(b, &mask);
	if (t == NULL) { /* out of memory: say they conflict, so that nothing is overwritten */
		snprintf(name, len, "(not compared: out of memory)");
		return 1;
	}
	while (!found && lock_next(&p, end, &s, &nl))
		if (lock_in(t, mask, b->names + b->names_len, s, nl)) {
			snprintf(name, len, "%.*s", (int)nl, s);
			found = 1;
		}
	free(t);
	return found;
}

void lock_describe(const struct lock_info *li, char *buf, size_t len)
{
	char when[32] = "?";
	time_t t = (time_t)li->start;
	struct tm tm;
	if (gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(buf, len, "%s (pid %ld on host %s, since %s)", li->command, li->pid, li->host,
		 when);
}
