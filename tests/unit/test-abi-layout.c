// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the layout of the structs shared with the BPF programs does not drift */
#include <elf.h>
#include <stddef.h>
#include <string.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>
#include <umbrella/signed-elf-format.h>

#include "tap.h"

#define TAP_OFFSET(type, field, offset) \
	TAP_EQ(offsetof(type, field), offset, #type "." #field " at offset " #offset)

int main(void)
{
	static const unsigned long long bits[] = {
		UMB_CR_NET,	      UMB_CR_SIGNAL,  UMB_CR_FORK,  UMB_CR_EXEC,
		UMB_CR_EXEC_UNSIGNED, UMB_CR_PTRACE,  UMB_CR_MOUNT, UMB_CR_MODULE,
		UMB_CR_SETID,	      UMB_CR_NET_ALL, UMB_CR_KEYS,
	};
	unsigned long long seen = 0;
	bool single = true, distinct = true;

	TAP_EQ(sizeof(struct umb_task_state), 112, "struct umb_task_state is 112 bytes");
	TAP_OFFSET(struct umb_task_state, layer_count, 0);
	TAP_OFFSET(struct umb_task_state, pending_layer, 4);
	TAP_OFFSET(struct umb_task_state, denied_caps, 8);
	TAP_OFFSET(struct umb_task_state, denied_families, 16);
	TAP_OFFSET(struct umb_task_state, denied_capabilities, 24);
	TAP_OFFSET(struct umb_task_state, fs_access, 32);
	TAP_OFFSET(struct umb_task_state, fs_layers, 36);
	TAP_OFFSET(struct umb_task_state, flags, 40);
	TAP_OFFSET(struct umb_task_state, layers, 48);

	TAP_EQ(sizeof(struct umb_layer), 64, "struct umb_layer is 64 bytes");
	TAP_OFFSET(struct umb_layer, denied_families, 8);
	TAP_OFFSET(struct umb_layer, denied_capabilities, 16);
	TAP_OFFSET(struct umb_layer, fs_access, 24);
	TAP_OFFSET(struct umb_layer, origin, 36);
	TAP_OFFSET(struct umb_layer, id, 40);
	TAP_OFFSET(struct umb_layer, refs, 44);
	TAP_OFFSET(struct umb_layer, gen, 52);
	TAP_OFFSET(struct umb_layer, flags, 56);
	TAP_OK(umb_layer_slot(5u << UMB_LAYER_SLOT_BITS | 77) == 77,
	       "a layer id names its slot in the low bits");
	TAP_OK((UMB_LAYER_GEN_MAX << UMB_LAYER_SLOT_BITS >> UMB_LAYER_SLOT_BITS) ==
		       UMB_LAYER_GEN_MAX,
	       "the largest generation fits in a layer id");

	TAP_EQ(sizeof(struct umb_fs_rule), 8, "struct umb_fs_rule is 8 bytes");
	TAP_EQ(sizeof(struct umb_inode_key), 16, "struct umb_inode_key is 16 bytes");
	TAP_EQ(sizeof(struct umb_fs_key), 16, "struct umb_fs_key is 16 bytes");
	TAP_OFFSET(struct umb_fs_key, layer, 4);
	TAP_EQ(sizeof(struct umb_fs_name_key), 24, "struct umb_fs_name_key is 24 bytes");
	TAP_OFFSET(struct umb_fs_name_key, name_hash, 16);
	TAP_EQ(sizeof(struct umb_arm), 24, "struct umb_arm is 24 bytes");
	TAP_OFFSET(struct umb_arm, state, 12);
	TAP_OFFSET(struct umb_arm, start, 16);
	TAP_EQ(sizeof(struct umb_live), 8, "struct umb_live is 8 bytes");
	TAP_EQ(sizeof(struct umb_release), 8, "struct umb_release is 8 bytes");
	TAP_EQ(sizeof(struct umb_ctl), 32, "struct umb_ctl is 32 bytes");
	TAP_OFFSET(struct umb_ctl, flags, 8);
	TAP_OFFSET(struct umb_ctl, pin_ino, 16);
	TAP_OFFSET(struct umb_ctl, verdict_epoch, 24);
	TAP_EQ(sizeof(struct umb_verdict), 16, "struct umb_verdict is 16 bytes");
	TAP_OFFSET(struct umb_verdict, state, 0);
	TAP_OFFSET(struct umb_verdict, layer, 4);
	TAP_OFFSET(struct umb_verdict, epoch, 8);
	TAP_EQ(sizeof(struct umb_invalidation), 16, "struct umb_invalidation is 16 bytes");
	TAP_OFFSET(struct umb_invalidation, inode.ino, 8);
	TAP_EQ(sizeof(struct umb_verdict_record), 384, "struct umb_verdict_record is 384 bytes");
	TAP_OFFSET(struct umb_verdict_record, state, 8);
	TAP_OFFSET(struct umb_verdict_record, flags, 24);
	TAP_OFFSET(struct umb_verdict_record, key_id, 32);
	TAP_OFFSET(struct umb_verdict_record, path, 64);
	TAP_OFFSET(struct umb_verdict_record, reason, 320);
	TAP_EQ(sizeof(struct umb_meta), 16, "struct umb_meta is 16 bytes");
	TAP_OFFSET(struct umb_meta, abi_version, 0);
	TAP_OFFSET(struct umb_meta, next_layer, 4);
	TAP_OFFSET(struct umb_meta, layers_freed, 8);
	TAP_EQ(sizeof(struct umb_layer_desc), 2376, "struct umb_layer_desc is 2376 bytes");
	TAP_OFFSET(struct umb_layer_desc, creator_pid, 8);
	TAP_OFFSET(struct umb_layer_desc, flags, 16);
	TAP_OFFSET(struct umb_layer_desc, key_id, 24);
	TAP_OFFSET(struct umb_layer_desc, creator_comm, 56);
	TAP_OFFSET(struct umb_layer_desc, origin_path, 72);
	TAP_OFFSET(struct umb_layer_desc, text, 328);

	TAP_EQ(sizeof(struct umb_event), 328, "struct umb_event is 328 bytes");
	TAP_OFFSET(struct umb_event, uid, 320);
	TAP_EQ(sizeof(struct umb_event_budget), 16, "struct umb_event_budget is 16 bytes");
	TAP_OFFSET(struct umb_event_budget, dropped, 8);
	TAP_OFFSET(struct umb_event, item, 24);
	TAP_OFFSET(struct umb_event, flags, 36);
	TAP_OFFSET(struct umb_event, ino, 40);
	TAP_OFFSET(struct umb_event, comm, 48);
	TAP_OFFSET(struct umb_event, path, 64);

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
