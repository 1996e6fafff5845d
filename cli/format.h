/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - how every command writes times, key ids and verdicts */
#ifndef UMBRELLA_CLI_FORMAT_H
#define UMBRELLA_CLI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

/* Room for any text cli_time_text() writes. */
#define CLI_TIME_TEXT_SIZE 64

/* @ns (CLOCK_REALTIME) as local time for people ("2026-01-02 03:04:05 CET"), or with
 * @iso as UTC ISO 8601 for JSON ("2026-01-02T02:04:05Z"). "" when @ns is 0 (unknown). */
void cli_time_text(__u64 ns, bool iso, char *buf, size_t size);

/* Whether the key id @id (UMB_KEY_ID_LEN bytes, as records hold it) is set: all zeros
 * is "no key". Its text is key_id_to_hex()'s (keyring.h). */
bool cli_key_id_set(const __u8 *id);

/* The name of a verdict state, UMB_VERDICT_* ("signed"), "unknown" for any other. */
const char *cli_verdict_name(__u32 state);

#endif /* UMBRELLA_CLI_FORMAT_H */
