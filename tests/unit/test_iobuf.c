/* test_iobuf: buffers are aligned, zeroed (touched), and asked to be backed by transparent huge
 * pages (MADV_HUGEPAGE: "hg" in the mapping's VmFlags) where the kernel offers them to those who
 * ask (enabled: always or madvise). Whether it hands out a huge page at once is its affair
 * (fragmentation, defrag, a cgroup's limit): the AnonHugePages found is shown, not asserted. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/iobuf.h"
#include "tap.h"

#define LEN ((size_t)8 << 20)

/* 1 when THP may back an madvise(MADV_HUGEPAGE) region: "[always]" or "[madvise]". */
static int thp_offered(void)
{
	char line[256] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	if (f == NULL)
		return 0;
	if (fgets(line, sizeof line, f) == NULL)
		line[0] = '\0';
	fclose(f);
	return strstr(line, "[always]") != NULL || strstr(line, "[madvise]") != NULL;
}

/* The field of the mapping that holds addr in /proc/self/smaps: AnonHugePages in kB into *kb
 * (-1 if none), and whether its VmFlags hold "hg" (MADV_HUGEPAGE applied). */
static int huge_at(const void *addr, long *kb)
{
	char line[512];
	int in = 0, hg = 0;
	uintptr_t a = (uintptr_t)addr;
	FILE *f = fopen("/proc/self/smaps", "re");
	*kb = -1;
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		uintmax_t lo, hi;
		if (sscanf(line, "%jx-%jx ", &lo, &hi) == 2) {
			if (in)
				break;
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", kb) == 1)
			continue;
		if (in && strncmp(line, "VmFlags:", 8) == 0)
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return hg;
}

int main(void)
{
	void *buf = NULL;
	int rc = iobuf_alloc(LEN, &buf);
	ok(rc == 0 && buf != NULL, "8 MiB allocated (%d)", rc);
	if (rc != 0)
		return tap_done();
	ok((uintptr_t)buf % IOBUF_ALIGN == 0, "aligned to 2 MiB");
	const unsigned char *p = buf;
	size_t nonzero = 0;
	for (size_t i = 0; i < LEN; i += 4096)
		nonzero += p[i] != 0;
	ok(nonzero == 0, "every page touched (zeroed)");
	if (thp_offered()) {
		long kb;
		int hg = huge_at(buf, &kb);
		ok(hg, "huge pages asked for over it (VmFlags hg; %ld kB AnonHugePages now)", kb);
	} else {
		ok(1, "# SKIP transparent huge pages are off on this kernel");
	}
	free(buf);
	return tap_done();
}
