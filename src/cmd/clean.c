/* clean: remove exactly what generate made, as the manifests list it: files, partial files,
 * name and digest lists, descriptions, and directories once empty. Anything else is kept and
 * named; links are never followed, and system roots, home and mount points are refused. */
#include "cmd/generate.h"
#include "cmd/datasets.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset/tree.h"
#include "run/plan.h"
#include "util/stop.h"
#include "util/safe.h"
#include "util/units.h"

/* SIGTERM or SIGINT in clean: it stops at the next name, with the manifest still there (it
 * goes last), so that clean run again finishes the job. 0 while no signal came. */
static int clean_stop(struct pf_err *e)
{
	if (stop_signal() == 0)
		return 0;
	return pf_fail(e, stop_status(), "clean: interrupted by signal %d; the manifest is kept: "
		       "run clean again to finish", stop_signal());
}

/* "pfsread: clean: A[SEP B]WHAT" on stderr, the paths by util/safe's rule. */
static void clean_say(const char *a, const char *sep, const char *b, const char *what)
{
	fputs("pfsread: clean: ", stderr);
	safe_fput(stderr, a, 0);
	fputs(sep, stderr);
	safe_fput(stderr, b, 0);
	fputs(what, stderr);
}

/* Remove one name inside an already opened directory: unlinkat never follows a symbolic
 * link, so nothing outside the data set can be reached. */
static int clean_unlink(int dirfd, const char *name, int flags, const char *where, struct pf_err *e)
{
	if (unlinkat(dirfd, name, flags) == 0 || errno == ENOENT)
		return 0;
	const char *sep = where != NULL ? "/" : ""; /* where NULL: name is a whole path */
	where = where != NULL ? where : "";
	if (flags == AT_REMOVEDIR && (errno == ENOTEMPTY || errno == EEXIST)) {
		clean_say(where, sep, name, " holds files pfsread did not make; kept\n");
		return 0;
	}
	if (flags == AT_REMOVEDIR && errno == ENOTDIR) {
		clean_say(where, sep, name, " is not a directory pfsread made; kept\n");
		return 0;
	}
	return pf_fail_errno(e, errno, "clean: cannot remove %s%s%s", where, sep, name);
}

/* The files the manifest m places in directory dir (clean goes by the manifest, not by the
 * config, which may have changed since). */
static int clean_subdir(const struct manifest *m, int dsfd, const char *dsdir, uint64_t dir,
			struct pf_err *e)
{
	char name[64], sub[32], where[GEN_PATH + 32];
	snprintf(sub, sizeof sub, "d%06" PRIu64, dir);
	snprintf(where, sizeof where, "%.*s/%s", GEN_PATH, dsdir, sub); /* for a message */
	int fd = openat(dsfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		clean_say(dsdir, "/", sub, " is a symbolic link or not a directory; not followed\n");
		return 0;
	}
	if (fd < 0)
		return errno == ENOENT ? 0 : pf_fail_errno(e, errno, "clean: %s/%s", dsdir, sub);
	uint64_t first = dir * m->files_per_dir, last = first + m->files_per_dir;
	if (last > m->nfiles)
		last = m->nfiles;
	int rc = 0;
	for (uint64_t f = first; f < last && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64, f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(fd, name, 0, where, e);
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		if (rc == 0)
			rc = clean_unlink(fd, name, 0, where, e);
	}
	close(fd);
	return rc;
}

/* Flat: this rank's block of the files, and their .part names, straight in the data set's
 * directory. */
static int clean_flat(const struct manifest *m, int dsfd, const char *dsdir, int rank,
		      int nranks, struct pf_err *e)
{
	char name[64];
	uint64_t first, count;
	int rc = 0;
	plan_block(m->nfiles, (uint64_t)nranks, (uint64_t)rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64, f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(dsfd, name, 0, dsdir, e);
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		if (rc == 0)
			rc = clean_unlink(dsfd, name, 0, dsdir, e);
	}
	return rc;
}

/* One level down from fd (closed): part, opened without following a link; a link or a
 * non-directory there is said (not followed). The new descriptor, or -1. */
