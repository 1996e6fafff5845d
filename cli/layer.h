/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli layer - the layers in umb_layers, with their provenance */
#ifndef UMBRELLA_CLI_LAYER_H
#define UMBRELLA_CLI_LAYER_H

#include <umbrella/bpf-abi.h>

#include "json-writer.h"
#include "pinned-maps.h"

/* umbrella-cli layer {list | show ID | help}; @argv[0] is "layer". Returns the exit code. */
int cli_layer(int argc, char **argv);

/*
 * layer_print() - print layer @id: with @jw, as one JSON object; else as text, every
 * line starting with @indent
 *
 * Return: 0, -ENOENT (no such layer, nothing printed), or -errno after printing it.
 */
int layer_print(const struct pinned_maps *m, json_writer_t *jw, __u32 id, const char *indent);

#endif /* UMBRELLA_CLI_LAYER_H */
