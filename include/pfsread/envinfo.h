/* envinfo: what the run ran on, as far as one process can see it: the mount that holds a path
 * (file system type, mount options, atime mode). No MPI. */
#ifndef PFSREAD_ENVINFO_H
#define PFSREAD_ENVINFO_H

#include <stddef.h>

#include "pfsread/err.h"

struct mount_info {
	char mount_point[1024];
	char fstype[64];      /* as /proc/self/mountinfo names it: ext4, xfs, lustre, fuse.glusterfs ... */
	char options[1040];   /* per-mount and super-block options, comma-separated */
	char atime_mode[16];  /* noatime | relatime | strictatime (reads update atime: reads write) */
};

/* Describe the mount holding path (which must exist). Returns 0 or -1 with e set. */
int envinfo_mount(const char *path, struct mount_info *m, struct pf_err *e);

/* Parse one line of /proc/self/mountinfo. Pure; returns 0, or -1 for a malformed line. */
int envinfo_parse_mountinfo_line(const char *line, struct mount_info *m);

#endif
