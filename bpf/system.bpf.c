// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - the system as a whole: mounts, kernel modules, Linux capabilities and the
 * bpf() system call. The capability restrictions "mount", "module" and "cap:NAME", and
 * the rule that keeps every restricted task away from bpf(). And "keys", the key rings.
 *
 * Architecture:
 *   lsm/sb_pivotroot           "mount": pivot_root(2); and for any restricted
 *                              task, none where the root holds Umbrella's files
 *                              in PID 1's mount namespace or on a shared mount
 *                              (lib/protect-files.bpf.h). The item's other hooks
 *                              (sb_mount, sb_umount, move_mount, which attaches what
 *                              the new mount API made) are file.bpf.c's programs, one
 *                              per hook with the fs rules, calling lib/mount.bpf.h.
 *                              Detached mounts (fsmount, open_tree(OPEN_TREE_CLONE))
 *                              and mount_setattr(2) reach no LSM hook: see docs/security.md
 *                              of the restriction (tests/integration/cap-system.c).
 *   lsm/kernel_read_file       "module": finit_module(2) (READING_MODULE),
 *   lsm/kernel_load_data       init_module(2) (LOADING_MODULE), and modules the
 *   lsm/kernel_module_request  kernel would load on the task's behalf (request_module).
 *   lsm/capable                "cap:NAME": the task using capability NAME. Any
 *                              restricted task: not the capabilities of the scope, nor
 *                              the ones the scope refuses in some calls: swap, the
 *                              host's name, the clock, lowering an OOM score
 *                              (umb_scope_call_capability()).
 *   lsm/key_alloc              any restricted task: no key that request_key(2) would
 *                              have /sbin/request-key make (the scope). "keys": no
 *                              new key or key ring in add_key(2), keyctl(2).
 *   lsm/key_permission         "keys": every key and key ring the task names or
 *                              searches in add_key(2), request_key(2), keyctl(2).
 *                              Any restricted task: no KEYCTL_SESSION_TO_PARENT (the
 *                              scope: the parent it reaches cannot be checked).
 *   lsm/syslog                 any restricted task: not clearing or consuming the
 *                              kernel log, nor its console level (the scope).
 *   lsm/bpf                    every bpf(2) command, for every task with a layer: a
 *                              restricted task must not reach our maps or load
 *                              programs (its inherited map fds included). Enforced
 *                              in permissive mode too, unlike the restrictions.
 *                              And for every other task, the self-protection of our
 *                              links and programs (lib/protect.bpf.h).
 */
#include "maps.bpf.h"
#include "lib/audit.bpf.h"
#include "lib/domain.bpf.h"
#include "lib/layers.bpf.h"
#include "lib/mount.bpf.h"
#include "lib/protect.bpf.h"
#include "lib/scope.bpf.h"
#include "lib/syscall.bpf.h"

