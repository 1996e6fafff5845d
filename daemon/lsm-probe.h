/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - is the BPF LSM active on this kernel? */
#ifndef UMBRELLA_LSM_PROBE_H
#define UMBRELLA_LSM_PROBE_H

/*
 * Checks /sys/kernel/security/lsm for "bpf".
 * Return: 0 when the BPF LSM is active, -ENOENT when it is not in the active list,
 * -ENODEV when the list does not exist (securityfs not mounted), -errno when it cannot be read.
 */
int lsm_probe_bpf_active(void);

/* A one-line explanation of a negative result of lsm_probe_bpf_active(), with the fix. */
const char *lsm_probe_hint(int r);

#endif /* UMBRELLA_LSM_PROBE_H */
