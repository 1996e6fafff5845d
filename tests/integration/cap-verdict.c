// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-cap (test-cap.c, one load of the BPF object for its parts): the
 * BPF side of signed binaries (bpf/exec.bpf.c, lib/verdict.bpf.h, the verdict parts of
 * file.bpf.c), without umbrellad: the test writes the verdicts into umb_verdicts itself
 * (key: a file descriptor of the file), as the exec gate would.
 *
 * Checked with the errnos of real execve(2), mmap(2) and mprotect(2) calls, each next
 * to a control: REFUSED is denied for every task, in permissive mode too; under
 * exec-unsigned only a valid SIGNED verdict runs (not UNSIGNED, PENDING, none, or one
 * of an old epoch), also for the interpreter of a #! script, and only such a file may
 * be mapped executable; UMB_CTL_UNSIGNED_DENY denies a miss for an unrestricted task;
 * a SIGNED verdict's layer is pushed at exec (a copy of cat that cannot read
 * /etc/passwd while the same binary without the layer can), and an exec whose layer
 * would not fit is refused; a write open, truncate, chmod, utimes,
 * setxattr and removexattr each delete the verdict and report it on umb_invalidated.
 *
 * The binaries are copies of the static busybox on tmpfs: under exec-unsigned the
 * kernel's mapping of a dynamic binary's ld.so would need a verdict too.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>

#include <umbrella/kdev.h>

#include "cap-test.h"
#include "copy-file.h"

#define VERDICT_DIR "/tmp/umb-verdict"
#define BUSYBOX	    "/usr/bin/busybox"

static struct umbrella_bpf *verdict_skel;

/* --- files and verdicts --- */

/* A copy of busybox at VERDICT_DIR/@name. Returns 0 or -errno. */
static int make_binary(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), VERDICT_DIR "/%s", name);
	return copy_file(BUSYBOX, path, 0755);
}

static const char *path_of(const char *name)
{
	static char path[4][256];
	static unsigned next;
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), VERDICT_DIR "/%s", name);
	return p;
}

/* Writes the verdict (@state, @layer, @epoch) of VERDICT_DIR/@name with @flags (BPF_ANY,
 * BPF_EXIST). Returns 0 or -errno. */
