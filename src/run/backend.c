/* backend: the registry of read paths. One line per backend; the core looks them up by
 * name once, at configuration time, and from then on only calls through the table. */
#include "run/backend.h"

#include <stdio.h>
#include <string.h>

#include "util/suggest.h"

extern const struct backend posix_backend;
extern const struct backend direct_backend;
extern const struct backend mmap_backend;
extern const struct backend mpiio_backend;
extern const struct backend null_backend;
#ifdef HAVE_LIBURING
extern const struct backend uring_backend;
#endif

static const struct backend *const backend_registry[] = {
	&posix_backend,
	&direct_backend,
	&mmap_backend,
	&mpiio_backend,
#ifdef HAVE_LIBURING
	&uring_backend,
#endif
	&null_backend,
	NULL,
};

const struct backend *backend_find(const char *name)
{
	for (size_t i = 0; backend_registry[i] != NULL; i++)
		if (strcmp(backend_registry[i]->name, name) == 0)
			return backend_registry[i];
	return NULL;
}

const char *backend_nearest(const char *name)
{
	struct suggest s;
	suggest_init(&s, name, strlen(name));
	for (size_t i = 0; backend_registry[i] != NULL; i++)
		suggest_offer(&s, backend_registry[i]->name);
	return suggest_best(&s);
}

const char *backend_names(void)
{
	static char names[256];
	if (names[0] != '\0')
		return names;
	for (size_t i = 0; backend_registry[i] != NULL; i++) {
		if (i > 0)
			strncat(names, ", ", sizeof names - strlen(names) - 1);
		strncat(names, backend_registry[i]->name, sizeof names - strlen(names) - 1);
	}
	return names;
}

size_t backend_config(const struct cfg_block **blocks, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; backend_registry[i] != NULL; i++)
		for (size_t k = 0; backend_registry[i]->config != NULL &&
				   backend_registry[i]->config[k] != NULL && n + 1 < max; k++)
			blocks[n++] = backend_registry[i]->config[k];
	blocks[n] = NULL;
	return n;
}

unsigned backend_flags(const struct backend *b, const struct experiment *x)
{
	return b->flags_for != NULL ? b->flags_for(x) : b->flags;
}

size_t backend_buffer_offset(const struct backend *b, const struct experiment *x)
{
	return b->buffer_offset != NULL ? b->buffer_offset(x) : 0;
}

enum cfg_advice backend_advice(const struct backend *b, const struct experiment *x,
			       enum cfg_advice asked)
{
	if (asked != CFG_ADVICE_DEFAULT)
		return asked;
	return b->advice_default != NULL ? b->advice_default(x) : CFG_ADVICE_NONE;
}

int backend_advice_ok(const struct backend *b, enum cfg_advice a)
{
	return a == CFG_ADVICE_NONE || a == CFG_ADVICE_DEFAULT || (b->advice >> a & 1u);
}

int backend_check_advice(const struct experiment *x, struct pf_err *e)
{
	char key[64];
	for (size_t a = 0; a < x->nadvices; a++)
		for (size_t i = 0; i < x->nbackends; i++) {
			if (backend_advice_ok(backend_find(x->backends[i]), x->advices[a]))
				continue;
			snprintf(key, sizeof key, "sweep.advice[%zu]", a);
			return cfg_fail_at(e, x, x->advices_pos[a], key,
					   "the %s backend (sweep.backend[%zu]) cannot give '%s' "
					   "advice (it gives none: use advice: [none] or [default])",
					   x->backends[i], i, cfg_advice_name(x->advices[a]));
		}
	return 0;
}

void backend_record(const struct experiment *x, struct phase_info *p)
{
	for (size_t i = 0; backend_registry[i] != NULL; i++)
		if (backend_registry[i]->record != NULL)
			backend_registry[i]->record(x, p);
}

int backend_check_registry(struct pf_err *e)
{
	for (size_t i = 0; backend_registry[i] != NULL; i++) {
		const struct backend *b = backend_registry[i];
		if (b->name == NULL || b->open == NULL || b->read == NULL || b->close == NULL)
			return pf_fail(e, PF_RUNTIME, "backend %zu (%s) lacks a required hook", i,
				       b->name ? b->name : "unnamed");
	}
	return 0;
}
