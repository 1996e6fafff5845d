/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * signing (internal, static: umbrella-cli only) - signing an ELF file: its policy and
 * signature sections written, and the signature mark (include/umbrella/signed-elf-format.h).
 * umbrellad verifies and never signs: it does not link this part (signing/meson.build).
 */
#ifndef UMBRELLA_SIGNED_ELF_SIGN_H
#define UMBRELLA_SIGNED_ELF_SIGN_H

#include <openssl/evp.h>

/*
 * signed_elf_sign() - sign the ELF file @path in place (atomically: a new file renamed
 * over it, with the old file's mode)
 * @key: an Ed25519 private key
 * @policy_text: the execute restrictions to put in the policy section (replacing any
 *               the file has), already checked by the parser; NULL keeps the file's own
 * @flags: enum signed_elf_sign_flags
 *
 * With @policy_text NULL, a file without a policy section is refused unless @flags has
 * SIGNED_ELF_SIGN_NO_POLICY: a program built with UMBRELLA_EXEC_RESTRICTIONS() whose
 * section the linker dropped would otherwise be signed to run unrestricted. With that
 * flag, a file that has a policy section is refused: it would not run unrestricted.
 * Re-signing a signed file replaces its signature (and, with @policy_text, its policy);
 * signing twice gives the same size as signing once.
 * Return: 0, -EBADMSG for a file that is not an ELF file Umbrella can sign, -ENODATA
 * for a file without a policy and no flag, -EEXIST for a file with one and the flag,
 * -EINVAL for the flag with @policy_text, -ENOTSUP for a file carrying security.evm
 * (file-replace.h), or -errno.
 * The signed file carries the signature mark (include/umbrella/signed-elf-format.h): a file
 * without program headers, or whose program headers do not follow the ELF header, is
 * refused (-EBADMSG), since the kernel could not see its mark at exec.
 */
int signed_elf_sign(const char *path, EVP_PKEY *key, const char *policy_text, unsigned int flags,
		    char **ret_error);

/* signed_elf_sign() flags */
enum signed_elf_sign_flags {
	/* The file has no policy section and is meant to run without restrictions. */
	SIGNED_ELF_SIGN_NO_POLICY = 1 << 0,
};

#endif /* UMBRELLA_SIGNED_ELF_SIGN_H */