static int set_verdict_flags(const char *name, __u32 state, __u32 layer, __u32 epoch, __u64 flags)
{
	struct umb_verdict v = { .state = state, .layer = layer, .epoch = epoch };
	int fd = open(path_of(name), O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = bpf_map_update_elem(bpf_map__fd(verdict_skel->maps.umb_verdicts), &fd, &v, flags);
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

static int set_verdict(const char *name, __u32 state, __u32 layer)
{
	return set_verdict_flags(name, state, layer, 0, BPF_ANY);
}

/* Whether VERDICT_DIR/@name has a verdict (valid or not): 0, -ENOENT, or another -errno. */
static int get_verdict(const char *name, struct umb_verdict *v)
{
	int fd = open(path_of(name), O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = bpf_map_lookup_elem(bpf_map__fd(verdict_skel->maps.umb_verdicts), &fd, v);
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Changes umb_ctl: flags set and cleared, and the verdict epoch. */
static int set_ctl(__u32 set, __u32 clear, __u32 epoch)
{
	struct umb_ctl ctl;
	int fd = bpf_map__fd(verdict_skel->maps.umb_ctl), r;

	r = state_ctl_read(fd, &ctl);
	if (r < 0)
		return r;
	ctl.flags = (ctl.flags | set) & ~clear;
	ctl.verdict_epoch = epoch;
	return state_ctl_update(fd, STATE_CTL_FLAGS | STATE_CTL_EPOCH, &ctl);
}

/* --- invalidation records --- */

struct inval_query {
	__u32 dev;
	__u64 ino;
	unsigned found;
};

static int inval_match(void *ctx, void *data, size_t size)
{
	struct inval_query *q = ctx;
	const struct umb_invalidation *rec = data;

	if (size >= sizeof(*rec) && rec->inode.dev == q->dev && rec->inode.ino == q->ino)
		q->found++;
	return 0;
}

/* Drains umb_invalidated: how many records name VERDICT_DIR/@name. */
static unsigned invalidations_of(const char *name)
{
	struct inval_query q = {};
	struct ring_buffer *rb;
	struct stat st;

	if (stat(path_of(name), &st) < 0)
		return 0;
	q.dev = umb_kdev(st.st_dev);
	q.ino = st.st_ino;
	rb = ring_buffer__new(bpf_map__fd(verdict_skel->maps.umb_invalidated), inval_match, &q,
			      NULL);
	if (!rb)
		return 0;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return q.found;
}

/* --- probes --- */

/* execv(VERDICT_DIR/name, {"true"}): 0 when it ran (busybox true exits 0), else the errno. */
static int probe_exec_named(void *arg)
{
	execl(path_of(arg), "true", (char *)NULL);
	return errno;
}

/* Runs VERDICT_DIR/name as "cat /etc/passwd" with stderr into VERDICT_DIR/cat.err; returns cat's
 * status (0: it read the file) or the errno of the exec. */
static int probe_cat(void *arg)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int err = open(VERDICT_DIR "/cat.err", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (null < 0 || err < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
		return PROBE_SETUP_FAILED;
	execl(path_of(arg), "cat", "/etc/passwd", (char *)NULL);
	return errno;
}

/* Whether the last probe_cat() was refused the file (cat's message). */
static bool cat_was_denied(void)
{
	char buf[512] = "";
	int fd = open(VERDICT_DIR "/cat.err", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n > 0)
		buf[n] = '\0';
	return strstr(buf, "Permission denied") != NULL;
}

/* mmap(PROT_READ | PROT_EXEC) of the first page of VERDICT_DIR/name: 0 or the errno. */
static int probe_mmap_exec(void *arg)
{
	int fd = open(path_of(arg), O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	return p == MAP_FAILED ? errno : 0;
}

/* mmap(PROT_READ) of VERDICT_DIR/name, then mprotect(PROT_READ | PROT_EXEC): 0 or the errno of
 * mprotect. */
static int probe_mprotect_exec(void *arg)
{
	int fd = open(path_of(arg), O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return PROBE_SETUP_FAILED;
	return cap_errno(mprotect(p, 4096, PROT_READ | PROT_EXEC));
}

/* --- the checks --- */

static void test_refused(__u32 U)
{
	TAP_EQ(set_verdict("refused", UMB_VERDICT_REFUSED, 0), 0, "a REFUSED verdict is written");
	TAP_EQ(set_verdict("signed", UMB_VERDICT_SIGNED, 0), 0, "a SIGNED verdict is written");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "plain"), 0,
	       "unrestricted: a file without a verdict runs (control)");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "refused"), EPERM,
	       "unrestricted: a REFUSED file fails with EPERM");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_BPRM_CHECK_SECURITY, 0, UMB_VERDICT_REFUSED,
			      0),
	       "the refusal is recorded (bprm_check_security, UMB_ITEM_VERDICT REFUSED)");

	TAP_EQ(set_ctl(UMB_CTL_PERMISSIVE, 0, 0), 0, "permissive mode is set");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "refused"), EPERM,
	       "permissive: a REFUSED file still fails with EPERM");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "missing"), 0,
	       "permissive: [exec-unsigned] runs a file without a verdict (only recorded)");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_BPRM_CHECK_SECURITY, U, 0, 0),
	       "permissive: the miss under [exec-unsigned] is recorded, with its layer");
	TAP_EQ(set_ctl(0, UMB_CTL_PERMISSIVE, 0), 0, "permissive mode is cleared");
}

