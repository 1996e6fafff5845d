// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test: umbrella-cli run's check before the exec (cli/run-precheck.c). It may
 * refuse only what the kernel would kill for certain: every refusal below has a
 * control that must run (another access kind, a sibling directory, a name that only
 * shares a prefix, a signed program).
 */
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cli/run-precheck.h"
#include "copy-file.h"
#include "signed-elf-sign.h"
#include "tap.h"

static char reason[2 * PATH_MAX + 128];

/* run_precheck() of CMD under the list @list; -1 when the list does not parse. */
static int check(const char *list, const char *cmd)
{
	struct umb_restrictions *r = umb_restrictions__new();
	int ret = -1;

	reason[0] = '\0';
	if (r && umb_restrictions__parse(r, list, NULL) == 0)
		ret = run_precheck(r, cmd, reason, sizeof(reason));
	umb_restrictions__free(r);
	return ret;
}

static void refused(const char *list, const char *cmd, const char *says)
{
	int ret = check(list, cmd);

	TAP_OK(ret == 1 && strstr(reason, says), "%s on %s: refused (\"%s\")", list, cmd,
	       tap_show(reason));
}

static void runs(const char *list, const char *cmd)
{
	int ret = check(list, cmd);

	TAP_OK(ret == 0, "%s on %s: not refused%s%s", list, cmd, ret ? ": " : "", tap_show(reason));
}

int main(void)
{
	char tmp[] = "/tmp/test-run-precheck.XXXXXX", true_path[PATH_MAX], dir[PATH_MAX];
	char p[PATH_MAX], q[PATH_MAX], list[3 * PATH_MAX], interp[PATH_MAX];
	EVP_PKEY *key;
	FILE *f;

	if (!mkdtemp(tmp) || !realpath("/bin/true", true_path)) {
		printf("1..0 # SKIP no temporary directory or no /bin/true\n");
		return 77;
	}

	/* The program itself, whatever name it is given: fs rules with x only. */
	refused("fs:/", "/bin/true", "fs:/ denies mapping");
	runs("fs:/:w", "/bin/true");
	runs("fs:/:r", "/bin/true");
	snprintf(dir, sizeof(dir), "%s", true_path);
	*strrchr(dir, '/') = '\0';
	snprintf(list, sizeof(list), "fs:%s:x", dir);
	refused(list, "/bin/true", list);
	snprintf(list, sizeof(list), "fs:%s/:rx", dir);
	refused(list, "/bin/true", "(the program)");
	snprintf(list, sizeof(list), "fs:%s:rw", dir);
	runs(list, "/bin/true");
	snprintf(list, sizeof(list), "fs:%.*s:x", (int)strlen(dir) - 1, dir);
	runs(list, "/bin/true"); /* "/usr/bi" covers no "/usr/bin/true" */
	snprintf(list, sizeof(list), "fs:%s:x", tmp);
	runs(list, "/bin/true");
	runs("net,fork,exec,signal", "/bin/true");
	runs("fs:/", "/no/such/program"); /* execvp() tells */

	/* Found in $PATH as execvp() finds it; a rule through a symbolic link is the
	 * directory it leads to, as the layer resolves it. */
	snprintf(p, sizeof(p), "%s/real", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/real/prog", tmp);
	TAP_OK(copy_file(true_path, p, 0755) == 0, "a copy of true in %s/real", tmp);
	snprintf(q, sizeof(q), "%s/link", tmp);
	TAP_OK(symlink("real", q) == 0, "%s/link -> real", tmp);
	setenv("PATH", q, 1);
	snprintf(list, sizeof(list), "fs:%s/real:x", tmp);
	refused(list, "prog", "/real/prog (the program)");
	snprintf(list, sizeof(list), "fs:%s/link:x", tmp);
	refused(list, "prog", list);
	snprintf(list, sizeof(list), "fs:%s/link/prog:x", tmp);
	refused(list, "prog", list);
	snprintf(list, sizeof(list), "fs:%s/link/pro:x", tmp);
	runs(list, "prog");
	setenv("PATH", "/usr/bin:/bin", 1);

	/* A script: its interpreter is mapped, not the script. */
	snprintf(q, sizeof(q), "%s/script", tmp);
	f = fopen(q, "w");
	TAP_OK(f && fprintf(f, "#! %s -e\nexit 0\n", p) > 0 && fclose(f) == 0 &&
		       chmod(q, 0755) == 0,
	       "a script run by %s", p);
	snprintf(list, sizeof(list), "fs:%s/real:x", tmp);
	refused(list, q, "(the interpreter of its script)");
	snprintf(list, sizeof(list), "fs:%s/script:x", tmp);
	runs(list, q);

	/* The ELF interpreter the kernel maps. */
	if (realpath("/lib64/ld-linux-x86-64.so.2", interp)) {
		snprintf(list, sizeof(list), "fs:%s:x", interp);
		refused(list, "/bin/true", "(its ELF interpreter)");
		snprintf(list, sizeof(list), "fs:%s:r", interp);
		runs(list, "/bin/true");
	} else {
		TAP_SKIP("no /lib64/ld-linux-x86-64.so.2 (not x86-64)");
	}

	/* exec-unsigned: an ELF file without a signature section; one with a signature may
	 * verify, so it is not refused (its unsigned ELF interpreter is). */
	refused("exec-unsigned", "/bin/true", "exec-unsigned denies mapping");
	refused("exec-unsigned", q, "(the interpreter of its script)");
	key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	TAP_OK(key && signed_elf_sign(p, key, NULL, SIGNED_ELF_SIGN_NO_POLICY, NULL) == 0,
	       "%s signed", p);
	check("exec-unsigned", p);
	TAP_OK(!strstr(reason, "(the program)") && strstr(reason, "(its ELF interpreter)"),
	       "exec-unsigned: a signed program is not refused itself, its unsigned ld.so is (\"%s\")",
	       tap_show(reason));
	runs("exec", p);
	EVP_PKEY_free(key);

	snprintf(list, sizeof(list), "rm -rf '%s'", tmp);
	(void)!system(list);
	return tap_finish();
}
