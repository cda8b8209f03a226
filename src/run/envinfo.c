/* envinfo: what the run ran on. The mount that holds the data sets (statfs magic and
 * /proc/self/mountinfo: type, options, atime mode; "strictatime" matters: every read then also
 * writes an inode), the batch job, the kernel, the CPU, the memory. */
#include "run/envinfo.h"
#include "run/detect.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <stdint.h>
#include <dirent.h>
#include <unistd.h>

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
	char point[1024], mopts[512], fstype[64], source[256], sopts[512];
	const char *dash = strstr(line, " - ");
	if (dash == NULL)
		return -1;
	if (sscanf(line, "%*s %*s %*s %*s %1023s %511s", point, mopts) != 2 ||
	    sscanf(dash + 3, "%63s %255s %511s", fstype, source, sopts) != 3)
		return -1;
	envinfo_unescape(point);
	memset(m, 0, sizeof *m);
	snprintf(m->mount_point, sizeof m->mount_point, "%s", point);
	snprintf(m->fstype, sizeof m->fstype, "%s", fstype);
	envinfo_unescape(source);
	snprintf(m->source, sizeof m->source, "%s", source);
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

const char *envinfo_value(const struct environment *env, const char *key)
{
	for (size_t i = 0; i < env->n && i < ENV_MAX; i++)
		if (strcmp(env->e[i].key, key) == 0)
			return env->e[i].value;
	return NULL;
}

void envinfo_add(struct environment *env, const char *key, const char *fmt, ...)
{
	va_list ap;
	if (env->n >= ENV_MAX)
		return;
	struct env_entry *en = &env->e[env->n++];
	snprintf(en->key, sizeof en->key, "%s", key);
	va_start(ap, fmt);
	vsnprintf(en->value, sizeof en->value, fmt, ap);
	va_end(ap);
}

const char *envinfo_fs_name(unsigned long magic)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} known[] = {
		{0x0BD00BD0, "lustre"},  {0x20030528, "pvfs2/orangefs"}, {0x47504653, "gpfs"},
		{0x19830326, "beegfs"},  {0x6969, "nfs"},                {0x00C36400, "cephfs"},
		{0x65735546, "fuse"},    {0xEF53, "ext2/3/4"},           {0x58465342, "xfs"},
		{0x01021994, "tmpfs"},   {0x9123683E, "btrfs"},          {0x2FC12FC1, "zfs"},
		{0x794C7630, "overlayfs"}, {0x5346414F, "afs"},          {0xFF534D42, "cifs"},
		{0x73717368, "squashfs"}, {0x517B, "smb"},               {0xAAD7AAEA, "panfs"},
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (known[i].magic == magic)
			return known[i].name;
	return NULL;
}

/* The first line of file that starts with prefix, after the prefix; "" when none. */
static void envinfo_grep(const char *file, const char *prefix, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(file, "re");
	out[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, prefix, strlen(prefix)) != 0)
			continue;
		const char *v = line + strlen(prefix);
		v += strspn(v, " \t:");
		snprintf(out, len, "%.*s", (int)strcspn(v, "\n"), v);
		break;
	}
	fclose(f);
}

/* struct lov_user_md_v1/v3: u32 magic, u32 pattern, u64 object id, u64 object seq,
 * u32 stripe_size, u16 stripe_count, ... (little-endian on the wire of getxattr) */
int envinfo_parse_lov(const unsigned char *buf, size_t len, unsigned *count, unsigned *size)
{
	if (len < 32)
		return -1;
	uint32_t magic = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
			 (uint32_t)buf[3] << 24;
	if (magic != 0x0BD10BD0 && magic != 0x0BD30BD0)
		return -1; /* composite (PFL) layouts: their first component is deeper; not parsed */
	*size = (unsigned)buf[24] | (unsigned)buf[25] << 8 | (unsigned)buf[26] << 16 |
		(unsigned)buf[27] << 24;
	*count = (unsigned)buf[28] | (unsigned)buf[29] << 8;
	return 0;
}

