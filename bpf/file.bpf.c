// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - file system restrictions ("fs:PATH", "fs:PATH:MODES").
 *
 * Every hook asks for one or more access kinds (UMB_FS_READ r, UMB_FS_WRITE w,
 * UMB_FS_EXEC x) on an object and lets lib/path.bpf.h walk from the object up to the
 * root, matching inodes and names against the rules of the task's layers. A task whose
 * layers restrict none of the kinds asked returns at once. Denials are -EACCES, or only
 * recorded in permissive mode (umb_ctl.flags, read once a walk has found a denial).
 *
 * Architecture (hook: access asked, on what):
 *   lsm/file_open           r (FMODE_READ, also readdir and opens without read or
 *                           write), w (FMODE_WRITE), x (FMODE_EXEC: execve, execveat,
 *                           fexecve, the ELF interpreter; an exec open asks x only);
 *                           the opened file, through its mount. O_PATH opens are not
 *                           seen: what is then done with the fd is.
 *   lsm/mmap_file           x: a file mapped with PROT_EXEC (ld.so ./binary, dlopen).
 *   lsm/file_mprotect       x: PROT_EXEC added to a file mapping.
 *   lsm/inode_getattr       r: stat, fstat, statx (also of O_PATH fds).
 *   lsm/path_chroot         r: the new root.
 *   lsm/path_notify         r: inotify and fanotify watches (they report names).
 *   lsm/file_receive        r, w as file_open: a file received (SCM_RIGHTS,
 *                           pidfd_getfd) from another task.
 *   lsm/unix_stream_connect, unix_may_send
 *                           w: a unix socket bound to a path, which connect(2) and
 *                           sendto(2) reach by its name without opening it (the kernel
 *                           asks MAY_WRITE on its inode, as for a FIFO): "fs:/run/dbus"
 *                           keeps the task off the bus; not off umbrellad's own
 *                           socket. Abstract sockets have no path:
 *                           "net:unix" is their restriction. unix_stream_connect
 *                           also keeps a uid whose connections umbrellad is still
 *                           closing off its socket, or every user (umb_conn_full,
 *                           maps.bpf.h).
 *   lsm/path_mknod, path_mkdir, path_symlink
 *                           w: the new name in its directory, then the directory
 *                           (path_mknod also sees open(O_CREAT) of a new file);
 *                           path_symlink, and path_mknod of a socket (bind() of
 *                           AF_UNIX), r too (a link or a service planted at a name
 *                           the task may not read).
 *   lsm/path_link           w: the linked object, and the new name. With any rule,
 *                           whatever its modes, the new name must be covered by the
 *                           same rules as the old one (lib/reach.bpf.h).
 *   lsm/path_unlink, path_rmdir
 *                           w: the object.
 *   lsm/path_rename         w: the object moved, the new name, the object replaced;
 *                           and as path_link, the same rules at both names.
 *                           With any fs rule, path_rename and path_rmdir also keep
 *                           the directories above a restricted path, and mount
 *                           points, where they are (lib/ancestors.bpf.h).
 *   lsm/sb_mount, move_mount, sb_umount
 *                           with any fs rule: no mount over a directory above a
 *                           restricted path (w: nor over what the rules deny w on), no
 *                           unmount or move of the mount holding one, no MS_MOVE
 *                           (its source is a string here). The one program on each
 *                           hook: it also has the "mount" item and, at sb_umount, the
 *                           protection of the pins' mount (lib/mount.bpf.h), first.
 *   lsm/path_truncate, path_chmod, path_chown
 *                           w: the object.
 *   lsm/inode_setattr       w: every attribute change, utimes included. Two programs
 *                           for the two signatures (6.3 added the idmap); umbrellad
 *                           loads the one the kernel has (daemon/bpf-open.c).
 *   lsm/inode_setxattr, inode_removexattr
 *                           w; lsm/inode_getxattr, inode_listxattr, inode_readlink
 *                           (a link's target): r. Dentry only: the walk stays on the
 *                           object's file system.
 * Signed binaries (lib/verdict.bpf.h):
 *   lsm/mmap_file, file_mprotect
 *                           under "exec-unsigned", PROT_EXEC of a file needs a valid
 *                           SIGNED verdict (ld.so ./binary, dlopen; the kernel's own
 *                           mapping of an ELF interpreter too): -EPERM otherwise.
 *                           For an overlayfs file, that of the file underneath:
 *                           lsm/mmap_backing_file where the kernel has it (else
 *                           refused); file_mprotect sees that file already.
 *                           A file so mapped (but the task's own executable,
 *                           which the kernel keeps from writes) is pinned as the
 *                           file underneath an overlay is (below): no write
 *                           reaches code mapped on its verdict.
 *                           UMB_CTL_UNSIGNED_DENY covers exec only (libc is unsigned
 *                           on a normal system).
 *   lsm/file_open (FMODE_WRITE), inode_setattr, path_truncate, inode_setxattr,
 *   inode_removexattr
 *                           delete the verdict of the file, for every task, before
 *                           the quick return of unrestricted tasks: a verdict must not
 *                           outlive a change to its file. A writer that was already
 *                           open when umbrellad began to verify is umbrellad's to
 *                           see (a read lease fails while one is open), not a hook
 *                           on every close: the only release hook on 6.1 runs after
 *                           the file dropped its dentry, when an unlinked file's
 *                           inode may be gone, and would cost every close.
 *   lsm/file_open (the exec open of the file underneath an overlayfs file)
 *                           notes that file and its verdict for the exec's
 *                           bprm_check_security (lib/backing.bpf.h), for every task,
 *                           and pins it if the verdict is SIGNED: lsm/file_open
 *                           (FMODE_WRITE) and path_truncate then refuse it (ETXTBSY),
 *                           for every task, as the kernel refuses a running binary.
 * The scope (lib/scope.bpf.h): lsm/file_open keeps every restricted task, whatever
 * its layers, from writing kernel settings and other processes' /proc files.
 * Self-protection (lib/protect-pins.bpf.h): path_unlink, path_rmdir, path_rename and
 * path_mknod also keep everyone but umbrellad out of its pin directory while it is up,
 * and restricted tasks out of it always.
 * Self-protection of Umbrella's files (lib/protect-files.bpf.h): file_open (write), the
 * path hooks, inode_setattr, the xattr writes and the mount hooks keep every task that
 * carries a layer from changing Umbrella's configuration, key ring, unit and binary,
 * or moving the directories above them away.
 * No hook that fires once per path component (inode_permission) carries a check: such a
 * hook runs up to once per directory of every lookup of every task, restricted or not,
 * and costs each one a BPF trampoline. What it alone could decide is chdir and fchdir
 * (MAY_CHDIR) into a restricted directory, which are allowed: a working directory gives
 * nothing by itself, every access made from it (open, readdir, stat, exec, mmap, the
 * path hooks, xattrs) names an object whose walk up to the root still meets the rule.
 * The path_* hooks are used instead of their inode_* twins because they give the
 * mount, without which the walk cannot cross a mount point (a rule on "/" or on a
 * directory with a file system mounted below it). They need CONFIG_SECURITY_PATH
 * (Debian, Fedora, Ubuntu and Arch kernels have it, for AppArmor and TOMOYO).
 */
#include "maps.bpf.h"
#include "lib/ancestors.bpf.h"
#include "lib/backing.bpf.h"
#include "lib/domain.bpf.h"
#include "lib/fsattr.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/mount.bpf.h"
#include "lib/path.bpf.h"
#include "lib/protect-files.bpf.h"
#include "lib/protect-pins.bpf.h"
#include "lib/protect.bpf.h"
#include "lib/reach.bpf.h"
#include "lib/scope.bpf.h"
#include "lib/verdict.bpf.h"

/* The umb_protected entry of (@dev, @ino, @name_hash): its flags, or 0. */
static __always_inline __u32 protected_flags(__u32 dev, __u64 ino, __u64 name_hash)
{
	struct umb_protect_key key = { .dev = dev, .ino = ino, .name_hash = name_hash };
	const __u32 *v;

	if (!ino)
		return 0;
	v = bpf_map_lookup_elem(&umb_protected, &key);
	return v ? *v : 0;
}

/*
 * umb_protect_files_hit() - (lib/protect-files.bpf.h) Up from the object, one level at a
 * time: the object's inode and name give what is protected of it, each directory above
 * (UMB_PROTECT_LEVELS - 1 of them) whether it protects its whole tree. A directory's
 * own entry, read once, serves both as the level above and to tell whether its
 * children's names are worth hashing. A mount's root ends the walk: what is protected
 * is on the file systems where umbrellad found it (each has an entry of its own, for
 * the dentries that end disconnected).
 */
__noinline int umb_protect_files_hit(const struct umb_protect_query *q)
{
	__u64 d, parent;
	__u32 dev, self, up, deny;

	if (!q)
		return 0;
	d = q->dentry;
	dev = BPF_CORE_READ((struct dentry *)d, d_sb, s_dev);

	self = protected_flags(dev, BPF_CORE_READ((struct dentry *)d, d_inode, i_ino), 0);
	deny = UMB_PROTECT_OBJECT | UMB_PROTECT_TREE | (q->removal ? UMB_PROTECT_ANCESTOR : 0);
	for (__u32 i = 0; i < UMB_PROTECT_LEVELS; i++) {
		parent = (__u64)BPF_CORE_READ((struct dentry *)d, d_parent);
		up = 0;
		if (parent && parent != d) {
			__u64 pino = BPF_CORE_READ((struct dentry *)parent, d_inode, i_ino);

			up = protected_flags(dev, pino, 0);
			if (up & UMB_PROTECT_NAMES) {
				__u64 hash = umb_fs_name_hash(d);

				if (hash)
					self |= protected_flags(dev, pino, hash);
			}
		}
		if (self & deny)
			return 1;
		if (!parent || parent == d) {
			/* Disconnected (open_by_handle_at()): the directories above are
			 * unknown; on a file system with protected objects, refused. */
			if (BPF_CORE_READ((struct dentry *)d, d_flags) & UMB_DCACHE_DISCONNECTED)
				return protected_flags(dev, UMB_PROTECT_FS_INO, 0) != 0;
			break;
		}
		/* Above the object, only a protected tree counts. */
		deny = UMB_PROTECT_TREE;
		self = up;
		d = parent;
	}
	return 0;
}

/* How many tasks up from the current one umb_protect_mount_counts() looks for PID 1. */
#define UMB_INIT_SEARCH 64

/*
 * umb_protect_mount_hit() - umb_protect_mount_counts() (lib/protect.bpf.h) of *@mnt.
 * The initial mount namespace is PID 1's, found up the current task's parents (every
 * task descends from it, or from PID 0, which has the same). Fails closed: a mount counts when its group is shared
 * (mnt_group_id, peers that may be in the initial namespace), when PID 1 is not found
 * within UMB_INIT_SEARCH parents, or when it is in the initial namespace.
 */
__noinline int umb_protect_mount_hit(const __u64 *mnt)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct mount *m;
	__u64 init_ns = 0;

	if (!mnt || !*mnt)
		return 1;
	m = (struct mount *)(*mnt - bpf_core_field_offset(struct mount, mnt));
	if (BPF_CORE_READ(m, mnt_group_id))
		return 1;
	for (__u32 i = 0; i < UMB_INIT_SEARCH && t; i++) {
		if (BPF_CORE_READ(t, pid) <= 1) {
			init_ns = (__u64)BPF_CORE_READ(t, nsproxy, mnt_ns);
			break;
		}
		t = BPF_CORE_READ(t, real_parent);
	}
	return !init_ns || (__u64)BPF_CORE_READ(m, mnt_ns) == init_ns;
}

