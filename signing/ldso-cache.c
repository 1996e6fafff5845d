// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libumbrella (internal) - the entries of a copy of ld.so's cache (ldso-cache.h) */
#include <string.h>

#include "ldso-cache.h"

#define MAGIC	     "glibc-ld.so.cache1.1"
#define MAGIC_LEN    (sizeof(MAGIC) - 1)
#define HEADER_LEN   48 /* magic, nlibs, the string table's length, unused words */
#define ENTRY_LEN    24 /* flags, key, value (offsets from the start), osversion, hwcap */
#define NLIBS_OFFSET MAGIC_LEN

bool ldso_cache_valid(const char *cache, size_t len)
{
	return cache && len >= HEADER_LEN && len <= LDSO_CACHE_MAX &&
	       !memcmp(cache, MAGIC, MAGIC_LEN);
}

/* The string at @offset, or NULL when it does not end inside the copy. */
static const char *string_at(const char *cache, size_t len, uint32_t offset)
{
	if (offset >= len || !memchr(cache + offset, '\0', len - offset))
		return NULL;
	return cache + offset;
}

bool ldso_cache_next(const char *cache, size_t len, const char *name, uint64_t *iter,
		     const char **ret_path)
{
	uint32_t nlibs;

	if (!ldso_cache_valid(cache, len))
		return false;
	memcpy(&nlibs, cache + NLIBS_OFFSET, sizeof(nlibs));
	for (; *iter < nlibs && HEADER_LEN + (*iter + 1) * ENTRY_LEN <= len; (*iter)++) {
		const char *entry = cache + HEADER_LEN + *iter * ENTRY_LEN, *key, *value;
		uint32_t key_offset, value_offset;

		memcpy(&key_offset, entry + 4, sizeof(key_offset));
		memcpy(&value_offset, entry + 8, sizeof(value_offset));
		key = string_at(cache, len, key_offset);
		value = string_at(cache, len, value_offset);
		if (key && value && !strcmp(key, name)) {
			(*iter)++;
			*ret_path = value;
			return true;
		}
	}
	return false;
}
