// SPDX-License-Identifier: GPL-2.0-only
/*
 * Umbrella benchmark - what Umbrella costs, counted in guest instructions in the test VM.
 *
 * Runs the same phases (open+close, stat, fork, fork+exec, socket, a macro workload)
 * under six configurations, one after the other in one boot, each in a fresh process
 * (this program executed again with --runner, so that all fork from the same image):
 *
 *   1 baseline     no BPF LSM program loaded
 *   2 floor        empty BPF LSM programs on the 8 hooks a minimal design needs
 *                  (BENCH_FLOOR_HOOKS, from tests/bench/meson.build)
 *   3 empty        empty BPF LSM programs on exactly the hooks Umbrella attaches on this
 *                  kernel (tests/bench/empty.bpf.c, generated from the bpf/ sources)
 *   4 umbrella     Umbrella attached, the task unrestricted, while another task (a
 *                  sleeper, "fs:/etc") lives restricted: what an unrestricted task pays
 *                  on a system where Umbrella is in use
 *   5 umb-4x64     Umbrella attached, the task carries 4 layers of 64 "fs:" rules each,
 *                  on files (/tmp/bench-rules/lL/fN) that none of the phases touch
 *   6 landlock     Umbrella detached; Landlock, 4 layers of 16 path-beneath rules
 *                  handling every fs access right the kernel knows, the rules covering
 *                  what the phases need
 *
 * Umbrella is loaded with umbrellad's own code (daemon/bpf-open.c): the time that takes
 * and the number of programs attached are printed ("bench: umbrella: ..."). umbrellad
 * itself does not run: its exec gate's fanotify marks are not in the counts.
 *
 * Run slot s (1..9: the five micro phases, then the runs of the macro workload) of
 * configuration c is marked as phase P = 10 c + s with the NOPs that
 * ../shared/tools/insncount.c counts between (tests/bench/run-bench loads it and makes
 * the table). Each phase runs a few unmarked warm-up iterations first. Root,
 * inside the test VM only: it loads BPF LSM programs and writes to /tmp.
 *
 * Output (stdout): "bench: ..." lines for people, and one machine-readable line per
 * measured phase: "bench-phase P CONFIG PHASE ITERATIONS SECONDS".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf-open.h"
#include "copy-file.h"
#include "time-util.h"
#include "empty.skel.h"
#include "landlock-rights.h"
#include "vm-test.h"

#define WORK_DIR     "/tmp/bench-work"	   /* the phases' files (tmpfs) */
#define RULES_DIR    "/tmp/bench-rules"	   /* the objects of the 4x64 Umbrella rules */
#define LL_DIR	     "/tmp/bench-landlock" /* filler directories of the Landlock rules */
#define BENCH_FILE   WORK_DIR "/file"
#define TRUE_BIN     WORK_DIR "/bench-true"
#define MACRO_SCRIPT WORK_DIR "/macro.sh"
#define MACRO_DIR    WORK_DIR "/macro"

#define LAYERS	  4
#define UMB_RULES 64
#define LL_RULES  16
#define MAX_HOOKS 128

/* --- phase markers (tools/insncount.c) --- */

/* The 7-byte NOP "nopl 0x4d4255XX(%rax)" with XX = @tag (a constant expression). */
#define MARK_CASE(t)                                                                         \
	case (t):                                                                            \
		asm volatile(".byte 0x0f,0x1f,0x80,%c0,0x55,0x42,0x4d" ::"i"(t) : "memory"); \
		break;
#define MARK_CASES2(t)	 MARK_CASE(t) MARK_CASE((t) + 1)
#define MARK_CASES4(t)	 MARK_CASES2(t) MARK_CASES2((t) + 2)
#define MARK_CASES8(t)	 MARK_CASES4(t) MARK_CASES4((t) + 4)
#define MARK_CASES16(t)	 MARK_CASES8(t) MARK_CASES8((t) + 8)
#define MARK_CASES32(t)	 MARK_CASES16(t) MARK_CASES16((t) + 16)
#define MARK_CASES64(t)	 MARK_CASES32(t) MARK_CASES32((t) + 32)
#define MARK_CASES128(t) MARK_CASES64(t) MARK_CASES64((t) + 64)