/* The restriction state of the current task if some layer restricts @requested on
 * files, else NULL: the quick return of every hook. */
static __always_inline const struct umb_task_state *fs_state(__u32 requested)
{
	const struct umb_task_state *state = umb_current_state();

	if (!state || !(state->fs_access & requested))
		return NULL;
	return state;
}

SEC("lsm/file_open")
int BPF_PROG(umb_file_open, struct file *file, int ret)
{
	const struct umb_task_state *state;
	struct umb_walk w;
	struct umb_event *e;
	__u32 requested, mode, flags;

	if (ret)
		return ret; /* an earlier BPF LSM program already refused */

	mode = file->f_mode;
	if (mode & FMODE_WRITE) {
		/* A file underneath an overlay whose SIGNED verdict ran: as ETXTBSY for a
		 * running binary, for every task (lib/backing.bpf.h). */
		ret = umb_exec_pin_check_write(file->f_inode);
		if (ret)
			return ret;
		umb_verdict_invalidate(file->f_inode);
	}
	umb_backing_exec_open(file, mode); /* an exec of an overlayfs file */

	/* Quick return for unrestricted tasks. */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	ret = umb_scope_file_open(file, UMB_HOOK_FILE_OPEN); /* the scope */
	if (ret)
		return ret;
	if (mode & FMODE_WRITE) {
		ret = umb_protect_files(state, file->f_path.dentry, file->f_path.mnt,
					UMB_HOOK_FILE_OPEN, false);
		if (!ret)
			ret = umb_scope_file_write(file, UMB_HOOK_FILE_OPEN); /* the scope */
		if (ret)
			return ret;
	}
	if (!state->fs_access)
		return 0;

	/* execve() marks its open in f_flags (__FMODE_EXEC, the same bit as FMODE_EXEC);
	 * f_mode carries it too only from Linux 6.13 on. */
	if ((mode | file->f_flags) & FMODE_EXEC)
		requested = UMB_FS_EXEC; /* exec reads the file only to run it */
	else if (mode & FMODE_WRITE)
		requested = UMB_FS_WRITE | (mode & FMODE_READ ? UMB_FS_READ : 0);
	else
		requested = UMB_FS_READ; /* also opens for ioctl only (O_ACCMODE 3) */
	if (!(state->fs_access & requested))
		return 0;

	if (!umb_fs_walk(state, requested, file->f_path.dentry, file->f_path.mnt,
			 UMB_DENTRY_POINTER, &w))
		return umb_fs_verdict(0);
	flags = umb_walk_flags(&w);
	e = umb_fs_event(&w, UMB_HOOK_FILE_OPEN, file->f_path.dentry, flags);
	if (e)
		bpf_d_path(&file->f_path, e->path, sizeof(e->path));
	umb_event_submit(e);
	return umb_fs_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/*
 * Whether the SIGNED verdict of @file may let the current task map it as code: once no
 * write can reach the mapping any more. The kernel keeps writers off the task's own
 * executable while its mm lives (ETXTBSY), not off a library or ld.so, whose file opens
 * for write while it is mapped, and a write reaches the mapped text through the page
 * cache (its verdict dies, the code runs on): such a file is pinned first
 * (lib/backing.bpf.h), then its verdict looked up again. @layer: the verdict's.
 */
static __always_inline bool map_pinned(struct file *file, __u32 layer)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct inode *inode = file->f_inode;
	const struct umb_verdict *v;

	/* Read as a number, compared, never followed (an __rcu pointer). */
	if ((__u64)BPF_CORE_READ(task, mm, exe_file, f_inode) == (__u64)inode)
		return true;
	v = umb_exec_pin_signed(inode);
	return umb_verdict_effective(v, umb_ctl_get()) == UMB_VERDICT_SIGNED && v &&
	       v->layer == layer;
}

