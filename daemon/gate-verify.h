/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec gate's verdict on a file it has read (gate-verify.c) */
#ifndef UMBRELLA_GATE_VERIFY_H
#define UMBRELLA_GATE_VERIFY_H

#include <linux/types.h>

struct keyring;
struct signed_elf;

/*
 * gate_verdict_of_read() - the verdict on a file that signed_elf_read() (or
 * signed_elf_begin() and _step()) returned @r for, with @error, and filled @e
 * @ret_reason: why, for the log and the verdict record (@error, or a static string)
 *
 * A malformed ELF file, or a signature section in a file larger than signing makes, is
 * REFUSED whatever it claims; a file read is what @k says of its signature.
 * Return: UMB_VERDICT_SIGNED, _UNSIGNED or _REFUSED; or @r (< 0) when the file could
 * not be read: it gets no verdict (the caller says why, with @error).
 */
int gate_verdict_of_read(const struct keyring *k, const struct signed_elf *e, int r,
			 const char *error, const char **ret_reason);

/*
 * gate_verdict_flags() - the UMB_VERDICT_F_* of the file @fd, read with pread(): to be
 * called between PENDING and its replacement, so that a change to the file meanwhile
 * voids what was read (the final update fails). UMB_VERDICT_F_LIBRARY for a shared
 * library as binary sign decides (cli/binary.c): elf_dynamic_is_library() of what
 * elf_dynamic_read() read; a file it cannot read (malformed, or beyond its bounds) was
 * signed as a program and is one.
 * Return: 0; -ENOMEM, -EIO or another -errno of reading (no verdict: the caller says
 * why).
 */
int gate_verdict_flags(int fd, __u32 *ret_flags);

#endif /* UMBRELLA_GATE_VERIFY_H */
