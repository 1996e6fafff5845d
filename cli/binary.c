// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli binary - sign an ELF file (its execute restrictions and the signature
 * sections, include/umbrella/signed-elf-format.h), and verify or inspect one as umbrellad will
 * at exec: the same reader and the same key ring code (libumbrella's umbrella-signing).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <umbrella/umbrella.h>

#include "binary.h"
#include "cli.h"
#include "command.h"
#include "elf-dynamic.h"
#include "format.h"
#include "key.h"
#include "keyring.h"
#include "printable.h"
#include "signed-elf.h"
#include "signed-elf-sign.h"

static int binary_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help(
		"Usage: umbrella-cli [-j|-p] binary sign --key KEYFILE [-r ITEM]... FILE...\n"
		"       umbrella-cli [-j|-p] binary sign --key KEYFILE --no-policy FILE...\n"
		"       umbrella-cli [-j|-p] binary sign --key KEYFILE [--no-policy] --tree DIR [FILE]...\n"
		"       umbrella-cli [-j|-p] [--keyring DIR] binary verify FILE\n"
		"       umbrella-cli [-j|-p] [--keyring DIR] binary inspect FILE\n"
		"       umbrella-cli binary help\n"
		"\n"
		"sign writes FILE's signature with the private key KEYFILE (from \"key\n"
		"generate\"); -r replaces the execute restrictions FILE carries (several -r\n"
		"are joined). A FILE without restrictions of its own is signed only with\n"
		"--no-policy. A shared library (ET_DYN with a soname) is signed without\n"
		"restrictions. With several files or --tree DIR (every file under DIR,\n"
		"links not followed), what is not ELF is skipped, --no-policy applies to\n"
		"programs without restrictions of their own, and each file is reported.\n"
		"verify exits 0 only for a valid signature by a key in the\n"
		"ring that is not revoked: 5 for an unsigned file, 6 for one that umbrellad\n"
		"refuses. The ring is --keyring DIR, else $UMBRELLA_KEYRING, else\n" KEYRING_DIR_DEFAULT
		". Signing writes a new file renamed over FILE: it\n"
		"keeps FILE's owner, mode, file capabilities and other extended\n"
		"attributes, and refuses a FILE with other hard links.\n");
}

