// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella (internal) - reading, hashing and signing the policy and signature sections
 * of an ELF file (the format: include/umbrella/signed-elf.h).
 *
 * The reader trusts nothing in the file: every offset and size is checked against the
 * file's size (without overflow) before libelf is asked for anything behind it. The
 * bytes are read once for the digest; on the way, the headers are copied out and
 * compared with what libelf parsed, and umbrella's two sections are taken from there, so
 * that what is verified is what was parsed even if the file changes meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <umbrella/umbrella.h>

#include "keyring.h"
#include "signed-elf.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || __SIZEOF_POINTER__ != 8
#error "signed binaries are read on 64-bit little-endian machines only"
#endif

#define SIZE_MAX_BYTES (1ULL << 30)	/* 1 GiB: larger files are not verified */
#define CHUNK (256 * 1024)		/* bytes hashed between deadline checks */
/* The policy's padding: the macro adds one NUL; a little room for other tools. */
#define POLICY_PADDING_MAX 4096
#define POLICY_SECTION_MAX (sizeof(struct umb_policy_header) + UMB_POLICY_TEXT_MAX + \
			    POLICY_PADDING_MAX)
/* libelf reads the section name table into memory: bound what a file can make the
 * daemon allocate (real tables have a few hundred bytes). */
#define SHSTRTAB_MAX (1024 * 1024)
#define ELEMENTS(x) (sizeof(x) / sizeof((x)[0]))

/* Where umbrella's sections and the headers are, as parse_layout() checked them. */
struct layout {
	uint64_t size;
	GElf_Ehdr ehdr;
	size_t shnum;
	size_t shstrndx;		/* 0: no section names (then no umbrella section) */
	long policy, sig;		/* section indices, -1: none */
	GElf_Shdr policy_shdr, sig_shdr;
	/* What the checks were made on, to compare with the bytes hashed (malloc'd). */
	GElf_Shdr *shdrs;		/* shnum headers */
	uint8_t *names;			/* the section name table's bytes */
	uint64_t names_off, names_len;
};

_Static_assert(sizeof(GElf_Shdr) == sizeof(Elf64_Shdr) && sizeof(GElf_Ehdr) == sizeof(Elf64_Ehdr),
	       "GElf headers are the ELF64 ones");

static void layout_release(struct layout *l)
{
	free(l->shdrs);
	free(l->names);
	l->shdrs = NULL;
	l->names = NULL;
}

int signing_error(char **ret_error, int err, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (ret_error) {
		free(*ret_error);
		*ret_error = s;
	} else {
		free(s);
	}
	return err;
}

/* A malformed file: the message, and -EBADMSG. */
#define set_error(ret_error, ...) signing_error(ret_error, -EBADMSG, __VA_ARGS__)

