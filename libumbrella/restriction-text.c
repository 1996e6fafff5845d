// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libumbrella - the text form of restrictions: the one parser and formatter of the grammar */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <umbrella/umbrella.h>

#include "lib-errno.h"

#include "restriction-names.h"

/*
 * The grammar is docs/design.md section 1 and the comment at the top of umbrella.h. Where
 * they are silent, this file decides (tests/unit/test-restriction-parse.c checks each):
 *
 * - Items are split at every comma not preceded by an escaping backslash. Nothing is
 *   trimmed: an empty list, an empty item (",", "a,,b", "a,") and an item that starts
 *   or ends with white space (" fork", "fork ", "fs:/etc ") are errors. A stray space
 *   must not turn "fs:/etc ,fork" silently into a rule on a file called "/etc ".
 * - In a PATH, a backslash escapes ',', ':', '\' and white space, and nothing else: a
 *   backslash before any other character, or at the very end, is an error. White space
 *   inside a path is allowed as it is ("fs:/my dir"); at the end of the path it must
 *   be escaped ("fs:/dir\ ").
 * - "fs:PATH:MODES": an unescaped colon always starts MODES, so a colon in a PATH is
 *   always written "\:". MODES must be non-empty and made of the letters r, w and x,
 *   each at most once, in any order; anything else is an error, never part of the path:
 *   "fs:/etc:R" and "fs:/etc:rwz" are refused (earlier versions took them as the paths
 *   "/etc:R" and "/etc:rwz", which restricted nothing that was meant), and so are
 *   "fs:/a:" and "fs:/a:b:r" (a second unescaped colon). "fs:/a:rwx" is the same item
 *   as "fs:/a".
 * - PATH must be absolute; it is taken as written (no normalisation of "//", "." or
 *   ".."): umbrellad resolves it.
 * - "net:FAMILY" also takes the family's number (1 to 63, no leading zero), so that every
 *   family the builder accepts has a text form; the formatter writes a number only for a
 *   family without a name. "net:inet" adds two items, AF_INET then AF_INET6.
 * - "net" is every family but AF_UNIX (UMB_CR_NET), "net:all" every family
 *   (UMB_CR_NET_ALL, one item, not a family): "net,net:unix" denies the same sockets.
 *   A signed binary's policy of version 1 was written when "net" meant every family:
 *   signed-elf.c reads its "net" as "net:all".
 * - Names are case-sensitive and lowercase: "Fork", "net:INET", "cap:NET_RAW" and
 *   "cap:cap_net_raw" are errors. The same item given twice is added twice.
 * - An error message is "ITEM: why" with the item as written (in double quotes when it
 *   holds white space), or names the empty item's neighbour ("empty item after \"fork\"").
 * - The formatter writes the shortest form: "fs:PATH" for UMB_FS_ALL, MODES in the order
 *   r, w, x, names for families and capabilities. An empty set formats as "", which the
 *   parser refuses (an empty list is an error): there is nothing to read back.
 */

/* White space in the C locale, whatever the caller's locale says. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The characters that a backslash escapes in a path. */
static bool is_escapable(char c)
{
	return c == ',' || c == ':' || c == '\\' || is_space(c);
}

