/* mmcopy: copy files through the page cache the way a read path does, timing each step: an
 * experiment for tests/box/mmapgap.sh, not part of pfsread. usage: mmcopy MODE CHUNK
 * FILE...; MODE mmap (copy CHUNK bytes at a time out of a mapping of the whole file), populate
 * (the same with MAP_POPULATE) or read (a pread loop). Prints MB/s and the seconds in open+map,
 * copy, unmap and close. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	const char *mode = argv[1];
	size_t chunk = strtoull(argv[2], NULL, 0);
	char *buf = aligned_alloc(4096, 64 << 20);
	double t_map = 0, t_copy = 0, t_unmap = 0, t_close = 0, t0 = now();
	unsigned long long bytes = 0;
	if (buf == NULL)
		return 1;
	for (int i = 3; i < argc; i++) {
		double a = now();
		int fd = open(argv[i], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		size_t n = (size_t)st.st_size;
		char *m = NULL;
		if (strcmp(mode, "read") != 0) {
			int pop = strcmp(mode, "populate") == 0 ? MAP_POPULATE : 0;
			m = mmap(NULL, n, PROT_READ, MAP_SHARED | pop, fd, 0);
			if (m == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
		}
		double b = now();
		for (size_t off = 0; off < n;) {
			size_t k = n - off < chunk ? n - off : chunk;
			if (m != NULL) {
				memcpy(buf, m + off, k);
			} else {
				ssize_t r = pread(fd, buf, k, (off_t)off);
				if (r <= 0) {
					perror("pread");
					return 1;
				}
				k = (size_t)r;
			}
			off += k;
			bytes += k;
		}
		double c = now();
		if (m != NULL && munmap(m, n) != 0)
			return 1;
		double d = now();
		if (close(fd) != 0)
			return 1;
		double e = now();
		t_map += b - a;
		t_copy += c - b;
		t_unmap += d - c;
		t_close += e - d;
	}
	double all = now() - t0;
	printf("%s chunk %zu: %llu B in %.3f s = %.1f MB/s; "
	       "open+map %.3f copy %.3f unmap %.3f close %.3f\n",
	       mode, chunk, bytes, all, bytes / all / 1e6, t_map, t_copy, t_unmap, t_close);
	return 0;
}
