/* test_digest: xxh64 and sha1 against published vectors, streaming equals one-shot. */
#include <string.h>

#include "util/digest.h"
#include "tap.h"

static void test_vectors(void)
{
	char hex[DIGEST_HEX_MAX];
	ok(digest_buffer_hex(DIGEST_SHA1, "abc", 3, hex) == 0 &&
		   strcmp(hex, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0,
	   "sha1(\"abc\") = %s", hex);
	ok(digest_buffer_hex(DIGEST_SHA1, "", 0, hex) == 0 &&
		   strcmp(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709") == 0,
	   "sha1(\"\") = %s", hex);
	ok(digest_buffer_hex(DIGEST_XXH64, "", 0, hex) == 0 && strcmp(hex, "ef46db3751d8e999") == 0,
	   "xxh64(\"\", seed 0) = %s", hex);
	ok(digest_buffer_hex(DIGEST_XXH64, "abc", 3, hex) == 0 &&
		   strcmp(hex, "44bc2cf5ad770999") == 0,
	   "xxh64(\"abc\", seed 0) = %s", hex);
	ok(digest_buffer_hex(DIGEST_NONE, "abc", 3, hex) == 0 && hex[0] == '\0',
	   "none digests nothing");
}

/* Fed in pieces, reused for a second message: the same as one-shot. */
static void test_streaming(void)
{
	static const enum digest_kind kinds[] = {DIGEST_XXH64, DIGEST_SHA1};
	char text[1000];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (char)(i * 7 + 3);
	for (size_t k = 0; k < 2; k++) {
		char whole[DIGEST_HEX_MAX], parts[DIGEST_HEX_MAX], again[DIGEST_HEX_MAX];
		struct digest d;
		digest_buffer_hex(kinds[k], text, sizeof text, whole);
		int rc = digest_open(&d, kinds[k]);
		rc |= digest_init(&d);
		digest_update(&d, text, 1);
		digest_update(&d, text + 1, 500);
		digest_update(&d, text + 501, sizeof text - 501);
		rc |= digest_final_hex(&d, parts);
		rc |= digest_init(&d);
		digest_update(&d, text, sizeof text);
		rc |= digest_final_hex(&d, again);
		digest_close(&d);
		ok(rc == 0 && strcmp(whole, parts) == 0 && strcmp(whole, again) == 0 &&
			   strlen(whole) == digest_hex_len(kinds[k]),
		   "%s: in pieces and reused = one-shot (%s)", digest_name(kinds[k]), whole);
	}
}

static void test_names(void)
{
	ok(digest_from_name("xxh64") == DIGEST_XXH64 && digest_from_name("sha1") == DIGEST_SHA1 &&
		   digest_from_name("none") == DIGEST_NONE && digest_from_name("md5") == -1,
	   "names round-trip; md5 unknown");
	ok(digest_hex_len(DIGEST_XXH64) == 16 && digest_hex_len(DIGEST_SHA1) == 40,
	   "hex lengths 16 and 40");
}

int main(void)
{
	test_vectors();
	test_streaming();
	test_names();
	return tap_done();
}
