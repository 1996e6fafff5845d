// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Copying a restriction item to another set (restriction-copy.h). Built into libumbrella
 * (the static library umbrellad links too), not into umbrella-common: it calls
 * libumbrella's API.
 */
#include <errno.h>

#include "restriction-copy.h"

int umb_restriction_copy_item(struct umb_restrictions *copy, const struct umb_item *item,
			      const char *path)
{
	switch (item->kind) {
	case UMB_ITEM_FS:
		return umb_restrictions__add_fs(copy, path, item->fs_access);
	case UMB_ITEM_CAP:
		return umb_restrictions__add_cap(copy, item->value);
	case UMB_ITEM_NET_FAMILY:
		return umb_restrictions__add_net_family(copy, (int)item->value);
	case UMB_ITEM_LINUX_CAP:
		return umb_restrictions__add_linux_cap(copy, (int)item->value);
	default:
		return -EINVAL;
	}
}
