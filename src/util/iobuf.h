/* iobuf: the buffers reads land in and writes come from. */
#ifndef PFSREAD_IOBUF_H
#define PFSREAD_IOBUF_H

#include <stddef.h>

/* The alignment of every buffer: one transparent huge page. */
#define IOBUF_ALIGN ((size_t)2 << 20)

/* len bytes at *buf, aligned to IOBUF_ALIGN, asked to be backed by huge pages (where the
 * kernel has them) and touched, so no page fault lands in a timed region. free() releases
 * it. 0 or -errno. */
int iobuf_alloc(size_t len, void **buf);

#endif
