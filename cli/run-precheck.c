// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli run - whether the new layer would keep CMD from starting (run-precheck.h).
 *
 * run's layer takes effect at CMD's exec, after the kernel checked the exec itself and
 * before it maps the program and its ELF interpreter: a layer that denies mapping them
 * as code (exec-unsigned for unsigned code, fs:PATH with x over them) leaves CMD dead of
 * SIGSEGV with one "denied mmap" line, which tells its user little. Where run can know
 * beforehand, it refuses CMD with the rule's name instead. The kernel enforces either
 * way: a miss here costs a less clear message, a false refusal would keep a program
 * from running that may run, so every test below claims only what is certain.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-dynamic.h"
#include "fs-rule.h"
#include "macro.h"
#include "run-precheck.h"
#include "signed-elf.h"

/* The kernel's limit of interpreters in a row ("#!" of "#!"), BINPRM_MAX_RECURSION. */
#define INTERPRETER_DEPTH_MAX 4

/* The file execvp() runs for @cmd in @path: the first executable regular file of
 * $PATH (or glibc's default) when @cmd has no '/'. False when there is none. */
static bool find_command(const char *cmd, char path[PATH_MAX])
{
	const char *search = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/'))
		return snprintf(path, PATH_MAX, "%s", cmd) < PATH_MAX;
	if (!search)
		search = "/bin:/usr/bin";
	for (const char *p = search;; p++) {
		size_t len = strcspn(p, ":");

		/* An empty entry is the current directory, as execvp() reads it. */
		if (snprintf(path, PATH_MAX, "%.*s%s%s", (int)len, len ? p : ".", "/", cmd) <
			    PATH_MAX &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return true;
		p += len;
		if (!*p)
			return false;
	}
}

/* The interpreter of the script @path in @interp ("#!/bin/sh -e": "/bin/sh"), as
 * binfmt_script reads the first line. 1 for a script, 0 for an ELF file, -1 for
 * anything else (or nothing readable): not for run to judge. */
static int read_script(const char *path, char interp[PATH_MAX])
{
	char head[256];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p;

	if (fd < 0)
		return -1;
	n = pread(fd, head, sizeof(head) - 1, 0);
	if (n >= 4 && !memcmp(head, "\177ELF", 4))
		return 0;
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return -1;
	head[n] = '\0';
	p = head + 2 + strspn(head + 2, " \t");
	p[strcspn(p, " \t\n")] = '\0';
	if (!*p || !memchr(head, '\n', (size_t)n))
		return -1; /* no interpreter, or a line longer than what is read */
	snprintf(interp, PATH_MAX, "%s", p);
	return 1;
}

/* Whether @path is an ELF file without a signature section: no verdict of the
 * gate can be SIGNED for it (a signature that is there may verify or not: not known). */
static bool unsigned_elf(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct signed_elf_reader *reader = NULL;
	struct signed_elf e;
	bool ret;

	if (fd < 0 || signed_elf_begin(fd, 0, &e, &reader, NULL) < 0)
		return false;
	ret = !reader && e.is_elf && !e.has_signature;
	signed_elf_reader_free(reader);
	signed_elf_release(&e);
	return ret;
}

/* Whether @r denies mapping @path (@what: "the program", ...) as code; says why. */
static bool denies_mapping(const struct umb_restrictions *r, const char *path, const char *what,
			   char *reason, size_t size)
{
	char canon[PATH_MAX], rule_canon[PATH_MAX], rule[PATH_MAX + 16];

	/* The path the kernel walks up from is the file's own (symbolic links followed);
	 * a rule's path is canonical too (umb_path_canonical(): realpath() of what exists,
	 * and a rule on what does not exist is above no existing file). */
	if (realpath(path, canon)) {
		for (size_t i = 0; i < umb_restrictions__count(r); i++) {
			const struct umb_item *it = umb_restrictions__item(r, i);

			if (it->kind != UMB_ITEM_FS || !(it->fs_access & UMB_FS_EXEC) ||
			    !realpath(it->path, rule_canon) || !fs_rule_covers(rule_canon, canon))
				continue;
			snprintf(reason, size, "%s denies mapping %s (%s) as code",
				 fs_rule_text(it, rule, sizeof(rule)), canon, what);
			return true;
		}
	}
	for (size_t i = 0; i < umb_restrictions__count(r); i++) {
		const struct umb_item *it = umb_restrictions__item(r, i);

		if (it->kind == UMB_ITEM_CAP && (it->value & UMB_CR_EXEC_UNSIGNED) &&
		    unsigned_elf(path)) {
			snprintf(reason, size,
				 "exec-unsigned denies mapping %s (%s): it has no "
				 "signature",
				 realpath(path, canon) ? canon : path, what);
			return true;
		}
	}
	return false;
}

int run_precheck(const struct umb_restrictions *r, const char *cmd, char *reason, size_t size)
{
	char path[PATH_MAX], next[PATH_MAX];
	const char *what = "the program";
	struct elf_dynamic d = {};
	_cleanup_close_ int fd = -1;
	int depth, kind = -1;

	if (!find_command(cmd, path))
		return 0; /* execvp() says what is wrong */
	for (depth = 0; depth <= INTERPRETER_DEPTH_MAX; depth++) {
		kind = read_script(path, next);
		if (kind != 1)
			break;
		memcpy(path, next, sizeof(path));
		what = "the interpreter of its script";
	}
	if (kind != 0)
		return 0;
	if (denies_mapping(r, path, what, reason, size))
		return 1;
	/* The kernel maps the ELF interpreter too (a relative one from the working
	 * directory, as it opens it). */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || elf_dynamic_read(fd, &d) < 0)
		return 0;
	kind = d.interp && denies_mapping(r, d.interp, "its ELF interpreter", reason, size);
	elf_dynamic_release(&d);
	return kind;
}