/* The verdict on a task whose state is @state using the right @cr, recorded as @hook. */
static __always_inline int check_cap(const struct umb_task_state *state, __u64 cr, __u32 hook)
{
	if (!state || !(state->denied_caps & cr))
		return 0;
	return umb_deny(hook, umb_layer_denying(state, UMB_SET_CAPS, cr), UMB_ITEM_CAP, cr, 0);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(umb_sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	const struct umb_task_state *state;
	struct task_struct *task;

	if (ret)
		return ret;
	state = umb_current_state();
	/* pivot_root(2) moves the root of every process of the namespace that has the
	 * current one: where that root holds Umbrella's files (the host's), its path to
	 * them would change (lib/protect-files.bpf.h). Enforced in permissive mode too.
	 * Not in a container's private namespace (umb_protect_mount_counts()). */
	task = bpf_get_current_task_btf();
	if (umb_is_restricted(state) && umb_protect_mount_counts((__u64)task->fs->root.mnt) &&
	    umb_protect_files_ask((__u64)task->fs->root.dentry, true))
		return umb_deny_strict(UMB_HOOK_SB_PIVOTROOT, 0, UMB_ITEM_SELF, 0, 0);
	return umb_mount_item(state, UMB_HOOK_SB_PIVOTROOT);
}

SEC("lsm/kernel_read_file")
int BPF_PROG(umb_kernel_read_file, struct file *file, enum kernel_read_file_id id, bool contents,
	     int ret)
{
	if (ret)
		return ret;
	/* Firmware, kexec images, policies and certificates are not modules. */
	if (id != bpf_core_enum_value(enum kernel_read_file_id, READING_MODULE))
		return 0;
	return check_cap(umb_current_state(), UMB_CR_MODULE, UMB_HOOK_KERNEL_READ_FILE);
}

SEC("lsm/kernel_load_data")
int BPF_PROG(umb_kernel_load_data, enum kernel_load_data_id id, bool contents, int ret)
{
	if (ret)
		return ret;
	if (id != bpf_core_enum_value(enum kernel_load_data_id, LOADING_MODULE))
		return 0;
	return check_cap(umb_current_state(), UMB_CR_MODULE, UMB_HOOK_KERNEL_LOAD_DATA);
}

SEC("lsm/kernel_module_request")
int BPF_PROG(umb_kernel_module_request, char *kmod_name, int ret)
{
	if (ret)
		return ret;
	/* Automatic loading (socket(2) of an unknown family, a file system type...) runs
	 * in the requesting task: it loads a module on the task's behalf all the same. */
	return check_cap(umb_current_state(), UMB_CR_MODULE, UMB_HOOK_KERNEL_MODULE_REQUEST);
}

/* include/uapi/linux/capability.h */
#define UMB_SYS_ADMIN		    (1ULL << 21 /* CAP_SYS_ADMIN */)
#define UMB_SYS_RESOURCE	    (1ULL << 24 /* CAP_SYS_RESOURCE */)
#define UMB_SYS_TIME		    (1ULL << 25 /* CAP_SYS_TIME */)
/* The capabilities the scope refuses in some calls only (umb_scope_call_capability()). */
#define UMB_SCOPE_CALL_CAPABILITIES (UMB_SYS_ADMIN | UMB_SYS_RESOURCE | UMB_SYS_TIME)

/*
 * umb_scope_call_capability() - the scope of capability @bit, in the initial user
 * namespace when @initial_ns, for what the current call would do with it
 *
 *   CAP_SYS_ADMIN      swapon(2) and swapoff(2) (umb_in_swap_syscall()), and
 *                      sethostname(2), setdomainname(2) of the host's UTS namespace
 *                      (umb_sets_host_name()): UMB_SCOPE_KERNEL.
 *   CAP_SYS_TIME       in the initial user namespace: the system clock
 *                      (settimeofday(2), clock_settime(2), adjtimex(2) and
 *                      clock_adjtime(2) of its rate too, the RTC), which the kernel
 *                      checks there only; settime's LSM hook sees the setting calls but
 *                      not adjtimex(2)'s other modes. UMB_SCOPE_KERNEL.
 *   CAP_SYS_RESOURCE   in a write (umb_in_file_write()): lowering an OOM score below
 *                      its floor, after which the OOM killer picks processes outside
 *                      the domain first. UMB_SCOPE_PROCESS.
 *
 * Return: the enum umb_scope that refuses, 0 for none.
 */
static __always_inline enum umb_scope umb_scope_call_capability(__u64 bit, bool initial_ns)
{
	if (bit == UMB_SYS_ADMIN && (umb_in_swap_syscall() || umb_sets_host_name()))
		return UMB_SCOPE_KERNEL;
	if (bit == UMB_SYS_TIME && initial_ns)
		return UMB_SCOPE_KERNEL;
	if (bit == UMB_SYS_RESOURCE && umb_in_file_write())
		return UMB_SCOPE_PROCESS;
	return 0;
}

SEC("lsm/capable")
int BPF_PROG(umb_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	const struct umb_task_state *state;
	struct task_struct *task;
	enum umb_scope scope;
	__u64 bit;
	__u32 layer;

	if (ret)
		return ret;
	/* Called only when the task holds the capability (commoncap runs first). */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	if (cap < 0 || cap >= 64)
		return 0; /* no such capability (CAP_LAST_CAP is 40) */
	bit = 1ULL << cap;
	if (!((state->denied_capabilities | UMB_SCOPE_CAPABILITIES | UMB_SCOPE_CALL_CAPABILITIES) &
	      bit))
		return 0;
	/* Only the task's own credentials: has_capability(other task) and checks of a
	 * file opener's credentials are not this task using a capability. */
	task = bpf_get_current_task_btf();
	if ((unsigned long)cred != (unsigned long)BPF_CORE_READ(task, cred) &&
	    (unsigned long)cred != (unsigned long)BPF_CORE_READ(task, real_cred))
		return 0;
	/* The scope in some calls: swap, the host's name, the clock, an OOM score
	 * (umb_scope_call_capability()). Whatever "cap:NAME" says, and before it, so that
	 * the record names the scope. A quiet probe (has_capability_noaudit(), as
	 * __set_oom_adj() makes after every write) is refused unrecorded. */
	scope = umb_scope_call_capability(bit, BPF_CORE_READ(ns, level) == 0);
	if (scope) {
		if (opts & CAP_OPT_NOAUDIT)
			return -EPERM;
		return umb_deny_strict(UMB_HOOK_CAPABLE, 0, UMB_ITEM_SCOPE, scope, 0);
	}
	if (!((state->denied_capabilities | UMB_SCOPE_CAPABILITIES) & bit))
		return 0;
	/* The scope: refused to every restricted task, in permissive mode too. */
	if (UMB_SCOPE_CAPABILITIES & bit) {
		if (opts & CAP_OPT_NOAUDIT)
			return -EPERM;
		return umb_deny_strict(UMB_HOOK_CAPABLE, 0, UMB_ITEM_SCOPE, UMB_SCOPE_KERNEL, 0);
	}
	/* A probe the kernel makes quietly (ns_capable_noaudit(), has_capability_noaudit()):
	 * denied as well, but not recorded, as the kernel does not log it either. */
	layer = umb_layer_denying(state, UMB_SET_CAPABILITIES, bit);
	if (opts & CAP_OPT_NOAUDIT)
		return umb_deny_quiet(layer);
	return umb_deny(UMB_HOOK_CAPABLE, layer, UMB_ITEM_LINUX_CAP, cap, 0);
}

/*
 * "keys": the task's own use of the kernel's key rings. Keys are not files: the user and
 * user session key rings are shared by every process of the uid, outside the domain too,
 * and hold what fs rules cannot keep (passphrases, Kerberos tickets, CIFS credentials).
 * Only inside the three key system calls: the kernel also looks keys up for the task at
 * an open or an exec (fs-verity and IMA signatures, fscrypt, NFS), which is not the task
 * reaching a key ring, and refusing those would make such files fail for no gain.
 */
static __always_inline bool in_key_syscall(void)
{
	return umb_in_syscall(UMB_NR_KEYCTL) || umb_in_syscall(UMB_NR_ADD_KEY) ||
	       umb_in_syscall(UMB_NR_REQUEST_KEY);
}

/*
 * The scope: request_key(2) with callout information, and the kernel's own requests made
 * in the task (an NFS id lookup, a CIFS or AFS mount's DNS name), run /sbin/request-key as
 * root outside every layer: the program /etc/request-key.conf names for the key type
 * does the work (a DNS query under "net", say). The kernel allocates the construction's
 * authorisation key in the requesting task first: refusing it fails the request with
 * EPERM before anything runs. Keys that are only stored (add_key(2), keyctl(1) on the
 * task's keyrings) are not refused by the scope.
 */
SEC("lsm/key_alloc")
int BPF_PROG(umb_key_alloc, struct key *key, const struct cred *cred, unsigned long flags, int ret)
{
	const struct umb_task_state *state;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	if (umb_is_request_key_upcall(key))
		return umb_scope_deny(UMB_HOOK_KEY_ALLOC, UMB_SCOPE_KERNEL, 0);
	if (!(state->denied_caps & UMB_CR_KEYS) || !in_key_syscall())
		return 0;
	return check_cap(state, UMB_CR_KEYS, UMB_HOOK_KEY_ALLOC);
}

/* include/uapi/linux/keyctl.h */
#define UMB_KEYCTL_SESSION_TO_PARENT 18

SEC("lsm/key_permission")
int BPF_PROG(umb_key_permission, key_ref_t key_ref, const struct cred *cred,
	     enum key_need_perm need_perm, int ret)
{
	const struct umb_task_state *state;
	struct task_struct *parent;

	if (ret)
		return ret;
	state = umb_current_state();
	if (!umb_is_restricted(state) || !in_key_syscall())
		return 0;
	/* "keys" first; a permissive one only records (0), and the scope still holds. */
	if ((state->denied_caps & UMB_CR_KEYS) &&
	    (ret = check_cap(state, UMB_CR_KEYS, UMB_HOOK_KEY_PERMISSION)))
		return ret;
	/* The scope: KEYCTL_SESSION_TO_PARENT gives the parent the task's session key
	 * ring, where the parent then keeps what it adds and finds what the task put.
	 * The kernel looks that key ring up first (KEY_NEED_LINK), here, but reads
	 * real_parent again later under tasklist_lock (keyctl_session_to_parent()), and
	 * the parent installs the ring in its own task work (cred_transfer, a hook that
	 * cannot refuse): a parent that exits in between leaves the task re-parented to a
	 * subreaper outside the domain, which would get the ring. No check here can hold
	 * for the parent the kernel uses, so no restricted task gives its ring away. */
	if (!umb_in_syscall(UMB_NR_KEYCTL) || umb_syscall_arg1() != UMB_KEYCTL_SESSION_TO_PARENT)
		return 0;
	parent = bpf_get_current_task_btf()->real_parent;
	return umb_scope_deny(UMB_HOOK_KEY_PERMISSION, UMB_SCOPE_PROCESS, parent->tgid);
}

SEC("lsm/bpf")
int BPF_PROG(umb_bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	if (ret)
		return ret;
	/* Layers are never removed: a restricted task must not write our maps (through a
	 * map fd inherited from its parent or one it finds), nor attach programs of its
	 * own. Self-protection: recorded as restriction=self:0, layer 0 (no BPF object
	 * named: every command is refused), and enforced in permissive mode too (a task
	 * that reached our maps could drop its layers for good). */
	if (umb_is_restricted(umb_current_state()))
		return umb_deny_strict(UMB_HOOK_BPF, 0, UMB_ITEM_SELF, 0, 0);
	/* Everyone else: detaching our links, attaching to our programs (protect.bpf.c). */
	return umb_protect_bpf_cmd(cmd, attr);
}

/* enum perf_event_security_type (include/linux/perf_event.h) */
#define UMB_PERF_SECURITY_OPEN 0

/*
 * The scope: perf events on a whole CPU, on the kernel or on tracepoints sample every
 * task's registers and user stacks, outside the domain too. Events on one task are
 * checked as tracing is (ptrace_access_check). The hook lost its attr argument in
 * newer kernels: the type is read as the last argument.
 */
SEC("lsm/perf_event_open")
int BPF_PROG(umb_perf_event_open)
{
	__u64 count = bpf_get_func_arg_cnt(ctx), type = 0;

	if (count < 1 || bpf_get_func_arg(ctx, count - 1, &type) < 0)
		return 0;
	if (type == UMB_PERF_SECURITY_OPEN || !umb_is_restricted(umb_current_state()))
		return 0;
	return umb_scope_deny(UMB_HOOK_PERF_EVENT_OPEN, UMB_SCOPE_PROCESS, 0);
}

/*
 * The scope: syslog(2) clearing the kernel log, consuming it, or setting the console's
 * log level (umb_is_shared_syslog_action()), which /proc/sys/kernel/printk would set
 * and is refused as a kernel setting. The hook runs after the kernel's own check
 * (CAP_SYSLOG, dmesg_restrict); reading the whole log stays.
 */
SEC("lsm/syslog")
int BPF_PROG(umb_syslog, int type, int ret)
{
	if (ret)
		return ret;
	if (!umb_is_shared_syslog_action(type) || !umb_is_restricted(umb_current_state()))
		return 0;
	return umb_scope_deny(UMB_HOOK_SYSLOG, UMB_SCOPE_KERNEL, 0);
}