/* Executes the marker NOP with tag @tag (0..191): 2P opens phase P, 2P+1 closes it. */
static __attribute__((noinline)) void mark(unsigned int tag)
{
	switch (tag) {
		MARK_CASES128(0)
		MARK_CASES64(128)
	default:
		break;
	}
}

/* --- the phases --- */

static char **bench_environ;

static int wait_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static int phase_open(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int fd = open(BENCH_FILE, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	return 0;
}

static int phase_stat(unsigned int n)
{
	struct stat st;

	for (unsigned int i = 0; i < n; i++)
		if (stat(BENCH_FILE, &st) < 0)
			return -errno;
	return 0;
}

static int phase_fork(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		pid_t pid = fork();
		int r;

		if (pid < 0)
			return -errno;
		if (pid == 0)
			_exit(0);
		r = wait_ok(pid);
		if (r < 0)
			return r;
	}
	return 0;
}

/* fork, execve(@argv) in the child (stdout to /dev/null with @quiet), wait. */
static int spawn(char *const argv[], bool quiet)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
				_exit(126);
		}
		execve(argv[0], argv, bench_environ);
		_exit(127);
	}
	return wait_ok(pid);
}

static int phase_exec(unsigned int n)
{
	char *const argv[] = { TRUE_BIN, NULL };

	for (unsigned int i = 0; i < n; i++) {
		int r = spawn(argv, false);

		if (r < 0)
			return r;
	}
	return 0;
}

static int phase_socket(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	return 0;
}

