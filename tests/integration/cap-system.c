// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for the five
 * parts): the restrictions on the system as a whole, each against an unrestricted
 * control (root has every capability here):
 *
 *   mount:     mount(2) (new, bind, remount, propagation), umount2(2), pivot_root(2),
 *              and the new mount API: fsopen/fsconfig/fsmount still make a detached
 *              mount, move_mount(2) cannot attach it
 *   module:    finit_module(2) and init_module(2) fail with EPERM, where the control
 *              fails with the kernel's own complaint about a bogus module
 *   setid:     setuid, setresuid, setgid, setgroups, and exec of a set-user-ID
 *              program; setuid(0) as root (no change) and other execs still work
 *   cap:NAME:  cap:net_raw (raw sockets), cap:chown (chown to another user),
 *              cap:sys_admin (unshare(CLONE_NEWUTS) and sethostname there), each
 *              denying only its own capability
 *   keys:      reading a secret root keeps in its user key ring (what [net] and
 *              the control still do), add_key, a new session key ring, request_key
 *   the scope: KEYCTL_SESSION_TO_PARENT to a parent outside the domain (a child of
 *              [net] to the unrestricted test) and to one inside it, beside the
 *              unrestricted test's own
 *
 * The test runs in a mount namespace of its own, on a scratch tmpfs.
 */
#include <grp.h>
#include <linux/keyctl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "cap-test.h"

static char base[] = "/tmp/test-cap-system.XXXXXX";
static char mnt[64], umnt[64], pivot[64], pivot_new[80], module_file[64], plain_file[64],
	suid_file[64];

static int probe_mount(void *arg UNUSED)
{
	if (mount("none", mnt, "tmpfs", 0, NULL) < 0)
		return errno;
	umount2(mnt, MNT_DETACH);
	return 0;
}

static int probe_bind(void *arg UNUSED)
{
	if (mount(umnt, mnt, NULL, MS_BIND, NULL) < 0)
		return errno;
	umount2(mnt, MNT_DETACH);
	return 0;
}

static int probe_remount(void *arg UNUSED)
{
	return cap_errno(mount(NULL, umnt, NULL, MS_REMOUNT, NULL));
}

static int probe_propagation(void *arg UNUSED)
{
	return cap_errno(mount(NULL, umnt, NULL, MS_PRIVATE, NULL));
}

/* Unmounts umnt (and mounts it again when that worked). */
static int probe_umount(void *arg UNUSED)
{
	if (umount2(umnt, 0) < 0)
		return errno;
	return mount("none", umnt, "tmpfs", 0, NULL) < 0 ? PROBE_SETUP_FAILED : 0;
}

/* In a mount namespace of its own, chrooted to the pivot tmpfs: pivot_root to the
 * tmpfs mounted on new/ in it. */
static int probe_pivot_root(void *arg UNUSED)
{
	if (unshare(CLONE_NEWNS) < 0 || chroot(pivot) < 0 || chdir("/new") < 0)
		return PROBE_SETUP_FAILED;
	return cap_errno(syscall(SYS_pivot_root, ".", "old"));
}

