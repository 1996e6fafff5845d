/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Umbrella - the scope of every layer (UMB_ITEM_SCOPE): what a restricted task may not do,
 * whatever its layers' items, because it would act outside its layers. docs/security.md ("Security
 * model and limits") gives the reasons; each rule is recorded with layer 0 and enforced in
 * permissive mode too (umb_deny_strict()), like the protection of umbrellad:
 *
 *   UMB_SCOPE_PROCESS   reaching a task outside the domain (proc.bpf.c): tracing it and
 *                       the ptrace access modes; writing the /proc/PID files of another
 *                       process (umb_scope_file_write()); lowering an OOM score
 *                       below its floor (umb_in_file_write(), system.bpf.c).
 *   UMB_SCOPE_KERNEL    writing kernel settings: the files of /proc that belong to no
 *                       process (sysctls: core_pattern, modprobe, hotplug...), and every
 *                       file of the kernel's configuration file systems (sysfs:
 *                       uevent_helper; binfmt_misc; cgroupfs: cgroup.kill, the limits
 *                       of umbrellad's cgroup...). Judged by the file's super block, so
 *                       a new mount of one of them is the same.
 *                       And the capabilities that reach the kernel's memory or
 *                       replace it (UMB_SCOPE_CAPABILITIES), swapon(2) and swapoff(2)
 *                       (umb_in_swap_syscall()), CPU-wide and kernel perf events,
 *                       clone3(CLONE_INTO_CGROUP), fanotify permission events (a mark
 *                       that never answers stalls umbrellad and every exec),
 *                       request_key(2)'s call to /sbin/request-key
 *                       (umb_is_request_key_upcall()), /dev/snapshot and the
 *                       machine's devices (umb_scope_file_open()); the host's name
 *                       (umb_sets_host_name()), the clock (CAP_SYS_TIME), the kernel
 *                       log (umb_is_shared_syslog_action()).
 *   UMB_SCOPE_TERMINAL  pushing input into a terminal (TIOCSTI, TIOCLINUX, a virtual
 *                       console's keymap) or into every session's input (uinput,
 *                       uhid, /dev/input, vhci), which a reader outside the layers
 *                       would act on.
 *   UMB_SCOPE_PRIVILEGE the exec of a set-user-ID, set-group-ID or file-capability
 *                       program under a layer that a user other than root chose
 *                       (proc.bpf.c): the program would gain privilege under
 *                       restrictions picked to make it fail half-way.
 */
#ifndef UMBRELLA_SCOPE_BPF_H
#define UMBRELLA_SCOPE_BPF_H

#include "../maps.bpf.h"
#include "audit.bpf.h"
#include "syscall.bpf.h"

/* include/uapi/linux/magic.h */
#define UMB_PROC_SUPER_MAGIC	0x9fa0
#define UMB_SYSFS_MAGIC		0x62656572
#define UMB_CGROUP_SUPER_MAGIC	0x27e0eb
#define UMB_CGROUP2_SUPER_MAGIC 0x63677270
#define UMB_SECURITYFS_MAGIC	0x73636673
#define UMB_DEBUGFS_MAGIC	0x64626720
#define UMB_TRACEFS_MAGIC	0x74726163
#define UMB_CONFIGFS_MAGIC	0x62656570
#define UMB_BINFMTFS_MAGIC	0x42494e4d
#define UMB_EFIVARFS_MAGIC	0xde5e81e4
#define UMB_PSTOREFS_MAGIC	0x6165676c
#define UMB_SELINUX_MAGIC	0xf97cff8c
#define UMB_SMACK_MAGIC		0x43415d53
#define UMB_FUSECTL_MAGIC	0x65735543
#define UMB_RDTGROUP_MAGIC	0x7655821

/* include/uapi/asm-generic/ioctls.h, include/uapi/linux/kd.h: pushing input into a
 * terminal, and changing what the keys of a virtual console type (the keymap is the
 * whole console's: the operator's next key press would type the attacker's text) */
#define UMB_TIOCSTI	 0x5412
#define UMB_TIOCLINUX	 0x541c
#define UMB_KDSKBENT	 0x4b47
#define UMB_KDSKBSENT	 0x4b49
#define UMB_KDSKBDIACR	 0x4b4b
#define UMB_KDSETKEYCODE 0x4b4d
#define UMB_KDSKBDIACRUC 0x4bfb

/* The kernel's dev_t: MAJOR << 20 | MINOR (include/linux/kdev_t.h) */
#define UMB_KDEV_MAJOR(dev) ((dev) >> 20)
#define UMB_KDEV_MINOR(dev) ((dev) & 0xfffff)

/* Capabilities no restricted task uses, whatever its layers: they reach the kernel's or
 * every process's memory (CAP_SYS_RAWIO: /dev/mem, /dev/port, MSRs, iopl, /proc/kcore),
 * replace the kernel (CAP_SYS_BOOT: kexec, reboot) or load code into it
 * (CAP_SYS_MODULE). include/uapi/linux/capability.h */
#define UMB_SCOPE_CAPABILITIES                                            \
	(1ULL << 17 /* CAP_SYS_RAWIO */ | 1ULL << 22 /* CAP_SYS_BOOT */ | \
	 1ULL << 16 /* CAP_SYS_MODULE */)

/*
 * umb_in_swap_syscall() - whether the current task is in swapon(2) or swapoff(2)
 *
 * Neither has an LSM hook of its own: the first check either makes is
 * capable(CAP_SYS_ADMIN), before it opens the file, so lsm/capable asks this. Swap is
 * every process's memory: a file the task may read (or whose blocks it may write, through
 * a loop device's backing file) would hold the pages of processes outside its layers,
 * umbrellad's included; swapoff(2) of the system's swap makes the OOM killer choose among
 * them.
 */
static __always_inline bool umb_in_swap_syscall(void)
{
	return umb_in_syscall(UMB_NR_SWAPON) || umb_in_syscall(UMB_NR_SWAPOFF);
}

/*
 * umb_is_request_key_upcall() - whether @key, being allocated, is the authorisation key
 * of request_key(2)'s construction (key type ".request_key_auth")
 *
 * The kernel allocates one in the requesting task for every key it asks user space to
 * make, just before it runs /sbin/request-key as root with no layer (or a key type's
 * own helper): what that program does (DNS queries for dns_resolver, NFS id mapping,
 * whatever /etc/request-key.conf names) is done for the task outside its layers.
 * security/keys/request_key_auth.c.
 */
static __always_inline bool umb_is_request_key_upcall(const struct key *key)
{
	static const char auth[] = ".request_key_auth";
	char name[sizeof(auth)] = {};

	if (bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(key, type, name)) !=
	    sizeof(auth))
		return false;
	for (__u32 i = 0; i < sizeof(auth); i++)
		if (name[i] != auth[i])
			return false;
	return true;
}

