// SPDX-License-Identifier: GPL-2.0-only
/*
 * signed-bench - the phases of the signed-binary benchmark, marked for
 * ../shared/tools/insncount.c (tests/bench/run-signed-bench boots the VM; its in-guest
 * half, tests/bench/signed-bench.sh, starts umbrellad and prepares the files in DIR):
 *
 *   1 exec-unsigned   fork + exec + wait of DIR/true-unsigned (bench-true, a cached
 *                     UNSIGNED verdict)
 *   2 exec-signed     the same of DIR/true-signed (bench-true signed, no policy: a
 *                     cached SIGNED verdict)
 *   3 exec-policy     the same of DIR/true-policy (signed with one fs: item: the
 *                     verdict's layer is pushed at each exec)
 *   4 verify-10M      the first exec of DIR/big (bench-true with a 10 MiB section,
 *                     signed): each iteration execs a fresh copy (a new inode, never
 *                     verified: copied and renamed over DIR/big outside the marks), so
 *                     umbrellad reads and verifies it while the exec waits. The plugin
 *                     counts every instruction of the one vCPU, umbrellad's included.
 *   5 exec-10M        exec of DIR/big again (its verdict cached)
 *   6 sha256sum-10M   fork + exec + wait of "DIR/sha256sum DIR/big" (stdout to /dev/null)
 *   7 sha256sum-0     the same over an empty file: the process's own cost
 *   8 openssl-10M     "openssl dgst -sha256 DIR/big": the SHA-256 umbrellad uses (OpenSSL's
 *                     libcrypto; coreutils' sha256sum has its own)
 *   9 openssl-0       the same over an empty file
 *  10 exec-unsigned2  phase 1 again: how much the count drifts within one boot
 * A dynamically linked program and its closure (issue 15), in SIGLIBS (the directory
 * tests/integration/siglib-prog's PT_INTERP names: it, its library libumbsiglib.so,
 * libc.so.6 and ld.so, all signed there; skipped when SIGLIBS is "-"):
 *  11 dyn-unsigned    fork + exec + wait of SIGLIBS/prog-unsigned (siglib-prog unsigned,
 *                     mapping the same signed libraries: a cached UNSIGNED verdict)
 *  12 dyn-signed      the same of SIGLIBS/siglib-prog, signed (every verdict cached)
 *  13 verify-dyn      its first exec with its whole closure new: each iteration renames
 *                     fresh copies of the four files (SIGLIBS/pristine/) over them outside
 *                     the marks, so umbrellad verifies all four while the exec waits
 *  14 sha256sum-dyn   "sha256sum" over the same four files
 *
 * Phase P is marked with the tags 2P (open) and 2P + 1 (close); phase 4 once per
 * iteration (run-signed-bench adds them up). Output: "signed-bench-phase P NAME
 * ITERATIONS SECONDS" per phase.
 * Usage: signed-bench DIR EXEC_ITERATIONS BIG_ITERATIONS SIGLIBS
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "copy-file.h"
#include "time-util.h"

/* The 7-byte NOP "nopl 0x4d4255XX(%rax)" that insncount.so counts between. */
#define MARK(t)	 asm volatile(".byte 0x0f,0x1f,0x80,%c0,0x55,0x42,0x4d" ::"i"(t) : "memory")
#define OPEN(p)	 MARK(2 * (p))
#define CLOSE(p) MARK(2 * (p) + 1)

/* The closure of the dynamic program, as named in SIGLIBS and SIGLIBS/pristine. */
static const char *const closure[] = { "siglib-prog", "libumbsiglib.so", "libc.so.6",
				       "ld-linux-x86-64.so.2" };
#define CLOSURE_FILES (sizeof(closure) / sizeof(closure[0]))

static const char *dir, *siglibs;
static char closure_paths[CLOSURE_FILES][4096], path_dyn_unsigned[4096];
static char path_unsigned[4096], path_signed[4096], path_policy[4096], path_big[4096],
	path_big_src[4096], path_big_new[4096], path_sha[4096], path_empty[4096],
	path_openssl[4096];

/* fork, execv(@file, {@file, ARGS...}) (the arguments after @file, up to 7, end with a
 * NULL), wait. */
static int spawn(const char *file, ...)
{
	char *argv[9] = { (char *)file };
	size_t n = 1;
	va_list ap;
	int status;
	pid_t pid;

	va_start(ap, file);
	while (n < 8 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		execv(file, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "signed-bench: %s: exit status %d\n", file, status);
		return -ECHILD;
	}
	return 0;
}

/* A never verified copy of the big binary at path_big (a new inode). */
static int fresh_big(void)
{
	int r = copy_file(path_big_src, path_big_new, 0755);

	if (r == 0 && rename(path_big_new, path_big) < 0)
		r = -errno;
	return r;
}

/* A never verified copy of each file of the closure in @siglibs (new inodes). */
static int fresh_closure(const char *siglibs)
{
	char src[4096], tmp[4096], dst[4096];

	for (size_t i = 0; i < CLOSURE_FILES; i++) {
		snprintf(src, sizeof(src), "%s/pristine/%s", siglibs, closure[i]);
		snprintf(tmp, sizeof(tmp), "%s/%s.new", siglibs, closure[i]);
		snprintf(dst, sizeof(dst), "%s/%s", siglibs, closure[i]);
		int r = copy_file(src, tmp, 0755);

		if (r < 0)
			return r;
		if (rename(tmp, dst) < 0)
			return -errno;
	}
	return 0;
}