/* The new mount API: a detached tmpfs (expected to work), attached with move_mount. */
static int probe_new_mount_api(void *arg UNUSED)
{
	int fs, m, r;

	fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return PROBE_SETUP_FAILED;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return PROBE_SETUP_FAILED;
	m = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (m < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(syscall(SYS_move_mount, m, "", AT_FDCWD, mnt, MOVE_MOUNT_F_EMPTY_PATH));
	if (r == 0)
		umount2(mnt, MNT_DETACH);
	close(m);
	close(fs);
	return r;
}

static int probe_finit_module(void *arg UNUSED)
{
	int fd = open(module_file, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	r = cap_errno(syscall(SYS_finit_module, fd, "", 0));
	close(fd);
	return r;
}

static int probe_init_module(void *arg UNUSED)
{
	static char image[256]; /* zeros: not an ELF file */

	return cap_errno(syscall(SYS_init_module, image, sizeof(image), ""));
}

static int probe_setuid(void *arg UNUSED)
{
	return cap_errno(setuid(65534));
}

static int probe_setuid_same(void *arg UNUSED)
{
	return cap_errno(setuid(0));
}

static int probe_setresuid(void *arg UNUSED)
{
	return cap_errno(setresuid(-1, 65534, -1));
}

static int probe_setgid(void *arg UNUSED)
{
	return cap_errno(setgid(65534));
}

static int probe_setresgid(void *arg UNUSED)
{
	return cap_errno(setresgid(-1, 65534, -1));
}

static int probe_setgroups(void *arg UNUSED)
{
	gid_t group = 65534;

	return cap_errno(setgroups(1, &group));
}

/* @arg: the program to exec (its stdout goes to /dev/null). */
static int probe_exec(void *arg)
{
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	execl((const char *)arg, "id", "-u", (char *)NULL);
	return errno;
}

static int probe_raw_socket(void *arg UNUSED)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_chown(void *arg UNUSED)
{
	if (chown(plain_file, 65534, -1) < 0)
		return errno;
	return chown(plain_file, 0, -1) < 0 ? PROBE_SETUP_FAILED : 0;
}

/* CAP_SYS_ADMIN twice: a UTS namespace of its own, named there (the host's name is the
 * scope's, cap-scope.c). */
static int probe_sethostname(void *arg UNUSED)
{
	if (unshare(CLONE_NEWUTS) < 0)
		return errno;
	return cap_errno(sethostname("cap-test", strlen("cap-test")));
}

/* The scratch tree, in a private mount namespace. */
static const char secret[] = "umbrella-secret";

/* Finds the key "umbrella:secret" in the user key ring and reads it. */
static int probe_read_secret(void *arg UNUSED)
{
	char value[sizeof(secret)] = "";
	long id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user",
			  "umbrella:secret", 0);

	if (id < 0)
		return errno;
	if (syscall(SYS_keyctl, KEYCTL_READ, id, value, sizeof(value)) < 0)
		return errno;
	return memcmp(value, secret, sizeof(secret) - 1) == 0 ? 0 : PROBE_SETUP_FAILED;
}

static long secret_id;

/* Reads the secret by its serial number (/proc/keys shows it), without a search. */
static int probe_read_secret_by_id(void *arg UNUSED)
{
	char value[sizeof(secret)] = "";

	if (syscall(SYS_keyctl, KEYCTL_READ, secret_id, value, sizeof(value)) < 0)
		return errno;
	return memcmp(value, secret, sizeof(secret) - 1) == 0 ? 0 : PROBE_SETUP_FAILED;
}

static int probe_add_key(void *arg UNUSED)
{
	return cap_errno(syscall(SYS_add_key, "user", "umbrella:stored", "value", 5,
				 KEY_SPEC_PROCESS_KEYRING));
}

static int probe_join_session(void *arg UNUSED)
{
	return cap_errno(syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL));
}

/* request_key(2) of the secret without callout information: the task's key rings are
 * searched (the user key ring through the user session key ring). */
static int probe_request_key(void *arg UNUSED)
{
	return cap_errno(syscall(SYS_request_key, "user", "umbrella:secret", NULL, 0));
}

/* A new session key ring, given to the parent; with @arg, by a child of this task (a
 * parent inside the domain). */
static int probe_session_to_parent(void *arg)
{
	if (arg) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(probe_session_to_parent(NULL));
		return cap_wait(pid);
	}
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return PROBE_SETUP_FAILED;
	return cap_errno(syscall(SYS_keyctl, KEYCTL_SESSION_TO_PARENT));
}

/* A layer of @caps made permissive, as an arm with UMB_ARM_PERMISSIVE makes it (run
 * --permissive): its denials are recorded, not enforced. 0 on failure. */
static __u32 permissive_layer(struct umbrella_bpf *skel, __u64 caps)
{
	__u32 id = cap_layer(skel, caps, 0), slot = umb_layer_slot(id);
	int fd = bpf_map__fd(skel->maps.umb_layers);
	struct umb_layer layer;

	if (!id || bpf_map_lookup_elem(fd, &slot, &layer) < 0)
		return 0;
	layer.flags |= UMB_LAYER_PERMISSIVE;
	return bpf_map_update_elem(fd, &slot, &layer, BPF_EXIST) < 0 ? 0 : id;
}