static int phase_macro(unsigned int n)
{
	char *const argv[] = { "/bin/sh", MACRO_SCRIPT, MACRO_DIR, NULL };

	for (unsigned int i = 0; i < n; i++) {
		int r = spawn(argv, true);

		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A phase: @warmup unmeasured iterations, then @runs measured runs of @iterations each,
 * each run marked on its own. The runs of all phases are numbered 1..9 in this order
 * (slot s of configuration c is phase P = 10 c + s): the micro phases one run each,
 * the macro workload MACRO_RUNS_MAX at most, so that run-bench can keep the least count
 * (timer ticks, which follow wall time, only ever add instructions).
 */
struct phase {
	const char *name;
	int (*run)(unsigned int n);
	unsigned int iterations, warmup, runs;
};

static struct phase phases[] = {
	{ .name = "open+close", .run = phase_open, .iterations = 5000, .warmup = 200, .runs = 1 },
	{ .name = "stat", .run = phase_stat, .iterations = 5000, .warmup = 200, .runs = 1 },
	{ .name = "fork+exit+wait", .run = phase_fork, .iterations = 5000, .warmup = 50, .runs = 1 },
	{ .name = "fork+exec+wait", .run = phase_exec, .iterations = 5000, .warmup = 50, .runs = 1 },
	{ .name = "socket+close",
	  .run = phase_socket,
	  .iterations = 5000,
	  .warmup = 200,
	  .runs = 1 },
	{ .name = "macro", .run = phase_macro, .iterations = 1, .warmup = 1, .runs = 3 },
};
#define PHASES	       (ARRAY_SIZE(phases))
#define MACRO_RUNS_MAX 4

/* Seconds, for the reports. */
static double now(void)
{
	return (double)now_usec() / USEC_PER_SEC;
}

/* Runs every phase, marked, in the calling process. Returns 0 or the first -errno. */
static int run_phases(unsigned int config, const char *config_name)
{
	unsigned int slot = 0;
	int ret = 0;

	for (unsigned int p = 0; p < PHASES; p++) {
		const struct phase *ph = &phases[p];
		int r = 0;

		if (ph->iterations && ph->runs)
			r = ph->run(ph->warmup);
		for (unsigned int k = 0; k < ph->runs && ph->iterations && r == 0; k++) {
			unsigned int id = 10 * config + slot + 1 + k;
			double start = now();

			mark(2 * id);
			r = ph->run(ph->iterations);
			mark(2 * id + 1);
			if (r == 0)
				printf("bench-phase %u %s %s %u %.2f\n", id, config_name, ph->name,
				       ph->iterations, now() - start);
		}
		slot += ph->runs;
		if (r < 0) {
			printf("bench: %s/%s failed: %s\n", config_name, ph->name, strerror(-r));
			ret = ret ?: r;
		}
	}
	return ret;
}

/* --- configurations --- */

/* Checks that @path cannot be opened: the restriction of the calling task is in force. */
static void expect_denied(const char *config_name, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		printf("bench: warning: %s: %s opens: the rules are not enforced\n", config_name,
		       path);
		close(fd);
	} else if (errno != EACCES && errno != EPERM) {
		printf("bench: warning: %s: %s: %s\n", config_name, path, strerror(errno));
	}
}

/* Landlock: rulesets, rules, restrict_self (no wrappers in glibc 2.36). */

/* Where the phases need access (the macro workload runs gcc from /usr), then fillers. */
static const char *const landlock_needed[] = { WORK_DIR, "/usr", "/etc", "/dev", "/proc", "/sys" };
#define LL_NEEDED (ARRAY_SIZE(landlock_needed))

/* Restricts the calling process with LAYERS Landlock layers of LL_RULES rules. */
static int landlock_restrict(int *ret_abi)
{
	int abi =
		(int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	struct landlock_ruleset_attr attr = {};

	if (abi < 1)
		return abi < 0 ? -errno : -EOPNOTSUPP;
	attr.handled_access_fs = landlock_fs_rights(abi);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	for (unsigned int l = 1; l <= LAYERS; l++) {
		int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

		if (ruleset < 0)
			return -errno;
		for (unsigned int i = 0; i < LL_RULES; i++) {
			struct landlock_path_beneath_attr rule = {
				.allowed_access = attr.handled_access_fs,
			};
			char path[PATH_MAX];
			int r = 0;

			if (i < LL_NEEDED)
				snprintf(path, sizeof(path), "%s", landlock_needed[i]);
			else
				snprintf(path, sizeof(path), LL_DIR "/l%u/d%u", l, i + 1);
			rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
			if (rule.parent_fd < 0 || syscall(SYS_landlock_add_rule, ruleset,
							  LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
				r = -errno;
			if (rule.parent_fd >= 0)
				close(rule.parent_fd);
			if (r < 0) {
				close(ruleset);
				return r;
			}
		}
		if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
			int r = -errno;

			close(ruleset);
			return r;
		}
		close(ruleset);
	}
	*ret_abi = abi;
	return 0;
}

enum config_kind { CONFIG_PLAIN, CONFIG_UMB_LAYERS, CONFIG_LANDLOCK, CONFIG_SLEEPER };

static const struct config {
	const char *name;
	enum config_kind kind;
	unsigned int layers; /* given by the parent (give_layers()) */
} configs[] = {
	[1] = { "baseline", CONFIG_PLAIN },
	[2] = { "floor", CONFIG_PLAIN },
	[3] = { "empty", CONFIG_PLAIN },
	[4] = { "umbrella", CONFIG_PLAIN },
	[5] = { "umb-4x64", CONFIG_UMB_LAYERS, LAYERS },
	[6] = { "landlock", CONFIG_LANDLOCK },
	/* not measured: the restricted task that lives during "umbrella" */
	[7] = { "sleeper", CONFIG_SLEEPER, 1 },
};
#define CONFIGS		  (ARRAY_SIZE(configs) - 1)
#define CONFIG_FLOOR	  2
#define CONFIG_EMPTY	  3
#define CONFIG_SLEEPER_NR 7

/* The pipes of the CONFIG_UMB_LAYERS hand-shake in the runner: "go" and "done". */
#define RUNNER_GO_FD   3
#define RUNNER_DONE_FD 4

/*
 * runner() - the process that measures configuration @config (umbrella-bench --runner)
 *
 * A fresh exec of this program, so that every configuration forks and execs from the
 * same address space (the parent's grows with each BPF object it loads, and fork copies
 * it). CONFIG_UMB_LAYERS, CONFIG_SLEEPER: takes c->layers layers, one per
 * UMB_PRCTL_APPLY, each armed by the parent before it sends the layer's id on
 * RUNNER_GO_FD, and answered with a byte on RUNNER_DONE_FD; a last 'g' says that all
 * were applied and nothing is armed any more. The sleeper then waits for the end of
 * RUNNER_GO_FD, measuring nothing. Return: the exit status.
 */
static int runner(unsigned int config)
{
	const struct config *c = &configs[config];
	char byte = 0;
	int r;

	if (c->layers) {
		for (unsigned int l = 0; l < c->layers; l++) {
			__u32 id;

			if (read(RUNNER_GO_FD, &id, sizeof(id)) != sizeof(id))
				return 1;
			/* Applied or not, the parent learns it from the arm left or not. */
			(void)prctl(UMB_PRCTL_APPLY, id, 0, 0, 0);
			if (write(RUNNER_DONE_FD, &byte, 1) != 1)
				return 1;
		}
		if (read(RUNNER_GO_FD, &byte, 1) != 1 || byte != 'g')
			return 1;
	}
	if (c->kind == CONFIG_SLEEPER) {
		expect_denied(c->name, "/etc/hostname");
		close(RUNNER_DONE_FD); /* the parent reads its end: the sleeper is ready */
		while (read(RUNNER_GO_FD, &byte, 1) > 0)
			;
		return 0;
	} else if (c->kind == CONFIG_UMB_LAYERS) {
		close(RUNNER_GO_FD);
		close(RUNNER_DONE_FD);
		expect_denied(c->name, RULES_DIR "/l1/f1");
		expect_denied(c->name, RULES_DIR "/l4/f64");
	} else if (c->kind == CONFIG_LANDLOCK) {
		int abi = 0;

		r = landlock_restrict(&abi);
		if (r < 0) {
			printf("bench: landlock: %s\n", strerror(-r));
			return 1;
		}
		printf("bench: landlock ABI %d, %d layers x %d rules, handled fs rights %#llx\n",
		       abi, LAYERS, LL_RULES, (unsigned long long)landlock_fs_rights(abi));
		expect_denied(c->name, RULES_DIR "/l1/f1");
	}
	return run_phases(config, c->name) ? 1 : 0;
}

/* Gives the runner @pid its @n @layers (see runner()). Returns 0 or -errno. */
static int give_layers(struct umbrella_bpf *skel, pid_t pid, const __u32 *layers, unsigned int n,
		       int go, int done)
{
	struct umb_task_state state = {};
	char byte = 0;
	int pidfd, r = 0;

	for (unsigned int l = 0; l < n && r == 0; l++) {
		bool left;

		r = arm_thread(&test_layers, (__u32)pid, (__u32)pid, layers[l], UMB_ARM_SELF);
		if (r < 0)
			break;
		if (write(go, &layers[l], sizeof(layers[l])) != sizeof(layers[l]) ||
		    read(done, &byte, 1) != 1)
			r = -EPIPE;
		left = arm_take(&test_layers, (__u32)pid); /* the prctl uses the arm up */
		if (r == 0 && left) {
			printf("bench: layer %u was not applied\n", layers[l]);
			r = -EPERM;
		}
	}
	pidfd = r == 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	if (pidfd >= 0) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.umb_task), &pidfd, &state) < 0 ||
		    state.layer_count != n) {
			printf("bench: the runner carries %u layers, not %u\n", state.layer_count,
			       n);
			r = -EPERM;
		}
		close(pidfd);
	}
	byte = r == 0 ? 'g' : 'x';
	if (write(go, &byte, 1) != 1 && r == 0)
		r = -EPIPE;
	return r;
}

