// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - denial records from the ring buffer, printed one line each on stderr
 * (the journal with structured fields comes with the service). Records the ring buffer
 * could not take are counted by the BPF side and reported here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/umbrella.h>

#include "events.h"

static const char *const hook_names[UMB_HOOK_MAX] = {
	[UMB_HOOK_FILE_OPEN] = "file_open",
	[UMB_HOOK_MMAP_FILE] = "mmap_file",
	[UMB_HOOK_FILE_MPROTECT] = "file_mprotect",
	[UMB_HOOK_INODE_CREATE] = "inode_create",
	[UMB_HOOK_INODE_LINK] = "inode_link",
	[UMB_HOOK_INODE_UNLINK] = "inode_unlink",
	[UMB_HOOK_INODE_SYMLINK] = "inode_symlink",
	[UMB_HOOK_INODE_MKDIR] = "inode_mkdir",
	[UMB_HOOK_INODE_RMDIR] = "inode_rmdir",
	[UMB_HOOK_INODE_MKNOD] = "inode_mknod",
	[UMB_HOOK_INODE_RENAME] = "inode_rename",
	[UMB_HOOK_INODE_SETATTR] = "inode_setattr",
	[UMB_HOOK_PATH_TRUNCATE] = "path_truncate",
	[UMB_HOOK_INODE_SETXATTR] = "inode_setxattr",
	[UMB_HOOK_INODE_REMOVEXATTR] = "inode_removexattr",
	[UMB_HOOK_INODE_GETXATTR] = "inode_getxattr",
	[UMB_HOOK_INODE_LISTXATTR] = "inode_listxattr",
	[UMB_HOOK_INODE_GETATTR] = "inode_getattr",
	[UMB_HOOK_INODE_PERMISSION] = "inode_permission",
	[UMB_HOOK_PATH_CHROOT] = "path_chroot",
	[UMB_HOOK_SOCKET_CREATE] = "socket_create",
	[UMB_HOOK_TASK_ALLOC] = "task_alloc",
	[UMB_HOOK_BPRM_CREDS_FOR_EXEC] = "bprm_creds_for_exec",
	[UMB_HOOK_TASK_KILL] = "task_kill",
	[UMB_HOOK_FILE_SEND_SIGIOTASK] = "file_send_sigiotask",
	[UMB_HOOK_PTRACE_ACCESS_CHECK] = "ptrace_access_check",
	[UMB_HOOK_PTRACE_TRACEME] = "ptrace_traceme",
	[UMB_HOOK_SB_MOUNT] = "sb_mount",
	[UMB_HOOK_SB_UMOUNT] = "sb_umount",
	[UMB_HOOK_SB_PIVOTROOT] = "sb_pivotroot",
	[UMB_HOOK_MOVE_MOUNT] = "move_mount",
	[UMB_HOOK_KERNEL_MODULE] = "kernel_module",
	[UMB_HOOK_TASK_FIX_SETID] = "task_fix_setid",
	[UMB_HOOK_CAPABLE] = "capable",
	[UMB_HOOK_BPF] = "bpf",
};

const char *event_hook_name(__u32 hook)
{
	return hook < UMB_HOOK_MAX && hook_names[hook] ? hook_names[hook] : "unknown";
}

const char *event_item_text(const struct umb_event *e, char *buf, size_t size)
{
	const char *name;

	switch (e->item_kind) {
	case UMB_ITEM_FS:
		snprintf(buf, size, "fs:%s%s%s", e->item & UMB_FS_READ ? "r" : "",
			 e->item & UMB_FS_WRITE ? "w" : "", e->item & UMB_FS_EXEC ? "x" : "");
		return buf;
	case UMB_ITEM_CAP:
		name = umb_cap_restriction_name(e->item);
		snprintf(buf, size, "%s", name ? name : "unknown");
		return buf;
	case UMB_ITEM_NET_FAMILY:
		name = umb_net_family_name((int)e->item);
		if (name)
			snprintf(buf, size, "net:%s", name);
		else
			snprintf(buf, size, "net:%llu", (unsigned long long)e->item);
		return buf;
	case UMB_ITEM_LINUX_CAP:
		name = umb_linux_cap_name((int)e->item);
		if (name)
			snprintf(buf, size, "cap:%s", name);
		else
			snprintf(buf, size, "cap:%llu", (unsigned long long)e->item);
		return buf;
	}
	snprintf(buf, size, "unknown");
	return buf;
}

static int print_event(void *ctx, void *data, size_t size)
{
	const struct umb_event *e = data;
	char item[64], object[UMB_EVENT_PATH_MAX + 64];

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	if (e->path[0])
		snprintf(object, sizeof(object), "%.*s", UMB_EVENT_PATH_MAX, e->path);
	else if (e->ino)
		snprintf(object, sizeof(object), "inode %u:%u/%llu", e->dev >> 20,
			 e->dev & 0xfffff, (unsigned long long)e->ino);
	else if (e->target_pid)
		snprintf(object, sizeof(object), "pid %u", e->target_pid);
	else
		snprintf(object, sizeof(object), "-");
	fprintf(stderr,
		SD_NOTICE "umbrellad: denied: pid=%u tid=%u comm=%.*s hook=%s restriction=%s "
			  "layer=%u object=%s\n",
		e->pid, e->tid, UMB_COMM_LEN, e->comm, event_hook_name(e->hook),
		event_item_text(e, item, sizeof(item)), e->layer, object);
	return 0;
}

struct ring_buffer *events_open(int ringbuf_fd)
{
	return ring_buffer__new(ringbuf_fd, print_event, NULL, NULL);
}

void events_report_drops(int stats_fd)
{
	static __u64 reported;
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = UMB_STAT_EVENTS_DROPPED;
	__u64 total = 0, *values;

	if (ncpus <= 0)
		return;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return;
	if (bpf_map_lookup_elem(stats_fd, &key, values) == 0) {
		for (int i = 0; i < ncpus; i++)
			total += values[i];
		if (total > reported) {
			fprintf(stderr,
				SD_WARNING "umbrellad: %llu denial records dropped (ring buffer "
					   "full)\n",
				(unsigned long long)(total - reported));
			reported = total;
		}
	}
	free(values);
}