static int clean_descend(int fd, const char *part, const char *dsdir, const char *shown)
{
	int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0 && (errno == ELOOP || errno == ENOTDIR))
		clean_say(dsdir, "/", shown, ": a level is a symbolic link or not a directory; "
			  "not followed\n");
	close(fd);
	return next;
}

/* Open the directory of a hashed name level by level from dsfd, never following a link.
 * Returns the directory's descriptor, or -1 (with a note when a level is a link: not
 * followed; or ENOENT: already gone). */
static int clean_open_hashed_dir(const struct manifest *m, int dsfd, const char *dsdir,
				 const char *hex)
{
	int fd = dup(dsfd);
	for (unsigned level = 0; fd >= 0 && level < m->depth; level++) {
		char part[CFG_HASH_WIDTH_MAX + 1];
		snprintf(part, sizeof part, "%.*s", (int)m->width, hex + level * m->width);
		fd = clean_descend(fd, part, dsdir, hex);
	}
	return fd;
}

/* Hashed: this rank's lines of the name list; each listed file unlinked inside its directory
 * (opened without following links), and the .part names in the data set's directory. */
static int clean_hashed_files(const struct manifest *m, int dsfd, const char *dsdir, int rank,
			      int nranks, struct pf_err *e)
{
	char name[64], hex[DIGEST_HEX_MAX], list[64];
	uint64_t first, count;
	int rc = 0;
	snprintf(list, sizeof list, "%s%s", DATASET_DIGESTS,
		 digest_name((enum digest_kind)m->name_digest));
	int lfd = openat(dsfd, list, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0 && errno != ENOENT)
		return pf_fail_errno(e, errno, "clean: %s/%s", dsdir, list);
	plan_block(m->nfiles, (uint64_t)nranks, (uint64_t)rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		snprintf(name, sizeof name, "f%010" PRIu64 ".part", f);
		rc = clean_stop(e) != 0 ? -1 : clean_unlink(dsfd, name, 0, dsdir, e);
		int got = lfd >= 0 ? dataset_read_line(lfd, (enum digest_kind)m->name_digest, f, hex) : 1;
		if (rc != 0 || got != 0) {
			rc = rc != 0 ? rc : got < 0 ? pf_fail_errno(e, got, "clean: %s/%s", dsdir, list) : 0;
			continue;
		}
		int dfd = clean_open_hashed_dir(m, dsfd, dsdir, hex);
		if (dfd < 0)
			continue; /* gone already, or a link: nothing of ours to remove there */
		char where[GEN_PATH + 64];
		int at = snprintf(where, sizeof where, "%.*s", GEN_PATH, dsdir);
		for (unsigned l = 0; l < m->depth && at > 0 && (size_t)at < sizeof where; l++)
			at += snprintf(where + at, sizeof where - (size_t)at, "/%.*s", (int)m->width,
				       hex + l * m->width);
		rc = clean_unlink(dfd, hex, 0, where, e);
		close(dfd);
	}
	if (lfd >= 0)
		close(lfd);
	return rc;
}

/* 1 when name is width lower-case hex digits: a directory a hashed layout makes. */
static int clean_is_level(const char *name, unsigned width)
{
	return strlen(name) == width && strspn(name, "0123456789abcdef") == width;
}

/* The names in the directory open at fd that have the shape of a hashed level (at most 16^4
 * of them, width + 1 bytes each), into *names (malloc'ed; the caller frees it). */
static int clean_level_names(int fd, unsigned width, char **names, size_t *n)
{
	size_t cap = 0;
	*names = NULL;
	*n = 0;
	int rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = rfd >= 0 ? fdopendir(rfd) : NULL;
	if (dir == NULL) {
		int err = errno;
		if (rfd >= 0)
			close(rfd);
		return -err;
	}
	int rc = 0;
	for (struct dirent *de; rc == 0 && (de = readdir(dir)) != NULL;) {
		if (de->d_type != DT_DIR || !clean_is_level(de->d_name, width))
			continue;
		if (*n == cap) {
			char *more = realloc(*names, (cap = cap ? 2 * cap : 64) * (width + 1));
			if (more == NULL) {
				rc = -ENOMEM;
				break;
			}
			*names = more;
		}
		memcpy(*names + (*n)++ * (width + 1), de->d_name, width + 1); /* width <= 4 */
	}
	closedir(dir);
	return rc;
}

