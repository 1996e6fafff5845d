/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal) - the one digest of a signed binary (include/umbrella/signed-elf-format.h):
 * SHA-256 over the whole file except the signature section's content, the bytes
 * [0, skip_off) followed by [skip_off + skip_len, end of file). The reader feeds it the
 * file a chunk at a time, the signer the image it is about to write: both through
 * signed_digest_update(), so that what is signed and what is verified are defined once.
 */
#ifndef UMBRELLA_SIGNING_DIGEST_H
#define UMBRELLA_SIGNING_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define SIGNED_DIGEST_LEN 32

struct signed_digest {
	EVP_MD_CTX *md;
	uint64_t skip_off, skip_len; /* the signature's bytes: not hashed */
};

/* signed_digest_init() - start a digest that leaves out [@skip_off, @skip_off +
 * @skip_len) (@skip_len 0: nothing). Return: 0 or -ENOMEM. */
int signed_digest_init(struct signed_digest *d, uint64_t skip_off, uint64_t skip_len);

/* signed_digest_update() - hash the file's bytes [@off, @off + @len), @p, without the
 * part in the skipped range. Calls give the file in order. Return: 0 or -ENOMEM. */
int signed_digest_update(struct signed_digest *d, uint64_t off, const uint8_t *p, size_t len);

/* signed_digest_final() - the digest, in @ret. Return: 0 or -ENOMEM. */
int signed_digest_final(struct signed_digest *d, uint8_t ret[SIGNED_DIGEST_LEN]);

/* signed_digest_release() - free what signed_digest_init() allocated (zeroed @d too) */
void signed_digest_release(struct signed_digest *d);

#endif /* UMBRELLA_SIGNING_DIGEST_H */