/* The root directory's default striping, where the file system is Lustre. */
static void envinfo_lustre(const char *root, struct environment *env)
{
	unsigned char buf[512];
	unsigned count = 0, size = 0;
	ssize_t n = getxattr(root, "lustre.lov", buf, sizeof buf);
	if (n < 0) {
		envinfo_add(env, "lustre_stripe", "unknown (%s)", strerror(errno));
		return;
	}
	if (envinfo_parse_lov(buf, (size_t)n, &count, &size) != 0) {
		envinfo_add(env, "lustre_stripe", "composite or unknown layout");
		return;
	}
	/* a stripe count of 0 means the file system's default, 65535 (-1) all OSTs */
	envinfo_add(env, "lustre_stripe_count", "%u", count);
	envinfo_add(env, "lustre_stripe_size", "%u", size);
}

/* The name a user knows a file system by: the statfs magic, refined by the mount's type
 * where the magic is shared (ext2/3/4) or generic (fuse.glusterfs, fuse.mfs). Pure. */
void envinfo_fs_label(unsigned long magic, const struct mount_info *m, char *out, size_t len)
{
	const char *name = envinfo_fs_name(magic), *type = m != NULL ? m->fstype : "";
	const char *hash = m != NULL ? strchr(m->source, '#') : NULL;
	if (name != NULL && strcmp(name, "fuse") == 0 && strncmp(type, "fuse.", 5) == 0)
		snprintf(out, len, "%s (fuse)", type + 5);
	else if (name != NULL && strcmp(name, "fuse") == 0 && hash != NULL)
		snprintf(out, len, "%.*s (fuse)", (int)(hash - m->source), m->source); /* mfs#host */
	else if (name != NULL && strcmp(name, "ext2/3/4") == 0 && strncmp(type, "ext", 3) == 0)
		snprintf(out, len, "%s", type);
	else
		snprintf(out, len, "%s", name != NULL ? name : type[0] ? type : "unknown");
}

int envinfo_fs_remote(const char *mount_type, const char *source)
{
	static const char *const remote[] = {
		"nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "pvfs2",
		"orangefs", "ceph", "glusterfs", "afs", "9p", "ocfs2", "gfs2", "panfs", "wekafs",
		"daos", "fuse.glusterfs", "fuse.mfs", "fuse.ceph-fuse", "fuse.ceph", "fuse.sshfs",
		"fuse.s3fs", "fuse.lizardfs", "fuse.beegfs", "fuse.dfuse", "fuse.juicefs", "fuse.gcsfuse",
		"fuse.pvfs2fuse"};
	static const char *const local[] = {
		"ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "tmpfs", "ramfs", "vfat",
		"exfat", "ntfs", "ntfs3", "overlay", "squashfs", "iso9660", "jfs", "reiserfs"};
	if (mount_type == NULL || mount_type[0] == '\0')
		return -1;
	for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++)
		if (strcmp(mount_type, remote[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
		if (strcmp(mount_type, local[i]) == 0)
			return 0;
	/* any other FUSE or network mount names its server: host:/path, //host/share, mfs#host */
	if (source != NULL && (strchr(source, ':') != NULL || strncmp(source, "//", 2) == 0 ||
			       strchr(source, '#') != NULL))
		return 1;
	return -1;
}

/* The limits the machine states (detect.c), for ceilings without a hardware: section. */
static void envinfo_detected(const char *root, const struct mount_info *m,
			     struct environment *env)
{
	struct detected d;
	int remote = m != NULL ? envinfo_fs_remote(m->fstype, m->source) : -1;
	detect_limits(root, m, remote, &d);
	if (remote == 1 || d.link_MBps > 0) {
		envinfo_add(env, "detected_link_MBps", "%.6g", d.link_MBps);
		envinfo_add(env, "detected_link_source", "%s", d.link_source);
	}
	if (d.disk_MBps > 0) {
		envinfo_add(env, "detected_disk_MBps", "%.6g", d.disk_MBps);
		envinfo_add(env, "detected_disk_source", "%s", d.disk_source);
	}
}

static void envinfo_filesystem(const char *root, struct environment *env)
{
	struct statfs sf;
	struct mount_info m;
	struct pf_err ignored = {0};
	char label[128];
	int have_mount = envinfo_mount(root, &m, &ignored) == 0;
	if (statfs(root, &sf) == 0) {
		envinfo_fs_label((unsigned long)sf.f_type, have_mount ? &m : NULL, label, sizeof label);
		envinfo_add(env, "fs_type", "%s", label);
		envinfo_add(env, "fs_magic", "0x%lx", (unsigned long)sf.f_type);
		envinfo_add(env, "fs_block_size", "%ld", (long)sf.f_bsize);
		if (strcmp(label, "lustre") == 0)
			envinfo_lustre(root, env);
	}
	if (have_mount) {
		envinfo_add(env, "fs_mount_type", "%s", m.fstype);
		envinfo_add(env, "fs_mount_source", "%s", m.source);
		envinfo_add(env, "fs_mount_point", "%s", m.mount_point);
		envinfo_add(env, "fs_mount_options", "%s", m.options);
		envinfo_add(env, "fs_atime_mode", "%s", m.atime_mode);
	}
	envinfo_detected(root, have_mount ? &m : NULL, env);
}

static void envinfo_job(struct environment *env)
{
	static const char *const vars[] = {
		"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES", "SLURM_NTASKS",
		"SLURM_TASKS_PER_NODE", "SLURM_CLUSTER_NAME", "PBS_JOBID", "PBS_NODEFILE",
		"PBS_NUM_NODES", "PBS_NUM_PPN", "PBS_QUEUE",
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v != NULL && *v != '\0')
			envinfo_add(env, vars[i], "%s", v);
	}
}

/* The first line of dir/name into out ("" when it cannot be read). */
static void envinfo_read_line(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	out[0] = '\0';
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
	    (f = fopen(path, "r")) == NULL)
		return;
	if (fgets(out, (int)len, f) == NULL)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	fclose(f); /* read only: nothing to lose */
}