/* include/linux/miscdevice.h, include/uapi/linux/major.h */
#define UMB_MISC_MAJOR	   10
#define UMB_INPUT_MAJOR	   13
#define UMB_I2C_MAJOR	   89
#define UMB_WATCHDOG_MINOR 130
#define UMB_VHCI_MINOR	   137
#define UMB_NVRAM_MINOR	   144
#define UMB_UINPUT_MINOR   223
#define UMB_SNAPSHOT_MINOR 231
#define UMB_UHID_MINOR	   239
#define UMB_RFKILL_MINOR   242
#define UMB_CUSE_MINOR	   203
#define UMB_IS_MISC(rdev, minor) \
	(UMB_KDEV_MAJOR(rdev) == UMB_MISC_MAJOR && UMB_KDEV_MINOR(rdev) == (minor))

/* Whether the character device @rdev, opened for writing, injects input for everyone:
 * uinput (10:223) and uhid (10:239) make an input device of what the task writes, and
 * the input event devices (13:*) take events; every session's keyboard reads them, the
 * console's VT too. hidraw is not here: what is written to it goes to the device (its
 * output reports), not to the system's input, and its major is dynamic. */
static __always_inline bool umb_is_input_device(__u32 rdev)
{
	return UMB_KDEV_MAJOR(rdev) == UMB_INPUT_MAJOR || UMB_IS_MISC(rdev, UMB_UINPUT_MINOR) ||
	       UMB_IS_MISC(rdev, UMB_UHID_MINOR);
}

/* include/linux/proc_ns.h: the inode number of the initial UTS namespace */
#define UMB_PROC_UTS_INIT_INO 0xEFFFFFFEU

/*
 * umb_sets_host_name() - whether the current task is setting the host's name: in
 * sethostname(2) or setdomainname(2), in the initial UTS namespace
 *
 * Neither call has an LSM hook: the first check each makes is
 * ns_capable(CAP_SYS_ADMIN) over its UTS namespace, so lsm/capable asks this. A task
 * in a UTS namespace of its own (unshare(CLONE_NEWUTS)) names only that namespace, and
 * may: judged by the namespace, not by who made it, so a container's UTS namespace the
 * task entered counts as its own too (docs/security.md).
 */
static __always_inline bool umb_sets_host_name(void)
{
	struct task_struct *task;

	if (!umb_in_syscall(UMB_NR_SETHOSTNAME) && !umb_in_syscall(UMB_NR_SETDOMAINNAME))
		return false;
	task = bpf_get_current_task_btf();
	return BPF_CORE_READ(task, nsproxy, uts_ns, ns.inum) == UMB_PROC_UTS_INIT_INO;
}

/* include/linux/sched.h */
#define UMB_PF_IO_WORKER 0x00000010

