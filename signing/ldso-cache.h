/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libumbrella (internal, static: umbrellad) - the entries of a copy of ld.so's cache
 * (/etc/ld.so.cache, glibc's format "glibc-ld.so.cache1.1"), as ld.so reads it to find a
 * DT_NEEDED name. The copy is of a file that the exec'ing process's root holds: it is
 * untrusted, so every offset is checked against the copy's length.
 */
#ifndef UMBRELLA_LDSO_CACHE_H
#define UMBRELLA_LDSO_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A larger file is not read (glibc's own is tens of KiB). */
#define LDSO_CACHE_MAX (4 * 1024 * 1024)

/* ldso_cache_valid() - whether @cache (@len bytes) has the header of the format. */
bool ldso_cache_valid(const char *cache, size_t len);

/*
 * ldso_cache_next() - the next entry of @cache named @name, from entry *@iter on (start
 * with 0): its path (a NUL-terminated string inside @cache) in *@ret_path, and *@iter
 * past it. Entries whose offsets leave the copy are skipped.
 * Return: true when one was found; false at the end.
 */
bool ldso_cache_next(const char *cache, size_t len, const char *name, uint64_t *iter,
		     const char **ret_path);

#endif /* UMBRELLA_LDSO_CACHE_H */