/* [a, a + alen) and [b, b + blen) share a byte (lengths checked against the file size). */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* @off + @len within @size, without overflow. */
static bool within(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * The checks on the identification bytes, before libelf sees anything: we want to say
 * precisely what is wrong, and to refuse what is not the machine's own kind of ELF.
 */
static int check_ident(const unsigned char *ident, uint64_t size, char **ret_error)
{
	if (size < sizeof(Elf64_Ehdr))
		return set_error(ret_error, "%llu bytes are too short for an ELF header",
				 (unsigned long long)size);
	if (ident[EI_CLASS] != ELFCLASS64)
		return set_error(ret_error, "not a 64-bit ELF file (class %u)", ident[EI_CLASS]);
	if (ident[EI_DATA] != ELFDATA2LSB)
		return set_error(ret_error, "not a little-endian ELF file (data encoding %u)",
				 ident[EI_DATA]);
	if (ident[EI_VERSION] != EV_CURRENT)
		return set_error(ret_error, "unknown ELF version %u", ident[EI_VERSION]);
	return 0;
}

/*
 * The section counts, checked on the raw ELF header @ident before elf_begin(): with
 * extended numbering, libelf would take the count from section 0 and allocate for it,
 * however large, before we could say no.
 */
static int check_counts(const unsigned char *ident, uint64_t size, char **ret_error)
{
	Elf64_Ehdr eh;

	memcpy(&eh, ident, sizeof(eh));
	if (eh.e_shoff == 0)
		return 0;
	if (eh.e_shnum == 0 || eh.e_shstrndx == SHN_XINDEX)
		return set_error(ret_error, "extended section numbering is not supported");
	if (!within(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
		return set_error(ret_error,
				 "the section header table ends beyond the end of the file");
	return 0;
}

/* Checks that umbrella's section @idx shares no byte with the headers or other sections. */
static int check_no_overlap(const struct layout *l, size_t idx, const GElf_Shdr *u,
			    const char *what, char **ret_error)
{
	uint64_t shdrs = l->shnum * sizeof(Elf64_Shdr);
	uint64_t phdrs = (uint64_t)l->ehdr.e_phnum * sizeof(Elf64_Phdr);

	if (overlaps(u->sh_offset, u->sh_size, 0, sizeof(Elf64_Ehdr)))
		return set_error(ret_error, "%s overlaps the ELF header", what);
	if (overlaps(u->sh_offset, u->sh_size, l->ehdr.e_shoff, shdrs))
		return set_error(ret_error, "%s overlaps the section header table", what);
	if (overlaps(u->sh_offset, u->sh_size, l->ehdr.e_phoff, phdrs))
		return set_error(ret_error, "%s overlaps the program header table", what);
	for (size_t i = 1; i < l->shnum; i++) {
		const GElf_Shdr *s = &l->shdrs[i];

		if (i == idx || s->sh_type == SHT_NULL || s->sh_type == SHT_NOBITS)
			continue;
		if (overlaps(u->sh_offset, u->sh_size, s->sh_offset, s->sh_size))
			return set_error(ret_error, "%s overlaps section %zu", what, i);
	}
	return 0;
}

/*
 * parse_layout() - check the headers of @elf (a file of @size bytes) and find umbrella's
 * sections. Reads only the ELF header, the section headers and the section name table.
 * Release @l with layout_release(), also on failure.
 */
static int parse_layout(Elf *elf, uint64_t size, struct layout *l, char **ret_error)
{
	uint64_t shdrs;

	*l = (struct layout){ .size = size, .policy = -1, .sig = -1 };
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &l->ehdr))
		return set_error(ret_error, "not a valid ELF file: %s", elf_errmsg(-1));
	if (l->ehdr.e_version != EV_CURRENT)
		return set_error(ret_error, "unknown ELF version %u", l->ehdr.e_version);
	if (l->ehdr.e_ehsize != sizeof(Elf64_Ehdr))
		return set_error(ret_error, "ELF header size %u is not %zu", l->ehdr.e_ehsize,
				 sizeof(Elf64_Ehdr));

	if (l->ehdr.e_phnum) {
		if (l->ehdr.e_phentsize != sizeof(Elf64_Phdr))
			return set_error(ret_error, "program header size %u is not %zu",
					 l->ehdr.e_phentsize, sizeof(Elf64_Phdr));
		if (!within(l->ehdr.e_phoff, (uint64_t)l->ehdr.e_phnum * sizeof(Elf64_Phdr), size))
			return set_error(
				ret_error,
				"the program header table ends beyond the end of the file");
	}

	if (l->ehdr.e_shoff == 0)
		return 0; /* no sections, so none of ours: unsigned */
	/* Extended numbering (section 0 holding the counts) is for objects with more than
	 * 65279 sections; no executable has that many, and one that claims to is odd. */
	if (l->ehdr.e_shnum == 0 || l->ehdr.e_shstrndx == SHN_XINDEX)
		return set_error(ret_error, "extended section numbering is not supported");
	if (l->ehdr.e_shentsize != sizeof(Elf64_Shdr))
		return set_error(ret_error, "section header size %u is not %zu",
				 l->ehdr.e_shentsize, sizeof(Elf64_Shdr));
	l->shnum = l->ehdr.e_shnum;
	shdrs = l->shnum * sizeof(Elf64_Shdr);
	if (!within(l->ehdr.e_shoff, shdrs, size))
		return set_error(ret_error,
				 "the section header table ends beyond the end of the file");
	if (overlaps(l->ehdr.e_shoff, shdrs, 0, sizeof(Elf64_Ehdr)))
		return set_error(ret_error, "the section header table overlaps the ELF header");
	if (l->ehdr.e_shstrndx >= l->shnum)
		return set_error(ret_error, "the section name table index %u is out of range",
				 l->ehdr.e_shstrndx);
	l->shstrndx = l->ehdr.e_shstrndx;

	/* Every section's bytes must be in the file: a header that lies about one is not
	 * a file we vouch for. */
	l->shdrs = calloc(l->shnum, sizeof(*l->shdrs));
	if (!l->shdrs)
		return -ENOMEM;
	for (size_t i = 0; i < l->shnum; i++) {
		GElf_Shdr *s = &l->shdrs[i];

		if (!gelf_getshdr(elf_getscn(elf, i), s))
			return set_error(ret_error, "section %zu: %s", i, elf_errmsg(-1));
		if (i == 0 || s->sh_type == SHT_NULL || s->sh_type == SHT_NOBITS)
			continue;
		if (!within(s->sh_offset, s->sh_size, size))
			return set_error(ret_error, "section %zu ends beyond the end of the file",
					 i);
	}
	if (l->shstrndx == SHN_UNDEF)
		return 0; /* no names: none is ours */
	{
		const GElf_Shdr *s = &l->shdrs[l->shstrndx];
		Elf_Data *d;

		if (s->sh_type != SHT_STRTAB)
			return set_error(ret_error, "section %zu, the section name table, is not a "
					 "string table", l->shstrndx);
		if (s->sh_size > SHSTRTAB_MAX)
			return set_error(ret_error, "the section name table has %llu bytes, more "
					 "than %d", (unsigned long long)s->sh_size, SHSTRTAB_MAX);
		d = elf_rawdata(elf_getscn(elf, l->shstrndx), NULL);
		if (!d || d->d_size != s->sh_size)
			return set_error(ret_error, "the section name table cannot be read: %s",
					 elf_errmsg(-1));
		l->names_off = s->sh_offset;
		l->names_len = d->d_size;
		l->names = malloc(d->d_size ? d->d_size : 1);
		if (!l->names)
			return -ENOMEM;
		if (d->d_size)
			memcpy(l->names, d->d_buf, d->d_size);
	}

	for (size_t i = 1; i < l->shnum; i++) {
		const GElf_Shdr *s = &l->shdrs[i];
		const char *name;

		if (s->sh_type == SHT_NULL)
			continue;
		/* Names from our copy: a NUL must end them inside the table. */
		if (s->sh_name >= l->names_len ||
		    !memchr(l->names + s->sh_name, '\0', l->names_len - s->sh_name))
			return set_error(ret_error, "section %zu: bad name offset %u", i,
					 s->sh_name);
		name = (const char *)l->names + s->sh_name;
		if (!strcmp(name, UMB_SIGNATURE_SECTION)) {
			if (l->sig >= 0)
				return set_error(ret_error,
						 "two " UMB_SIGNATURE_SECTION " sections");
			l->sig = (long)i;
			l->sig_shdr = *s;
		} else if (!strcmp(name, UMB_POLICY_SECTION)) {
			if (l->policy >= 0)
				return set_error(ret_error, "two " UMB_POLICY_SECTION " sections");
			l->policy = (long)i;
			l->policy_shdr = *s;
		}
	}

	if (l->sig >= 0) {
		const GElf_Shdr *s = &l->sig_shdr;

		if (s->sh_type != SHT_PROGBITS || s->sh_flags & SHF_ALLOC)
			return set_error(ret_error, UMB_SIGNATURE_SECTION " is not a non-allocated "
					 "SHT_PROGBITS section");
		if (s->sh_size != sizeof(struct umb_signature))
			return set_error(
				ret_error, UMB_SIGNATURE_SECTION " has %llu bytes, not %zu",
				(unsigned long long)s->sh_size, sizeof(struct umb_signature));
		if (check_no_overlap(l, (size_t)l->sig, s, UMB_SIGNATURE_SECTION, ret_error))
			return -EBADMSG;
	}
	if (l->policy >= 0) {
		const GElf_Shdr *s = &l->policy_shdr;

		if (s->sh_type != SHT_PROGBITS)
			return set_error(ret_error,
					 UMB_POLICY_SECTION " is not an SHT_PROGBITS section");
		if (s->sh_size <= sizeof(struct umb_policy_header))
			return set_error(ret_error, UMB_POLICY_SECTION " has only %llu bytes",
					 (unsigned long long)s->sh_size);
		if (s->sh_size > POLICY_SECTION_MAX)
			return set_error(ret_error,
					 UMB_POLICY_SECTION " has %llu bytes, more than %zu",
					 (unsigned long long)s->sh_size, POLICY_SECTION_MAX);
		if (check_no_overlap(l, (size_t)l->policy, s, UMB_POLICY_SECTION, ret_error))
			return -EBADMSG;
	}
	return 0;
}

static int check_signature(const struct umb_signature *sig, char **ret_error)
{
	if (memcmp(sig->magic, UMB_SIGNATURE_MAGIC, sizeof(sig->magic)))
		return set_error(ret_error, "bad magic in " UMB_SIGNATURE_SECTION);
	if (sig->version != UMB_SIGNATURE_VERSION)
		return set_error(ret_error, UMB_SIGNATURE_SECTION " has unknown version %u",
				 sig->version);
	return 0;
}

/*
 * A policy of version 1 was signed when "net" denied every address family; today's "net"
 * leaves AF_UNIX. Its signer's word stands: @r's "net" becomes "net:all", and *@ret_text
 * (malloc'd) the policy in today's grammar, or NULL when @r has no "net" (the text
 * means today what it meant then). Return: 0 or -ENOMEM.
 */
static int policy_v1_text(const struct umb_restrictions *r, char **ret_text)
{
	struct umb_restrictions *now;
	bool has_net = false;
	int ret = 0;

	*ret_text = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);

		has_net |= item->kind == UMB_ITEM_CAP && item->value == UMB_CR_NET;
	}
	if (!has_net)
		return 0;

	now = umb_restrictions__new();
	if (!now)
		return -ENOMEM;
	for (size_t i = 0; i < umb_restrictions__count(r) && ret == 0; i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);

		switch (item->kind) {
		case UMB_ITEM_FS:
			ret = umb_restrictions__add_fs(now, item->path, item->fs_access);
			break;
		case UMB_ITEM_CAP:
			ret = umb_restrictions__add_cap(now, item->value == UMB_CR_NET ?
								    UMB_CR_NET_ALL :
								    item->value);
			break;
		case UMB_ITEM_NET_FAMILY:
			ret = umb_restrictions__add_net_family(now, (int)item->value);
			break;
		case UMB_ITEM_LINUX_CAP:
			ret = umb_restrictions__add_linux_cap(now, (int)item->value);
			break;
		default:
			ret = -EINVAL; /* the parser made it: cannot happen */
			break;
		}
	}
	if (ret == 0)
		ret = umb_restrictions__format(now, ret_text);
	umb_restrictions__free(now);
	return ret;
}