/* Sets *ret_error to the message (if wanted and if memory allows) and returns -EINVAL. */
__attribute__((format(printf, 2, 3))) static int fail(char **ret_error, const char *fmt, ...)
{
	va_list ap;

	if (ret_error) {
		va_start(ap, fmt);
		if (vasprintf(ret_error, fmt, ap) < 0)
			*ret_error = NULL;
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * fail() with the message "ITEM: why", the item as written; in quotes if it holds white
 * space, which would be hard to see otherwise ("\"fork \": white space after the item").
 */
__attribute__((format(printf, 3, 4))) static int fail_item(char **ret_error, const char *item,
							   const char *fmt, ...)
{
	const char *quote = strpbrk(item, " \t\n\v\f\r") ? "\"" : "";
	char *why;
	va_list ap;
	int n;

	if (!ret_error)
		return -EINVAL;
	va_start(ap, fmt);
	n = vasprintf(&why, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*ret_error = NULL;
		return -EINVAL;
	}
	(void)fail(ret_error, "%s%s%s: %s", quote, item, quote, why);
	free(why);
	return -EINVAL;
}

/* How the errors about a colon end: the one way to put a colon in a path. */
#define COLON_IN_PATH "write a ':' in a path as \"\\:\""

/* MODES of "fs:PATH:MODES", as written after the colon, to UMB_FS_*. */
static int parse_modes(const char *item, const char *modes, uint32_t *ret_access, char **ret_error)
{
	uint32_t access = 0;

	if (!*modes)
		return fail_item(ret_error, item,
				 "no access modes after the ':' (" COLON_IN_PATH ")");
	/* Checked whole before any letter, so that "fs:/a:rwz" names the real mistake. */
	if (strspn(modes, "rwx") != strlen(modes))
		return fail_item(ret_error, item,
				 "access modes are the letters r, w and x only (" COLON_IN_PATH
				 ")");
	for (const char *m = modes; *m; m++) {
		uint32_t bit = *m == 'r' ? UMB_FS_READ : *m == 'w' ? UMB_FS_WRITE : UMB_FS_EXEC;

		if (access & bit)
			return fail_item(ret_error, item, "access mode '%c' given twice", *m);
		access |= bit;
	}
	*ret_access = access;
	return 0;
}

/* "fs:PATH" and "fs:PATH:MODES": @item is the whole item, still escaped. */
static int parse_fs(struct umb_restrictions *r, const char *item, char **ret_error)
{
	const char *raw = item + strlen("fs:"), *modes = NULL, *why = NULL;
	uint32_t access = UMB_FS_ALL;
	size_t out = 0, colon_out = 0;
	bool space = false, colon_space = false; /* path ends with unescaped white space */
	bool second_colon = false;
	char *path;
	int ret;

	path = malloc(strlen(raw) + 1);
	if (!path)
		return -ENOMEM;

	for (const char *p = raw; *p && !why; p++) {
		if (*p == '\\') {
			if (!p[1])
				why = "backslash at the end with nothing to escape";
			else if (!is_escapable(p[1]))
				why = "a backslash escapes only ',', ':', '\\' and white space";
			else
				path[out++] = *++p;
			space = false;
			continue;
		}
		if (*p == ':') {
			second_colon = second_colon || modes;
			modes = p + 1;
			colon_out = out;
			colon_space = space;
		}
		path[out++] = *p;
		space = is_space(*p);
	}
	path[out] = '\0';

	/* The text after the unescaped colon is MODES, whatever it holds: fail closed. */
	if (!why && second_colon)
		why = "more than one unescaped ':' (" COLON_IN_PATH ")";
	if (!why && modes) {
		ret = parse_modes(item, modes, &access, ret_error);
		if (ret < 0)
			goto out_free_path;
		path[colon_out] = '\0';
		space = colon_space;
	}

	if (!why && !path[0])
		why = "empty path";
	else if (!why && path[0] != '/')
		why = "not an absolute path";
	else if (!why && space)
		why = "path ends with white space (write it as \"\\ \" if it is meant)";

	if (why)
		ret = fail_item(ret_error, item, "%s", why);
	else
		ret = umb_restrictions__add_fs(r, path, access);

out_free_path:
	free(path);
	return ret;
}

/* "net:FAMILY": a name, or a number for a family without one. */
static int parse_net(struct umb_restrictions *r, const char *item, char **ret_error)
{
	const char *name = item + strlen("net:");
	int families[2], n, ret;

	if (!*name)
		return fail_item(ret_error, item, "no address family after \"net:\"");

	n = umb_net_families_from_name(name, families);
	if (n < 0 && strspn(name, "0123456789") == strlen(name)) {
		long family = strlen(name) <= 2 && name[0] != '0' ? strtol(name, NULL, 10) : 0;

		if (family < 1 || family > 63)
			return fail_item(ret_error, item,
					 "address family number not between 1 and 63");
		families[0] = (int)family;
		n = 1;
	}
	if (n < 0)
		return fail_item(ret_error, item, "unknown address family");

	for (int i = 0; i < n; i++) {
		ret = umb_restrictions__add_net_family(r, families[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* "cap:NAME": a Linux capability. */
static int parse_linux_cap(struct umb_restrictions *r, const char *item, char **ret_error)
{
	const char *name = item + strlen("cap:");
	int cap;

	if (!*name)
		return fail_item(ret_error, item, "no capability name after \"cap:\"");
	if (umb_linux_cap_from_name(name, &cap) < 0)
		return fail_item(ret_error, item, "unknown Linux capability");
	return umb_restrictions__add_linux_cap(r, cap);
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One item, not empty and NUL-terminated, as written in the list. */
static int parse_item(struct umb_restrictions *r, const char *item, char **ret_error)
{
	uint64_t bit;

	if (is_space(item[0]))
		return fail_item(ret_error, item, "white space before the item");

	if (starts_with(item, "fs:"))
		return parse_fs(r, item, ret_error);

	/* Paths may end with escaped white space; nothing else can. */
	if (is_space(item[strlen(item) - 1]))
		return fail_item(ret_error, item, "white space after the item");

	/* Before "net:FAMILY": "net:all" is a name of its own. */
	if (umb_cap_restriction_from_name(item, &bit) == 0)
		return umb_restrictions__add_cap(r, bit);
	if (starts_with(item, "net:"))
		return parse_net(r, item, ret_error);
	if (starts_with(item, "cap:"))
		return parse_linux_cap(r, item, ret_error);
	if (strcmp(item, "fs") == 0)
		return fail_item(ret_error, item, "no path (fs:PATH or fs:PATH:MODES)");
	if (strcmp(item, "cap") == 0)
		return fail_item(ret_error, item, "no capability name (cap:NAME)");
	return fail_item(ret_error, item, "unknown restriction");
}

/* The length of the item at @s: up to the first comma that no backslash escapes. */
static size_t item_length(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ',') {
		if (s[n] == '\\' && s[n + 1])
			n++;
		n++;
	}
	return n;
}

/* Appends the items of @from to @to through the builder. */
static int append_items(struct umb_restrictions *to, const struct umb_restrictions *from)
{
	for (size_t i = 0; i < umb_restrictions__count(from); i++) {
		const struct umb_item *item = umb_restrictions__item(from, i);
		int ret;

		switch (item->kind) {
		case UMB_ITEM_FS:
			ret = umb_restrictions__add_fs(to, item->path, item->fs_access);
			break;
		case UMB_ITEM_CAP:
			ret = umb_restrictions__add_cap(to, item->value);
			break;
		case UMB_ITEM_NET_FAMILY:
			ret = umb_restrictions__add_net_family(to, (int)item->value);
			break;
		case UMB_ITEM_LINUX_CAP:
			ret = umb_restrictions__add_linux_cap(to, (int)item->value);
			break;
		default:
			ret = -EINVAL; /* the parser made it: cannot happen */
			break;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int restrictions__parse_impl(struct umb_restrictions *r, const char *list, char **ret_error)
{
	struct umb_restrictions *parsed;
	const char *prev = NULL, *p = list;
	size_t prev_len = 0;
	int ret;

	if (ret_error)
		*ret_error = NULL; /* so that the caller may always free it */
	if (!r || !list)
		return fail(ret_error, "no list of restrictions");
	if (!*list)
		return fail(ret_error, "empty list of restrictions");

	/* Parse into a set of our own first, so that a bad item adds nothing to @r. */
	parsed = umb_restrictions__new();
	if (!parsed)
		return -ENOMEM;

	for (;;) {
		size_t len = item_length(p);
		char *item;

		if (!len) {
			if (!prev)
				ret = fail(ret_error, "empty item at the start of the list");
			else
				ret = fail(ret_error, "empty item after \"%.*s\"%s", (int)prev_len,
					   prev, p[0] ? "" : " (the list ends with a comma)");
			goto out_free_parsed;
		}

		item = strndup(p, len);
		if (!item) {
			ret = -ENOMEM;
			goto out_free_parsed;
		}
		ret = parse_item(parsed, item, ret_error);
		free(item);
		if (ret < 0)
			goto out_free_parsed;

		if (!p[len])
			break;
		prev = p;
		prev_len = len;
		p += len + 1;
	}

	/* Every item parsed and the builder accepted each: the appends below can only fail
	 * for want of memory, and then leave part of the list in @r. */
	ret = append_items(r, parsed);

out_free_parsed:
	umb_restrictions__free(parsed);
	return ret;
}

/* A growing string; after a failed allocation it stays as it was and remembers it. */
struct text {
	char *s;
	size_t len, size;
	bool oom;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (t->len + n + 1 > t->size) {
		size_t size = t->size ? t->size : 64;
		char *bigger;

		while (size < t->len + n + 1)
			size *= 2;
		bigger = realloc(t->s, size);
		if (!bigger) {
			t->oom = true;
			return;
		}
		t->s = bigger;
		t->size = size;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void text_adds(struct text *t, const char *s)
{
	text_add(t, s, strlen(s));
}

/* A path with ',', ':', '\' and white space at its end escaped, so that it reads back. */
static void text_add_path(struct text *t, const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < n; i++) {
		if (path[i] == ',' || path[i] == ':' || path[i] == '\\' ||
		    (i == n - 1 && is_space(path[i])))
			text_add(t, "\\", 1);
		text_add(t, &path[i], 1);
	}
}

static int format_item(struct text *t, const struct umb_item *item)
{
	const char *name;
	char number[16];

	switch (item->kind) {
	case UMB_ITEM_FS:
		text_adds(t, "fs:");
		text_add_path(t, item->path);
		if (item->fs_access != UMB_FS_ALL) {
			text_adds(t, ":");
			if (item->fs_access & UMB_FS_READ)
				text_adds(t, "r");
			if (item->fs_access & UMB_FS_WRITE)
				text_adds(t, "w");
			if (item->fs_access & UMB_FS_EXEC)
				text_adds(t, "x");
		}
		return 0;
	case UMB_ITEM_CAP:
		name = umb_cap_restriction_name(item->value);
		if (!name)
			return -EINVAL; /* the builder takes only known bits: cannot happen */
		text_adds(t, name);
		return 0;
	case UMB_ITEM_NET_FAMILY:
		text_adds(t, "net:");
		name = umb_net_family_name((int)item->value);
		if (!name) {
			(void)snprintf(number, sizeof(number), "%d", (int)item->value);
			name = number;
		}
		text_adds(t, name);
		return 0;
	case UMB_ITEM_LINUX_CAP:
		name = umb_linux_cap_name((int)item->value);
		if (!name)
			return -EINVAL; /* the builder takes only named capabilities */
		text_adds(t, "cap:");
		text_adds(t, name);
		return 0;
	default:
		return -EINVAL;
	}
}

static int restrictions__format_impl(const struct umb_restrictions *r, char **ret_text)
{
	struct text t = {};
	int ret;

	if (!r || !ret_text)
		return -EINVAL;

	text_add(&t, "", 0); /* "" for an empty set */
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		if (i > 0)
			text_adds(&t, ",");
		ret = format_item(&t, umb_restrictions__item(r, i));
		if (ret < 0) {
			free(t.s);
			return ret;
		}
	}
	if (t.oom) {
		free(t.s);
		return -ENOMEM;
	}
	*ret_text = t.s;
	return 0;
}

int umb_restrictions__parse(struct umb_restrictions *r, const char *list, char **ret_error)
{
	return umb_errno(restrictions__parse_impl(r, list, ret_error));
}

int umb_restrictions__format(const struct umb_restrictions *r, char **ret_text)
{
	return umb_errno(restrictions__format_impl(r, ret_text));
}
