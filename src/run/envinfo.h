/* envinfo: what the run ran on, as far as one process can see it: the mount that holds a path
 * (file system type, mount options, atime mode). No MPI. */
#ifndef PFSREAD_ENVINFO_H
#define PFSREAD_ENVINFO_H

#include <stddef.h>

#include "util/err.h"

struct mount_info {
	char mount_point[1024];
	char fstype[64];      /* as /proc/self/mountinfo names it: ext4, xfs, lustre, fuse.glusterfs ... */
	char source[256];     /* what is mounted: /dev/sda1, host:/volume, mfs#master:9421 ... */
	char options[1040];   /* per-mount and super-block options, comma-separated */
	char atime_mode[16];  /* noatime | relatime | strictatime (reads update atime: reads write) */
};

/* What the run ran on, as key/value strings: written to the results file's /environment group
 * and shown by the report. Fixed size, so that rank 0 can broadcast it as it is. */
#define ENV_MAX 40

struct env_entry {
	char key[48];
	char value[1024];
};

struct environment {
	size_t n;
	struct env_entry e[ENV_MAX];
};

/* The value of key, or NULL. */
const char *envinfo_value(const struct environment *env, const char *key);

/* Add key = printf(fmt, ...) (dropped silently when full: the environment is a courtesy). */
void envinfo_add(struct environment *env, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* This process's view: the file system holding root (type from statfs, mount point,
 * options, atime mode, Lustre striping where the file system is Lustre), the batch job
 * (Slurm, PBS), the kernel, CPU model, memory, pfsread's version and git commit. */
void envinfo_collect(const char *root, struct environment *env);

/* The name of a file system from its statfs magic number ("lustre", "gpfs", "ext4", ...), or
 * NULL when unknown. For FUSE the mount's subtype says more (fuse.glusterfs). Pure. */
const char *envinfo_fs_name(unsigned long magic);

/* The name a user knows a file system by: magic refined by the mount ("ext4",
 * "glusterfs (fuse)", "mfs (fuse)", "lustre"); m may be NULL. Pure. */
void envinfo_fs_label(unsigned long magic, const struct mount_info *m, char *out, size_t len);

/* Whether a mount's data comes over the network (1: nfs, lustre, gpfs, glusterfs, fuse.mfs,
 * any mount whose source names a host...), from a disk of the node (0: ext4, xfs, tmpfs...) or
 * cannot be told (-1). mount_type as /proc/self/mountinfo names it. Pure. */
int envinfo_fs_remote(const char *mount_type, const char *source);

/* Lustre's striping from the bytes of a "lustre.lov" extended attribute (struct
 * lov_user_md v1/v3, read by offset so that no Lustre headers are needed). Returns 0 and
 * fills count and size, or -1 for bytes that are not a plain layout. Pure. */
int envinfo_parse_lov(const unsigned char *buf, size_t len, unsigned *count, unsigned *size);

/* Whether this node hands the memory it frees back to its host: a virtio balloon device under
 * devices (sysfs: /sys/bus/virtio/devices) bound to its driver with free page reporting among
 * its features. A page-cache read that lands on memory the host took back pays a fault on the
 * host per page. 1 yes, 0 no or cannot be told. */
int envinfo_host_reclaims(const char *devices);

/* Describe the mount holding path (which must exist). Returns 0 or -1 with e set. */
int envinfo_mount(const char *path, struct mount_info *m, struct pf_err *e);

/* Parse one line of /proc/self/mountinfo. Pure; returns 0, or -1 for a malformed line. */
int envinfo_parse_mountinfo_line(const char *line, struct mount_info *m);

#endif