/* Checks the policy section's bytes @p (@len, within POLICY_SECTION_MAX); @ret_text: the
 * text in today's grammar, NUL-terminated, malloc'd (NULL: only check). */
static int check_policy(const uint8_t *p, uint64_t len, char **ret_text, char **ret_error)
{
	struct umb_policy_header h;
	struct umb_restrictions *r;
	char *text, *error = NULL;
	int ret;

	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, UMB_POLICY_MAGIC, sizeof(h.magic)))
		return set_error(ret_error, "bad magic in " UMB_POLICY_SECTION);
	if (h.version != UMB_POLICY_VERSION && h.version != 1)
		return set_error(ret_error, UMB_POLICY_SECTION " has unknown version %u",
				 h.version);
	if (h.text_len == 0 || h.text_len > UMB_POLICY_TEXT_MAX ||
	    h.text_len > len - sizeof(h))
		return set_error(ret_error, UMB_POLICY_SECTION " has a bad text length %u in %llu "
				 "bytes", h.text_len, (unsigned long long)len);
	for (uint64_t i = sizeof(h) + h.text_len; i < len; i++)
		if (p[i])
			return set_error(ret_error, UMB_POLICY_SECTION " has non-zero padding");
	if (memchr(p + sizeof(h), '\0', h.text_len))
		return set_error(ret_error, UMB_POLICY_SECTION " has a NUL byte in its text");

	text = strndup((const char *)p + sizeof(h), h.text_len);
	r = umb_restrictions__new();
	if (!text || !r) {
		free(text);
		umb_restrictions__free(r);
		return -ENOMEM;
	}
	ret = umb_restrictions__parse(r, text, &error);
	if (ret == 0 && h.version == 1) {
		char *now;

		ret = policy_v1_text(r, &now);
		if (ret == 0 && now) {
			free(text);
			text = now;
		}
	}
	umb_restrictions__free(r);
	if (ret == -ENOMEM) {
		free(error);
		free(text);
		return -ENOMEM;
	}
	if (ret < 0) {
		set_error(ret_error, UMB_POLICY_SECTION ": %s", error ? error : "not valid");
		free(error);
		free(text);
		return -EBADMSG;
	}
	if (ret_text)
		*ret_text = text;
	else
		free(text);
	return 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* A part of the file to copy out while hashing. */
