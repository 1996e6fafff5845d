/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - which fs item of a list covers a path, and the item as it is written
 * (run-explain.c names the rule of a denial, run-precheck.c the rule that would deny) */
#ifndef UMBRELLA_CLI_FS_RULE_H
#define UMBRELLA_CLI_FS_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <umbrella/umbrella.h>

/* Whether @path is @dir or under it (component-wise: "/etc" does not cover "/etcx"),
 * as the parser reads @dir: "/etc/" is "/etc". Both are compared as strings. */
bool fs_rule_covers(const char *dir, const char *path);

/* The fs item @it as the grammar writes it ("fs:/etc", "fs:/srv:w") in @buf. */
const char *fs_rule_text(const struct umb_item *it, char *buf, size_t size);

#endif /* UMBRELLA_CLI_FS_RULE_H */
