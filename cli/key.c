// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli key - Ed25519 signing keys and the key ring.
 *
 * "generate" makes a vendor's key pair (the private half never enters the ring); the
 * other commands edit the ring umbrellad trusts: KEYID.pem files and the revocation list
 * (signing/keyring.h). umbrellad watches the directory and drops its cached verdicts
 * on any change, so an edit here takes effect at the next exec.
 *
 * The name and date given at "generate" travel with the public key as comment lines
 * above its PEM block ("# name: NAME", "# created: DATE"), which PEM readers skip: "add"
 * copies them (checked) into the ring's KEYID.pem, "list" shows them. They are labels
 * for people, never trusted: a key is known by its id alone, and the ring's loader
 * still rejects every file that is not KEYID.pem holding the key KEYID.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "cli.h"
#include "command.h"
#include "format.h"
#include "key.h"
#include "keyring.h"

#define KEY_NAME_MAX 64

/* What "generate" wrote above a key's PEM block; empty strings when absent. */
struct key_label {
	char name[KEY_NAME_MAX + 1];
	char created[CLI_TIME_TEXT_SIZE];
};

const char *cli_keyring_dir(const char *option)
{
	const char *env = getenv("UMBRELLA_KEYRING");

	if (option)
		return option;
	return env && *env ? env : KEYRING_DIR_DEFAULT;
}

static int key_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help(
		"Usage: umbrella-cli key generate NAME [--dir DIR]\n"
		"       umbrella-cli [-j|-p] [--keyring DIR] key [list]\n"
		"       umbrella-cli [--keyring DIR] key add FILE\n"
		"       umbrella-cli [--keyring DIR] key remove ID\n"
		"       umbrella-cli [--keyring DIR] key revoke ID\n"
		"       umbrella-cli [--keyring DIR] key unrevoke ID\n"
		"       umbrella-cli key help\n"
		"\n"
		"generate writes DIR/NAME.key (the private key, mode 0600) and DIR/NAME.pub,\n"
		"labelled with NAME and the date; add puts a public key into the ring as\n"
		"ID.pem, with its label; list shows the keys, their labels and whether they\n"
		"are revoked. revoke adds ID to the ring's file \"revoked\", unrevoke takes it\n"
		"out. The ring is --keyring DIR, else $UMBRELLA_KEYRING, else\n" KEYRING_DIR_DEFAULT
		". ID is a key's id: 64 hex digits, the SHA-256 of its\n"
		"raw public key, or a prefix of the id of one key of the ring (or, for\n"
		"unrevoke, of the revocation list).\n");
}

/* Whether @name may label a key: printable ASCII without '/', 1 to KEY_NAME_MAX bytes
 * (it names the files, and a newline would let it forge comment lines). */
static bool key_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > KEY_NAME_MAX || strchr(name, '/'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)name[i]))
			return false;
	return true;
}

