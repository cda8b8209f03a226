/* test_target: the parsers of where a file lives (run/target_parse.c) on hand-made input:
 * GlusterFS pathinfo strings, Lustre lov_mds_md buffers built byte by byte from the documented
 * layout (v1, v3, composite), pvfs2-viewdist's output, mountinfo lines, /sys/dev/block links. */
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include "run/target.h"

static void test_gluster(void)
{
	char out[RECORD_TARGET_MAX];
	ok(target_parse_gluster("(<DISTRIBUTE:vol-dht> <POSIX(/data/b1):srv1:/data/b1/d/f0>)", out,
				sizeof out) == 0 && strcmp(out, "srv1:/data/b1") == 0,
	   "distribute: one brick (%s)", out);
	ok(target_parse_gluster("(<REPLICATE:v-replicate-0> <POSIX(/b/r0):a:/b/r0/x> "
				"<POSIX(/b/r1):b.example:/b/r1/x>)", out, sizeof out) == 0 &&
		   strcmp(out, "a:/b/r0,b.example:/b/r1") == 0,
	   "replicate: both bricks, in order (%s)", out);
	ok(target_parse_gluster("(<DISTRIBUTE:vol-dht> <POSIX(/b):h:/b/a:b/c>)", out, sizeof out) ==
			   0 && strcmp(out, "h:/b") == 0,
	   "a colon in the file's path is not the host's (%s)", out);
	char small[20];
	ok(target_parse_gluster("(<R> <POSIX(/b/r0):a:/b/r0/x> <POSIX(/b/r1):b:/b/r1/x> "
				"<POSIX(/b/r2):c:/b/r2/x>)", small, sizeof small) == 0 &&
		   strcmp(small, "a:/b/r0,b:/b/r1 +1") == 0,
	   "a list too long keeps its first and counts the rest (%s)", small);
	ok(target_parse_gluster("", out, sizeof out) == -1, "empty: no brick");
	ok(target_parse_gluster("(<DISTRIBUTE:vol-dht>)", out, sizeof out) == -1, "no POSIX entry");
	ok(target_parse_gluster("<POSIX(/b/r0", out, sizeof out) == -1, "cut short: refused");
	ok(target_parse_gluster("<POSIX(/b/r0):nohost>", out, sizeof out) == -1,
	   "no host separator: refused");
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* A plain layout at b: magic, count stripes on the given OSTs. Returns its size. */
static size_t lov(unsigned char *b, uint32_t magic, const uint32_t *ost, uint16_t count)
{
	size_t head = magic == 0x0BD30BD0u ? 48 : 32;
	memset(b, 0, head + (size_t)count * 24);
	put32(b, magic);
	put32(b + 4, 1);          /* RAID0 */
	put32(b + 24, 1 << 20);   /* stripe size */
	b[28] = (unsigned char)count, b[29] = (unsigned char)(count >> 8);
	if (head == 48)
		memcpy(b + 32, "flash", 5); /* the pool name */
	for (uint16_t i = 0; i < count; i++) {
		put32(b + head + (size_t)i * 24, 0x1234 + i); /* object id: noise */
		put32(b + head + (size_t)i * 24 + 20, ost[i]);
	}
	return head + (size_t)count * 24;
}

static void test_lov(void)
{
	unsigned char b[4096];
	char out[RECORD_TARGET_MAX];
	const uint32_t one[] = {7}, four[] = {3, 4, 5, 0};
	size_t n = lov(b, 0x0BD10BD0u, one, 1);
	ok(target_parse_lov(b, n, out, sizeof out) == 0 && strcmp(out, "ost 7") == 0,
	   "v1, one stripe (%s)", out);
	n = lov(b, 0x0BD30BD0u, four, 4);
	ok(target_parse_lov(b, n, out, sizeof out) == 0 && strcmp(out, "ost 3,4,5,0") == 0,
	   "v3 with a pool, four stripes in layout order (%s)", out);
	ok(target_parse_lov(b, n - 1, out, sizeof out) == -1, "a stripe cut short: refused");
	char small[10];
	ok(target_parse_lov(b, n, small, sizeof small) == 0 &&
		   strcmp(small, "ost 3 +3") == 0,
	   "too many to name: the first and a count, within the room (%s)", small);
	char smaller[11] = "";
	ok(target_parse_lov(b, n, smaller, sizeof smaller) == 0 && strcmp(smaller, "ost 3,4 +2") == 0,
	   "as many as fit and a count (%s)", smaller);
	n = lov(b, 0x0BD10BD0u, one, 0);
	ok(target_parse_lov(b, n, out, sizeof out) == -1, "no stripes yet: refused");
	put32(b, 0xdeadbeef);
	ok(target_parse_lov(b, 64, out, sizeof out) == -1, "another magic: refused");
	/* a composite layout: header, two entries, the first component at 128 */
	unsigned char c[4096];
	memset(c, 0, sizeof c);
	put32(c, 0x0BD60BD0u);
	c[14] = 2;
	size_t first = lov(c + 128, 0x0BD10BD0u, four + 1, 2);
	put32(c + 32 + 24, 128);
	put32(c + 32 + 28, (uint32_t)first);
	put32(c + 80 + 24, 128 + (uint32_t)first);
	size_t second = lov(c + 128 + first, 0x0BD10BD0u, one, 1);
	n = 128 + first + second;
	put32(c + 4, (uint32_t)n);
	ok(target_parse_lov(c, n, out, sizeof out) == 0 && strcmp(out, "ost 4,5") == 0,
	   "composite: the first component's stripes (%s)", out);
	put32(c + 32 + 24, 4000);
	ok(target_parse_lov(c, n, out, sizeof out) == -1, "composite pointing past its end: refused");
}

static void test_viewdist(void)
{
	const char *four = "dist_name = simple_stripe\n"
			   "dist_params:\n"
			   "strip_size:65536\n"
			   "\n"
			   "Metadataserver: tcp://10.77.0.11:3334\n"
			   "Number of datafiles/servers = 4\n"
			   "Datafile 0 - tcp://10.77.0.13:3334, handle: 4611686018427387898 "
			   "(3ffffffffffffffa.bstream)\n"
			   "Datafile 1 - tcp://10.77.0.14:3334, handle: 1 (00000001.bstream)\n"
			   "Datafile 2 - tcp://n1:3334, handle: 2 (00000002.bstream)\n"
			   "Datafile 3 - tcp://10.77.0.12:3334, handle: 3 (00000003.bstream)\n";
	char out[RECORD_TARGET_MAX];
	ok(target_parse_viewdist(four, out, sizeof out) == 0 &&
		   strcmp(out, "10.77.0.13:3334,10.77.0.14:3334,n1:3334,10.77.0.12:3334") == 0,
	   "four datafiles: their servers in stripe order (%s)", out);
	char small[36];
	ok(target_parse_viewdist(four, small, sizeof small) == 0 &&
		   strcmp(small, "10.77.0.13:3334,10.77.0.14:3334 +2") == 0,
	   "too many to name: the first ones and a count (%s)", small);
	ok(target_parse_viewdist("Number of datafiles/servers = 0\n", out, sizeof out) == -1,
	   "no datafile: refused");
	ok(target_parse_viewdist("Datafile 0 tcp://a:1\n", out, sizeof out) == -1,
	   "a datafile line without its server: refused");
	ok(target_parse_viewdist("Could not open /box/fs/x\n", out, sizeof out) == -1,
	   "an error message: refused");
	char t[64];
	const char *mi = "1420 29 0:97 / /box/fs rw,nosuid,nodev,relatime shared:733 - fuse "
			 "pvfs2fuse\\043tcp://10.77.0.2:3334/orangefs rw,user_id=0,group_id=0\n";
	ok(target_parse_mountinfo(mi, 0, 97, t, sizeof t) == 1 &&
		   strcmp(t, "fuse pvfs2fuse\\043tcp://10.77.0.2:3334/orangefs") == 0,
	   "mountinfo: the type and source of the device's mount (%s)", t);
	char tiny[8];
	ok(target_parse_mountinfo(mi, 0, 97, tiny, sizeof tiny) == -1, "mountinfo: too long, refused");
	ok(target_parse_mountinfo(mi, 0, 98, t, sizeof t) == 0, "mountinfo: another device");
	ok(target_parse_mountinfo("garbage\n", 0, 97, t, sizeof t) == -1, "mountinfo: not a line");
}

static void test_blockdev(void)
{
	char out[64];
	ok(target_parse_blockdev("../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/"
				 "0:0:0:0/block/sda/sda1", out, sizeof out) == 0 &&
		   strcmp(out, "sda1") == 0,
	   "a partition's link: its name (%s)", out);
	ok(target_parse_blockdev("../../devices/virtual/block/loop3", out, sizeof out) == 0 &&
		   strcmp(out, "loop3") == 0,
	   "a loop device (%s)", out);
	ok(target_parse_blockdev("../../devices/virtual/block/", out, sizeof out) == -1,
	   "a link ending in a slash: refused");
	char name[8] = "ab\ncd\x7f";
	target_clean(name);
	ok(strcmp(name, "ab?cd?") == 0, "control characters become ? (%s)", name);
}

int main(void)
{
	test_gluster();
	test_lov();
	test_viewdist();
	test_blockdev();
	return tap_done();
}
