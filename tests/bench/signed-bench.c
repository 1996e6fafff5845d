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
 *  10 exec-unsigned2  phase 1 again, last: how much the count drifts within one boot
 *
 * Phase P is marked with the tags 2P (open) and 2P + 1 (close); phase 4 once per
 * iteration (run-signed-bench adds them up). Output: "signed-bench-phase P NAME
 * ITERATIONS SECONDS" per phase. Usage: signed-bench DIR EXEC_ITERATIONS BIG_ITERATIONS
 */
#include <errno.h>
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
#define MARK(t) asm volatile(".byte 0x0f,0x1f,0x80,%c0,0x55,0x42,0x4d" ::"i"(t) : "memory")
#define OPEN(p)	 MARK(2 * (p))
#define CLOSE(p) MARK(2 * (p) + 1)

static const char *dir;
static char path_unsigned[4096], path_signed[4096], path_policy[4096], path_big[4096],
	path_big_src[4096], path_big_new[4096], path_sha[4096], path_empty[4096], path_openssl[4096];

/* fork, execv(@file, {@file, @arg1, @arg2, @arg3}) (NULLs end it early), wait. */
static int spawn(const char *file, const char *arg1, const char *arg2, const char *arg3)
{
	char *const argv[] = {(char *)file, (char *)arg1, (char *)arg2, (char *)arg3, NULL};
	int status;
	pid_t pid = fork();

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

/* Phases 1-3, 5-9: @n iterations of spawn(@file, @args), after a few unmarked ones. */
#define LOOP_PHASE(P, NAME, N, FILE, ...)                                                          \
	do {                                                                                       \
		double start;                                                                      \
		int r = 0;                                                                         \
		for (unsigned int i = 0; i < 5 && r == 0; i++)                                     \
			r = spawn(FILE, __VA_ARGS__);                                                      \
		start = now();                                                                     \
		OPEN(P);                                                                           \
		for (unsigned int i = 0; i < (N) && r == 0; i++)                                   \
			r = spawn(FILE, __VA_ARGS__);                                                      \
		CLOSE(P);                                                                          \
		report(P, NAME, N, start, r);                                                      \
		failed |= r < 0;                                                                   \
	} while (0)

int main(int argc, char **argv)
{
	unsigned int n_exec, n_big;
	int failed = 0, r = 0;
	double start;

	if (argc != 4) {
		fprintf(stderr, "usage: signed-bench DIR EXEC_ITERATIONS BIG_ITERATIONS\n");
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

	LOOP_PHASE(1, "exec-unsigned", n_exec, path_unsigned, NULL, NULL, NULL);
	LOOP_PHASE(2, "exec-signed", n_exec, path_signed, NULL, NULL, NULL);
	LOOP_PHASE(3, "exec-policy", n_exec, path_policy, NULL, NULL, NULL);

	/* 4: each first exec marked on its own, the copy outside the marks. */
	r = fresh_big();
	if (r == 0)
		r = spawn(path_big, NULL, NULL, NULL); /* warm: the layer of its policy exists from now on */
	start = now();
	for (unsigned int i = 0; i < n_big && r == 0; i++) {
		r = fresh_big();
		if (r < 0)
			break;
		OPEN(4);
		r = spawn(path_big, NULL, NULL, NULL);
		CLOSE(4);
	}
	report(4, "verify-10M", n_big, start, r);
	failed |= r < 0;

	LOOP_PHASE(5, "exec-10M", n_big, path_big, NULL, NULL, NULL);
	LOOP_PHASE(6, "sha256sum-10M", n_big, path_sha, path_big, NULL, NULL);
	LOOP_PHASE(7, "sha256sum-0", n_big, path_sha, path_empty, NULL, NULL);
	LOOP_PHASE(8, "openssl-10M", n_big, path_openssl, "dgst", "-sha256", path_big);
	LOOP_PHASE(9, "openssl-0", n_big, path_openssl, "dgst", "-sha256", path_empty);
	LOOP_PHASE(10, "exec-unsigned2", n_exec, path_unsigned, NULL, NULL, NULL);
	return failed;
}
