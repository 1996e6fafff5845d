// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-fs (test-fs.c, one load of the BPF object for its four parts):
 * running restricted files - execve, execveat, fexecve, mmap(PROT_EXEC) and
 * mprotect(PROT_EXEC), the dynamic loader run on a restricted binary (ld.so ./binary), and
 * scripts, directly and through an interpreter.
 *
 * What each mode denies:
 *   x  every exec of the file (the kernel opens it with FMODE_EXEC) and every mapping
 *      of it with PROT_EXEC (so ld.so ./binary fails); an interpreter may still read a
 *      script (sh ./script runs it: that is reading).
 *   r  reading: sh ./script and ld.so ./binary fail (they read the file); a direct
 *      exec of a binary works, a direct exec of a script fails when the interpreter
 *      opens it.
 *   (all) both.
 * Runs as root inside the test VM (tests/vm/run).
 */
#include <sys/mman.h>

#include "test-fs-util.h"

#define LD_SO "/lib64/ld-linux-x86-64.so.2"

static char exec_dir[PATH_MAX]; /* the scratch tmpfs */

/* execveat(dirfd of path, path2, 0). */
static int probe_execveat(void *arg)
{
	const struct fs_op *op = arg;
	char *argv[] = { (char *)op->path2, NULL }, *envp[] = { NULL };
	int dirfd = open(op->path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0)
		return PROBE_SETUP_FAILED;
	syscall(SYS_execveat, dirfd, op->path2, argv, envp, 0);
	return errno;
}

/* fexecve() of an fd of path opened with flags (O_RDONLY or O_PATH). */
static int probe_fexecve(void *arg)
{
	const struct fs_op *op = arg;
	char *argv[] = { (char *)op->path, NULL }, *envp[] = { NULL };
	int fd = open(op->path, op->flags | O_CLOEXEC);

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	if (op->flags & O_PATH)
		syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	else
		fexecve(fd, argv, envp);
	return errno;
}

