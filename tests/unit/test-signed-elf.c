// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host test (TAP): signed binaries without BPF. A copy of a real ELF file (/bin/true, or
 * argv[1]) is signed with a fresh key and verifies; one flipped byte in any region makes
 * it fail; revoked and unknown keys are refused; re-signing keeps the size; and every
 * malformed input, made by patching a valid signed file, gives -EBADMSG with a message
 * and no crash (meson setup -Db_sanitize=address,undefined runs this under ASan).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <umbrella/umbrella.h>

#include "copy-file.h"
#include "keyring.h"
#include "ring-key.h"
#include "signed-elf.h"
#include "signed-elf-sign.h"
#include "tap.h"

static char tmp[] = "/tmp/test-signed-elf.XXXXXX";
static char ring[4096], path[4096], scratch[4096];
static uint8_t *orig; /* the signed file, pristine */
static size_t orig_len;

static uint8_t *read_whole(const char *p, size_t *ret_len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size) {
		close(fd);
		free(buf);
		return NULL;
	}
	close(fd);
	*ret_len = (size_t)st.st_size;
	return buf;
}

static int write_whole(const char *p, const uint8_t *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The verdict on @p: UMB_VERDICT_*, or signed_elf_read()'s -errno. */
/* keyring_signer_unknown() of the file verdict_of() read last. */
static bool last_signer_unknown;

static int verdict_of(const char *p, const char **ret_reason, char **ret_error)
{
	struct signed_elf e;
	struct keyring *k = NULL;
	char *error = NULL;
	int fd, r;

	*ret_reason = "";
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = signed_elf_read(fd, 0, &e, &error);
	close(fd);
	if (ret_error)
		*ret_error = error;
	else
		free(error);
	if (r < 0)
		return r;
	if (keyring_load(ring, &k, &error) < 0) {
		TAP_DIAG("keyring: %s", error);
		free(error);
		signed_elf_release(&e);
		return -EINVAL;
	}
	r = keyring_verify(k, &e, ret_reason);
	last_signer_unknown = keyring_signer_unknown(k, &e);
	keyring_free(k);
	signed_elf_release(&e);
	return r;
}

/* The section named @name in the ELF image @b (trusted: the file we signed). */
static Elf64_Shdr *section(uint8_t *b, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
	const char *names = (const char *)b + sh[eh->e_shstrndx].sh_offset;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NULL && !strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

static size_t section_index(uint8_t *b, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	return (size_t)(section(b, name) - (Elf64_Shdr *)(b + eh->e_shoff));
}

static int run(const char *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(p, p, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A copy of the pristine signed file in @scratch, for patching. */
static uint8_t *fresh(void)
{
	uint8_t *b = malloc(orig_len);

	memcpy(b, orig, orig_len);
	return b;
}

/* A copy of the image @b (orig_len bytes), for a check that frees what it is given. */
static uint8_t *fresh_with(const uint8_t *b)
{
	uint8_t *c = malloc(orig_len);

	memcpy(c, b, orig_len);
	return c;
}

/* Writes the patched image @b (@len bytes) and checks that reading it gives -EBADMSG and
 * a message. */
static void expect_malformed(uint8_t *b, size_t len, const char *what)
{
	const char *reason;
	char *error = NULL;
	int r;

	if (write_whole(scratch, b, len) < 0) {
		TAP_OK(false, "%s: could not write the test file", what);
		free(b);
		return;
	}
	r = verdict_of(scratch, &reason, &error);
	if (TAP_EQ(r, -EBADMSG, "%s: -EBADMSG", what) && !error)
		TAP_OK(false, "%s: with a message", what);
	else if (error)
		TAP_DIAG("%s", error);
	free(error);
	free(b);
}

/* Writes @b and checks that it does not verify as signed (refused, or malformed). */
static void expect_not_signed(uint8_t *b, size_t len, const char *what)
{
	const char *reason;
	char *error = NULL;
	int r;

	if (write_whole(scratch, b, len) < 0) {
		TAP_OK(false, "%s: could not write the test file", what);
		free(b);
		return;
	}
	r = verdict_of(scratch, &reason, &error);
	TAP_OK(r == UMB_VERDICT_REFUSED || r == -EBADMSG, "%s: refused (%d: %s)", what, r,
	       error ? error : reason);
	free(error);
	free(b);
}

static void test_flips(void)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)orig;
	Elf64_Shdr *text = section(orig, ".text");
	Elf64_Shdr *data = section(orig, ".data");
	Elf64_Shdr *rodata = section(orig, ".rodata");
	Elf64_Shdr *pol = section(orig, UMB_POLICY_SECTION);
	Elf64_Shdr *sig = section(orig, UMB_SIGNATURE_SECTION);
	struct {
		const char *what;
		size_t off;
	} flips[] = {
		{ "ELF header (e_entry)", offsetof(Elf64_Ehdr, e_entry) },
		{ "ELF header (e_ident padding)", EI_PAD + 1 },
		{ "program headers", eh->e_phoff + 9 },
		{ "code (.text)", text ? text->sh_offset + text->sh_size / 2 : 0 },
		{ "read-only data (.rodata)",
		  rodata ? rodata->sh_offset + rodata->sh_size / 2 : 0 },
		{ "data (.data)", data && data->sh_size ? data->sh_offset : 0 },
		{ "policy section (header)", pol->sh_offset + 1 },
		{ "policy section (text)", pol->sh_offset + pol->sh_size - 1 },
		{ "signature section (key id)",
		  sig->sh_offset + offsetof(struct umb_signature, key_id) },
		{ "signature section (signature)",
		  sig->sh_offset + offsetof(struct umb_signature, signature) + 10 },
		{ "signature section (algorithm)",
		  sig->sh_offset + offsetof(struct umb_signature, algorithm) },
		{ "section headers (.text's address)",
		  eh->e_shoff + section_index(orig, ".text") * sizeof(Elf64_Shdr) +
			  offsetof(Elf64_Shdr, sh_addr) },
		{ "section headers (the signature's own size)",
		  eh->e_shoff + section_index(orig, UMB_SIGNATURE_SECTION) * sizeof(Elf64_Shdr) +
			  offsetof(Elf64_Shdr, sh_size) },
		{ "last byte of the file", orig_len - 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(flips); i++) {
		uint8_t *b;

		if (!flips[i].off) {
			TAP_SKIP("a flipped bit in the %s: none in this file", flips[i].what);
			continue;
		}
		b = fresh();
		b[flips[i].off] ^= 0x01;
		expect_not_signed(b, orig_len, flips[i].what);
	}
}

static Elf64_Shdr *shdr_of(uint8_t *b, const char *name)
{
	return section(b, name);
}

static void test_malformed(void)
{
	Elf64_Ehdr *eh;
	Elf64_Shdr *s, *t;
	uint8_t *b;

	b = fresh();
	expect_malformed(b, 20, "a 20-byte file with the ELF magic");
	b = fresh();
	expect_malformed(b, 63, "a file cut inside the ELF header");
	b = fresh();
	expect_malformed(b, 4096, "a file cut before its section headers");
	b = fresh();
	expect_malformed(b, orig_len - 1, "a file cut in its last section header");

	b = fresh();
	b[EI_CLASS] = ELFCLASS32;
	expect_malformed(b, orig_len, "a 32-bit class");
	b = fresh();
	b[EI_DATA] = ELFDATA2MSB;
	expect_malformed(b, orig_len, "big-endian");
	b = fresh();
	b[EI_VERSION] = 0;
	expect_malformed(b, orig_len, "ELF ident version 0");

	b = fresh();
	((Elf64_Ehdr *)b)->e_shoff = 0xffffffffffffff00ULL;
	expect_malformed(b, orig_len, "e_shoff near 2^64 (overflow)");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shoff = orig_len - 10;
	expect_malformed(b, orig_len, "e_shoff 10 bytes before the end");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shoff = 8;
	expect_malformed(b, orig_len, "section headers overlapping the ELF header");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shnum = 0xfeff;
	expect_malformed(b, orig_len, "e_shnum past the end of the file");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shnum = 0;
	expect_malformed(b, orig_len, "e_shnum 0 with e_shoff set (extended numbering)");
	b = fresh();
	eh = (Elf64_Ehdr *)b;
	eh->e_shnum = 0;
	((Elf64_Shdr *)(b + eh->e_shoff))->sh_size = 0x7fffffffffULL;
	expect_malformed(b, orig_len, "extended numbering claiming 2^39 sections");
	b = fresh();
	eh = (Elf64_Ehdr *)b;
	eh->e_shstrndx = eh->e_shnum + 3;
	expect_malformed(b, orig_len, "e_shstrndx out of range");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shstrndx = 1;
	expect_malformed(b, orig_len, "e_shstrndx naming a section that is no string table");
	b = fresh();
	((Elf64_Ehdr *)b)->e_shentsize = 32;
	expect_malformed(b, orig_len, "e_shentsize 32");
	b = fresh();
	((Elf64_Ehdr *)b)->e_ehsize = 52;
	expect_malformed(b, orig_len, "e_ehsize 52");
	b = fresh();
	((Elf64_Ehdr *)b)->e_phoff = orig_len - 8;
	expect_malformed(b, orig_len, "program headers past the end of the file");

	b = fresh();
	shdr_of(b, ".text")->sh_offset = orig_len + 100;
	expect_malformed(b, orig_len, "a section (.text) starting past the end of the file");
	b = fresh();
	s = shdr_of(b, ".comment");
	if (!s)
		s = shdr_of(b, ".text");
	s->sh_offset = 0xfffffffffffffff0ULL;
	s->sh_size = 0x20;
	expect_malformed(b, orig_len, "a section whose offset + size overflows");
	b = fresh();
	shdr_of(b, ".text")->sh_size = 1ULL << 62;
	expect_malformed(b, orig_len, "a section of 2^62 bytes");
	b = fresh();
	shdr_of(b, ".shstrtab")->sh_size = orig_len;
	expect_malformed(b, orig_len, "a section name table past the end of the file");
	b = fresh();
	shdr_of(b, ".text")->sh_name = 0x7fffffff;
	expect_malformed(b, orig_len, "a section name offset out of range");

	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_size = 1ULL << 62;
	expect_malformed(b, orig_len, "a signature section of 2^62 bytes");
	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_size = 111;
	expect_malformed(b, orig_len, "a signature section of 111 bytes");
	b = fresh();
	shdr_of(b, UMB_POLICY_SECTION)->sh_size = 1ULL << 40;
	expect_malformed(b, orig_len, "a policy section of 2^40 bytes");
	b = fresh();
	shdr_of(b, UMB_POLICY_SECTION)->sh_size = 16;
	expect_malformed(b, orig_len, "a policy section of only its header");
	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_type = SHT_NOBITS;
	expect_malformed(b, orig_len, "a signature section of type SHT_NOBITS");
	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_flags |= SHF_ALLOC;
	expect_malformed(b, orig_len, "an allocated signature section");
	b = fresh();
	shdr_of(b, UMB_POLICY_SECTION)->sh_type = SHT_NOTE;
	expect_malformed(b, orig_len, "a policy section of type SHT_NOTE");

	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_offset = shdr_of(b, ".text")->sh_offset;
	expect_malformed(b, orig_len, "a signature section over .text");
	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_offset = 16;
	expect_malformed(b, orig_len, "a signature section over the ELF header");
	b = fresh();
	shdr_of(b, UMB_SIGNATURE_SECTION)->sh_offset = ((Elf64_Ehdr *)b)->e_shoff + 8;
	expect_malformed(b, orig_len, "a signature section over the section headers");
	b = fresh();
	shdr_of(b, UMB_POLICY_SECTION)->sh_offset = ((Elf64_Ehdr *)b)->e_phoff;
	expect_malformed(b, orig_len, "a policy section over the program headers");
	b = fresh();
	s = shdr_of(b, UMB_POLICY_SECTION);
	t = shdr_of(b, UMB_SIGNATURE_SECTION);
	s->sh_offset = t->sh_offset + 8;
	expect_malformed(b, orig_len, "a policy section overlapping the signature section");

	b = fresh();
	s = shdr_of(b, ".comment") ? shdr_of(b, ".comment") : shdr_of(b, ".text");
	s->sh_name = shdr_of(b, UMB_SIGNATURE_SECTION)->sh_name;
	expect_malformed(b, orig_len, "two signature sections");
	b = fresh();
	s = shdr_of(b, ".comment") ? shdr_of(b, ".comment") : shdr_of(b, ".text");
	s->sh_name = shdr_of(b, UMB_POLICY_SECTION)->sh_name;
	expect_malformed(b, orig_len, "two policy sections");

	b = fresh();
	b[shdr_of(b, UMB_SIGNATURE_SECTION)->sh_offset] ^= 0x20;
	expect_malformed(b, orig_len, "a bad signature magic");
	b = fresh();
	b[shdr_of(b, UMB_SIGNATURE_SECTION)->sh_offset + 8] = 2;
	expect_malformed(b, orig_len, "signature version 2");
	b = fresh();
	b[shdr_of(b, UMB_POLICY_SECTION)->sh_offset + 3] ^= 0x20;
	expect_malformed(b, orig_len, "a bad policy magic");
	b = fresh();
	b[shdr_of(b, UMB_POLICY_SECTION)->sh_offset + 8] = 7;
	expect_malformed(b, orig_len, "policy version 7");

	{
		struct {
			const char *what;
			uint32_t text_len;
		} lens[] = {
			{ "policy text_len 0", 0 },
			{ "policy text_len past the section", 1000 },
			{ "policy text_len 2^32 - 1", 0xffffffff },
			{ "policy text_len one short: non-zero padding", 0 /* set below */ },
		};

		for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
			uint32_t v = lens[i].text_len;

			b = fresh();
			s = shdr_of(b, UMB_POLICY_SECTION);
			if (i == 3)
				v = (uint32_t)(s->sh_size - sizeof(struct umb_policy_header) - 1);
			memcpy(b + s->sh_offset + 12, &v, sizeof(v));
			expect_malformed(b, orig_len, lens[i].what);
		}
	}
	b = fresh();
	s = shdr_of(b, UMB_POLICY_SECTION);
	b[s->sh_offset + 16] = 'x'; /* "fs:" becomes "xs:" */
	expect_malformed(b, orig_len, "a policy the grammar refuses (xs:/etc/passwd)");
	b = fresh();
	s = shdr_of(b, UMB_POLICY_SECTION);
	b[s->sh_offset + 18] = '\0';
	expect_malformed(b, orig_len, "a NUL inside the policy text");
}

/*
 * Every byte of the ELF header, the program and section header tables and the section
 * name table, set to 0, 0xff and flipped: the reader never crashes, fails only with
 * -EBADMSG, and nothing patched verifies as signed.
 */
static void test_header_bytes(void)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)orig;
	Elf64_Shdr *names = section(orig, ".shstrtab");
	struct {
		uint64_t off, len;
	} regions[] = {
		{ 0, sizeof(Elf64_Ehdr) },
		{ eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) },
		{ eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) },
		{ names->sh_offset, names->sh_size },
	};
	static const int values[] = { 0x00, 0xff, -1 /* flip the top bit */ };
	unsigned files = 0, bad_result = 0, verified = 0;
	struct keyring *k = NULL;
	uint8_t *b = fresh();
	char *error = NULL;
	int fd = memfd_create("patched", MFD_CLOEXEC);

	if (fd < 0 || keyring_load(ring, &k, &error) < 0) {
		TAP_OK(false, "memfd and key ring for the header fuzz: %s", error);
		free(error);
		free(b);
		return;
	}
	for (size_t g = 0; g < ARRAY_SIZE(regions); g++) {
		for (uint64_t off = regions[g].off; off < regions[g].off + regions[g].len; off++) {
			for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
				uint8_t saved = b[off], nv;
				struct signed_elf e;
				const char *reason;
				int r;

				nv = values[v] < 0 ? saved ^ 0x80 : (uint8_t)values[v];
				if (nv == saved)
					continue;
				b[off] = nv;
				if (pwrite(fd, b, orig_len, 0) != (ssize_t)orig_len)
					bad_result++;
				files++;
				r = signed_elf_read(fd, 0, &e, &error);
				if (r == 0 &&
				    keyring_verify(k, &e, &reason) == UMB_VERDICT_SIGNED) {
					verified++;
					TAP_DIAG("byte %llu = 0x%02x still verifies",
						 (unsigned long long)off, nv);
				}
				if (r != 0 && r != -EBADMSG) {
					bad_result++;
					TAP_DIAG("byte %llu = 0x%02x: %d %s",
						 (unsigned long long)off, nv, r, error);
				}
				signed_elf_release(&e);
				free(error);
				error = NULL;
				b[off] = saved;
			}
		}
	}
	TAP_OK(files > 1000 && bad_result == 0 && verified == 0,
	       "%u files with one header byte patched: none verifies, every error -EBADMSG", files);
	keyring_free(k);
	close(fd);
	free(b);
}

