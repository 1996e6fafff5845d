// SPDX-License-Identifier: GPL-2.0-only
/* umbrellad - the one user-space writer of umb_ctl and umb_meta (state.h). */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "state.h"

static const __u32 zero;

/* umbrellad's main thread writes the mode and its registration, the exec gate's thread
 * the epoch (gate-thread.c): each read, modify and write of umb_ctl is whole under this
 * lock, or one would write back the field the other just changed. */
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;

int state_ctl_read(int ctl_fd, struct umb_ctl *ret)
{
	return bpf_map_lookup_elem(ctl_fd, &zero, ret) < 0 ? -errno : 0;
}

/* state_ctl_update() under ctl_lock. */
static int ctl_update(int ctl_fd, unsigned int fields, const struct umb_ctl *v)
{
	struct umb_ctl ctl;
	int r;

	r = state_ctl_read(ctl_fd, &ctl);
	if (r < 0)
		return r;
	if (fields & STATE_CTL_DAEMON)
		ctl.daemon_tgid = v->daemon_tgid;
	if (fields & STATE_CTL_PIN) {
		ctl.pin_dev = v->pin_dev;
		ctl.pin_ino = v->pin_ino;
	}
	if (fields & STATE_CTL_FLAGS)
		ctl.flags = v->flags;
	if (fields & STATE_CTL_EPOCH)
		ctl.verdict_epoch = v->verdict_epoch;
	return bpf_map_update_elem(ctl_fd, &zero, &ctl, BPF_ANY) < 0 ? -errno : 0;
}

int state_ctl_update(int ctl_fd, unsigned int fields, const struct umb_ctl *v)
{
	int r;

	pthread_mutex_lock(&ctl_lock);
	r = ctl_update(ctl_fd, fields, v);
	pthread_mutex_unlock(&ctl_lock);
	return r;
}

int state_set_mode(int ctl_fd, __u32 flags)
{
	return state_ctl_update(ctl_fd, STATE_CTL_FLAGS, &(struct umb_ctl){ .flags = flags });
}

int state_set_verdict_epoch(int ctl_fd, __u32 epoch)
{
	return state_ctl_update(ctl_fd, STATE_CTL_EPOCH,
				&(struct umb_ctl){ .verdict_epoch = epoch });
}

int state_register_daemon(int ctl_fd, __u32 tgid, __u32 pin_dev, __u64 pin_ino, __u32 flags)
{
	const struct umb_ctl v = {
		.daemon_tgid = tgid, .pin_dev = pin_dev, .pin_ino = pin_ino, .flags = flags
	};

	return state_ctl_update(ctl_fd, STATE_CTL_DAEMON | STATE_CTL_PIN | STATE_CTL_FLAGS, &v);
}

int state_unregister_daemon(int ctl_fd, __u32 tgid)
{
	struct umb_ctl ctl;
	int r;

	pthread_mutex_lock(&ctl_lock);
	r = state_ctl_read(ctl_fd, &ctl);
	if (r == 0 && ctl.daemon_tgid == tgid)
		r = ctl_update(ctl_fd, STATE_CTL_DAEMON, &(struct umb_ctl){ .daemon_tgid = 0 });
	pthread_mutex_unlock(&ctl_lock);
	return r;
}

int state_meta_create(const char *name, struct umb_meta *ret_meta)
{
	const struct umb_meta meta = { .abi_version = UMB_ABI_VERSION };
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32), sizeof(meta), 1, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &zero, &meta, BPF_ANY) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_meta = meta;
	return fd;
}

int state_meta_count_freed(int meta_fd, struct umb_meta *meta)
{
	meta->layers_freed++;
	if (meta_fd < 0)
		return 0;
	return bpf_map_update_elem(meta_fd, &zero, meta, BPF_EXIST) < 0 ? -errno : 0;
}
