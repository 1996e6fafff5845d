// SPDX-License-Identifier: GPL-2.0-only
/* Umbrella - the names of the hooks and item kinds that denial records and counters
 * carry, for umbrellad's journal and umbrella-cli alike. */
#include <umbrella/event-names.h>

#include "macro.h"

static const char *const hook_names[UMB_HOOK_MAX] = {
	[UMB_HOOK_FILE_OPEN] = "file_open",
	[UMB_HOOK_MMAP_FILE] = "mmap_file",
	[UMB_HOOK_FILE_MPROTECT] = "file_mprotect",
	[UMB_HOOK_INODE_CREATE] = "inode_create",
	[UMB_HOOK_PATH_LINK] = "path_link",
	[UMB_HOOK_PATH_UNLINK] = "path_unlink",
	[UMB_HOOK_PATH_SYMLINK] = "path_symlink",
	[UMB_HOOK_PATH_MKDIR] = "path_mkdir",
	[UMB_HOOK_PATH_RMDIR] = "path_rmdir",
	[UMB_HOOK_PATH_MKNOD] = "path_mknod",
	[UMB_HOOK_PATH_RENAME] = "path_rename",
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
	[UMB_HOOK_KERNEL_MODULE_REQUEST] = "kernel_module_request",
	[UMB_HOOK_TASK_FIX_SETUID] = "task_fix_setuid",
	[UMB_HOOK_CAPABLE] = "capable",
	[UMB_HOOK_BPF] = "bpf",
	[UMB_HOOK_BPF_MAP] = "bpf_map",
	[UMB_HOOK_BPF_PROG] = "bpf_prog",
	[UMB_HOOK_BPRM_CHECK_SECURITY] = "bprm_check_security",
	[UMB_HOOK_TASK_SETRLIMIT] = "task_setrlimit",
	[UMB_HOOK_TASK_SETSCHEDULER] = "task_setscheduler",
	[UMB_HOOK_TASK_SETNICE] = "task_setnice",
	[UMB_HOOK_TASK_SETIOPRIO] = "task_setioprio",
	[UMB_HOOK_TASK_MOVEMEMORY] = "task_movememory",
	[UMB_HOOK_FILE_IOCTL] = "file_ioctl",
	[UMB_HOOK_PATH_NOTIFY] = "path_notify",
	[UMB_HOOK_FILE_RECEIVE] = "file_receive",
	[UMB_HOOK_PERF_EVENT_OPEN] = "perf_event_open",
	[UMB_HOOK_UNIX_STREAM_CONNECT] = "unix_stream_connect",
	[UMB_HOOK_UNIX_MAY_SEND] = "unix_may_send",
	[UMB_HOOK_BPRM_CREDS_FROM_FILE] = "bprm_creds_from_file",
	[UMB_HOOK_PATH_CHMOD] = "path_chmod",
	[UMB_HOOK_PATH_CHOWN] = "path_chown",
	[UMB_HOOK_FILE_FCNTL] = "file_fcntl",
	[UMB_HOOK_FILE_IOCTL_COMPAT] = "file_ioctl_compat",
	[UMB_HOOK_TASK_FIX_SETGID] = "task_fix_setgid",
	[UMB_HOOK_TASK_FIX_SETGROUPS] = "task_fix_setgroups",
	[UMB_HOOK_KERNEL_READ_FILE] = "kernel_read_file",
	[UMB_HOOK_KERNEL_LOAD_DATA] = "kernel_load_data",
	[UMB_HOOK_KEY_ALLOC] = "key_alloc",
	[UMB_HOOK_KEY_PERMISSION] = "key_permission",
	[UMB_HOOK_INODE_READLINK] = "inode_readlink",
	[UMB_HOOK_INODE_MKNOD] = "inode_mknod",
	[UMB_HOOK_INODE_MKDIR] = "inode_mkdir",
	[UMB_HOOK_INODE_SYMLINK] = "inode_symlink",
	[UMB_HOOK_INODE_LINK] = "inode_link",
	[UMB_HOOK_INODE_UNLINK] = "inode_unlink",
	[UMB_HOOK_INODE_RMDIR] = "inode_rmdir",
	[UMB_HOOK_INODE_RENAME] = "inode_rename",
	[UMB_HOOK_SYSLOG] = "syslog",
};

static const char *const item_kind_names[] = {
	[UMB_ITEM_FS] = "fs",	      [UMB_ITEM_CAP] = "right", [UMB_ITEM_NET_FAMILY] = "net",
	[UMB_ITEM_LINUX_CAP] = "cap", [UMB_ITEM_SELF] = "self", [UMB_ITEM_VERDICT] = "verdict",
	[UMB_ITEM_SCOPE] = "scope",
};

const char *umb_hook_name(__u32 hook)
{
	return hook < UMB_HOOK_MAX && hook_names[hook] ? hook_names[hook] : "unknown";
}

const char *umb_item_kind_name(__u32 kind)
{
	return kind < ARRAY_SIZE(item_kind_names) && item_kind_names[kind] ? item_kind_names[kind] :
									     "unknown";
}