static void test_exec_unsigned(__u32 U, __u32 N)
{
	TAP_EQ(set_verdict("unsigned", UMB_VERDICT_UNSIGNED, 0), 0,
	       "an UNSIGNED verdict is written");
	TAP_EQ(set_verdict("pending", UMB_VERDICT_PENDING, 0), 0, "a PENDING verdict is written");
	TAP_EQ(set_verdict_flags("old", UMB_VERDICT_SIGNED, 0, 5, BPF_ANY), 0,
	       "a SIGNED verdict of epoch 5 is written (umb_ctl's is 0)");

	TAP_EQ(cap_run1(verdict_skel, N, probe_exec_named, "missing"), 0,
	       "[net]: a file without a verdict runs");
	TAP_EQ(cap_run1(verdict_skel, N, probe_exec_named, "unsigned"), 0,
	       "[net]: an UNSIGNED file runs");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "signed"), 0,
	       "[exec-unsigned]: a SIGNED file runs");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "unsigned"), EPERM,
	       "[exec-unsigned]: an UNSIGNED file fails with EPERM");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_BPRM_CHECK_SECURITY, U, UMB_VERDICT_UNSIGNED,
			      0),
	       "[exec-unsigned]: the denial is recorded with the layer and UNSIGNED");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "missing"), EPERM,
	       "[exec-unsigned]: a file without a verdict fails with EPERM");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "pending"), EPERM,
	       "[exec-unsigned]: a PENDING file fails with EPERM");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "old"), EPERM,
	       "[exec-unsigned]: a SIGNED verdict of an old epoch fails with EPERM");
	TAP_EQ(set_ctl(0, 0, 5), 0, "umb_ctl's verdict epoch is 5");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "old"), 0,
	       "[exec-unsigned]: the same verdict runs under its epoch");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "signed"), EPERM,
	       "[exec-unsigned]: a SIGNED verdict of epoch 0 now fails with EPERM");
	TAP_EQ(set_ctl(0, 0, 0), 0, "umb_ctl's verdict epoch is 0 again");

	/* #! script: the script is signed, its interpreter (a busybox sh) is not. */
	TAP_EQ(set_verdict("script", UMB_VERDICT_SIGNED, 0), 0, "the script has a SIGNED verdict");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "script"), EPERM,
	       "[exec-unsigned]: a signed script whose interpreter has no verdict fails with EPERM");
	TAP_EQ(set_verdict("sh", UMB_VERDICT_SIGNED, 0), 0,
	       "the interpreter gets a SIGNED verdict");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "script"), 0,
	       "[exec-unsigned]: the signed script with a signed interpreter runs (control)");
	TAP_EQ(set_verdict("script", UMB_VERDICT_UNSIGNED, 0), 0, "the script becomes UNSIGNED");
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, "script"), EPERM,
	       "[exec-unsigned]: an unsigned script with a signed interpreter fails with EPERM");

	/* The system-wide mode. */
	TAP_EQ(set_ctl(UMB_CTL_UNSIGNED_DENY, 0, 0), 0, "UMB_CTL_UNSIGNED_DENY is set");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "signed"), 0,
	       "unsigned=deny: a SIGNED file runs");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "missing"), EPERM,
	       "unsigned=deny: unrestricted, a file without a verdict fails with EPERM");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "unsigned"), EPERM,
	       "unsigned=deny: unrestricted, an UNSIGNED file fails with EPERM");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_BPRM_CHECK_SECURITY, 0, UMB_VERDICT_UNSIGNED,
			      0),
	       "unsigned=deny: the denial is recorded without a layer");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_mmap_exec, "missing"), 0,
	       "unsigned=deny: unrestricted, mmap(PROT_EXEC) of a file without verdict works "
	       "(exec only)");
	TAP_EQ(set_ctl(0, UMB_CTL_UNSIGNED_DENY, 0), 0, "UMB_CTL_UNSIGNED_DENY is cleared");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "missing"), 0,
	       "unsigned=allow: unrestricted, a file without a verdict runs again");
}