/* The policy text that scratch reads back as after its policy's version is set to 1
 * and it is signed again (malloc'd), or NULL. */
static char *policy_as_v1(uint8_t *b, size_t len, EVP_PKEY *key)
{
	struct signed_elf e;
	char *error = NULL, *text = NULL;
	int fd, r;

	b[shdr_of(b, UMB_POLICY_SECTION)->sh_offset + 8] = 1;
	r = write_whole(scratch, b, len);
	free(b);
	r = r ?: signed_elf_sign(scratch, key, NULL, 0, &error);
	if (r < 0) {
		TAP_DIAG("re-signing with a version 1 policy: %s", error ? error : strerror(-r));
		free(error);
		return NULL;
	}
	fd = open(scratch, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && signed_elf_read(fd, 0, &e, &error) == 0) {
		text = e.policy_text ? strdup(e.policy_text) : NULL;
		signed_elf_release(&e);
	} else {
		TAP_DIAG("reading it: %s", error ? error : "failed");
	}
	free(error);
	if (fd >= 0)
		close(fd);
	return text;
}

/* A policy of version 1 was signed when "net" denied every family: it reads as
 * "net:all"; a version 1 text without "net" reads as written. */
static void test_policy_v1(EVP_PKEY *key)
{
	char *text = policy_as_v1(fresh(), orig_len, key), *error = NULL;
	uint8_t *b;
	size_t len;

	TAP_OK(text && !strcmp(text, "fs:/etc/passwd,net:all"),
	       "a version 1 policy's net reads as net:all: %s", text ? text : "(none)");
	free(text);

	if (copy_file(path, scratch, 0755) < 0 ||
	    signed_elf_sign(scratch, key, "net:inet,net:unix,fork", 0, &error) < 0) {
		TAP_OK(false, "sign with a policy without net: %s", error ? error : "failed");
		free(error);
		return;
	}
	b = read_whole(scratch, &len);
	text = b ? policy_as_v1(b, len, key) : NULL;
	TAP_OK(text && !strcmp(text, "net:inet,net:unix,fork"),
	       "a version 1 policy without net reads as written: %s", text ? text : "(none)");
	free(text);
}

