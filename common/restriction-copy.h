/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Copying a restriction item to another set, its path replaced (restriction-copy.c) */
#ifndef UMBRELLA_RESTRICTION_COPY_H
#define UMBRELLA_RESTRICTION_COPY_H

#include <umbrella/umbrella.h>

/* Adds @item to @copy; an fs item with the path @path instead of its own (its canonical
 * form: libumbrella's caller-paths.c, umbrellad's system-paths.c). Return: 0 or -errno
 * (-EINVAL: an unknown kind). */
int umb_restriction_copy_item(struct umb_restrictions *copy, const struct umb_item *item,
			      const char *path);

#endif /* UMBRELLA_RESTRICTION_COPY_H */
