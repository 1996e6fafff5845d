// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: umbrella.conf as umbrellad reads it at start and at every reload
 * (config_load(): the file's bytes, NUL bytes and all, then config_parse()). A file
 * that loads gives values within their limits and a summary; one that does not gives a
 * message that names the file.
 */
#include <string.h>

#include "config.h"
#include "fuzz.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = fuzz_file_new("umbrella.conf");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char *error = NULL, summary[256];
	int r;

	fuzz_file_set(fd, data, size);
	r = config_load(path, true, &c, &error);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EFBIG, "config_load: %d", r);
	if (r < 0) {
		FUZZ_CHECK(error && !strncmp(error, path, strlen(path)),
			   "an error that does not name the file: %s", error ? error : "(none)");
		free(error);
		return 0;
	}
	FUZZ_CHECK(!error, "success with a message: %s", error);
	FUZZ_CHECK(c.max_rules_per_layer >= 1 && c.max_rules_per_layer <= CONFIG_MAX_RULES_LIMIT,
		   "max_rules_per_layer %u", c.max_rules_per_layer);
	FUZZ_CHECK(c.max_layers_per_user <= CONFIG_MAX_LAYERS_PER_USER_LIMIT,
		   "max_layers_per_user %u", c.max_layers_per_user);
	FUZZ_CHECK(c.max_rules_per_user <= CONFIG_MAX_RULES_PER_USER_LIMIT, "max_rules_per_user %u",
		   c.max_rules_per_user);
	/* config.c's LOG_BURST_MAX and LOG_INTERVAL_MAX */
	FUZZ_CHECK(c.log_burst <= 1000000 && c.log_interval_sec <= 86400, "log_rate_limit %u/%u",
		   c.log_burst, c.log_interval_sec);
	config_summary(&c, summary, sizeof(summary));
	FUZZ_CHECK(strlen(summary) < sizeof(summary) - 1, "summary cut: %s", summary);
	return 0;
}