static void check_keys(struct umbrella_bpf *skel, __u32 Y, __u32 N)
{
	__u32 P = permissive_layer(skel, UMB_CR_KEYS);

	secret_id = syscall(SYS_add_key, "user", "umbrella:secret", secret, sizeof(secret) - 1,
			    KEY_SPEC_USER_KEYRING);
	if (!TAP_OK(secret_id > 0, "setup: root keeps a secret in its user key ring"))
		return;
	TAP_EQ(cap_run1(skel, 0, probe_read_secret_by_id, NULL), 0,
	       "unrestricted: reading the secret by its id works");
	TAP_EQ(cap_run1(skel, N, probe_read_secret_by_id, NULL), 0,
	       "[net]: reading the secret by its id works");
	TAP_EQ(cap_run1(skel, Y, probe_read_secret_by_id, NULL), ENOKEY,
	       "[keys]: reading the secret by its id fails with ENOKEY");
	TAP_EQ(cap_run1(skel, 0, probe_read_secret, NULL), 0,
	       "unrestricted: finding and reading the secret works");
	TAP_EQ(cap_run1(skel, N, probe_read_secret, NULL), 0,
	       "[net]: finding and reading the secret works");
	TAP_EQ(cap_run1(skel, 0, probe_request_key, NULL), 0,
	       "unrestricted: request_key finds the secret");
	TAP_EQ(cap_run1(skel, N, probe_request_key, NULL), 0,
	       "[net]: request_key finds the secret");
	/* The kernel reports a key ring it may not search as missing: ENOKEY. */
	(void)cap_find_event(skel, 0, 0, 0, 0); /* drains the earlier records */
	TAP_EQ(cap_run1(skel, Y, probe_read_secret, NULL), ENOKEY,
	       "[keys]: finding the secret fails with ENOKEY");
	TAP_OK(cap_find_event(skel, UMB_HOOK_KEY_PERMISSION, Y, UMB_CR_KEYS, 0),
	       "the denial is recorded with the layer and keys");
	TAP_EQ(cap_run1(skel, Y, probe_add_key, NULL), EPERM, "[keys]: add_key fails with EPERM");
	TAP_EQ(cap_run1(skel, Y, probe_join_session, NULL), EPERM,
	       "[keys]: joining a new session key ring fails with EPERM");
	TAP_EQ(cap_run1(skel, Y, probe_request_key, NULL), ENOKEY,
	       "[keys]: request_key does not find the secret (ENOKEY)");
	TAP_EQ(cap_run1(skel, N, probe_add_key, NULL), 0, "[net]: add_key works");
	TAP_EQ(cap_run1(skel, N, probe_session_to_parent, NULL), EPERM,
	       "[net]: KEYCTL_SESSION_TO_PARENT to the unrestricted parent fails with EPERM");
	/* Also inside the domain: the kernel reads the parent again after the check, and
	 * a parent that exited by then has become a subreaper outside it. */
	TAP_EQ(cap_run1(skel, N, probe_session_to_parent, (void *)1), EPERM,
	       "[net]: KEYCTL_SESSION_TO_PARENT to a parent inside the domain fails with EPERM");
	/* A permissive "keys" records and allows, but the scope's rule still holds. */
	TAP_OK(P, "setup: a permissive layer with keys");
	TAP_EQ(cap_run1(skel, P, probe_read_secret_by_id, NULL), 0,
	       "[keys, permissive]: reading the secret by its id works (recorded only)");
	TAP_EQ(cap_run1(skel, P, probe_session_to_parent, NULL), EPERM,
	       "[keys, permissive]: KEYCTL_SESSION_TO_PARENT to the unrestricted parent still fails "
	       "with EPERM (the scope)");
	/* Last: it gives this test a new session key ring. */
	TAP_EQ(cap_run1(skel, 0, probe_session_to_parent, NULL), 0,
	       "unrestricted: KEYCTL_SESSION_TO_PARENT works");
}

