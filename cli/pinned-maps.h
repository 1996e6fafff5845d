/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli - umbrellad's pinned maps, opened read-only */
#ifndef UMBRELLA_CLI_PINNED_MAPS_H
#define UMBRELLA_CLI_PINNED_MAPS_H

#include <stdbool.h>

#include <umbrella/bpf-abi.h>

/* File descriptors of the pinned maps, each opened with BPF_F_RDONLY. */
struct pinned_maps {
	int task;	/* umb_task (task storage: look up with a pidfd) */
	int layers;	/* umb_layers */
	int layer_desc; /* umb_layer_desc */
	int ctl;	/* umb_ctl */
	int stats;	/* umb_stats (per CPU) */
	int fs_inodes;	/* umb_fs_inodes */
	int fs_names;	/* umb_fs_names */
	struct umb_meta meta;
};

/*
 * pinned_maps_open() - open the maps pinned under arg_pin_dir, read-only
 *
 * Read-only, so that inspecting can never change what is enforced, and the pins serve
 * while umbrellad is down. Checks umb_meta's ABI version and each map's value size.
 * Prints the error. Return: 0, -ENOENT (nothing pinned), -EPROTO (another ABI), -errno.
 */
int pinned_maps_open(struct pinned_maps *m);

void pinned_maps_close(struct pinned_maps *m);

/* Is anything pinned under arg_pin_dir (umb_meta exists)? */
bool pinned_state_exists(void);

/* Whether umb_meta exists under arg_pin_dir: 0, -ENOENT (nothing pinned), or another
 * -errno such as -EACCES, when this user cannot tell (bpffs is root's, mode 0700). */
int pinned_state_access(void);

/* Opens the map pinned as @name read-only, checking its value size (0: any).
 * Return: the fd, or -errno after printing the error. */
int pinned_map_open(const char *name, __u32 value_size);

/* Reads umb_ctl. Return: 0 or -errno (printed). */
int pinned_ctl_read(const struct pinned_maps *m, struct umb_ctl *ret_ctl);

/* Sums the per-CPU counter @index of umb_stats. Return: 0 or -errno (printed). */
int pinned_stat_read(const struct pinned_maps *m, __u32 index, __u64 *ret_sum);

/* Sums the per-CPU counter @index of the per-CPU array @fd (@name in errors).
 * Return: 0 or -errno (printed). */
int pinned_percpu_sum(int fd, const char *name, __u32 index, __u64 *ret_sum);

/* Opens the map pinned as @name read-only, checking its value size (0: any): one that
 * came after ABI 6 without a bump, which a pin directory made by an older umbrellad
 * lacks until umbrellad restarts. Return: the fd, -ENOENT (not pinned, nothing
 * printed), or -errno (printed). */
int pinned_map_open_optional(const char *name, __u32 value_size);

/* Reads the live layer @id (its slot, if the slot still holds that id).
 * Return: 0, -ENOENT (no such layer: never made, or freed), or -errno (printed). */
int pinned_layer_get(const struct pinned_maps *m, __u32 id, struct umb_layer *ret_layer);

/* The ids of every live layer, sorted, in *@ret_ids (malloc'd). Return: the count, or
 * -errno (printed). */
int pinned_layer_ids(const struct pinned_maps *m, __u32 **ret_ids);

/* The number of entries of the hash map @fd (@name for errors). Return: 0 or -errno. */
int pinned_count_entries(int fd, const char *name, __u32 *ret_count);

/*
 * pinned_maps_command() - run a command of @object that reads the maps: checks that the
 * command @argv[0] got @nargs arguments (@what names the one missing), opens the maps,
 * and returns @fn(maps, argv + 1), an exit code.
 */
int pinned_maps_command(const char *object, int argc, char **argv, int nargs, const char *what,
			int (*fn)(const struct pinned_maps *m, char **args));

#endif /* UMBRELLA_CLI_PINNED_MAPS_H */
