// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: one file of the key ring (signing/keyring.c), as keyring_load() reads
 * it from the ring's directory: the input as the key file of the fuzz key's id (PEM
 * that must hold that Ed25519 public key), and as the revocation list of a ring
 * without keys (OpenSSL's PEM decoder is the slow part: one decode per input). A bad
 * file is rejected, naming it; a file that is not rejected must hold what it says: the
 * key, and every key id the list names.
 */
#include <string.h>
#include <sys/stat.h>

#include "fuzz-key.h"
#include "fuzz.h"
#include "keyring.h"

static char dir[] = "/tmp/fuzz-keyring.XXXXXX", key_dir[4200], revoked_dir[4200];
static char key_file[4400], revoked_file[4400];
static uint8_t id[UMB_KEY_ID_LEN];

static void cleanup(void)
{
	(void)unlink(key_file);
	(void)unlink(revoked_file);
	(void)rmdir(key_dir);
	(void)rmdir(revoked_dir);
	(void)rmdir(dir);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	FUZZ_SETUP(fd >= 0);
	FUZZ_SETUP(size == 0 || write(fd, data, size) == (ssize_t)size);
	FUZZ_SETUP(close(fd) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char hex[KEY_ID_HEX_LEN + 1];
	EVP_PKEY *pub;

	(void)argc;
	(void)argv;
	if (access("/dev/shm", W_OK) == 0)
		memcpy(dir, "/dev/shm", 8);
	FUZZ_SETUP(mkdtemp(dir));
	atexit(cleanup);
	pub = key_public_from_pem(FUZZ_KEY_PUBLIC_PEM, strlen(FUZZ_KEY_PUBLIC_PEM));
	FUZZ_SETUP(pub && key_id_of(pub, id) == 0);
	EVP_PKEY_free(pub);
	key_id_to_hex(id, hex);
	snprintf(key_dir, sizeof(key_dir), "%s/key", dir);
	snprintf(revoked_dir, sizeof(revoked_dir), "%s/revoked", dir);
	FUZZ_SETUP(mkdir(key_dir, 0700) == 0 && mkdir(revoked_dir, 0700) == 0);
	snprintf(key_file, sizeof(key_file), "%s/%s.pem", key_dir, hex);
	snprintf(revoked_file, sizeof(revoked_file), "%s/" KEYRING_REVOKED_FILE, revoked_dir);
	return 0;
}

/*
 * The revocation list read independently of keyring.c: every line (up to '#', without
 * the white space around it) that is a key id must be revoked in @k. Lines are cut at
 * '\n' only: a byte the loader stops at must not hide the lines after it.
 */
static void check_revoked(const struct keyring *k, const uint8_t *data, size_t size)
{
	const uint8_t *line = data, *end = data + size;

	while (line < end) {
		const uint8_t *nl = memchr(line, '\n', (size_t)(end - line));
		const uint8_t *stop = nl ? nl : end,
			      *hash = memchr(line, '#', (size_t)(stop - line));
		const uint8_t *a = line, *b = hash ? hash : stop;
		uint8_t want[UMB_KEY_ID_LEN];

		while (a < b && (*a == ' ' || *a == '\t' || *a == '\r'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if (key_id_from_hex((const char *)a, (size_t)(b - a), want) == 0)
			FUZZ_CHECK(keyring_is_revoked(k, want),
				   "the list loaded, but its line \"%.*s\" is not revoked",
				   (int)(b - a), (const char *)a);
		line = stop + 1;
	}
}

static void load(const char *d, bool as_key, const uint8_t *data, size_t size)
{
	struct keyring *k = NULL;
	char *error = NULL;
	int r;

	/* A bad file is rejected (listed, with its name), never a failed load: only
	 * memory can fail it. */
	r = keyring_load(d, &k, &error);
	FUZZ_CHECK(r == 0 || r == -ENOMEM, "keyring_load: %d (%s)", r, error ? error : "");
	if (r < 0) {
		free(error);
		return;
	}
	FUZZ_CHECK(!error, "success with a message: %s", error);
	for (size_t i = 0; i < keyring_rejected_count(k); i++)
		FUZZ_CHECK(!strncmp(keyring_rejected(k, i), d, strlen(d)),
			   "a rejection that does not name the file: %s", keyring_rejected(k, i));
	if (as_key) {
		/* The one key file: rejected, or it is the fuzz key. */
		if (keyring_rejected_count(k)) {
			FUZZ_CHECK(keyring_count(k) == 0 && !keyring_has_key(k, id),
				   "a rejected key file, yet %zu keys", keyring_count(k));
		} else {
			FUZZ_CHECK(keyring_count(k) == 1 &&
					   !memcmp(keyring_key_id(k, 0), id, sizeof(id)),
				   "a ring of %zu keys, or another key", keyring_count(k));
			FUZZ_CHECK(keyring_has_key(k, id) && !keyring_is_revoked(k, id), "the key");
		}
	} else {
		FUZZ_CHECK(keyring_count(k) == 0 && !keyring_has_key(k, id), "keys from nowhere");
		/* A list with an error trusts no key (keyring_verify() refuses all); one that
		 * loaded whole must revoke every id it names. */
		FUZZ_CHECK(keyring_revocations_known(k) || keyring_rejected_count(k),
			   "revocations unknown, and no file rejected to say why");
		if (keyring_revocations_known(k))
			check_revoked(k, data, size);
	}
	keyring_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	write_file(key_file, data, size);
	load(key_dir, true, data, size);
	write_file(revoked_file, data, size);
	load(revoked_dir, false, data, size);
	return 0;
}