static bool setup(void)
{
	static const char zeros[64];
	char cmd[256];
	int fd;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    !mkdtemp(base) || mount("none", base, "tmpfs", 0, NULL) < 0)
		return false;
	snprintf(mnt, sizeof(mnt), "%s/mnt", base);
	snprintf(umnt, sizeof(umnt), "%s/umnt", base);
	snprintf(pivot, sizeof(pivot), "%s/pivot", base);
	snprintf(pivot_new, sizeof(pivot_new), "%s/pivot/new", base);
	snprintf(module_file, sizeof(module_file), "%s/bogus.ko", base);
	snprintf(plain_file, sizeof(plain_file), "%s/file", base);
	snprintf(suid_file, sizeof(suid_file), "%s/id-suid", base);
	if (mkdir(mnt, 0755) < 0 || mkdir(umnt, 0755) < 0 ||
	    mount("none", umnt, "tmpfs", 0, NULL) < 0 || mkdir(pivot, 0755) < 0 ||
	    mount("none", pivot, "tmpfs", 0, NULL) < 0 || mkdir(pivot_new, 0755) < 0 ||
	    mount("none", pivot_new, "tmpfs", 0, NULL) < 0)
		return false;
	strcat(pivot_new, "/old");
	if (mkdir(pivot_new, 0755) < 0)
		return false;
	fd = open(module_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, zeros, sizeof(zeros)) != sizeof(zeros))
		return false;
	close(fd);
	fd = open(plain_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	close(fd);
	/* A set-user-ID copy of id(1), owned by nobody. */
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/id %s && chown 65534 %s && chmod 4755 %s",
		 suid_file, suid_file, suid_file);
	return system(cmd) == 0;
}

