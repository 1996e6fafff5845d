// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli key - Ed25519 signing keys and the key ring.
 *
 * "generate" makes a vendor's key pair (the private half never enters the ring); the
 * other commands edit the ring umbrellad trusts: KEYID.pem files and the revocation list
 * (libumbrella/keyring.h). umbrellad watches the directory and drops its cached verdicts
 * on any change, so an edit here takes effect at the next exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "cli.h"
#include "key.h"
#include "keyring.h"

const char *cli_keyring_dir(const char *option)
{
	const char *env = getenv("UMBRELLA_KEYRING");

	if (option)
		return option;
	return env && *env ? env : KEYRING_DIR_DEFAULT;
}

static int key_usage(FILE *out)
{
	fprintf(out, "Usage: umbrella-cli key generate NAME [--dir DIR]\n"
		     "       umbrella-cli [-j|-p] key [list] [--keyring DIR]\n"
		     "       umbrella-cli key add FILE [--keyring DIR]\n"
		     "       umbrella-cli key remove ID [--keyring DIR]\n"
		     "       umbrella-cli key revoke ID [--keyring DIR]\n"
		     "       umbrella-cli key help\n"
		     "\n"
		     "generate writes DIR/NAME.key (the private key, mode 0600) and DIR/NAME.pub;\n"
		     "add puts a public key into the ring as ID.pem. The ring is --keyring DIR,\n"
		     "else $UMBRELLA_KEYRING, else " KEYRING_DIR_DEFAULT ". ID is a key's id: 64\n"
		     "hex digits, the SHA-256 of its raw public key.\n");
	return out == stdout ? EXIT_OK : EXIT_USAGE;
}

/* Writes @pkey's private (PKCS#8) or public PEM to a new file @path (never over one). */
static int write_pem(const char *path, EVP_PKEY *pkey, bool private_key, mode_t mode)
{
	BIO *bio = NULL;
	FILE *f = NULL;
	int fd, ok;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	f = fdopen(fd, "w");
	bio = f ? BIO_new_fp(f, BIO_NOCLOSE) : NULL;
	ok = bio && (private_key ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL)
				 : PEM_write_bio_PUBKEY(bio, pkey));
	BIO_free(bio);
	if (f ? fclose(f) != 0 : close(fd) != 0)
		ok = 0;
	if (!ok) {
		cli_error("%s: could not write the key", path);
		(void)unlink(path);
		return -EIO;
	}
	return 0;
}

static int key_generate(const char *name, const char *dir)
{
	char *key_path = NULL, *pub_path = NULL, hex[KEY_ID_HEX_LEN + 1];
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey = NULL;
	int ret = EXIT_ERROR;

	if (!*name || strchr(name, '/')) {
		cli_error("key generate %s: a name must not be empty or contain '/'", name);
		return EXIT_USAGE;
	}
	if (asprintf(&key_path, "%s/%s.key", dir, name) < 0 ||
	    asprintf(&pub_path, "%s/%s.pub", dir, name) < 0) {
		cli_error("%s", strerror(ENOMEM));
		goto out;
	}
	pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pkey || key_id_of(pkey, id) < 0) {
		cli_error("key generate: OpenSSL could not make an Ed25519 key");
		goto out;
	}
	if (write_pem(key_path, pkey, true, 0600) < 0)
		goto out;
	if (write_pem(pub_path, pkey, false, 0644) < 0) {
		(void)unlink(key_path); /* no private key without its public half */
		goto out;
	}
	key_id_to_hex(id, hex);
	printf("%s\n", hex);
	ret = EXIT_OK;
out:
	EVP_PKEY_free(pkey);
	free(key_path);
	free(pub_path);
	return ret;
}

