// SPDX-License-Identifier: GPL-2.0-only
/* Umbrella - (being written) */
#include "maps.bpf.h"
