// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella - the system as a whole: mounts, kernel modules, Linux capabilities and the
 * bpf() system call. The capability restrictions "mount", "module" and "cap:NAME", and
 * the rule that keeps every restricted task away from bpf().
 *
 * Architecture:
 *   lsm/sb_pivotroot           "mount": pivot_root(2). The item's other hooks
 *                              (sb_mount, sb_umount, move_mount, which attaches what
 *                              the new mount API made) are file.bpf.c's programs, one
 *                              per hook with the fs rules, calling lib/mount.bpf.h.
 *                              Detached mounts (fsmount, open_tree(OPEN_TREE_CLONE))
 *                              and mount_setattr(2) reach no LSM hook: see the README
 *                              of the restriction (tests/integration/test-cap-system.c).
 *   lsm/kernel_read_file       "module": finit_module(2) (READING_MODULE),
 *   lsm/kernel_load_data       init_module(2) (LOADING_MODULE), and modules the
 *   lsm/kernel_module_request  kernel would load on the task's behalf (request_module).
 *   lsm/capable                "cap:NAME": the task using capability NAME.
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
	if (ret)
		return ret;
	return umb_mount_item(umb_current_state(), UMB_HOOK_SB_PIVOTROOT);
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

SEC("lsm/capable")
int BPF_PROG(umb_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	const struct umb_task_state *state;
	struct task_struct *task;
	__u64 bit;

	if (ret)
		return ret;
	/* Called only when the task holds the capability (commoncap runs first). */
	state = umb_current_state();
	if (!umb_is_restricted(state))
		return 0;
	if (cap < 0 || cap >= 64)
		return 0; /* no such capability (CAP_LAST_CAP is 40) */
	bit = 1ULL << cap;
	if (!((state->denied_capabilities | UMB_SCOPE_CAPABILITIES) & bit))
		return 0;
	/* Only the task's own credentials: has_capability(other task) and checks of a
	 * file opener's credentials are not this task using a capability. */
	task = bpf_get_current_task_btf();
	if ((unsigned long)cred != (unsigned long)BPF_CORE_READ(task, cred) &&
	    (unsigned long)cred != (unsigned long)BPF_CORE_READ(task, real_cred))
		return 0;
	/* The scope: refused to every restricted task, in permissive mode too. */
	if (UMB_SCOPE_CAPABILITIES & bit) {
		if (opts & CAP_OPT_NOAUDIT)
			return -EPERM;
		return umb_deny_strict(UMB_HOOK_CAPABLE, 0, UMB_ITEM_SCOPE, UMB_SCOPE_KERNEL, 0);
	}
	/* A probe the kernel makes quietly (ns_capable_noaudit(), has_capability_noaudit()):
	 * denied as well, but not recorded, as the kernel does not log it either. */
	if (opts & CAP_OPT_NOAUDIT)
		return umb_deny_quiet();
	return umb_deny(UMB_HOOK_CAPABLE, umb_layer_denying(state, UMB_SET_CAPABILITIES, bit),
			UMB_ITEM_LINUX_CAP, cap, 0);
}

SEC("lsm/bpf")
int BPF_PROG(umb_bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	if (ret)
		return ret;
	/* Layers are never removed: a restricted task must not write our maps (through a
	 * map fd inherited from its parent or one it finds), nor attach programs of its
	 * own. Self-protection: recorded with layer 0, item 0, and enforced in permissive
	 * mode too (a task that reached our maps could drop its layers for good). */
	if (umb_is_restricted(umb_current_state()))
		return umb_deny_strict(UMB_HOOK_BPF, 0, UMB_ITEM_CAP, 0, 0);
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
