// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * signing (internal) - the key ring: Ed25519 public keys named by their id, and the
 * revocation list (keyring.h; the verdict on a signature against it: verify.c).
 *
 * Loading never fails because of one file: umbrellad must not stop gating execs (and
 * leave every signed binary to run without its restrictions) because someone copied a
 * stray file into the directory. It trusts the keys it can account for and rejects,
 * loudly (keyring_rejected()), everything else. Each way a file can be wrong leaves
 * less trusted, never more:
 *   - a file that is not KEYID.pem holding the key KEYID (another name, upper case, not
 *     PEM, another kind of key, unreadable): that file is not trusted; a key whose only
 *     file it was is unknown, and binaries signed with it are refused. A key is trusted
 *     only under its own name, so "key remove ID" always removes it;
 *   - a revocation list that cannot be read, or has a line that is not a key id: which
 *     keys it revokes is unknown, so no key is trusted (every signed binary refused)
 *     until it is fixed; a revocation is never lost to a typo.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <umbrella/umbrella.h>

#include "keyring.h"
#include "signing-error.h"

#define REVOKED_FILE_MAX (16 * 1024 * 1024)

struct ring_key {
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey;
};

struct keyring {
	struct ring_key *keys;
	size_t n_keys;
	uint8_t (*revoked)[UMB_KEY_ID_LEN];
	size_t n_revoked;
	bool revocations_unknown; /* the list could not be read: no key is trusted */
	char **rejected;	  /* "DIR/NAME: why", one per file not trusted */
	size_t n_rejected;
};

/* Records what the ring rejects and why. Return: 0 or -ENOMEM. */
__attribute__((format(printf, 2, 3))) static int reject(struct keyring *k, const char *fmt, ...)
{
	char *text, **more;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	more = realloc(k->rejected, (k->n_rejected + 1) * sizeof(*k->rejected));
	if (!more) {
		free(text);
		return -ENOMEM;
	}
	k->rejected = more;
	k->rejected[k->n_rejected++] = text;
	return 0;
}

int key_id_of(EVP_PKEY *key, uint8_t ret_id[UMB_KEY_ID_LEN])
{
	uint8_t raw[32];
	size_t len = sizeof(raw);
	unsigned int mdlen = 0;

	if (!key || EVP_PKEY_get_id(key) != EVP_PKEY_ED25519 ||
	    EVP_PKEY_get_raw_public_key(key, raw, &len) != 1 || len != sizeof(raw))
		return -EINVAL;
	if (!EVP_Digest(raw, len, ret_id, &mdlen, EVP_sha256(), NULL) || mdlen != UMB_KEY_ID_LEN)
		return -EINVAL;
	return 0;
}

void key_id_to_hex(const uint8_t id[UMB_KEY_ID_LEN], char ret_hex[KEY_ID_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < UMB_KEY_ID_LEN; i++) {
		ret_hex[2 * i] = digits[id[i] >> 4];
		ret_hex[2 * i + 1] = digits[id[i] & 15];
	}
	ret_hex[KEY_ID_HEX_LEN] = '\0';
}

int key_id_from_hex(const char *hex, size_t len, uint8_t ret_id[UMB_KEY_ID_LEN])
{
	if (len != KEY_ID_HEX_LEN)
		return -EINVAL;
	for (size_t i = 0; i < KEY_ID_HEX_LEN; i++) {
		char c = hex[i];
		int v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -EINVAL;
		if (i % 2 == 0)
			ret_id[i / 2] = (uint8_t)(v << 4);
		else
			ret_id[i / 2] |= (uint8_t)v;
	}
	return 0;
}

