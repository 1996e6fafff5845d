/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal) - the layout checks of an ELF file that may carry Umbrella's
 * sections (include/umbrella/signed-elf-format.h): the headers and where every section
 * is, checked against the file's size before anything behind an offset is used. The
 * reader (read.c) and the signer (sign.c) both judge a file by them.
 */
#ifndef UMBRELLA_SIGNING_ELF_LAYOUT_H
#define UMBRELLA_SIGNING_ELF_LAYOUT_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || __SIZEOF_POINTER__ != 8
#error "signed binaries are read on 64-bit little-endian machines only"
#endif

#define SIGNED_ELF_SIZE_MAX (1ULL << 30) /* 1 GiB: larger files are neither read nor signed */

/* Where umbrella's sections and the headers are, as elf_layout_parse() checked them. */
struct layout {
	uint64_t size;
	GElf_Ehdr ehdr;
	size_t shnum;
	size_t shstrndx;  /* 0: no section names (then no umbrella section) */
	long policy, sig; /* section indices, -1: none */
	GElf_Shdr policy_shdr, sig_shdr;
	/* What the checks were made on, to compare with the bytes hashed (malloc'd). */
	GElf_Shdr *shdrs; /* shnum headers */
	uint8_t *names;	  /* the section name table's bytes */
	uint64_t names_off, names_len;
};

/* [a, a + alen) and [b, b + blen) share a byte (lengths checked against the file size). */
static inline bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* @off + @len within @size, without overflow. */
static inline bool within(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * elf_check_ident() - the checks on the ELF header's first bytes @ident (at least
 * sizeof(Elf64_Ehdr), zeros past the end of a file of @size bytes), before libelf sees
 * anything: the machine's own class and byte order, the current version, and section
 * counts that libelf may allocate for (no extended numbering, a table inside the file).
 * Return: 0 or -EBADMSG with *@ret_error set.
 */
int elf_check_ident(const unsigned char *ident, uint64_t size, char **ret_error);

/*
 * elf_layout_parse() - check the headers of @elf (a file of @size bytes) and find
 * umbrella's sections. Reads only the ELF header, the section headers and the section
 * name table. Release @l with elf_layout_release(), also on failure.
 * Return: 0, -EBADMSG with *@ret_error set, or -ENOMEM.
 */
int elf_layout_parse(Elf *elf, uint64_t size, struct layout *l, char **ret_error);

void elf_layout_release(struct layout *l);

#endif /* UMBRELLA_SIGNING_ELF_LAYOUT_H */