/* Signs @b (@len bytes, a signed file) again as a signer before the mark did: the
 * digest over everything but the signature's bytes, signed with @key in place. */
static void resign_in_place(uint8_t *b, size_t len, EVP_PKEY *key)
{
	Elf64_Shdr *sig = section(b, UMB_SIGNATURE_SECTION);
	struct umb_signature *s = (struct umb_signature *)(b + sig->sh_offset);
	uint8_t digest[32];
	size_t siglen = sizeof(s->signature);
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, b, sig->sh_offset);
	EVP_DigestUpdate(md, b + sig->sh_offset + sig->sh_size,
			 len - sig->sh_offset - sig->sh_size);
	EVP_DigestFinal_ex(md, digest, NULL);
	EVP_MD_CTX_free(md);
	md = EVP_MD_CTX_new();
	EVP_DigestSignInit(md, NULL, NULL, NULL, key);
	EVP_DigestSign(md, s->signature, &siglen, digest, sizeof(digest));
	EVP_MD_CTX_free(md);
}

/* Whether the file @p reads as marked (-1: it does not read). */
static int marked(const char *p)
{
	struct signed_elf e;
	int fd = open(p, O_RDONLY | O_CLOEXEC), r;

	r = fd < 0 ? -1 : signed_elf_read(fd, 0, &e, NULL);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return -1;
	r = e.marked;
	signed_elf_release(&e);
	return r;
}

