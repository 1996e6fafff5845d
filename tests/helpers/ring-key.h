/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella tests - a public key put into a key ring directory, as "umbrella-cli key add"
 * names it (KEYID.pem: signing/keyring.c takes no other name). Header-only; the test
 * links the verifier (key_id_of(), key_id_to_hex()) and OpenSSL.
 */
#ifndef UMBRELLA_TESTS_RING_KEY_H
#define UMBRELLA_TESTS_RING_KEY_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include <openssl/pem.h>

#include "keyring.h"

/* Writes @k's public key into the ring directory @ring. Returns 0 or -errno. */
static inline int ring_add_public_key(const char *ring, EVP_PKEY *k)
{
	uint8_t id[UMB_KEY_ID_LEN];
	char hex[KEY_ID_HEX_LEN + 1], p[PATH_MAX];
	FILE *f;
	int ok;

	if (key_id_of(k, id) < 0)
		return -EINVAL;
	key_id_to_hex(id, hex);
	if (snprintf(p, sizeof(p), "%s/%s.pem", ring, hex) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	f = fopen(p, "we");
	if (!f)
		return -errno;
	ok = PEM_write_PUBKEY(f, k);
	fclose(f);
	return ok ? 0 : -EIO;
}

#endif /* UMBRELLA_TESTS_RING_KEY_H */