/*
 * umb_in_file_write() - whether the current task is writing a file: write(2) and its
 * kin, or an io_uring request (io_uring_enter(2), or one of the io_uring's own threads)
 *
 * Lowering an OOM score (/proc/PID/oom_score_adj below its floor, oom_adj below its
 * value) asks capable(CAP_SYS_RESOURCE) inside the write: lsm/capable asks this. The
 * few other writes that ask it (past a disk quota's hard limit, into a file system's
 * blocks reserved for another user) are refused with it: that space is everyone's too.
 * splice(2), sendfile(2) and aio cannot write those /proc files (no ->splice_write, no
 * ->write_iter); io_uring can, hence its calls and threads.
 */
static __always_inline bool umb_in_file_write(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return umb_in_syscall(UMB_NR_WRITE) || umb_in_syscall(UMB_NR_PWRITE64) ||
	       umb_in_syscall(UMB_NR_WRITEV) || umb_in_syscall(UMB_NR_PWRITEV) ||
	       umb_in_syscall(UMB_NR_PWRITEV2) || umb_in_syscall(UMB_NR_WRITEV_X32) ||
	       umb_in_syscall(UMB_NR_PWRITEV_X32) || umb_in_syscall(UMB_NR_PWRITEV2_X32) ||
	       umb_in_syscall(UMB_NR_IO_URING_ENTER) || (task->flags & UMB_PF_IO_WORKER);
}

static __always_inline int umb_scope_deny(__u32 hook, enum umb_scope scope, __u32 target_pid)
{
	return umb_deny_strict(hook, 0, UMB_ITEM_SCOPE, scope, target_pid);
}

/* Whether files of a super block with @magic are kernel settings as a whole. procfs is
 * not: a process's own files are its to write (umb_scope_file_write()). */
static __always_inline bool umb_is_kernel_settings_fs(unsigned long magic)
{
	switch (magic) {
	case UMB_SYSFS_MAGIC:
	case UMB_CGROUP_SUPER_MAGIC:
	case UMB_CGROUP2_SUPER_MAGIC:
	case UMB_SECURITYFS_MAGIC:
	case UMB_DEBUGFS_MAGIC:
	case UMB_TRACEFS_MAGIC:
	case UMB_CONFIGFS_MAGIC:
	case UMB_BINFMTFS_MAGIC:
	case UMB_EFIVARFS_MAGIC:
	case UMB_PSTOREFS_MAGIC:
	case UMB_SELINUX_MAGIC:
	case UMB_SMACK_MAGIC:
	case UMB_FUSECTL_MAGIC:
	case UMB_RDTGROUP_MAGIC:
		return true;
	}
	return false;
}

/*
 * The thread group id of the task a /proc inode belongs to (/proc/PID/..., also
 * /proc/PID/task/TID/...), 0 for one that belongs to no task (sysctls, sysrq-trigger,
 * /proc/net/...), or -1 when the task is gone. fs/proc/internal.h: PROC_I(inode)->pid,
 * and pid_task(pid, PIDTYPE_PID) by hand: the first task on the pid's list. Fault-safe
 * reads only; the answer is compared, never dereferenced.
 */