/*
 * Starts configuration @config in a runner: this program again, with @argv (its own
 * options) and "--runner CONFIG", and gives it its layers (@skel, @layers: for a
 * configuration with layers). Returns its pid, with the parent's end of its "go" pipe
 * in *@ret_go (closing it ends a sleeper), or -errno.
 */
static pid_t start_runner(unsigned int config, char **argv, int argc, struct umbrella_bpf *skel,
			  const __u32 *layers, int *ret_go)
{
	unsigned int n = configs[config].layers;
	bool layered = n > 0;
	char number[16], **args;
	int go[2], done[2], r = 0;
	pid_t pid;

	snprintf(number, sizeof(number), "%u", config);
	args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args)
		return -ENOMEM;
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	args[argc] = "--runner";
	args[argc + 1] = number;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) {
		free(args);
		return -errno;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (layered) {
			/* Out of the way first: the pipes may be on 3 and 4 already. */
			int g = fcntl(go[0], F_DUPFD_CLOEXEC, 10);
			int d = fcntl(done[1], F_DUPFD_CLOEXEC, 10);

			if (g < 0 || d < 0 || dup2(g, RUNNER_GO_FD) < 0 ||
			    dup2(d, RUNNER_DONE_FD) < 0)
				_exit(1);
		}
		/* The same address space layout in every configuration and every run: fork
		 * copies page tables, and their number follows where the mappings lie. */
		if (personality(ADDR_NO_RANDOMIZE) < 0)
			_exit(1);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	free(args);
	if (pid < 0)
		r = -errno;
	close(go[0]);
	close(done[1]);
	if (pid > 0 && layered)
		r = give_layers(skel, pid, layers, n, go[1], done[0]);
	/* A sleeper closes its end of "done" once it checked its restriction. */
	if (pid > 0 && r == 0 && configs[config].kind == CONFIG_SLEEPER) {
		char byte;

		if (read(done[0], &byte, 1) != 0)
			r = -EPIPE;
	}
	close(done[0]);
	if (r < 0) {
		close(go[1]);
		if (pid > 0)
			(void)wait_ok(pid);
		return r;
	}
	*ret_go = go[1];
	return pid;
}

