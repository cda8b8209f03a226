/* test_iobuf: buffers are aligned, zeroed (touched), and backed by transparent huge pages
 * where the kernel offers them to those who ask (enabled: always or madvise). */
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

/* AnonHugePages in kB of the mapping that holds addr, from /proc/self/smaps; -1 if none. */
static long huge_kb_at(const void *addr)
{
	char line[512];
	long kb = -1;
	int in = 0;
	uintptr_t a = (uintptr_t)addr;
	FILE *f = fopen("/proc/self/smaps", "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		uintmax_t lo, hi;
		if (sscanf(line, "%jx-%jx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
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
		long kb = huge_kb_at(buf);
		ok(kb >= 2048, "backed by huge pages: %ld kB AnonHugePages in its mapping", kb);
	} else {
		ok(1, "# SKIP transparent huge pages are off on this kernel");
	}
	free(buf);
	return tap_done();
}