/*
 * Under exec-unsigned, PROT_EXEC of @file needs a valid SIGNED verdict, and when the
 * verdict has a layer, a task that carries that layer: "ld.so ./signed-binary" (with a
 * signed ld.so) must not run the binary without the restrictions its exec would have
 * pushed. The kernel maps an exec'd binary after the commit, with its layer pushed.
 * A file mapped so is pinned (map_pinned()): no write reaches its mapped code.
 * The record names the file by its whole path: bpf_d_path() where the hook may call
 * it (@d_path: mmap_file), else lib/dpath.bpf.h (file_mprotect).
 * Returns 0, or the denial's verdict (-EPERM, or 0 in permissive mode, recorded).
 */
static __always_inline int exec_unsigned_map(const struct umb_task_state *state, struct file *file,
					     __u32 hook, bool d_path)
{
	const struct umb_verdict *v;
	__u32 verdict, layer, flags;
	struct umb_event *e;
	struct umb_walk o;

	if (!(state->denied_caps & UMB_CR_EXEC_UNSIGNED))
		return 0;
	v = umb_verdict_lookup(file->f_inode);
	verdict = umb_verdict_effective(v, umb_ctl_get());
	if (verdict == UMB_VERDICT_SIGNED && v && umb_verdict_layer_carried(state, v->layer)) {
		if (map_pinned(file, v->layer))
			return 0;
		verdict = 0; /* a writer got in first: a miss */
	}
	layer = umb_layer_denying(state, UMB_SET_CAPS, UMB_CR_EXEC_UNSIGNED);
	flags = umb_layer_deny_flags(layer);
	e = umb_event_begin(hook, layer, UMB_ITEM_VERDICT, verdict, flags);
	umb_event_set_file(e, file, d_path);
	if (e && !d_path) {
		__builtin_memset(&o, 0, sizeof(o));
		o.dentry = (__u64)file->f_path.dentry;
		o.mnt = (__u64)file->f_path.mnt;
		umb_event_dpath(e, &o);
	}
	umb_event_submit(e);
	return umb_verdict(!(flags & UMB_EVENT_PERMISSIVE));
}

/*
 * Set by umbrellad (daemon/bpf-open.c) when the kernel has the mmap_backing_file hook
 * (6.12.95 has it, as a fix from 7.0): the verdict for a PROT_EXEC mapping of an
 * overlayfs file is then that of the file underneath, which that hook sees. Without it
 * such a mapping under exec-unsigned is refused: the overlay inode has no verdict of
 * its own (lib/backing.bpf.h).
 */
