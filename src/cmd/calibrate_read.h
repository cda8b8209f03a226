/* calibrate_read: the uncached sequential read that calibrate's disk figure and its read
 * through the file system both time: O_DIRECT, or buffered after POSIX_FADV_DONTNEED where the
 * file system refuses O_DIRECT, in whole-block calls of the study's largest transfer size, so
 * that a figure is what the study's own requests could get, neither page cache nor read-ahead
 * in it. */
#ifndef PFSREAD_CALIBRATE_READ_H
#define PFSREAD_CALIBRATE_READ_H

#include <stdint.h>

#include "config/config.h"

#define CALRD_CHUNK (4u << 20) /* bytes per write call of a temporary file */

/* The bytes of each read call: the config's largest transfer size, rounded up to whole 4 KiB
 * blocks (O_DIRECT takes nothing else). */
uint64_t calrd_transfer(const struct experiment *x);

/* Open path for a read the page cache does not serve; *direct 1 for O_DIRECT, 0 for buffered
 * with the file dropped from the cache. Returns the descriptor, or -1 with errno set. */
int calrd_open(const char *path, int *direct);

/* Read len bytes of fd from offset 0 into buf in calls of transfer bytes (buf: room for one,
 * aligned for O_DIRECT); returns the bytes read (less at the file's end), -EINTR when a stop
 * signal came, or -errno. */
int64_t calrd_all(int fd, void *buf, uint64_t len, uint64_t transfer);

#endif
