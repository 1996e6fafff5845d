// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for its parts): the
 * scope every layer has, whatever its items (bpf/lib/scope.bpf.h), and the protection of
 * umbrellad and its pins from restricted tasks. Each route a security review used to act
 * outside the layers is tried by a task whose only layer says "net" ([X]), beside the same
 * call by an unrestricted task (the control):
 *
 *   kernel settings   opening for writing: /proc/sys/kernel/core_pattern and modprobe
 *                     (the kernel runs them as root, outside every layer), the
 *                     binfmt_misc register file (its module loaded), uevent_helper
 *                     (not in Debian's kernels: a skip tests/skips-allowed names),
 *                     /proc/sysrq-trigger, cgroup.procs, a file of tracefs
 *                     (trace_marker), debugfs (clear_warn_once) and securityfs (lsm);
 *                     and the real attack: writing "|/bin/sh ..." to core_pattern leaves
 *                     it unchanged.
 *   other processes   /proc/PID/oom_score_adj of another process and of umbrellad (the
 *                     task's own stays writable); prlimit(2) of umbrellad, and of any
 *                     process outside the domain under "signal"; setpriority(2) of
 *                     umbrellad; pidfd_getfd(2) of a process outside the domain (one
 *                     of its own children's works).
 *   the terminal      TIOCSTI and TIOCLINUX on a pseudo-terminal; opening uhid for
 *                     writing, and vhci (a keyboard that types for every session).
 *   OOM scores        lowering its own oom_score_adj below its floor, or oom_adj (the
 *                     OOM killer would pick processes outside the domain first), under
 *                     "net" and under "signal"; raising it and back stays.
 *   the system        sethostname(2), setdomainname(2) of the host (in a UTS namespace
 *                     of its own: allowed), the clock (clock_settime(2), adjtimex(2)'s
 *                     offset and rate), syslog(2) clearing the kernel log or setting the
 *                     console level (reading it stays); the machine's devices: nvram,
 *                     i2c, the watchdog, cuse (opened for reading too), rfkill (for
 *                     writing). The time and the names
 *                     are set to what they are: nothing changes.
 *   the pins          unlinking a pin of the pin directory while no umbrellad is
 *                     registered; unmounting a bpf file system, or a mount with mounts
 *                     below it (umount -l /sys would take /sys/fs/bpf along).
 *   the kernel        CAP_SYS_RAWIO (/proc/kcore), CPU-wide perf events, mknod of a
 *                     device node, /dev/snapshot (the hibernation image),
 *                     clone3(CLONE_INTO_CGROUP), fanotify permission events.
 *   swap              swapon(2) of a swap file the task made (every process's pages
 *                     would be written where it reads them), swapoff(2) of an active
 *                     one; CAP_SYS_ADMIN elsewhere (unshare(CLONE_NEWUTS)) stays.
 *   request-key       request_key(2) with callout information: the kernel runs
 *                     /sbin/request-key as root outside every layer (a script the test
 *                     puts there records each run); keys only stored (add_key) stay.
 */
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/timex.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/keyctl.h>

#include <umbrella/kdev.h>

#include "cap-test.h"

static pid_t scope_target;
static const char *path;

/* Opens @path for writing (and closes it: nothing is written). */
static int probe_open_write(void *arg UNUSED)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_open_read(void *arg UNUSED)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The review's route: a core pattern that runs a program. */
static int probe_core_pattern_attack(void *arg UNUSED)
{
	static const char pattern[] = "|/bin/sh -c true";
	int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (write(fd, pattern, sizeof(pattern) - 1) < 0) {
		int r = errno;

		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

static int probe_oom_score_adj(void *arg UNUSED)
{
	char file[64];
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/oom_score_adj",
		 scope_target ? scope_target : getpid());
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, "0", 1) < 0) {
		int r = errno;

		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

static int probe_prlimit_cpu(void *arg UNUSED)
{
	struct rlimit limit;

	if (prlimit(scope_target, RLIMIT_CPU, NULL, &limit) < 0)
		return PROBE_SETUP_FAILED;
	/* The same limit again: the hook is asked all the same. */
	return cap_errno(prlimit(scope_target, RLIMIT_CPU, &limit, NULL));
}

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* pidfd_getfd(2) of the target's stdout: @scope_target, or with none a child of the probe
 * (inside its domain). Asks ptrace_access_check (PTRACE_MODE_ATTACH_REALCREDS). */
static int probe_pidfd_getfd(void *arg UNUSED)
{
	pid_t pid = scope_target, child = 0;
	int pidfd, fd, r;

	if (!pid) {
		child = fork();
		if (child < 0)
			return PROBE_SETUP_FAILED;
		if (child == 0) {
			for (;;)
				pause();
		}
		pid = child;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		r = PROBE_SETUP_FAILED;
	} else {
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, STDOUT_FILENO, 0);
		r = cap_errno(fd);
		if (fd >= 0)
			close(fd);
		close(pidfd);
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return r;
}

static int probe_setpriority(void *arg UNUSED)
{
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, scope_target);

	if (prio == -1 && errno)
		return PROBE_SETUP_FAILED;
	return cap_errno(setpriority(PRIO_PROCESS, scope_target, prio));
}

/* ioctl @arg (TIOCSTI or TIOCLINUX) on a new pseudo-terminal. */
static int probe_tty_ioctl(void *arg)
{
	unsigned long cmd = (unsigned long)arg;
	char c = 'x', linux_arg[2] = { 7 /* TIOCL_GETSHIFTSTATE */ };
	int master, slave, r;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0)
		return PROBE_SETUP_FAILED;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0) {
		close(master);
		return PROBE_SETUP_FAILED;
	}
	r = cap_errno(ioctl(slave, cmd, cmd == TIOCSTI ? &c : linux_arg));
	close(slave);
	close(master);
	return r;
}

static int probe_unlink(void *arg UNUSED)
{
	return cap_errno(unlink(path));
}

static int probe_scope_umount(void *arg UNUSED)
{
	return cap_errno(umount2(path, 0));
}

static int probe_umount_detach(void *arg UNUSED)
{
	return cap_errno(umount2(path, MNT_DETACH));
}

/* Opens @path (/proc/kcore: CAP_SYS_RAWIO) for reading. */
static int probe_open_rdonly(void *arg UNUSED)
{
	return probe_open_read(NULL);
}

/* A fanotify permission mark on /tmp (a listener that never answers would hold every
 * open there). */
static int probe_fanotify_perm(void *arg UNUSED)
{
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, "/tmp"));
	close(fd);
	return r;
}