const volatile bool umb_has_mmap_backing_file = false;

SEC("lsm/mmap_file")
int BPF_PROG(umb_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	if (!file || !(prot & PROT_EXEC))
		return 0; /* anonymous, or not executable */
	state = umb_current_state();
	if (!state)
		return 0;
	/* An overlayfs file: its verdict is checked at mmap_backing_file, which follows
	 * on every mapping of it (overlayfs's mmap maps the file underneath). */
	if (!umb_has_mmap_backing_file || !umb_file_on_overlay(file))
		ret = exec_unsigned_map(state, file, UMB_HOOK_MMAP_FILE, true);
	if (ret || !(state->fs_access & UMB_FS_EXEC))
		return ret;
	return umb_fs_check_path(state, UMB_FS_EXEC, &file->f_path, UMB_HOOK_MMAP_FILE);
}

/* The mapping of the file underneath an overlayfs file (its path rules were checked at
 * mmap_file, by the overlay's path): under exec-unsigned, its verdict. Not on 6.1. */
SEC("lsm/mmap_backing_file")
int BPF_PROG(umb_mmap_backing_file, struct vm_area_struct *vma, struct file *backing_file,
	     struct file *user_file, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	if (!(vma->vm_flags & VM_EXEC))
		return 0;
	state = umb_current_state();
	if (!state)
		return 0;
	/* A nested overlay: the inner overlay file's mmap maps the file underneath it next,
	 * through this hook again (backing_file_mmap()), where its verdict is checked. */
	if (umb_file_on_overlay(backing_file))
		return 0;
	/* bpf_d_path() is not allowed here: the path builder names it. */
	return exec_unsigned_map(state, backing_file, UMB_HOOK_MMAP_FILE, false);
}

SEC("lsm/file_mprotect")
int BPF_PROG(umb_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	const struct umb_task_state *state;
	struct file *file;

	if (ret)
		return ret;
	if (!(prot & PROT_EXEC))
		return 0;
	state = umb_current_state();
	if (!state)
		return 0;
	file = vma->vm_file;
	/* Anonymous memory, or already executable (checked when it became so). */
	if (!file || (vma->vm_flags & VM_EXEC))
		return 0;
	ret = exec_unsigned_map(state, file, UMB_HOOK_FILE_MPROTECT, false);
	if (ret || !(state->fs_access & UMB_FS_EXEC))
		return ret;
	return umb_fs_check(state, UMB_FS_EXEC, file->f_path.dentry, file->f_path.mnt,
			    UMB_HOOK_FILE_MPROTECT);
}

SEC("lsm/inode_getattr")
int BPF_PROG(umb_inode_getattr, const struct path *path, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = fs_state(UMB_FS_READ);
	if (!state)
		return 0;
	return umb_fs_check_path(state, UMB_FS_READ, path, UMB_HOOK_INODE_GETATTR);
}

/* FAN_OPEN_PERM, FAN_ACCESS_PERM, FAN_OPEN_EXEC_PERM (include/linux/fsnotify_backend.h) */
#define UMB_FS_PERM_EVENTS	    (0x10000 | 0x20000 | 0x40000)
/* enum fsnotify_obj_type: a mark on one inode; the others cover a mount or a file system */
#define UMB_FSNOTIFY_OBJ_TYPE_INODE 0

/*
 * inotify_add_watch(2), fanotify_mark(2). The scope: no permission events for any
 * restricted task (a listener that never answers holds every open or exec of the object,
 * umbrellad's too). fs rules: a watch reports the names of what is created, opened or
 * removed in the object, so it asks r of it; a mark on a whole mount or file system
 * would report what is under restricted directories, so a task with r rules gets none.
 */
SEC("lsm/path_notify")
int BPF_PROG(umb_path_notify, const struct path *path, __u64 mask, unsigned int obj_type, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	if (mask & UMB_FS_PERM_EVENTS)
		return umb_scope_deny(UMB_HOOK_PATH_NOTIFY, UMB_SCOPE_PROCESS, 0);
	if (!(state->fs_access & UMB_FS_READ))
		return 0;
	if (obj_type != UMB_FSNOTIFY_OBJ_TYPE_INODE)
		return umb_deny_flagged(UMB_HOOK_PATH_NOTIFY, 0, UMB_ITEM_FS, UMB_FS_READ, 0,
					umb_layer_deny_flags(umb_fs_layer(state)));
	return umb_fs_check_path(state, UMB_FS_READ, path, UMB_HOOK_PATH_NOTIFY);
}

/*
 * A file received from another task (SCM_RIGHTS, pidfd_getfd(2), binder): asks what
 * opening it would (see file_open), so that an unrestricted helper cannot hand a
 * restricted task what its rules deny. An O_PATH file gives no access: what is done
 * with it is checked. A refused file is dropped from the message (MSG_CTRUNC).
 */
SEC("lsm/file_receive")
int BPF_PROG(umb_file_receive, struct file *file, int ret)
{
	const struct umb_task_state *state;
	__u32 mode, requested;

	if (ret)
		return ret;
	mode = file->f_mode;
	if (mode & FMODE_PATH)
		return 0;
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	ret = umb_scope_file_open(file, UMB_HOOK_FILE_RECEIVE); /* as file_open */
	if (ret)
		return ret;
	if (mode & FMODE_WRITE) {
		ret = umb_scope_file_write(file, UMB_HOOK_FILE_RECEIVE); /* as file_open */
		if (ret)
			return ret;
		requested = UMB_FS_WRITE | (mode & FMODE_READ ? UMB_FS_READ : 0);
	} else {
		requested = UMB_FS_READ;
	}
	if (!(state->fs_access & requested))
		return 0;
	return umb_fs_check_path(state, requested, &file->f_path, UMB_HOOK_FILE_RECEIVE);
}

SEC("lsm/path_chroot")
int BPF_PROG(umb_path_chroot, const struct path *path, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = fs_state(UMB_FS_READ);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_READ, path->dentry, path->mnt, UMB_HOOK_PATH_CHROOT);
}