int envinfo_host_reclaims(const char *devices)
{
	enum { BALLOON_ID = 5, BALLOON_F_REPORTING = 5 }; /* virtio spec: device id, feature bit */
	char dev[PATH_MAX], id[32], features[160], driver[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(devices);
	int found = 0;
	if (dir == NULL)
		return 0;
	while (!found && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' ||
		    snprintf(dev, sizeof dev, "%s/%s", devices, d->d_name) >= (int)sizeof dev ||
		    snprintf(driver, sizeof driver, "%s/driver", dev) >= (int)sizeof driver)
			continue;
		envinfo_read_line(dev, "device", id, sizeof id);
		envinfo_read_line(dev, "features", features, sizeof features);
		/* sysfs writes the features as one '0' or '1' a bit, bit 0 first */
		found = strtol(id, NULL, 0) == BALLOON_ID && access(driver, F_OK) == 0 &&
			strlen(features) > BALLOON_F_REPORTING && features[BALLOON_F_REPORTING] == '1';
	}
	closedir(dir); /* read only: nothing to lose */
	return found;
}

static void envinfo_machine(struct environment *env)
{
	struct utsname u;
	char buf[256];
	if (uname(&u) == 0)
		envinfo_add(env, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	envinfo_grep("/proc/cpuinfo", "model name", buf, sizeof buf);
	if (buf[0] != '\0')
		envinfo_add(env, "cpu_model", "%s", buf);
	envinfo_grep("/proc/meminfo", "MemTotal", buf, sizeof buf);
	if (buf[0] != '\0')
		envinfo_add(env, "mem_total", "%s", buf);
	if (envinfo_host_reclaims("/sys/bus/virtio/devices"))
		envinfo_add(env, "free_page_reporting",
			    "on: the host takes back memory this node frees (virtio balloon)");
}

void envinfo_collect(const char *root, struct environment *env)
{
	memset(env, 0, sizeof *env);
#ifdef PFSREAD_VERSION
	envinfo_add(env, "pfsread_version", "%s", PFSREAD_VERSION);
#endif
#ifdef PFSREAD_GIT
	envinfo_add(env, "pfsread_git_commit", "%s", PFSREAD_GIT);
#endif
	envinfo_filesystem(root, env);
	envinfo_job(env);
	envinfo_machine(env);
}
