/* test_envinfo: file system names from statfs magic and mount types, mountinfo lines (atime
 * modes, escapes), Lustre layouts from raw xattr bytes, a host that takes back freed memory
 * from a made-up tree of virtio devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/envinfo.h"
#include "tap.h"

static void test_names(void)
{
	char label[128];
	struct mount_info m = {.fstype = "fuse.glusterfs", .source = "vm:/gv0"};
	ok(strcmp(envinfo_fs_name(0x0BD00BD0), "lustre") == 0, "lustre magic");
	ok(strcmp(envinfo_fs_name(0x20030528), "pvfs2/orangefs") == 0, "pvfs2 magic");
	ok(strcmp(envinfo_fs_name(0x47504653), "gpfs") == 0, "gpfs magic");
	ok(strcmp(envinfo_fs_name(0x19830326), "beegfs") == 0, "beegfs magic");
	ok(envinfo_fs_name(0x12345678) == NULL, "an unknown magic is NULL");
	envinfo_fs_label(0x65735546, &m, label, sizeof label);
	ok(strcmp(label, "glusterfs (fuse)") == 0, "fuse.glusterfs -> %s", label);
	snprintf(m.fstype, sizeof m.fstype, "fuse");
	snprintf(m.source, sizeof m.source, "mfs#127.0.0.1:9421");
	envinfo_fs_label(0x65735546, &m, label, sizeof label);
	ok(strcmp(label, "mfs (fuse)") == 0, "fuse from mfs#master -> %s", label);
	snprintf(m.fstype, sizeof m.fstype, "ext4");
	envinfo_fs_label(0xEF53, &m, label, sizeof label);
	ok(strcmp(label, "ext4") == 0, "ext2/3/4 magic with an ext4 mount -> %s", label);
	snprintf(m.fstype, sizeof m.fstype, "xfs");
	envinfo_fs_label(0x58465342, &m, label, sizeof label);
	ok(strcmp(label, "xfs") == 0, "xfs");
	snprintf(m.fstype, sizeof m.fstype, "weirdfs");
	envinfo_fs_label(0x1, &m, label, sizeof label);
	ok(strcmp(label, "weirdfs") == 0, "unknown magic falls back to the mount type");
}

static void test_mountinfo(void)
{
	struct mount_info m;
	ok(envinfo_parse_mountinfo_line("36 35 98:0 / /mnt/my\\040data rw,noatime master:1 - ext4 "
					"/dev/sda1 rw,errors=continue\n", &m) == 0,
	   "a mountinfo line parses");
	ok(strcmp(m.mount_point, "/mnt/my data") == 0, "escaped space in the mount point");
	ok(strcmp(m.fstype, "ext4") == 0 && strcmp(m.atime_mode, "noatime") == 0, "noatime mount");
	envinfo_parse_mountinfo_line("1 2 3:4 / /x rw,relatime - xfs /dev/b rw\n", &m);
	ok(strcmp(m.atime_mode, "relatime") == 0, "relatime mount");
	envinfo_parse_mountinfo_line("1 2 3:4 / /y rw - fuse.glusterfs h:/gv0 rw,user_id=0\n", &m);
	ok(strcmp(m.atime_mode, "strictatime") == 0 && strcmp(m.fstype, "fuse.glusterfs") == 0,
	   "neither noatime nor relatime: strictatime (every read writes an inode)");
	ok(envinfo_parse_mountinfo_line("garbage\n", &m) == -1, "a malformed line is refused");
}

static void test_lov(void)
{
	unsigned char buf[32] = {0};
	unsigned count = 0, size = 0;
	buf[0] = 0xD0, buf[1] = 0x0B, buf[2] = 0xD1, buf[3] = 0x0B; /* LOV_USER_MAGIC_V1 */
	buf[24] = 0x00, buf[25] = 0x00, buf[26] = 0x10, buf[27] = 0x00; /* 1 MiB */
	buf[28] = 4;
	ok(envinfo_parse_lov(buf, sizeof buf, &count, &size) == 0 && count == 4 && size == 1048576,
	   "lov v1: 4 stripes of 1 MiB (%u x %u)", count, size);
	buf[2] = 0xD3; /* v3 */
	ok(envinfo_parse_lov(buf, sizeof buf, &count, &size) == 0, "lov v3 parses");
	buf[2] = 0xD6; /* composite */
	ok(envinfo_parse_lov(buf, sizeof buf, &count, &size) == -1, "a composite layout is refused");
	ok(envinfo_parse_lov(buf, 10, &count, &size) == -1, "short bytes are refused");
}

