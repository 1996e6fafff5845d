/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - the two ELF sections of a signed binary, byte for byte (DESIGN.md section 3)
 *
 * Every multi-byte field is little-endian. Umbrella reads only ELF files of the machine's
 * own class and byte order (ELFCLASS64, ELFDATA2LSB on x86-64 and arm64); others are
 * refused as malformed.
 *
 * Policy section UMB_POLICY_SECTION (optional; SHT_PROGBITS, alignment 1; with or without
 * SHF_ALLOC: the macro UMBRELLA_EXEC_RESTRICTIONS() of <umbrella/umbrella.h> makes an
 * allocated one, "umbrella-cli binary sign -r" a non-allocated one):
 *
 *   offset size
 *        0    8  magic, UMB_POLICY_MAGIC ("UMBRPOL" and a NUL)
 *        8    4  version, UMB_POLICY_VERSION (2; version 1 is read too, see below)
 *       12    4  text_len: bytes of text that follow
 *       16    n  text: the execute restrictions, a list in the one grammar (DESIGN.md
 *                section 1), UTF-8, not NUL-terminated; 1 <= text_len <= UMB_POLICY_TEXT_MAX
 *     16+n  any  padding: zero bytes only (the macro's terminating NUL), at most 4096
 *
 * Signature section UMB_SIGNATURE_SECTION (SHT_PROGBITS, not SHF_ALLOC, alignment 1),
 * exactly sizeof(struct umb_signature) bytes:
 *
 *   offset size
 *        0    8  magic, UMB_SIGNATURE_MAGIC ("UMBRSIG" and a NUL)
 *        8    4  version, UMB_SIGNATURE_VERSION
 *       12    4  algorithm, UMB_SIG_ED25519_SHA256
 *       16   32  key_id: SHA-256 of the signer's raw 32-byte Ed25519 public key
 *       48   64  signature: Ed25519 (RFC 8032, pure) over the 32-byte digest below
 *
 * The digest is SHA-256 over the whole file except the signature section's content: the
 * bytes [0, sh_offset) followed by [sh_offset + sh_size, end of file). The ELF header, the
 * section headers (the signature section's own offset and size among them), code, data
 * and the policy section are all covered: changing any byte outside the 112 signature
 * bytes breaks the signature.
 *
 * Sections are found by name in the section name table (e_shstrndx); section headers of
 * type SHT_NULL are ignored, and extended section numbering (e_shnum 0) is refused.
 *
 * "umbrella-cli binary sign" leaves every byte of the input up to its last section or
 * segment as it is (allocated sections, and section indices, never move) and writes at
 * the end of the file: the policy section when it is a non-allocated one, the signature
 * section, a new section name table (the old one's bytes and any missing name), zero
 * padding to 8 bytes and the section header table (the old headers, then any new
 * ones). Re-signing cuts that tail first, so it does not grow the file. With -r on a
 * file whose policy is the macro's allocated section, that section's header becomes
 * SHT_NULL (its bytes stay in the file, covered by the digest) and the new non-allocated
 * policy is the only one.
 *
 * A file with no signature section is unsigned. A file is refused (never runs) when it
 * has a signature section that does not verify: two signature or two policy sections,
 * sections that overlap each other or the ELF or section headers or run past the end of
 * the file, a bad magic, version or size, an unknown algorithm or key, a revoked key, a
 * signature that does not match, or a policy the grammar does not accept.
 */
#ifndef UMBRELLA_SIGNED_ELF_H
#define UMBRELLA_SIGNED_ELF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>

/* C++ spells C11's _Static_assert static_assert (g++ knows only that); the header is
 * part of <umbrella/umbrella.h>, which C++ programs include. */
#if defined(__cplusplus) && !defined(_Static_assert)
#define _Static_assert static_assert
#endif
#endif

#define UMB_POLICY_SECTION ".umbrella.policy"
#define UMB_SIGNATURE_SECTION ".umbrella.sig"

#define UMB_POLICY_MAGIC "UMBRPOL"	/* with its NUL: 8 bytes */
/* 2: "net" leaves AF_UNIX sockets ("net:all" denies every family). A policy of
 * version 1 is still read, its "net" as "net:all": what it meant when it was signed. */
#define UMB_POLICY_VERSION 2
#define UMB_POLICY_TEXT_MAX 65536

struct umb_policy_header {
	char magic[8];
	__u32 version;
	__u32 text_len;
};

_Static_assert(sizeof(struct umb_policy_header) == 16, "struct umb_policy_header is ABI");

#define UMB_SIGNATURE_MAGIC "UMBRSIG"	/* with its NUL: 8 bytes */
#define UMB_SIGNATURE_VERSION 1
#define UMB_SIG_ED25519_SHA256 1	/* Ed25519 over the SHA-256 digest of the file */
#define UMB_KEY_ID_LEN 32
#define UMB_ED25519_SIG_LEN 64

struct umb_signature {
	char magic[8];
	__u32 version;
	__u32 algorithm;
	__u8 key_id[UMB_KEY_ID_LEN];
	__u8 signature[UMB_ED25519_SIG_LEN];
};

_Static_assert(sizeof(struct umb_signature) == 112, "struct umb_signature is ABI");

#endif /* UMBRELLA_SIGNED_ELF_H */
