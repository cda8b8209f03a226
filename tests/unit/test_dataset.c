/* test_dataset: file naming, the content pattern (and that corruption is caught), manifests. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset/dataset.h"
#include "tap.h"

static void test_paths(void)
{
	struct experiment x;
	struct cfg_dataset d = {.name = "2MiB", .file_size = 2, .nfiles = 2500};
	char buf[256];
	memset(&x, 0, sizeof x);
	strcpy(x.root, "/data");
	x.files_per_dir = 1000;
	d.layout.files_per_dir = 1000;
	dataset_file_path(&x, &d, 1234, buf, sizeof buf);
	ok(strcmp(buf, "/data/2MiB/d000001/f0000001234") == 0, "file path: %s", buf);
	ok(dataset_ndirs(&x, &d) == 3, "2500 files, 1000 per directory: 3 directories");
	ok(dataset_file_path(&x, &d, 1, buf, 10) != 0, "a path that does not fit is refused");
	dataset_file_path(&x, &d, 999, buf, sizeof buf);
	char other[256];
	dataset_file_path(&x, &d, 1000, other, sizeof other);
	ok(strcmp(buf, other) < 0, "sorted names follow file indices across directories");
}

/* The hand-built paths against printf's, for indices of every width, with room and without. */
static void test_paths_as_printf(void)
{
	const uint64_t files[] = {0, 7, 999, 1000, 123456789, 9999999999ULL, 10000000000ULL,
				  UINT64_MAX};
	const uint64_t per_dir[] = {1, 1000, 3};
	struct experiment x;
	struct cfg_dataset d = {.name = "set", .file_size = 2, .nfiles = UINT64_MAX};
	char got[256], want[256];
	int same = 1, fits = 1;
	memset(&x, 0, sizeof x);
	strcpy(x.root, "/r/oot");
	for (int flat = 0; flat < 2; flat++)
		for (size_t k = 0; k < sizeof per_dir / sizeof *per_dir; k++)
			for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
				d.layout.kind = flat ? CFG_LAYOUT_FLAT : CFG_LAYOUT_INDEXED;
				d.layout.files_per_dir = per_dir[k];
				uint64_t f = files[i];
				int n = flat ? snprintf(want, sizeof want, "/r/oot/set/f%010llu",
							(unsigned long long)f)
					     : snprintf(want, sizeof want, "/r/oot/set/d%06llu/f%010llu",
							(unsigned long long)(f / per_dir[k]),
							(unsigned long long)f);
				if (dataset_file_path(&x, &d, f, got, sizeof got) != 0 ||
				    strcmp(got, want) != 0) {
					same = 0;
					diag("file %llu: %s, printf says %s", (unsigned long long)f, got, want);
				}
				/* exactly the room it needs, and one byte less */
				if (dataset_file_path(&x, &d, f, got, (size_t)n + 1) != 0 ||
				    strcmp(got, want) != 0 ||
				    dataset_file_path(&x, &d, f, got, (size_t)n) == 0)
					fits = 0;
			}
	ok(same, "flat and indexed paths are printf's for indices of 1 to 20 digits");
	ok(fits, "a path is built in exactly its room and refused in one byte less");
}

