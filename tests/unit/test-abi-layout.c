// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test: the structs shared with the BPF programs (bpf-abi.h) have the layout the
 * BPF compiler gave them (abi-btf.h, made by abi-btf-gen from the objects' BTF), and a
 * change of that layout comes with a new UMB_ABI_VERSION: abi-fingerprints lists the
 * fingerprint of each version's layout. Also the constants the ABI fixes.
 */
#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>
#include <umbrella/signed-elf-format.h>

#include "tap.h"

/* One check per struct: its size and every member's offset, as BPF lays them out. */
static void abi_layout_matches_btf(void)
{
	bool ok;
	int members;

#define ABI_STRUCT(s, size)              \
	ok = sizeof(struct s) == (size); \
	members = 0;                     \
	if (!ok)                         \
		TAP_DIAG("struct " #s ": %zu bytes here, %d in BPF", sizeof(struct s), size);
#define ABI_MEMBER(s, m, offset)                                             \
	members++;                                                           \
	if (offsetof(struct s, m) != (offset)) {                             \
		ok = false;                                                  \
		TAP_DIAG("struct " #s "." #m ": offset %zu here, %d in BPF", \
			 offsetof(struct s, m), offset);                     \
	}
#define ABI_STRUCT_END(s)                                                                        \
	TAP_OK(ok,                                                                               \
	       "struct " #s ": its size and the offsets of its %d members as BPF lays them out", \
	       members);
#include "abi-btf.h"
#undef ABI_STRUCT
#undef ABI_MEMBER
#undef ABI_STRUCT_END
	TAP_OK(ABI_STRUCTS >= 20, "every struct of bpf-abi.h is compared (%d)", ABI_STRUCTS);
}

/*
 * The layout's fingerprint is listed in abi-fingerprints with UMB_ABI_VERSION: a pinned
 * map of an older layout must never be adopted as this one (umbrellad compares the
 * versions), so a change of layout needs a new version, and a version has one layout.
 */
static void abi_version_matches_layout(void)
{
	FILE *f = fopen(ABI_FINGERPRINTS, "re");
	char line[256], fingerprint[64];
	int version, listed_as = -1, same_version = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%d %63s", &version, fingerprint) != 2)
			continue;
		if (!strcmp(fingerprint, ABI_FINGERPRINT))
			listed_as = version;
		if (version == UMB_ABI_VERSION)
			same_version++;
	}
	if (f)
		fclose(f);
	if (listed_as != UMB_ABI_VERSION && same_version == 0)
		TAP_DIAG("UMB_ABI_VERSION %d has no layout in %s: add the line \"%d %s\"",
			 UMB_ABI_VERSION, ABI_FINGERPRINTS, UMB_ABI_VERSION, ABI_FINGERPRINT);
	else if (listed_as != UMB_ABI_VERSION)
		TAP_DIAG(
			"the layout's fingerprint %s is %s: a changed layout needs UMB_ABI_VERSION "
			"%d and the line \"%d %s\" in %s",
			ABI_FINGERPRINT,
			listed_as < 0 ? "not listed" : "listed for another version",
			UMB_ABI_VERSION + 1, UMB_ABI_VERSION + 1, ABI_FINGERPRINT,
			ABI_FINGERPRINTS);
	TAP_OK(f && listed_as == UMB_ABI_VERSION && same_version == 1,
	       "the layout is UMB_ABI_VERSION %d's, the one abi-fingerprints lists for it",
	       UMB_ABI_VERSION);
}

int main(void)
{
	static const unsigned long long bits[] = {
		UMB_CR_NET,	      UMB_CR_SIGNAL,  UMB_CR_FORK,  UMB_CR_EXEC,
		UMB_CR_EXEC_UNSIGNED, UMB_CR_PTRACE,  UMB_CR_MOUNT, UMB_CR_MODULE,
		UMB_CR_SETID,	      UMB_CR_NET_ALL, UMB_CR_KEYS,
	};
	unsigned long long seen = 0;
	bool single = true, distinct = true;

	abi_layout_matches_btf();
	abi_version_matches_layout();
	TAP_OK(umb_layer_slot(5u << UMB_LAYER_SLOT_BITS | 77) == 77,
	       "a layer id names its slot in the low bits");
	TAP_OK((UMB_LAYER_GEN_MAX << UMB_LAYER_SLOT_BITS >> UMB_LAYER_SLOT_BITS) ==
		       UMB_LAYER_GEN_MAX,
	       "the largest generation fits in a layer id");

	/* The socket protocol's messages: user space on both ends, a format of its own. */
	TAP_EQ(sizeof(struct umb_request), 16, "struct umb_request is 16 bytes");
	TAP_EQ(sizeof(struct umb_reply), 16, "struct umb_reply is 16 bytes");

	for (size_t i = 0; i < ARRAY_SIZE(bits); i++) {
		single &= bits[i] && !(bits[i] & (bits[i] - 1));
		distinct &= !(seen & bits[i]);
		seen |= bits[i];
	}
	TAP_OK(single, "every UMB_CR_* value is a single bit");
	TAP_OK(distinct, "no two UMB_CR_* values share a bit");
	TAP_OK(UMB_FS_ALL == 7, "fs access kinds are r, w, x");
	TAP_OK(UMB_VERDICT_PENDING == 1 && UMB_VERDICT_UNSIGNED == 2 && UMB_VERDICT_SIGNED == 3 &&
		       UMB_VERDICT_REFUSED == 4 && UMB_VERDICT_STALE == 5 &&
		       UMB_VERDICT_UNVERIFIED == 6 && UMB_VERDICT_LIBRARY == 7,
	       "verdict states are 1..7 (0 stands for a miss in denial records)");
	{
		/* The mark is where signed-elf-format.h says: the first program header's p_paddr. */
		unsigned char head[UMB_SIGNATURE_MARK_HEAD] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
		Elf64_Ehdr eh;
		Elf64_Phdr ph = { .p_paddr = UMB_SIGNATURE_MARK };

		memcpy(&eh, head, sizeof(eh));
		eh.e_phoff = sizeof(Elf64_Ehdr);
		eh.e_phentsize = sizeof(Elf64_Phdr);
		eh.e_phnum = 1;
		memcpy(head, &eh, sizeof(eh));
		memcpy(head + sizeof(eh), &ph, sizeof(head) - sizeof(eh));
		TAP_OK(UMB_SIGNATURE_MARK_PHOFF == sizeof(Elf64_Ehdr) &&
			       UMB_SIGNATURE_MARK_OFFSET ==
				       sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_paddr) &&
			       UMB_SIGNATURE_MARK_HEAD >= UMB_SIGNATURE_MARK_OFFSET + 8 &&
			       umb_elf_marked(head),
		       "the signature mark is the first program header's p_paddr");
		head[UMB_SIGNATURE_MARK_OFFSET] ^= 1;
		TAP_OK(!umb_elf_marked(head), "a p_paddr that is not the mark is no mark");
		head[UMB_SIGNATURE_MARK_OFFSET] ^= 1;
		head[32] = 72; /* e_phoff */
		TAP_OK(!umb_elf_marked(head), "the mark counts only with e_phoff 64");
		head[32] = 64;
		head[56] = 0; /* e_phnum */
		TAP_OK(!umb_elf_marked(head), "the mark counts only with program headers");
	}
	TAP_OK(UMB_ABI_VERSION >= 6, "UMB_ABI_VERSION counts the arm's start time (6)");
	TAP_OK(UMB_PRCTL_YES != 22 && UMB_PRCTL_YES != 1,
	       "Umbrella's prctl yes is neither the kernel's EINVAL nor EPERM");
	return tap_finish();
}
