// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli binary - sign an ELF file (its execute restrictions and the signature
 * sections, include/umbrella/signed-elf.h), and verify or inspect one as umbrellad will
 * at exec: the same reader and the same key ring code (libumbrella's umbrella-signing).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <umbrella/umbrella.h>

#include "binary.h"
#include "cli.h"
#include "key.h"
#include "keyring.h"
#include "signed-elf.h"

static int binary_usage(FILE *out)
{
	fprintf(out, "Usage: umbrella-cli binary sign --key KEYFILE [-r ITEM]... FILE\n"
		     "       umbrella-cli binary sign --key KEYFILE --no-policy FILE\n"
		     "       umbrella-cli binary verify [--keyring DIR] FILE\n"
		     "       umbrella-cli [-j|-p] binary inspect [--keyring DIR] FILE\n"
		     "       umbrella-cli binary help\n"
		     "\n"
		     "sign writes FILE's signature with the private key KEYFILE (from \"key\n"
		     "generate\"); -r replaces the execute restrictions FILE carries (several -r\n"
		     "are joined). A FILE without restrictions of its own is signed only with\n"
		     "--no-policy. verify exits 0 only for a valid signature by a key in the\n"
		     "ring that is not revoked: 5 for an unsigned file, 6 for one that umbrellad\n"
		     "refuses. The ring is --keyring DIR, else $UMBRELLA_KEYRING, else\n"
		     KEYRING_DIR_DEFAULT ".\n");
	return out == stdout ? EXIT_OK : EXIT_USAGE;
}

static EVP_PKEY *load_private_key(const char *path)
{
	EVP_PKEY *pkey = NULL;
	FILE *f = fopen(path, "re");

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	pkey = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!pkey || EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		cli_error("%s: not an Ed25519 private key in PEM", path);
		EVP_PKEY_free(pkey);
		return NULL;
	}
	return pkey;
}