/* Whether @s is a date as "generate" writes it: YYYY-MM-DDTHH:MM:SSZ. */
static bool key_date_ok(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";

	if (strlen(s) != strlen(shape))
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

/* The label in the comment lines above the PEM block of @text; a malformed one is left
 * out (it is only a label). */
static void key_label_parse(const char *text, struct key_label *ret)
{
	const char *line = text;

	*ret = (struct key_label){};
	while (*line == '#') {
		const char *end = strchrnul(line, '\n');
		int len = (int)(end - line);
		char value[128];

		if (len < (int)sizeof(value) && !strncmp(line, "# name: ", 8)) {
			snprintf(value, sizeof(value), "%.*s", len - 8, line + 8);
			if (key_name_ok(value)) /* so at most KEY_NAME_MAX bytes */
				memcpy(ret->name, value, strlen(value) + 1);
		} else if (len < (int)sizeof(value) && !strncmp(line, "# created: ", 11)) {
			snprintf(value, sizeof(value), "%.*s", len - 11, line + 11);
			if (key_date_ok(value)) /* so 20 bytes */
				memcpy(ret->created, value, strlen(value) + 1);
		}
		if (!*end)
			break;
		line = end + 1;
	}
}

/* Writes @label's comment lines (if any) and @pkey's private (PKCS#8) or public PEM to a
 * new file @path (never over one). */
static int write_pem(const char *path, EVP_PKEY *pkey, bool private_key,
		     const struct key_label *label, mode_t mode)
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
	ok = f != NULL;
	if (ok && label && label->name[0])
		ok = fprintf(f, "# name: %s\n", label->name) > 0;
	if (ok && label && label->created[0])
		ok = fprintf(f, "# created: %s\n", label->created) > 0;
	if (ok && fflush(f) != 0)
		ok = 0;
	bio = ok ? BIO_new_fp(f, BIO_NOCLOSE) : NULL;
	ok = bio && (private_key ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) :
				   PEM_write_bio_PUBKEY(bio, pkey));
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
	struct key_label label = {};
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey = NULL;
	int ret = EXIT_ERROR;

	if (!key_name_ok(name)) {
		cli_error("key generate %s: a name is 1 to %d printable characters, no '/'", name,
			  KEY_NAME_MAX);
		return EXIT_USAGE;
	}
	snprintf(label.name, sizeof(label.name), "%s", name);
	cli_time_text((__u64)time(NULL) * 1000000000, true, label.created, sizeof(label.created));
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
	if (write_pem(key_path, pkey, true, &label, 0600) < 0)
		goto out;
	if (write_pem(pub_path, pkey, false, &label, 0644) < 0) {
		(void)unlink(key_path); /* no private key without its public half */
		goto out;
	}
	key_id_to_hex(id, hex);
	if (arg_json) {
		json_writer_t *jw = cli_json_new();

		if (!jw)
			goto out;
		jsonw_start_object(jw);
		jsonw_string_field(jw, "id", hex);
		jsonw_string_field(jw, "private_key", key_path);
		jsonw_string_field(jw, "public_key", pub_path);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		printf("%s\n", hex);
	}
	ret = EXIT_OK;
out:
	EVP_PKEY_free(pkey);
	free(key_path);
	free(pub_path);
	return ret;
}

/* The label of the ring's key file for @hex; empty when it has none. */
static void ring_key_label(const char *dir, const char *hex, struct key_label *ret)
{
	char *path = NULL, *text = NULL;

	*ret = (struct key_label){};
	if (asprintf(&path, "%s/%s.pem", dir, hex) < 0)
		return;
	if (keyring_read_file(AT_FDCWD, path, KEY_FILE_MAX, O_NOFOLLOW, &text, NULL) == 0)
		key_label_parse(text, ret);
	free(text);
	free(path);
}

/* Loads the ring of @dir. NULL after printing the error. */
static struct keyring *ring_load(const char *dir)
{
	struct keyring *k = NULL;
	char *error = NULL;

	if (keyring_load(dir, &k, &error) < 0) {
		cli_error("%s", error ? error : "cannot load the key ring");
		free(error);
		return NULL;
	}
	return k;
}

static int key_list(const char *dir)
{
	json_writer_t *jw = NULL;
	struct keyring *k;

	k = ring_load(dir);
	if (!k)
		return EXIT_ERROR;
	/* What umbrellad does not trust either: said, and the list is still shown. */
	for (size_t i = 0; i < keyring_rejected_count(k); i++)
		cli_warn("%s", keyring_rejected(k, i));
	if (!keyring_revocations_known(k)) {
		cli_error("%s: which keys are revoked is not known", dir);
		keyring_free(k);
		return EXIT_ERROR;
	}
	if (arg_json && !(jw = cli_json_new())) {
		keyring_free(k);
		return EXIT_ERROR;
	}
	if (jw)
		jsonw_start_array(jw);
	else
		printf("%-64s %-7s %-20s %s\n", "ID", "REVOKED", "CREATED", "NAME");
	for (size_t i = 0; i < keyring_count(k); i++) {
		const uint8_t *id = keyring_key_id(k, i);
		bool revoked = keyring_is_revoked(k, id);
		char hex[KEY_ID_HEX_LEN + 1];
		struct key_label label;

		key_id_to_hex(id, hex);
		ring_key_label(dir, hex, &label);
		if (jw) {
			jsonw_start_object(jw);
			jsonw_string_field(jw, "id", hex);
			jsonw_bool_field(jw, "revoked", revoked);
			if (label.name[0])
				jsonw_string_field(jw, "name", label.name);
			else
				jsonw_null_field(jw, "name");
			if (label.created[0])
				jsonw_string_field(jw, "created", label.created);
			else
				jsonw_null_field(jw, "created");
			jsonw_end_object(jw);
		} else {
			printf("%-64s %-7s %-20s %s\n", hex, revoked ? "yes" : "no",
			       label.created[0] ? label.created : "-",
			       label.name[0] ? label.name : "-");
		}
	}
	if (jw) {
		jsonw_end_array(jw);
		jsonw_destroy(&jw);
	}
	keyring_free(k);
	return EXIT_OK;
}

