// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * signing (internal) - signing an ELF file (signed-elf-sign.h), in steps:
 *
 *   sign_open()        the file read whole (a regular file, one link, at most 1 GiB)
 *   sign_parse()       its layout checked as the reader will, and that it can be marked
 *   sign_check_policy() a policy section, or the caller's word that it has none
 *   sign_find_cut()    what the previous signing appended (cut and written anew)
 *   sign_plan()        the new policy, names and section headers
 *   sign_write_image() the new file's bytes: the kept part, the mark, the new tail
 *   sign_image()       the digest (digest.h) and the Ed25519 signature over it
 *   file_replace()     the new file renamed over the old one (file-replace.h)
 *
 * The format, and why the tail goes where it goes: include/umbrella/signed-elf-format.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <umbrella/signed-elf-format.h>

#include "digest.h"
#include "elf-layout.h"
#include "file-replace.h"
#include "keyring.h"
#include "policy-section.h"
#include "signed-elf-sign.h"
#include "signing-error.h"

/* One file being signed, from its reading to its replacement. */
struct signing {
	const char *path;	 /* as the caller named it, for messages */
	const char *policy_text; /* the caller's policy, or NULL */
	unsigned int flags;	 /* enum signed_elf_sign_flags */
	char *real;		 /* realpath(path): the name replaced */
	int fd;			 /* the file, open for reading */
	struct stat st;
	uint8_t *buf; /* its st.st_size bytes */
	Elf *elf;     /* libelf's view of buf */
	struct layout l;
	/* The new file: [0, cut) of the old, the policy (policy_len bytes, 0: none
	 * written), the signature at sig_off, the name table (strtab_len), the headers. */
	uint64_t cut, policy_len, strtab_len, sig_off, out_len;
	uint8_t *policy;
	long name_policy, name_sig; /* the names' offsets in the new name table */
	GElf_Shdr *shdrs;	    /* the new section headers, nshdr of them */
	size_t nshdr, policy_idx, sig_idx;
	uint8_t *out;
};

