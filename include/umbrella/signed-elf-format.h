/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella (internal: the BPF side, the signing library, the CLI) - the two ELF sections
 * of a signed binary, byte for byte (docs/design.md section 3)
 *
 * Every multi-byte field is little-endian. Umbrella reads only ELF files of the machine's
 * own class and byte order (ELFCLASS64, ELFDATA2LSB on x86-64 and arm64); others are
 * refused as malformed.
 *
 * Policy section UMB_POLICY_SECTION (optional): its layout, struct umb_policy_header and
 * the text, is part of libumbrella's API, in <umbrella/restrictions.h>.
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
 * The signature mark: the kernel sees only the first 256 bytes of a file at exec
 * (bprm->buf), never its sections, so "umbrella-cli binary sign" also writes the mark
 * UMB_SIGNATURE_MARK into the p_paddr field of the first program header, at file offset
 * UMB_SIGNATURE_MARK_OFFSET (88). It says "this file claims a signature": on an exec
 * without a verdict (umbrellad down, a file system the gate does not cache) BPF refuses
 * a marked file with EPERM instead of running it as unsigned (umb_elf_marked()). Why
 * there: the gABI leaves p_paddr "unspecified" for executables and shared objects, and
 * neither the kernel's ELF loader nor glibc's ld.so reads it, while the identification
 * padding e_ident[EI_PAD..] is refused by ld.so ("nonzero padding in e_ident") for
 * shared objects and for "ld.so ./program"; so the mark works for ET_EXEC, PIE and
 * shared objects alike. The value, "UMBRSIGN", is no canonical address on x86-64 or
 * arm64, so no real p_paddr (which linkers set to p_vaddr) is ever mistaken for it.
 * Signing requires the program headers right after the ELF header (e_phoff 64, where
 * every linker puts them) and refuses a file without program headers. The mark is
 * inside the digest: it cannot be added to or moved in a signed file without breaking
 * the signature. A marked file without a signature section is refused (malformed).
 * A file signed before the mark existed has a valid signature and no mark: it verifies
 * as before, and a miss follows the mode, as for an unsigned file.
 *
 * A file with no signature section is unsigned. A file is refused (never runs) when it
 * has a signature section that does not verify: two signature or two policy sections,
 * sections that overlap each other or the ELF or section headers or run past the end of
 * the file, a bad magic, version or size, an unknown algorithm or key, a revoked key, a
 * signature that does not match, or a policy the grammar does not accept.
 */
#ifndef UMBRELLA_SIGNED_ELF_FORMAT_H
#define UMBRELLA_SIGNED_ELF_FORMAT_H

#include <umbrella/restrictions.h> /* the policy section */

#define UMB_SIGNATURE_SECTION ".umbrella.sig"

#define UMB_SIGNATURE_MAGIC    "UMBRSIG" /* with its NUL: 8 bytes */
#define UMB_SIGNATURE_VERSION  1
#define UMB_SIG_ED25519_SHA256 1 /* Ed25519 over the SHA-256 digest of the file */
#define UMB_KEY_ID_LEN	       32
#define UMB_ED25519_SIG_LEN    64

struct umb_signature {
	char magic[8];
	__u32 version;
	__u32 algorithm;
	__u8 key_id[UMB_KEY_ID_LEN];
	__u8 signature[UMB_ED25519_SIG_LEN];
};

_Static_assert(sizeof(struct umb_signature) == 112, "struct umb_signature is ABI");

/* The signature mark (see above): the 8 bytes "UMBRSIGN" as a little-endian p_paddr. */
#define UMB_SIGNATURE_MARK	  0x4e47495352424d55ULL
#define UMB_SIGNATURE_MARK_OFFSET 88 /* e_phoff (64) + offsetof(Elf64_Phdr, p_paddr) */
#define UMB_SIGNATURE_MARK_PHOFF  64 /* sizeof(Elf64_Ehdr): where the mark needs e_phoff */
#define UMB_SIGNATURE_MARK_HEAD	  96 /* bytes of the file umb_elf_marked() reads */

/* The little-endian 64-bit value at @p. */
static inline __u64 umb_le64(const unsigned char *p)
{
	__u64 v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * umb_elf_marked() - whether the first UMB_SIGNATURE_MARK_HEAD bytes @head of a file
 * (zeros past its end) carry the signature mark: a 64-bit little-endian ELF file whose
 * program headers (of the ELF64 size, at least one) start at offset 64, and the first
 * one's p_paddr is UMB_SIGNATURE_MARK. Shared by BPF (bprm->buf), the reader and the
 * signer, so that all three agree on what a mark is.
 */
static inline int umb_elf_marked(const unsigned char *head)
{
	return head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F' &&
	       head[4] == 2 /* ELFCLASS64 */ && head[5] == 1 /* ELFDATA2LSB */ &&
	       umb_le64(head + 32) == UMB_SIGNATURE_MARK_PHOFF /* e_phoff */ &&
	       (head[54] | head[55] << 8) == 56 /* e_phentsize */ &&
	       (head[56] | head[57] << 8) != 0 /* e_phnum */ &&
	       umb_le64(head + UMB_SIGNATURE_MARK_OFFSET) == UMB_SIGNATURE_MARK;
}

#endif /* UMBRELLA_SIGNED_ELF_FORMAT_H */