/* A software perf event counting on CPU 0 for every task. */
static int probe_perf_cpu(void *arg UNUSED)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE,
					.size = sizeof(attr),
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.disabled = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* clone3(CLONE_INTO_CGROUP) of a child that exits at once, into the cgroup @path. */
static int probe_clone_into_cgroup(void *arg UNUSED)
{
	int cgroup = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct clone_args args = { .flags = CLONE_INTO_CGROUP,
				   .exit_signal = SIGCHLD,
				   .cgroup = (__u64)cgroup };
	long pid;

	if (cgroup < 0)
		return PROBE_SETUP_FAILED;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	close(cgroup);
	if (pid < 0)
		return errno;
	waitpid((pid_t)pid, NULL, 0);
	return 0;
}

/* mknod of /dev/kmsg's device (1:11), or of an overlayfs whiteout (0:0) with @arg. */
static int probe_mknod(void *arg)
{
	int r = cap_errno(mknod(path, S_IFCHR | 0600, arg ? makedev(0, 0) : makedev(1, 11)));

	if (r == 0)
		unlink(path);
	return r;
}

static void check_kernel(struct umbrella_bpf *skel, __u32 X)
{
	const char *cgroup = "/tmp/scope-cgroup2";

	/* The hibernation image: every process's memory (no capability asked). */
	path = "/dev/snapshot";
	if (access(path, F_OK) == 0) {
		TAP_EQ(cap_run1(skel, 0, probe_open_rdonly, NULL), 0,
		       "unrestricted: opening /dev/snapshot for reading works");
		TAP_EQ(cap_run1(skel, X, probe_open_rdonly, NULL), EPERM,
		       "[net]: opening /dev/snapshot for reading fails with EPERM");
	} else {
		TAP_SKIP("opening /dev/snapshot: none here (a kernel without hibernation)");
	}

	path = "/tmp/scope-kmsg";
	TAP_EQ(cap_run1(skel, 0, probe_mknod, NULL), 0,
	       "unrestricted: mknod of a node for /dev/kmsg's device works");
	TAP_EQ(cap_run1(skel, X, probe_mknod, NULL), EPERM,
	       "[net]: mknod of a node for /dev/kmsg's device fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_mknod, (void *)1), 0,
	       "[net]: mknod of a whiteout (0:0) works");

	path = "/proc/kcore";
	TAP_EQ(cap_run1(skel, 0, probe_open_rdonly, NULL), 0,
	       "unrestricted: opening /proc/kcore (CAP_SYS_RAWIO) works");
	TAP_EQ(cap_run1(skel, X, probe_open_rdonly, NULL), EPERM,
	       "[net]: opening /proc/kcore (CAP_SYS_RAWIO) fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_perf_cpu, NULL), 0,
	       "unrestricted: a CPU-wide perf event works");
	TAP_EQ(cap_run1(skel, X, probe_perf_cpu, NULL), EPERM,
	       "[net]: a CPU-wide perf event fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_fanotify_perm, NULL), 0,
	       "unrestricted: a fanotify FAN_OPEN_PERM mark works");
	TAP_EQ(cap_run1(skel, X, probe_fanotify_perm, NULL), EPERM,
	       "[net]: a fanotify FAN_OPEN_PERM mark fails with EPERM");
	(void)mkdir(cgroup, 0755);
	if (!TAP_OK(mount("cgroup2", cgroup, "cgroup2", 0, NULL) == 0, "cgroup2 is mounted"))
		return;
	path = cgroup;
	TAP_EQ(cap_run1(skel, 0, probe_clone_into_cgroup, NULL), 0,
	       "unrestricted: clone3(CLONE_INTO_CGROUP) works");
	TAP_EQ(cap_run1(skel, X, probe_clone_into_cgroup, NULL), EPERM,
	       "[net]: clone3(CLONE_INTO_CGROUP) fails with EPERM");
	(void)umount(cgroup);
}