/* Rank 0, after every file is gone: the hashed directories bottom-up, from the directory open
 * at fd, levels left of them. Only names of the layout's shape are looked at (read first, then
 * removed: removing while reading a directory is not reliable), never through a link; one that
 * still holds something (a file pfsread did not make) is kept and named. */
static int clean_hashed_dirs(const struct manifest *m, int fd, const char *where,
			     unsigned levels, struct pf_err *e)
{
	char *names = NULL;
	size_t n = 0;
	if (levels == 0)
		return 0;
	int rc = clean_level_names(fd, m->width, &names, &n);
	if (rc != 0) {
		free(names);
		return pf_fail_errno(e, rc, "clean: %s", where);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char sub[GEN_PATH];
		const char *name = names + i * (m->width + 1);
		if (clean_stop(e) != 0) {
			rc = -1;
			break;
		}
		if (snprintf(sub, sizeof sub, "%s/%s", where, name) >= (int)sizeof sub)
			sub[sizeof sub - 1] = '\0'; /* only names it in messages */
		int cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue; /* a link (d_type said dir: raced) or gone */
		rc = clean_hashed_dirs(m, cfd, sub, levels - 1, e);
		close(cfd);
		if (rc != 0 || unlinkat(fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			continue;
		if (errno == ENOTEMPTY || errno == EEXIST)
			clean_say(sub, "", "", " holds files pfsread did not make; kept\n");
		else
			rc = pf_fail_errno(e, errno, "clean: cannot remove %s", sub);
	}
	free(names);
	return rc;
}

/* The directory holding rel (a path below the data set's directory; cut at its last '/'),
 * opened level by level from dsfd without following a link; *leaf gets rel's last name.
 * -1 when a level is gone, or is a link or not a directory (said so: not followed). */
static int clean_open_parent(int dsfd, const char *dsdir, char *rel, const char **leaf)
{
	char *save = NULL, *slash = strrchr(rel, '/');
	int fd = dup(dsfd);
	*leaf = slash != NULL ? slash + 1 : rel;
	if (slash == NULL)
		return fd;
	*slash = '\0';
	for (char *part = strtok_r(rel, "/", &save); fd >= 0 && part != NULL;
	     part = strtok_r(NULL, "/", &save))
		fd = clean_descend(fd, part, dsdir, part);
	return fd;
}

/* A twin: this rank's block of the files its description lists (and their .part names),
 * each unlinked inside its directory. The description must be the one the manifest names. */
static int clean_tree_files(struct gen_ctx *g, const struct manifest *have, int dsfd,
			    const char *dsdir, struct pf_err *e)
{
	char want[MANIFEST_SIZES_MAX], rel[GEN_PATH], part[GEN_PATH + 8];
	const struct tree_desc *t = g->d->tree;
	uint64_t first, count;
	int rc = 0;
	if (t == NULL)
		return pf_fail(e, PF_RUNTIME, "clean: %s: %s is missing, so the twin's files are "
			       "unknown; nothing removed", dsdir, TREE_FILE);
	if (sizes_describe(g->d, want, sizeof want) != 0 || strcmp(want, have->sizes) != 0)
		return pf_fail(e, PF_RUNTIME, "clean: %s: %s does not match the manifest; refusing "
			       "to remove anything", dsdir, TREE_FILE);
	plan_block(t->nfiles, (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t f = first; f < first + count && rc == 0; f++) {
		const char *leaf;
		if (clean_stop(e) != 0)
			return -1;
		snprintf(rel, sizeof rel, "%s", tree_file_path(t, f, 0));
		int fd = clean_open_parent(dsfd, dsdir, rel, &leaf);
		if (fd < 0)
			continue; /* gone already, or a link: nothing of ours there */
		char where[2 * GEN_PATH + 2]; /* the leaf's directory, for a message */
		snprintf(where, sizeof where, "%s%s%s", dsdir, leaf != rel ? "/" : "",
			 leaf != rel ? rel : "");
		snprintf(part, sizeof part, "%s.part", leaf);
		rc = clean_unlink(fd, leaf, 0, where, e);
		if (rc == 0)
			rc = clean_unlink(fd, part, 0, where, e);
		close(fd);
	}
	return rc;
}

/* Rank 0, after every file is gone: the twin's directories, deepest first (a child sorts
 * after its parent); one that still holds something pfsread did not make is kept and named. */
static int clean_tree_dirs(const struct tree_desc *t, int dsfd, const char *dsdir,
			   struct pf_err *e)
{
	char rel[GEN_PATH];
	int rc = 0;
	for (uint64_t k = t->ndirs; k > 0 && rc == 0; k--) {
		const char *leaf;
		if (clean_stop(e) != 0)
			return -1;
		snprintf(rel, sizeof rel, "%s", tree_dir_path(t, k - 1, 1));
		int fd = clean_open_parent(dsfd, dsdir, rel, &leaf);
		if (fd < 0)
			continue;
		rc = clean_unlink(fd, leaf, AT_REMOVEDIR, dsdir, e);
		close(fd);
	}
	return rc;
}

/* The files of the manifest's layout, this rank's share. */
static int clean_files(struct gen_ctx *g, const struct manifest *have, int dsfd,
		       const char *dsdir, struct pf_err *e)
{
	int rc = 0;
	uint64_t first, count;
	if (have->layout == CFG_LAYOUT_IN_PLACE)
		return 0; /* the tree is not ours: only the description and the manifest go */
	if (have->layout == CFG_LAYOUT_TREE)
		return clean_tree_files(g, have, dsfd, dsdir, e);
	if (have->layout == CFG_LAYOUT_FLAT)
		return clean_flat(have, dsfd, dsdir, g->rank, g->nranks, e);
	if (have->layout == CFG_LAYOUT_HASHED)
		return clean_hashed_files(have, dsfd, dsdir, g->rank, g->nranks, e);
	plan_block((have->nfiles + have->files_per_dir - 1) / have->files_per_dir,
		   (uint64_t)g->nranks, (uint64_t)g->rank, &first, &count);
	for (uint64_t i = first; i < first + count && rc == 0; i++) {
		char sub[32];
		snprintf(sub, sizeof sub, "d%06" PRIu64, i);
		rc = clean_stop(e) != 0 ? -1 : clean_subdir(have, dsfd, dsdir, i, e);
		if (rc == 0)
			rc = clean_unlink(dsfd, sub, AT_REMOVEDIR, dsdir, e);
	}
	return rc;
}

/* What a data set's directory holds, counted without following a link: files with the
 * names pfsread's layouts give (fNNNNNNNNNN, their .part, and hashed names of 16 or 40 hex
 * digits) and everything else but pfsread's own top-level files (manifest, description,
 * lists). Rank 0 reads the directories (no stat where readdir gives the type): 800 reads
 * of a directory for 800,000 files, beside their 800,000 unlinks. Counted before and after clean removes what the manifest lists: what went is the
 * difference, and files with pfsread's names that stay mean the manifest does not list them
 * (it was changed), so it must stay too. */
struct clean_survey {
	uint64_t ours, parts, foreign;
};

#define CLEAN_SURVEY_DEPTH (TREE_DEPTH_MAX + 1)

static int clean_ours_name(const char *n, int *part)
{
	size_t len = strlen(n), hex = strspn(n, "0123456789abcdef");
	*part = 0;
	if ((len == 16 || len == 40) && hex == len)
		return 1;
	if (n[0] != 'f' || strspn(n + 1, "0123456789") != 10)
		return 0;
	*part = strcmp(n + 11, ".part") == 0;
	return n[11] == '\0' || *part;
}

/* Counts what lies below the directory open at fd (closed here), depth levels down at most
 * (deeper is foreign: no layout goes there). top: fd is the data set's own directory. */
static void clean_survey_dir(int fd, int top, unsigned depth, struct clean_survey *s)
{
	DIR *dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return;
	}
	/* a signal ends the survey: its caller stops too, before it decides anything from it */
	for (struct dirent *de; stop_signal() == 0 && (de = readdir(dir)) != NULL;) {
		const char *n = de->d_name;
		unsigned char type = de->d_type;
		struct stat st;
		int part;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    (top && (strcmp(n, DATASET_MANIFEST) == 0 || strcmp(n, TREE_FILE) == 0 ||
			     strncmp(n, DATASET_DIGESTS, strlen(DATASET_DIGESTS)) == 0)))
			continue;
		/* the entry's type from readdir: a stat only where the file system does not say */
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue; /* gone meanwhile */
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type == DT_DIR && depth > 0) {
			int sub = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				clean_survey_dir(sub, 0, depth - 1, s);
		} else if (type == DT_REG && clean_ours_name(n, &part)) {
			s->ours += !part;
			s->parts += (uint64_t)part;
		} else if (type != DT_DIR) {
			s->foreign++;
		}
	}
	closedir(dir);
}

