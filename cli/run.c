// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli run - a command under a new layer, as env(1), timeout(1) and the sandbox
 * tools (bubblewrap, landrun) run one.
 *
 * By default CMD starts through rfork() with the layer taking effect at its exec (so
 * CMD itself starts: "run -r exec -- sh -c true" runs sh and denies sh's exec), and
 * run waits for it: signals sent to run go on to CMD, and run exits with CMD's status.
 * With --no-fork run becomes CMD (the layer waits on run's thread until that exec), so
 * that a service manager sees CMD as the main process. When CMD has exited, run tells
 * on stderr what the layer denied (run-explain.h); with --no-fork nothing is left to
 * tell.
 *
 * With --permissive the layer only records its denials, and run tells them as what it
 * "would deny": the list is tried out on CMD. Only run's own new layer is permissive,
 * for the child run starts (UMB_RFORK_PERMISSIVE): every layer run itself carries
 * still enforces on CMD, so a restricted task gains nothing by it.
 *
 * run's own failures exit 125, a CMD that cannot be executed 126 and one that is not
 * found 127, as env(1) does, so that they never pass for CMD's own status.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <umbrella/bpf-abi.h>
#include <umbrella/umbrella.h>

#include "cli.h"
#include "command.h"
#include "daemon-socket.h"
#include "printable.h"
#include "run-explain.h"
#include "run-precheck.h"
#include "run.h"

#define PROFILE_DIR_DEFAULT "/etc/umbrella/profiles"

enum {
	EXIT_RUN_FAILED = 125, /* run itself failed: nothing of CMD ran */
	EXIT_CANNOT_EXEC = 126,
	EXIT_CMD_NOT_FOUND = 127,
};

/* Help is null under --json, as for every command. */
static int run_help(void)
{
	return cli_help(
		"Usage: umbrella-cli run [OPTIONS] [--] CMD [ARG]...\n"
		"\n"
		"Runs CMD under a new layer denying the restrictions given.\n"
		"  -r ITEM[,ITEM]...   restrictions in the text form (repeatable)\n"
		"  -r @FILE            the restrictions listed in FILE (a profile)\n"
		"  --profile NAME      the profile " PROFILE_DIR_DEFAULT "/NAME\n"
		"  --no-fork           become CMD: the layer takes effect at its exec\n"
		"  --permissive        record what the layer denies, do not enforce it\n"
		"  --empty-layer       run CMD under a layer that denies nothing: without\n"
		"                      it, a run with no restriction given is refused\n"
		"  --die-with-parent   kill CMD (SIGKILL) when run's parent dies\n"
		"  -q, --quiet         do not tell on stderr what the layer denied\n"
		"  -j, --json          run's own errors as JSON on stdout (CMD's output is\n"
		"                      CMD's; what the layer denied stays text on stderr)\n"
		"  -h, --help          this text\n"
		"\n"
		"A profile holds items separated by commas or newlines; a line whose first\n"
		"non-blank character is '#' is a comment. run forwards the signals sent to it\n"
		"(not those the terminal sends to the whole process group) to CMD.\n"
		"When CMD has exited, run tells on stderr what the layer denied to CMD and its\n"
		"children (the first few, then a count), except with --quiet or --no-fork.\n"
		"\n"
		"Exit status: CMD's (128+N when signal N killed it); 125 when run failed,\n"
		"126 when CMD could not be executed (or the layer would deny mapping its own\n"
		"code: run names the rule), 127 when CMD was not found.\n");
}

/* Adds the restrictions of the list @text to @r; @origin names it in an error. */
static int add_list(struct umb_restrictions *r, const char *text, const char *origin)
{
	char *error = NULL;

	if (umb_restrictions__parse(r, text, &error) == 0)
		return 0;
	if (origin)
		cli_error("%s: %s", origin, error ? error : text);
	else
		cli_error("%s", error ? error : text);
	free(error);
	return -EINVAL;
}

/*
 * Adds the restrictions of profile file @path to @r: every line that is neither blank
 * nor a comment is a list of items. Leading and trailing blanks of a line are not part
 * of it. An error names the file and the line.
 */
static int add_profile(struct umb_restrictions *r, const char *path)
{
	char *line = NULL, origin[4096];
	size_t size = 0, items = 0;
	unsigned int number = 0;
	ssize_t n;
	FILE *f;
	int ret = 0;

	f = fopen(path, "re");
	if (!f) {
		cli_error("profile %s: %s", path, strerror(errno));
		return -errno;
	}
	while ((n = getline(&line, &size, f)) >= 0) {
		char *start = line, *end = line + n;

		number++;
		while (isblank((unsigned char)*start))
			start++;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		*end = '\0';
		if (!*start || *start == '#')
			continue;
		snprintf(origin, sizeof(origin), "%s:%u", path, number);
		ret = add_list(r, start, origin);
		if (ret < 0)
			break;
		items++;
	}
	if (!ret && ferror(f)) {
		cli_error("profile %s: %s", path, strerror(EIO));
		ret = -EIO;
	}
	/* A profile that restricts nothing is a mistake (a wrong file, a truncated one),
	 * not a request for an empty layer. */
	if (!ret && !items) {
		cli_error("profile %s: no restriction in it", path);
		ret = -EINVAL;
	}
	free(line);
	fclose(f);
	return ret;
}

/* The file of profile @name: a plain name, so that --profile never leaves the
 * directory ($UMBRELLA_PROFILE_DIR or PROFILE_DIR_DEFAULT). */
static int add_named_profile(struct umb_restrictions *r, const char *name)
{
	const char *dir = getenv("UMBRELLA_PROFILE_DIR");
	char path[4096];

	if (!dir || !dir[0])
		dir = PROFILE_DIR_DEFAULT;
	if (!name[0] || name[0] == '.' || strchr(name, '/')) {
		cli_error("--profile %s: not a profile name (a file name in %s)", name, dir);
		return -EINVAL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		cli_error("--profile %s: %s", name, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return add_profile(r, path);
}

/* Execs CMD (argv) and, when that fails, says why and exits 126 or 127. */
static void __attribute__((noreturn)) exec_command(char *argv[])
{
	int err;

	execvp(argv[0], argv);
	err = errno;
	cli_error("%s: %s", argv[0], strerror(err));
	_exit(err == ENOENT || err == ENOTDIR ? EXIT_CMD_NOT_FOUND : EXIT_CANNOT_EXEC);
}

/* Has the caller die with SIGKILL when its parent (@parent) dies; false if that has
 * happened already (the caller was reparented). */
static bool die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) {
		cli_error("--die-with-parent: %s", strerror(errno));
		return false;
	}
	if (getppid() != parent) {
		cli_error("--die-with-parent: the parent has died already");
		return false;
	}
	return true;
}

/*
 * Whether the system mode is permissive (mode = permissive: every denial only
 * recorded), so that the layer would kill nothing: then run refuses nothing before the
 * exec either. The pinned umb_ctl is root's to read; false when it cannot be read
 * (another user, nothing pinned, another ABI).
 */
static bool system_permissive(void)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_RDONLY);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;
	struct umb_ctl ctl = {};
	char path[PATH_MAX];
	bool ret = false;
	int fd;

	if (snprintf(path, sizeof(path), "%s/umb_ctl", arg_pin_dir) >= (int)sizeof(path))
		return false;
	fd = bpf_obj_get_opts(path, &opts);
	if (fd < 0)
		return false;
	if (bpf_map_get_info_by_fd(fd, &info, &len) == 0 && info.value_size == sizeof(ctl) &&
	    bpf_map_lookup_elem(fd, &zero, &ctl) == 0)
		ret = ctl.flags & UMB_CTL_PERMISSIVE;
	close(fd);
	return ret;
}

