/* spread: how a phase's readers spread over the servers that hold its files (spread.h). */
#include "report/spread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze.h"

#define SP_ENTRIES 65536 /* servers named over a phase's targets table, at most */

int spread_target_known(const char *name)
{
	return strcmp(name, RECORD_TARGET_NONE) != 0 && strncmp(name, "unknown", 7) != 0;
}

size_t spread_servers(const char *name, char (*out)[RECORD_TARGET_MAX], size_t max)
{
	char prefix[RECORD_TARGET_MAX] = "";
	size_t n = 0;
	if (!spread_target_known(name))
		return 0;
	for (const char *p = name; *p != '\0' && n < max;) {
		size_t len = strcspn(p, ",");
		const char *cut = memchr(p, '+', len); /* "3 +7": seven more, not named */
		size_t keep = cut ? (size_t)(cut - p) : len;
		while (keep > 0 && p[keep - 1] == ' ')
			keep--;
		if (keep > 0) {
			const char *space = memchr(p, ' ', keep);
			if (n == 0 && space != NULL) /* "ost 3": later entries "4" are "ost 4" */
				snprintf(prefix, sizeof prefix, "%.*s", (int)(space - p + 1), p);
			snprintf(out[n++], RECORD_TARGET_MAX, "%s%.*s", space == NULL ? prefix : "",
				 (int)keep, p);
		}
		p += len + (p[len] == ',');
	}
	return n;
}

struct sp_entry {
	char name[RECORD_TARGET_MAX];
	uint32_t target;
	uint32_t server;
};

static int sp_by_name(const void *a, const void *b)
{
	const struct sp_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->target > y->target) - (x->target < y->target);
}

static int sp_by_target(const void *a, const void *b)
{
	const struct sp_entry *x = a, *y = b;
	return (x->target > y->target) - (x->target < y->target);
}

/* Every server each target of pd names, into *out (malloc'ed); how many, or -1 when out of
 * memory, -2 when there are more than SP_ENTRIES. */
static long sp_entries(const struct phase_data *pd, struct sp_entry **out)
{
	char parts[SPREAD_PARTS][RECORD_TARGET_MAX];
	struct sp_entry *e = NULL;
	size_t n = 0, room = 0;
	*out = NULL;
	for (uint32_t k = 0; k < pd->targets.n; k++) {
		size_t np = spread_servers(pd->targets.name[k], parts, SPREAD_PARTS);
		if (n + np > SP_ENTRIES) {
			free(e);
			return -2;
		}
		if (n + np > room) {
			size_t r = room ? room * 2 : 64;
			while (r < n + np)
				r *= 2;
			void *p = realloc(e, r * sizeof *e);
			if (p == NULL) {
				free(e);
				return -1;
			}
			e = p;
			room = r;
		}
		for (size_t i = 0; i < np; i++, n++) {
			memcpy(e[n].name, parts[i], sizeof e[n].name);
			e[n].target = k;
		}
	}
	*out = e;
	return (long)n;
}

/* u's one allocation, laid out for n entries over u->servers servers. */
static int sp_alloc(struct target_use *u, size_t n)
{
	size_t words = DIGEST_USE_SAMPLES + (size_t)u->targets + 1 + n;
	size_t bytes = u->servers * sizeof(double) + words * sizeof(uint32_t) +
		       (size_t)DIGEST_USE_SAMPLES * u->servers + u->servers;
	double *d = calloc(1, bytes);
	if (d == NULL)
		return -1;
	uint32_t *w = (uint32_t *)(d + u->servers); /* the doubles first: each part aligned */
	u->bytes = d;
	u->reach = w;
	u->at = w + DIGEST_USE_SAMPLES;
	u->part = u->at + u->targets + 1;
	u->on = (uint8_t *)(u->part + n);
	u->seen = u->on + (size_t)DIGEST_USE_SAMPLES * u->servers;
	return 0;
}

