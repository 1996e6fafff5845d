// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* signing (internal) - the policy section of a signed binary (policy-section.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/umbrella.h>

#include "policy-section.h"
#include "signing-error.h"

/*
 * A policy of version 1 was signed when "net" denied every address family; today's "net"
 * leaves AF_UNIX. Its signer's word stands: @r's "net" becomes "net:all", and *@ret_text
 * (malloc'd) the policy in today's grammar, or NULL when @r has no "net" (the text
 * means today what it meant then). Return: 0 or -ENOMEM.
 */
static int policy_v1_text(const struct umb_restrictions *r, char **ret_text)
{
	struct umb_restrictions *now;
	bool has_net = false;
	int ret = 0;

	*ret_text = NULL;
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);

		has_net |= item->kind == UMB_ITEM_CAP && item->value == UMB_CR_NET;
	}
	if (!has_net)
		return 0;

	now = umb_restrictions__new();
	if (!now)
		return -ENOMEM;
	for (size_t i = 0; i < umb_restrictions__count(r) && ret == 0; i++) {
		const struct umb_item *item = umb_restrictions__item(r, i);

		switch (item->kind) {
		case UMB_ITEM_FS:
			ret = umb_restrictions__add_fs(now, item->path, item->fs_access);
			break;
		case UMB_ITEM_CAP:
			ret = umb_restrictions__add_cap(
				now, item->value == UMB_CR_NET ? UMB_CR_NET_ALL : item->value);
			break;
		case UMB_ITEM_NET_FAMILY:
			ret = umb_restrictions__add_net_family(now, (int)item->value);
			break;
		case UMB_ITEM_LINUX_CAP:
			ret = umb_restrictions__add_linux_cap(now, (int)item->value);
			break;
		default:
			ret = -EINVAL; /* the parser made it: cannot happen */
			break;
		}
	}
	if (ret == 0)
		ret = umb_restrictions__format(now, ret_text);
	umb_restrictions__free(now);
	return ret;
}

int policy_section_check(const uint8_t *p, uint64_t len, char **ret_text, char **ret_error)
{
	struct umb_policy_header h;
	struct umb_restrictions *r;
	char *text, *error = NULL;
	int ret;

	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, UMB_POLICY_MAGIC, sizeof(h.magic)))
		return set_error(ret_error, "bad magic in " UMB_POLICY_SECTION);
	if (h.version != UMB_POLICY_VERSION && h.version != 1)
		return set_error(ret_error, UMB_POLICY_SECTION " has unknown version %u",
				 h.version);
	if (h.text_len == 0 || h.text_len > UMB_POLICY_TEXT_MAX || h.text_len > len - sizeof(h))
		return set_error(ret_error,
				 UMB_POLICY_SECTION " has a bad text length %u in %llu "
						    "bytes",
				 h.text_len, (unsigned long long)len);
	for (uint64_t i = sizeof(h) + h.text_len; i < len; i++)
		if (p[i])
			return set_error(ret_error, UMB_POLICY_SECTION " has non-zero padding");
	if (memchr(p + sizeof(h), '\0', h.text_len))
		return set_error(ret_error, UMB_POLICY_SECTION " has a NUL byte in its text");

	text = strndup((const char *)p + sizeof(h), h.text_len);
	r = umb_restrictions__new();
	if (!text || !r) {
		free(text);
		umb_restrictions__free(r);
		return -ENOMEM;
	}
	ret = umb_restrictions__parse(r, text, &error);
	if (ret == 0 && h.version == 1) {
		char *now;

		ret = policy_v1_text(r, &now);
		if (ret == 0 && now) {
			free(text);
			text = now;
		}
	}
	umb_restrictions__free(r);
	if (ret == -ENOMEM) {
		free(error);
		free(text);
		return -ENOMEM;
	}
	if (ret < 0) {
		set_error(ret_error, UMB_POLICY_SECTION ": %s", error ? error : "not valid");
		free(error);
		free(text);
		return -EBADMSG;
	}
	if (ret_text)
		*ret_text = text;
	else
		free(text);
	return 0;
}

int policy_section_make(const char *text, uint8_t **ret, uint64_t *ret_len, char **ret_error)
{
	size_t text_len = strlen(text);
	struct umb_policy_header h = { .magic = UMB_POLICY_MAGIC,
				       .version = UMB_POLICY_VERSION,
				       .text_len = (__u32)text_len };
	uint8_t *p;
	int r;

	if (text_len == 0 || text_len > UMB_POLICY_TEXT_MAX)
		return signing_error(ret_error, -EINVAL,
				     "the policy's text has %zu bytes, not 1 to %d", text_len,
				     UMB_POLICY_TEXT_MAX);
	p = malloc(sizeof(h) + text_len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), text, text_len);
	r = policy_section_check(p, sizeof(h) + text_len, NULL, ret_error);
	if (r < 0) {
		free(p);
		return r == -EBADMSG ? -EINVAL : r;
	}
	*ret = p;
	*ret_len = sizeof(h) + text_len;
	return 0;
}
