/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libumbrella (internal, static: umbrellad and umbrella-cli) - what the dynamic loader
 * reads of an ELF file: its type, its ELF interpreter (PT_INTERP), whether it names
 * itself (DT_SONAME), the libraries it needs (DT_NEEDED) and where it says to look for
 * them (DT_RUNPATH, DT_RPATH). Read through the program headers, as ld.so does, never
 * the section headers (which a stripped file may lack).
 */
#ifndef UMBRELLA_ELF_DYNAMIC_H
#define UMBRELLA_ELF_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on what is read: beyond them a file counts as malformed. */
#define ELF_DYNAMIC_PHDRS_MAX	256
#define ELF_DYNAMIC_ENTRIES_MAX 4096
#define ELF_DYNAMIC_STRTAB_MAX	(1024 * 1024)
#define ELF_DYNAMIC_NEEDED_MAX	256

struct elf_dynamic {
	uint16_t type;	  /* e_type: ET_EXEC, ET_DYN, ... */
	uint16_t machine; /* e_machine */
	char *interp;	  /* PT_INTERP's path, or NULL */
	bool has_soname;  /* DT_SONAME: a shared object that names itself */
	char *soname;	  /* DT_SONAME's name, or NULL */
	char **needed;	  /* DT_NEEDED, in order */
	size_t n_needed;
	char *runpath; /* DT_RUNPATH, or NULL */
	char *rpath;   /* DT_RPATH, or NULL */
};

/*
 * elf_dynamic_read() - read @fd's dynamic information into @ret (pread from offset 0)
 * Return: 0; -ENOEXEC for a file that is not a 64-bit little-endian ELF file (the only
 * ones Umbrella reads, include/umbrella/signed-elf-format.h); -EBADMSG for one whose program
 * headers or dynamic section are malformed or beyond the bounds above; -ENOMEM; -EIO.
 */
int elf_dynamic_read(int fd, struct elf_dynamic *ret);

/*
 * elf_dynamic_is_library() - whether @d is a shared library: ET_DYN with a DT_SONAME.
 * A position-independent program (ET_DYN too, with PT_INTERP, or without it when static)
 * names no soname; libc.so.6, which has PT_INTERP to print its version, does.
 */
bool elf_dynamic_is_library(const struct elf_dynamic *d);

void elf_dynamic_release(struct elf_dynamic *d);

#endif /* UMBRELLA_ELF_DYNAMIC_H */
