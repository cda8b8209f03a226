/* digest: xxh64 from libxxhash, sha1 from OpenSSL's EVP interface, one interface for both.
 * Nothing here is hand-written hashing: the libraries are the well-kept implementations. */
#include "util/digest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <xxhash.h>

static const char *const digest_names[DIGEST_KINDS] = {"none", "xxh64", "sha1"};
static const size_t digest_hex_lens[DIGEST_KINDS] = {0, 16, 40};

const char *digest_name(enum digest_kind k)
{
	return (unsigned)k < DIGEST_KINDS ? digest_names[k] : "unknown";
}

size_t digest_hex_len(enum digest_kind k)
{
	return (unsigned)k < DIGEST_KINDS ? digest_hex_lens[k] : 0;
}

int digest_from_name(const char *name)
{
	for (int i = 0; i < DIGEST_KINDS; i++)
		if (strcmp(name, digest_names[i]) == 0)
			return i;
	return -1;
}

int digest_open(struct digest *d, enum digest_kind k)
{
	memset(d, 0, sizeof *d);
	d->kind = k;
	if (k == DIGEST_XXH64)
		d->ctx = XXH64_createState();
	else if (k == DIGEST_SHA1)
		d->ctx = EVP_MD_CTX_new();
	return k == DIGEST_NONE || d->ctx != NULL ? 0 : -ENOMEM;
}

void digest_close(struct digest *d)
{
	if (d == NULL || d->ctx == NULL)
		return;
	if (d->kind == DIGEST_XXH64)
		XXH64_freeState(d->ctx);
	else if (d->kind == DIGEST_SHA1)
		EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
}

int digest_init(struct digest *d)
{
	d->failed = 0;
	if (d->kind == DIGEST_XXH64)
		d->failed = XXH64_reset(d->ctx, 0) != XXH_OK;
	else if (d->kind == DIGEST_SHA1)
		d->failed = EVP_DigestInit_ex(d->ctx, EVP_sha1(), NULL) != 1;
	return d->failed ? -EIO : 0;
}

void digest_update(struct digest *d, const void *buf, size_t len)
{
	if (d->kind == DIGEST_XXH64)
		d->failed |= XXH64_update(d->ctx, buf, len) != XXH_OK;
	else if (d->kind == DIGEST_SHA1)
		d->failed |= EVP_DigestUpdate(d->ctx, buf, len) != 1;
}

int digest_final_hex(struct digest *d, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	hex[0] = '\0';
	if (d->kind == DIGEST_XXH64) {
		snprintf(hex, DIGEST_HEX_MAX, "%016" PRIx64, (uint64_t)XXH64_digest(d->ctx));
	} else if (d->kind == DIGEST_SHA1) {
		if (EVP_DigestFinal_ex(d->ctx, md, &n) != 1 || 2 * (size_t)n >= DIGEST_HEX_MAX)
			return -EIO;
		for (unsigned int i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
	}
	return d->failed ? -EIO : 0;
}

int digest_buffer_hex(enum digest_kind k, const void *buf, size_t len, char *hex)
{
	struct digest d;
	int rc = digest_open(&d, k);
	if (rc == 0)
		rc = digest_init(&d);
	if (rc == 0) {
		digest_update(&d, buf, len);
		rc = digest_final_hex(&d, hex);
	}
	digest_close(&d);
	return rc;
}