/* mmap(path, PROT_READ | flags) of the first page, private. */
static int probe_mmap(void *arg)
{
	const struct fs_op *op = arg;
	int fd = open(op->path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	p = mmap(NULL, 4096, PROT_READ | op->flags, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return errno;
	munmap(p, 4096);
	return 0;
}

/* mmap(path, PROT_READ), then mprotect(PROT_READ | PROT_EXEC). */
static int probe_mprotect(void *arg)
{
	const struct fs_op *op = arg;
	int fd = open(op->path, O_RDONLY | O_CLOEXEC), r;
	void *p;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return PROBE_SETUP_FAILED;
	r = mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0 ? errno : 0;
	munmap(p, 4096);
	return r;
}

/* Runs program path (with argument path2) quietly: its exit status, or exec's errno. */
static int probe_run_quiet(void *arg)
{
	int null = open("/dev/null", O_WRONLY);

	if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		return PROBE_SETUP_FAILED;
	return probe_exec(arg);
}

static void test_exec(struct umbrella_bpf *skel, __u32 x, __u32 all, __u32 rd)
{
	const char *prog = fs_path("%s/x/true", exec_dir), *ok = fs_path("%s/ok/true", exec_dir);

	TAP_EQ(test_probe(skel, 0, probe_exec, OP(prog)), 0, "unrestricted: running x/true works");
	TAP_EQ(test_probe(skel, x, probe_exec, OP(prog)), EACCES,
	       "fs:x:x: execve(x/true) fails with EACCES");
	TAP_EQ(test_probe(skel, all, probe_exec, OP(prog)), EACCES,
	       "fs:x: execve(x/true) fails with EACCES");
	TAP_EQ(test_probe(skel, rd, probe_exec, OP(prog)), 0, "fs:x:r: execve(x/true) works");
	TAP_EQ(test_probe(skel, x, probe_exec, OP(ok)), 0, "fs:x:x: execve(ok/true) works");

	TAP_EQ(test_probe(skel, x, probe_execveat, OP(fs_path("%s/x", exec_dir), .path2 = "true")),
	       EACCES, "fs:x:x: execveat(dirfd of x, \"true\") fails with EACCES");
	TAP_EQ(test_probe(skel, x, probe_execveat, OP(fs_path("%s/ok", exec_dir), .path2 = "true")),
	       0, "fs:x:x: execveat(dirfd of ok, \"true\") works");
	TAP_EQ(test_probe(skel, x, probe_fexecve, OP(prog, .flags = O_RDONLY)), EACCES,
	       "fs:x:x: fexecve() of an O_RDONLY fd of x/true fails with EACCES");
	TAP_EQ(test_probe(skel, all, probe_fexecve, OP(prog, .flags = O_PATH)), EACCES,
	       "fs:x: execveat(AT_EMPTY_PATH) of an O_PATH fd of x/true fails with EACCES");
	TAP_EQ(test_probe(skel, x, probe_fexecve, OP(ok, .flags = O_RDONLY)), 0,
	       "fs:x:x: fexecve() of an O_RDONLY fd of ok/true works");
	TAP_EQ(test_probe(skel, all, probe_fexecve, OP(ok, .flags = O_PATH)), 0,
	       "fs:x: execveat(AT_EMPTY_PATH) of an O_PATH fd of ok/true works");
}

static void test_mmap(struct umbrella_bpf *skel, __u32 x)
{
	const char *prog = fs_path("%s/x/true", exec_dir), *ok = fs_path("%s/ok/true", exec_dir);

	TAP_EQ(test_probe(skel, x, probe_mmap, OP(prog)), 0,
	       "fs:x:x: mmap(x/true, PROT_READ) works");
	TAP_EQ(test_probe(skel, x, probe_mmap, OP(prog, .flags = PROT_EXEC)), EACCES,
	       "fs:x:x: mmap(x/true, PROT_EXEC) fails with EACCES");
	TAP_EQ(test_probe(skel, x, probe_mmap, OP(ok, .flags = PROT_EXEC)), 0,
	       "fs:x:x: mmap(ok/true, PROT_EXEC) works");
	TAP_EQ(test_probe(skel, x, probe_mprotect, OP(prog)), EACCES,
	       "fs:x:x: mprotect() adding PROT_EXEC to a mapping of x/true fails with EACCES");
	TAP_EQ(test_probe(skel, x, probe_mprotect, OP(ok)), 0,
	       "fs:x:x: mprotect() adding PROT_EXEC to a mapping of ok/true works");
}

static void test_loader(struct umbrella_bpf *skel, __u32 x, __u32 rd)
{
	const char *prog = fs_path("%s/x/true", exec_dir), *ok = fs_path("%s/ok/true", exec_dir);

	TAP_EQ(test_probe(skel, 0, probe_run_quiet, OP(LD_SO, .path2 = prog)), 0,
	       "unrestricted: ld.so x/true works");
	TAP_EQ(test_probe(skel, x, probe_run_quiet, OP(LD_SO, .path2 = prog)), 127,
	       "fs:x:x: ld.so x/true fails (ld.so cannot map it: exit 127)");
	TAP_EQ(test_probe(skel, rd, probe_run_quiet, OP(LD_SO, .path2 = prog)), 127,
	       "fs:x:r: ld.so x/true fails (ld.so cannot read it: exit 127)");
	TAP_EQ(test_probe(skel, x, probe_run_quiet, OP(LD_SO, .path2 = ok)), 0,
	       "fs:x:x: ld.so ok/true works");
}

static void test_scripts(struct umbrella_bpf *skel, __u32 x, __u32 all, __u32 rd)
{
	const char *script = fs_path("%s/x/s.sh", exec_dir), *ok = fs_path("%s/ok/s.sh", exec_dir);

	TAP_EQ(test_probe(skel, 0, probe_run_quiet, OP(script)), 0,
	       "unrestricted: running x/s.sh works");
	TAP_EQ(test_probe(skel, x, probe_run_quiet, OP(script)), EACCES,
	       "fs:x:x: execve(x/s.sh) fails with EACCES");
	TAP_EQ(test_probe(skel, x, probe_run_quiet, OP("/bin/sh", .path2 = script)), 0,
	       "fs:x:x: sh x/s.sh works (the interpreter only reads the script)");
	TAP_EQ(test_probe(skel, rd, probe_run_quiet, OP("/bin/sh", .path2 = script)), 2,
	       "fs:x:r: sh x/s.sh fails (sh cannot open the script: exit 2)");
	TAP_EQ(test_probe(skel, rd, probe_run_quiet, OP(script)), 2,
	       "fs:x:r: execve(x/s.sh) starts sh, which cannot open the script (exit 2)");
	TAP_EQ(test_probe(skel, all, probe_run_quiet, OP(script)), EACCES,
	       "fs:x: execve(x/s.sh) fails with EACCES");
	TAP_EQ(test_probe(skel, all, probe_run_quiet, OP("/bin/sh", .path2 = script)), 2,
	       "fs:x: sh x/s.sh fails (exit 2)");
	TAP_EQ(test_probe(skel, all, probe_run_quiet, OP(ok)), 0, "fs:x: running ok/s.sh works");
	TAP_EQ(test_probe(skel, all, probe_run_quiet, OP("/bin/sh", .path2 = ok)), 0,
	       "fs:x: sh ok/s.sh works");
}

static void fs_exec(struct umbrella_bpf *skel)
{
	static const char script[] = "#!/bin/sh\nexit 0\n";
	__u32 x, all, rd;

	if (!TAP_EQ(fs_scratch(exec_dir), 0, "a scratch tmpfs is mounted"))
		return;
	if (mkdir(fs_path("%s/x", exec_dir), 0755) < 0 ||
	    mkdir(fs_path("%s/ok", exec_dir), 0755) < 0 ||
	    fs_copy("/bin/true", fs_path("%s/x/true", exec_dir)) < 0 ||
	    fs_copy("/bin/true", fs_path("%s/ok/true", exec_dir)) < 0 ||
	    fs_write(fs_path("%s/x/s.sh", exec_dir), script, 0755) < 0 ||
	    fs_write(fs_path("%s/ok/s.sh", exec_dir), script, 0755) < 0) {
		TAP_OK(false, "the scratch files are created");
		goto out_scratch;
	}
	x = test_layer(skel, fs_path("fs:%s/x:x", exec_dir));
	all = test_layer(skel, fs_path("fs:%s/x", exec_dir));
	rd = test_layer(skel, fs_path("fs:%s/x:r", exec_dir));
	if (!TAP_OK(x && all && rd, "the layers fs:x:x, fs:x and fs:x:r are made"))
		goto out_scratch;

	test_exec(skel, x, all, rd);
	test_mmap(skel, x);
	test_loader(skel, x, rd);
	test_scripts(skel, x, all, rd);

out_scratch:
	fs_scratch_done(exec_dir);
}