/* Runs configuration @config in a runner (start_runner()) to its end. Returns 0 or
 * -errno. */
static int run_config(unsigned int config, char **argv, int argc, struct umbrella_bpf *skel,
		      const __u32 *layers)
{
	pid_t pid;
	int go;

	printf("bench: configuration %u: %s\n", config, configs[config].name);
	pid = start_runner(config, argv, argc, skel, layers, &go);
	if (pid < 0)
		return pid;
	close(go);
	return wait_ok(pid) < 0 ? -ECHILD : 0;
}

/* --- set-up --- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t len = (ssize_t)strlen(text);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len)
		r = -EIO;
	close(fd);
	return r;
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Creates the files of the phases and of the rules; copies the helpers from @bindir. */
static int setup_files(const char *bindir)
{
	char from[PATH_MAX], path[PATH_MAX];
	int r;

	r = mkdir_p(WORK_DIR);
	if (r == 0)
		r = write_file(BENCH_FILE, "benchmark\n");
	if (r == 0 && (size_t)snprintf(from, sizeof(from), "%s/bench-true", bindir) >= sizeof(from))
		r = -ENAMETOOLONG;
	if (r == 0)
		r = copy_file(from, TRUE_BIN, 0755);
	if (r == 0 && (size_t)snprintf(from, sizeof(from), "%s/macro.sh", bindir) >= sizeof(from))
		r = -ENAMETOOLONG;
	if (r == 0)
		r = copy_file(from, MACRO_SCRIPT, 0755);
	for (unsigned int l = 1; l <= LAYERS && r == 0; l++) {
		for (unsigned int i = 1; i <= UMB_RULES && r == 0; i++) {
			snprintf(path, sizeof(path), RULES_DIR "/l%u", l);
			r = mkdir_p(path);
			snprintf(path, sizeof(path), RULES_DIR "/l%u/f%u", l, i);
			if (r == 0)
				r = write_file(path, "rule\n");
		}
		for (unsigned int i = LL_NEEDED + 1; i <= LL_RULES && r == 0; i++) {
			snprintf(path, sizeof(path), LL_DIR "/l%u/d%u", l, i);
			r = mkdir_p(path);
		}
	}
	return r;
}