struct region {
	uint64_t off, len;
	uint8_t *dst; /* NULL: none */
};

/* Copies the part of @r that chunk [@coff, @coff + @clen) holds. */
static void capture(const struct region *r, const uint8_t *chunk, uint64_t coff, uint64_t clen)
{
	uint64_t from = r->off > coff ? r->off : coff;
	uint64_t to = r->off + r->len < coff + clen ? r->off + r->len : coff + clen;

	if (from < to)
		memcpy(r->dst + (from - r->off), chunk + (from - coff), to - from);
}

/*
 * An incremental read (struct signed_elf_reader): the headers parsed, then the file
 * hashed a piece at a time, so that a caller can serve others between the pieces.
 */
struct signed_elf_reader {
	int fd;
	struct signed_elf *ret;
	struct layout l;
	uint8_t ehdr[sizeof(Elf64_Ehdr)], *policy, *shdrs, *names;
	struct region regions[5];
	uint64_t skip_off, skip_len; /* the signature's bytes: not hashed */
	EVP_MD_CTX *md;
	uint8_t *buf;
	uint64_t off; /* bytes hashed so far */
};

void signed_elf_reader_free(struct signed_elf_reader *r)
{
	if (!r)
		return;
	free(r->policy);
	free(r->shdrs);
	free(r->names);
	layout_release(&r->l);
	EVP_MD_CTX_free(r->md);
	free(r->buf);
	free(r);
}

/* Hashes one chunk at r->off (without the part in the skipped range), copying the
 * regions out of it. */
static int hash_chunk(struct signed_elf_reader *r, char **ret_error)
{
	uint64_t size = r->ret->size, off = r->off, skip_off = r->skip_off;
	uint64_t skip_len = r->skip_len;
	size_t want = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
	uint8_t *buf = r->buf;
	ssize_t n;

	do
		n = pread(r->fd, buf, want, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		set_error(ret_error, "read: %s", strerror(errno));
		return err;
	}
	if (n == 0) {
		set_error(ret_error, "the file shrank while it was read");
		return -EIO;
	}
	for (size_t i = 0; i < ELEMENTS(r->regions); i++)
		if (r->regions[i].dst)
			capture(&r->regions[i], buf, off, (uint64_t)n);
	if (skip_len && overlaps(off, (uint64_t)n, skip_off, skip_len)) {
		if (skip_off > off && !EVP_DigestUpdate(r->md, buf, skip_off - off))
			return -ENOMEM;
		if (skip_off + skip_len < off + (uint64_t)n &&
		    !EVP_DigestUpdate(r->md, buf + (skip_off + skip_len - off),
				      off + (uint64_t)n - (skip_off + skip_len)))
			return -ENOMEM;
	} else if (!EVP_DigestUpdate(r->md, buf, (size_t)n)) {
		return -ENOMEM;
	}
	r->off += (uint64_t)n;
	return 0;
}

/* The whole file hashed: the digest, and the checks on what was copied out of it. */
static int reader_finish(struct signed_elf_reader *r, char **ret_error)
{
	struct signed_elf *ret = r->ret;
	struct layout *l = &r->l;
	int err;

	if (!EVP_DigestFinal_ex(r->md, ret->digest, NULL))
		return -ENOMEM;
	if (!ret->is_elf)
		return 0;
	/* The bytes hashed must be the ones parsed: a file that changed in between is
	 * refused rather than judged on one version and hashed on another. */
	if (memcmp(r->ehdr, &l->ehdr, sizeof(r->ehdr)) ||
	    (r->shdrs && memcmp(r->shdrs, l->shdrs, l->shnum * sizeof(Elf64_Shdr))) ||
	    (r->names && memcmp(r->names, l->names, l->names_len)))
		return set_error(ret_error, "the file changed while it was read");
	if (l->sig >= 0) {
		ret->has_signature = true;
		err = check_signature(&ret->signature, ret_error);
		if (err < 0)
			return err;
	}
	if (r->policy) {
		err = check_policy(r->policy, l->policy_shdr.sh_size, &ret->policy_text,
				   ret_error);
		if (err < 0)
			return err;
		ret->has_policy = true;
	}
	return 0;
}

/* A failure: the message for ENOMEM, and nothing left allocated. */
static int reader_fail(struct signed_elf_reader *r, struct signed_elf *ret, int err,
		       char **ret_error)
{
	if (err == -ENOMEM && ret_error && !*ret_error)
		set_error(ret_error, "%s", strerror(ENOMEM));
	signed_elf_reader_free(r);
	signed_elf_release(ret);
	return err;
}

int signed_elf_step(struct signed_elf_reader *r, uint64_t max_bytes, char **ret_error)
{
	uint64_t end = r->off + max_bytes;
	int err;

	if (ret_error)
		*ret_error = NULL;
	while (r->off < r->ret->size && r->off < end) {
		err = hash_chunk(r, ret_error);
		if (err < 0)
			goto fail;
	}
	if (r->off < r->ret->size)
		return 1;
	err = reader_finish(r, ret_error);
	if (err < 0)
		goto fail;
	signed_elf_reader_free(r);
	return 0;
fail:
	return reader_fail(r, r->ret, err, ret_error);
}

uint64_t signed_elf_read_bytes(const struct signed_elf_reader *r)
{
	return r->off;
}

void signed_elf_release(struct signed_elf *e)
{
	if (!e)
		return;
	free(e->policy_text);
	*e = (struct signed_elf){};
}

int signed_elf_begin(int fd, unsigned int flags, struct signed_elf *ret,
		     struct signed_elf_reader **ret_reader, char **ret_error)
{
	/* The ELF header and the signature mark after it (zeros past a short file's end). */
	unsigned char ident[UMB_SIGNATURE_MARK_HEAD] = {};
	struct signed_elf_reader *r;
	struct layout *l;
	struct stat st;
	Elf *elf = NULL;
	ssize_t n;
	int err;