static volatile sig_atomic_t child_pid;

/* Forwards a signal sent to run by another process (kill, systemctl stop, timeout) to
 * CMD. Those a terminal sends (SI_KERNEL) reached CMD's process group already. */
static void forward_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (child_pid > 0 && info->si_code != SI_KERNEL)
		(void)kill(child_pid, sig);
}

static const int forwarded_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT,
};

static void forward_signals(void)
{
	struct sigaction sa = { .sa_sigaction = forward_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded_signals); i++)
		(void)sigaction(forwarded_signals[i], &sa, NULL);
}

/*
 * Waits for CMD (@pid) while printing the denials that come on @x: until CMD has
 * exited (its pidfd is readable), then for the rest. Only the waiting, not the
 * reaping: waitpid() follows.
 */
static void explain_while_waiting(struct run_explain *x, pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	while (x->fd >= 0 && pidfd >= 0) {
		struct pollfd fds[2] = { { .fd = pidfd, .events = POLLIN },
					 { .fd = x->fd, .events = POLLIN } };

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents)
			run_explain_read(x);
		if (fds[0].revents)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
}

/* Starts CMD as a restricted child, waits for it and returns its status as the shell
 * gives it; with @explain, tells what its layer denied. */
static int fork_and_wait(const struct umb_restrictions *r, char *argv[], bool die_with,
			 bool explain, bool permissive)
{
	struct run_explain x = { .fd = -1 };
	pid_t self = getpid(), pid;
	sigset_t all, old;
	int status;

	/* Before the layer exists, so that none of its denials is missed. */
	if (explain && run_explain_start(&x, r) == -ETIMEDOUT) {
		cli_error("umbrellad did not answer in %d s", DAEMON_SOCKET_TIMEOUT_SEC);
		return EXIT_RUN_FAILED;
	}

	/* No signal is handled between the fork and child_pid's assignment: one that
	 * came then would be lost for CMD. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = umb_rfork(r, UMB_RFORK_ON_EXEC | (permissive ? UMB_RFORK_PERMISSIVE : 0));
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (die_with && !die_with_parent(self))
			_exit(EXIT_RUN_FAILED);
		exec_command(argv);
	}
	if (pid < 0) {
		int err = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		cli_error("%s", umb_last_error() ? umb_last_error() : strerror(err));
		run_explain_finish(&x);
		return EXIT_RUN_FAILED;
	}
	child_pid = pid;
	forward_signals();
	sigprocmask(SIG_SETMASK, &old, NULL);

	explain_while_waiting(&x, pid);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			cli_error("waitpid: %s", strerror(errno));
			run_explain_finish(&x);
			return EXIT_RUN_FAILED;
		}
	}
	run_explain_finish(&x);
	/* A program whose code the layer may not map dies at its first instruction there,
	 * which says nothing to its user on its own. */
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS) &&
	    x.mapping_denied)
		fprintf(stderr,
			"umbrella: %s was killed (%s) because the layer denied mapping its own "
			"code (its executable, its loader or a library: the denied mmap above); "
			"an fs rule with x over it, or exec-unsigned for unsigned code, keeps it "
			"from starting\n",
			argv[0], strsignal(WTERMSIG(status)));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cli_run(int argc, char *argv[])
{
	enum {
		OPT_PROFILE = 0x100,
		OPT_NO_FORK,
		OPT_DIE_WITH_PARENT,
		OPT_PERMISSIVE,
		OPT_EMPTY_LAYER
	};
	static const struct option options[] = {
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "no-fork", no_argument, NULL, OPT_NO_FORK },
		{ "die-with-parent", no_argument, NULL, OPT_DIE_WITH_PARENT },
		{ "permissive", no_argument, NULL, OPT_PERMISSIVE },
		{ "empty-layer", no_argument, NULL, OPT_EMPTY_LAYER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		/* The global options, here too: main() leaves run's arguments alone, since
		 * those after CMD are CMD's. */
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{}
	};
	struct umb_restrictions *r = umb_restrictions__new();
	bool no_fork = false, die_with = false, quiet = false, permissive = false, empty = false;
	char reason[2 * PATH_MAX + 128], reason_shown[CLI_PRINTABLE_SIZE(sizeof(reason))];
	char name[CLI_PRINTABLE_SIZE(256)];
	pid_t parent = getppid();
	int c, ret = EXIT_RUN_FAILED;

	if (!r) {
		cli_error("%s", strerror(errno));
		return EXIT_RUN_FAILED;
	}
	opterr = 0; /* one line of our own for each mistake */
	/* --json anywhere among run's options shapes every error, one before it too
	 * ("run -r bad-item --json"): a first pass takes only it. */
	optind = 0; /* glibc: start afresh */
	while ((c = getopt_long(argc, argv, "+:r:qhjp", options, NULL)) >= 0)
		if (c == 'j' || c == 'p')
			cli_global_option(c, NULL);
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:r:qhjp", options, NULL)) >= 0) {
		switch (c) {
		case 'r':
			if ((optarg[0] == '@' ? add_profile(r, optarg + 1) :
						add_list(r, optarg, NULL)) < 0)
				goto out;
			break;
		case OPT_PROFILE:
			if (add_named_profile(r, optarg) < 0)
				goto out;
			break;
		case OPT_NO_FORK:
			no_fork = true;
			break;
		case OPT_DIE_WITH_PARENT:
			die_with = true;
			break;
		case OPT_PERMISSIVE:
			permissive = true;
			break;
		case OPT_EMPTY_LAYER:
			empty = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'p':
		case 'j':
			cli_global_option(c, NULL);
			break;
		case 'h':
			ret = run_help();
			goto out;
		default:
			cli_error("run: %s: %s (try 'umbrella-cli run help')", argv[optind - 1],
				  c == ':' ? "missing argument" : "unknown option");
			goto out;
		}
	}
	if (optind >= argc) {
		cli_error("run: no command given (try 'umbrella-cli run help')");
		goto out;
	}
	/* "run help" is help; a program named help runs as "run -- help". */
	if (!strcmp(argv[optind], "help") && strcmp(argv[optind - 1], "--")) {
		ret = run_help();
		goto out;
	}

	/* A forgotten -r, or a profile of comments only, must not look like a sandbox. */
	if (!empty && umb_restrictions__count(r) == 0) {
		cli_error("run: no restriction given (-r, --profile): CMD would run with nothing "
			  "denied (--empty-layer if that is what you want)");
		goto out;
	}
	if (empty && umb_restrictions__count(r) > 0) {
		cli_error("run: --empty-layer and restrictions (-r, --profile) do not go together");
		goto out;
	}
	/* A permissive layer is for a child (umbrellad refuses it on the caller itself),
	 * and in place nobody would be left to tell what it would deny. */
	if (permissive && no_fork) {
		cli_error("run: --permissive and --no-fork do not go together: run tells what "
			  "the layer would deny once CMD has exited");
		goto out;
	}
	/* A CMD that could not even start under the layer is refused with the rule's name,
	 * not left to die of SIGSEGV. A permissive layer denies nothing, nor does any in
	 * the permissive system mode. */
	if (!permissive && run_precheck(r, argv[optind], reason, sizeof(reason)) &&
	    !system_permissive()) {
		cli_error("run: %s: not run: %s, so it could not start",
			  cli_printable(argv[optind], name, sizeof(name)),
			  cli_printable(reason, reason_shown, sizeof(reason_shown)));
		ret = EXIT_CANNOT_EXEC;
		goto out;
	}
	if (die_with && !die_with_parent(parent))
		goto out;
	if (!no_fork) {
		ret = fork_and_wait(r, argv + optind, die_with, !quiet, permissive);
		goto out;
	}
	c = umb_restrict_self_on_exec(r);
	if (c < 0) {
		cli_error("%s", umb_last_error() ? umb_last_error() : strerror(-c));
		goto out;
	}
	exec_command(argv + optind);
out:
	umb_restrictions__free(r);
	return ret;
}
