/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* libumbrella (internal) - the one rfork behind umb_rfork(), rfork() and umb_spawn() */
#ifndef UMBRELLA_RFORK_INTERNAL_H
#define UMBRELLA_RFORK_INTERNAL_H

#include <sys/types.h>

#include <umbrella/umbrella.h>

/* umb_rfork() as UMBRELLA_0.3 has it, without setting errno: the child's pid, 0 in the
 * child (which carries the layer: checked before it returns), or -errno. */
pid_t umb_rfork_flags(const struct umb_restrictions *r, unsigned int flags);

#endif /* UMBRELLA_RFORK_INTERNAL_H */