static char *read_file(const char *file, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* Writing @file: denied to [X], allowed to an unrestricted task (opened only). */
static void check_setting(struct umbrella_bpf *skel, __u32 X, const char *file)
{
	if (access(file, W_OK) < 0) {
		TAP_SKIP("writing %s: not on this kernel or not mounted", file);
		return;
	}
	path = file;
	TAP_EQ(cap_run1(skel, 0, probe_open_write, NULL), 0,
	       "unrestricted: opening %s for writing works", file);
	TAP_EQ(cap_run1(skel, X, probe_open_write, NULL), EPERM,
	       "[net]: opening %s for writing fails with EPERM", file);
}

static void check_kernel_settings(struct umbrella_bpf *skel, __u32 X)
{
	char before[256], after[256];
	const char *cgroup = "/tmp/scope-cgroup", *binfmt = "/proc/sys/fs/binfmt_misc";
	bool binfmt_here = access("/proc/sys/fs/binfmt_misc/register", F_OK) == 0;

	check_setting(skel, X, "/proc/sys/kernel/core_pattern");
	check_setting(skel, X, "/proc/sys/kernel/modprobe");
	check_setting(skel, X, "/proc/sysrq-trigger");
	check_setting(skel, X, "/sys/kernel/uevent_helper"); /* CONFIG_UEVENT_HELPER */
	check_setting(skel, X, "/sys/kernel/mm/transparent_hugepage/enabled");
	/* tests/vm/guest-init mounts tracefs, debugfs and securityfs; opened only, so
	 * nothing is written to them. */
	check_setting(skel, X, "/sys/kernel/tracing/trace_marker");
	check_setting(skel, X, "/sys/kernel/debug/clear_warn_once");
	check_setting(skel, X, "/sys/kernel/security/lsm");
	/* A module (CONFIG_BINFMT_MISC=m in Debian's kernels) that nothing in the VM loads. */
	if (!binfmt_here && system("bash -c '. " SOURCE_ROOT "/tests/helpers/vm-modules.sh && "
				   "load_module binfmt_misc'") != 0) {
		TAP_SKIP("writing %s/register: no binfmt_misc module on this kernel", binfmt);
	} else {
		if (!binfmt_here)
			TAP_OK(mount("binfmt_misc", binfmt, "binfmt_misc", 0, NULL) == 0,
			       "binfmt_misc (its module loaded) is mounted on %s", binfmt);
		check_setting(skel, X, "/proc/sys/fs/binfmt_misc/register");
		if (!binfmt_here)
			(void)umount(binfmt);
	}
	(void)mkdir(cgroup, 0755);
	if (mount("cgroup2", cgroup, "cgroup2", 0, NULL) == 0) {
		check_setting(skel, X, "/tmp/scope-cgroup/cgroup.procs");
		(void)umount(cgroup);
	} else {
		TAP_SKIP("writing cgroup.procs: cgroup2 cannot be mounted here");
	}

	path = "/proc/sys/kernel/core_pattern";
	TAP_EQ(cap_run1(skel, X, probe_open_read, NULL), 0,
	       "[net]: reading /proc/sys/kernel/core_pattern works");
	if (TAP_OK(read_file(path, before, sizeof(before)) != NULL, "core_pattern is read")) {
		TAP_EQ(cap_run1(skel, X, probe_core_pattern_attack, NULL), EPERM,
		       "[net]: writing \"|/bin/sh ...\" to core_pattern fails with EPERM");
		TAP_OK(read_file(path, after, sizeof(after)) && strcmp(before, after) == 0,
		       "core_pattern is unchanged");
	}
}

static void check_processes(struct umbrella_bpf *skel, __u32 X, __u32 S)
{
	pid_t other = cap_sleeper(skel, NULL, 0), daemon = cap_sleeper(skel, NULL, 0);

	if (!TAP_OK(other > 0 && daemon > 0 && cap_set_daemon(skel, daemon) == 0,
		    "a stand-in for umbrellad and another process are started"))
		goto out;
	scope_target = 0;
	TAP_EQ(cap_run1(skel, X, probe_oom_score_adj, NULL), 0,
	       "[net]: writing its own /proc/PID/oom_score_adj works");
	scope_target = other;
	TAP_EQ(cap_run1(skel, 0, probe_oom_score_adj, NULL), 0,
	       "unrestricted: writing another process's oom_score_adj works");
	TAP_EQ(cap_run1(skel, X, probe_oom_score_adj, NULL), EPERM,
	       "[net]: writing another process's oom_score_adj fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_prlimit_cpu, NULL), 0,
	       "[net]: prlimit(RLIMIT_CPU) of a process outside the domain works");
	TAP_EQ(cap_run1(skel, S, probe_prlimit_cpu, NULL), EPERM,
	       "[signal]: prlimit(RLIMIT_CPU) of a process outside the domain fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_setpriority, NULL), 0,
	       "[net]: setpriority(2) of another process works");
	TAP_EQ(cap_run1(skel, 0, probe_pidfd_getfd, NULL), 0,
	       "unrestricted: pidfd_getfd(2) of another process works");
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drains the earlier records */
	TAP_EQ(cap_run1(skel, X, probe_pidfd_getfd, NULL), EPERM,
	       "[net]: pidfd_getfd(2) of a process outside the domain fails with EPERM");
	TAP_OK(cap_find_event(skel, UMB_HOOK_PTRACE_ACCESS_CHECK, 0, UMB_SCOPE_PROCESS, other),
	       "the refusal is recorded as scope:process (ptrace_access_check), naming the target");
	scope_target = 0;
	TAP_EQ(cap_run1(skel, X, probe_pidfd_getfd, NULL), 0,
	       "[net]: pidfd_getfd(2) of its own child (inside the domain) works");
	scope_target = other;

	scope_target = daemon;
	TAP_EQ(cap_run1(skel, 0, probe_oom_score_adj, NULL), 0,
	       "unrestricted: writing umbrellad's oom_score_adj works");
	TAP_EQ(cap_run1(skel, X, probe_oom_score_adj, NULL), EPERM,
	       "[net]: writing umbrellad's oom_score_adj fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_prlimit_cpu, NULL), 0,
	       "unrestricted: prlimit(RLIMIT_CPU) of umbrellad works");
	TAP_EQ(cap_run1(skel, X, probe_prlimit_cpu, NULL), EPERM,
	       "[net]: prlimit(RLIMIT_CPU) of umbrellad fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_setpriority, NULL), EPERM,
	       "[net]: setpriority(2) of umbrellad fails with EPERM");
	cap_set_daemon(skel, 0);
out:
	cap_stop(other);
	cap_stop(daemon);
}

static void check_terminal(struct umbrella_bpf *skel, __u32 X)
{
	int r = cap_run1(skel, 0, probe_tty_ioctl, (void *)(unsigned long)TIOCSTI);

	if (r == PROBE_SETUP_FAILED) {
		TAP_SKIP("TIOCSTI and TIOCLINUX: no pseudo-terminal");
		return;
	}
	TAP_EQ(r, 0, "unrestricted: TIOCSTI on a terminal works");
	TAP_EQ(cap_run1(skel, X, probe_tty_ioctl, (void *)(unsigned long)TIOCSTI), EPERM,
	       "[net]: TIOCSTI on a terminal fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_tty_ioctl, (void *)(unsigned long)TIOCLINUX), EPERM,
	       "[net]: TIOCLINUX on a terminal fails with EPERM");
}

/* The pin directory of a stand-in umbrellad that has exited: ctl.pin_dev/pin_ino
 * set, daemon_tgid 0. */
static void check_pins(struct umbrella_bpf *skel, __u32 X)
{
	const char *dir = "/sys/fs/bpf/umbrella-scope-test", *bpffs = "/tmp/scope-bpffs";
	char pin_path[128];
	struct umb_ctl ctl = {};
	struct stat st;
	int ctl_fd = bpf_map__fd(skel->maps.umb_ctl);

	snprintf(pin_path, sizeof(pin_path), "%s/umb_stats", dir);
	(void)unlink(pin_path);
	(void)rmdir(dir);
	if (!TAP_OK(mkdir(dir, 0700) == 0 && stat(dir, &st) == 0 &&
			    bpf_map__pin(skel->maps.umb_stats, pin_path) == 0,
		    "a map is pinned in a pin directory"))
		return;
	ctl.pin_dev = umb_kdev(st.st_dev);
	ctl.pin_ino = st.st_ino;
	ctl.daemon_tgid = 0;
	if (!TAP_EQ(state_ctl_update(ctl_fd, STATE_CTL_DAEMON | STATE_CTL_PIN, &ctl), 0,
		    "umb_ctl names the pin directory, and no umbrellad"))
		return;
	path = pin_path;
	TAP_EQ(cap_run1(skel, X, probe_unlink, NULL), EPERM,
	       "[net]: unlinking a pin while no umbrellad runs fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_unlink, NULL), 0,
	       "unrestricted: unlinking a pin while no umbrellad runs works");
	ctl.pin_dev = 0;
	ctl.pin_ino = 0;
	(void)state_ctl_update(ctl_fd, STATE_CTL_PIN, &ctl);
	(void)rmdir(dir);

	(void)mkdir(bpffs, 0700);
	if (!TAP_OK(mount("bpf", bpffs, "bpf", 0, NULL) == 0, "a bpf file system is mounted"))
		return;
	path = bpffs;
	TAP_EQ(cap_run1(skel, X, probe_scope_umount, NULL), EPERM,
	       "[net]: unmounting a bpf file system fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_scope_umount, NULL), 0,
	       "unrestricted: unmounting a bpf file system works");
	(void)umount(bpffs);

	/* A tmpfs with a tmpfs below it: "umount -l" of the upper one. */
	if (!TAP_OK(mount("tmpfs", bpffs, "tmpfs", 0, NULL) == 0 &&
			    mkdir("/tmp/scope-bpffs/below", 0700) == 0 &&
			    mount("tmpfs", "/tmp/scope-bpffs/below", "tmpfs", 0, NULL) == 0,
		    "a mount with a mount below it"))
		return;
	TAP_EQ(cap_run1(skel, X, probe_umount_detach, NULL), EPERM,
	       "[net]: umount -l of a mount with mounts below it fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_umount_detach, NULL), 0,
	       "unrestricted: umount -l of a mount with mounts below it works");
	(void)umount2(bpffs, MNT_DETACH);
	(void)rmdir(bpffs);
}

/* Writes @value to the task's own /proc/self/@arg (oom_score_adj or oom_adj). */
static int write_own(const char *file, const char *value)
{
	char name[64];
	int fd, r = 0;

	snprintf(name, sizeof(name), "/proc/self/%s", file);
	fd = open(name, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return PROBE_SETUP_FAILED;
	if (write(fd, value, strlen(value)) < 0)
		r = errno;
	close(fd);
	return r;
}

/* The review's route: its own OOM score to the floor (-1000: never chosen). */
static int probe_oom_lower(void *arg UNUSED)
{
	return write_own("oom_score_adj", "-1000");
}

/* Up to 500 and back to 0: the floor of an unprivileged writer. */
static int probe_oom_raise_and_back(void *arg UNUSED)
{
	int r = write_own("oom_score_adj", "500");

	return r ? r : write_own("oom_score_adj", "0");
}

/* The legacy file: lowering below the current value. */
static int probe_oom_adj_lower(void *arg UNUSED)
{
	return write_own("oom_adj", "-17");
}

/* sethostname(2) to the name it has; with @arg, in a new UTS namespace of its own,
 * to another name that the host must not see. */
static int probe_scope_sethostname(void *arg)
{
	char name[256] = "";

	if (arg) {
		if (unshare(CLONE_NEWUTS) < 0)
			return errno;
		return cap_errno(sethostname("scope-own-uts", strlen("scope-own-uts")));
	}
	if (gethostname(name, sizeof(name) - 1) < 0)
		return PROBE_SETUP_FAILED;
	return cap_errno(sethostname(name, strlen(name)));
}

static int probe_setdomainname(void *arg UNUSED)
{
	struct utsname uts;

	if (uname(&uts) < 0)
		return PROBE_SETUP_FAILED;
	return cap_errno(setdomainname(uts.domainname, strlen(uts.domainname)));
}

/* clock_settime(2) of CLOCK_REALTIME to what it reads (the microseconds between are
 * the only change). */
static int probe_clock_settime(void *arg UNUSED)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0)
		return PROBE_SETUP_FAILED;
	return cap_errno(clock_settime(CLOCK_REALTIME, &now));
}

