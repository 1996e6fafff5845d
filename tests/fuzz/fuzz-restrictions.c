// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: the restriction grammar (libumbrella/restriction-text.c), which reads the
 * text of every rfork() request, of every signed binary's policy and of umbrella-cli's
 * options. The input is a list; when it parses, its formatted text must parse again to
 * the same items in the same order, and format to the same text (parse, format, parse:
 * the same set). The input is also taken as a path (after a '/'): the formatter must
 * escape any path so that it reads back as itself.
 */
#include <string.h>

#include <umbrella/umbrella.h>

#include "fuzz.h"

static bool item_eq(const struct umb_item *a, const struct umb_item *b)
{
	if (a->kind != b->kind || a->fs_access != b->fs_access || a->value != b->value)
		return false;
	if (!a->path || !b->path)
		return a->path == b->path;
	return !strcmp(a->path, b->path);
}

static bool set_eq(const struct umb_restrictions *a, const struct umb_restrictions *b)
{
	if (umb_restrictions__count(a) != umb_restrictions__count(b))
		return false;
	for (size_t i = 0; i < umb_restrictions__count(a); i++)
		if (!item_eq(umb_restrictions__item(a, i), umb_restrictions__item(b, i)))
			return false;
	return true;
}

/* @r (not empty) formats to a text that parses back to @r, and formats the same again. */
static void check_round_trip(const struct umb_restrictions *r, const char *input)
{
	struct umb_restrictions *again = umb_restrictions__new();
	char *text = NULL, *text2 = NULL, *error = NULL;
	int ret;

	FUZZ_SETUP(again);
	FUZZ_SETUP(umb_restrictions__format(r, &text) == 0);
	ret = umb_restrictions__parse(again, text, &error);
	FUZZ_CHECK(ret == 0, "\"%s\" formats as \"%s\", which does not parse: %s", input, text,
		   error ? error : "?");
	FUZZ_CHECK(set_eq(r, again), "\"%s\" formats as \"%s\", which parses to another set", input,
		   text);
	FUZZ_SETUP(umb_restrictions__format(again, &text2) == 0);
	FUZZ_CHECK(!strcmp(text, text2), "\"%s\": \"%s\" formats as \"%s\"", input, text, text2);
	free(text);
	free(text2);
	free(error);
	umb_restrictions__free(again);
}

static void fuzz_list(const char *list)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	int ret;

	FUZZ_SETUP(r);
	ret = umb_restrictions__parse(r, list, &error);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "parse: %d", ret);
	if (ret == 0) {
		FUZZ_CHECK(!error, "success with a message");
		FUZZ_CHECK(umb_restrictions__count(r) > 0, "a list that parsed to nothing");
		check_round_trip(r, list);
	} else {
		FUZZ_CHECK(error && *error, "an error without a message");
		FUZZ_CHECK(umb_restrictions__count(r) == 0, "a failed parse added items");
	}
	free(error);
	umb_restrictions__free(r);
}

/* The input as one path, with each access the formatter writes differently. */
static void fuzz_path(const char *input)
{
	size_t len = strlen(input);
	char *path = malloc(len + 2);

	FUZZ_SETUP(path);
	path[0] = '/';
	memcpy(path + 1, input, len + 1);
	for (uint32_t access = 1; access <= UMB_FS_ALL; access++) {
		struct umb_restrictions *r = umb_restrictions__new();

		FUZZ_SETUP(r);
		FUZZ_CHECK(umb_restrictions__add_fs(r, path, access) == 0, "add_fs");
		check_round_trip(r, path);
		umb_restrictions__free(r);
	}
	free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Every reader hands the parser a C string: up to the first NUL. */
	char *text = strndup((const char *)data, size);

	FUZZ_SETUP(text);
	fuzz_list(text);
	fuzz_path(text);
	free(text);
	return 0;
}
