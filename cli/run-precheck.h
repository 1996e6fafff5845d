/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli run - whether the new layer would keep CMD from starting at all */
#ifndef UMBRELLA_CLI_RUN_PRECHECK_H
#define UMBRELLA_CLI_RUN_PRECHECK_H

#include <stddef.h>

#include <umbrella/umbrella.h>

/*
 * run_precheck() - whether a layer of @r, taking effect at CMD's exec, would deny
 * mapping CMD's own code: its program (after "#!" interpreters) or the program's ELF
 * interpreter (ld.so), which the kernel maps after the layer is on the task, so that
 * CMD would die of SIGSEGV at its first instruction.
 * @cmd: CMD's name, looked up in $PATH as execvp() does when it has no '/'
 * @reason: on 1, what would deny and why ("fs:/ denies mapping /usr/bin/true (the
 *          program) as code"), for the user
 *
 * Only a message before the exec, never the enforcement (the kernel's): it claims a
 * denial only where the kernel's match is certain (an fs item with x above the file's
 * canonical path, as the layer canonicalises its own paths; exec-unsigned on a file
 * without a signature section), and says nothing where it cannot know (a signature
 * that may or may not verify, an object reached by another name, a library ld.so maps).
 * It does not know the system mode: in the permissive one nothing is killed, and the
 * caller asks first (run.c, system_permissive()).
 * Return: 1 when the layer would deny, else 0.
 */
int run_precheck(const struct umb_restrictions *r, const char *cmd, char *reason, size_t size);

#endif /* UMBRELLA_CLI_RUN_PRECHECK_H */