static EVP_PKEY *load_private_key(const char *path)
{
	EVP_PKEY *pkey = NULL;
	FILE *f = fopen(path, "re");
	struct stat st = {};

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	/* As ssh: a private key others may read (or write) may no longer be the vendor's
	 * alone, and a signature made with it proves nothing. */
	if (fstat(fileno(f), &st) < 0 || (st.st_mode & 0077) || st.st_uid != geteuid()) {
		if (st.st_mode & 0077)
			cli_error("%s: permissions %04o are too open: a private key must be "
				  "readable by its owner only (chmod 600 %s)",
				  path, (unsigned)(st.st_mode & 07777), path);
		else if (st.st_mode)
			cli_error("%s: owned by uid %u, not by this user (%u): a private key "
				  "must be its signer's own",
				  path, (unsigned)st.st_uid, (unsigned)geteuid());
		else
			cli_error("%s: %s", path, strerror(errno));
		fclose(f);
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

/* What "binary sign" signs every file with, and what it did so far. */
struct sign_ctx {
	EVP_PKEY *pkey;
	char hex[KEY_ID_HEX_LEN + 1];
	const char *items;
	unsigned int flags;
	bool many; /* several files or a tree: skip what is not ELF, go on after errors */
	size_t signed_count, skipped, failed;
	json_writer_t *jw; /* --json: an array of the files (many) or the one file's object */
};

/* Reports what became of @file: @result "signed", "skipped" or "failed" (its error is
 * on stderr already), with @note in words. */
static void sign_report(struct sign_ctx *s, const char *file, const char *result, const char *note)
{
	if (!s->jw) {
		char name[CLI_PRINTABLE_SIZE(PATH_MAX)];

		/* A tree's names are whoever made the files'. */
		cli_printable(file, name, sizeof(name));
		if (!strcmp(result, "signed"))
			printf("%s: signed with key %s%s\n", name, s->hex, note);
		else if (!strcmp(result, "skipped"))
			printf("%s: skipped (%s)\n", name, note);
		return;
	}
	jsonw_start_object(s->jw);
	jsonw_string_field(s->jw, "file", file);
	if (s->many)
		jsonw_string_field(s->jw, "result", result);
	if (!strcmp(result, "signed"))
		jsonw_string_field(s->jw, "key_id", s->hex);
	if (*note)
		jsonw_string_field(s->jw, "note", note);
	jsonw_end_object(s->jw);
}

static struct sign_ctx *tree_ctx; /* nftw() passes no argument to its callback */

/* The ELF type of @fd for a tree: ET_EXEC/ET_DYN, 0 for a file that is not ELF. */
static int elf_type(int fd)
{
	unsigned char h[18];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return 0;
	return h[16] | h[17] << 8; /* e_type: little-endian, as every file Umbrella reads */
}

/*
 * Signs @file. A shared library (elf-dynamic.h: ET_DYN with a DT_SONAME) carries no
 * restrictions: the code it holds runs in whatever task maps it, under that task's
 * layers, so it is signed as with --no-policy, and -r or a policy section of its own is
 * refused. With several files, --no-policy signs the programs that have no policy
 * section; those that have one keep it.
 */
static void sign_one(struct sign_ctx *s, const char *file)
{
	unsigned int flags = s->flags;
	const char *note = "";
	struct elf_dynamic d;
	char *error = NULL;
	bool library;
	int fd, r;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		cli_error("%s: %s", file, strerror(errno));
		sign_report(s, file, "failed", "");
		s->failed++;
		return;
	}
	r = elf_type(fd);
	if (s->many && r != ET_EXEC && r != ET_DYN) {
		close(fd);
		sign_report(s, file, "skipped",
			    r ? "an ELF file that is neither a program nor a shared library" :
				"not an ELF file");
		s->skipped++;
		return;
	}
	library = elf_dynamic_read(fd, &d) == 0 && elf_dynamic_is_library(&d);
	if (library)
		elf_dynamic_release(&d);
	close(fd);
	if (library) {
		if (s->items) {
			cli_error(
				"%s: a shared library carries no restrictions (-r is for programs)",
				file);
			sign_report(s, file, "failed", "");
			s->failed++;
			return;
		}
		flags = SIGNED_ELF_SIGN_NO_POLICY;
		note = " (a shared library: no restrictions)";
	}
	r = signed_elf_sign(file, s->pkey, s->items, flags, &error);
	if (r == -EEXIST && s->many && !library) {
		free(error);
		error = NULL;
		r = signed_elf_sign(file, s->pkey, NULL, 0, &error);
		note = " (with its own restrictions)";
	}
	if (r < 0) {
		cli_error("%s: %s%s", file, error ? error : strerror(-r),
			  r == -EEXIST && library ? " (a shared library carries no restrictions)" :
			  r == -ENODATA ? ": give its restrictions with -r ITEM, or --no-policy to "
					  "sign it to run without any" :
			  r == -EEXIST	? " (sign it without --no-policy)" :
					  "");
		free(error);
		sign_report(s, file, "failed", "");
		s->failed++;
		return;
	}
	sign_report(s, file, "signed", note);
	s->signed_count++;
}

static int sign_tree_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode)) {
		sign_one(tree_ctx, path);
	} else if (type == FTW_SL || type == FTW_SLN) {
		sign_report(tree_ctx, path, "skipped",
			    "a symbolic link: its target is signed where it is");
		tree_ctx->skipped++;
	} else if (type == FTW_DNR || type == FTW_NS) {
		cli_error("%s: cannot read it", path);
		sign_report(tree_ctx, path, "failed", "");
		tree_ctx->failed++;
	} else if (type == FTW_F) {
		sign_report(tree_ctx, path, "skipped", "not a regular file");
		tree_ctx->skipped++;
	}
	return 0;
}