static void test_layouts(void)
{
	struct experiment x;
	struct cfg_dataset d = {.name = "c", .file_size = 2, .nfiles = 10};
	char buf[256];
	const char *hex = "a4d5832f00112233445566778899aabbccddeeff";
	memset(&x, 0, sizeof x);
	strcpy(x.root, "/r");
	d.layout.kind = CFG_LAYOUT_FLAT;
	ok(dataset_file_path(&x, &d, 7, buf, sizeof buf) == 0 && strcmp(buf, "/r/c/f0000000007") == 0,
	   "flat: %s", buf);
	ok(dataset_ndirs(&x, &d) == 0, "flat: no subdirectories");
	d.layout = (struct cfg_layout){.kind = CFG_LAYOUT_HASHED, .depth = 3, .width = 2,
				       .digest = DIGEST_SHA1};
	ok(dataset_file_path(&x, &d, 7, buf, sizeof buf) != 0, "hashed: no path from the index alone");
	ok(dataset_hashed_path(&x, &d, hex, buf, sizeof buf) == 0 &&
		   strcmp(buf, "/r/c/a4/d5/83/a4d5832f00112233445566778899aabbccddeeff") == 0,
	   "hashed 3x2: %s", buf);
	d.layout.depth = 2;
	d.layout.width = 4;
	ok(dataset_path(&x, &d, 7, hex, buf, sizeof buf) == 0 &&
		   strcmp(buf, "/r/c/a4d5/832f/a4d5832f00112233445566778899aabbccddeeff") == 0,
	   "hashed 2x4: %s", buf);
	d.layout.depth = 0;
	ok(dataset_hashed_path(&x, &d, hex, buf, sizeof buf) == 0 &&
		   strcmp(buf, "/r/c/a4d5832f00112233445566778899aabbccddeeff") == 0,
	   "hashed depth 0: %s", buf);
	ok(dataset_hashed_path(&x, &d, hex, buf, 20) != 0, "a hashed path that does not fit is refused");
	ok(dataset_names_path(&x, &d, buf, sizeof buf) == 0 &&
		   strcmp(buf, "/r/c/.pfsread-digests-sha1") == 0, "the name list is the sha1 list: %s",
	   buf);

	char dir[] = "/tmp/pfsread-test-XXXXXX", path[512], got[DIGEST_HEX_MAX];
	if (mkdtemp(dir) == NULL)
		return;
	snprintf(path, sizeof path, "%s/list", dir);
	FILE *f = fopen(path, "w");
	fputs("0123456789abcdef\n", f);
	fputc('\0', f);
	for (int i = 0; i < 16; i++)
		fputc('\0', f);
	fputs("fedcba9876543210\n", f);
	fclose(f);
	int fd = open(path, O_RDONLY);
	ok(dataset_read_line(fd, DIGEST_XXH64, 0, got) == 0 && strcmp(got, "0123456789abcdef") == 0,
	   "a whole line is read");
	ok(dataset_read_line(fd, DIGEST_XXH64, 1, got) == 1, "a line of zeros is not written yet");
	ok(dataset_read_line(fd, DIGEST_XXH64, 2, got) == 0 && strcmp(got, "fedcba9876543210") == 0,
	   "the line after it is");
	ok(dataset_read_line(fd, DIGEST_XXH64, 3, got) == 1, "past the end: not written yet");
	close(fd);
	unlink(path);

	struct manifest m = {.pattern_version = 2, .name = "c", .file_size = 2, .nfiles = 10,
			     .layout = CFG_LAYOUT_HASHED, .depth = 3, .width = 2,
			     .name_digest = DIGEST_SHA1, .complete = 1}, r;
	struct pf_err e = {0};
	ok(manifest_write(dir, &m, &e) == 0 && manifest_read(dir, &r, &e) == 0 &&
		   manifest_same_files(&m, &r) && r.layout == CFG_LAYOUT_HASHED && r.depth == 3 &&
		   r.width == 2 && r.name_digest == DIGEST_SHA1,
	   "a hashed layout is recorded in the manifest and read back");
	r.width = 3;
	ok(!manifest_same_files(&m, &r), "another width is another data set");
	r = m;
	r.layout = CFG_LAYOUT_FLAT;
	ok(!manifest_same_files(&m, &r), "another layout kind is another data set");
	snprintf(path, sizeof path, "%s/%s", dir, DATASET_MANIFEST);
	unlink(path);
	rmdir(dir);
}