static void test_remote(void)
{
	ok(envinfo_fs_remote("fuse.glusterfs", "10.77.0.10:/vol") == 1 &&
		   envinfo_fs_remote("lustre", "10.0.0.1@o2ib:/scratch") == 1 &&
		   envinfo_fs_remote("nfs4", "server:/export") == 1 &&
		   envinfo_fs_remote("fuse.mfs", "mfs#master:9421") == 1 &&
		   envinfo_fs_remote("gpfs", "gpfs0") == 1,
	   "network file systems are remote (glusterfs, lustre, nfs4, mfs, gpfs)");
	ok(envinfo_fs_remote("ext4", "/dev/vda") == 0 && envinfo_fs_remote("xfs", "/dev/loop3") == 0 &&
		   envinfo_fs_remote("tmpfs", "tmpfs") == 0,
	   "node disks and memory are local (ext4, xfs, tmpfs)");
	ok(envinfo_fs_remote("fuse.somefs", "host:/path") == 1 &&
		   envinfo_fs_remote("fuse.somefs", "somefs") == -1 && envinfo_fs_remote("", "") == -1 &&
		   envinfo_fs_remote(NULL, NULL) == -1,
	   "an unknown type: remote when its source names a host, else unknown");
}

static void test_collect(void)
{
	struct environment env;
	envinfo_collect("/", &env);
	int have_fs = 0, have_kernel = 0;
	for (size_t i = 0; i < env.n; i++) {
		have_fs |= strcmp(env.e[i].key, "fs_type") == 0 && env.e[i].value[0] != '\0';
		have_kernel |= strcmp(env.e[i].key, "kernel") == 0;
	}
	ok(have_fs && have_kernel, "collect on / names the file system type and the kernel");
}

/* A virtio device under devices: its id, its features and, bound, a driver entry. */
static void make_device(const char *devices, const char *name, const char *id,
			const char *features, int bound)
{
	char path[512];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", devices, name);
	ok(mkdir(path, 0700) == 0, "made %s", name);
	snprintf(path, sizeof path, "%s/%s/device", devices, name);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%s\n", id);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/%s/features", devices, name);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%s\n", features);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/%s/driver", devices, name);
	if (bound)
		ok(mkdir(path, 0700) == 0, "bound %s", name);
}

static void remove_tree(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "removed %s", dir);
}

static void test_host_reclaims(void)
{
	char root[] = "/tmp/test_envinfo.XXXXXX", devices[64];
	const char *reporting = "0110010100000000000000000000000010000000000000000000000000000000";
	const char *no_reporting = "0110000100000000000000000000000010000000000000000000000000000000";
	ok(mkdtemp(root) != NULL, "a directory for the devices");
	ok(envinfo_host_reclaims("/nonexistent/devices") == 0, "no devices: no reclaim");
	snprintf(devices, sizeof devices, "%s/a", root);
	ok(mkdir(devices, 0700) == 0, "devices a");
	make_device(devices, "virtio0", "0x0002", reporting, 1); /* a disk: bit 5 is not reporting */
	make_device(devices, "virtio1", "0x0005", no_reporting, 1);
	ok(envinfo_host_reclaims(devices) == 0, "a disk and a balloon without reporting: no reclaim");
	make_device(devices, "virtio2", "0x0005", reporting, 0);
	ok(envinfo_host_reclaims(devices) == 0, "a reporting balloon without its driver: no reclaim");
	make_device(devices, "virtio3", "0x0005", reporting, 1);
	ok(envinfo_host_reclaims(devices) == 1, "a bound balloon that reports free pages: reclaim");
	snprintf(devices, sizeof devices, "%s/b", root);
	ok(mkdir(devices, 0700) == 0, "devices b");
	make_device(devices, "virtio0", "0x0005", "01100", 1);
	ok(envinfo_host_reclaims(devices) == 0, "features too short to hold the bit: no reclaim");
	remove_tree(root);
}

int main(void)
{
	test_names();
	test_mountinfo();
	test_lov();
	test_remote();
	test_collect();
	test_host_reclaims();
	return tap_done();
}
