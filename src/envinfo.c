/* envinfo: the mount that holds the data sets, from /proc/self/mountinfo: its type, options and
 * atime mode. "strictatime" matters: every read then also writes an inode. */
#include "pfsread/envinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void envinfo_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int envinfo_has_option(const char *options, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = options; (p = strstr(p, name)) != NULL; p += n)
		if ((p == options || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Linux shows relatime and noatime among the per-mount options; neither means strictatime. */
static void envinfo_atime_mode(struct mount_info *m)
{
	const char *mode = envinfo_has_option(m->options, "noatime")    ? "noatime"
			   : envinfo_has_option(m->options, "relatime") ? "relatime"
									: "strictatime";
	snprintf(m->atime_mode, sizeof m->atime_mode, "%s", mode);
}

/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue" */
int envinfo_parse_mountinfo_line(const char *line, struct mount_info *m)
{
	char point[1024], mopts[512], fstype[64], source[1024], sopts[512];
	const char *dash = strstr(line, " - ");
	if (dash == NULL)
		return -1;
	if (sscanf(line, "%*s %*s %*s %*s %1023s %511s", point, mopts) != 2 ||
	    sscanf(dash + 3, "%63s %1023s %511s", fstype, source, sopts) != 3)
		return -1;
	envinfo_unescape(point);
	memset(m, 0, sizeof *m);
	snprintf(m->mount_point, sizeof m->mount_point, "%s", point);
	snprintf(m->fstype, sizeof m->fstype, "%s", fstype);
	snprintf(m->options, sizeof m->options, "%s,%s", mopts, sopts);
	envinfo_atime_mode(m);
	return 0;
}

/* Does mount point mp hold path? ("/" holds everything; "/mnt" holds "/mnt/x", not "/mntx") */
static size_t envinfo_covers(const char *mp, const char *path)
{
	size_t n = strlen(mp);
	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return n;
	return 0;
}

int envinfo_mount(const char *path, struct mount_info *m, struct pf_err *e)
{
	char real[PATH_MAX], line[4096];
	if (realpath(path, real) == NULL)
		return pf_fail_errno(e, errno, "%s: cannot resolve", path);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return pf_fail_errno(e, errno, "/proc/self/mountinfo");
	size_t best = 0;
	struct mount_info cur;
	/* the last, longest match wins: later mounts hide earlier ones at the same point */
	while (fgets(line, sizeof line, f) != NULL) {
		if (envinfo_parse_mountinfo_line(line, &cur) != 0)
			continue;
		size_t n = envinfo_covers(cur.mount_point, real);
		if (n > 0 && n >= best) {
			best = n;
			*m = cur;
		}
	}
	fclose(f);
	if (best == 0)
		return pf_fail(e, PF_RUNTIME, "%s: no mount in /proc/self/mountinfo holds it", real);
	return 0;
}
