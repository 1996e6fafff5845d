// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: a file that someone execs, as umbrellad's exec gate reads it, and what
 * follows the read: signed_elf_read() (umbrella-cli's way, in one go) and
 * signed_elf_begin()/_step() (the gate's, in steps) must agree; keyring_verify() against
 * a ring with the fuzz key (fuzz-key.h); the policy of a file that verifies parsed as
 * the gate parses it before it makes the layer. When the input reads as a valid ELF
 * file, it is also signed (signed_elf_sign(), with the fuzz key) and read back: a file
 * umbrella-cli signs must verify, and carry the signature mark. A file that reads with
 * the mark has a signature section (else it is refused, never unsigned).
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/pem.h>
#include <umbrella/umbrella.h>

#include "fuzz-key.h"
#include "fuzz.h"
#include "keyring.h"
#include "signed-elf.h"
#include "signed-elf-sign.h"

static int fd = -1;
static struct keyring *ring;
static EVP_PKEY *key;
static char dir[] = "/tmp/fuzz-signed-elf.XXXXXX", sign_path[4096];

static void cleanup(void)
{
	char p[4200];
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		(void)unlink(p);
	}
	if (d)
		closedir(d);
	(void)rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char ring_dir[4200], p[4300], *error = NULL, hex[KEY_ID_HEX_LEN + 1];
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pub;
	BIO *bio;
	FILE *f;

	(void)argc;
	(void)argv;
	fd = fuzz_file_new("fuzz-signed-elf");
	/* tmpfs where there is one: signing writes, fsyncs and renames a file per input */
	if (access("/dev/shm", W_OK) == 0)
		memcpy(dir, "/dev/shm", 8);
	FUZZ_SETUP(mkdtemp(dir));
	atexit(cleanup);
	bio = BIO_new_mem_buf(FUZZ_KEY_PRIVATE_PEM, -1);
	key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	FUZZ_SETUP(key);
	pub = key_public_from_pem(FUZZ_KEY_PUBLIC_PEM, strlen(FUZZ_KEY_PUBLIC_PEM));
	FUZZ_SETUP(pub && key_id_of(pub, id) == 0);
	EVP_PKEY_free(pub);
	key_id_to_hex(id, hex);

	/* The ring: the fuzz key's public half, loaded as umbrellad loads its ring. */
	snprintf(ring_dir, sizeof(ring_dir), "%s/keys", dir);
	FUZZ_SETUP(mkdir(ring_dir, 0700) == 0);
	snprintf(p, sizeof(p), "%s/%s.pem", ring_dir, hex);
	f = fopen(p, "we");
	FUZZ_SETUP(f && fputs(FUZZ_KEY_PUBLIC_PEM, f) >= 0 && fclose(f) == 0);
	FUZZ_SETUP(keyring_load(ring_dir, &ring, &error) == 0 && keyring_count(ring) == 1);
	FUZZ_SETUP(unlink(p) == 0 && rmdir(ring_dir) == 0);
	snprintf(sign_path, sizeof(sign_path), "%s/file", dir);
	return 0;
}

static bool is_read_error(int r)
{
	return r == 0 || r == -EBADMSG || r == -EFBIG || r == -ENOMEM;
}

/* The gate's way: the headers, then the body in steps (each a whole chunk). */
static int gate_read(struct signed_elf *e, char **error)
{
	struct signed_elf_reader *reader;
	int r = signed_elf_begin(fd, 0, e, &reader, error);

	while (r == 0 && reader) {
		free(*error);
		*error = NULL;
		r = signed_elf_step(reader, 1, error);
		if (r != 1)
			reader = NULL;
		else
			r = 0;
	}
	return r;
}

/* What the gate does with the policy of a file that verifies (policy_layer_get()). */
static void parse_policy(const char *text)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	int ret;

	FUZZ_SETUP(r);
	ret = umb_restrictions__parse(r, text, &error);
	FUZZ_CHECK(ret == 0, "a policy that signed_elf_read() accepted does not parse: %s",
		   error ? error : "?");
	umb_restrictions__free(r);
	free(error);
}