static int read_all(int fd, uint64_t size, uint8_t *buf)
{
	uint64_t off = 0;

	while (off < size) {
		ssize_t n = pread(fd, buf + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		off += (uint64_t)n;
	}
	return 0;
}

/* The offset of @name (with its NUL) in the string table @tab of @len bytes, or -1. */
static long strtab_find(const uint8_t *tab, uint64_t len, const char *name)
{
	size_t n = strlen(name) + 1;

	for (uint64_t i = 0; i + n <= len; i++)
		if (!memcmp(tab + i, name, n))
			return (long)i;
	return -1;
}

/* Reads the file whole: a regular file with one name, at most SIGNED_ELF_SIZE_MAX. */
static int sign_open(struct signing *s, char **ret_error)
{
	int r;

	s->real = realpath(s->path, NULL);
	if (!s->real) {
		r = -errno;
		return signing_error(ret_error, r, "%s: %s", s->path, strerror(-r));
	}
	s->fd = open(s->real, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (s->fd < 0 || fstat(s->fd, &s->st) < 0) {
		r = -errno;
		return signing_error(ret_error, r, "%s: %s", s->path, strerror(-r));
	}
	if (!S_ISREG(s->st.st_mode))
		return signing_error(ret_error, -EINVAL, "%s: not a regular file", s->path);
	/* The signed file replaces this name only: the other names would keep running the
	 * unsigned copy, unnoticed. */
	if (s->st.st_nlink > 1)
		return signing_error(ret_error, -EMLINK,
				     "%ju hard links: signing writes a new file, and the other "
				     "names would keep the unsigned one; sign a copy, or remove "
				     "the other links",
				     (uintmax_t)s->st.st_nlink);
	if ((uint64_t)s->st.st_size > SIGNED_ELF_SIZE_MAX)
		return signing_error(ret_error, -EFBIG, "%s: larger than 1 GiB", s->path);
	s->buf = malloc(s->st.st_size ? (size_t)s->st.st_size : 1);
	if (!s->buf)
		return -ENOMEM;
	r = read_all(s->fd, (uint64_t)s->st.st_size, s->buf);
	if (r < 0)
		return signing_error(ret_error, r, "%s: %s", s->path, strerror(-r));
	return 0;
}

/* Checks the file as the reader will, and that it has where the mark goes. */
static int sign_parse(struct signing *s, char **ret_error)
{
	uint64_t size = (uint64_t)s->st.st_size;
	int r;

	if (size < SELFMAG || memcmp(s->buf, ELFMAG, SELFMAG))
		return set_error(ret_error, "%s: not an ELF file", s->path);
	r = elf_check_ident(s->buf, size, ret_error);
	if (r < 0)
		return r;
	(void)elf_version(EV_CURRENT);
	s->elf = elf_memory((char *)s->buf, (size_t)size);
	if (!s->elf)
		return set_error(ret_error, "not a valid ELF file: %s", elf_errmsg(-1));
	r = elf_layout_parse(s->elf, size, &s->l, ret_error);
	if (r < 0)
		return r;
	if (s->l.shnum == 0 || s->l.shstrndx == SHN_UNDEF)
		return set_error(ret_error, "%s has no section headers or no section name table",
				 s->path);
	/* The mark goes where the kernel's first bytes of the file hold it (signed-elf-format.h). */
	if (s->l.ehdr.e_phnum == 0)
		return set_error(ret_error,
				 "%s has no program headers: not a program or a "
				 "shared object",
				 s->path);
	if (s->l.ehdr.e_phoff != UMB_SIGNATURE_MARK_PHOFF)
		return set_error(
			ret_error,
			"%s: its program headers are at offset %llu, not "
			"right after the ELF header (%d), where the signature mark must be",
			s->path, (unsigned long long)s->l.ehdr.e_phoff, UMB_SIGNATURE_MARK_PHOFF);
	return 0;
}

/*
 * No policy section may mean the linker dropped UMBRELLA_EXEC_RESTRICTIONS()'s: never
 * sign such a file to run unrestricted unless the caller says it is meant. The file's
 * own policy must be valid if it stays; one being replaced need not be.
 */
static int sign_check_policy(struct signing *s, char **ret_error)
{
	const struct layout *l = &s->l;

	if (l->policy < 0 && !s->policy_text && !(s->flags & SIGNED_ELF_SIGN_NO_POLICY))
		return signing_error(ret_error, -ENODATA,
				     "no policy section (if it was built with "
				     "UMBRELLA_EXEC_RESTRICTIONS(), the linker dropped it)");
	if (l->policy >= 0 && (s->flags & SIGNED_ELF_SIGN_NO_POLICY))
		return signing_error(ret_error, -EEXIST,
				     "it has a policy section: it would not run without "
				     "restrictions");
	if (l->policy >= 0 && !s->policy_text)
		return policy_section_check(s->buf + l->policy_shdr.sh_offset,
					    l->policy_shdr.sh_size, NULL, ret_error);
	return 0;
}

/*
 * What the previous signing appended (the tail: a non-allocated policy, the signature,
 * the section name table, the section headers) is cut and written anew, so re-signing
 * does not grow the file. The cut is never below the end of anything that stays: the
 * headers, a segment's bytes or a section's.
 */
static int sign_find_cut(struct signing *s, char **ret_error)
{
	const struct layout *l = &s->l;
	uint64_t size = (uint64_t)s->st.st_size, kept_end, tail_start;

	kept_end = l->ehdr.e_phoff + (uint64_t)l->ehdr.e_phnum * sizeof(Elf64_Phdr);
	for (size_t i = 0; i < l->ehdr.e_phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(s->elf, (int)i, &ph))
			return set_error(ret_error, "program header %zu: %s", i, elf_errmsg(-1));
		if (!within(ph.p_offset, ph.p_filesz, size))
			return set_error(ret_error, "segment %zu ends beyond the end of the file",
					 i);
		if (ph.p_offset + ph.p_filesz > kept_end)
			kept_end = ph.p_offset + ph.p_filesz;
	}
	tail_start = l->ehdr.e_shoff;
	for (size_t i = 1; i < l->shnum; i++) {
		const GElf_Shdr *sh = &l->shdrs[i];
		bool ours = i == l->shstrndx || (long)i == l->sig ||
			    ((long)i == l->policy && !(sh->sh_flags & SHF_ALLOC));

		if (sh->sh_type == SHT_NULL || sh->sh_type == SHT_NOBITS || !sh->sh_size)
			continue;
		if (ours && sh->sh_offset < tail_start)
			tail_start = sh->sh_offset;
		if (!ours && sh->sh_offset + sh->sh_size > kept_end)
			kept_end = sh->sh_offset + sh->sh_size;
	}
	s->cut = tail_start > kept_end ? tail_start : kept_end;
	/* Bytes after the section headers that no header describes (an appended payload)
	 * are kept: the new tail goes after them. */
	if (l->ehdr.e_shoff + l->shnum * sizeof(Elf64_Shdr) != size)
		s->cut = size;
	return 0;
}

/*
 * The new tail's contents: the policy (new text, or the file's non-allocated one
 * carried over), the section name table (the old one's bytes, and our names if it
 * lacks them), and the section headers. umbrella's sections keep their index (nothing
 * that refers to a section by index changes), new ones go at the end.
 */
static int sign_plan(struct signing *s, char **ret_error)
{
	const struct layout *l = &s->l;
	const GElf_Shdr *names = &l->shdrs[l->shstrndx];
	const uint8_t *tab = s->buf + names->sh_offset;

	if (!s->policy && l->policy >= 0 && !(l->policy_shdr.sh_flags & SHF_ALLOC)) {
		s->policy_len = l->policy_shdr.sh_size;
		s->policy = malloc(s->policy_len);
		if (!s->policy)
			return -ENOMEM;
		memcpy(s->policy, s->buf + l->policy_shdr.sh_offset, s->policy_len);
	} /* else none, or the macro's allocated one, which stays as it is */

	s->strtab_len = names->sh_size;
	s->name_policy = strtab_find(tab, names->sh_size, UMB_POLICY_SECTION);
	if (s->name_policy < 0) {
		s->name_policy = (long)s->strtab_len;
		s->strtab_len += sizeof(UMB_POLICY_SECTION);
	}
	s->name_sig = strtab_find(tab, names->sh_size, UMB_SIGNATURE_SECTION);
	if (s->name_sig < 0) {
		s->name_sig = (long)s->strtab_len;
		s->strtab_len += sizeof(UMB_SIGNATURE_SECTION);
	}

	s->nshdr = l->shnum;
	s->shdrs = calloc(l->shnum + 2, sizeof(*s->shdrs));
	if (!s->shdrs)
		return -ENOMEM;
	memcpy(s->shdrs, l->shdrs, l->shnum * sizeof(*s->shdrs));
	if (s->policy_len) {
		if (l->policy >= 0 && (l->policy_shdr.sh_flags & SHF_ALLOC)) {
			/* -r on a file with the macro's policy: drop its header (its bytes stay,
			 * covered by the digest) and make the new one the only policy. */
			s->shdrs[l->policy] = (GElf_Shdr){ .sh_type = SHT_NULL };
			s->policy_idx = s->nshdr++;
		} else if (l->policy >= 0) {
			s->policy_idx = (size_t)l->policy;
		} else {
			s->policy_idx = s->nshdr++;
		}
	}
	s->sig_idx = l->sig >= 0 ? (size_t)l->sig : s->nshdr++;
	if (s->nshdr >= SHN_LORESERVE)
		return set_error(ret_error, "%s has too many sections", s->path);
	return 0;
}

/* The new file: [0, cut), policy, signature (zeros), names, padding, section headers;
 * the mark in the first program header's p_paddr (unused in programs and shared
 * objects). */
static int sign_write_image(struct signing *s, char **ret_error)
{
	const GElf_Shdr *names = &s->l.shdrs[s->l.shstrndx];
	const uint64_t mark = UMB_SIGNATURE_MARK;
	uint64_t tab_off, shoff;
	Elf64_Ehdr *eh;
	uint8_t *tab;

	s->sig_off = s->cut + s->policy_len;
	tab_off = s->sig_off + sizeof(struct umb_signature);
	shoff = (tab_off + s->strtab_len + 7) & ~7ULL;
	s->out_len = shoff + s->nshdr * sizeof(Elf64_Shdr);
	if (s->out_len > SIGNED_ELF_SIZE_MAX)
		return signing_error(ret_error, -EFBIG, "%s: signed, it would be larger than 1 GiB",
				     s->path);
	s->out = calloc(1, s->out_len);
	if (!s->out)
		return -ENOMEM;

	memcpy(s->out, s->buf, s->cut);
	memcpy(s->out + UMB_SIGNATURE_MARK_OFFSET, &mark, sizeof(mark));
	if (s->policy_len) {
		memcpy(s->out + s->cut, s->policy, s->policy_len);
		s->shdrs[s->policy_idx] = (GElf_Shdr){
			.sh_name = (Elf64_Word)s->name_policy,
			.sh_type = SHT_PROGBITS,
			.sh_offset = s->cut,
			.sh_size = s->policy_len,
			.sh_addralign = 1,
		};
	}
	s->shdrs[s->sig_idx] = (GElf_Shdr){
		.sh_name = (Elf64_Word)s->name_sig,
		.sh_type = SHT_PROGBITS,
		.sh_offset = s->sig_off,
		.sh_size = sizeof(struct umb_signature),
		.sh_addralign = 1,
	};

	tab = s->out + tab_off;
	memcpy(tab, s->buf + names->sh_offset, names->sh_size);
	if ((uint64_t)s->name_policy >= names->sh_size)
		memcpy(tab + s->name_policy, UMB_POLICY_SECTION, sizeof(UMB_POLICY_SECTION));
	if ((uint64_t)s->name_sig >= names->sh_size)
		memcpy(tab + s->name_sig, UMB_SIGNATURE_SECTION, sizeof(UMB_SIGNATURE_SECTION));
	s->shdrs[s->l.shstrndx].sh_offset = tab_off;
	s->shdrs[s->l.shstrndx].sh_size = s->strtab_len;

	eh = (Elf64_Ehdr *)s->out;
	eh->e_shoff = shoff;
	eh->e_shnum = (Elf64_Half)s->nshdr;
	memcpy(s->out + shoff, s->shdrs, s->nshdr * sizeof(Elf64_Shdr));
	return 0;
}

/* The digest over the final bytes without the signature's, then the signature. */
static int sign_image(struct signing *s, EVP_PKEY *key, char **ret_error)
{
	struct umb_signature sig = { .magic = UMB_SIGNATURE_MAGIC,
				     .version = UMB_SIGNATURE_VERSION,
				     .algorithm = UMB_SIG_ED25519_SHA256 };
	uint8_t digest[SIGNED_DIGEST_LEN];
	size_t siglen = sizeof(sig.signature);
	struct signed_digest d;
	EVP_MD_CTX *md;
	int r;

	r = signed_digest_init(&d, s->sig_off, sizeof(sig));
	if (r == 0)
		r = signed_digest_update(&d, 0, s->out, s->out_len);
	if (r == 0)
		r = signed_digest_final(&d, digest);
	signed_digest_release(&d);
	if (r < 0)
		return r;

	md = EVP_MD_CTX_new();
	/* Ed25519 is "pure": no digest of its own (NULL md); it signs ours. */
	if (key_id_of(key, sig.key_id) < 0 || !md ||
	    EVP_DigestSignInit(md, NULL, NULL, NULL, key) != 1 ||
	    EVP_DigestSign(md, sig.signature, &siglen, digest, sizeof(digest)) != 1 ||
	    siglen != sizeof(sig.signature)) {
		EVP_MD_CTX_free(md);
		return signing_error(ret_error, -EINVAL,
				     "signing failed: not an Ed25519 private key?");
	}
	EVP_MD_CTX_free(md);
	memcpy(s->out + s->sig_off, &sig, sizeof(sig));
	return 0;
}

static void signing_release(struct signing *s)
{
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	elf_layout_release(&s->l);
	free(s->shdrs);
	free(s->policy);
	free(s->out);
	free(s->buf);
	free(s->real);
}

int signed_elf_sign(const char *path, EVP_PKEY *key, const char *policy_text, unsigned int flags,
		    char **ret_error)
{
	struct signing s = { .path = path,
			     .policy_text = policy_text,
			     .flags = flags,
			     .fd = -1,
			     .l = { .policy = -1, .sig = -1 } };
	int r;

	if (ret_error)
		*ret_error = NULL;
	if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519)
		return signing_error(ret_error, -EINVAL, "the key is not an Ed25519 key");
	if (flags & ~(unsigned int)SIGNED_ELF_SIGN_NO_POLICY ||
	    (policy_text && (flags & SIGNED_ELF_SIGN_NO_POLICY)))
		return signing_error(ret_error, -EINVAL, "a policy text and no policy at once");

	r = policy_text ? policy_section_make(policy_text, &s.policy, &s.policy_len, ret_error) : 0;
	if (r == 0)
		r = sign_open(&s, ret_error);
	if (r == 0)
		r = sign_parse(&s, ret_error);
	if (r == 0)
		r = sign_check_policy(&s, ret_error);
	if (r == 0)
		r = sign_find_cut(&s, ret_error);
	if (r == 0)
		r = sign_plan(&s, ret_error);
	if (r == 0)
		r = sign_write_image(&s, ret_error);
	if (r == 0)
		r = sign_image(&s, key, ret_error);
	if (r == 0) {
		elf_end(s.elf); /* done with the old bytes' view before they are replaced */
		s.elf = NULL;
		r = file_replace(s.real, s.fd, &s.st, s.out, s.out_len, ret_error);
	}
	if (r == -ENOMEM && ret_error && !*ret_error)
		signing_error(ret_error, r, "%s", strerror(ENOMEM));
	signing_release(&s);
	return r;
}