static void test_mmap(__u32 U, __u32 N)
{
	TAP_EQ(cap_run1(verdict_skel, N, probe_mmap_exec, "missing"), 0,
	       "[net]: mmap(PROT_EXEC) of a file without a verdict works");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mmap_exec, "signed"), 0,
	       "[exec-unsigned]: mmap(PROT_EXEC) of a SIGNED file works");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mmap_exec, "missing"), EPERM,
	       "[exec-unsigned]: mmap(PROT_EXEC) of a file without a verdict fails with EPERM");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_MMAP_FILE, U, 0, 0),
	       "[exec-unsigned]: the mmap denial is recorded");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mmap_exec, "unsigned"), EPERM,
	       "[exec-unsigned]: mmap(PROT_EXEC) of an UNSIGNED file fails with EPERM");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mprotect_exec, "signed"), 0,
	       "[exec-unsigned]: mprotect(PROT_EXEC) of a SIGNED file's mapping works");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mprotect_exec, "missing"), EPERM,
	       "[exec-unsigned]: mprotect(PROT_EXEC) of a mapping of a file without a verdict "
	       "fails with EPERM");
}

static void test_layer_push(__u32 U, __u32 N)
{
	__u32 P = test_layer(verdict_skel, "fs:/etc/passwd"), full[UMB_MAX_LAYERS], both[2];
	int r;

	if (!TAP_OK(P, "a layer denying fs:/etc/passwd is installed"))
		return;
	TAP_EQ(set_verdict("cat-layer", UMB_VERDICT_SIGNED, P), 0,
	       "cat-layer gets a SIGNED verdict with that layer");
	TAP_EQ(set_verdict("cat-plain", UMB_VERDICT_SIGNED, 0), 0,
	       "cat-plain (the same binary) gets a SIGNED verdict without a layer");

	r = cap_run1(verdict_skel, 0, probe_cat, "cat-plain");
	TAP_EQ(r, 0, "unrestricted: cat-plain reads /etc/passwd (control)");
	r = cap_run1(verdict_skel, 0, probe_cat, "cat-layer");
	TAP_EQ(r, 1, "unrestricted: cat-layer runs and cannot read /etc/passwd (exit 1)");
	TAP_OK(cat_was_denied(), "cat-layer: its open of /etc/passwd was denied (EACCES)");
	TAP_OK(cap_find_event(verdict_skel, UMB_HOOK_FILE_OPEN, P, UMB_FS_READ, 0),
	       "the denial is recorded with the binary's layer");
	r = cap_run1(verdict_skel, N, probe_cat, "cat-layer");
	TAP_EQ(r, 1, "[net]: cat-layer cannot read /etc/passwd either (pushed on a stack)");
	r = cap_run1(verdict_skel, N, probe_cat, "cat-plain");
	TAP_EQ(r, 0, "[net]: cat-plain reads /etc/passwd (control)");

	/* Mapped rather than exec'd (ld.so ./cat-layer): only with the layer. */
	both[0] = U;
	both[1] = P;
	TAP_EQ(cap_run1(verdict_skel, U, probe_mmap_exec, "cat-plain"), 0,
	       "[exec-unsigned]: mmap(PROT_EXEC) of a SIGNED file without a layer works (control)");
	TAP_EQ(cap_run1(verdict_skel, U, probe_mmap_exec, "cat-layer"), EPERM,
	       "[exec-unsigned]: mmap(PROT_EXEC) of a SIGNED file whose layer the task lacks "
	       "fails with EPERM");
	TAP_EQ(cap_run(verdict_skel, both, 2, probe_mmap_exec, "cat-layer"), 0,
	       "[exec-unsigned, its layer]: mmap(PROT_EXEC) of that file works");

	/* A full stack: the exec must fail, not run without the layer. */
	for (unsigned i = 0; i < UMB_MAX_LAYERS; i++)
		full[i] = N;
	TAP_EQ(cap_run(verdict_skel, full, UMB_MAX_LAYERS, probe_exec_named, "cat-plain"), 0,
	       "16 layers: a SIGNED file without a layer runs (control)");
	TAP_EQ(cap_run(verdict_skel, full, UMB_MAX_LAYERS, probe_exec_named, "cat-layer"), EPERM,
	       "16 layers: a SIGNED file whose layer does not fit fails with EPERM");
	TAP_EQ(cap_run(verdict_skel, full, UMB_MAX_LAYERS - 1, probe_cat, "cat-layer"), 1,
	       "15 layers: cat-layer runs with its layer as the 16th");
	full[UMB_MAX_LAYERS - 1] = P;
	TAP_EQ(cap_run(verdict_skel, full, UMB_MAX_LAYERS, probe_cat, "cat-layer"), 1,
	       "16 layers, the top one cat-layer's: cat-layer runs (the layer is not pushed twice) "
	       "and cannot read /etc/passwd");

	TAP_EQ(set_verdict("cat-layer", UMB_VERDICT_SIGNED, 999999), 0,
	       "cat-layer's verdict names a layer that does not exist");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, "cat-layer"), EPERM,
	       "a SIGNED file whose layer does not exist fails with EPERM");
}

