// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the essential programs that "unsigned = deny" needs signed
 * (daemon/essentials.c): a signed copy passes, an unsigned one is named with its reason,
 * a missing path is skipped, one file by two paths is named once; the default list;
 * deny refused, or forced, on this host where nothing is signed. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "config.h"
#include "copy-file.h"
#include "essentials.h"
#include "keyring.h"
#include "ring-key.h"
#include "signed-elf-sign.h"
#include "tap.h"

static char tmp[] = "/tmp/test-essentials.XXXXXX", ring[64];

static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

static void test_paths(void)
{
	char sig[96], uns[96], link[96], missing[96], *text = NULL, *error = NULL;
	struct keyring *k = NULL;
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	char want[256];
	int r;

	snprintf(sig, sizeof(sig), "%s/signed", tmp);
	snprintf(uns, sizeof(uns), "%s/unsigned", tmp);
	snprintf(link, sizeof(link), "%s/link", tmp);
	snprintf(missing, sizeof(missing), "%s/missing", tmp);
	r = key && ring_add_public_key(ring, key) == 0 ? 0 : -EIO;
	r = r ?: copy_file("/bin/true", sig, 0755);
	r = r ?: copy_file("/bin/true", uns, 0755);
	r = r ?: symlink(uns, link) < 0 ? -errno : 0;
	r = r ?: signed_elf_sign(sig, key, NULL, SIGNED_ELF_SIGN_NO_POLICY, &error);
	TAP_EQ(r, 0, "a key in the ring, a signed and an unsigned copy of /bin/true: %s",
	       error ? error : "ok");
	free(error);
	r = keyring_load(ring, &k, &error);
	TAP_EQ(r, 0, "the ring loads");

	r = essentials_unsigned(k, (char *const[]){ sig, missing, NULL }, &text);
	TAP_OK(r == 0 && !text, "a signed file and a missing one: none named (%d)", r);
	free(text);
	r = essentials_unsigned(k, (char *const[]){ sig, uns, missing, link, NULL }, &text);
	snprintf(want, sizeof(want), "  %s: no signature", uns);
	TAP_OK(r == 1 && has_line(text, want) && !strstr(text, sig) && !strstr(text, link),
	       "the unsigned file named once, with its reason (%d: %s)", r, tap_show(text));
	free(text);
	keyring_free(k);

	/* The same signed file, the key gone from the ring: not validly signed. */
	r = keyring_load(tmp, &k, &error);
	r = r ?: essentials_unsigned(k, (char *const[]){ sig, NULL }, &text);
	snprintf(want, sizeof(want), "  %s: unknown key", sig);
	TAP_OK(r == 1 && has_line(text, want), "a key not in the ring: named (%s)", tap_show(text));
	free(text);
	keyring_free(k);
	EVP_PKEY_free(key);
}

static void test_default(void)
{
	struct passwd *pw = getpwuid(0);
	char **paths = NULL, self[256];
	bool sh = false, shell = false, exe = false, ldso = false, systemctl = false;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int r = essentials_default(&paths);

	self[n > 0 ? n : 0] = '\0';
	for (char **p = r == 0 ? paths : (char *[]){ NULL }; *p; p++) {
		sh |= !strcmp(*p, "/bin/sh");
		systemctl |= !strcmp(*p, "/bin/systemctl");
		shell |= pw && !strcmp(*p, pw->pw_shell);
		exe |= !strcmp(*p, self);
		ldso |= !strncmp(*p, "/lib", 4) && strstr(*p, "ld-");
	}
	TAP_OK(r == 0 && sh && systemctl && shell && exe && ldso,
	       "the default list: /bin/sh %d, systemctl %d, root's shell %s %d, this "
	       "executable %d, its loader %d",
	       sh, systemctl, pw ? pw->pw_shell : "?", shell, exe, ldso);
	essentials_free(paths);
}

/* --replaced: renames a copy of this executable over its own name, as an upgrade
 * does, then prints the default list, a path a line. */
static int print_default_after_replace(void)
{
	char self[256], next[300], **paths = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 1;
	self[n] = '\0';
	snprintf(next, sizeof(next), "%s.next", self);
	if (copy_file(self, next, 0755) < 0 || rename(next, self) < 0 ||
	    essentials_default(&paths) < 0)
		return 1;
	for (char **p = paths; *p; p++)
		printf("%s\n", *p);
	essentials_free(paths);
	return 0;
}

/* umbrellad replaced on disk since it started: its entry is the file now at the name
 * (the one that starts next), not "NAME (deleted)", which no open() finds. */
static void test_default_replaced(void)
{
	char copy[128], out[4096] = "", line[300];
	int fds[2], status = -1;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	snprintf(copy, sizeof(copy), "%s/umbrellad-copy", tmp);
	if (copy_file("/proc/self/exe", copy, 0755) < 0 || pipe(fds) < 0) {
		TAP_OK(false, "a copy of this test to replace: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl(copy, copy, "--replaced", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof(out) - 1 && (r = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	snprintf(line, sizeof(line), "\n%s\n", copy);
	TAP_OK(status == 0 && strstr(out, line) && !strstr(out, "(deleted)"),
	       "umbrellad replaced on disk: the list names the file at its name (exit %d)", status);
}

static void test_deny_check(void)
{
	struct config c;
	char *text = NULL;
	int r;

	config_init(&c);
	r = essentials_deny_check(&c, "test.conf", ring, &text);
	TAP_OK(r == 0 && !text, "unsigned = allow: nothing checked (%d)", r);

	c.unsigned_deny = true;
	r = essentials_deny_check(&c, "test.conf", ring, &text);
	TAP_OK(r == -EPERM && text &&
		       !strncmp(text, "test.conf: 'unsigned = deny' refused: ", 38) &&
		       strstr(text, "\n  /bin/sh"),
	       "unsigned = deny on this host, where /bin/sh is not signed: refused, naming it "
	       "(%d: %.200s)",
	       r, tap_show(text));
	free(text);

	c.unsigned_deny_force = true;
	r = essentials_deny_check(&c, "test.conf", ring, &text);
	TAP_OK(r == 1 && text && strstr(text, "unsigned_deny_force = yes") &&
		       strstr(text, "\n  /bin/sh"),
	       "... with unsigned_deny_force = yes: applied, with the warning (%d)", r);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--replaced"))
		return print_default_after_replace();
	if (!mkdtemp(tmp)) {
		TAP_SKIP("no temporary directory: %s", strerror(errno));
		return tap_finish();
	}
	snprintf(ring, sizeof(ring), "%s/keys", tmp);
	mkdir(ring, 0755);
	test_paths();
	test_default();
	test_default_replaced();
	test_deny_check();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		(void)!system(cmd);
	}
	return tap_finish();
}
