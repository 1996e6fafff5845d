// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: capability restriction names map to their bits and back */
#include <umbrella/umbrella.h>

#include "tap.h"

int main(void)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} items[] = {
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
	static const char *const bad[] = { "",	  "NET",     "net ",	 "nett", "exec_unsigned",
					   "fs",  "net:ALL", "net:all ", "all",	 "net:unix",
					   "key", "keys:all" };

	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		uint64_t bit = 0;
		int r = umb_cap_restriction_from_name(items[i].name, &bit);

		TAP_OK(r == 0 && bit == items[i].bit, "'%s' parses to its bit", items[i].name);
		TAP_OK(umb_cap_restriction_name(items[i].bit) &&
			       strcmp(umb_cap_restriction_name(items[i].bit), items[i].name) == 0,
		       "bit of '%s' prints as '%s'", items[i].name, items[i].name);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t bit = 0;

		TAP_EQ(umb_cap_restriction_from_name(bad[i], &bit), -EINVAL,
		       "'%s' is refused with -EINVAL", bad[i]);
	}
	TAP_OK(umb_cap_restriction_name(0) == NULL, "no name for 0");
	TAP_OK(umb_cap_restriction_name(UMB_CR_NET | UMB_CR_FORK) == NULL,
	       "no name for two bits at once");
	return tap_finish();
}