/* 0 set up, 1 no figure for pd, -1 out of memory. */
static int sp_start(struct target_use *u, const struct phase_data *pd)
{
	struct sp_entry *e;
	double t0, end;
	if (analyze_reading_span(pd, &t0, &end) < 1 || !(end > t0))
		return 1;
	long n = sp_entries(pd, &e);
	if (n <= 0)
		return n == -1 ? -1 : 1; /* (-2: too many to follow; 0: none named) */
	qsort(e, (size_t)n, sizeof *e, sp_by_name);
	uint32_t servers = 0;
	for (long i = 0; i < n; i++) {
		if (i > 0 && strcmp(e[i].name, e[i - 1].name) != 0)
			servers++;
		e[i].server = servers;
	}
	servers++;
	if (servers < 2 || servers > DIGEST_USE_SERVERS) {
		free(e);
		return 1;
	}
	u->targets = pd->targets.n;
	u->servers = servers;
	if (sp_alloc(u, (size_t)n) != 0) {
		free(e);
		memset(u, 0, sizeof *u);
		return -1;
	}
	qsort(e, (size_t)n, sizeof *e, sp_by_target);
	for (long i = 0; i < n; i++) {
		u->at[e[i].target + 1]++;
		u->part[i] = e[i].server;
	}
	for (uint32_t k = 0; k < u->targets; k++)
		u->at[k + 1] += u->at[k];
	u->t0 = t0;
	u->dt = (end - t0) / DIGEST_USE_SAMPLES;
	free(e);
	return 0;
}

/* The first moment at or after t: moment j is at t0 + (j + 0.5) * dt. */
static long sp_moment_from(const struct target_use *u, double t)
{
	double j = ceil((t - u->t0) / u->dt - 0.5);
	return j < 0 ? 0 : j > DIGEST_USE_SAMPLES ? DIGEST_USE_SAMPLES : (long)j;
}

int spread_add(struct target_use *u, const struct phase_data *pd, const struct file_rec *rows,
	       size_t n)
{
	if (u->none)
		return 0;
	if (u->bytes == NULL) {
		int rc = sp_start(u, pd);
		u->none = rc > 0; /* worked out once, not again for every chunk of rows */
		if (rc != 0)
			return rc < 0 ? -1 : 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct file_rec *f = &rows[i];
		if (f->target >= u->targets || !isfinite(f->open_start) ||
		    !isfinite(f->close_end) || f->close_end < f->open_start)
			continue;
		const uint32_t *p = &u->part[u->at[f->target]], *pend = &u->part[u->at[f->target + 1]];
		for (const uint32_t *s = p; s < pend; s++) {
			u->seen[*s] = 1;
			u->bytes[*s] += (double)f->bytes / (double)(pend - p);
		}
		/* the moments from open to close: the file is being read at them */
		for (long j = sp_moment_from(u, f->open_start); j < sp_moment_from(u, f->close_end);
		     j++) {
			for (const uint32_t *s = p; s < pend; s++)
				u->on[(size_t)j * u->servers + *s] = 1;
			u->reach[j] += (uint32_t)(pend - p);
		}
	}
	return 0;
}

static void sp_of(const struct target_use *u, struct target_spread *s)
{
	double used = 0, could = 0, all = 0, most = 0;
	long moments = 0;
	for (uint32_t i = 0; i < u->servers; i++) {
		s->servers += u->seen[i];
		all += u->bytes[i];
		most = u->bytes[i] > most ? u->bytes[i] : most;
	}
	if (s->servers < 2)
		return;
	if (all > 0)
		s->heaviest = most / all;
	for (long j = 0; j < DIGEST_USE_SAMPLES; j++) {
		uint32_t on = 0, room = (uint32_t)s->servers;
		if (u->reach[j] == 0)
			continue; /* nothing read, or only files on servers not known */
		for (uint32_t i = 0; i < u->servers; i++)
			on += u->on[(size_t)j * u->servers + i];
		used += on;
		could += u->reach[j] < room ? u->reach[j] : room;
		moments++;
	}
	if (moments == 0)
		return;
	s->used = used / (double)moments;
	s->could = could / (double)moments;
	s->share = s->used / s->could;
}

int spread_of_phase(const struct phase_data *pd, struct target_spread *s)
{
	struct target_use own = {0};
	const struct target_use *u = &pd->digest.use;
	s->servers = 0;
	s->used = s->could = s->share = s->heaviest = NAN;
	if (pd->files != NULL) {
		if (spread_add(&own, pd, pd->files, pd->nfiles) != 0)
			return -1;
		u = &own;
	}
	if (u->bytes != NULL)
		sp_of(u, s);
	free(own.bytes);
	return 0;
}
