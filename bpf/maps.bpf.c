// SPDX-License-Identifier: GPL-2.0-only
/* Umbrella - the one definition of every map, and the object's licence */
#define UMB_MAPS_OWNER
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";