/*
 * The signature mark (include/umbrella/signed-elf-format.h): signing writes it into the first
 * program header's p_paddr, inside the digest; the file still runs, through the kernel
 * and through ld.so (which refuses a nonzero e_ident padding, and loads shared objects
 * the same way); a marked file without a signature is refused; a file signed without
 * the mark (an older signer) verifies.
 */
static void test_mark(const char *src, EVP_PKEY *key)
{
	static const char *const ldso[] = { "/lib64/ld-linux-x86-64.so.2",
					    "/lib/ld-linux-aarch64.so.1" };
	Elf64_Phdr ph;
	uint8_t *b;
	size_t len;
	int status;

	TAP_EQ(marked(path), 1, "a signed file carries the signature mark");
	memcpy(&ph, orig + UMB_SIGNATURE_MARK_OFFSET - offsetof(Elf64_Phdr, p_paddr), sizeof(ph));
	TAP_OK(((Elf64_Ehdr *)orig)->e_phoff == 64 && ph.p_paddr == UMB_SIGNATURE_MARK,
	       "the mark is the first program header's p_paddr (0x%llx)",
	       (unsigned long long)ph.p_paddr);
	for (size_t i = 0; i < ARRAY_SIZE(ldso); i++) {
		pid_t pid;

		if (access(ldso[i], X_OK) < 0)
			continue;
		pid = fork();
		if (pid == 0) {
			execl(ldso[i], ldso[i], path, (char *)NULL);
			_exit(127);
		}
		TAP_OK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			       WEXITSTATUS(status) == 0,
		       "the marked file runs through %s (its e_ident and header checks)", ldso[i]);
	}

	/* The mark alone, in an unsigned file: claims a signature it does not have. */
	b = read_whole(src, &len);
	if (!b || len < UMB_SIGNATURE_MARK_HEAD || ((Elf64_Ehdr *)b)->e_phoff != 64) {
		TAP_OK(false, "%s: a file with program headers at 64", src);
		free(b);
		return;
	}
	{
		const uint64_t mark = UMB_SIGNATURE_MARK;

		memcpy(b + UMB_SIGNATURE_MARK_OFFSET, &mark, sizeof(mark));
	}
	expect_malformed(b, len, "the signature mark without a signature section");

	/* Signed before the mark: the mark taken out, the digest signed again. */
	b = fresh();
	memcpy(b + UMB_SIGNATURE_MARK_OFFSET, &ph.p_vaddr, sizeof(ph.p_vaddr));
	expect_not_signed(fresh_with(b), orig_len, "the mark taken out of a signed file");
	resign_in_place(b, orig_len, key);
	if (write_whole(scratch, b, orig_len) == 0) {
		const char *reason;

		TAP_EQ(verdict_of(scratch, &reason, NULL), UMB_VERDICT_SIGNED,
		       "signed without the mark (an older signer): verifies (%s)", reason);
		TAP_EQ(marked(scratch), 0, "and reads as not marked");
	}
	free(b);
}