/* adjtimex(2): with @arg, the clock's rate set to what it is (no settime hook on the
 * way); without, an offset of zero (ADJ_SETOFFSET). */
static int probe_adjtimex(void *arg)
{
	struct timex tx = { 0 };

	if (adjtimex(&tx) < 0)
		return PROBE_SETUP_FAILED;
	if (arg) {
		tx.modes = ADJ_FREQUENCY;
	} else {
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET;
	}
	return cap_errno(adjtimex(&tx));
}

/* adjtimex(2) that only reads: no capability asked. */
static int probe_adjtimex_read(void *arg UNUSED)
{
	struct timex tx = { 0 };

	return cap_errno(adjtimex(&tx));
}

/* syslog(2) action @arg: clearing the log (5), the console's level (8, set to what
 * /proc/sys/kernel/printk says it is), reading it all (3). */
static int probe_syslog(void *arg)
{
	int type = (int)(long)arg, level = 0;
	char buf[64];
	FILE *f;

	if (type == 8) {
		f = fopen("/proc/sys/kernel/printk", "re");
		if (!f || fscanf(f, "%d", &level) != 1) {
			if (f)
				fclose(f);
			return PROBE_SETUP_FAILED;
		}
		fclose(f);
		return cap_errno(klogctl(type, NULL, level));
	}
	return cap_errno(klogctl(type, type == 3 ? buf : NULL, type == 3 ? sizeof(buf) : 0));
}

