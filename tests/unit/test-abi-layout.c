// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the layout of the structs shared with the BPF programs does not drift */
#include <stddef.h>

#include <umbrella/bpf-abi.h>

#include "tap.h"

int main(void)
{
	static const unsigned long long bits[] = {
		UMB_CR_NET,   UMB_CR_SIGNAL, UMB_CR_FORK,   UMB_CR_EXEC,  UMB_CR_EXEC_UNSIGNED,
		UMB_CR_PTRACE, UMB_CR_MOUNT, UMB_CR_MODULE, UMB_CR_SETID,
	};
	unsigned long long seen = 0;
	bool single = true, distinct = true;

	TAP_EQ(sizeof(struct umb_task_state), 16, "struct umb_task_state is 16 bytes");
	TAP_EQ(offsetof(struct umb_task_state, layer_count), 0, "layer_count at offset 0");
	TAP_EQ(offsetof(struct umb_task_state, __pad0), 4, "__pad0 at offset 4");
	TAP_EQ(offsetof(struct umb_task_state, denied_caps), 8, "denied_caps at offset 8");

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		single &= bits[i] && !(bits[i] & (bits[i] - 1));
		distinct &= !(seen & bits[i]);
		seen |= bits[i];
	}
	TAP_OK(single, "every UMB_CR_* value is a single bit");
	TAP_OK(distinct, "no two UMB_CR_* values share a bit");
	return tap_finish();
}