static int binary_sign(char **files, int n, const char *tree, const char *key_path,
		       const char *items, unsigned int flags)
{
	struct sign_ctx s = { .items = items, .flags = flags, .many = n > 1 || tree };
	uint8_t id[UMB_KEY_ID_LEN];

	s.pkey = load_private_key(key_path);
	if (!s.pkey)
		return EXIT_ERROR;
	(void)key_id_of(s.pkey, id);
	key_id_to_hex(id, s.hex);
	if (arg_json) {
		s.jw = cli_json_new();
		if (!s.jw) {
			EVP_PKEY_free(s.pkey);
			return EXIT_ERROR;
		}
		if (s.many)
			jsonw_start_array(s.jw);
	}
	for (int i = 0; i < n; i++)
		sign_one(&s, files[i]);
	if (tree) {
		tree_ctx = &s;
		/* FTW_PHYS: a link is not followed (out of the tree, or signed twice). */
		if (nftw(tree, sign_tree_entry, 16, FTW_PHYS) < 0) {
			cli_error("%s: %s", tree, strerror(errno));
			s.failed++;
		}
		tree_ctx = NULL;
	}
	EVP_PKEY_free(s.pkey);
	if (s.jw) {
		if (s.many)
			jsonw_end_array(s.jw);
		jsonw_destroy(&s.jw);
	} else if (s.many) {
		printf("%zu signed, %zu skipped, %zu failed\n", s.signed_count, s.skipped,
		       s.failed);
	}
	return s.failed ? EXIT_ERROR : EXIT_OK;
}

/* The reason given for a file signed by a key the ring does not know. */
#define UNKNOWN_SIGNER_REASON "unknown signer (key not in the ring): runs as unsigned"

/* What verify and inspect found. */
struct check {
	struct signed_elf e;
	int read_result; /* signed_elf_read()'s */
	char *read_error;
	int verdict;	     /* UMB_VERDICT_*, 0: unknown (the ring did not load) */
	bool unknown_signer; /* UNSIGNED: signed by a key the ring does not know */
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
	/* As the gate decides (daemon/gate-verify.c): a key the ring does not know makes
	 * the file unsigned, with its restrictions, never refused. */
	if (c->verdict == UMB_VERDICT_REFUSED && keyring_signer_unknown(k, &c->e)) {
		c->verdict = UMB_VERDICT_UNSIGNED;
		c->unknown_signer = true;
		c->reason = c->e.has_policy ? UNKNOWN_SIGNER_REASON " with its restrictions" :
					      UNKNOWN_SIGNER_REASON;
	}
	keyring_free(k);
	return 0;
}

static void check_release(struct check *c)
{
	signed_elf_release(&c->e);
	free(c->read_error);
	free(c->ring_error);
}

/* The verdict of @c in JSON, as verify and inspect give it. */
static void verdict_fields(json_writer_t *jw, const struct check *c)
{
	jsonw_string_field(jw, "verdict", cli_verdict_name(c->verdict));
	jsonw_bool_field(jw, "valid", c->verdict == UMB_VERDICT_SIGNED);
	jsonw_bool_field(jw, "unknown_signer", c->unknown_signer);
	jsonw_string_field(jw, "reason", c->reason);
}