	*ret = (struct signed_elf){};
	*ret_reader = NULL;
	if (ret_error)
		*ret_error = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return reader_fail(r, ret, -ENOMEM, ret_error);
	r->fd = fd;
	r->ret = ret;
	l = &r->l;
	*l = (struct layout){ .policy = -1, .sig = -1 };
	if (fstat(fd, &st) < 0) {
		err = -errno;
		set_error(ret_error, "fstat: %s", strerror(errno));
		return reader_fail(r, ret, err, ret_error);
	}
	if (!S_ISREG(st.st_mode)) {
		set_error(ret_error, "not a regular file");
		return reader_fail(r, ret, -EINVAL, ret_error);
	}
	ret->size = (uint64_t)st.st_size;

	do
		n = pread(fd, ident, sizeof(ident), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		err = -errno;
		set_error(ret_error, "read: %s", strerror(errno));
		return reader_fail(r, ret, err, ret_error);
	}
	ret->is_elf = n >= SELFMAG && !memcmp(ident, ELFMAG, SELFMAG);
	if (ret->is_elf) {
		err = check_ident(ident, ret->size, ret_error);
		if (err == 0)
			err = check_counts(ident, ret->size, ret_error);
		if (err < 0)
			return reader_fail(r, ret, err, ret_error);
		(void)elf_version(EV_CURRENT);
		/* ELF_C_READ: libelf reads the headers it is asked for, not the file. */
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!elf) {
			err = set_error(ret_error, "not a valid ELF file: %s", elf_errmsg(-1));
			return reader_fail(r, ret, err, ret_error);
		}
		err = parse_layout(elf, ret->size, l, ret_error);
		elf_end(elf);
		if (err < 0)
			return reader_fail(r, ret, err, ret_error);
		/* A file that claims a signature has one, or none of its execs may run: BPF
		 * refuses it on a miss, and the gate must not let it run as unsigned. */
		ret->marked = umb_elf_marked(ident);
		if (ret->marked && l->sig < 0) {
			err = set_error(ret_error, "it carries the signature mark but no "
					UMB_SIGNATURE_SECTION " section");
			return reader_fail(r, ret, err, ret_error);
		}
	}
	/* No signature section: unsigned, whatever the rest holds, decided on the headers. */
	if (l->sig < 0 && !(flags & SIGNED_ELF_DIGEST_ALWAYS)) {
		signed_elf_reader_free(r);
		return 0;
	}
	if (ret->size > SIZE_MAX_BYTES) {
		set_error(ret_error, "%llu bytes, more than the limit of %llu",
			  (unsigned long long)ret->size, SIZE_MAX_BYTES);
		return reader_fail(r, ret, -EFBIG, ret_error);
	}
	if (ret->is_elf) {
		/* What to copy out of the hashed bytes: the headers libelf parsed, to
		 * compare, and the policy, whose text is taken from there. The signature
		 * is the skipped range, copied as region 0. */
		r->regions[0] = (struct region){ .off = l->sig_shdr.sh_offset,
						 .len = l->sig >= 0 ? sizeof(ret->signature) : 0,
						 .dst = l->sig >= 0 ? (uint8_t *)&ret->signature :
								      NULL };
		r->regions[1] = (struct region){ .off = 0, .len = sizeof(r->ehdr), .dst = r->ehdr };
		if (l->shnum) {
			r->shdrs = malloc(l->shnum * sizeof(Elf64_Shdr));
			r->regions[2] = (struct region){ .off = l->ehdr.e_shoff,
							 .len = l->shnum * sizeof(Elf64_Shdr),
							 .dst = r->shdrs };
		}
		if (l->names) {
			r->names = malloc(l->names_len ? l->names_len : 1);
			r->regions[3] = (struct region){ .off = l->names_off, .len = l->names_len,
							 .dst = r->names };
		}
		if (l->policy >= 0) {
			r->policy = malloc(l->policy_shdr.sh_size);
			r->regions[4] = (struct region){ .off = l->policy_shdr.sh_offset,
							 .len = l->policy_shdr.sh_size,
							 .dst = r->policy };
		}
		if ((l->shnum && !r->shdrs) || (l->names && !r->names) ||
		    (l->policy >= 0 && !r->policy))
			return reader_fail(r, ret, -ENOMEM, ret_error);
		if (l->sig >= 0) {
			r->skip_off = l->sig_shdr.sh_offset;
			r->skip_len = l->sig_shdr.sh_size;
		}
	}
	r->md = EVP_MD_CTX_new();
	r->buf = malloc(CHUNK);
	if (!r->md || !r->buf || !EVP_DigestInit_ex(r->md, EVP_sha256(), NULL))
		return reader_fail(r, ret, -ENOMEM, ret_error);
	*ret_reader = r;
	return 0;
}

int signed_elf_read(int fd, uint64_t deadline_usec, struct signed_elf *ret, char **ret_error)
{
	struct signed_elf_reader *r;
	int err;

	err = signed_elf_begin(fd, SIGNED_ELF_DIGEST_ALWAYS, ret, &r, ret_error);
	while (err == 0 && r) {
		if (deadline_usec && now_usec() > deadline_usec) {
			set_error(ret_error, "verification took too long (%llu of %llu bytes read)",
				  (unsigned long long)r->off, (unsigned long long)ret->size);
			return reader_fail(r, ret, -ETIMEDOUT, ret_error);
		}
		err = signed_elf_step(r, CHUNK, ret_error);
		if (err == 1)
			err = 0;
		else
			r = NULL;
	}
	return err;
}