static __always_inline __s64 umb_proc_inode_tgid(const struct inode *inode)
{
	const void *proc_inode =
		(const void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
	struct hlist_node *first;
	struct pid *pid;
	__s32 tgid;

	pid = BPF_CORE_READ((struct proc_inode *)proc_inode, pid);
	if (!pid)
		return 0;
	first = BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (!first)
		return -1;
	if (bpf_core_read(&tgid, sizeof(tgid),
			  (const void *)first -
				  bpf_core_field_offset(struct task_struct, pid_links) +
				  bpf_core_field_offset(struct task_struct, tgid)))
		return -1;
	return tgid;
}

/*
 * umb_scope_file_open() - the scope at any open of @file by a restricted task
 *
 * /dev/snapshot (10:231), the hibernation image, opened for reading: SNAPSHOT_FREEZE
 * freezes every other process (umbrellad too, and with it every exec), and the image
 * read back is the whole memory, every process's and the kernel's, with no capability
 * asked beyond the open (kernel/power/user.c). Opened for writing it restores one.
 * Devices that act on the machine with any open file, as their ioctls need no write
 * mode: /dev/nvram (10:144, the firmware's settings; NVRAM_INIT clears them), the
 * watchdog (10:130: the open starts it, and a stop the task chooses reboots the
 * machine), the I2C buses (89:*: the hardware's registers, voltages, EEPROMs). The
 * numbered watchdogs (/dev/watchdogN) have a dynamic major: not judged (docs/security.md).
 * /dev/cuse (10:203): its server makes a character device in /dev, for every process
 * that opens it. And /dev/vhci (10:137), a virtual Bluetooth controller (made by the open itself,
 * after a second), through which a Bluetooth keyboard would type for every session.
 * Loads and compares only for the usual file. Return: 0 or -EPERM.
 */
static __always_inline int umb_scope_file_open(struct file *file, __u32 hook)
{
	const struct inode *inode = file->f_inode;

	__u32 rdev;

	if ((inode->i_mode & S_IFMT) != S_IFCHR)
		return 0;
	rdev = inode->i_rdev;
	if (UMB_IS_MISC(rdev, UMB_SNAPSHOT_MINOR) || UMB_IS_MISC(rdev, UMB_NVRAM_MINOR) ||
	    UMB_IS_MISC(rdev, UMB_WATCHDOG_MINOR) || UMB_KDEV_MAJOR(rdev) == UMB_I2C_MAJOR ||
	    UMB_IS_MISC(rdev, UMB_CUSE_MINOR))
		return umb_scope_deny(hook, UMB_SCOPE_KERNEL, 0);
	if (UMB_IS_MISC(rdev, UMB_VHCI_MINOR))
		return umb_scope_deny(hook, UMB_SCOPE_TERMINAL, 0);
	return 0;
}

/*
 * umb_scope_file_write() - the scope at the open of @file for writing by a restricted task
 *
 * Kernel settings are refused; on /proc, only the files of the task's own process may be
 * written (its oom_score_adj, uid_map, attr/...): another process's, umbrellad's first of
 * all, are not. Cheap for the usual case: one load and a compare of the super block's
 * magic. Return: 0 or -EPERM.
 */
static __always_inline int umb_scope_file_write(struct file *file, __u32 hook)
{
	const struct inode *inode = file->f_inode;
	unsigned long magic = inode->i_sb->s_magic;
	__s64 owner;

	if (umb_is_kernel_settings_fs(magic))
		return umb_scope_deny(hook, UMB_SCOPE_KERNEL, 0);
	if ((inode->i_mode & S_IFMT) == S_IFCHR && umb_is_input_device(inode->i_rdev))
		return umb_scope_deny(hook, UMB_SCOPE_TERMINAL, 0);
	/* /dev/rfkill (10:242): an event written blocks every radio of the machine. */
	if ((inode->i_mode & S_IFMT) == S_IFCHR && UMB_IS_MISC(inode->i_rdev, UMB_RFKILL_MINOR))
		return umb_scope_deny(hook, UMB_SCOPE_KERNEL, 0);
	if (magic != UMB_PROC_SUPER_MAGIC)
		return 0;
	owner = umb_proc_inode_tgid(inode);
	if (owner == 0)
		return umb_scope_deny(hook, UMB_SCOPE_KERNEL, 0);
	if (owner != (__s64)(bpf_get_current_pid_tgid() >> 32))
		return umb_scope_deny(hook, UMB_SCOPE_PROCESS, owner > 0 ? (__u32)owner : 0);
	return 0;
}

/* include/linux/syslog.h */
#define UMB_SYSLOG_ACTION_READ		2
#define UMB_SYSLOG_ACTION_READ_CLEAR	4
#define UMB_SYSLOG_ACTION_CLEAR		5
#define UMB_SYSLOG_ACTION_CONSOLE_OFF	6
#define UMB_SYSLOG_ACTION_CONSOLE_ON	7
#define UMB_SYSLOG_ACTION_CONSOLE_LEVEL 8

/* Whether syslog(2) action @type changes the kernel log for everyone: clearing it,
 * consuming it (the destructive read moves the one position every syslog(2) reader
 * shares), or the console's log level. Reading it all (dmesg, /dev/kmsg) stays. */
static __always_inline bool umb_is_shared_syslog_action(int type)
{
	return type == UMB_SYSLOG_ACTION_READ || type == UMB_SYSLOG_ACTION_READ_CLEAR ||
	       type == UMB_SYSLOG_ACTION_CLEAR || type == UMB_SYSLOG_ACTION_CONSOLE_OFF ||
	       type == UMB_SYSLOG_ACTION_CONSOLE_ON || type == UMB_SYSLOG_ACTION_CONSOLE_LEVEL;
}

/* umb_is_injecting_ioctl() - whether ioctl(2) @cmd injects input into a terminal or
 * rewrites the console's keymap: the scope of a restricted task refuses these. */
static __always_inline bool umb_is_injecting_ioctl(unsigned int cmd)
{
	return cmd == UMB_TIOCSTI || cmd == UMB_TIOCLINUX || cmd == UMB_KDSKBENT ||
	       cmd == UMB_KDSKBSENT || cmd == UMB_KDSKBDIACR || cmd == UMB_KDSETKEYCODE ||
	       cmd == UMB_KDSKBDIACRUC;
}

#endif /* UMBRELLA_SCOPE_BPF_H */