/* Appends @item to the comma-separated list *@list after checking it alone. */
static int add_items(char **list, const char *item)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL, *joined = NULL;
	int ret;

	if (!r) {
		cli_error("%s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	ret = umb_restrictions__parse(r, item, &error);
	umb_restrictions__free(r);
	if (ret < 0) {
		cli_error("binary sign: -r %s: %s", item, error ? error : strerror(-ret));
		free(error);
		return ret == -ENOMEM ? EXIT_ERROR : EXIT_USAGE;
	}
	if (asprintf(&joined, "%s%s%s", *list ? *list : "", *list ? "," : "", item) < 0) {
		cli_error("%s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	free(*list);
	*list = joined;
	return EXIT_OK;
}

static int binary_sign(const char *file, const char *key_path, const char *items,
		       unsigned int flags)
{
	char *error = NULL, hex[KEY_ID_HEX_LEN + 1];
	uint8_t id[UMB_KEY_ID_LEN];
	EVP_PKEY *pkey;
	int r;

	pkey = load_private_key(key_path);
	if (!pkey)
		return EXIT_ERROR;
	r = signed_elf_sign(file, pkey, items, flags, &error);
	if (r < 0) {
		cli_error("%s: %s%s", file, error ? error : strerror(-r),
			  r == -ENODATA ? ": give its restrictions with -r ITEM, or --no-policy to "
					  "sign it to run without any" :
			  r == -EEXIST	? " (sign it without --no-policy)" :
					  "");
		free(error);
		EVP_PKEY_free(pkey);
		return EXIT_ERROR;
	}
	(void)key_id_of(pkey, id);
	key_id_to_hex(id, hex);
	EVP_PKEY_free(pkey);
	printf("%s: signed with key %s\n", file, hex);
	return EXIT_OK;
}

/* What verify and inspect found. */
struct check {
	struct signed_elf e;
	int read_result;	/* signed_elf_read()'s */
	char *read_error;
	int verdict;		/* UMB_VERDICT_*, 0: unknown (the ring did not load) */
	const char *reason;
	char *ring_error;
};

static int check_file(const char *file, const char *keyring, struct check *c)
{
	struct keyring *k = NULL;
	int fd;

	*c = (struct check){};
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		cli_error("%s: %s", file, strerror(errno));
		return -errno;
	}
	c->read_result = signed_elf_read(fd, 0, &c->e, &c->read_error);
	close(fd);
	if (c->read_result < 0 && c->read_result != -EBADMSG) {
		cli_error("%s: %s", file,
			  c->read_error ? c->read_error : strerror(-c->read_result));
		return c->read_result;
	}
	if (c->read_result == -EBADMSG) {
		/* A malformed ELF file or section: umbrellad refuses it whatever the ring. */
		c->verdict = UMB_VERDICT_REFUSED;
		c->reason = c->read_error ? c->read_error : "malformed";
		return 0;
	}
	if (keyring_load(keyring, &k, &c->ring_error) < 0) {
		c->reason = c->ring_error ? c->ring_error : "the key ring did not load";
		return 0;
	}
	c->verdict = keyring_verify(k, &c->e, &c->reason);
	keyring_free(k);
	return 0;
}

static void check_release(struct check *c)
{
	signed_elf_release(&c->e);
	free(c->read_error);
	free(c->ring_error);
}

static int binary_verify(const char *file, const char *keyring)
{
	char hex[KEY_ID_HEX_LEN + 1];
	struct check c;
	int ret;

	if (check_file(file, keyring, &c) < 0)
		return EXIT_ERROR;
	switch (c.verdict) {
	case UMB_VERDICT_SIGNED:
		key_id_to_hex(c.e.signature.key_id, hex);
		printf("%s: valid signature by key %s\n", file, hex);
		ret = EXIT_OK;
		break;
	case UMB_VERDICT_UNSIGNED:
		cli_error("%s: %s", file,
			  c.e.is_elf ? "no signature" : "not an ELF file, unsigned");
		ret = EXIT_UNSIGNED;
		break;
	case UMB_VERDICT_REFUSED:
		cli_error("%s: refused: %s", file, c.reason);
		ret = EXIT_REFUSED;
		break;
	default:
		cli_error("%s", c.reason);
		ret = EXIT_ERROR;
		break;
	}
	check_release(&c);
	return ret;
}

static const char *verdict_name(int verdict)
{
	switch (verdict) {
	case UMB_VERDICT_SIGNED:
		return "signed";
	case UMB_VERDICT_UNSIGNED:
		return "unsigned";
	case UMB_VERDICT_REFUSED:
		return "refused";
	default:
		return "unknown";
	}
}

static int binary_inspect(const char *file, const char *keyring)
{
	char digest[2 * sizeof(((struct signed_elf *)0)->digest) + 1];
	char key[KEY_ID_HEX_LEN + 1] = "";
	bool has_sig, ok;
	json_writer_t *jw = NULL;
	struct check c;

	if (check_file(file, keyring, &c) < 0)
		return EXIT_ERROR;
	ok = c.read_result == 0;
	has_sig = ok && c.e.has_signature;
	/* The digest is known only when the file was read to the end. */
	for (size_t i = 0; i < sizeof(c.e.digest); i++)
		sprintf(digest + 2 * i, "%02x", c.e.digest[i]);
	if (has_sig)
		key_id_to_hex(c.e.signature.key_id, key);

	if (arg_json) {
		jw = cli_json_new();
		if (!jw) {
			check_release(&c);
			return EXIT_ERROR;
		}
		jsonw_start_object(jw);
		jsonw_string_field(jw, "file", file);
		jsonw_bool_field(jw, "elf", ok ? c.e.is_elf : true);
		if (ok)
			jsonw_uint_field(jw, "size", c.e.size);
		jsonw_bool_field(jw, "signed", has_sig);
		/* The signature mark: the kernel refuses the file without its verdict. */
		jsonw_bool_field(jw, "marked", ok && c.e.marked);
		if (has_sig) {
			jsonw_string_field(jw, "key_id", key);
			jsonw_uint_field(jw, "algorithm", c.e.signature.algorithm);
		} else {
			jsonw_null_field(jw, "key_id");
		}
		if (ok)
			jsonw_string_field(jw, "digest", digest);
		if (ok && c.e.has_policy)
			jsonw_string_field(jw, "policy", c.e.policy_text);
		else
			jsonw_null_field(jw, "policy");
		jsonw_string_field(jw, "verdict", verdict_name(c.verdict));
		jsonw_bool_field(jw, "valid", c.verdict == UMB_VERDICT_SIGNED);
		jsonw_string_field(jw, "reason", c.reason);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		printf("file:      %s\n", file);
		if (ok) {
			printf("elf:       %s\n", c.e.is_elf ? "yes" : "no");
			printf("size:      %llu\n", (unsigned long long)c.e.size);
			printf("digest:    %s\n", digest);
		}
		printf("policy:    %s\n", ok && c.e.has_policy ? c.e.policy_text : "(none)");
		printf("key id:    %s\n", has_sig ? key : "(no signature)");
		if (has_sig)
			printf("mark:      %s\n",
			       c.e.marked ? "yes (never runs without a verdict)" :
					    "no (signed by an older umbrella-cli: a miss follows "
					    "the mode)");
		printf("verdict:   %s (%s)\n", verdict_name(c.verdict), c.reason);
	}
	check_release(&c);
	return EXIT_OK;
}

int cli_binary(int argc, char **argv)
{
	static const struct option options[] = {
		{ "key", required_argument, NULL, 'K' },
		{ "keyring", required_argument, NULL, 'k' },
		{ "no-policy", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *cmd = argc > 1 ? argv[1] : NULL, *key = NULL, *keyring = NULL;
	unsigned int sign_flags = 0;
	char *items = NULL;
	bool is_sign;
	int c, ret;

	if (!cmd) {
		cli_error("binary: missing command (try 'umbrella-cli binary help')");
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return binary_usage(argc > 2 ? stderr : stdout);
	is_sign = !strcmp(cmd, "sign");
	if (!is_sign && strcmp(cmd, "verify") && strcmp(cmd, "inspect")) {
		cli_error("binary %s: unknown command (try 'umbrella-cli binary help')", cmd);
		return EXIT_USAGE;
	}
	/* optind 0: glibc starts afresh, in its permuting mode (main()'s getopt used "+"). */
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, is_sign ? ":r:h" : ":h", options, NULL)) >= 0) {
		switch (c) {
		case 'K':
		case 'r':
		case 'N':
			if (!is_sign) {
				cli_error("binary %s: %s: only for binary sign", cmd,
					  c == 'K' ? "--key" : c == 'r' ? "-r" : "--no-policy");
				ret = EXIT_USAGE;
				goto out;
			}
			if (c == 'K') {
				key = optarg;
			} else if (c == 'N') {
				sign_flags |= SIGNED_ELF_SIGN_NO_POLICY;
			} else {
				ret = add_items(&items, optarg);
				if (ret != EXIT_OK)
					goto out;
			}
			break;
		case 'k':
			if (is_sign) {
				cli_error("binary sign: --keyring: only for verify and inspect");
				ret = EXIT_USAGE;
				goto out;
			}
			keyring = optarg;
			break;
		case 'h':
			ret = binary_usage(stdout);
			goto out;
		case ':':
			cli_error("binary %s: %s: missing argument", cmd, argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		default:
			cli_error("binary %s: %s: unknown option (try 'umbrella-cli binary help')",
				  cmd, argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (argc - optind != 1) {
		cli_error("binary %s: %s (try 'umbrella-cli binary help')", cmd,
			  argc - optind < 1 ? "missing FILE" : "too many arguments");
		ret = EXIT_USAGE;
		goto out;
	}
	if (is_sign && !key) {
		cli_error("binary sign: --key KEYFILE is required");
		ret = EXIT_USAGE;
		goto out;
	}
	if (is_sign && items && (sign_flags & SIGNED_ELF_SIGN_NO_POLICY)) {
		cli_error("binary sign: -r and --no-policy contradict each other");
		ret = EXIT_USAGE;
		goto out;
	}
	if (is_sign)
		ret = binary_sign(argv[optind], key, items, sign_flags);
	else if (!strcmp(cmd, "verify"))
		ret = binary_verify(argv[optind], cli_keyring_dir(keyring));
	else
		ret = binary_inspect(argv[optind], cli_keyring_dir(keyring));
out:
	free(items);
	return ret;
}
