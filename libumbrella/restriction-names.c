// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libumbrella - the names of the capability restrictions in the text grammar */
#include <errno.h>
#include <string.h>

#include <umbrella/umbrella.h>

/* The one table from names to bits: the parser and every printer go through it. */
static const struct {
	const char *name;
	uint64_t bit;
} cap_restrictions[] = {
	{ "net", UMB_CR_NET },
	{ "signal", UMB_CR_SIGNAL },
	{ "fork", UMB_CR_FORK },
	{ "exec", UMB_CR_EXEC },
	{ "exec-unsigned", UMB_CR_EXEC_UNSIGNED },
	{ "ptrace", UMB_CR_PTRACE },
	{ "mount", UMB_CR_MOUNT },
	{ "module", UMB_CR_MODULE },
	{ "setid", UMB_CR_SETID },
};

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

int umb_cap_restriction_from_name(const char *name, uint64_t *ret_bit)
{
	for (size_t i = 0; i < ELEMENTSOF(cap_restrictions); i++) {
		if (strcmp(name, cap_restrictions[i].name) == 0) {
			*ret_bit = cap_restrictions[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

const char *umb_cap_restriction_name(uint64_t bit)
{
	for (size_t i = 0; i < ELEMENTSOF(cap_restrictions); i++) {
		if (cap_restrictions[i].bit == bit)
			return cap_restrictions[i].name;
	}
	return NULL;
}