/*
 * Creates the ring's directory and its missing parents (0755: the ring holds public
 * keys; only root may write there), as "mkdir -p": a fresh /etc without /etc/umbrella
 * is not a reason to refuse the first "key add".
 */
static int ensure_dir(const char *dir)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(path)) {
		cli_error("%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; p <= path + len; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int r = -errno;

			cli_error("%s: %s", path, strerror(-r));
			return r;
		}
		if (p < path + len)
			*p = '/';
	}
	return 0;
}

/* Prints the id a command acted on: a line, or {"id": ID} with --json. */
static int print_id(const char *hex)
{
	if (arg_json) {
		json_writer_t *jw = cli_json_new();

		if (!jw)
			return EXIT_ERROR;
		jsonw_start_object(jw);
		jsonw_string_field(jw, "id", hex);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		printf("%s\n", hex);
	}
	return EXIT_OK;
}

static int key_add(const char *file, const char *dir)
{
	char *pem = NULL, *tmp = NULL, *dst = NULL, hex[KEY_ID_HEX_LEN + 1];
	struct key_label label;
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey = NULL;
	int r, ret = EXIT_ERROR;
	size_t len = 0;

	r = keyring_read_file(AT_FDCWD, file, KEY_FILE_MAX, 0, &pem, &len);
	if (r < 0) {
		cli_error("%s: %s", file, r == -EFBIG ? "larger than 64 KiB" : strerror(-r));
		return EXIT_ERROR;
	}
	pkey = key_public_from_pem(pem, len);
	if (!pkey || key_id_of(pkey, id) < 0) {
		cli_error("%s: not an Ed25519 public key in PEM%s", file,
			  strstr(pem, "PRIVATE KEY") ? " (a private key: add its .pub)" : "");
		goto out;
	}
	/* Only the label is copied from the file, checked: the key is written anew. */
	key_label_parse(pem, &label);
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
	if (write_pem(tmp, pkey, false, &label, 0644) < 0)
		goto out;
	if (chmod(tmp, 0644) < 0 || rename(tmp, dst) < 0) {
		cli_error("%s: %s", dst, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	ret = print_id(hex);
out:
	EVP_PKEY_free(pkey);
	free(pem);
	free(tmp);
	free(dst);
	return ret;
}

/* Whether @prefix (hex digits, either case) begins the id @hex (lowercase). */
static bool id_has_prefix(const char *hex, const char *prefix)
{
	size_t len = strlen(prefix);

	return len <= KEY_ID_HEX_LEN && !strncasecmp(hex, prefix, len);
}

/*
 * The key id that @arg gives to "key @cmd": 64 hex digits, or a prefix of exactly one id
 * among the ring's keys and, with @revoked_too, its revocation list. Return: 0, or the
 * exit code after printing the error: EXIT_USAGE (not hex, ambiguous), EXIT_NOT_FOUND.
 */
static int resolve_key_id(const char *cmd, const char *arg, const struct keyring *k,
			  bool revoked_too, uint8_t ret_id[UMB_KEY_ID_LEN],
			  char ret_hex[KEY_ID_HEX_LEN + 1])
{
	char found[KEY_ID_HEX_LEN + 1] = "", other[KEY_ID_HEX_LEN + 1] = "";
	size_t arg_len = strlen(arg), count = keyring_count(k);

	if (!arg_len || arg_len > KEY_ID_HEX_LEN ||
	    strspn(arg, "0123456789abcdefABCDEF") != arg_len) {
		cli_error("key %s %s: not a key id (64 hex digits, or a prefix of one)", cmd, arg);
		return EXIT_USAGE;
	}
	if (arg_len == KEY_ID_HEX_LEN) {
		(void)key_id_from_hex(arg, arg_len, ret_id);
		key_id_to_hex(ret_id, ret_hex);
		return 0;
	}
	if (revoked_too)
		count += keyring_revoked_count(k);
	for (size_t i = 0; i < count; i++) {
		const uint8_t *id = i < keyring_count(k) ?
					    keyring_key_id(k, i) :
					    keyring_revoked_id(k, i - keyring_count(k));
		char hex[KEY_ID_HEX_LEN + 1];

		key_id_to_hex(id, hex);
		if (!id_has_prefix(hex, arg) || !strcmp(hex, found))
			continue; /* a revoked key of the ring is met twice */
		if (found[0]) {
			strcpy(other, hex);
			break;
		}
		strcpy(found, hex);
	}
	if (other[0]) {
		cli_error("key %s %s: ambiguous: %s, %s%s (give more digits)", cmd, arg, found,
			  other, count > 2 ? ", ..." : "");
		return EXIT_USAGE;
	}
	if (!found[0]) {
		cli_error("key %s %s: no key%s has an id starting so", cmd, arg,
			  revoked_too ? " of the ring or the revocation list" : " of the ring");
		return EXIT_NOT_FOUND;
	}
	(void)key_id_from_hex(found, KEY_ID_HEX_LEN, ret_id);
	strcpy(ret_hex, found);
	return 0;
}

static int key_remove(const char *arg, const char *dir)
{
	char hex[KEY_ID_HEX_LEN + 1], *path = NULL;
	uint8_t id[UMB_KEY_ID_LEN];
	struct keyring *k;
	int ret;

	k = ring_load(dir);
	if (!k)
		return EXIT_ERROR;
	ret = resolve_key_id("remove", arg, k, false, id, hex);
	keyring_free(k);
	if (ret != 0)
		return ret;
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
	return ret == EXIT_OK ? print_id(hex) : ret;
}

/* Loads the ring for an edit of its revocation list: never one that umbrellad refuses
 * (an edit would then be built on a list whose meaning is unknown). */
static struct keyring *ring_load_for_revocation(const char *dir)
{
	struct keyring *k = ring_load(dir);

	if (k && !keyring_revocations_known(k)) {
		for (size_t i = 0; i < keyring_rejected_count(k); i++)
			cli_error("%s", keyring_rejected(k, i));
		keyring_free(k);
		return NULL;
	}
	return k;
}

static int key_revoke(const char *arg, const char *dir)
{
	char hex[KEY_ID_HEX_LEN + 1], *path = NULL, *line = NULL;
	uint8_t id[UMB_KEY_ID_LEN];
	struct keyring *k;
	int fd, ret = EXIT_ERROR;

	/* A key need not be in the ring to be revoked (ahead of an add): by its full id. */
	k = ring_load_for_revocation(dir);
	if (!k)
		return EXIT_ERROR;
	ret = resolve_key_id("revoke", arg, k, false, id, hex);
	if (ret != 0)
		goto out;
	ret = EXIT_ERROR;
	if (keyring_is_revoked(k, id)) {
		ret = print_id(hex); /* idempotent */
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
	ret = print_id(hex);
out:
	keyring_free(k);
	free(path);
	free(line);
	return ret;
}

/* Whether the line @line of the revocation list (without its newline) revokes @id: the
 * loader's reading, its comment and blanks aside. */
static bool line_revokes(const char *line, size_t len, const uint8_t id[UMB_KEY_ID_LEN])
{
	const char *end = memchr(line, '#', len);
	uint8_t other[UMB_KEY_ID_LEN];

	end = end ? end : line + len;
	while (line < end && strchr(" \t\r", *line))
		line++;
	while (end > line && strchr(" \t\r", end[-1]))
		end--;
	return key_id_from_hex(line, (size_t)(end - line), other) == 0 &&
	       !memcmp(other, id, sizeof(other));
}

/*
 * Takes @arg out of the revocation list: writes the list without the lines that revoke
 * it (comments and every other line kept) to a new file, renamed over the old one, so
 * that umbrellad never reads half a list.
 */
static int key_unrevoke(const char *arg, const char *dir)
{
	char hex[KEY_ID_HEX_LEN + 1], *path = NULL, *tmp = NULL, *text = NULL;
	uint8_t id[UMB_KEY_ID_LEN];
	struct keyring *k;
	int fd = -1, r, ret;
	FILE *f = NULL;

	k = ring_load_for_revocation(dir);
	if (!k)
		return EXIT_ERROR;
	ret = resolve_key_id("unrevoke", arg, k, true, id, hex);
	if (ret != 0)
		goto out;
	ret = EXIT_ERROR;
	if (!keyring_is_revoked(k, id)) {
		cli_error("key %s: not revoked in %s", hex, dir);
		ret = EXIT_NOT_FOUND;
		goto out;
	}
	if (asprintf(&path, "%s/" KEYRING_REVOKED_FILE, dir) < 0 ||
	    asprintf(&tmp, "%s/." KEYRING_REVOKED_FILE ".XXXXXX", dir) < 0) {
		cli_error("%s", strerror(ENOMEM));
		goto out;
	}
	r = keyring_read_file(AT_FDCWD, path, SIZE_MAX, O_NOFOLLOW, &text, NULL);
	if (r < 0) {
		cli_error("%s: %s", path, strerror(-r));
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		cli_error("%s: %s", tmp, strerror(errno));
		goto out_tmp;
	}
	fd = -1;
	for (const char *line = text; *line;) {
		const char *end = strchrnul(line, '\n');

		if (!line_revokes(line, (size_t)(end - line), id))
			fprintf(f, "%.*s%s", (int)(end - line), line, *end ? "\n" : "");
		line = *end ? end + 1 : end;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		cli_error("%s: %s", tmp, strerror(errno));
		goto out_tmp;
	}
	r = fclose(f);
	f = NULL;
	if (r != 0 || rename(tmp, path) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		goto out_tmp;
	}
	ret = print_id(hex);
	goto out;
out_tmp:
	(void)unlink(tmp);
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	keyring_free(k);
	free(text);
	free(path);
	free(tmp);
	return ret;
}

/* Whether "key @argv[0]" got @nargs arguments and no option (printed if not). */
static bool arguments_ok(int argc, char **argv, int nargs)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1]) {
			cli_error("key %s: %s: unknown option (try 'umbrella-cli key help')",
				  argv[0], argv[i]);
			return false;
		}
	}
	if (argc - 1 != nargs) {
		cli_error("key %s: %s (try 'umbrella-cli key help')", argv[0],
			  argc - 1 < nargs ? "missing argument" : "too many arguments");
		return false;
	}
	return true;
}