/* Signs the input (a valid ELF file without a signature, or with one) and reads it back. */
static void sign_round_trip(const uint8_t *data, size_t size, const struct signed_elf *before)
{
	struct signed_elf e;
	const char *reason;
	char *error = NULL;
	int out, r;

	out = open(sign_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_SETUP(out >= 0 && write(out, data, size) == (ssize_t)size && close(out) == 0);
	/* Its own policy, or none said so (signing refuses a file with no policy section
	 * unless told it has none on purpose). */
	r = signed_elf_sign(sign_path, key, NULL,
			    before->has_policy ? 0 : SIGNED_ELF_SIGN_NO_POLICY, &error);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EFBIG, "signed_elf_sign: %d", r);
	FUZZ_CHECK(r == 0 || error, "signed_elf_sign failed (%d) without a message", r);
	free(error);
	error = NULL;
	if (r < 0)
		return;
	out = open(sign_path, O_RDONLY | O_CLOEXEC);
	FUZZ_SETUP(out >= 0);
	r = signed_elf_read(out, 0, &e, &error);
	close(out);
	FUZZ_CHECK(r == 0, "a file signed_elf_sign() signed does not read: %d %s", r,
		   error ? error : "");
	FUZZ_CHECK(e.is_elf && e.has_signature, "signed, but no signature is found");
	/* The kernel refuses a signed file without a verdict only when it sees the mark. */
	FUZZ_CHECK(e.marked, "signed, but without the signature mark");
	FUZZ_CHECK(keyring_verify(ring, &e, &reason) == UMB_VERDICT_SIGNED,
		   "a file signed with the ring's key does not verify: %s", reason);
	/* The file's own policy is what it carries signed. */
	FUZZ_CHECK(e.has_policy == before->has_policy &&
			   (!e.has_policy || !strcmp(e.policy_text, before->policy_text)),
		   "signing changed the policy");
	signed_elf_release(&e);
	free(error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct signed_elf e, g;
	char *error = NULL, *gate_error = NULL;
	const char *reason;
	int r, rg, verdict;

	fuzz_file_set(fd, data, size);

	r = signed_elf_read(fd, 0, &e, &error);
	FUZZ_CHECK(is_read_error(r), "signed_elf_read: unexpected %d", r);
	FUZZ_CHECK(r != -EBADMSG || error, "-EBADMSG without a message");
	if (r == 0) {
		FUZZ_CHECK(e.size == size, "size %llu, not %zu", (unsigned long long)e.size, size);
		FUZZ_CHECK(e.is_elf || (!e.has_signature && !e.has_policy),
			   "not ELF, but sections");
		/* A marked file that would read as unsigned would run as one. */
		FUZZ_CHECK(!e.marked || e.has_signature, "the signature mark without a signature");
		FUZZ_CHECK(!e.has_policy || (e.policy_text && strlen(e.policy_text) &&
					     strlen(e.policy_text) <= UMB_POLICY_TEXT_MAX),
			   "a policy without a valid text");
	}

	verdict = keyring_verify(ring, &e, &reason);
	FUZZ_CHECK(verdict == UMB_VERDICT_UNSIGNED || verdict == UMB_VERDICT_SIGNED ||
			   verdict == UMB_VERDICT_REFUSED,
		   "verdict %d", verdict);
	FUZZ_CHECK(verdict != UMB_VERDICT_UNSIGNED || !e.has_signature,
		   "a signature, and unsigned");
	if (r == 0 && verdict == UMB_VERDICT_SIGNED && e.has_policy)
		parse_policy(e.policy_text);

	/* The gate reads in steps, and a file without a signature section only up to its
	 * headers: what the headers say must be what signed_elf_read() says. */
	rg = gate_read(&g, &gate_error);
	if (rg < 0 || g.has_signature)
		FUZZ_CHECK(rg == r, "signed_elf_read %d (%s), the gate's read %d (%s)", r,
			   error ? error : "", rg, gate_error ? gate_error : "");
	else
		FUZZ_CHECK(r == -EBADMSG || (r == 0 && !e.has_signature),
			   "the gate found no signature, signed_elf_read %d (%s)", r,
			   error ? error : "");
	if (rg == 0 && g.has_signature) {
		FUZZ_CHECK(g.is_elf == e.is_elf && g.marked == e.marked &&
				   g.has_policy == e.has_policy &&
				   (!g.has_policy || !strcmp(g.policy_text, e.policy_text)) &&
				   !memcmp(&g.signature, &e.signature, sizeof(g.signature)) &&
				   !memcmp(g.digest, e.digest, sizeof(g.digest)),
			   "the gate's read and signed_elf_read() disagree");
	}
	signed_elf_release(&g);
	free(gate_error);

	if (r == 0 && e.is_elf && size < (1 << 20))
		sign_round_trip(data, size, &e);
	signed_elf_release(&e);
	free(error);
	return 0;
}
