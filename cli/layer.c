// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli layer - the layers in umb_layers, with their provenance.
 *
 * What a layer denies is kept twice. umb_layers holds what the hooks test: bit sets,
 * and only a count of fs rules, since umb_fs_inodes and umb_fs_names are keyed by inode
 * and name hash, from which no path comes back. umb_layer_desc holds the text umbrellad
 * installed, and who asked for it and when: that is what this file prints. A layer
 * without a description (one a test harness installed) is shown from its bits, its fs
 * rules as a count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <umbrella/umbrella.h>

#include "cli.h"
#include "command.h"
#include "format.h"
#include "keyring.h"
#include "layer.h"
#include "printable.h"

/* A layer and, when umbrellad recorded one, its description. */
struct layer_view {
	__u32 id;
	struct umb_layer layer;
	struct umb_layer_desc desc;
	bool described;
	struct umb_restrictions *items; /* from desc.text, else from the bits */
};

static const char *origin_name(__u32 origin)
{
	switch (origin) {
	case UMB_ORIGIN_RFORK:
		return "rfork";
	case UMB_ORIGIN_RESTRICT_SELF:
		return "restrict-self";
	case UMB_ORIGIN_SIGNED_BINARY:
		return "signed-binary";
	case UMB_ORIGIN_UNKNOWN_SIGNER:
		return "unknown-signer"; /* signed by a key not in the ring, run as unsigned */
	default:
		return "unknown";
	}
}

/* Whether a layer of @origin is a binary's own (its path is the binary's). */
static bool origin_binary(__u32 origin)
{
	return origin == UMB_ORIGIN_SIGNED_BINARY || origin == UMB_ORIGIN_UNKNOWN_SIGNER;
}

/* The items a layer's bits stand for (fs rules are only a count there). */
static int items_from_bits(struct umb_restrictions *r, const struct umb_layer *l)
{
	int ret = 0;

	for (int bit = 0; bit < 64 && ret == 0; bit++) {
		if (l->denied_caps & 1ULL << bit)
			ret = umb_restrictions__add_cap(r, 1ULL << bit);
		if (ret == 0 && l->denied_families & 1ULL << bit)
			ret = umb_restrictions__add_net_family(r, bit);
		if (ret == 0 && l->denied_capabilities & 1ULL << bit)
			ret = umb_restrictions__add_linux_cap(r, bit);
	}
	return ret;
}