/* A watchdog stopped as it was started: 'V' before the close (the magic close). */
static int probe_open_watchdog(void *arg UNUSED)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (write(fd, "V", 1) != 1) {
		close(fd);
		return PROBE_SETUP_FAILED;
	}
	close(fd);
	return 0;
}

static void check_oom(struct umbrella_bpf *skel, __u32 X, __u32 S)
{
	TAP_EQ(cap_run1(skel, 0, probe_oom_lower, NULL), 0,
	       "unrestricted: lowering its own oom_score_adj to -1000 works");
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drains the earlier records */
	TAP_EQ(cap_run1(skel, X, probe_oom_lower, NULL), EACCES,
	       "[net]: lowering its own oom_score_adj to -1000 fails with EACCES");
	TAP_OK(cap_find_event(skel, UMB_HOOK_CAPABLE, 0, UMB_SCOPE_PROCESS, 0),
	       "the lowering is recorded as scope:process");
	TAP_EQ(cap_run1(skel, S, probe_oom_lower, NULL), EACCES,
	       "[signal]: lowering its own oom_score_adj to -1000 fails with EACCES");
	TAP_EQ(cap_run1(skel, S, probe_oom_raise_and_back, NULL), 0,
	       "[signal]: raising its own oom_score_adj and back to 0 works");
	TAP_EQ(cap_run1(skel, 0, probe_oom_adj_lower, NULL), 0,
	       "unrestricted: lowering its own oom_adj works");
	TAP_EQ(cap_run1(skel, X, probe_oom_adj_lower, NULL), EACCES,
	       "[net]: lowering its own oom_adj fails with EACCES");
}

