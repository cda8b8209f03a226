/* digest: a content digest of a stream of blocks, xxh64 (libxxhash) or sha1 (OpenSSL's
 * libcrypto), behind one init/update/final interface. Used by generate (the digest list
 * beside the manifest) and by read-and-process phases (each file checked against it). */
#ifndef PFSREAD_DIGEST_H
#define PFSREAD_DIGEST_H

#include <stddef.h>

enum digest_kind { DIGEST_NONE, DIGEST_XXH64, DIGEST_SHA1 };

#define DIGEST_KINDS 3       /* enum digest_kind's values */
#define DIGEST_HEX_MAX 41    /* the longest hex digest (sha1: 40) and its NUL */

/* One digest in progress. The caller owns the struct; digest_open allocates the library's
 * state once, digest_close releases it. xxh64's init/update/final then allocate nothing;
 * OpenSSL 3's EVP still makes its provider context anew in each sha1 init (two small mallocs
 * per message, measured; fetching the EVP_MD once saves one but needs OpenSSL 3, and clusters
 * still ship 1.1). */
struct digest {
	enum digest_kind kind;
	void *ctx;   /* XXH64_state_t or EVP_MD_CTX */
	int failed;  /* an update failed: final reports it */
};

/* The kind's name ("none", "xxh64", "sha1") and its hex length (0, 16, 40). */
const char *digest_name(enum digest_kind k);
size_t digest_hex_len(enum digest_kind k);

/* The kind called name; -1 when there is none. */
int digest_from_name(const char *name);

/* Returns 0 or -ENOMEM. DIGEST_NONE allocates nothing and digests nothing. */
int digest_open(struct digest *d, enum digest_kind k);
/* Release d's state; NULL, or a d already closed, is accepted. */
void digest_close(struct digest *d);

/* Start a new message. Returns 0 or -EIO. */
int digest_init(struct digest *d);
void digest_update(struct digest *d, const void *buf, size_t len);

/* The message's digest as lower-case hex into hex (at least DIGEST_HEX_MAX bytes).
 * Returns 0 or -EIO. */
int digest_final_hex(struct digest *d, char *hex);

/* One-shot: the digest of buf, for tests and small callers. Returns 0 or -errno. */
int digest_buffer_hex(enum digest_kind k, const void *buf, size_t len, char *hex);

#endif
