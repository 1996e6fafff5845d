// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * libumbrella - the dynamic loader's view of an ELF file (elf-dynamic.h).
 *
 * Everything read comes from a file anyone may have written: each offset and size is
 * checked against the file's size and the bounds of elf-dynamic.h before it is used.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-dynamic.h"

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -EIO;
		if (n == 0)
			return -EBADMSG; /* the file ends before what its headers say */
		done += (size_t)n;
	}
	return 0;
}

/* The file offset of the virtual address @addr, from the PT_LOAD headers. */
static int vaddr_offset(const Elf64_Phdr *ph, size_t n, uint64_t addr, uint64_t *ret)
{
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || addr < ph[i].p_vaddr ||
		    addr - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		*ret = ph[i].p_offset + (addr - ph[i].p_vaddr);
		return 0;
	}
	return -EBADMSG;
}

/* A copy of the string at @off of the string table @tab (@len bytes), or NULL. */
static char *tab_string(const char *tab, uint64_t len, uint64_t off, int *err)
{
	char *s;

	if (off >= len || !memchr(tab + off, '\0', len - off)) {
		*err = -EBADMSG;
		return NULL;
	}
	s = strdup(tab + off);
	if (!s)
		*err = -ENOMEM;
	return s;
}

static int read_dynamic(int fd, const Elf64_Phdr *ph, size_t nph, const Elf64_Phdr *dyn,
			uint64_t size, struct elf_dynamic *d)
{
	uint64_t strtab = 0, strsz = 0, tab_off, n = dyn->p_filesz / sizeof(Elf64_Dyn);
	uint64_t needed[ELF_DYNAMIC_NEEDED_MAX];
	int64_t runpath = -1, rpath = -1, soname = -1;
	bool has_strtab = false;
	Elf64_Dyn *e = NULL;
	char *tab = NULL;
	int r = 0;

	if (n > ELF_DYNAMIC_ENTRIES_MAX || dyn->p_offset > size ||
	    n * sizeof(*e) > size - dyn->p_offset)
		return -EBADMSG;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	r = read_at(fd, e, n * sizeof(*e), dyn->p_offset);
	for (uint64_t i = 0; r == 0 && i < n && e[i].d_tag != DT_NULL; i++) {
		uint64_t v = le64toh(e[i].d_un.d_val);

		switch (le64toh(e[i].d_tag)) {
		case DT_STRTAB:
			strtab = v;
			has_strtab = true;
			break;
		case DT_STRSZ:
			strsz = v;
			break;
		case DT_SONAME:
			d->has_soname = true;
			soname = (int64_t)v;
			break;
		case DT_NEEDED:
			if (d->n_needed >= ELF_DYNAMIC_NEEDED_MAX)
				r = -EBADMSG;
			else
				needed[d->n_needed++] = v;
			break;
		case DT_RUNPATH:
			runpath = (int64_t)v;
			break;
		case DT_RPATH:
			rpath = (int64_t)v;
			break;
		}
	}
	if (r < 0)
		goto out;
	if (!d->n_needed && runpath < 0 && rpath < 0 && soname < 0)
		goto out; /* no string needed */
	if (!has_strtab || strsz == 0 || strsz > ELF_DYNAMIC_STRTAB_MAX ||
	    vaddr_offset(ph, nph, strtab, &tab_off) < 0 || tab_off > size ||
	    strsz > size - tab_off) {
		r = -EBADMSG;
		goto out;
	}
	tab = malloc(strsz);
	if (!tab) {
		r = -ENOMEM;
		goto out;
	}
	r = read_at(fd, tab, strsz, tab_off);
	if (r < 0)
		goto out;
	d->needed = calloc(d->n_needed ? d->n_needed : 1, sizeof(*d->needed));
	if (!d->needed) {
		d->n_needed = 0;
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; r == 0 && i < d->n_needed; i++)
		d->needed[i] = tab_string(tab, strsz, needed[i], &r);
	if (r == 0 && runpath >= 0)
		d->runpath = tab_string(tab, strsz, (uint64_t)runpath, &r);
	if (r == 0 && rpath >= 0)
		d->rpath = tab_string(tab, strsz, (uint64_t)rpath, &r);
	if (r == 0 && soname >= 0)
		d->soname = tab_string(tab, strsz, (uint64_t)soname, &r);
out:
	free(tab);
	free(e);
	return r;
}

int elf_dynamic_read(int fd, struct elf_dynamic *ret)
{
	const Elf64_Phdr *dyn = NULL;
	struct elf_dynamic d = {};
	Elf64_Phdr *ph = NULL;
	Elf64_Ehdr eh;
	struct stat st;
	uint64_t size;
	size_t nph;
	int r;

	*ret = d;
	if (fstat(fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (size < sizeof(eh))
		return -ENOEXEC;
	r = read_at(fd, &eh, sizeof(eh), 0);
	if (r < 0)
		return r;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	d.type = le16toh(eh.e_type);
	d.machine = le16toh(eh.e_machine);
	nph = le16toh(eh.e_phnum);
	if (nph == 0) {
		*ret = d;
		return 0; /* an object file: nothing to load */
	}
	if (le16toh(eh.e_phentsize) != sizeof(*ph) || nph > ELF_DYNAMIC_PHDRS_MAX ||
	    le64toh(eh.e_phoff) > size || nph * sizeof(*ph) > size - le64toh(eh.e_phoff))
		return -EBADMSG;
	ph = calloc(nph, sizeof(*ph));
	if (!ph)
		return -ENOMEM;
	r = read_at(fd, ph, nph * sizeof(*ph), le64toh(eh.e_phoff));
	for (size_t i = 0; r == 0 && i < nph; i++) {
		if (ph[i].p_type == PT_DYNAMIC) {
			dyn = &ph[i];
		} else if (ph[i].p_type == PT_INTERP && !d.interp) {
			if (ph[i].p_filesz < 2 || ph[i].p_filesz > 4096 || ph[i].p_offset > size ||
			    ph[i].p_filesz > size - ph[i].p_offset) {
				r = -EBADMSG;
				break;
			}
			d.interp = calloc(1, ph[i].p_filesz + 1);
			if (!d.interp)
				r = -ENOMEM;
			else
				r = read_at(fd, d.interp, ph[i].p_filesz, ph[i].p_offset);
		}
	}
	if (r == 0 && dyn)
		r = read_dynamic(fd, ph, nph, dyn, size, &d);
	free(ph);
	if (r < 0) {
		elf_dynamic_release(&d);
		return r;
	}
	*ret = d;
	return 0;
}

bool elf_dynamic_is_library(const struct elf_dynamic *d)
{
	return d->type == ET_DYN && d->has_soname;
}

void elf_dynamic_release(struct elf_dynamic *d)
{
	for (size_t i = 0; d->needed && i < d->n_needed; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->interp);
	free(d->runpath);
	free(d->rpath);
	free(d->soname);
	*d = (struct elf_dynamic){};
}
