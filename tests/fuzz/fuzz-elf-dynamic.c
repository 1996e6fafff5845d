// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: what umbrellad reads, as root, of the libraries a signed program will
 * map (daemon/gate-libraries.c): a file of the exec'ing user's as elf_dynamic_read()
 * reads it (PT_INTERP, DT_SONAME, DT_NEEDED, DT_RUNPATH, DT_RPATH), and the same bytes as
 * a copy of the user's /etc/ld.so.cache searched for the names the file needs. What is
 * read stays within its bounds, is NUL-terminated, and agrees with what the gate asks.
 */
#include <elf.h>
#include <string.h>

#include "elf-dynamic.h"
#include "fuzz.h"
#include "ldso-cache.h"

static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = fuzz_file_new("fuzz-elf-dynamic");
	return 0;
}

/* Every entry of @cache named @name: a path that ends inside the copy. */
static void search_cache(const char *cache, size_t len, const char *name)
{
	const char *path;
	uint64_t iter = 0, last = 0;
	int n = 0;

	while (ldso_cache_next(cache, len, name, &iter, &path)) {
		FUZZ_CHECK(path >= cache && path < cache + len &&
				   memchr(path, '\0', len - (size_t)(path - cache)),
			   "a path outside the copy");
		FUZZ_CHECK(iter > last, "no progress: entry %llu", (unsigned long long)iter);
		last = iter;
		n++;
	}
	FUZZ_CHECK(n == 0 || ldso_cache_valid(cache, len), "entries of an invalid cache");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_dynamic d;
	int r;

	fuzz_file_set(fd, data, size);
	r = elf_dynamic_read(fd, &d);
	FUZZ_CHECK(r == 0 || r == -ENOEXEC || r == -EBADMSG || r == -ENOMEM || r == -EIO,
		   "elf_dynamic_read: %d", r);
	if (r == 0) {
		FUZZ_CHECK(d.n_needed <= ELF_DYNAMIC_NEEDED_MAX, "%zu needed", d.n_needed);
		FUZZ_CHECK(!d.soname || d.has_soname, "a soname without DT_SONAME");
		FUZZ_CHECK(elf_dynamic_is_library(&d) == (d.type == ET_DYN && d.has_soname),
			   "a library is ET_DYN with a soname");
		/* ASan sees a string that does not end where it was allocated. */
		if (d.interp)
			(void)strlen(d.interp);
		if (d.runpath)
			(void)strlen(d.runpath);
		if (d.rpath)
			(void)strlen(d.rpath);
		for (size_t i = 0; i < d.n_needed; i++) {
			FUZZ_CHECK(d.needed[i], "needed[%zu] is NULL", i);
			search_cache((const char *)data, size, d.needed[i]);
		}
	}
	elf_dynamic_release(&d);
	search_cache((const char *)data, size, "libc.so.6");
	return 0;
}