/* The macro's layout, checked on the section it puts into this very test. */
UMBRELLA_EXEC_RESTRICTIONS("fs:/etc/passwd,net");

static void test_macro(void)
{
	struct umb_policy_header h;
	const char text[] = "fs:/etc/passwd,net";

	memcpy(&h, &umb__exec_restrictions_0, sizeof(h));
	TAP_OK(!memcmp(h.magic, UMB_POLICY_MAGIC, 8) && h.version == UMB_POLICY_VERSION &&
		       h.text_len == sizeof(text) - 1,
	       "the macro's header: magic, version %u, text_len %u", h.version, h.text_len);
	TAP_EQ(sizeof(umb__exec_restrictions_0), sizeof(h) + sizeof(text),
	       "the macro's section: header, text and one NUL");
	TAP_EQ(_Alignof(__typeof__(umb__exec_restrictions_0)), 1, "the macro's alignment is 1");
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : "/bin/true";
	EVP_PKEY *key = NULL, *other = NULL;
	const char *reason;
	char *error = NULL;
	size_t len, len2;
	struct stat st;
	int r;

	if (!mkdtemp(tmp)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 77;
	}
	snprintf(ring, sizeof(ring), "%s/keys", tmp);
	snprintf(path, sizeof(path), "%s/true", tmp);
	snprintf(scratch, sizeof(scratch), "%s/patched", tmp);
	mkdir(ring, 0755);

	key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	other = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	TAP_OK(key && other && ring_add_public_key(ring, key) == 0,
	       "a fresh Ed25519 key in the ring");

	test_macro();

	r = copy_file(src, path, 0755);
	TAP_EQ(r, 0, "copy %s", src);
	TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_UNSIGNED, "unsigned: %s", reason);

	r = signed_elf_sign(path, key, "fs:/etc/passwd,net", 0, &error);
	TAP_EQ(r, 0, "sign a copy of %s: %s", src, error ? error : "ok");
	free(error);
	error = NULL;
	TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_SIGNED, "signed: %s", reason);
	TAP_EQ(run(path), 0, "the signed copy still runs");
	TAP_OK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0755, "its mode is kept");

	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct signed_elf e;

		r = signed_elf_read(fd, 0, &e, &error);
		TAP_OK(r == 0 && e.is_elf && e.has_policy && e.has_signature &&
			       !strcmp(e.policy_text, "fs:/etc/passwd,net"),
		       "the policy reads back: %s", r == 0 && e.policy_text ? e.policy_text : "");
		signed_elf_release(&e);
		free(error);
		error = NULL;
		r = signed_elf_read(fd, 1, &e, &error);
		TAP_EQ(r, -ETIMEDOUT, "a deadline in the past: -ETIMEDOUT (%s)", error);
		free(error);
		error = NULL;
		close(fd);
	}

	orig = read_whole(path, &orig_len);
	r = signed_elf_sign(path, key, NULL, 0, &error);
	free(error);
	error = NULL;
	free(read_whole(path, &len));
	TAP_OK(r == 0 && len == orig_len, "re-signing keeps the size (%zu, %zu)", orig_len, len);
	r = signed_elf_sign(path, key, "fs:/etc/passwd,net", 0, &error);
	free(error);
	error = NULL;
	free(read_whole(path, &len2));
	TAP_OK(r == 0 && len2 == orig_len, "re-signing with the same policy keeps the size");
	TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_SIGNED, "re-signed: %s", reason);

	test_flips();
	test_malformed();
	test_header_bytes();
	test_policy_v1(key);
	test_mark(src, key);

	/* Unknown key: signed by a key that is not in the ring. */
	r = copy_file(path, scratch, 0755);
	r = r ?: signed_elf_sign(scratch, other, NULL, 0, &error);
	free(error);
	error = NULL;
	TAP_EQ(r, 0, "sign with a second key");
	TAP_EQ(verdict_of(scratch, &reason, NULL), UMB_VERDICT_REFUSED, "unknown key refused");
	TAP_OK(!strcmp(reason, "unknown key"), "reason: %s", reason);
	TAP_OK(last_signer_unknown, "unknown key: keyring_signer_unknown() (runs as unsigned)");
	TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_SIGNED, "control: the ring's key");
	TAP_OK(!last_signer_unknown, "the ring's key: not an unknown signer");

	/* Revoked: the key file is still there, its id in "revoked". */
	{
		uint8_t id[UMB_KEY_ID_LEN];
		char hex[KEY_ID_HEX_LEN + 1], p[4200];
		FILE *f;

		key_id_of(key, id);
		key_id_to_hex(id, hex);
		snprintf(p, sizeof(p), "%s/revoked", ring);
		f = fopen(p, "we");
		fprintf(f, "# revoked in the test\n%s\n", hex);
		fclose(f);
		TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_REFUSED,
		       "revoked key refused while its file is in the ring");
		TAP_OK(!strcmp(reason, "revoked key"), "reason: %s", reason);
		TAP_OK(!last_signer_unknown, "a revoked key is no unknown signer");
		f = fopen(p, "we");
		fprintf(f, "# a typo in a revocation\n%.63s\n", hex);
		fclose(f);
		{
			struct keyring *k = NULL;

			r = keyring_load(ring, &k, &error);
			TAP_OK(r == 0 && !keyring_revocations_known(k) &&
				       keyring_rejected_count(k) == 1 &&
				       strstr(keyring_rejected(k, 0), "/revoked:2: not a key id"),
			       "a malformed revocation list is rejected, naming its line: %s",
			       r == 0 ? keyring_rejected(k, 0) : error);
			keyring_free(k);
			free(error);
			error = NULL;
		}
		/* Which key the bad line meant is not known: none is trusted. */
		TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_REFUSED,
		       "a malformed revocation list: a binary signed by the key is refused");
		TAP_OK(!strcmp(reason, "revocation list unreadable"), "reason: %s", reason);
		/* Zeros (a crash can leave them in a file) and then the id, as "key revoke"
		 * appends it: the id must not go unseen (tests/fuzz found it did). */
		f = fopen(p, "we");
		fprintf(f, "# zeros%c%c%c\n%s\n", 0, 0, 0, hex);
		fclose(f);
		TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_REFUSED,
		       "a NUL byte in the revocation list: a binary signed by the key is refused");
		TAP_OK(!strcmp(reason, "revocation list unreadable"), "reason: %s", reason);
		unlink(p);
		TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_SIGNED,
		       "without the list the binary verifies again (%s)", reason);
	}

	/* A file that is not ELF: no error, unsigned. */
	{
		static const uint8_t script[] = "#!/bin/sh\nexit 0\n";

		write_whole(scratch, script, sizeof(script) - 1);
		TAP_EQ(verdict_of(scratch, &reason, NULL), UMB_VERDICT_UNSIGNED,
		       "a script is unsigned: %s", reason);
	}
	/* Over the size limit (sparse). */
	{
		int fd = open(scratch, O_RDWR | O_TRUNC | O_CLOEXEC);
		struct signed_elf e;

		r = fd >= 0 && ftruncate(fd, (1LL << 30) + 1) == 0 ? 0 : -errno;
		if (r == 0)
			r = signed_elf_read(fd, 0, &e, &error);
		TAP_EQ(r, -EFBIG, "a file over 1 GiB: -EFBIG (%s)", error);
		free(error);
		error = NULL;
		if (fd >= 0)
			close(fd);
	}
	/* signed_elf_begin(): a file without a signature section is decided on its
	 * headers, whatever its size; a signed one is hashed step by step. */
	{
		struct signed_elf_reader *rd = NULL;
		struct signed_elf e, whole;
		size_t self_len;
		uint8_t *self = read_whole("/proc/self/exe", &self_len);
		int fd, steps = 0;

		write_whole(scratch, self, self_len);
		free(self);
		fd = open(scratch, O_RDWR | O_CLOEXEC);
		r = fd >= 0 && ftruncate(fd, 2LL << 30) == 0 ? 0 : -errno;
		if (r == 0)
			r = signed_elf_begin(fd, 0, &e, &rd, &error);
		TAP_OK(r == 0 && !rd && e.is_elf && !e.has_signature && e.size == 2ULL << 30,
		       "begin: an unsigned ELF file of 2 GiB is decided on its headers (%d: %s)", r,
		       error ? error : "");
		free(error);
		error = NULL;
		signed_elf_release(&e);
		if (fd >= 0)
			close(fd);

		write_whole(scratch, orig, orig_len);
		fd = open(scratch, O_RDWR | O_CLOEXEC);
		r = signed_elf_begin(fd, 0, &e, &rd, &error);
		while (r == 0 && rd) {
			steps++;
			r = signed_elf_step(rd, 1, &error);
			if (r == 1)
				r = 0;
			else
				rd = NULL;
		}
		TAP_OK(r == 0 && e.has_signature && signed_elf_read(fd, 0, &whole, NULL) == 0 &&
			       !memcmp(e.digest, whole.digest, sizeof(e.digest)),
		       "begin and step: a signed file's digest, as signed_elf_read()'s (%d steps)",
		       steps);
		signed_elf_release(&e);
		signed_elf_release(&whole);
		r = ftruncate(fd, (1LL << 30) + 1) == 0 ? signed_elf_begin(fd, 0, &e, &rd, &error) :
							  -errno;
		TAP_EQ(r, -EFBIG, "begin: a signature section in a file over 1 GiB: -EFBIG (%s)",
		       error);
		free(error);
		error = NULL;
		if (fd >= 0)
			close(fd);
	}
	/* Key ring files that are not a key, or not named by its id: each rejected, the
	 * valid key still trusted, the stray copies of a key not (not even the one that
	 * is the same key: "key remove ID" must remove its trust). */
	{
		static const char *const stray[] = { "README", "vendor.pub", "UPPER" };
		char p[4200], hex[KEY_ID_HEX_LEN + 1], upper[KEY_ID_HEX_LEN + 1];
		char *seen = NULL;
		uint8_t id[UMB_KEY_ID_LEN];
		struct keyring *k = NULL;
		FILE *f;

		key_id_of(other, id);
		key_id_to_hex(id, hex);
		for (size_t i = 0; i <= KEY_ID_HEX_LEN; i++)
			upper[i] = (char)toupper((unsigned char)hex[i]);
		snprintf(p, sizeof(p), "%s/README", ring);
		f = fopen(p, "we");
		fputs("hello\n", f);
		fclose(f);
		snprintf(p, sizeof(p), "%s/vendor.pub", ring);
		f = fopen(p, "we");
		PEM_write_PUBKEY(f, other);
		fclose(f);
		snprintf(p, sizeof(p), "%s/%s.pem", ring, upper);
		f = fopen(p, "we");
		PEM_write_PUBKEY(f, other);
		fclose(f);
		r = keyring_load(ring, &k, &error);
		for (size_t i = 0; r == 0 && i < keyring_rejected_count(k); i++) {
			char *more;

			if (asprintf(&more, "%s%s; ", seen ? seen : "", keyring_rejected(k, i)) < 0)
				break;
			free(seen);
			seen = more;
		}
		TAP_OK(r == 0 && keyring_rejected_count(k) == 3 && keyring_count(k) == 1 &&
			       keyring_revocations_known(k) && seen && strstr(seen, "/README: ") &&
			       strstr(seen, "/vendor.pub: the Ed25519 public key ") &&
			       strstr(seen, upper),
		       "three stray files in the ring: each rejected and named, one key kept: %s",
		       seen ? seen : error);
		TAP_OK(r == 0 && !keyring_has_key(k, id), "the stray copies' key is not trusted");
		free(seen);
		free(error);
		error = NULL;
		keyring_free(k);
		TAP_EQ(verdict_of(path, &reason, NULL), UMB_VERDICT_SIGNED,
		       "with stray files beside it, a binary signed by the valid key verifies (%s)",
		       reason);
		for (size_t i = 0; i < ARRAY_SIZE(stray); i++) {
			if (!strcmp(stray[i], "UPPER"))
				snprintf(p, sizeof(p), "%s/%s.pem", ring, upper);
			else
				snprintf(p, sizeof(p), "%s/%s", ring, stray[i]);
			unlink(p);
		}
	}

	free(orig);
	EVP_PKEY_free(key);
	EVP_PKEY_free(other);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		(void)!system(cmd);
	}
	return tap_finish();
}