/* Opens the character device @major:@minor through a node of its own in /dev (a
 * devtmpfs: no nodev), unrestricted then under @X, with @probe. The control passes
 * the scope: it works, or the driver answers (ENODEV, ENXIO: no such device here). */
static void check_device(struct umbrella_bpf *skel, __u32 X, unsigned major, unsigned minor,
			 const char *name, test_probe_fn probe)
{
	char node[64];
	int r;

	snprintf(node, sizeof(node), "/dev/umbrella-scope-%s", name);
	(void)unlink(node);
	if (!TAP_EQ(mknod(node, S_IFCHR | 0600, makedev(major, minor)), 0,
		    "setup: a node for %s (%u:%u)", name, major, minor))
		return;
	path = node;
	r = cap_run1(skel, 0, probe, NULL);
	TAP_OK(r != EPERM && r != PROBE_SETUP_FAILED, "unrestricted: opening %s passes (%s)", name,
	       r ? strerror(r) : "opened");
	TAP_EQ(cap_run1(skel, X, probe, NULL), EPERM, "[net]: opening %s fails with EPERM", name);
	(void)unlink(node);
}

static void check_system(struct umbrella_bpf *skel, __u32 X)
{
	char before[256] = "", after[256] = "";

	(void)gethostname(before, sizeof(before) - 1);
	TAP_EQ(cap_run1(skel, 0, probe_scope_sethostname, NULL), 0,
	       "unrestricted: sethostname of the host works");
	(void)cap_find_event(skel, 0, 0, 0, 0);
	TAP_EQ(cap_run1(skel, X, probe_scope_sethostname, NULL), EPERM,
	       "[net]: sethostname of the host fails with EPERM");
	TAP_OK(cap_find_event(skel, UMB_HOOK_CAPABLE, 0, UMB_SCOPE_KERNEL, 0),
	       "the sethostname is recorded as scope:kernel");
	TAP_EQ(cap_run1(skel, X, probe_scope_sethostname, (void *)1), 0,
	       "[net]: sethostname in a UTS namespace of its own works");
	(void)gethostname(after, sizeof(after) - 1);
	TAP_OK(strcmp(before, after) == 0, "the host's name is still %s", before);
	TAP_EQ(cap_run1(skel, 0, probe_setdomainname, NULL), 0,
	       "unrestricted: setdomainname of the host works");
	TAP_EQ(cap_run1(skel, X, probe_setdomainname, NULL), EPERM,
	       "[net]: setdomainname of the host fails with EPERM");

	TAP_EQ(cap_run1(skel, 0, probe_clock_settime, NULL), 0,
	       "unrestricted: clock_settime(CLOCK_REALTIME) works");
	TAP_EQ(cap_run1(skel, X, probe_clock_settime, NULL), EPERM,
	       "[net]: clock_settime(CLOCK_REALTIME) fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_adjtimex, NULL), 0,
	       "unrestricted: adjtimex(ADJ_SETOFFSET) works");
	TAP_EQ(cap_run1(skel, X, probe_adjtimex, NULL), EPERM,
	       "[net]: adjtimex(ADJ_SETOFFSET) fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_adjtimex, (void *)1), 0,
	       "unrestricted: adjtimex(ADJ_FREQUENCY) works");
	TAP_EQ(cap_run1(skel, X, probe_adjtimex, (void *)1), EPERM,
	       "[net]: adjtimex(ADJ_FREQUENCY) fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_adjtimex_read, NULL), 0,
	       "[net]: adjtimex that only reads works");

	TAP_EQ(cap_run1(skel, 0, probe_syslog, (void *)8L), 0,
	       "unrestricted: syslog(SYSLOG_ACTION_CONSOLE_LEVEL) works");
	(void)cap_find_event(skel, 0, 0, 0, 0);
	TAP_EQ(cap_run1(skel, X, probe_syslog, (void *)8L), EPERM,
	       "[net]: syslog(SYSLOG_ACTION_CONSOLE_LEVEL) fails with EPERM");
	TAP_OK(cap_find_event(skel, UMB_HOOK_SYSLOG, 0, UMB_SCOPE_KERNEL, 0),
	       "the syslog is recorded as scope:kernel");
	TAP_EQ(cap_run1(skel, X, probe_syslog, (void *)5L), EPERM,
	       "[net]: syslog(SYSLOG_ACTION_CLEAR) fails with EPERM");
	TAP_EQ(cap_run1(skel, X, probe_syslog, (void *)3L), 0,
	       "[net]: syslog(SYSLOG_ACTION_READ_ALL) works");

	check_device(skel, X, 10, 239, "uhid", probe_open_write);
	check_device(skel, X, 10, 137, "vhci", probe_open_read);
	check_device(skel, X, 10, 144, "nvram", probe_open_read);
	check_device(skel, X, 89, 0, "i2c-0", probe_open_read);
	check_device(skel, X, 10, 130, "watchdog", probe_open_watchdog);
	check_device(skel, X, 10, 203, "cuse", probe_open_read);
	check_device(skel, X, 10, 242, "rfkill", probe_open_write);
}