/* Seconds, for the reports. */
static double now(void)
{
	return (double)now_usec() / USEC_PER_SEC;
}

static void report(int phase, const char *name, unsigned int n, double start, int r)
{
	if (r < 0)
		printf("signed-bench: %s failed: %s\n", name, strerror(-r));
	else
		printf("signed-bench-phase %d %s %u %.2f\n", phase, name, n, now() - start);
}

/* The looped phases: @N iterations of spawn(@FILE, ARGS...), after a few unmarked ones. */
#define LOOP_PHASE(P, NAME, N, FILE, ...)                        \
	do {                                                     \
		double start;                                    \
		int r = 0;                                       \
		for (unsigned int i = 0; i < 5 && r == 0; i++)   \
			r = spawn(FILE, __VA_ARGS__, NULL);      \
		start = now();                                   \
		OPEN(P);                                         \
		for (unsigned int i = 0; i < (N) && r == 0; i++) \
			r = spawn(FILE, __VA_ARGS__, NULL);      \
		CLOSE(P);                                        \
		report(P, NAME, N, start, r);                    \
		failed |= r < 0;                                 \
	} while (0)

int main(int argc, char **argv)
{
	unsigned int n_exec, n_big;
	int failed = 0, r = 0;
	double start;

	if (argc != 5) {
		fprintf(stderr, "usage: signed-bench DIR EXEC_ITERATIONS BIG_ITERATIONS SIGLIBS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	dir = argv[1];
	n_exec = (unsigned int)strtoul(argv[2], NULL, 10);
	n_big = (unsigned int)strtoul(argv[3], NULL, 10);
	snprintf(path_unsigned, sizeof(path_unsigned), "%s/true-unsigned", dir);
	snprintf(path_signed, sizeof(path_signed), "%s/true-signed", dir);
	snprintf(path_policy, sizeof(path_policy), "%s/true-policy", dir);
	snprintf(path_big, sizeof(path_big), "%s/big", dir);
	snprintf(path_big_src, sizeof(path_big_src), "%s/big.signed", dir);
	snprintf(path_big_new, sizeof(path_big_new), "%s/big.new", dir);
	snprintf(path_sha, sizeof(path_sha), "%s/sha256sum", dir);
	snprintf(path_empty, sizeof(path_empty), "%s/empty", dir);
	snprintf(path_openssl, sizeof(path_openssl), "%s/openssl", dir);

	LOOP_PHASE(1, "exec-unsigned", n_exec, path_unsigned, NULL);
	LOOP_PHASE(2, "exec-signed", n_exec, path_signed, NULL);
	LOOP_PHASE(3, "exec-policy", n_exec, path_policy, NULL);

	/* 4: each first exec marked on its own, the copy outside the marks. */
	r = fresh_big();
	if (r == 0)
		r = spawn(path_big, NULL); /* warm: the layer of its policy exists from now on */
	start = now();
	for (unsigned int i = 0; i < n_big && r == 0; i++) {
		r = fresh_big();
		if (r < 0)
			break;
		OPEN(4);
		r = spawn(path_big, NULL);
		CLOSE(4);
	}
	report(4, "verify-10M", n_big, start, r);
	failed |= r < 0;

	LOOP_PHASE(5, "exec-10M", n_big, path_big, NULL);
	LOOP_PHASE(6, "sha256sum-10M", n_big, path_sha, path_big);
	LOOP_PHASE(7, "sha256sum-0", n_big, path_sha, path_empty);
	LOOP_PHASE(8, "openssl-10M", n_big, path_openssl, "dgst", "-sha256", path_big);
	LOOP_PHASE(9, "openssl-0", n_big, path_openssl, "dgst", "-sha256", path_empty);
	LOOP_PHASE(10, "exec-unsigned2", n_exec, path_unsigned, NULL);

	siglibs = argv[4];
	if (!strcmp(siglibs, "-"))
		return failed;
	for (size_t i = 0; i < CLOSURE_FILES; i++)
		snprintf(closure_paths[i], sizeof(closure_paths[i]), "%s/%s", siglibs, closure[i]);
	snprintf(path_dyn_unsigned, sizeof(path_dyn_unsigned), "%s/prog-unsigned", siglibs);
	LOOP_PHASE(11, "dyn-unsigned", n_exec, path_dyn_unsigned, NULL);
	LOOP_PHASE(12, "dyn-signed", n_exec, closure_paths[0], NULL);

	/* 13: each first exec marked on its own, the copies outside the marks. */
	r = 0;
	start = now();
	for (unsigned int i = 0; i < n_big && r == 0; i++) {
		r = fresh_closure(siglibs);
		if (r < 0)
			break;
		OPEN(13);
		r = spawn(closure_paths[0], NULL);
		CLOSE(13);
	}
	report(13, "verify-dyn", n_big, start, r);
	failed |= r < 0;

	LOOP_PHASE(14, "sha256sum-dyn", n_big, path_sha, closure_paths[0], closure_paths[1],
		   closure_paths[2], closure_paths[3]);
	return failed;
}