/* Loads layer @id. Return: 0, -ENOENT, or -errno after printing it. */
static int layer_load(const struct pinned_maps *m, __u32 id, struct layer_view *v)
{
	int r;

	*v = (struct layer_view){ .id = id };
	r = pinned_layer_get(m, id, &v->layer);
	if (r < 0)
		return r;
	v->described = bpf_map_lookup_elem(m->layer_desc, &id, &v->desc) == 0;
	v->desc.text[sizeof(v->desc.text) - 1] = '\0';
	v->desc.creator_comm[sizeof(v->desc.creator_comm) - 1] = '\0';
	v->desc.origin_path[sizeof(v->desc.origin_path) - 1] = '\0';

	v->items = umb_restrictions__new();
	if (!v->items) {
		cli_error("layer %u: %s", id, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (v->described && v->desc.text[0]) {
		char *error = NULL;

		r = umb_restrictions__parse(v->items, v->desc.text, &error);
		if (r < 0) {
			/* Not our grammar (a newer umbrellad?): show the bits. */
			free(error);
			v->described = false;
		}
	}
	if (!v->described) {
		r = items_from_bits(v->items, &v->layer);
		if (r < 0) {
			cli_error("layer %u: %s", id, strerror(-r));
			return r;
		}
	}
	return 0;
}

static void layer_view_free(struct layer_view *v)
{
	umb_restrictions__free(v->items);
	v->items = NULL;
}

/* The text form of one item (malloc'd), or NULL on ENOMEM. */
static char *item_text(const struct umb_item *item)
{
	struct umb_restrictions *one = umb_restrictions__new();
	char *text = NULL;
	int r = -ENOMEM;

	if (!one)
		return NULL;
	switch (item->kind) {
	case UMB_ITEM_FS:
		r = umb_restrictions__add_fs(one, item->path, item->fs_access);
		break;
	case UMB_ITEM_CAP:
		r = umb_restrictions__add_cap(one, item->value);
		break;
	case UMB_ITEM_NET_FAMILY:
		r = umb_restrictions__add_net_family(one, (int)item->value);
		break;
	case UMB_ITEM_LINUX_CAP:
		r = umb_restrictions__add_linux_cap(one, (int)item->value);
		break;
	}
	if (r == 0 && umb_restrictions__format(one, &text) < 0)
		text = NULL;
	umb_restrictions__free(one);
	return text;
}

static void layer_json(json_writer_t *jw, const struct layer_view *v)
{
	char when[CLI_TIME_TEXT_SIZE], key[2 * UMB_DESC_KEY_ID_LEN + 1];

	jsonw_start_object(jw);
	jsonw_uint_field(jw, "id", v->id);
	jsonw_string_field(jw, "origin", origin_name(v->layer.origin));
	/* true: its denials are recorded, not enforced (run --permissive) */
	jsonw_bool_field(jw, "permissive", v->layer.flags & UMB_LAYER_PERMISSIVE);
	jsonw_name(jw, "creator");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "pid", v->layer.creator_pid);
	if (v->described) {
		jsonw_string_field(jw, "comm", v->desc.creator_comm);
		if (!origin_binary(v->desc.origin))
			jsonw_string_field(jw, "exe", v->desc.origin_path);
	}
	jsonw_end_object(jw);
	if (v->described && origin_binary(v->desc.origin))
		jsonw_string_field(jw, "binary", v->desc.origin_path);
	if (v->described && cli_key_id_set(v->desc.key_id)) {
		key_id_to_hex(v->desc.key_id, key);
		jsonw_string_field(jw, "key_id", key);
	}
	if (v->described && v->desc.created_ns) {
		cli_time_text(v->desc.created_ns, true, when, sizeof(when));
		jsonw_string_field(jw, "created", when);
		jsonw_uint_field(jw, "created_ns", v->desc.created_ns);
	} else {
		jsonw_null_field(jw, "created");
	}
	jsonw_name(jw, "restrictions");
	jsonw_start_array(jw);
	for (size_t i = 0; i < umb_restrictions__count(v->items); i++) {
		char *text = item_text(umb_restrictions__item(v->items, i));

		jsonw_string(jw, text ? text : "?");
		free(text);
	}
	jsonw_end_array(jw);
	jsonw_uint_field(jw, "fs_rules", v->layer.fs_rule_count);
	/* false: fs rules are a count only, their paths were not recorded */
	jsonw_bool_field(jw, "described", v->described);
	jsonw_bool_field(jw, "truncated", v->described && v->desc.flags & UMB_DESC_TEXT_TRUNCATED);
	jsonw_end_object(jw);
}

static void layer_text(const struct layer_view *v, const char *in)
{
	size_t count = umb_restrictions__count(v->items);
	char when[CLI_TIME_TEXT_SIZE], key[2 * UMB_DESC_KEY_ID_LEN + 1],
		safe[CLI_PRINTABLE_SIZE(sizeof(v->desc.origin_path))];

	printf("%slayer %u\n", in, v->id);
	printf("%s\torigin:       %s\n", in, origin_name(v->layer.origin));
	printf("%s\tmode:         %s\n", in,
	       v->layer.flags & UMB_LAYER_PERMISSIVE ?
		       "permissive (its denials are recorded, not enforced)" :
		       "enforcing");
	if (v->described) {
		printf("%s\tcreator:      pid %u (%s)\n", in, v->layer.creator_pid,
		       v->desc.creator_comm[0] ?
			       cli_printable(v->desc.creator_comm, safe, sizeof(safe)) :
			       "?");
		if (v->desc.origin_path[0])
			printf("%s\t%-13s %s%s\n", in,
			       origin_binary(v->desc.origin) ? "binary:" : "exe:",
			       cli_printable(v->desc.origin_path, safe, sizeof(safe)),
			       v->desc.flags & UMB_DESC_ORIGIN_TRUNCATED ? "... (truncated)" : "");
		if (cli_key_id_set(v->desc.key_id)) {
			key_id_to_hex(v->desc.key_id, key);
			printf("%s\tkey:          %s\n", in, key);
		}
		cli_time_text(v->desc.created_ns, false, when, sizeof(when));
		if (when[0])
			printf("%s\tcreated:      %s\n", in, when);
	} else {
		printf("%s\tcreator:      pid %u\n", in, v->layer.creator_pid);
	}
	for (size_t i = 0; i < count; i++) {
		char *text = item_text(umb_restrictions__item(v->items, i));
		char *shown = text ? malloc(CLI_PRINTABLE_SIZE(strlen(text))) : NULL;

		printf("%s\t%-13s %s\n", in, i ? "" : "restrictions:",
		       shown ? cli_printable(text, shown, CLI_PRINTABLE_SIZE(strlen(text))) : "?");
		free(shown);
		free(text);
	}
	if (!count && !(v->layer.fs_rule_count && !v->described))
		printf("%s\trestrictions: none (an empty layer)\n", in);
	if (!v->described && v->layer.fs_rule_count)
		printf("%s\t%-13s %u fs rule(s), paths not recorded\n", in,
		       count ? "" : "restrictions:", v->layer.fs_rule_count);
	if (v->described && v->desc.flags & UMB_DESC_TEXT_TRUNCATED)
		printf("%s\t%-13s ... (more items than the description holds)\n", in, "");
}

int layer_print(const struct pinned_maps *m, json_writer_t *jw, __u32 id, const char *indent)
{
	struct layer_view v;
	int r;

	r = layer_load(m, id, &v);
	if (r == 0) {
		if (jw)
			layer_json(jw, &v);
		else
			layer_text(&v, indent);
	}
	layer_view_free(&v);
	return r;
}

/* One line per layer: ID ORIGIN CREATOR CREATED RESTRICTIONS. */
static void layer_row(const struct layer_view *v)
{
	char creator[96], when[64], comm[CLI_PRINTABLE_SIZE(sizeof(v->desc.creator_comm))],
		text_shown[CLI_PRINTABLE_SIZE(sizeof(v->desc.text))];

	snprintf(creator, sizeof(creator), "%u (%s)", v->layer.creator_pid,
		 v->described && v->desc.creator_comm[0] ?
			 cli_printable(v->desc.creator_comm, comm, sizeof(comm)) :
			 "?");
	cli_time_text(v->described ? v->desc.created_ns : 0, false, when, sizeof(when));
	printf("%-8u %-14s %-24s %-24s ", v->id, origin_name(v->layer.origin), creator,
	       when[0] ? when : "-");
	if (v->described) {
		printf("%s%s\n",
		       v->desc.text[0] ?
			       cli_printable(v->desc.text, text_shown, sizeof(text_shown)) :
			       "(none)",
		       v->desc.flags & UMB_DESC_TEXT_TRUNCATED ? ",..." : "");
	} else {
		char *text = NULL;

		if (umb_restrictions__format(v->items, &text) < 0)
			text = NULL;
		char *shown = text ? malloc(CLI_PRINTABLE_SIZE(strlen(text))) : NULL;

		printf("%s%s%u fs rule(s)\n",
		       shown ? cli_printable(text, shown, CLI_PRINTABLE_SIZE(strlen(text))) : "",
		       text && text[0] ? "," : "", v->layer.fs_rule_count);
		free(shown);
		free(text);
	}
}

static int layer_list(const struct pinned_maps *m, char **args)
{
	json_writer_t *jw = NULL;
	__u32 *ids = NULL;
	int count, r = 0;

	(void)args;
	count = pinned_layer_ids(m, &ids);
	if (count < 0)
		return EXIT_ERROR;
	if (arg_json && !(jw = cli_json_new())) {
		free(ids);
		return EXIT_ERROR;
	}
	if (jw)
		jsonw_start_array(jw);
	else
		printf("%-8s %-14s %-24s %-24s %s\n", "ID", "ORIGIN", "CREATOR", "CREATED",
		       "RESTRICTIONS");
	for (int i = 0; i < count; i++) {
		struct layer_view v;

		/* -ENOENT: a layer that went between the walk and the lookup. */
		r = layer_load(m, ids[i], &v);
		if (r == 0) {
			if (jw)
				layer_json(jw, &v);
			else
				layer_row(&v);
		}
		layer_view_free(&v);
		if (r < 0 && r != -ENOENT)
			break;
		r = 0;
	}
	if (jw) {
		jsonw_end_array(jw);
		jsonw_destroy(&jw);
	}
	free(ids);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

/* A layer id on the command line: a decimal number from 1. Return: 0 or -EINVAL. */
static int parse_id(const char *s, __u32 *ret_id)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	*ret_id = (__u32)v;
	return 0;
}

static int layer_show(const struct pinned_maps *m, char **args)
{
	const char *arg = args[0];
	struct umb_layer layer;
	json_writer_t *jw = NULL;
	__u32 id;
	int r;

	if (parse_id(arg, &id) < 0) {
		cli_error("layer show %s: not a layer id (a number from 1)", arg);
		return EXIT_USAGE;
	}
	/* Before any output: an unknown layer prints its error and nothing on stdout. */
	r = pinned_layer_get(m, id, &layer);
	if (r < 0) {
		if (r == -ENOENT)
			cli_error("layer %u: no such layer (never made, or freed when its last "
				  "process exited)",
				  id);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_ERROR;
	}
	if (arg_json && !(jw = cli_json_new()))
		return EXIT_ERROR;
	r = layer_print(m, jw, id, "");
	if (jw)
		jsonw_destroy(&jw);
	if (r == -ENOENT) {
		cli_error("layer %u: no such layer", id);
		return EXIT_NOT_FOUND;
	}
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

static int layer_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help("Usage: umbrella-cli [-j|-p] layer list\n"
			"       umbrella-cli [-j|-p] layer show ID\n"
			"       umbrella-cli layer help\n");
}

static int do_list(int argc, char **argv)
{
	return pinned_maps_command("layer", argc, argv, 0, "", layer_list);
}

static int do_show(int argc, char **argv)
{
	return pinned_maps_command("layer", argc, argv, 1, "ID", layer_show);
}

int cli_layer(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "list", do_list },
		{ "show", do_show },
		{},
	};

	return cmd_select(cmds, "layer", argc - 1, argv + 1, layer_help);
}