/* The layer of 64 "fs:" rules on RULES_DIR/l@l/f1..f64. Returns its id, or 0. */
static __u32 make_layer(struct umbrella_bpf *skel, unsigned int l)
{
	char items[UMB_RULES * 48] = "";
	size_t len = 0;

	for (unsigned int i = 1; i <= UMB_RULES; i++)
		len += (size_t)snprintf(items + len, sizeof(items) - len,
					"%sfs:" RULES_DIR "/l%u/f%u", i > 1 ? "," : "", l, i);
	return test_layer(skel, items);
}

/*
 * The distinct hooks (section names after "lsm/" or "lsm.s/") of the programs @obj will
 * load, in @hooks, with the number of programs on each in @count. Returns the number of
 * hooks.
 */
static unsigned int loaded_hooks(struct bpf_object *obj, const char *hooks[MAX_HOOKS],
				 unsigned int count[MAX_HOOKS])
{
	struct bpf_program *prog;
	unsigned int n = 0, i;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog), *slash = strchr(sec, '/');

		if (!bpf_program__autoload(prog) || !slash || strncmp(sec, "lsm", 3))
			continue;
		for (i = 0; i < n && strcmp(hooks[i], slash + 1); i++)
			;
		if (i == n && n < MAX_HOOKS) {
			hooks[n] = slash + 1;
			count[n++] = 0;
		}
		if (i < n)
			count[i]++;
	}
	return n;
}

/* Opens and loads the empty programs of exactly the @n @hooks. */
static int empty_open_load(const char *const *hooks, unsigned int n, struct empty_bpf **ret_skel)
{
	struct empty_bpf *skel = empty_bpf__open();
	struct bpf_program *prog;
	unsigned int found = 0;
	int r = 0;

	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog), *hook = strchr(sec, '/');
		bool wanted = false;

		for (unsigned int i = 0; hook && i < n && !wanted; i++)
			wanted = !strcmp(hook + 1, hooks[i]);
		found += wanted;
		r = bpf_program__set_autoload(prog, wanted);
		if (r < 0)
			break;
	}
	if (r == 0 && found != n) {
		printf("bench: %u of the %u hooks asked for have no empty program: rebuild\n",
		       n - found, n);
		r = -ENOENT;
	}
	if (r == 0)
		r = empty_bpf__load(skel);
	if (r < 0) {
		empty_bpf__destroy(skel);
		return r;
	}
	*ret_skel = skel;
	return 0;
}

/* The floor's hooks (BENCH_FLOOR_HOOKS, comma-separated), split into @buf. Returns how
 * many. */
static unsigned int floor_hooks(const char *hooks[MAX_HOOKS], char buf[sizeof(BENCH_FLOOR_HOOKS)])
{
	unsigned int n = 0;
	char *save = NULL;

	memcpy(buf, BENCH_FLOOR_HOOKS, sizeof(BENCH_FLOOR_HOOKS));
	for (char *h = strtok_r(buf, ",", &save); h && n < MAX_HOOKS;
	     h = strtok_r(NULL, ",", &save))
		hooks[n++] = h;
	return n;
}

