/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal) - the policy section of a signed binary: its bytes checked (and
 * its text read in today's grammar), or made from a text (the format:
 * include/umbrella/signed-elf-format.h). The reader and the signer accept the same sections.
 */
#ifndef UMBRELLA_SIGNING_POLICY_SECTION_H
#define UMBRELLA_SIGNING_POLICY_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include <umbrella/signed-elf-format.h>

/* The policy's padding: the macro adds one NUL; a little room for other tools. */
#define POLICY_PADDING_MAX 4096
#define POLICY_SECTION_MAX \
	(sizeof(struct umb_policy_header) + UMB_POLICY_TEXT_MAX + POLICY_PADDING_MAX)

/*
 * policy_section_check() - check the policy section's bytes @p (@len of them, at most
 * POLICY_SECTION_MAX): magic, version, length, padding, and a text the grammar accepts
 * @ret_text: the text in today's grammar (a version 1 policy's "net" as "net:all"),
 *            NUL-terminated, malloc'd; NULL: only check
 * Return: 0, -EBADMSG with *@ret_error set, or -ENOMEM.
 */
int policy_section_check(const uint8_t *p, uint64_t len, char **ret_text, char **ret_error);

/*
 * policy_section_make() - the bytes of a policy section holding @text (the header and
 * the text, no padding), checked as the reader will
 * Return: 0 with *@ret (malloc'd) and *@ret_len set; -EINVAL with *@ret_error set for a
 * text that is empty, too long or not valid; -ENOMEM.
 */
int policy_section_make(const char *text, uint8_t **ret, uint64_t *ret_len, char **ret_error);

#endif /* UMBRELLA_SIGNING_POLICY_SECTION_H */