/* The verdict on reaching the unix socket @other (a connect's peer or a datagram's
 * target) from the current task: w on the file it is bound to, if any. */
static __always_inline int unix_peer_check(struct sock *other, __u32 hook)
{
	const struct umb_task_state *state = fs_state(UMB_FS_WRITE);
	struct unix_sock *u;
	struct dentry *dentry;

	if (!state)
		return 0;
	u = (struct unix_sock *)other; /* struct unix_sock begins with its struct sock */
	dentry = BPF_CORE_READ(u, path.dentry);
	if (!dentry)
		return 0; /* abstract or unbound: no file (net:unix restricts those) */
	return umb_fs_check_number(state, UMB_FS_WRITE, dentry, BPF_CORE_READ(u, path.mnt), hook);
}

/*
 * The uid umbrellad charges @task to (daemon/userns-owner.h): the owner of the outermost
 * user namespace it is in below the initial one, the user that made that chain of
 * namespaces and owns all of their uids; its effective uid when it is in the initial
 * namespace, or when root made the chain (a container's).
 */
static __always_inline __u32 charged_uid(struct task_struct *task)
{
	struct user_namespace *ns = BPF_CORE_READ(task, cred, user_ns);
	__u32 uid = BPF_CORE_READ(task, cred, euid.val), owner;
	int level = BPF_CORE_READ(ns, level);

	/* User namespaces nest 32 deep at most: level 1 is the outermost below the
	 * initial one. */
	for (int i = 0; i < 32 && level > 1; i++) {
		ns = BPF_CORE_READ(ns, parent);
		level = BPF_CORE_READ(ns, level);
	}
	if (level != 1)
		return uid;
	owner = BPF_CORE_READ(ns, owner.val);
	return owner ?: uid;
}

/*
 * A connect() to umbrellad's socket by a uid that holds its share of umbrellad's
 * connections while some wait for its closer thread, or by any user while all users
 * hold theirs so (umb_conn_full): -EAGAIN, in the caller, before the connection exists.
 * The uid as umbrellad charges it (server.c's connection_uid(): SO_PEERCRED's effective
 * uid, or the owner of its user namespaces (charged_uid()); a root that carries layers
 * as UMB_UID_RESTRICTED_ROOT; root that carries none is never refused here).
 */
static __always_inline int daemon_connect_check(void)
{
	__u32 uid, users = UMB_CONN_FULL_USERS;
	struct task_struct *task;

	task = bpf_get_current_task_btf();
	uid = charged_uid(task);
	if (uid == 0) {
		if (!umb_is_restricted(umb_task_state_get(task)))
			return 0;
		uid = UMB_UID_RESTRICTED_ROOT;
	}
	if (bpf_map_lookup_elem(&umb_conn_full, &users) ||
	    bpf_map_lookup_elem(&umb_conn_full, &uid))
		return -EAGAIN;
	return 0;
}

SEC("lsm/unix_stream_connect")
int BPF_PROG(umb_unix_stream_connect, struct sock *sock, struct sock *other, struct sock *newsk,
	     int ret)
{
	if (ret)
		return ret;
	/* umbrellad's own socket (SOCK_SEQPACKET: only a connect reaches it) is exempt from
	 * fs: rules: a restricted task may always ask it for more restrictions (fs:/:w must
	 * not break its rfork); "net:unix" is the item that keeps a task from it. */
	if (bpf_sk_storage_get(&umb_daemon_sock, other, NULL, 0))
		return daemon_connect_check();
	return unix_peer_check(other, UMB_HOOK_UNIX_STREAM_CONNECT);
}

SEC("lsm/unix_may_send")
int BPF_PROG(umb_unix_may_send, struct socket *sock, struct socket *other, int ret)
{
	if (ret)
		return ret;
	return unix_peer_check(BPF_CORE_READ(other, sk), UMB_HOOK_UNIX_MAY_SEND);
}

SEC("lsm/path_mknod")
int BPF_PROG(umb_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	const struct umb_task_state *state;
	__u32 type = mode & S_IFMT, requested;

	if (ret)
		return ret;
	ret = umb_protect_pins(dentry, dir->mnt, UMB_HOOK_PATH_MKNOD); /* BPF_OBJ_PIN too */
	if (!ret)
		ret = umb_protect_files(umb_current_state(), dentry, dir->mnt, UMB_HOOK_PATH_MKNOD,
					true);
	if (ret)
		return ret;
	/* The scope: a new node of a device would reach it around the rules on its
	 * nodes (mknod /tmp/x c 1 11 for /dev/kmsg). An overlayfs whiteout (0:0) is
	 * no device. */
	if ((type == S_IFCHR || type == S_IFBLK) && dev && umb_is_restricted(umb_current_state()))
		return umb_scope_deny(UMB_HOOK_PATH_MKNOD, UMB_SCOPE_KERNEL, 0);
	/* A socket (bind() of AF_UNIX) asks r too, as path_symlink: at a name a rule
	 * denies r on, it would answer whoever connects there expecting another service.
	 * A FIFO or a file is read through an open at the name, which the rules check. */
	requested = type == S_IFSOCK ? UMB_FS_READ | UMB_FS_WRITE : UMB_FS_WRITE;
	state = fs_state(requested);
	if (!state)
		return 0;
	return umb_fs_check(state, requested, dentry, dir->mnt, UMB_HOOK_PATH_MKNOD);
}

SEC("lsm/path_mkdir")
int BPF_PROG(umb_path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_files(umb_current_state(), dentry, dir->mnt, UMB_HOOK_PATH_MKDIR, true);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, dir->mnt, UMB_HOOK_PATH_MKDIR);
}

