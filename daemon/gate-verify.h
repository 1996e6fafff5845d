/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the exec gate's verdict on a file it has read (gate-verify.c) */
#ifndef UMBRELLA_GATE_VERIFY_H
#define UMBRELLA_GATE_VERIFY_H

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

#endif /* UMBRELLA_GATE_VERIFY_H */