/* The programs of @skel that are attached (a link each). */
static unsigned int attached_programs(const struct umbrella_bpf *skel)
{
	const struct bpf_object_skeleton *s = skel->skeleton;
	unsigned int n = 0;

	for (int i = 0; i < s->prog_cnt; i++)
		n += s->progs[i].link && *s->progs[i].link;
	return n;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: umbrella-bench [--iterations N] [--exec-iterations N] "
		"[--macro-runs 1..%d] [--only PHASE]\n"
		"Root, in the test VM: tests/bench/run-bench boots it.\n",
		MACRO_RUNS_MAX);
}

static struct phase *phase_by_run(int (*run)(unsigned int n))
{
	for (unsigned int p = 0; p < PHASES; p++)
		if (phases[p].run == run)
			return &phases[p];
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option options[] = { { "iterations", required_argument, NULL, 'i' },
						 { "exec-iterations", required_argument, NULL,
						   'e' },
						 { "macro-runs", required_argument, NULL, 'm' },
						 { "only", required_argument, NULL, 'o' },
						 { "runner", required_argument, NULL, 'R' },
						 { "help", no_argument, NULL, 'h' },
						 {} };
	char exe[PATH_MAX], *slash;
	const char *only = NULL;
	struct umbrella_bpf *skel = NULL;
	struct empty_bpf *empty = NULL;
	const char *hooks[MAX_HOOKS];
	unsigned int hook_programs[MAX_HOOKS];
	__u32 layers[LAYERS];
	const char *floor[MAX_HOOKS];
	char floor_buf[sizeof(BENCH_FLOOR_HOOKS)];
	unsigned int nhooks, nfloor, runner_config = 0, v;
	__u32 sleeper_layer;
	pid_t sleeper;
	int sleeper_go;
	double start;
	int opt, failed = 0, r;
	ssize_t len;

