// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* signing (internal) - the one digest of a signed binary (digest.h) */
#include <errno.h>

#include "digest.h"
#include "elf-layout.h"

int signed_digest_init(struct signed_digest *d, uint64_t skip_off, uint64_t skip_len)
{
	*d = (struct signed_digest){ .skip_off = skip_off, .skip_len = skip_len };
	d->md = EVP_MD_CTX_new();
	if (!d->md || !EVP_DigestInit_ex(d->md, EVP_sha256(), NULL)) {
		signed_digest_release(d);
		return -ENOMEM;
	}
	return 0;
}

int signed_digest_update(struct signed_digest *d, uint64_t off, const uint8_t *p, size_t len)
{
	uint64_t skip_end = d->skip_off + d->skip_len;

	if (!overlaps(off, len, d->skip_off, d->skip_len))
		return EVP_DigestUpdate(d->md, p, len) ? 0 : -ENOMEM;
	/* The part before the signature, and the part after it. */
	if (d->skip_off > off && !EVP_DigestUpdate(d->md, p, d->skip_off - off))
		return -ENOMEM;
	if (skip_end < off + len &&
	    !EVP_DigestUpdate(d->md, p + (skip_end - off), off + len - skip_end))
		return -ENOMEM;
	return 0;
}

int signed_digest_final(struct signed_digest *d, uint8_t ret[SIGNED_DIGEST_LEN])
{
	unsigned int len = 0;

	if (!EVP_DigestFinal_ex(d->md, ret, &len) || len != SIGNED_DIGEST_LEN)
		return -ENOMEM;
	return 0;
}

void signed_digest_release(struct signed_digest *d)
{
	EVP_MD_CTX_free(d->md);
	*d = (struct signed_digest){};
}