static int key_list(const char *dir)
{
	struct keyring *k = NULL;
	json_writer_t *jw = NULL;
	char *error = NULL;

	if (keyring_load(dir, &k, &error) < 0) {
		cli_error("%s", error ? error : "cannot load the key ring");
		free(error);
		return EXIT_ERROR;
	}
	/* What umbrellad does not trust either: said, and the list is still shown. */
	for (size_t i = 0; i < keyring_rejected_count(k); i++)
		cli_error("%s", keyring_rejected(k, i));
	if (!keyring_revocations_known(k)) {
		keyring_free(k);
		return EXIT_ERROR; /* which key is revoked is not known */
	}
	if (arg_json && !(jw = cli_json_new())) {
		keyring_free(k);
		return EXIT_ERROR;
	}
	if (jw)
		jsonw_start_array(jw);
	else
		printf("%-64s %s\n", "ID", "REVOKED");
	for (size_t i = 0; i < keyring_count(k); i++) {
		const uint8_t *id = keyring_key_id(k, i);
		bool revoked = keyring_is_revoked(k, id);
		char hex[KEY_ID_HEX_LEN + 1];

		key_id_to_hex(id, hex);
		if (jw) {
			jsonw_start_object(jw);
			jsonw_string_field(jw, "id", hex);
			jsonw_bool_field(jw, "revoked", revoked);
			jsonw_end_object(jw);
		} else {
			printf("%-64s %s\n", hex, revoked ? "yes" : "no");
		}
	}
	if (jw) {
		jsonw_end_array(jw);
		jsonw_destroy(&jw);
	}
	keyring_free(k);
	return EXIT_OK;
}

