/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the names of what denial records and counters carry (not installed):
 * umbrellad's journal fields and umbrella-cli's output say the same.
 */
#ifndef UMBRELLA_EVENT_NAMES_H
#define UMBRELLA_EVENT_NAMES_H

#include <umbrella/bpf-abi.h>

/* The name of @hook (enum umb_hook): the LSM hook's, "file_open"; or "unknown". */
const char *umb_hook_name(__u32 hook);

/*
 * The name of @kind (enum umb_item_kind): "fs", "right" (a named right: signal, fork,
 * exec, ...), "net", "cap" (a Linux capability), "self", "verdict", "scope"; or
 * "unknown".
 */
const char *umb_item_kind_name(__u32 kind);

#endif /* UMBRELLA_EVENT_NAMES_H */
