// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the prefilter of the fs rules, kept exact by counting (fs-filter.h).
 *
 * umbrellad changes the bitmap through its mapping, one 64-bit word at a time with
 * atomic operations: a hook reading it meanwhile sees every other bit as it was, and
 * nothing copies the whole 128 KiB (as a map update would, per layer).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fs-filter.h"

#define FILTER_BITS (1U << UMB_FS_FILTER_SHIFT)

int fs_filter_open(struct fs_filter *f, int map_fd)
{
	void *map = mmap(NULL, sizeof(*f->map), PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);

	if (map == MAP_FAILED)
		return -errno;
	/* calloc() of this size is a fresh anonymous mapping: only the pages of the counts
	 * in use take memory. */
	f->counts = calloc(FILTER_BITS, sizeof(*f->counts));
	if (!f->counts) {
		munmap(map, sizeof(*f->map));
		return -ENOMEM;
	}
	f->map = map;
	return 0;
}

void fs_filter_close(struct fs_filter *f)
{
	if (f->map)
		munmap(f->map, sizeof(*f->map));
	free(f->counts);
	*f = (struct fs_filter){};
}

static void bit_count(struct fs_filter *f, uint32_t bit)
{
	if (f->counts[bit]++ == 0)
		__atomic_fetch_or(&f->map->words[bit / 64], 1ULL << (bit % 64), __ATOMIC_SEQ_CST);
}

static void bit_uncount(struct fs_filter *f, uint32_t bit)
{
	if (f->counts[bit] == 0)
		return; /* not counted (cannot happen): leave the bit set, it costs a lookup */
	if (--f->counts[bit] == 0)
		__atomic_fetch_and(&f->map->words[bit / 64], ~(1ULL << (bit % 64)),
				   __ATOMIC_SEQ_CST);
}

void fs_filter_add(struct fs_filter *f, uint32_t dev, uint64_t ino)
{
	bit_count(f, umb_fs_filter_bit(dev, ino));
	bit_count(f, umb_fs_filter_bit(dev, UMB_FS_FILTER_ANY_INO));
}

void fs_filter_remove(struct fs_filter *f, uint32_t dev, uint64_t ino)
{
	bit_uncount(f, umb_fs_filter_bit(dev, ino));
	bit_uncount(f, umb_fs_filter_bit(dev, UMB_FS_FILTER_ANY_INO));
}

unsigned int fs_filter_trim(struct fs_filter *f)
{
	unsigned int cleared = 0;

	for (uint32_t w = 0; w < UMB_FS_FILTER_WORDS; w++) {
		uint64_t word = __atomic_load_n(&f->map->words[w], __ATOMIC_RELAXED), stale = 0;

		if (!word)
			continue;
		for (int b = 0; b < 64; b++)
			if ((word & 1ULL << b) && !f->counts[w * 64 + b])
				stale |= 1ULL << b;
		if (stale) {
			__atomic_fetch_and(&f->map->words[w], ~stale, __ATOMIC_SEQ_CST);
			cleared += (unsigned int)__builtin_popcountll(stale);
		}
	}
	return cleared;
}
