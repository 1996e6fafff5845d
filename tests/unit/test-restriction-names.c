// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: capability restriction names map to their bits and back */
#include <umbrella/umbrella.h>

#include "cap-names.h"
#include "tap.h"

int main(void)
{
	static const char *const bad[] = { "",	  "NET",     "net ",	 "nett", "exec_unsigned",
					   "fs",  "net:ALL", "net:all ", "all",	 "net:unix",
					   "key", "keys:all" };

	for (size_t i = 0; i < ARRAY_SIZE(expected_cap_names); i++) {
		uint64_t bit = 0;
		int r = umb_cap_restriction_from_name(expected_cap_names[i].name, &bit);

		TAP_OK(r == 0 && bit == expected_cap_names[i].bit, "'%s' parses to its bit",
		       expected_cap_names[i].name);
		TAP_OK(umb_cap_restriction_name(expected_cap_names[i].bit) &&
			       strcmp(umb_cap_restriction_name(expected_cap_names[i].bit),
				      expected_cap_names[i].name) == 0,
		       "bit of '%s' prints as '%s'", expected_cap_names[i].name,
		       expected_cap_names[i].name);
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