/* Writes a SIGNED verdict on VERDICT_DIR/@name, checks that @change deletes it, reports it,
 * and that exec under [exec-unsigned] then fails. */
static void check_invalidation(__u32 U, const char *name, const char *what, int (*change)(void))
{
	struct umb_verdict v;

	(void)invalidations_of(name); /* drain */
	if (!TAP_EQ(set_verdict(name, UMB_VERDICT_SIGNED, 0), 0, "%s: a SIGNED verdict", what))
		return;
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, (void *)name), 0,
	       "%s: [exec-unsigned] runs the file before (control)", what);
	TAP_EQ(get_verdict(name, &v), 0, "%s: the verdict is there after exec and reads", what);
	TAP_EQ(change(), 0, "%s: the change is made", what);
	TAP_OK(get_verdict(name, &v) == 0 && v.state == UMB_VERDICT_STALE,
	       "%s: the SIGNED verdict is now STALE", what);
	TAP_EQ(invalidations_of(name), 1, "%s: one umb_invalidated record names the inode", what);
	TAP_EQ(cap_run1(verdict_skel, U, probe_exec_named, (void *)name), EPERM,
	       "%s: [exec-unsigned] exec then fails with EPERM", what);
	TAP_EQ(cap_run1(verdict_skel, 0, probe_exec_named, (void *)name), EPERM,
	       "%s: [unrestricted] STALE is refused too, until verified again", what);
}

static int change_open_write(void)
{
	int fd = open(path_of("inval"), O_WRONLY | O_CLOEXEC);

	return fd < 0 ? -errno : close(fd);
}

static int change_truncate(void)
{
	struct stat st;

	if (stat(path_of("inval"), &st) < 0)
		return -errno;
	return truncate(path_of("inval"), st.st_size) < 0 ? -errno : 0;
}

static int change_chmod(void)
{
	return chmod(path_of("inval"), 0755) < 0 ? -errno : 0;
}

static int change_utimes(void)
{
	return utimes(path_of("inval"), NULL) < 0 ? -errno : 0;
}

static int change_setxattr(void)
{
	return setxattr(path_of("inval"), "trusted.umb-test", "1", 1, 0) < 0 ? -errno : 0;
}

static int change_removexattr(void)
{
	return removexattr(path_of("inval"), "trusted.umb-test") < 0 ? -errno : 0;
}

