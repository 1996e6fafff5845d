// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * signing (internal) - the layout checks of an ELF file (elf-layout.h).
 *
 * They trust nothing in the file: every offset and size is checked against the file's
 * size (without overflow) before libelf is asked for anything behind it, and what is
 * refused is said precisely.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/signed-elf-format.h>

#include "elf-layout.h"
#include "policy-section.h"
#include "signing-error.h"

/* libelf reads the section name table into memory: bound what a file can make the
 * daemon allocate (real tables have a few hundred bytes). */
#define SHSTRTAB_MAX (1024 * 1024)

_Static_assert(sizeof(GElf_Shdr) == sizeof(Elf64_Shdr) && sizeof(GElf_Ehdr) == sizeof(Elf64_Ehdr),
	       "GElf headers are the ELF64 ones");

void elf_layout_release(struct layout *l)
{
	free(l->shdrs);
	free(l->names);
	l->shdrs = NULL;
	l->names = NULL;
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

int elf_check_ident(const unsigned char *ident, uint64_t size, char **ret_error)
{
	int r = check_ident(ident, size, ret_error);

	return r < 0 ? r : check_counts(ident, size, ret_error);
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

int elf_layout_parse(Elf *elf, uint64_t size, struct layout *l, char **ret_error)
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
			return set_error(ret_error,
					 "section %zu, the section name table, is not a "
					 "string table",
					 l->shstrndx);
		if (s->sh_size > SHSTRTAB_MAX)
			return set_error(ret_error,
					 "the section name table has %llu bytes, more "
					 "than %d",
					 (unsigned long long)s->sh_size, SHSTRTAB_MAX);
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
			return set_error(ret_error,
					 UMB_SIGNATURE_SECTION " has %llu bytes, not %zu",
					 (unsigned long long)s->sh_size,
					 sizeof(struct umb_signature));
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
