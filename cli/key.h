/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli key - Ed25519 signing keys and the key ring that umbrellad trusts */
#ifndef UMBRELLA_CLI_KEY_H
#define UMBRELLA_CLI_KEY_H

/* umbrella-cli key {generate NAME | list | add FILE | remove ID | revoke ID | help};
 * @argv[0] is "key". Returns the exit code. */
int cli_key(int argc, char **argv);

/* The key ring's directory: @option (--keyring DIR) if set, else $UMBRELLA_KEYRING if
 * set and not empty, else KEYRING_DIR_DEFAULT. */
const char *cli_keyring_dir(const char *option);

#endif /* UMBRELLA_CLI_KEY_H */