static int probe_swapon(void *arg UNUSED)
{
	if (swapon(path, 0) < 0)
		return errno;
	(void)swapoff(path);
	return 0;
}

static int probe_swapoff(void *arg UNUSED)
{
	return cap_errno(swapoff(path));
}

static void check_swap(struct umbrella_bpf *skel, __u32 X)
{
	const char *dir = "/tmp/scope-swap";

	/* tmpfs (the VM's /tmp) takes no swap file: ext4 on a loop device. */
	if (!TAP_EQ(system("img=/tmp/scope-swap.img dir=/tmp/scope-swap; "
			   "truncate -s 16M $img && mkfs.ext4 -q -F $img && mkdir -p $dir && "
			   "mount -o loop $img $dir && rm -f $img && "
			   "dd if=/dev/zero of=$dir/swap bs=64k count=16 status=none && "
			   "chmod 600 $dir/swap && mkswap $dir/swap >/dev/null"),
		    0, "setup: a 1 MiB swap file on ext4"))
		return;
	path = "/tmp/scope-swap/swap";
	TAP_EQ(cap_run1(skel, 0, probe_swapon, NULL), 0,
	       "unrestricted: swapon of the swap file works (and swapoff)");
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drains the earlier records */
	TAP_EQ(cap_run1(skel, X, probe_swapon, NULL), EPERM,
	       "[net]: swapon of the swap file fails with EPERM");
	TAP_OK(cap_find_event(skel, UMB_HOOK_CAPABLE, 0, UMB_SCOPE_KERNEL, 0),
	       "the swapon is recorded as scope:kernel");
	if (TAP_EQ(swapon(path, 0), 0, "setup: the swap file is on")) {
		TAP_EQ(cap_run1(skel, X, probe_swapoff, NULL), EPERM,
		       "[net]: swapoff of the active swap file fails with EPERM");
		TAP_EQ(cap_run1(skel, 0, probe_swapoff, NULL), 0,
		       "unrestricted: swapoff of it works");
	}
	TAP_EQ(cap_run1(skel, X, probe_scope_sethostname, (void *)1), 0,
	       "[net]: unshare(CLONE_NEWUTS) (CAP_SYS_ADMIN outside swapon) works");
	(void)swapoff(path);
	(void)umount2(dir, MNT_DETACH);
}

