/* load: a config file (or text already in memory) -> a validated struct experiment: read the
 * file (bounded), compose the YAML (ydoc), read the document (top.c); and cfg_free. */
#include "config/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/stop.h"

/* Compose the text (ydoc: bounded nesting and aliases, interruptible) and read it. */
static int cfg_parse_yaml(const char *source, const char *text, size_t len, struct experiment *x,
			  struct pf_err *e)
{
	struct ydoc yd;
	struct ydoc_fail f;
	struct cfg_ctx c = {source, &yd, x, e, NULL};
	if (ydoc_load(&yd, text, len, &f) != 0) {
		struct cfg_pos pos = {f.line, f.col};
		if (f.line > 0 && f.status == PF_USAGE)
			return cfg_fail_pos(e, source, pos, "%s", f.msg);
		return pf_fail(e, f.status, "%s: %s", source, f.msg);
	}
	int rc = cfg_document(&c);
	ydoc_free(&yd);
	return rc;
}

int cfg_parse(const char *source, const char *text, size_t len,
	      const struct cfg_block *const *blocks, struct experiment *x, struct pf_err *e)
{
	size_t n = strlen(source);
	memset(x, 0, sizeof *x);
	if (len == 0)
		text = ""; /* libyaml wants an input pointer even for no input */
	if (len > CFG_FILE_MAX)
		return pf_fail(e, PF_USAGE, "%s: larger than %u bytes, not a config", source,
			       CFG_FILE_MAX);
	/* A longer path is cut in x->source only; messages during the load use it whole. */
	memcpy(x->source, source, n < sizeof x->source ? n : sizeof x->source - 1);
	x->yaml_text = malloc(len + 1);
	if (x->yaml_text == NULL)
		return pf_fail(e, PF_RUNTIME, "%s: out of memory for %zu bytes of YAML", source,
			       len);
	memcpy(x->yaml_text, text, len);
	x->yaml_text[len] = '\0';
	x->yaml_len = len;
	cfg_defaults(x, source);
	if (cfg_blocks_init(x, blocks, source, e) != 0 ||
	    cfg_parse_yaml(source, text, len, x, e) != 0) {
		cfg_free(x);
		return -1;
	}
	return 0;
}

/* The whole file into a malloc'ed buffer (*text, *len), up to CFG_FILE_MAX bytes. */
static int cfg_read_file(const char *path, char **text, size_t *len, struct pf_err *e)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = -1;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
	while (!feof(f)) {
		if (n == cap) {
			char *grown = realloc(buf, cap = cap > 0 ? cap * 2 : 4096);
			if (grown == NULL) {
				pf_fail(e, PF_RUNTIME, "%s: out of memory reading it", path);
				goto out;
			}
			buf = grown;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f) && stop_signal() != 0) { /* a pipe that is slow to deliver */
			stop_check(e, path);
			goto out;
		}
		if (ferror(f)) {
			pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (n > CFG_FILE_MAX) {
			pf_fail(e, PF_USAGE, "%s: cannot read: larger than %u bytes, not a config",
				path, CFG_FILE_MAX);
			goto out;
		}
	}
	rc = 0;
out:
	if (fclose(f) != 0 && rc == 0) /* nothing to lose on a read stream, but say so */
		rc = pf_fail(e, PF_USAGE, "%s: cannot read: %s", path, strerror(errno));
	if (rc != 0) {
		free(buf);
		return -1;
	}
	*text = buf;
	*len = n;
	return 0;
}

int cfg_load(const char *path, const struct cfg_block *const *blocks, struct experiment *x,
	     struct pf_err *e)
{
	char *text = NULL;
	size_t len = 0;
	memset(x, 0, sizeof *x);
	if (cfg_read_file(path, &text, &len, e) != 0)
		return -1;
	int rc = cfg_parse(path, text, len, blocks, x, e);
	free(text);
	return rc;
}

void cfg_free(struct experiment *x)
{
	if (x == NULL)
		return;
	free(x->yaml_text);
	for (size_t i = 0; x->datasets != NULL && i < x->ndatasets; i++) {
		if (x->datasets[i].tree != NULL && x->datasets[i].tree_release != NULL)
			x->datasets[i].tree_release(x->datasets[i].tree);
		free(x->datasets[i].from_tree);
		free(x->datasets[i].buckets);
	}
	free(x->datasets);
	cfg_blocks_free(x);
	memset(x, 0, sizeof *x);
}
