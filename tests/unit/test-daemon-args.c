// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the key ring directory a running umbrellad was given, read back from its
 * command line as its getopt_long() parsed it (common/daemon-args.c), and from a real
 * process's /proc/PID/cmdline and working directory. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon-args.h"
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

int main(void)
{
	char dir[] = "/tmp/test-daemon-args.XXXXXX", *got = NULL, want[128];
	pid_t pid;
	int r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* ARGS() counts the literal's own NUL: the kernel's last NUL. */
		const char *k = daemon_args_keyring(cases[i].args, cases[i].len);

		TAP_OK(cases[i].want ? k && !strcmp(k, cases[i].want) : !k, "%s: %s", cases[i].what,
		       k ? k : "(none)");
	}

	/* A process of our own, started in @dir with a relative --keyring. */
	if (!mkdtemp(dir)) {
		TAP_SKIP("no temporary directory: %s", strerror(errno));
		return tap_finish();
	}
	pid = fork();
	if (pid == 0) {
		if (chdir(dir) == 0)
			/* (not a last command: the shell must not exec it in its place) */
			execl("/bin/sh", "sh", "-c", "sleep 30; :", "--keyring", "keys",
			      (char *)NULL);
		_exit(127);
	}
	/* Until the exec has replaced our command line with the child's. */
	for (int i = 0; i < 500; i++) {
		free(got);
		got = NULL;
		r = daemon_keyring_dir((uint32_t)pid, "/etc/umbrella/keys", &got);
		if (r == 0 && strcmp(got, "/etc/umbrella/keys") != 0)
			break;
		usleep(10000);
	}
	snprintf(want, sizeof(want), "%s/keys", dir);
	TAP_OK(r == 0 && !strcmp(got, want),
	       "a process's relative --keyring, made absolute with its working directory: %s",
	       got ? got : strerror(-r));
	free(got);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rmdir(dir);

	r = daemon_keyring_dir(0x7ffffffe, "/etc/umbrella/keys", &got);
	TAP_OK(r < 0, "a process that does not exist: an error (%d)", r);
	return tap_finish();
}
