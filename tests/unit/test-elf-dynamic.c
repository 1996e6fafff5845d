// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host test (TAP): signing/elf-dynamic.c, what umbrellad reads of the libraries a
 * signed program will map, and "binary sign" of what a shared library is. This test's
 * own executable (a PIE program: PT_INTERP, libc.so.6 needed, no soname) and libc (a
 * shared library with a soname, and PT_INTERP too) are read; then copies cut short or
 * with a bad program header table, and a file that is not ELF, give errors, never a
 * crash (meson setup -Db_sanitize=address,undefined runs this under ASan). The host's
 * /etc/ld.so.cache is searched as the gate searches a process's (signing/ldso-cache.c),
 * and a cache whose offsets leave it gives no entry.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-dynamic.h"
#include "ldso-cache.h"
#include "tap.h"

static char tmp[] = "/tmp/test-elf-dynamic.XXXXXX";

static int read_path(const char *path, struct elf_dynamic *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = elf_dynamic_read(fd, d);
	close(fd);
	return r;
}

/* A copy of @src in @dst, its first @len bytes (0: all), with @patch at @off. */
static int copy_patched(const char *src, const char *dst, size_t len, size_t off, const void *patch,
			size_t plen)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	static char buf[1 << 22];
	size_t n = 0;

	if (!in || !out)
		return -1;
	n = fread(buf, 1, sizeof(buf), in);
	if (len && len < n)
		n = len;
	if (patch && off + plen <= n)
		memcpy(buf + off, patch, plen);
	fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out);
}

static bool has_needed(const struct elf_dynamic *d, const char *name)
{
	for (size_t i = 0; i < d->n_needed; i++)
		if (!strcmp(d->needed[i], name))
			return true;
	return false;
}

/* The host's ld.so cache in @buf: its length, or 0. */
static size_t read_cache(char *buf, size_t size)
{
	FILE *f = fopen("/etc/ld.so.cache", "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size, f);
		fclose(f);
	}
	return n;
}

static void test_ldso_cache(void)
{
	static char cache[LDSO_CACHE_MAX];
	const char *path = NULL;
	uint64_t iter = 0, i;
	size_t len = read_cache(cache, sizeof(cache));
	uint32_t nlibs, past;
	bool found;

	if (!ldso_cache_valid(cache, len)) {
		TAP_OK(true, "# SKIP the host's /etc/ld.so.cache is not glibc-ld.so.cache1.1");
		return;
	}
	found = ldso_cache_next(cache, len, "libc.so.6", &iter, &path);
	TAP_OK(found && path[0] == '/' && strstr(path, "/libc.so.6") && access(path, R_OK) == 0,
	       "libc.so.6 is found in the host's ld.so cache (%s)", found ? path : "none");
	iter = 0;
	TAP_OK(!ldso_cache_next(cache, len, "libumbrella-none.so.0", &iter, &path),
	       "a name the cache does not hold is not found");
	TAP_OK(!ldso_cache_valid(cache, 47), "a copy shorter than the header is no cache");
	cache[0] ^= 1;
	TAP_OK(!ldso_cache_valid(cache, len), "a cache with another magic is no cache");
	cache[0] ^= 1;

	/* Every entry's key and value moved past the end of the copy. */
	memcpy(&nlibs, cache + 20, sizeof(nlibs));
	past = (uint32_t)len;
	for (i = 0; i < nlibs && 48 + (i + 1) * 24 <= len; i++) {
		memcpy(cache + 48 + i * 24 + 4, &past, sizeof(past));
		memcpy(cache + 48 + i * 24 + 8, &past, sizeof(past));
	}
	iter = 0;
	TAP_OK(!ldso_cache_next(cache, len, "libc.so.6", &iter, &path),
	       "entries whose offsets leave the cache are skipped");
	/* A count of entries beyond the copy stops at its end. */
	nlibs = UINT32_MAX;
	memcpy(cache + 20, &nlibs, sizeof(nlibs));
	iter = 0;
	TAP_OK(!ldso_cache_next(cache, len, "libc.so.6", &iter, &path) && 48 + iter * 24 <= len,
	       "a count of 2^32-1 entries reads no further than the copy");
}

int main(void)
{
	char self[4096], copy[4096 + 32], text[4096 + 32];
	struct elf_dynamic d;
	ssize_t n;
	FILE *f;
	int r;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || !mkdtemp(tmp))
		return 1;
	self[n] = '\0';
	snprintf(copy, sizeof(copy), "%s/copy", tmp);
	snprintf(text, sizeof(text), "%s/text", tmp);

	r = read_path(self, &d);
	TAP_EQ(r, 0, "this test's executable is read");
	TAP_OK(d.interp && d.interp[0] == '/', "it has an ELF interpreter (%s)",
	       d.interp ? d.interp : "none");
	TAP_OK(has_needed(&d, "libc.so.6"), "it needs libc.so.6");
	TAP_OK(!elf_dynamic_is_library(&d), "a PIE program is no shared library");
	elf_dynamic_release(&d);

	if (read_path("/lib/x86_64-linux-gnu/libc.so.6", &d) == 0) {
		TAP_OK(elf_dynamic_is_library(&d), "libc.so.6 is a shared library (a soname)");
		elf_dynamic_release(&d);
	} else {
		TAP_OK(true, "# SKIP no /lib/x86_64-linux-gnu/libc.so.6");
	}

	f = fopen(text, "w");
	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	TAP_EQ(read_path(text, &d), -ENOEXEC, "a script is no ELF file: -ENOEXEC");

	for (size_t len = 16; len <= 8192; len *= 2) {
		copy_patched(self, copy, len, 0, NULL, 0);
		r = read_path(copy, &d);
		TAP_OK(r == -ENOEXEC || r == -EBADMSG || r == 0,
		       "a copy cut to %zu bytes: an error or what is left (%d)", len, r);
		elf_dynamic_release(&d);
	}

	{
		uint16_t phnum = 0xffff, phentsize = 7;
		uint64_t phoff = ~0ULL;

		copy_patched(self, copy, 0, offsetof(Elf64_Ehdr, e_phnum), &phnum, sizeof(phnum));
		TAP_EQ(read_path(copy, &d), -EBADMSG, "65535 program headers: -EBADMSG");
		copy_patched(self, copy, 0, offsetof(Elf64_Ehdr, e_phentsize), &phentsize,
			     sizeof(phentsize));
		TAP_EQ(read_path(copy, &d), -EBADMSG, "a program header size of 7: -EBADMSG");
		copy_patched(self, copy, 0, offsetof(Elf64_Ehdr, e_phoff), &phoff, sizeof(phoff));
		TAP_EQ(read_path(copy, &d), -EBADMSG, "program headers past the end: -EBADMSG");
	}

	test_ldso_cache();

	unlink(copy);
	unlink(text);
	rmdir(tmp);
	return tap_finish();
}
