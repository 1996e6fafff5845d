// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli - umbrellad's pinned maps, opened read-only.
 *
 * umbrella-cli reads the kernel's state, not umbrellad's: the pins under the pin
 * directory outlive the daemon, so every inspection command works while it is down
 * (which is when an operator most needs one). Maps are opened with BPF_F_RDONLY: a
 * lookup needs no more, and the kernel then refuses any update through our fds.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "pinned-maps.h"

int pinned_map_open(const char *name, __u32 value_size)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_RDONLY);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd, r;

	if (snprintf(path, sizeof(path), "%s/%s", arg_pin_dir, name) >= (int)sizeof(path)) {
		cli_error("%s/%s: %s", arg_pin_dir, name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fd = bpf_obj_get_opts(path, &opts);
	if (fd < 0) {
		r = -errno;
		const char *hint = r == -EPERM || r == -EACCES ? " (reading the maps needs root)" :
				   r == -ENOENT ? " (not pinned: has umbrellad run since boot?)" :
						  "";

		cli_error("%s: %s%s", path, strerror(-r), hint);
		return r;
	}
	if (bpf_map_get_info_by_fd(fd, &info, &len) < 0) {
		r = -errno;
		cli_error("%s: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	if (value_size && info.value_size != value_size) {
		cli_error("%s: value size %u, expected %u: not a map of this umbrella-cli's ABI",
			  path, info.value_size, value_size);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

int pinned_state_access(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/umb_meta", arg_pin_dir);
	return access(path, F_OK) == 0 ? 0 : -errno;
}

bool pinned_state_exists(void)
{
	return pinned_state_access() == 0;
}

/* Reads umb_meta and checks that the pinned state is of our ABI. */
static int meta_read(struct pinned_maps *m)
{
	__u32 zero = 0, *value;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, r = 0;

	fd = pinned_map_open("umb_meta", 0);
	if (fd < 0)
		return fd;
	/* umb_meta only grows at the end: read whatever size it has. */
	if (bpf_map_get_info_by_fd(fd, &info, &len) < 0 || info.value_size < sizeof(__u32) ||
	    info.value_size > 4096) {
		cli_error("%s/umb_meta: not a map umbrellad made", arg_pin_dir);
		close(fd);
		return -EPROTO;
	}
	value = calloc(1, info.value_size);
	if (!value) {
		close(fd);
		return -ENOMEM;
	}
	if (bpf_map_lookup_elem(fd, &zero, value) < 0) {
		r = -errno;
		cli_error("%s/umb_meta: %s", arg_pin_dir, strerror(-r));
	} else if (value[0] != UMB_ABI_VERSION) {
		cli_error("%s: pinned by an umbrellad of ABI version %u; this umbrella-cli reads "
			  "ABI version %d (use the umbrella-cli of that umbrellad)",
			  arg_pin_dir, value[0], UMB_ABI_VERSION);
		r = -EPROTO;
	} else {
		memcpy(&m->meta, value,
		       info.value_size < sizeof(m->meta) ? info.value_size : sizeof(m->meta));
	}
	free(value);
	close(fd);
	return r;
}

int pinned_maps_open(struct pinned_maps *m)
{
	int r;

	*m = (struct pinned_maps){ .task = -1,
				   .layers = -1,
				   .layer_desc = -1,
				   .ctl = -1,
				   .stats = -1,
				   .fs_inodes = -1,
				   .fs_names = -1 };
	r = pinned_state_access();
	if (r == -ENOENT) {
		cli_error("%s: nothing pinned (umbrellad has not run since boot, or its pins "
			  "were reset)",
			  arg_pin_dir);
		return r;
	}
	/* Not "nothing pinned": a user may not look (bpffs is root's), and umbrellad may
	 * well be enforcing. */
	if (r < 0) {
		cli_error("%s: %s as uid %u: the details need root (\"umbrella-cli status\" "
			  "says whether umbrellad runs)",
			  arg_pin_dir, strerror(-r), (unsigned)getuid());
		return r;
	}
	r = meta_read(m);
	if (r < 0)
		return r;
	/* The ABI matches, so the sizes should too: checked anyway, as the reads copy whole
	 * values into our structs. */
	const struct {
		int *fd;
		const char *name;
		__u32 value_size;
	} maps[] = {
		{ &m->task, "umb_task", sizeof(struct umb_task_state) },
		{ &m->layers, "umb_layers", sizeof(struct umb_layer) },
		{ &m->layer_desc, "umb_layer_desc", sizeof(struct umb_layer_desc) },
		{ &m->ctl, "umb_ctl", sizeof(struct umb_ctl) },
		{ &m->stats, "umb_stats", sizeof(__u64) },
		{ &m->fs_inodes, "umb_fs_inodes", sizeof(struct umb_fs_rule) },
		{ &m->fs_names, "umb_fs_names", sizeof(struct umb_fs_rule) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		r = pinned_map_open(maps[i].name, maps[i].value_size);
		if (r < 0) {
			pinned_maps_close(m);
			return r;
		}
		*maps[i].fd = r;
	}
	return 0;
}

void pinned_maps_close(struct pinned_maps *m)
{
	int *fds[] = { &m->task,  &m->layers,	 &m->layer_desc, &m->ctl,
		       &m->stats, &m->fs_inodes, &m->fs_names };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int pinned_ctl_read(const struct pinned_maps *m, struct umb_ctl *ret_ctl)
{
	__u32 zero = 0;
	int r;

	if (bpf_map_lookup_elem(m->ctl, &zero, ret_ctl) < 0) {
		r = -errno;
		cli_error("%s/umb_ctl: %s", arg_pin_dir, strerror(-r));
		return r;
	}
	return 0;
}

int pinned_map_open_optional(const char *name, __u32 value_size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", arg_pin_dir, name) >= (int)sizeof(path)) {
		cli_error("%s/%s: %s", arg_pin_dir, name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return -ENOENT;
	return pinned_map_open(name, value_size);
}

int pinned_stat_read(const struct pinned_maps *m, __u32 index, __u64 *ret_sum)
{
	return pinned_percpu_sum(m->stats, "umb_stats", index, ret_sum);
}

int pinned_percpu_sum(int fd, const char *name, __u32 index, __u64 *ret_sum)
{
	int cpus = libbpf_num_possible_cpus(), r;
	__u64 *values, sum = 0;

	if (cpus < 0) {
		cli_error("possible CPUs: %s", strerror(-cpus));
		return cpus;
	}
	values = calloc((size_t)cpus, sizeof(*values));
	if (!values)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &index, values) < 0) {
		r = -errno;
		cli_error("%s/%s: %s", arg_pin_dir, name, strerror(-r));
		free(values);
		return r;
	}
	for (int i = 0; i < cpus; i++)
		sum += values[i];
	free(values);
	*ret_sum = sum;
	return 0;
}

int pinned_layer_get(const struct pinned_maps *m, __u32 id, struct umb_layer *ret_layer)
{
	__u32 slot = umb_layer_slot(id);
	int r;

	if (!id)
		return -ENOENT;
	if (bpf_map_lookup_elem(m->layers, &slot, ret_layer) < 0) {
		r = -errno;
		cli_error("%s/umb_layers: %s", arg_pin_dir, strerror(-r));
		return r;
	}
	return ret_layer->id == id ? 0 : -ENOENT;
}

static int id_compare(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

int pinned_layer_ids(const struct pinned_maps *m, __u32 **ret_ids)
{
	struct umb_layer *slots = calloc(UMB_LAYER_SLOTS, sizeof(*slots));
	__u32 *ids = calloc(UMB_LAYER_SLOTS, sizeof(*ids));
	int count = 0, r = 0;

	if (!slots || !ids) {
		r = -ENOMEM;
		cli_error("layers: %s", strerror(-r));
		goto out;
	}
	for (__u32 slot = 0; slot < UMB_LAYER_SLOTS; slot++) {
		if (bpf_map_lookup_elem(m->layers, &slot, &slots[slot]) < 0) {
			r = -errno;
			cli_error("%s/umb_layers: %s", arg_pin_dir, strerror(-r));
			goto out;
		}
		if (slots[slot].id)
			ids[count++] = slots[slot].id;
	}
	qsort(ids, (size_t)count, sizeof(*ids), id_compare);
	*ret_ids = ids;
	ids = NULL;
	r = count;
out:
	free(slots);
	free(ids);
	return r;
}

int pinned_count_entries(int fd, const char *name, __u32 *ret_count)
{
	char key[64], prev[64];
	__u32 count = 0;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : prev, key) == 0) {
		count++;
		memcpy(prev, key, sizeof(prev));
		first = false;
	}
	if (errno != ENOENT) {
		int r = -errno;

		cli_error("%s/%s: %s", arg_pin_dir, name, strerror(-r));
		return r;
	}
	*ret_count = count;
	return 0;
}

int pinned_maps_command(const char *object, int argc, char **argv, int nargs, const char *what,
			int (*fn)(const struct pinned_maps *m, char **args))
{
	struct pinned_maps m;
	int ret;

	if (argc - 1 != nargs) {
		cli_error("%s %s: %s%s (try 'umbrella-cli %s help')", object, argv[0],
			  argc - 1 < nargs ? "missing " : "too many arguments",
			  argc - 1 < nargs ? what : "", object);
		return EXIT_USAGE;
	}
	if (pinned_maps_open(&m) < 0)
		return EXIT_ERROR;
	ret = fn(&m, argv + 1);
	pinned_maps_close(&m);
	return ret;
}