static void test_pattern(void)
{
	struct cfg_dataset a = {.name = "a"}, b = {.name = "b"};
	static struct dataset_content ka, kb;
	dataset_content_init(&ka, &a);
	dataset_content_init(&kb, &b);
	unsigned char whole[4096], part[100], other[100];
	dataset_fill(&ka, 3, 0, whole, sizeof whole);
	dataset_fill(&ka, 3, 1001, part, sizeof part);
	ok(memcmp(whole + 1001, part, sizeof part) == 0, "content at an unaligned offset matches");
	ok(dataset_check(&ka, 3, 0, whole, sizeof whole, NULL) == -1, "intact block passes");
	ok(dataset_check(&ka, 3, 1001, part, sizeof part, NULL) == -1, "intact unaligned block passes");
	dataset_fill(&ka, 4, 1001, other, sizeof other);
	ok(memcmp(part, other, sizeof part) != 0, "another file has other content");
	dataset_fill(&kb, 3, 1001, other, sizeof other);
	ok(memcmp(part, other, sizeof part) != 0, "another data set has other content");
	srand(12345);
	int caught = 0;
	for (int i = 0; i < 200; i++) {
		size_t at = (size_t)rand() % sizeof whole;
		unsigned char expected = 0, was = whole[at];
		whole[at] ^= (unsigned char)(1u << (rand() % 8));
		caught += dataset_check(&ka, 3, 0, whole, sizeof whole, &expected) == (int64_t)at &&
			  expected == was;
		whole[at] = was;
	}
	ok(caught == 200, "a flipped bit at a random offset is caught at that offset (%d/200)", caught);
}

/* The content is part of every data set already on disk: a change to how it is made would
 * make verify fail them all. These bytes are file 3 of data set "a" as generate wrote it. */
static void test_pattern_pinned(void)
{
	struct cfg_dataset a = {.name = "a"};
	static struct dataset_content c;
	static unsigned char buf[3 * 4096];
	static const unsigned char head[16] = {0x69, 0x55, 0x6a, 0xaf, 0xa7, 0xcc, 0x67, 0xf2,
					       0xe4, 0xb9, 0x89, 0x4b, 0x27, 0x9e, 0xaf, 0xb5};
	static const unsigned char seam[10] = {0x70, 0xbf, 0xf3, 0x9b, 0xcd, 0x54,
					       0xc6, 0x4d, 0x4c, 0x33};
	dataset_content_init(&c, &a);
	dataset_fill(&c, 3, 0, buf, sizeof buf);
	ok(memcmp(buf, head, sizeof head) == 0, "a file's first bytes are those generate wrote");
	ok(memcmp(buf + 8190, seam, sizeof seam) == 0, "so are those across a 4 KiB block's end");
}

static void test_manifest(void)
{
	char dir[] = "/tmp/pfsread-test-XXXXXX";
	struct manifest m = {.pattern_version = 1, .name = "x", .file_size = 7, .nfiles = 9,
			     .files_per_dir = 4, .complete = 1},
			r;
	struct pf_err e = {0};
	if (mkdtemp(dir) == NULL)
		return;
	ok(manifest_read(dir, &r, &e) == 1, "no manifest: 1");
	ok(manifest_write(dir, &m, &e) == 0, "manifest written");
	ok(manifest_read(dir, &r, &e) == 0 && manifest_same_files(&m, &r) && r.complete == 1,
	   "manifest read back the same");
	m.digests = 1u << DIGEST_XXH64 | 1u << DIGEST_SHA1;
	ok(manifest_write(dir, &m, &e) == 0 && manifest_read(dir, &r, &e) == 0 &&
		   r.digests == m.digests && manifest_same_files(&m, &r),
	   "the digest kinds are read back, and do not make another data set");
	r.file_size = 8;
	ok(!manifest_same_files(&m, &r), "a different file size is another data set");
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, DATASET_MANIFEST);
	FILE *f = fopen(path, "w");
	fputs("not a manifest\n", f);
	fclose(f);
	ok(manifest_read(dir, &r, &e) == -1 && strstr(e.msg, DATASET_MANIFEST) != NULL,
	   "a damaged manifest is named: %s", e.msg);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_paths();
	test_paths_as_printf();
	test_layouts();
	test_pattern();
	test_pattern_pinned();
	test_manifest();
	return tap_done();
}
