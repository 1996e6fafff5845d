// SPDX-License-Identifier: GPL-2.0-only
/* umbrella-cli - how every command writes times, key ids and verdicts: one way each, so
 * that "layer show", "verdict list" and "binary inspect" say the same thing alike. */
#include <time.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/signed-elf-format.h>

#include "format.h"

void cli_time_text(__u64 ns, bool iso, char *buf, size_t size)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	buf[0] = '\0';
	if (!ns)
		return;
	if (iso ? !gmtime_r(&t, &tm) : !localtime_r(&t, &tm))
		return;
	strftime(buf, size, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S %Z", &tm);
}

bool cli_key_id_set(const __u8 *id)
{
	for (size_t i = 0; i < UMB_KEY_ID_LEN; i++)
		if (id[i])
			return true;
	return false;
}

const char *cli_verdict_name(__u32 state)
{
	switch (state) {
	case UMB_VERDICT_PENDING:
		return "pending";
	case UMB_VERDICT_UNSIGNED:
		return "unsigned";
	case UMB_VERDICT_SIGNED:
		return "signed";
	case UMB_VERDICT_REFUSED:
		return "refused";
	case UMB_VERDICT_STALE:
		return "stale";
	default:
		return "unknown";
	}
}