static int binary_verify(const char *file, const char *keyring)
{
	char hex[KEY_ID_HEX_LEN + 1], name[CLI_PRINTABLE_SIZE(PATH_MAX)];
	struct check c;
	int ret;

	if (check_file(file, keyring, &c) < 0)
		return EXIT_ERROR;
	if (arg_json && c.verdict) {
		json_writer_t *jw = cli_json_new();

		ret = c.verdict == UMB_VERDICT_SIGNED	? EXIT_OK :
		      c.verdict == UMB_VERDICT_UNSIGNED ? EXIT_UNSIGNED :
							  EXIT_REFUSED;
		if (jw) {
			jsonw_start_object(jw);
			jsonw_string_field(jw, "file", file);
			verdict_fields(jw, &c);
			jsonw_end_object(jw);
			jsonw_destroy(&jw);
		} else {
			ret = EXIT_ERROR;
		}
		check_release(&c);
		return ret;
	}
	switch (c.verdict) {
	case UMB_VERDICT_SIGNED:
		key_id_to_hex(c.e.signature.key_id, hex);
		printf("%s: valid signature by key %s\n", cli_printable(file, name, sizeof(name)),
		       hex);
		ret = EXIT_OK;
		break;
	case UMB_VERDICT_UNSIGNED:
		key_id_to_hex(c.e.signature.key_id, hex);
		if (c.unknown_signer)
			cli_error("%s: signed by key %s, which the key ring does not know: %s",
				  file, hex, c.reason);
		else
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
		verdict_fields(jw, &c);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		/* The policy and the reason are the file's author's text: printable.h. */
		char *policy = cli_printable_dup(ok && c.e.has_policy ? c.e.policy_text : "(none)");
		char *reason = cli_printable_dup(c.reason);
		char name[CLI_PRINTABLE_SIZE(PATH_MAX)];

		printf("file:      %s\n", cli_printable(file, name, sizeof(name)));
		if (ok) {
			printf("elf:       %s\n", c.e.is_elf ? "yes" : "no");
			printf("size:      %llu\n", (unsigned long long)c.e.size);
			printf("digest:    %s\n", digest);
		}
		printf("policy:    %s\n", policy ? policy : "(out of memory)");
		printf("key id:    %s\n", has_sig ? key : "(no signature)");
		if (has_sig)
			printf("mark:      %s\n",
			       c.e.marked ? "yes (never runs without a verdict)" :
					    "no (signed by an older umbrella-cli: a miss follows "
					    "the mode)");
		printf("verdict:   %s (%s)\n", cli_verdict_name(c.verdict),
		       reason ? reason : "out of memory");
		free(policy);
		free(reason);
	}
	check_release(&c);
	return EXIT_OK;
}

/* sign, verify and inspect: @argv[0] is the command. */
static int binary_command(int argc, char **argv)
{
	static const struct option options[] = {
		{ "key", required_argument, NULL, 'K' },
		{ "no-policy", no_argument, NULL, 'N' },
		{ "tree", required_argument, NULL, 'T' },
		{},
	};
	const char *cmd = argv[0], *key = NULL, *tree = NULL;
	bool is_sign = !strcmp(cmd, "sign");
	unsigned int sign_flags = 0;
	char *items = NULL;
	int c, ret;

	/* optind 0: glibc starts afresh, in its permuting mode (main()'s getopt used "+"). */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, is_sign ? ":r:" : ":", options, NULL)) >= 0) {
		switch (c) {
		case 'K':
		case 'r':
		case 'N':
		case 'T':
			if (!is_sign) {
				cli_error("binary %s: %s: only for binary sign", cmd,
					  c == 'K' ? "--key" :
					  c == 'r' ? "-r" :
					  c == 'T' ? "--tree" :
						     "--no-policy");
				ret = EXIT_USAGE;
				goto out;
			}
			if (c == 'T') {
				tree = optarg;
			} else if (c == 'K') {
				key = optarg;
			} else if (c == 'N') {
				sign_flags |= SIGNED_ELF_SIGN_NO_POLICY;
			} else {
				ret = add_items(&items, optarg);
				if (ret != EXIT_OK)
					goto out;
			}
			break;
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
	if (is_sign ? argc - optind < 1 && !tree : argc - optind != 1) {
		cli_error("binary %s: %s (try 'umbrella-cli binary help')", cmd,
			  argc - optind < 1 ? "missing FILE" : "too many arguments");
		ret = EXIT_USAGE;
		goto out;
	}
	if (is_sign && arg_keyring) {
		cli_error("binary sign: --keyring: only for verify and inspect");
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
		ret = binary_sign(argv + optind, argc - optind, tree, key, items, sign_flags);
	else if (!strcmp(cmd, "verify"))
		ret = binary_verify(argv[optind], cli_keyring_dir(arg_keyring));
	else
		ret = binary_inspect(argv[optind], cli_keyring_dir(arg_keyring));
out:
	free(items);
	return ret;
}

int cli_binary(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "sign", binary_command },
		{ "verify", binary_command },
		{ "inspect", binary_command },
		{},
	};

	if (argc < 2) {
		cli_error("binary: missing command (try 'umbrella-cli binary help')");
		return EXIT_USAGE;
	}
	return cmd_select(cmds, "binary", argc - 1, argv + 1, binary_help);
}