SEC("lsm/path_symlink")
int BPF_PROG(umb_path_symlink, const struct path *dir, struct dentry *dentry, const char *old_name,
	     int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_files(umb_current_state(), dentry, dir->mnt, UMB_HOOK_PATH_SYMLINK, true);
	if (ret)
		return ret;
	/* r too: a link at a name a rule denies r on would point it at what the task may
	 * read elsewhere (the plant of lib/reach.bpf.h). */
	state = fs_state(UMB_FS_READ | UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_READ | UMB_FS_WRITE, dentry, dir->mnt,
			    UMB_HOOK_PATH_SYMLINK);
}

SEC("lsm/path_link")
int BPF_PROG(umb_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	ret = umb_protect_files(state, old_dentry, new_dir->mnt, UMB_HOOK_PATH_LINK, false);
	if (!ret)
		ret = umb_protect_files(state, new_dentry, new_dir->mnt, UMB_HOOK_PATH_LINK, true);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_ALL);
	if (!state)
		return 0;
	/* A hard link stays on its mount (EXDEV otherwise): the old dentry is under new_dir's
	 * mount too. With any rule, the new name must be covered as the old one (reach.bpf.h). */
	ret = umb_fs_reach_check(state, old_dentry, new_dentry, new_dir->mnt, UMB_HOOK_PATH_LINK);
	if (ret || !(state->fs_access & UMB_FS_WRITE))
		return ret;
	ret = umb_fs_check(state, UMB_FS_WRITE, old_dentry, new_dir->mnt, UMB_HOOK_PATH_LINK);
	if (ret)
		return ret;
	return umb_fs_check(state, UMB_FS_WRITE, new_dentry, new_dir->mnt, UMB_HOOK_PATH_LINK);
}

SEC("lsm/path_unlink")
int BPF_PROG(umb_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_pins(dentry, dir->mnt, UMB_HOOK_PATH_UNLINK);
	if (!ret)
		ret = umb_protect_files(umb_current_state(), dentry, dir->mnt, UMB_HOOK_PATH_UNLINK,
					true);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, dir->mnt, UMB_HOOK_PATH_UNLINK);
}

SEC("lsm/path_rmdir")
int BPF_PROG(umb_path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_pins(dentry, dir->mnt, UMB_HOOK_PATH_RMDIR);
	if (!ret)
		ret = umb_protect_files(umb_current_state(), dentry, dir->mnt, UMB_HOOK_PATH_RMDIR,
					true);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_ALL);
	if (!state)
		return 0;
	ret = umb_fs_ancestor_check(state, dentry, dir->mnt, UMB_HOOK_PATH_RMDIR);
	if (ret || !(state->fs_access & UMB_FS_WRITE))
		return ret;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, dir->mnt, UMB_HOOK_PATH_RMDIR);
}

SEC("lsm/path_rename")
int BPF_PROG(umb_path_rename, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, unsigned int flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_pins(old_dentry, old_dir->mnt, UMB_HOOK_PATH_RENAME);
	if (!ret)
		ret = umb_protect_pins(new_dentry, new_dir->mnt, UMB_HOOK_PATH_RENAME);
	if (ret)
		return ret;
	state = umb_current_state();
	ret = umb_protect_files(state, old_dentry, old_dir->mnt, UMB_HOOK_PATH_RENAME, true);
	if (!ret)
		ret = umb_protect_files(state, new_dentry, new_dir->mnt, UMB_HOOK_PATH_RENAME,
					true);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_ALL);
	if (!state)
		return 0;
	/* Neither may be a directory above a restricted path (RENAME_EXCHANGE moves both). */
	ret = umb_fs_ancestor_check(state, old_dentry, old_dir->mnt, UMB_HOOK_PATH_RENAME);
	if (!ret)
		ret = umb_fs_ancestor_check(state, new_dentry, new_dir->mnt, UMB_HOOK_PATH_RENAME);
	/* Whatever the modes: the new name covered as the old one (lib/reach.bpf.h; a rename
	 * stays on its mount, EXDEV otherwise). */
	if (!ret)
		ret = umb_fs_reach_check(state, old_dentry, new_dentry, new_dir->mnt,
					 UMB_HOOK_PATH_RENAME);
	if (ret || !(state->fs_access & UMB_FS_WRITE))
		return ret;
	/* The object moved (and its old name). */
	ret = umb_fs_check(state, UMB_FS_WRITE, old_dentry, old_dir->mnt, UMB_HOOK_PATH_RENAME);
	if (ret)
		return ret;
	/* The new name, and the object it names if any (replaced, or with RENAME_EXCHANGE
	 * moved to the old name): a positive dentry is checked as both. */
	return umb_fs_check(state, UMB_FS_WRITE, new_dentry, new_dir->mnt, UMB_HOOK_PATH_RENAME);
}

/*
 * The inode hooks of a directory's changes: the protection of Umbrella's files again,
 * for the callers that reach no path hook. overlayfs creates, links, unlinks, renames
 * and whites out in its upper directory through vfs_*() in the task's own context (an
 * rm through the overlay, a copy-up): an overlay whose upperdir is /etc/umbrella/keys
 * would remove or replace the files (lib/protect-files.bpf.h). The ordinary system calls
 * reach these after their path hook, which already allowed them.
 */
SEC("lsm/inode_create")
int BPF_PROG(umb_inode_create, struct inode *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_CREATE, true);
}

SEC("lsm/inode_mknod")
int BPF_PROG(umb_inode_mknod, struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev,
	     int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_MKNOD, true);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(umb_inode_mkdir, struct inode *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_MKDIR, true);
}

SEC("lsm/inode_symlink")
int BPF_PROG(umb_inode_symlink, struct inode *dir, struct dentry *dentry, const char *old_name,
	     int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_SYMLINK, true);
}

SEC("lsm/inode_link")
int BPF_PROG(umb_inode_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	ret = umb_protect_files(state, old_dentry, NULL, UMB_HOOK_INODE_LINK, false);
	if (!ret)
		ret = umb_protect_files(state, new_dentry, NULL, UMB_HOOK_INODE_LINK, true);
	return ret;
}

SEC("lsm/inode_unlink")
int BPF_PROG(umb_inode_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_UNLINK, true);
}

SEC("lsm/inode_rmdir")
int BPF_PROG(umb_inode_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_RMDIR, true);
}