	bench_environ = environ;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			v = (unsigned int)strtoul(optarg, NULL, 10);
			for (unsigned int p = 0; p < PHASES; p++)
				if (phases[p].run != phase_macro)
					phases[p].iterations = v;
			break;
		case 'e':
			phase_by_run(phase_exec)->iterations =
				(unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			v = (unsigned int)strtoul(optarg, NULL, 10);
			if (v > MACRO_RUNS_MAX) {
				usage(stderr);
				return 2;
			}
			phase_by_run(phase_macro)->runs = v;
			break;
		case 'o':
			only = optarg;
			break;
		case 'R':
			runner_config = (unsigned int)strtoul(optarg, NULL, 10);
			if (runner_config < 1 || runner_config > CONFIGS) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (only) {
		/* Quick comparisons: only the phase named (the others run 0 times). */
		v = 0;
		for (unsigned int p = 0; p < PHASES; p++)
			if (strcmp(phases[p].name, only))
				phases[p].iterations = 0;
			else
				v = 1;
		if (!v) {
			usage(stderr);
			return 2;
		}
	}
	if (runner_config)
		return runner(runner_config);

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0) {
		printf("bench: /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	r = setup_files(exe);
	if (r < 0) {
		printf("bench: setting up %s, %s: %s\n", WORK_DIR, RULES_DIR, strerror(-r));
		return 1;
	}
	for (unsigned int p = 0; p < PHASES; p++)
		printf("bench: phase %s: %u run(s) of %u iterations (%u unmeasured first)\n",
		       phases[p].name, phases[p].runs, phases[p].iterations, phases[p].warmup);

	/* 1: nothing loaded yet. */
	failed |= run_config(1, argv, argc, NULL, NULL) < 0;

	/* Umbrella, loaded (not attached) as umbrellad loads it: its hooks on this kernel.
	 * The time is what umbrellad's start spends verifying the programs. */
	start = now();
	r = umbrella_bpf_open_load(&skel);
	if (r < 0) {
		printf("bench: loading Umbrella: %s\n", strerror(-r));
		failed = 1;
		goto landlock;
	}
	printf("bench: umbrella: umbrellad's programs (daemon/bpf-open.c) loaded in %.2f s\n",
	       now() - start);
	/* One empty program per hook: the floor. Where Umbrella attaches several programs
	 * to one hook, the extra calls are Umbrella's own cost. */
	nhooks = loaded_hooks(skel->obj, hooks, hook_programs);
	printf("bench: Umbrella attaches to %u hooks:", nhooks);
	for (unsigned int i = 0; i < nhooks; i++)
		printf(hook_programs[i] > 1 ? " %s(%u programs)" : " %s", hooks[i],
		       hook_programs[i]);
	printf("\n");

	/* 2: the empty programs on the floor's hooks; 3: on Umbrella's. */
	nfloor = floor_hooks(floor, floor_buf);
	for (unsigned int config = CONFIG_FLOOR; config <= CONFIG_EMPTY; config++) {
		bool all = config == CONFIG_EMPTY;

		r = empty_open_load(all ? hooks : floor, all ? nhooks : nfloor, &empty);
		if (r == 0)
			r = empty_bpf__attach(empty);
		if (r == 0) {
			failed |= run_config(config, argv, argc, NULL, NULL) < 0;
		} else {
			printf("bench: loading the empty programs (%s): %s\n", configs[config].name,
			       strerror(-r));
			failed = 1;
		}
		empty_bpf__destroy(empty);
		empty = NULL;
	}

	/* 4, 5: Umbrella attached; unrestricted beside a restricted sleeper, then 4 layers
	 * x 64 rules. */
	r = umbrella_bpf__attach(skel);
	if (r < 0) {
		printf("bench: attaching Umbrella: %s\n", strerror(-r));
		failed = 1;
		goto landlock;
	}
	printf("bench: umbrella: %u programs attached\n", attached_programs(skel));
	/* The layers are made as umbrellad makes them (vm-test.h's test_layer()). */
	r = layers_open(&test_layers, &(struct layer_maps){ LAYER_MAPS_OF(skel) }, -1);
	if (r < 0) {
		printf("bench: mapping the layers: %s\n", strerror(-r));
		failed = 1;
		goto landlock;
	}
	sleeper_layer = test_layer(skel, "fs:/etc");
	sleeper = sleeper_layer ? start_runner(CONFIG_SLEEPER_NR, argv, argc, skel, &sleeper_layer,
					       &sleeper_go) :
				  -EPERM;
	if (sleeper < 0) {
		printf("bench: the restricted sleeper: %s\n", strerror((int)-sleeper));
		failed = 1;
		goto landlock;
	}
	printf("bench: a task restricted with fs:/etc lives (pid %d)\n", (int)sleeper);
	failed |= run_config(4, argv, argc, NULL, NULL) < 0;
	close(sleeper_go);
	if (wait_ok(sleeper) < 0) {
		printf("bench: the restricted sleeper failed\n");
		failed = 1;
	}
	/* Its rules freed: they would make the root file system one with rules. */
	layers_put(&test_layers, sleeper_layer);
	for (unsigned int l = 0; l < LAYERS; l++) {
		layers[l] = make_layer(skel, l + 1);
		if (!layers[l]) {
			printf("bench: could not make layer %u\n", l + 1);
			failed = 1;
			goto landlock;
		}
	}
	r = run_config(5, argv, argc, skel, layers);
	if (r < 0) {
		printf("bench: umb-4x64: %s\n", strerror(-r));
		failed = 1;
	}

landlock:
	/* 5: the peer, Landlock, without Umbrella. */
	if (skel)
		umbrella_bpf__detach(skel);
	failed |= run_config(6, argv, argc, NULL, NULL) < 0;
	umbrella_bpf__destroy(skel);
	return failed ? 1 : 0;
}