/* Creates the ring's directory if it is missing (not its parents). */
static int ensure_dir(const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		cli_error("%s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static int key_add(const char *file, const char *dir)
{
	char *pem = NULL, *tmp = NULL, *dst = NULL, hex[KEY_ID_HEX_LEN + 1];
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey = NULL;
	int ret = EXIT_ERROR;
	size_t len = 0;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		cli_error("%s: %s", file, strerror(errno));
		return EXIT_ERROR;
	}
	pem = calloc(1, 65537);
	if (pem)
		len = fread(pem, 1, 65536, f);
	fclose(f);
	if (!pem) {
		cli_error("%s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	pkey = key_public_from_pem(pem, len);
	if (!pkey || key_id_of(pkey, id) < 0) {
		cli_error("%s: not an Ed25519 public key in PEM%s", file,
			  strstr(pem, "PRIVATE KEY") ? " (a private key: add its .pub)" : "");
		goto out;
	}
	key_id_to_hex(id, hex);
	if (ensure_dir(dir) < 0)
		goto out;
	if (asprintf(&dst, "%s/%s.pem", dir, hex) < 0 ||
	    asprintf(&tmp, "%s/.%s.pem.new", dir, hex) < 0) {
		cli_error("%s", strerror(ENOMEM));
		goto out;
	}
	(void)unlink(tmp); /* a leftover of an interrupted add */
	/* A new file renamed into place: umbrellad never sees half a key. */
	if (write_pem(tmp, pkey, false, 0644) < 0)
		goto out;
	if (chmod(tmp, 0644) < 0 || rename(tmp, dst) < 0) {
		cli_error("%s: %s", dst, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	printf("%s\n", hex);
	ret = EXIT_OK;
out:
	EVP_PKEY_free(pkey);
	free(pem);
	free(tmp);
	free(dst);
	return ret;
}

static int parse_key_id(const char *cmd, const char *arg, uint8_t ret_id[UMB_KEY_ID_LEN],
			char ret_hex[KEY_ID_HEX_LEN + 1])
{
	if (key_id_from_hex(arg, strlen(arg), ret_id) < 0) {
		cli_error("key %s %s: not a key id (64 hex digits)", cmd, arg);
		return -EINVAL;
	}
	key_id_to_hex(ret_id, ret_hex);
	return 0;
}

static int key_remove(const char *arg, const char *dir)
{
	char hex[KEY_ID_HEX_LEN + 1], *path = NULL;
	uint8_t id[UMB_KEY_ID_LEN];
	int ret = EXIT_OK;

	if (parse_key_id("remove", arg, id, hex) < 0)
		return EXIT_USAGE;
	if (asprintf(&path, "%s/%s.pem", dir, hex) < 0) {
		cli_error("%s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	if (unlink(path) < 0) {
		if (errno == ENOENT) {
			cli_error("key %s: no such key in %s", hex, dir);
			ret = EXIT_NOT_FOUND;
		} else {
			cli_error("%s: %s", path, strerror(errno));
			ret = EXIT_ERROR;
		}
	}
	free(path);
	return ret;
}

static int key_revoke(const char *arg, const char *dir)
{
	char hex[KEY_ID_HEX_LEN + 1], *path = NULL, *line = NULL;
	uint8_t id[UMB_KEY_ID_LEN];
	struct keyring *k = NULL;
	char *error = NULL;
	int fd, ret = EXIT_ERROR;

	if (parse_key_id("revoke", arg, id, hex) < 0)
		return EXIT_USAGE;
	/* Loading checks the list as umbrellad will read it: never append to one that it
	 * refuses. A key need not be in the ring to be revoked (ahead of an add). */
	if (keyring_load(dir, &k, &error) < 0) {
		cli_error("%s", error ? error : "cannot load the key ring");
		free(error);
		return EXIT_ERROR;
	}
	if (!keyring_revocations_known(k)) {
		for (size_t i = 0; i < keyring_rejected_count(k); i++)
			cli_error("%s", keyring_rejected(k, i));
		goto out;
	}
	if (keyring_is_revoked(k, id)) {
		ret = EXIT_OK; /* idempotent */
		goto out;
	}
	if (ensure_dir(dir) < 0)
		goto out;
	if (asprintf(&path, "%s/" KEYRING_REVOKED_FILE, dir) < 0 ||
	    asprintf(&line, "%s\n", hex) < 0) {
		cli_error("%s", strerror(ENOMEM));
		goto out;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		goto out;
	}
	/* A list whose last line lacks its newline (edited by hand): start on a new line.
	 * Then the id in one write: with O_APPEND, concurrent revocations stay whole. */
	{
		struct stat st;
		char last = '\n';

		if (fstat(fd, &st) == 0 && st.st_size > 0 &&
		    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n' &&
		    write(fd, "\n", 1) != 1) {
			cli_error("%s: %s", path, strerror(errno));
			close(fd);
			goto out;
		}
	}
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd) < 0) {
		cli_error("%s: %s", path, strerror(errno ? errno : EIO));
		close(fd);
		goto out;
	}
	if (close(fd) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		goto out;
	}
	ret = EXIT_OK;
out:
	keyring_free(k);
	free(path);
	free(line);
	return ret;
}

int cli_key(int argc, char **argv)
{
	static const struct option options[] = {
		{ "keyring", required_argument, NULL, 'k' },
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	/* "key" alone is "key list", as "layer" alone is "layer list". */
	const char *cmd = argc > 1 ? argv[1] : "list", *keyring = NULL, *dir = ".";
	bool is_generate, has_arg;
	int c;

	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return key_usage(argc > 2 ? stderr : stdout);
	is_generate = !strcmp(cmd, "generate");
	if (!is_generate && strcmp(cmd, "list") && strcmp(cmd, "add") && strcmp(cmd, "remove") &&
	    strcmp(cmd, "revoke")) {
		cli_error("key %s: unknown command (try 'umbrella-cli key help')", cmd);
		return EXIT_USAGE;
	}
	/* Options anywhere after the command ("key add FILE --keyring DIR"). */
	/* optind 0: glibc starts afresh, in its permuting mode (main()'s getopt used "+"). */
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0) {
		switch (c) {
		case 'k':
			if (is_generate) {
				cli_error("key generate: --keyring: unknown option (--dir DIR)");
				return EXIT_USAGE;
			}
			keyring = optarg;
			break;
		case 'd':
			if (!is_generate) {
				cli_error("key %s: --dir: unknown option (--keyring DIR)", cmd);
				return EXIT_USAGE;
			}
			dir = optarg;
			break;
		case 'h':
			return key_usage(stdout);
		case ':':
			cli_error("key %s: %s: missing argument", cmd, argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_error("key %s: %s: unknown option (try 'umbrella-cli key help')", cmd,
				  argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	has_arg = strcmp(cmd, "list") != 0;
	if (argc - optind != (has_arg ? 1 : 0)) {
		cli_error("key %s: %s (try 'umbrella-cli key help')", cmd,
			  argc - optind < (has_arg ? 1 : 0) ? "missing argument"
							    : "too many arguments");
		return EXIT_USAGE;
	}
	if (is_generate)
		return key_generate(argv[optind], dir);
	keyring = cli_keyring_dir(keyring);
	if (!strcmp(cmd, "list"))
		return key_list(keyring);
	if (!strcmp(cmd, "add"))
		return key_add(argv[optind], keyring);
	if (!strcmp(cmd, "remove"))
		return key_remove(argv[optind], keyring);
	return key_revoke(argv[optind], keyring);
}