static void test_invalidation(__u32 U)
{
	struct umb_verdict v;
	int writer;

	check_invalidation(U, "inval", "open for writing", change_open_write);
	check_invalidation(U, "inval", "truncate(2) to its own size", change_truncate);
	check_invalidation(U, "inval", "chmod to the same mode", change_chmod);
	check_invalidation(U, "inval", "utimes", change_utimes);
	check_invalidation(U, "inval", "setxattr", change_setxattr);
	check_invalidation(U, "inval", "removexattr", change_removexattr);

	/* Reads leave it alone. */
	TAP_EQ(set_verdict("inval", UMB_VERDICT_SIGNED, 0), 0, "reads: a SIGNED verdict");
	TAP_EQ(cap_run1(verdict_skel, 0, probe_mmap_exec, "inval"), 0, "reads: the file is mapped");
	TAP_EQ(get_verdict("inval", &v), 0, "reads: open for reading, exec, mmap keep the verdict");
	TAP_EQ(invalidations_of("inval"), 0, "reads: no umb_invalidated record");

	/* The PENDING protocol: a writer opening during verification deletes PENDING,
	 * and the final BPF_EXIST update fails. */
	TAP_EQ(set_verdict_flags("inval", UMB_VERDICT_PENDING, 0, 0, BPF_ANY), 0,
	       "no writer: PENDING is written");
	TAP_EQ(set_verdict_flags("inval", UMB_VERDICT_SIGNED, 0, 0, BPF_EXIST), 0,
	       "no writer: the final verdict replaces PENDING with BPF_EXIST (control)");
	(void)invalidations_of("inval");
	TAP_EQ(set_verdict_flags("inval", UMB_VERDICT_PENDING, 0, 0, BPF_ANY), 0,
	       "PENDING is written again");
	writer = open(path_of("inval"), O_WRONLY | O_CLOEXEC);
	TAP_OK(writer >= 0, "a writer opens the file during verification");
	TAP_EQ(set_verdict_flags("inval", UMB_VERDICT_SIGNED, 0, 0, BPF_EXIST), -ENOENT,
	       "writer opened meanwhile: the final BPF_EXIST update fails with ENOENT");
	TAP_EQ(invalidations_of("inval"), 1, "the delete is reported on umb_invalidated");

	/* A writer already open when verification begins: umbrellad's read lease fails
	 * (the kernel's answer it relies on), so it caches nothing. */
	{
		int reader = open(path_of("inval"), O_RDONLY | O_CLOEXEC);

		TAP_EQ(fcntl(reader, F_SETLEASE, F_RDLCK) ? -errno : 0, -EAGAIN,
		       "writer open: a read lease fails with EAGAIN");
		TAP_EQ(close(writer), 0, "the writer closes the file");
		TAP_EQ(fcntl(reader, F_SETLEASE, F_RDLCK) ? -errno : 0, 0,
		       "no writer: the read lease is granted (control)");
		TAP_EQ(fcntl(reader, F_SETLEASE, F_UNLCK) ? -errno : 0, 0, "and released");
		close(reader);
	}
}

static int verdict_setup(void)
{
	static const char *const binaries[] = { "plain",     "signed",	  "unsigned", "missing",
						"refused",   "pending",	  "old",      "sh",
						"cat-layer", "cat-plain", "inval" };
	int fd;

	if (mkdir(VERDICT_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	for (size_t i = 0; i < ARRAY_SIZE(binaries); i++)
		if (make_binary(binaries[i]) < 0)
			return -errno;
	fd = open(VERDICT_DIR "/script", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		return -errno;
	if (dprintf(fd, "#!" VERDICT_DIR "/sh\nexit 0\n") < 0) {
		close(fd);
		return -EIO;
	}
	return close(fd);
}

static void cap_verdict(struct umbrella_bpf *skel)
{
	__u32 U, N;

	verdict_skel = skel;
	if (!TAP_EQ(verdict_setup(), 0, "busybox copies in " VERDICT_DIR))
		goto out;
	U = cap_layer(verdict_skel, UMB_CR_EXEC_UNSIGNED, 0);
	N = cap_layer(verdict_skel, UMB_CR_NET, 0);
	if (!TAP_OK(U && N, "layers are written"))
		goto out;

	test_refused(U);
	test_exec_unsigned(U, N);
	test_mmap(U, N);
	test_layer_push(U, N);
	test_invalidation(U);
out:
	set_ctl(0, UMB_CTL_PERMISSIVE | UMB_CTL_UNSIGNED_DENY, 0);
}
