// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * signing (internal) - the verdict on a file's signature against the key ring
 * (keyring_verify(), keyring.h): the algorithm, the revocation list, the key, and the
 * Ed25519 signature over the file's digest (digest.h) as the reader computed it.
 */
#include <stdbool.h>
#include <string.h>

#include <openssl/evp.h>
#include <umbrella/bpf-abi.h>

#include "keyring.h"
#include "signed-elf.h"

int keyring_verify(const struct keyring *k, const struct signed_elf *e, const char **ret_reason)
{
	const struct umb_signature *sig = &e->signature;
	EVP_PKEY *pkey;
	EVP_MD_CTX *md;
	bool no_memory;
	int ok;

	if (!e->is_elf || !e->has_signature) {
		*ret_reason = "no signature";
		return UMB_VERDICT_UNSIGNED;
	}
	if (sig->algorithm != UMB_SIG_ED25519_SHA256) {
		*ret_reason = "unknown algorithm";
		return UMB_VERDICT_REFUSED;
	}
	/* Revocation first: a revoked key is refused even while its file is still there,
	 * and any key while the list cannot be read. */
	if (!keyring_revocations_known(k)) {
		*ret_reason = "revocation list unreadable";
		return UMB_VERDICT_REFUSED;
	}
	if (keyring_is_revoked(k, sig->key_id)) {
		*ret_reason = "revoked key";
		return UMB_VERDICT_REFUSED;
	}
	pkey = keyring_public_key(k, sig->key_id);
	if (!pkey) {
		*ret_reason = "unknown key";
		return UMB_VERDICT_REFUSED;
	}
	md = EVP_MD_CTX_new();
	/* Ed25519 is "pure": no digest of its own (NULL md); it signs our 32-byte digest. */
	ok = md && EVP_DigestVerifyInit(md, NULL, NULL, NULL, pkey) == 1 &&
	     EVP_DigestVerify(md, sig->signature, sizeof(sig->signature), e->digest,
			      sizeof(e->digest)) == 1;
	no_memory = !md;
	EVP_MD_CTX_free(md);
	if (!ok) {
		*ret_reason = no_memory ? "out of memory" : "signature does not match";
		return UMB_VERDICT_REFUSED;
	}
	*ret_reason = "valid signature";
	return UMB_VERDICT_SIGNED;
}

bool keyring_signer_unknown(const struct keyring *k, const struct signed_elf *e)
{
	const __u8 *id = e->signature.key_id;

	return e->is_elf && e->has_signature && e->signature.algorithm == UMB_SIG_ED25519_SHA256 &&
	       keyring_revocations_known(k) && !keyring_is_revoked(k, id) &&
	       !keyring_has_key(k, id);
}
