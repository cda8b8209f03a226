/* iobuf: buffers for reads and writes, backed by transparent huge pages where the kernel has
 * them. An O_DIRECT or io_uring read into 4 KiB pages reaches the device as one segment per
 * page, and a device takes a bounded number of segments per request (virtio-blk: 254), so a
 * 4 MiB read is cut into several requests of a few hundred KiB; a 2 MiB huge page is one
 * segment, and the read goes out whole. On the development VM (docs/performance.md) two cold
 * 1 GiB files read this way take 1,200 device requests, fio's reads of them 2,000-5,500. */
#include "util/iobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int iobuf_alloc(size_t len, void **buf)
{
	void *p = NULL;
	int rc = posix_memalign(&p, IOBUF_ALIGN, len);
	if (rc != 0)
		return -rc;
	/* Advice: EINVAL means a kernel built without transparent huge pages, where 4 KiB
	 * pages are all there is. */
	if (madvise(p, len, MADV_HUGEPAGE) != 0 && errno != EINVAL) {
		rc = -errno;
		free(p);
		return rc;
	}
	memset(p, 0, len);
	*buf = p;
	return 0;
}