static void cap_system(struct umbrella_bpf *skel)
{
	__u32 M, K, I, R, C, A, Y, N, parsed;

	M = cap_layer(skel, UMB_CR_MOUNT, 0);
	K = cap_layer(skel, UMB_CR_MODULE, 0);
	I = cap_layer(skel, UMB_CR_SETID, 0);
	R = cap_layer(skel, 0, 1ULL << CAP_NET_RAW);
	C = cap_layer(skel, 0, 1ULL << CAP_CHOWN);
	A = cap_layer(skel, 0, 1ULL << CAP_SYS_ADMIN);
	Y = cap_layer(skel, UMB_CR_KEYS, 0);
	N = cap_layer(skel, UMB_CR_NET, 0);
	if (!TAP_OK(M && K && I && R && C && A && Y && N, "layers are written (system)") ||
	    !TAP_OK(setup(), "a scratch tmpfs in a private mount namespace is set up"))
		return;

	/* mount */
	TAP_EQ(cap_run1(skel, M, probe_mount, NULL), EPERM,
	       "[mount]: mount(tmpfs) fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_bind, NULL), EPERM, "[mount]: bind mount fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_remount, NULL), EPERM, "[mount]: remount fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_propagation, NULL), EPERM,
	       "[mount]: MS_PRIVATE fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_umount, NULL), EPERM, "[mount]: umount2 fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_pivot_root, NULL), EPERM,
	       "[mount]: pivot_root fails with EPERM");
	TAP_EQ(cap_run1(skel, M, probe_new_mount_api, NULL), EPERM,
	       "[mount]: fsopen/fsmount work, move_mount fails with EPERM");
	TAP_EQ(cap_run1(skel, K, probe_mount, NULL), 0, "[module]: mount(tmpfs) works");
	TAP_EQ(cap_run1(skel, 0, probe_mount, NULL), 0, "unrestricted: mount(tmpfs) works");
	TAP_EQ(cap_run1(skel, 0, probe_bind, NULL), 0, "unrestricted: bind mount works");
	TAP_EQ(cap_run1(skel, 0, probe_remount, NULL), 0, "unrestricted: remount works");
	TAP_EQ(cap_run1(skel, 0, probe_propagation, NULL), 0, "unrestricted: MS_PRIVATE works");
	TAP_EQ(cap_run1(skel, 0, probe_umount, NULL), 0, "unrestricted: umount2 works");
	TAP_EQ(cap_run1(skel, 0, probe_pivot_root, NULL), 0, "unrestricted: pivot_root works");
	TAP_EQ(cap_run1(skel, 0, probe_new_mount_api, NULL), 0,
	       "unrestricted: fsopen/fsmount/move_mount work");

	/* module */
	TAP_EQ(cap_run1(skel, K, probe_finit_module, NULL), EPERM,
	       "[module]: finit_module fails with EPERM");
	TAP_EQ(cap_run1(skel, K, probe_init_module, NULL), EPERM,
	       "[module]: init_module fails with EPERM");
	{
		int finit = cap_run1(skel, 0, probe_finit_module, NULL);
		int init = cap_run1(skel, 0, probe_init_module, NULL);

		TAP_OK(finit != 0 && finit != EPERM && finit != PROBE_SETUP_FAILED,
		       "unrestricted: finit_module of a bogus file fails, not with EPERM (%s)",
		       strerror(finit));
		TAP_OK(init != 0 && init != EPERM && init != PROBE_SETUP_FAILED,
		       "unrestricted: init_module of a bogus image fails, not with EPERM (%s)",
		       strerror(init));
	}

	/* setid */
	TAP_EQ(cap_run1(skel, I, probe_setuid, NULL), EPERM, "[setid]: setuid fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_setresuid, NULL), EPERM,
	       "[setid]: setresuid fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_setgid, NULL), EPERM, "[setid]: setgid fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_setresgid, NULL), EPERM,
	       "[setid]: setresgid fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_setgroups, NULL), EPERM,
	       "[setid]: setgroups fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_exec, suid_file), EPERM,
	       "[setid]: exec of a set-user-ID program fails with EPERM");
	TAP_EQ(cap_run1(skel, I, probe_setuid_same, NULL), 0,
	       "[setid]: setuid(0) as root (no change) works");
	TAP_EQ(cap_run1(skel, I, probe_exec, "/usr/bin/id"), 0,
	       "[setid]: exec of an ordinary program works");
	TAP_EQ(cap_run1(skel, 0, probe_setuid, NULL), 0, "unrestricted: setuid works");
	TAP_EQ(cap_run1(skel, 0, probe_setresgid, NULL), 0, "unrestricted: setresgid works");
	TAP_EQ(cap_run1(skel, 0, probe_setgroups, NULL), 0, "unrestricted: setgroups works");
	TAP_EQ(cap_run1(skel, M, probe_setuid, NULL), 0, "[mount]: setuid works");
	TAP_EQ(cap_run1(skel, 0, probe_exec, suid_file), 0,
	       "unrestricted: exec of a set-user-ID program works");

	/* cap:NAME */
	TAP_EQ(cap_run1(skel, R, probe_raw_socket, NULL), EPERM,
	       "[cap:net_raw]: socket(AF_INET, SOCK_RAW) fails with EPERM");
	TAP_EQ(cap_run1(skel, R, probe_chown, NULL), 0, "[cap:net_raw]: chown works");
	TAP_EQ(cap_run1(skel, C, probe_chown, NULL), EPERM,
	       "[cap:chown]: chown to another user fails with EPERM");
	TAP_EQ(cap_run1(skel, C, probe_raw_socket, NULL), 0, "[cap:chown]: raw socket works");
	TAP_EQ(cap_run1(skel, A, probe_sethostname, NULL), EPERM,
	       "[cap:sys_admin]: unshare(CLONE_NEWUTS), sethostname fails with EPERM");
	TAP_EQ(cap_run1(skel, 0, probe_raw_socket, NULL), 0, "unrestricted: raw socket works");
	TAP_EQ(cap_run1(skel, 0, probe_chown, NULL), 0, "unrestricted: chown works");
	TAP_EQ(cap_run1(skel, 0, probe_sethostname, NULL), 0,
	       "unrestricted: unshare(CLONE_NEWUTS), sethostname works");
	parsed = test_layer(skel, "cap:net_raw");
	TAP_EQ(parsed ? cap_run1(skel, parsed, probe_raw_socket, NULL) : -1, EPERM,
	       "a layer parsed from \"cap:net_raw\": raw socket fails with EPERM");
	check_keys(skel, Y, N);
}