static void clean_survey(int dsfd, struct clean_survey *s)
{
	memset(s, 0, sizeof *s);
	int fd = openat(dsfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		clean_survey_dir(fd, 1, CLEAN_SURVEY_DEPTH, s);
}

/* Rank 0, after the files the manifest lists are gone: what was removed and what stays,
 * counted. 0 when nothing with pfsread's names stays (the manifest may go); else -1: the
 * manifest is kept, since without it those files could not be cleaned any more. */
static int clean_account(const struct gen_ctx *g, const struct manifest *have, int dsfd,
			 const char *dsdir, const struct clean_survey *before, struct pf_err *e)
{
	struct clean_survey after;
	clean_survey(dsfd, &after);
	if (clean_stop(e) != 0)
		return -1; /* a survey cut short proves nothing: the manifest stays */
	uint64_t removed = before->ours > after.ours ? before->ours - after.ours : 0;
	uint64_t parts = before->parts > after.parts ? before->parts - after.parts : 0;
	if (have->layout == CFG_LAYOUT_IN_PLACE && after.ours == 0 && after.parts == 0)
		return 0;
	printf("clean %s: removed %" PRIu64 " file%s (the manifest lists %" PRIu64 ")", g->d->name,
	       removed, units_s(removed), have->nfiles);
	if (parts > 0)
		printf(" and %" PRIu64 " partial file%s", parts, units_s(parts));
	if (after.foreign > 0)
		printf("; kept %" PRIu64 " file%s pfsread did not make", after.foreign,
		       units_s(after.foreign));
	printf("\n");
	if (after.ours == 0 && after.parts == 0)
		return 0;
	return pf_fail(e, PF_RUNTIME, "clean: %s still holds %" PRIu64 " files with the names "
		       "pfsread gives that its manifest does not list (was the manifest changed?); "
		       "the manifest is kept: remove them by hand, or put the manifest back as "
		       "generate wrote it and clean again", dsdir, after.ours + after.parts);
}

static int clean_dataset(struct gen_ctx *g, struct pf_err *e)
{
	struct clean_survey before = {0, 0, 0};
	char dsdir[GEN_PATH], shown[SAFE_ROOM(GEN_PATH)];
	struct manifest have;
	int rc = 0, verdict = GEN_MAKE;
	memset(&have, 0, sizeof have);
	if (dataset_dir(g->x, g->d, dsdir, sizeof dsdir) != 0)
		return pf_fail(e, PF_USAGE, "%s: path too long", g->x->root);
	if (g->rank == 0) {
		int found = manifest_read(dsdir, &have, e);
		struct stat st;
		if (found == 1 && lstat(dsdir, &st) != 0)
			verdict = GEN_SKIP; /* nothing there */
		else if (found == 1)
			rc = pf_fail(e, PF_USAGE,
				     "clean: %s holds no pfsread manifest; refusing to remove anything",
				     dsdir);
		else if (found == 0 && (strcmp(have.name, g->d->name) != 0 ||
					(have.layout == CFG_LAYOUT_INDEXED && have.files_per_dir == 0)))
			rc = pf_fail(e, PF_USAGE,
				     "clean: %s: the manifest names data set '%s', not '%s'; refusing to "
				     "clean", dsdir, have.name, g->d->name);
		else if (found < 0)
			rc = -1;
		int sfd = rc == 0 && verdict == GEN_MAKE
				  ? open(dsdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sfd >= 0) { /* before any rank removes anything: the verdict below waits */
			clean_survey(sfd, &before);
			close(sfd);
		}
	}
	if (gen_share_verdict(rc, &verdict, e) != 0 ||
	    MPI_Bcast(&have, sizeof have, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
		return -1;
	if (verdict == GEN_SKIP) {
		if (g->rank == 0)
			printf("clean %s: %s does not exist, nothing to remove\n", g->d->name,
			       safe_text(shown, sizeof shown, dsdir, 0));
		return 0;
	}
	int dsfd = open(dsdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dsfd < 0)
		rc = pf_fail_errno(e, errno, "clean: %s", dsdir);
	if (rc == 0)
		rc = clean_files(g, &have, dsfd, dsdir, e);
	if (gen_all_ok(rc, e) != 0) {
		if (dsfd >= 0)
			close(dsfd);
		return -1;
	}
	if (g->rank == 0 && have.layout == CFG_LAYOUT_HASHED)
		rc = clean_hashed_dirs(&have, dsfd, dsdir, have.depth, e);
	if (g->rank == 0 && rc == 0)
		rc = clean_stop(e); /* the manifest and lists stay for the next clean */
	if (g->rank == 0 && have.layout == CFG_LAYOUT_TREE)
		rc = clean_tree_dirs(g->d->tree, dsfd, dsdir, e);
	if (g->rank == 0 && rc == 0)
		rc = clean_account(g, &have, dsfd, dsdir, &before, e);
	if (g->rank == 0 && rc == 0 &&
	    (have.layout == CFG_LAYOUT_TREE || have.layout == CFG_LAYOUT_IN_PLACE))
		rc = clean_unlink(dsfd, TREE_FILE, 0, dsdir, e);
	for (int k = 1; g->rank == 0 && rc == 0 && k < DIGEST_KINDS; k++) {
		char list[64];
		snprintf(list, sizeof list, "%s%s", DATASET_DIGESTS, digest_name((enum digest_kind)k));
		if (have.digests & (1u << k))
			rc = clean_unlink(dsfd, list, 0, dsdir, e);
	}
	if (g->rank == 0 && rc == 0) {
		rc = clean_unlink(dsfd, DATASET_MANIFEST, 0, dsdir, e);
		if (rc == 0)
			rc = clean_unlink(AT_FDCWD, dsdir, AT_REMOVEDIR, NULL, e);
		if (rc == 0 && have.layout == CFG_LAYOUT_IN_PLACE)
			printf("clean %s: in place: removed pfsread's description and manifest in %s; "
			       "the tree itself is untouched\n", g->d->name,
			       safe_text(shown, sizeof shown, dsdir, 0));
	}
	close(dsfd);
	return gen_share_verdict(rc, &verdict, e);
}

int clean_all(const struct experiment *x, struct pf_err *e)
{
	struct gen_ctx g;
	int rc = gen_begin(&g, x, e);
	if (rc == 0 && g.rank == 0)
		rc = gen_check_root(x->root, "clean", "", e);
	int verdict = 0;
	rc = gen_share_verdict(rc, &verdict, e);
	for (size_t i = 0; rc == 0 && i < x->ndatasets; i++) {
		g.d = &x->datasets[i];
		rc = clean_stop(e) != 0 ? -1 : clean_dataset(&g, e);
	}
	free(g.buf);
	return rc;
}
