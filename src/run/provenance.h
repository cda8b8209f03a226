/* provenance: where a phase's bytes came from, counted by the kernel. Each rank reads its own
 * /proc/self/io (read_bytes: what the kernel fetched from storage for this process, all its
 * threads and io_uring workers included; rchar beside it) and each node's first rank the
 * bytes received on the interfaces that carry the file system's traffic (/proc/self/net/dev,
 * this network namespace's own), once before the
 * opening barrier and once after the closing one: nothing is read inside the timed region.
 * Which counter is evidence depends on the mount: the local disk's reads show in read_bytes;
 * a network file system's in the bytes received; a FUSE file system whose server cannot be
 * placed in neither, and its verdict is "unknown". No MPI. */
#ifndef PFSREAD_PROVENANCE_H
#define PFSREAD_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#define PROV_IFACES_MAX 8
#define PROV_DESC_MAX 128

enum prov_kind {
	PROV_UNKNOWN = 0, /* no counter says where the bytes came from */
	PROV_DISK,        /* local data: /proc/self/io read_bytes */
	PROV_NET,         /* remote data: the bytes received on ifaces (node leaders) */
};

struct prov_source {
	enum prov_kind kind;
	int leader;                               /* counts the node's network bytes */
	int nifaces;
	char ifaces[PROV_IFACES_MAX][32];         /* DETECT_IFNAME_MAX each */
	char desc[PROV_DESC_MAX];                 /* "read_bytes", "net rx of eth0", "unknown: .." */
};

struct prov_sample {
	uint64_t read_bytes, rchar, rx_bytes;
	int ok;                                   /* every counter asked for was read */
};

/* The counters for data under path, as this process sees its mount; leader: the node's
 * first rank. Never fails: what cannot be found makes the source PROV_UNKNOWN with why. */
void prov_setup(const char *path, int leader, struct prov_source *ps);

/* Read the counters now (outside any timed region). */
void prov_sample(const struct prov_source *ps, struct prov_sample *out);

/* read_bytes and rchar from the text of /proc/self/io. Returns 0, or -1 when either is
 * missing. Pure. */
int prov_parse_io(const char *text, uint64_t *read_bytes, uint64_t *rchar);

/* The verdict on a phase that read bytes, of which from_storage came from storage as the
 * counters say (fraction = from_storage / bytes, at most 1): "storage" at >= 90%, "cache" at
 * <= 10%, else "mixed: N% from cache". kind PROV_UNKNOWN, or bytes 0, is "unknown". Returns
 * the fraction from storage (NaN when unknown). Pure. */
double prov_verdict(enum prov_kind kind, uint64_t bytes, uint64_t from_storage, char *out,
		    size_t len);

/* The bytes from storage that rx, the bytes a node received, stand for when a share local
 * (0 <= local < 1) of what the node reads comes from a server on the node itself (data on
 * the compute nodes: its own stripe is read through loopback and crosses no link): rx /
 * (1 - local). local outside [0, 1) counts rx as it is. Pure. */
uint64_t prov_net_storage(uint64_t rx, double local);

/* The kind a recorded description names ("read_bytes" -> PROV_DISK, "net rx of ..." ->
 * PROV_NET, else PROV_UNKNOWN). Pure. */
enum prov_kind prov_kind_of(const char *desc);

#endif