static const char request_key_log[] = "/tmp/scope-request-key.log";

/* request_key(2) of a "user" key nobody has, with callout information: the kernel asks
 * /sbin/request-key to make it. A new description each time (a failed request leaves a
 * negative key behind). */
static int probe_scope_request_key(void *arg)
{
	char description[64];

	snprintf(description, sizeof(description), "umbrella:scope-%d", getpid());
	if (syscall(SYS_request_key, "user", description, arg ? "callout" : NULL,
		    KEY_SPEC_PROCESS_KEYRING) >= 0)
		return 0;
	return errno;
}

static int probe_scope_add_key(void *arg UNUSED)
{
	return cap_errno(syscall(SYS_add_key, "user", "umbrella:scope-stored", "value", 5,
				 KEY_SPEC_PROCESS_KEYRING));
}

/* How many times the /sbin/request-key of check_request_key() ran. */
static int request_key_runs(void)
{
	char buf[4096];
	int n = 0;

	if (!read_file(request_key_log, buf, sizeof(buf)))
		return 0;
	for (const char *p = buf; (p = strstr(p, "create")); p++)
		n++;
	return n;
}

/* Writes @text to a new executable file @file. */
static bool write_script(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

static void check_request_key(struct umbrella_bpf *skel, __u32 X)
{
	int runs;

	/* The VM shares the host's read-only root, without keyutils: a tmpfs over
	 * /usr/sbin (/sbin is a link to it) holds a /sbin/request-key that records its
	 * arguments and makes no key. The probes exec nothing from /usr/sbin. */
	if (!TAP_OK(mount("tmpfs", "/usr/sbin", "tmpfs", 0, "mode=0755") == 0,
		    "setup: a tmpfs on /usr/sbin"))
		return;
	if (!TAP_OK(write_script("/usr/sbin/request-key",
				 "#!/bin/sh\necho \"$@\" >>/tmp/scope-request-key.log\nexit 1\n"),
		    "setup: a /sbin/request-key that records each run"))
		goto out;
	unlink(request_key_log);
	TAP_EQ(cap_run1(skel, 0, probe_scope_request_key, (void *)1), ENOKEY,
	       "unrestricted: request_key with callout information fails with ENOKEY");
	runs = request_key_runs();
	TAP_EQ(runs, 1, "unrestricted: the kernel ran /sbin/request-key for it");
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drains the earlier records */
	TAP_EQ(cap_run1(skel, X, probe_scope_request_key, (void *)1), EPERM,
	       "[net]: request_key with callout information fails with EPERM");
	TAP_EQ(request_key_runs(), runs, "[net]: /sbin/request-key did not run");
	TAP_OK(cap_find_event(skel, UMB_HOOK_KEY_ALLOC, 0, UMB_SCOPE_KERNEL, 0),
	       "the request is recorded as scope:kernel (key_alloc)");
	TAP_EQ(cap_run1(skel, X, probe_scope_request_key, NULL), ENOKEY,
	       "[net]: request_key without callout information fails with ENOKEY, as before");
	TAP_EQ(cap_run1(skel, X, probe_scope_add_key, NULL), 0,
	       "[net]: add_key of a user key works");
out:
	(void)umount2("/usr/sbin", MNT_DETACH);
}

static void cap_scope(struct umbrella_bpf *skel)
{
	__u32 X, S;

	X = cap_layer(skel, UMB_CR_NET, 0);
	S = cap_layer(skel, UMB_CR_SIGNAL, 0);
	if (TAP_OK(X && S, "layers are written")) {
		check_kernel_settings(skel, X);
		check_processes(skel, X, S);
		check_terminal(skel, X);
		check_pins(skel, X);
		check_kernel(skel, X);
		check_swap(skel, X);
		check_oom(skel, X, S);
		check_system(skel, X);
		check_request_key(skel, X);
	}
}
