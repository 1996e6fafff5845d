/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal, static: umbrellad and umbrella-cli) - the key ring: a directory
 * (default /etc/umbrella/keys) of Ed25519 public keys in PEM, one per file named
 * KEYID.pem (KEYID: 64 lowercase hex digits, SHA-256 of the raw public key), and the
 * revocation list "revoked" in it: one KEYID per line ('#' starts a comment).
 */
#ifndef UMBRELLA_KEYRING_H
#define UMBRELLA_KEYRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <umbrella/bpf-abi.h> /* UMB_VERDICT_* */
#include <umbrella/signed-elf-format.h>

#include "signed-elf.h"

#define KEYRING_DIR_DEFAULT  "/etc/umbrella/keys"
#define KEYRING_REVOKED_FILE "revoked"
#define KEY_ID_HEX_LEN	     (2 * UMB_KEY_ID_LEN)
#define KEY_FILE_MAX	     (64 * 1024) /* a key file larger than this is rejected */

struct keyring;

/*
 * keyring_load() - read every key and the revocation list of @dir
 * A missing directory is an empty ring. A file that is not an Ed25519 public key, or
 * whose name is not its key id, is rejected: its key is not trusted, and the file is
 * listed by keyring_rejected() (the caller reports it: it must not go unnoticed). A
 * revocation list (or directory) that cannot be read, or with a malformed line, is
 * rejected too, and then no key is trusted (keyring_revocations_known()).
 * Return: 0, or -ENOMEM with *@ret_error set (malloc'd).
 */
int keyring_load(const char *dir, struct keyring **ret, char **ret_error);

/* What keyring_load() rejected: "DIR/NAME: why ...", one per file (or line of the
 * revocation list). NULL past the end. */
size_t keyring_rejected_count(const struct keyring *k);
const char *keyring_rejected(const struct keyring *k, size_t i);

/* Whether the revocation list could be read; if not, keyring_verify() trusts no key. */
bool keyring_revocations_known(const struct keyring *k);

void keyring_free(struct keyring *k);

/*
 * keyring_verify() - the verdict on a file as signed_elf_read() found it (verify.c)
 * @ret_reason: set to a static string saying why (for the journal and the CLI):
 *              "valid signature", "no signature", "unknown key", "revoked key",
 *              "signature does not match", "unknown algorithm",
 *              "revocation list unreadable", ...
 * Return: UMB_VERDICT_UNSIGNED (no signature section, or not ELF), UMB_VERDICT_SIGNED,
 *         or UMB_VERDICT_REFUSED.
 */
int keyring_verify(const struct keyring *k, const struct signed_elf *e, const char **ret_reason);

/*
 * keyring_signer_unknown() - whether keyring_verify() refused @e only because its key is
 * not in @k: a well-formed signature section of a known algorithm by a key neither in
 * the ring nor revoked, while the revocation list is known. Such a file may run as
 * unsigned with its restrictions where unsigned files run (umbrella.conf(5)); a broken
 * signature by a key of the ring, a revoked key or a malformed section never does.
 */
bool keyring_signer_unknown(const struct keyring *k, const struct signed_elf *e);

/* key_id_of() - the key id of an Ed25519 public (or private) key. Return: 0 or -EINVAL. */
int key_id_of(EVP_PKEY *key, uint8_t ret_id[UMB_KEY_ID_LEN]);

/* key_id_to_hex() - @id as 64 lowercase hex digits and a NUL */
void key_id_to_hex(const uint8_t id[UMB_KEY_ID_LEN], char ret_hex[KEY_ID_HEX_LEN + 1]);

/* key_id_from_hex() - parse @len characters of @hex (64 hex digits, either case).
 * Return: 0 or -EINVAL. */
int key_id_from_hex(const char *hex, size_t len, uint8_t ret_id[UMB_KEY_ID_LEN]);

/* key_public_from_pem() - the Ed25519 public key in the PEM text @pem of @len bytes, or
 * NULL (not PEM, or another kind of key). Free with EVP_PKEY_free(). */
EVP_PKEY *key_public_from_pem(const char *pem, size_t len);

/* The keys of a loaded ring, in directory order, and its revocation list (for listing). */
size_t keyring_count(const struct keyring *k);
const uint8_t *keyring_key_id(const struct keyring *k, size_t i); /* NULL past the end */
bool keyring_has_key(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN]);
/* The key of the ring whose id is @id (owned by the ring), or NULL. */
EVP_PKEY *keyring_public_key(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN]);
bool keyring_is_revoked(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN]);
/* The ids of the revocation list, in its order (NULL past the end). */
size_t keyring_revoked_count(const struct keyring *k);
const uint8_t *keyring_revoked_id(const struct keyring *k, size_t i);

/*
 * keyring_read_file() - the regular file @name in @dirfd (AT_FDCWD: @name is a path), at
 * most @max bytes, NUL-terminated, in *@ret (malloc'd), its length in *@ret_len (may be
 * NULL). @flags are more open(2) flags (O_NOFOLLOW). Return: 0, -EFBIG (larger than
 * @max), -ENOMEM, or -errno.
 */
int keyring_read_file(int dirfd, const char *name, size_t max, int flags, char **ret,
		      size_t *ret_len);

#endif /* UMBRELLA_KEYRING_H */
