/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* libumbrella - lookups from the grammar's names to values (internal, not exported) */
#ifndef UMBRELLA_RESTRICTION_NAMES_H
#define UMBRELLA_RESTRICTION_NAMES_H

#include <umbrella/umbrella.h>

/* Highest Linux capability number the library has a name for (CAP_CHECKPOINT_RESTORE). */
#define UMB_LINUX_CAP_LAST 40

/*
 * umb_net_families_from_name() - the address families a "net:NAME" item denies
 * @name: the NAME part, e.g. "inet6"; "inet" stands for two families (AF_INET, AF_INET6)
 * @ret_families: set to the AF_* values, in the order the items are added
 *
 * Return: the number of families (1 or 2), or -EINVAL for an unknown name.
 */
int umb_net_families_from_name(const char *name, int ret_families[2]);

/*
 * umb_linux_cap_from_name() - look up a "cap:NAME" item's capability
 * @name: the NAME part: lowercase, without the "cap_" prefix, e.g. "net_raw"
 * @ret_cap: set to the CAP_* number
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int umb_linux_cap_from_name(const char *name, int *ret_cap);

#endif /* UMBRELLA_RESTRICTION_NAMES_H */
