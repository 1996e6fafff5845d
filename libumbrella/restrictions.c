// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libumbrella - a set of restrictions being built: what one layer will deny */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/umbrella.h>

#include "lib-errno.h"

struct umb_restrictions {
	struct umb_item *items;
	size_t count, capacity;
};

struct umb_restrictions *umb_restrictions__new(void)
{
	return calloc(1, sizeof(struct umb_restrictions));
}

void umb_restrictions__free(struct umb_restrictions *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		free((char *)r->items[i].path);
	free(r->items);
	free(r);
}

/* Appends @item, taking ownership of its path. Returns 0 or -ENOMEM. */
static int append(struct umb_restrictions *r, const struct umb_item *item)
{
	if (r->count == r->capacity) {
		size_t capacity = r->capacity ? 2 * r->capacity : 8;
		struct umb_item *items = reallocarray(r->items, capacity, sizeof(*items));

		if (!items)
			return -ENOMEM;
		r->items = items;
		r->capacity = capacity;
	}
	r->items[r->count++] = *item;
	return 0;
}

static int restrictions__add_fs_impl(struct umb_restrictions *r, const char *path, uint32_t access)
{
	struct umb_item item = { .kind = UMB_ITEM_FS, .fs_access = access };
	int ret;

	if (!path || path[0] != '/' || !access || (access & ~(uint32_t)UMB_FS_ALL))
		return -EINVAL;
	item.path = strdup(path);
	if (!item.path)
		return -ENOMEM;
	ret = append(r, &item);
	if (ret < 0)
		free((char *)item.path);
	return ret;
}

static int restrictions__add_cap_impl(struct umb_restrictions *r, uint64_t bits)
{
	uint64_t remaining = bits;

	/* Check every bit before adding any, so a bad call adds nothing. */
	while (remaining) {
		uint64_t bit = remaining & -remaining;

		if (!umb_cap_restriction_name(bit))
			return -EINVAL;
		remaining &= ~bit;
	}
	while (bits) {
		struct umb_item item = { .kind = UMB_ITEM_CAP, .value = bits & -bits };
		int ret = append(r, &item);

		if (ret < 0)
			return ret;
		bits &= ~item.value;
	}
	return 0;
}

static int restrictions__add_net_family_impl(struct umb_restrictions *r, int family)
{
	struct umb_item item = { .kind = UMB_ITEM_NET_FAMILY, .value = (uint64_t)family };

	if (family < 1 || family > 63)
		return -EINVAL;
	return append(r, &item);
}

static int restrictions__add_linux_cap_impl(struct umb_restrictions *r, int cap)
{
	struct umb_item item = { .kind = UMB_ITEM_LINUX_CAP, .value = (uint64_t)cap };

	if (!umb_linux_cap_name(cap))
		return -EINVAL;
	return append(r, &item);
}

size_t umb_restrictions__count(const struct umb_restrictions *r)
{
	return r->count;
}

const struct umb_item *umb_restrictions__item(const struct umb_restrictions *r, size_t i)
{
	return i < r->count ? &r->items[i] : NULL;
}

int umb_restrictions__add_fs(struct umb_restrictions *r, const char *path, uint32_t access)
{
	return umb_errno(restrictions__add_fs_impl(r, path, access));
}

int umb_restrictions__add_cap(struct umb_restrictions *r, uint64_t bits)
{
	return umb_errno(restrictions__add_cap_impl(r, bits));
}

int umb_restrictions__add_net_family(struct umb_restrictions *r, int family)
{
	return umb_errno(restrictions__add_net_family_impl(r, family));
}

int umb_restrictions__add_linux_cap(struct umb_restrictions *r, int cap)
{
	return umb_errno(restrictions__add_linux_cap_impl(r, cap));
}