/* ---- signing ---- */

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

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Gives @to every extended attribute of @from: file capabilities (security.capability),
 * ACLs, IMA/EVM and SELinux labels, user attributes. The file that replaces a binary
 * must keep what it carried: a ping signed without its cap_net_raw would fail, and one
 * losing a label would run under another domain. Any that cannot be set is an error
 * (naming it): the caller then leaves the file as it was.
 */
static int copy_xattrs(int from, int to, char **ret_error)
{
	char *names = NULL, *value = NULL;
	ssize_t size, vsize;
	int r = 0;

	size = flistxattr(from, NULL, 0);
	if (size < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		return 0; /* a file system without them: nothing to keep */
	if (size <= 0)
		goto io_error;
	names = malloc((size_t)size);
	if (!names)
		return -ENOMEM;
	size = flistxattr(from, names, (size_t)size);
	if (size < 0)
		goto io_error;
	for (char *name = names; name < names + size; name += strlen(name) + 1) {
		vsize = fgetxattr(from, name, NULL, 0);
		if (vsize >= 0) {
			free(value);
			value = malloc(vsize ? (size_t)vsize : 1);
			if (!value) {
				r = -ENOMEM;
				goto out;
			}
			vsize = fgetxattr(from, name, value, (size_t)vsize);
		}
		if (vsize < 0 || fsetxattr(to, name, value, (size_t)vsize, 0) < 0) {
			r = -errno;
			set_error(ret_error,
				  "cannot keep its extended attribute %s: %s (the file is left "
				  "unsigned)",
				  name, strerror(errno));
			goto out;
		}
	}
	goto out;
io_error:
	if (size == 0)
		goto out;
	r = -errno;
	set_error(ret_error, "reading its extended attributes: %s", strerror(errno));
out:
	free(names);
	free(value);
	return r;
}

/* Writes @len bytes of @p to a new file in @path's directory and renames it over @path,
 * with @st's mode (and owner, when allowed) and the extended attributes of @src_fd. */
static int replace_file(const char *path, int src_fd, const struct stat *st, const uint8_t *p,
			size_t len, char **ret_error)
{
	char *tmp = NULL;
	int fd, r;

	if (asprintf(&tmp, "%s.umbrella-XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		set_error(ret_error, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return r;
	}
	r = write_all(fd, p, len);
	if (r == 0 && fchown(fd, st->st_uid, st->st_gid) < 0 && errno != EPERM)
		r = -errno;
	/* After fchown, which may clear set-id bits. */
	if (r == 0 && fchmod(fd, st->st_mode & 07777) < 0)
		r = -errno;
	/* Last: writing and chown clear security.capability. */
	if (r == 0) {
		r = copy_xattrs(src_fd, fd, ret_error);
		if (r < 0) {
			close(fd);
			(void)unlink(tmp);
			free(tmp);
			return r;
		}
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		set_error(ret_error, "%s: %s", path, strerror(-r));
		(void)unlink(tmp);
	}
	free(tmp);
	return r;
}

int signed_elf_sign(const char *path, EVP_PKEY *key, const char *policy_text, unsigned int flags,
		    char **ret_error)
{
	uint64_t cut, kept_end, tail_start, policy_len = 0, strtab_len, shoff, out_len, sig_off;
	size_t text_len = policy_text ? strlen(policy_text) : 0;
	uint8_t *buf = NULL, *out = NULL, *new_policy = NULL, digest[32];
	struct layout l = { .policy = -1, .sig = -1 };
	GElf_Shdr *shdrs = NULL, shstr_hdr = {};
	long name_policy, name_sig;
	size_t nshdr, policy_idx, sig_idx;
	struct umb_signature sig = {};
	EVP_MD_CTX *md = NULL;
	char *real = NULL;
	struct stat st;
	Elf *elf = NULL;
	int fd = -1, r;

	if (ret_error)
		*ret_error = NULL;
	if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519)
		return set_error(ret_error, "the key is not an Ed25519 key"), -EINVAL;
	if (flags & ~(unsigned int)SIGNED_ELF_SIGN_NO_POLICY ||
	    (policy_text && (flags & SIGNED_ELF_SIGN_NO_POLICY)))
		return signing_error(ret_error, -EINVAL, "a policy text and no policy at once");
	if (policy_text) {
		struct umb_policy_header h = { .magic = UMB_POLICY_MAGIC,
					       .version = UMB_POLICY_VERSION,
					       .text_len = (__u32)text_len };

		if (text_len == 0 || text_len > UMB_POLICY_TEXT_MAX)
			return set_error(ret_error, "the policy's text has %zu bytes, not 1 to %d",
					 text_len, UMB_POLICY_TEXT_MAX), -EINVAL;
		policy_len = sizeof(h) + text_len;
		new_policy = malloc(policy_len);
		if (!new_policy)
			return -ENOMEM;
		memcpy(new_policy, &h, sizeof(h));
		memcpy(new_policy + sizeof(h), policy_text, text_len);
		r = check_policy(new_policy, policy_len, NULL, ret_error);
		if (r < 0) {
			r = r == -EBADMSG ? -EINVAL : r;
			goto out;
		}
	}

	real = realpath(path, NULL);
	if (!real) {
		r = -errno;
		set_error(ret_error, "%s: %s", path, strerror(errno));
		goto out;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		set_error(ret_error, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		set_error(ret_error, "%s: not a regular file", path);
		goto out;
	}
	/* The signed file replaces this name only: the other names would keep running the
	 * unsigned copy, unnoticed. */
	if (st.st_nlink > 1) {
		r = -EMLINK;
		set_error(ret_error,
			  "%ju hard links: signing writes a new file, and the other names "
			  "would keep the unsigned one; sign a copy, or remove the other links",
			  (uintmax_t)st.st_nlink);
		goto out;
	}
	if ((uint64_t)st.st_size > SIZE_MAX_BYTES) {
		r = -EFBIG;
		set_error(ret_error, "%s: larger than 1 GiB", path);
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	r = read_all(fd, (uint64_t)st.st_size, buf);
	if (r < 0) {
		set_error(ret_error, "%s: %s", path, strerror(-r));
		goto out;
	}
	if (st.st_size < SELFMAG || memcmp(buf, ELFMAG, SELFMAG)) {
		r = set_error(ret_error, "%s: not an ELF file", path);
		goto out;
	}
	r = check_ident(buf, (uint64_t)st.st_size, ret_error);
	if (r == 0)
		r = check_counts(buf, (uint64_t)st.st_size, ret_error);
	if (r < 0)
		goto out;
	(void)elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, (size_t)st.st_size);
	if (!elf) {
		r = set_error(ret_error, "not a valid ELF file: %s", elf_errmsg(-1));
		goto out;
	}
	r = parse_layout(elf, (uint64_t)st.st_size, &l, ret_error);
	if (r < 0)
		goto out;
	if (l.shnum == 0 || l.shstrndx == SHN_UNDEF) {
		r = set_error(ret_error, "%s has no section headers or no section name table",
			      path);
		goto out;
	}
	/* The mark goes where the kernel's first bytes of the file hold it (signed-elf.h). */
	if (l.ehdr.e_phnum == 0) {
		r = set_error(ret_error, "%s has no program headers: not a program or a "
			      "shared object", path);
		goto out;
	}
	if (l.ehdr.e_phoff != UMB_SIGNATURE_MARK_PHOFF) {
		r = set_error(ret_error, "%s: its program headers are at offset %llu, not right "
			      "after the ELF header (%d), where the signature mark must be",
			      path, (unsigned long long)l.ehdr.e_phoff, UMB_SIGNATURE_MARK_PHOFF);
		goto out;
	}
	/* No policy section may mean the linker dropped UMBRELLA_EXEC_RESTRICTIONS()'s:
	 * never sign such a file to run unrestricted unless the caller says it is meant. */
	if (l.policy < 0 && !policy_text && !(flags & SIGNED_ELF_SIGN_NO_POLICY)) {
		r = signing_error(ret_error, -ENODATA,
				  "no policy section (if it was built with "
				  "UMBRELLA_EXEC_RESTRICTIONS(), the linker dropped it)");
		goto out;
	}
	if (l.policy >= 0 && (flags & SIGNED_ELF_SIGN_NO_POLICY)) {
		r = signing_error(ret_error, -EEXIST,
				  "it has a policy section: it would not run without restrictions");
		goto out;
	}
	/* The file's own policy must be valid if it stays; one being replaced need not be. */
	if (l.policy >= 0 && !policy_text) {
		r = check_policy(buf + l.policy_shdr.sh_offset, l.policy_shdr.sh_size, NULL,
				 ret_error);
		if (r < 0)
			goto out;
	}

	/*
	 * Copy the section headers; umbrella's sections keep their index (nothing that
	 * refers to a section by index changes), new ones go at the end.
	 */
	nshdr = l.shnum;
	shdrs = calloc(l.shnum + 2, sizeof(*shdrs));
	if (!shdrs) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(shdrs, l.shdrs, l.shnum * sizeof(*shdrs));
	shstr_hdr = shdrs[l.shstrndx];

	/*
	 * What the previous signing appended (the tail: a non-allocated policy, the
	 * signature, the section name table, the section headers) is cut and written anew,
	 * so re-signing does not grow the file. The cut is never below the end of anything
	 * that stays: the headers, a segment's bytes or a section's.
	 */
	kept_end = sizeof(Elf64_Ehdr);
	if (l.ehdr.e_phnum) {
		uint64_t end = l.ehdr.e_phoff + (uint64_t)l.ehdr.e_phnum * sizeof(Elf64_Phdr);

		kept_end = end > kept_end ? end : kept_end;
		for (size_t i = 0; i < l.ehdr.e_phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph)) {
				r = set_error(ret_error, "program header %zu: %s", i,
					      elf_errmsg(-1));
				goto out;
			}
			if (!within(ph.p_offset, ph.p_filesz, (uint64_t)st.st_size)) {
				r = set_error(ret_error,
					      "segment %zu ends beyond the end of the file", i);
				goto out;
			}
			if (ph.p_offset + ph.p_filesz > kept_end)
				kept_end = ph.p_offset + ph.p_filesz;
		}
	}
	tail_start = l.ehdr.e_shoff;
	for (size_t i = 1; i < l.shnum; i++) {
		const GElf_Shdr *s = &shdrs[i];
		bool ours = i == l.shstrndx || (long)i == l.sig ||
			    ((long)i == l.policy && !(s->sh_flags & SHF_ALLOC));

		if (s->sh_type == SHT_NULL || s->sh_type == SHT_NOBITS || !s->sh_size)
			continue;
		if (ours && s->sh_offset < tail_start)
			tail_start = s->sh_offset;
		if (!ours && s->sh_offset + s->sh_size > kept_end)
			kept_end = s->sh_offset + s->sh_size;
	}
	cut = tail_start > kept_end ? tail_start : kept_end;
	/* Bytes after the section headers that no header describes (an appended payload)
	 * are kept: the new tail goes after them. */
	if (l.ehdr.e_shoff + l.shnum * sizeof(Elf64_Shdr) != (uint64_t)st.st_size)
		cut = (uint64_t)st.st_size;

	/* The policy: new text, or the file's non-allocated one carried over. */
	if (!policy_text && l.policy >= 0 && !(l.policy_shdr.sh_flags & SHF_ALLOC)) {
		policy_len = l.policy_shdr.sh_size;
		new_policy = malloc(policy_len);
		if (!new_policy) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(new_policy, buf + l.policy_shdr.sh_offset, policy_len);
	} else if (!policy_text) {
		policy_len = 0; /* none, or the macro's allocated one, which stays as it is */
	}

	/* The section name table: the old one's bytes, and our names if it lacks them. */
	{
		const uint8_t *tab = buf + shstr_hdr.sh_offset;
		uint64_t len = shstr_hdr.sh_size;

		strtab_len = len;
		name_policy = strtab_find(tab, len, UMB_POLICY_SECTION);
		if (name_policy < 0) {
			name_policy = (long)strtab_len;
			strtab_len += sizeof(UMB_POLICY_SECTION);
		}
		name_sig = strtab_find(tab, len, UMB_SIGNATURE_SECTION);
		if (name_sig < 0) {
			name_sig = (long)strtab_len;
			strtab_len += sizeof(UMB_SIGNATURE_SECTION);
		}
	}

	/* The new headers of umbrella's sections. */
	policy_idx = 0;
	if (policy_len) {
		if (l.policy >= 0 && (l.policy_shdr.sh_flags & SHF_ALLOC)) {
			/* -r on a file with the macro's policy: drop its header (its bytes stay,
			 * covered by the digest) and make the new one the only policy. */
			shdrs[l.policy] = (GElf_Shdr){ .sh_type = SHT_NULL };
			policy_idx = nshdr++;
		} else if (l.policy >= 0) {
			policy_idx = (size_t)l.policy;
		} else {
			policy_idx = nshdr++;
		}
	}
	sig_idx = l.sig >= 0 ? (size_t)l.sig : nshdr++;
	if (nshdr >= SHN_LORESERVE) {
		r = set_error(ret_error, "%s has too many sections", path);
		goto out;
	}

	/* The new file: [0, cut), policy, signature, names, padding, section headers. */
	sig_off = cut + policy_len;
	shoff = (sig_off + sizeof(sig) + strtab_len + 7) & ~7ULL;
	out_len = shoff + nshdr * sizeof(Elf64_Shdr);
	if (out_len > SIZE_MAX_BYTES) {
		r = -EFBIG;
		set_error(ret_error, "%s: signed, it would be larger than 1 GiB", path);
		goto out;
	}
	out = calloc(1, out_len);
	if (!out) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(out, buf, cut);
	/* The mark, in the first program header's p_paddr (unused in programs and shared
	 * objects); the digest below covers it. */
	{
		const uint64_t mark = UMB_SIGNATURE_MARK;

		memcpy(out + UMB_SIGNATURE_MARK_OFFSET, &mark, sizeof(mark));
	}
	if (policy_len) {
		memcpy(out + cut, new_policy, policy_len);
		shdrs[policy_idx] = (GElf_Shdr){
			.sh_name = (Elf64_Word)name_policy, .sh_type = SHT_PROGBITS,
			.sh_offset = cut, .sh_size = policy_len, .sh_addralign = 1,
		};
	}
	shdrs[sig_idx] = (GElf_Shdr){
		.sh_name = (Elf64_Word)name_sig, .sh_type = SHT_PROGBITS,
		.sh_offset = sig_off, .sh_size = sizeof(sig), .sh_addralign = 1,
	};
	{
		uint64_t tab_off = sig_off + sizeof(sig);
		uint8_t *tab = out + tab_off;

		memcpy(tab, buf + shstr_hdr.sh_offset, shstr_hdr.sh_size);
		if ((uint64_t)name_policy >= shstr_hdr.sh_size)
			memcpy(tab + name_policy, UMB_POLICY_SECTION, sizeof(UMB_POLICY_SECTION));
		if ((uint64_t)name_sig >= shstr_hdr.sh_size)
			memcpy(tab + name_sig, UMB_SIGNATURE_SECTION,
			       sizeof(UMB_SIGNATURE_SECTION));
		shdrs[l.shstrndx].sh_offset = tab_off;
		shdrs[l.shstrndx].sh_size = strtab_len;
	}
	{
		Elf64_Ehdr *eh = (Elf64_Ehdr *)out;

		eh->e_shoff = shoff;
		eh->e_shnum = (Elf64_Half)nshdr;
	}
	memcpy(out + shoff, shdrs, nshdr * sizeof(Elf64_Shdr));

	/* The digest over the final bytes without the signature's, then the signature. */
	memcpy(sig.magic, UMB_SIGNATURE_MAGIC, sizeof(sig.magic));
	sig.version = UMB_SIGNATURE_VERSION;
	sig.algorithm = UMB_SIG_ED25519_SHA256;
	md = EVP_MD_CTX_new();
	if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(md, out, sig_off) ||
	    !EVP_DigestUpdate(md, out + sig_off + sizeof(sig), out_len - sig_off - sizeof(sig)) ||
	    !EVP_DigestFinal_ex(md, digest, NULL)) {
		r = -ENOMEM;
		goto out;
	}
	EVP_MD_CTX_free(md);
	md = EVP_MD_CTX_new();
	{
		size_t siglen = sizeof(sig.signature);

		/* Ed25519 is "pure": no digest of its own (NULL md); it signs ours. */
		if (key_id_of(key, sig.key_id) < 0 || !md ||
		    EVP_DigestSignInit(md, NULL, NULL, NULL, key) != 1 ||
		    EVP_DigestSign(md, sig.signature, &siglen, digest, sizeof(digest)) != 1 ||
		    siglen != sizeof(sig.signature)) {
			r = -EINVAL;
			set_error(ret_error, "signing failed: not an Ed25519 private key?");
			goto out;
		}
	}
	memcpy(out + sig_off, &sig, sizeof(sig));

	elf_end(elf);
	elf = NULL;
	r = replace_file(real, fd, &st, out, out_len, ret_error);
out:
	if (r == -ENOMEM && ret_error && !*ret_error)
		set_error(ret_error, "%s", strerror(ENOMEM));
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	layout_release(&l);
	EVP_MD_CTX_free(md);
	free(shdrs);
	free(new_policy);
	free(out);
	free(buf);
	free(real);
	return r;
}