SEC("lsm/inode_rename")
int BPF_PROG(umb_inode_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	ret = umb_protect_files(state, old_dentry, NULL, UMB_HOOK_INODE_RENAME, true);
	if (!ret)
		ret = umb_protect_files(state, new_dentry, NULL, UMB_HOOK_INODE_RENAME, true);
	return ret;
}

SEC("lsm/path_truncate")
int BPF_PROG(umb_path_truncate, const struct path *path, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_exec_pin_check_write(path->dentry->d_inode); /* truncate(2): no open */
	if (ret)
		return ret;
	umb_verdict_invalidate(path->dentry->d_inode);
	ret = umb_protect_files(umb_current_state(), path->dentry, path->mnt,
				UMB_HOOK_PATH_TRUNCATE, false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, path->dentry, path->mnt, UMB_HOOK_PATH_TRUNCATE);
}

SEC("lsm/path_chmod")
int BPF_PROG(umb_path_chmod, const struct path *path, umode_t mode, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_files(umb_current_state(), path->dentry, path->mnt, UMB_HOOK_PATH_CHMOD,
				false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, path->dentry, path->mnt, UMB_HOOK_PATH_CHMOD);
}

/* uid and gid are kuid_t and kgid_t (one-word structs, passed as words). */
SEC("lsm/path_chown")
int BPF_PROG(umb_path_chown, const struct path *path, unsigned int uid, unsigned int gid, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	ret = umb_protect_files(umb_current_state(), path->dentry, path->mnt, UMB_HOOK_PATH_CHOWN,
				false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, path->dentry, path->mnt, UMB_HOOK_PATH_CHOWN);
}

#define UMB_ATTR_SIZE (1 << 3) /* include/linux/fs.h ATTR_SIZE */

/* inode_setattr for both signatures: every attribute change, also utimes and the
 * truncation of an O_TRUNC open, which have no path hook. */
static __always_inline int inode_setattr(struct dentry *dentry, struct iattr *attr)
{
	const struct umb_task_state *state;
	int ret;

	/* A pinned file's size, by any route: on 6.12 an O_RDONLY|O_TRUNC open truncates
	 * through file_truncate, not path_truncate, and is no write open. */
	if (attr->ia_valid & UMB_ATTR_SIZE) {
		ret = umb_exec_pin_check_write(dentry->d_inode);
		if (ret)
			return ret;
	}
	umb_verdict_invalidate(dentry->d_inode); /* chmod, chown, utimes, truncate */
	ret = umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_SETATTR, false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, NULL, UMB_HOOK_INODE_SETATTR);
}

/* Linux 6.3 and later. */
SEC("lsm/inode_setattr")
int BPF_PROG(umb_inode_setattr, struct mnt_idmap *idmap, struct dentry *dentry, struct iattr *attr,
	     int ret)
{
	if (ret)
		return ret;
	return inode_setattr(dentry, attr);
}

/* Linux 6.1 and 6.2 (no idmap). The one other case of two programs on a hook: only one
 * of them is loaded, the one for the kernel's signature, and status names its hook.
 * 6.1: remove when 6.1 goes (the program without the idmap). */
SEC("lsm/inode_setattr")
int BPF_PROG(umb_inode_setattr_noidmap, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return inode_setattr(dentry, attr);
}

/* The xattr hooks take the dentry as second argument on every supported kernel (a
 * user_namespace before 6.3, an idmap since): declared as an opaque pointer. */
SEC("lsm/inode_setxattr")
int BPF_PROG(umb_inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	umb_verdict_invalidate(dentry->d_inode);
	ret = umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_SETXATTR, false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, NULL, UMB_HOOK_INODE_SETXATTR);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(umb_inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	umb_verdict_invalidate(dentry->d_inode);
	ret = umb_protect_files(umb_current_state(), dentry, NULL, UMB_HOOK_INODE_REMOVEXATTR,
				false);
	if (ret)
		return ret;
	state = fs_state(UMB_FS_WRITE);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_WRITE, dentry, NULL, UMB_HOOK_INODE_REMOVEXATTR);
}

SEC("lsm/inode_getxattr")
int BPF_PROG(umb_inode_getxattr, struct dentry *dentry, const char *name, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = fs_state(UMB_FS_READ);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_READ, dentry, NULL, UMB_HOOK_INODE_GETXATTR);
}

SEC("lsm/inode_listxattr")
int BPF_PROG(umb_inode_listxattr, struct dentry *dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = fs_state(UMB_FS_READ);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_READ, dentry, NULL, UMB_HOOK_INODE_LISTXATTR);
}

/* lib/fsattr.bpf.h (proc.bpf.c's file_ioctl programs): global, so that the walk's record
 * is built here. */
__noinline int umb_fs_write_denied(__u64 dentry, __u64 mnt, __u32 hook)
{
	const struct umb_task_state *state = fs_state(UMB_FS_WRITE);

	if (!state)
		return 0;
	return umb_fs_check_number(state, UMB_FS_WRITE, (const struct dentry *)dentry,
				   (const struct vfsmount *)mnt, hook) != 0;
}

/* readlink(2) tells the link's target: r, as reading a file does. No mount: the walk
 * stays on the link's file system, as the xattr hooks'. */
SEC("lsm/inode_readlink")
int BPF_PROG(umb_inode_readlink, struct dentry *dentry, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = fs_state(UMB_FS_READ);
	if (!state)
		return 0;
	return umb_fs_check(state, UMB_FS_READ, dentry, NULL, UMB_HOOK_INODE_READLINK);
}

/* mount(2) flags (include/uapi/linux/mount.h) */
#define UMB_MS_REMOUNT	   32
#define UMB_MS_BIND	   4096
#define UMB_MS_MOVE	   8192
#define UMB_MS_PROPAGATION (1 << 17 | 1 << 18 | 1 << 19 | 1 << 20) /* unbindable ... shared */

