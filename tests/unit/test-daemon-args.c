// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the key ring directory a running umbrellad was given, read back from its
 * command line as its getopt_long() parsed it (common/daemon-args.c), and from a real
 * process's /proc/PID/cmdline and working directory. */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon-args.h"
#include "daemon-pid.h"
#include "tap.h"

/* A command line as /proc/PID/cmdline holds it: "a b c" -> "a\0b\0c\0". */
#define ARGS(s) s, sizeof(s)

static const struct {
	const char *args;
	size_t len;
	const char *want; /* NULL: none given */
	const char *what;
} cases[] = {
	{ ARGS("/usr/sbin/umbrellad"), NULL, "no options" },
	{ ARGS("umbrellad\0--keyring\0/k"), "/k", "--keyring DIR" },
	{ ARGS("umbrellad\0--keyring=/k"), "/k", "--keyring=DIR" },
	{ ARGS("umbrellad\0--key\0/k"), "/k", "an unambiguous prefix: --key DIR" },
	{ ARGS("umbrellad\0--k=/k"), "/k", "the shortest prefix: --k=DIR" },
	{ ARGS("umbrellad\0--keyring\0/a\0--keyring=/b"), "/b", "the last one wins" },
	{ ARGS("umbrellad\0--config\0--keyring\0--socket\0/s"), NULL,
	  "an option's value that looks like --keyring is a value" },
	{ ARGS("umbrellad\0--c\0--keyring\0/k"), "/k", "an ambiguous prefix (--c) takes no value" },
	{ ARGS("umbrellad\0--\0--keyring\0/k"), NULL, "-- ends the options" },
	{ ARGS("umbrellad\0--check-config\0--keyring=\0"), "", "an empty value" },
	{ ARGS("umbrellad\0--keyring"), NULL, "--keyring without its value" },
	{ "umbrellad\0--keyring\0/k", 21, NULL, "a command line cut short (no final NUL)" },
};

/* The key ring daemon_keyring_dir() reads of a child that runs @prog (as uid @uid
 * unless 0) in @dir with "--keyring keys", once the exec has replaced the child's command
 * line (or 2 s have passed). Return: as daemon_keyring_dir(). */
static int keyring_of_child(const char *dir, const char *prog, uid_t uid, char **ret)
{
	pid_t pid = fork();
	bool execed = false;
	int r = -ECHILD; /* the child never ran @prog */

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		setpgid(0, 0); /* its sleep is killed with it, and lets go of our stdout */
		if (chdir(dir) == 0 && (!uid || setuid(uid) == 0))
			/* (not a last command: the shell must not exec it in its place) */
			execl(prog, "umbrellad", "-c", "sleep 30; :", "--keyring", "keys",
			      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		char cmdline[64] = "", path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		f = fopen(path, "re");
		if (f) {
			size_t n = fread(cmdline, 1, sizeof(cmdline) - 1, f);

			fclose(f);
			/* past the exec: argv[1] is "-c" */
			if (n > 10 && !strcmp(cmdline + strlen(cmdline) + 1, "-c")) {
				execed = true;
				break;
			}
		}
		usleep(10000);
	}
	if (execed)
		r = daemon_keyring_dir((uint32_t)pid, "/etc/umbrella/keys", ret);
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return r;
}

int main(void)
{
	char dir[] = "/tmp/test-daemon-args.XXXXXX", *got = NULL, want[128], link[160];
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* ARGS() counts the literal's own NUL: the kernel's last NUL. */
		const char *k = daemon_args_keyring(cases[i].args, cases[i].len);

		TAP_OK(cases[i].want ? k && !strcmp(k, cases[i].want) : !k, "%s: %s", cases[i].what,
		       k ? k : "(none)");
	}

	/* A process of our own named umbrellad (a link to sh), started in @dir with a
	 * relative --keyring; the same as a plain sh, and as a user's umbrellad. */
	if (!mkdtemp(dir)) {
		TAP_SKIP("no temporary directory: %s", strerror(errno));
		return tap_finish();
	}
	chmod(dir, 0755); /* for the user's process */
	snprintf(link, sizeof(link), "%s/umbrellad", dir);
	if (symlink("/bin/sh", link) < 0) {
		TAP_OK(false, "symlink %s: %s", link, strerror(errno));
		return tap_finish();
	}
	r = keyring_of_child(dir, link, 0, &got);
	snprintf(want, sizeof(want), "%s/keys", dir);
	TAP_OK(r == 0 && !strcmp(got, want),
	       "a process's relative --keyring, made absolute with its working directory: %s",
	       r == 0 ? got : strerror(-r));
	free(got);
	got = NULL;
	r = keyring_of_child(dir, "/bin/sh", 0, &got);
	TAP_OK(r == -ESRCH, "a process not named umbrellad: -ESRCH (%s)",
	       r == 0 ? got : strerror(-r));
	free(got);
	got = NULL;
	if (geteuid() == 0) {
		r = keyring_of_child(dir, link, 65534, &got);
		TAP_OK(r == -ESRCH, "a user's process named umbrellad: -ESRCH (%s)",
		       r == 0 ? got : strerror(-r));
		free(got);
		got = NULL;
	} else {
		TAP_SKIP("a user's process named umbrellad: needs root");
	}
	unlink(link);
	rmdir(dir);

	/* A user's process that is not dumpable: its /proc files are root's (and on some
	 * kernels its directory too). */
	if (geteuid() == 0) {
		struct stat st = {};
		int ready[2], fd;
		pid_t pid;
		char c;

		if (pipe(ready) < 0)
			return tap_finish();
		pid = fork();
		if (pid == 0) {
			if (setuid(65534) == 0 && prctl(PR_SET_NAME, "umbrellad") == 0 &&
			    prctl(PR_SET_DUMPABLE, 0) == 0)
				(void)!write(ready[1], "r", 1);
			pause();
			_exit(0);
		}
		close(ready[1]);
		c = 0;
		(void)!read(ready[0], &c, 1);
		snprintf(want, sizeof(want), "/proc/%d", (int)pid);
		(void)stat(want, &st);
		fd = daemon_pid_open((uint32_t)pid);
		TAP_OK(c == 'r' && fd == -ESRCH,
		       "a user's process named umbrellad, not dumpable (its /proc directory "
		       "root's on this kernel: %s): -ESRCH (%d)",
		       st.st_uid == 0 ? "yes" : "no", fd);
		if (fd >= 0)
			close(fd);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(ready[0]);
	} else {
		TAP_SKIP("a user's process named umbrellad, not dumpable: needs root");
	}

	r = daemon_keyring_dir(0x7ffffffe, "/etc/umbrella/keys", &got);
	TAP_OK(r < 0, "a process that does not exist: an error (%d)", r);
	return tap_finish();
}