int keyring_read_file(int dirfd, const char *name, size_t max, int flags, char **ret,
		      size_t *ret_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	int fd, r = 0;

	if (!buf)
		return -ENOMEM;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *bigger;

			if (cap >= max) {
				r = -EFBIG;
				break;
			}
			cap *= 2;
			bigger = realloc(buf, cap + 1);
			if (!bigger) {
				r = -ENOMEM;
				break;
			}
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

EVP_PKEY *key_public_from_pem(const char *pem, size_t len)
{
	BIO *bio = BIO_new_mem_buf(pem, (int)len);
	EVP_PKEY *k;

	if (!bio)
		return NULL;
	k = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (k && EVP_PKEY_get_id(k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

/* Reads the revocation list, if there is one. Return: 0 or -ENOMEM. */
static int load_revoked(struct keyring *k, int dirfd, const char *dir)
{
	char *text = NULL, *line, *next, *nul;
	unsigned lineno = 0;
	size_t len;
	int r;

	r = keyring_read_file(dirfd, KEYRING_REVOKED_FILE, REVOKED_FILE_MAX, O_NOFOLLOW, &text,
			      &len);
	if (r == -ENOENT)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		k->revocations_unknown = true;
		return reject(k,
			      "%s/" KEYRING_REVOKED_FILE ": %s: no key is trusted until the "
			      "revocation list can be read",
			      dir, r == -EFBIG ? "larger than 16 MiB" : strerror(-r));
	}
	/* A NUL would end the text early: the ids after it would silently not be revoked
	 * (a crash can leave zeros in a file, and "key revoke" appends after them). */
	nul = memchr(text, '\0', len);
	if (nul) {
		unsigned nul_line = 1;

		for (const char *p = text; p < nul; p++)
			nul_line += *p == '\n';
		free(text);
		k->revocations_unknown = true;
		return reject(k,
			      "%s/" KEYRING_REVOKED_FILE ":%u: a NUL byte (not a text file?): no "
			      "key is trusted until the revocation list can be read",
			      dir, nul_line);
	}
	/* Every line, also after a bad one: each error is reported. */
	for (line = text; line; line = next) {
		char *hash, *end;
		void *more;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line += strspn(line, " \t\r");
		end = line + strlen(line);
		while (end > line && strchr(" \t\r", end[-1]))
			end--;
		if (end == line)
			continue;
		more = realloc(k->revoked, (k->n_revoked + 1) * sizeof(*k->revoked));
		if (!more) {
			free(text);
			return -ENOMEM;
		}
		k->revoked = more;
		if (key_id_from_hex(line, (size_t)(end - line), k->revoked[k->n_revoked]) < 0) {
			k->revocations_unknown = true;
			r = reject(k,
				   "%s/" KEYRING_REVOKED_FILE ":%u: not a key id (64 hex digits): "
				   "no key is trusted while the revocation list has an error",
				   dir, lineno);
			if (r < 0) {
				free(text);
				return r;
			}
			continue;
		}
		k->n_revoked++;
	}
	free(text);
	return 0;
}

/* Whether @name is KEYID.pem, KEYID 64 lowercase hex digits (as "key add" writes it),
 * with the id in @ret_id. */
static bool is_key_file_name(const char *name, uint8_t ret_id[UMB_KEY_ID_LEN])
{
	char hex[KEY_ID_HEX_LEN + 1];

	if (strlen(name) != KEY_ID_HEX_LEN + strlen(".pem") ||
	    strcmp(name + KEY_ID_HEX_LEN, ".pem") ||
	    key_id_from_hex(name, KEY_ID_HEX_LEN, ret_id) < 0)
		return false;
	key_id_to_hex(ret_id, hex);
	return !memcmp(name, hex, KEY_ID_HEX_LEN);
}

/* The file @name of the ring: its key trusted, or it rejected. Return: 0 or -ENOMEM. */
static int load_key(struct keyring *k, int dirfd, const char *dir, const char *name)
{
	uint8_t want[UMB_KEY_ID_LEN], id[UMB_KEY_ID_LEN];
	char hex[KEY_ID_HEX_LEN + 1];
	bool named = is_key_file_name(name, want);
	struct ring_key *more;
	EVP_PKEY *pkey;
	size_t len;
	char *pem;
	int r;

	r = keyring_read_file(dirfd, name, KEY_FILE_MAX, O_NOFOLLOW, &pem, &len);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return reject(k, "%s/%s: %s: not trusted", dir, name,
			      r == -EFBIG ? "larger than 64 KiB" : strerror(-r));
	pkey = key_public_from_pem(pem, len);
	free(pem);
	if (!pkey || key_id_of(pkey, id) < 0) {
		EVP_PKEY_free(pkey);
		return reject(k, "%s/%s: not an Ed25519 public key in PEM: not trusted", dir, name);
	}
	key_id_to_hex(id, hex);
	if (!named) {
		/* The usual mistake: a vendor's public key copied in under its own name. */
		EVP_PKEY_free(pkey);
		return reject(k,
			      "%s/%s: the Ed25519 public key %s, not trusted: a key's file "
			      "is KEYID.pem, KEYID in lowercase ('umbrella-cli key add FILE' "
			      "installs it so)",
			      dir, name, hex);
	}
	if (memcmp(id, want, sizeof(want))) {
		EVP_PKEY_free(pkey);
		return reject(k,
			      "%s/%s: holds the key %s, not the one its name says: not "
			      "trusted",
			      dir, name, hex);
	}
	more = realloc(k->keys, (k->n_keys + 1) * sizeof(*k->keys));
	if (!more) {
		EVP_PKEY_free(pkey);
		return -ENOMEM;
	}
	k->keys = more;
	k->keys[k->n_keys].pkey = pkey;
	memcpy(k->keys[k->n_keys].id, id, sizeof(id));
	k->n_keys++;
	return 0;
}

int keyring_load(const char *dir, struct keyring **ret, char **ret_error)
{
	struct keyring *k = calloc(1, sizeof(*k));
	struct dirent *de;
	DIR *d = NULL;
	int dirfd, r = 0;

	if (ret_error)
		*ret_error = NULL;
	if (!k)
		return signing_error(ret_error, -ENOMEM, "%s", strerror(ENOMEM));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 && errno == ENOENT) {
		*ret = k; /* no directory: an empty ring */
		return 0;
	}
	if (dirfd >= 0) {
		d = fdopendir(dirfd);
		if (!d) {
			r = -errno;
			close(dirfd);
		}
	} else {
		r = -errno;
	}
	if (!d) {
		/* Nothing in it is known: no key, and no revocation either. */
		k->revocations_unknown = true;
		r = reject(k, "%s: %s: no key is trusted", dir, strerror(-r));
		goto out;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		/* Hidden files: editors' and "key add"'s temporary files. */
		if (de->d_name[0] == '.' || !strcmp(de->d_name, KEYRING_REVOKED_FILE))
			continue;
		r = load_key(k, dirfd, dir, de->d_name);
		if (r < 0)
			goto out;
	}
	/* The files not read yet may hold keys: those are untrusted, which is safe. */
	if (errno)
		r = reject(k, "%s: %s: some of its keys may be missing", dir, strerror(errno));
	if (r == 0)
		r = load_revoked(k, dirfd, dir);
out:
	if (d)
		closedir(d);
	if (r < 0) {
		keyring_free(k);
		return signing_error(ret_error, r, "%s: %s", dir, strerror(-r));
	}
	*ret = k;
	return 0;
}

void keyring_free(struct keyring *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_keys; i++)
		EVP_PKEY_free(k->keys[i].pkey);
	free(k->keys);
	free(k->revoked);
	for (size_t i = 0; i < k->n_rejected; i++)
		free(k->rejected[i]);
	free(k->rejected);
	free(k);
}

size_t keyring_rejected_count(const struct keyring *k)
{
	return k->n_rejected;
}

const char *keyring_rejected(const struct keyring *k, size_t i)
{
	return i < k->n_rejected ? k->rejected[i] : NULL;
}

bool keyring_revocations_known(const struct keyring *k)
{
	return !k->revocations_unknown;
}

size_t keyring_count(const struct keyring *k)
{
	return k->n_keys;
}

const uint8_t *keyring_key_id(const struct keyring *k, size_t i)
{
	return i < k->n_keys ? k->keys[i].id : NULL;
}

size_t keyring_revoked_count(const struct keyring *k)
{
	return k->n_revoked;
}

const uint8_t *keyring_revoked_id(const struct keyring *k, size_t i)
{
	return i < k->n_revoked ? k->revoked[i] : NULL;
}

bool keyring_is_revoked(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN])
{
	for (size_t i = 0; i < k->n_revoked; i++)
		if (!memcmp(k->revoked[i], id, UMB_KEY_ID_LEN))
			return true;
	return false;
}

EVP_PKEY *keyring_public_key(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN])
{
	for (size_t i = 0; i < k->n_keys; i++)
		if (!memcmp(k->keys[i].id, id, UMB_KEY_ID_LEN))
			return k->keys[i].pkey;
	return NULL;
}

bool keyring_has_key(const struct keyring *k, const uint8_t id[UMB_KEY_ID_LEN])
{
	return keyring_public_key(k, id) != NULL;
}