/*
 * A mount attached at @target hides what is there from every process of its mount
 * namespace (and of its peers): a task with fs rules may not mount over a directory
 * above a restricted path (lib/ancestors.bpf.h), nor over anything its rules deny w on
 * (a bind mount over a restricted file would put other content under its name). The
 * "mount" item (system.bpf.c) refuses every mount; this holds without it.
 */
static __always_inline int mount_target_check(const struct umb_task_state *state,
					      const struct path *target, __u32 hook)
{
	int ret = umb_fs_ancestor_check(state, target->dentry, target->mnt, hook);

	if (ret || !(state->fs_access & UMB_FS_WRITE))
		return ret;
	return umb_fs_check(state, UMB_FS_WRITE, target->dentry, target->mnt, hook);
}

/*
 * The mount hooks: one program each, for the "mount" item (lib/mount.bpf.h) and the fs
 * rules, in this order. Each part only refuses, so the verdict is the same either way;
 * the item goes first because it needs no walk, and its record names what the layer
 * says ("mount") where the rules' would name a directory. At sb_umount the protection
 * of the pins' mount comes before both: it stands in permissive mode too, and its
 * record must say that it protected Umbrella.
 */

/* What attaches a mount (a new mount, a bind mount, a move; not a remount or a change
 * of propagation) with fs rules. */
static __always_inline int sb_mount_fs(const struct umb_task_state *state, const struct path *path,
				       unsigned long flags)
{
	if ((flags & UMB_MS_REMOUNT) || (!(flags & UMB_MS_BIND) && (flags & UMB_MS_PROPAGATION)))
		return 0;
	/* A move takes its source by name, which this hook cannot resolve: that mount may
	 * hold a restricted path's directory (move_mount(2) gives its root, checked). */
	if (flags & UMB_MS_MOVE)
		return umb_deny_flagged(UMB_HOOK_SB_MOUNT, 0, UMB_ITEM_FS, UMB_FS_WRITE, 0,
					umb_layer_deny_flags(umb_fs_layer(state)));
	return mount_target_check(state, path, UMB_HOOK_SB_MOUNT);
}

/*
 * Self-protection of Umbrella's files at mount(2), before the "mount" item and the fs
 * rules, for every task that carries a layer: no mount attached over one of them or a
 * directory above one (lib/protect-files.bpf.h), and no MS_MOVE, whose source is a
 * string here and may be the mount that holds them; in the initial mount namespace, or
 * on a shared mount (umb_protect_mount_counts()).
 */
static __always_inline int sb_mount_protect(const struct umb_task_state *state,
					    const struct path *path, unsigned long flags)
{
	if (!umb_is_restricted(state))
		return 0;
	if ((flags & UMB_MS_REMOUNT) || (!(flags & UMB_MS_BIND) && (flags & UMB_MS_PROPAGATION)))
		return 0;
	/* Another namespace's private or slave mount: not what systemd and umbrellad see
	 * (the source of a move is in the task's namespace too). */
	if (!umb_protect_mount_counts((__u64)path->mnt))
		return 0;
	if (flags & UMB_MS_MOVE)
		return umb_protect_path_deny(path->dentry, path->mnt, UMB_HOOK_SB_MOUNT);
	return umb_protect_files(state, path->dentry, path->mnt, UMB_HOOK_SB_MOUNT, true);
}

SEC("lsm/sb_mount")
int BPF_PROG(umb_sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	ret = sb_mount_protect(state, path, flags);
	if (!ret)
		ret = umb_mount_item(state, UMB_HOOK_SB_MOUNT);
	if (ret || !state || !(state->fs_access & UMB_FS_ALL))
		return ret;
	return sb_mount_fs(state, path, flags);
}

SEC("lsm/move_mount")
int BPF_PROG(umb_move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	/* Umbrella's files: neither the mount moved away nor the place it goes, where
	 * they count (umb_protect_mount_counts()). */
	ret = 0;
	if (umb_is_restricted(state) && umb_protect_mount_counts((__u64)from_path->mnt))
		ret = umb_protect_files(state, from_path->dentry, from_path->mnt,
					UMB_HOOK_MOVE_MOUNT, true);
	if (!ret && umb_is_restricted(state) && umb_protect_mount_counts((__u64)to_path->mnt))
		ret = umb_protect_files(state, to_path->dentry, to_path->mnt, UMB_HOOK_MOVE_MOUNT,
					true);
	if (!ret)
		ret = umb_mount_item(state, UMB_HOOK_MOVE_MOUNT);
	if (ret || !state || !(state->fs_access & UMB_FS_ALL))
		return ret;
	/* The mount moved away (from_path is its root) may hold a restricted path's
	 * directory, which would leave its mount point for a new one. */
	ret = umb_fs_ancestor_check(state, from_path->dentry, from_path->mnt, UMB_HOOK_MOVE_MOUNT);
	if (ret)
		return ret;
	return mount_target_check(state, to_path, UMB_HOOK_MOVE_MOUNT);
}

/* Unmounting the mount that holds a restricted path's directory would uncover the
 * directory below it, where a new object of the path's name has no rule. */
SEC("lsm/sb_umount")
int BPF_PROG(umb_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	/* Both protections where the mount counts (umb_protect_mount_counts()): a
	 * container unmounts its old root, with its copies of /sys/fs/bpf (the pins stay
	 * in PID 1's namespace, their file system with them) and of Umbrella's files. */
	ret = 0;
	if (umb_is_restricted(state) && umb_protect_mount_counts((__u64)mnt)) {
		ret = umb_umount_protect(state, mnt);
		/* a mount rooted at one of Umbrella's files or a directory above one */
		if (!ret)
			ret = umb_protect_files(state, mnt->mnt_root, mnt, UMB_HOOK_SB_UMOUNT,
						true);
	}
	if (!ret)
		ret = umb_mount_item(state, UMB_HOOK_SB_UMOUNT);
	if (ret || !state || !(state->fs_access & UMB_FS_ALL))
		return ret;
	return umb_fs_ancestor_check(state, mnt->mnt_root, mnt, UMB_HOOK_SB_UMOUNT);
}