/* A command with one argument and the ring: "key add FILE", "key remove ID"... */
static int with_ring(int argc, char **argv, int (*fn)(const char *arg, const char *dir))
{
	if (!arguments_ok(argc, argv, 1))
		return EXIT_USAGE;
	return fn(argv[1], cli_keyring_dir(arg_keyring));
}

static int do_add(int argc, char **argv)
{
	return with_ring(argc, argv, key_add);
}

static int do_remove(int argc, char **argv)
{
	return with_ring(argc, argv, key_remove);
}

static int do_revoke(int argc, char **argv)
{
	return with_ring(argc, argv, key_revoke);
}

static int do_unrevoke(int argc, char **argv)
{
	return with_ring(argc, argv, key_unrevoke);
}

static int do_list(int argc, char **argv)
{
	if (!arguments_ok(argc, argv, 0))
		return EXIT_USAGE;
	return key_list(cli_keyring_dir(arg_keyring));
}

static int do_generate(int argc, char **argv)
{
	static const struct option options[] = {
		{ "dir", required_argument, NULL, 'd' },
		{},
	};
	const char *dir = ".";
	int c;

	if (arg_keyring) {
		cli_error("key generate: --keyring: the key pair is not for the ring (--dir DIR)");
		return EXIT_USAGE;
	}
	/* optind 0: glibc starts afresh, in its permuting mode ("generate NAME --dir D"). */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", options, NULL)) >= 0) {
		if (c == 'd') {
			dir = optarg;
			continue;
		}
		cli_error("key generate: %s: %s (try 'umbrella-cli key help')", argv[optind - 1],
			  c == ':' ? "missing argument" : "unknown option");
		return EXIT_USAGE;
	}
	if (argc - optind != 1) {
		cli_error("key generate: %s (try 'umbrella-cli key help')",
			  argc - optind < 1 ? "missing NAME" : "too many arguments");
		return EXIT_USAGE;
	}
	return key_generate(argv[optind], dir);
}

int cli_key(int argc, char **argv)
{
	/* "key" alone is "key list", as "layer" alone is "layer list". */
	static const struct cmd cmds[] = {
		{ "list", do_list },
		{ "generate", do_generate },
		{ "add", do_add },
		{ "remove", do_remove },
		{ "revoke", do_revoke },
		{ "unrevoke", do_unrevoke },
		{},
	};

	return cmd_select(cmds, "key", argc - 1, argv + 1, key_help);
}
