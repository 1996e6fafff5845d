/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* libumbrella - process-based access control for the processes a program starts */
#ifndef UMBRELLA_UMBRELLA_H
#define UMBRELLA_UMBRELLA_H

#include <stdint.h>

#include <umbrella/bpf-abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * umb_cap_restriction_from_name() - look up a capability restriction by its name
 * @name: the item as written in the restriction grammar, e.g. "net", "fork",
 *        "exec-unsigned"
 * @ret_bit: on success, set to the item's UMB_CR_* bit
 *
 * Return: 0 on success, -EINVAL if @name is not a capability restriction.
 */
int umb_cap_restriction_from_name(const char *name, uint64_t *ret_bit);

/**
 * umb_cap_restriction_name() - the grammar's name of a capability restriction
 * @bit: exactly one UMB_CR_* bit
 *
 * Return: the name, or NULL if @bit is not exactly one known restriction.
 */
const char *umb_cap_restriction_name(uint64_t bit);

#ifdef __cplusplus
}
#endif

#endif /* UMBRELLA_UMBRELLA_H */
