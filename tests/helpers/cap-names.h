/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capability restriction names and their bits, as the tests expect them: written
 * here once, by hand, rather than taken from the library, so that a renamed or
 * renumbered item fails the tests that use it (test-restriction-names,
 * test-restriction-parse).
 */
#ifndef UMBRELLA_TESTS_CAP_NAMES_H
#define UMBRELLA_TESTS_CAP_NAMES_H

#include <stdint.h>

#include <umbrella/restrictions.h>

static const struct {
	const char *name;
	uint64_t bit;
} expected_cap_names[] = {
	{ "net", UMB_CR_NET },
	{ "signal", UMB_CR_SIGNAL },
	{ "fork", UMB_CR_FORK },
	{ "exec", UMB_CR_EXEC },
	{ "exec-unsigned", UMB_CR_EXEC_UNSIGNED },
	{ "ptrace", UMB_CR_PTRACE },
	{ "mount", UMB_CR_MOUNT },
	{ "module", UMB_CR_MODULE },
	{ "setid", UMB_CR_SETID },
	{ "net:all", UMB_CR_NET_ALL },
	{ "keys", UMB_CR_KEYS },
};

#endif /* UMBRELLA_TESTS_CAP_NAMES_H */
