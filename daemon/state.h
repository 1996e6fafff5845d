/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - the one user-space writer of umb_ctl and umb_meta.
 *
 * umb_ctl (one struct umb_ctl, which every hook reads) holds umbrellad's state as the
 * kernel sees it: the mode (flags), the verdict epoch, and the daemon's registration
 * (daemon_tgid and the pin directory's inode: self-protection). umb_meta (one struct
 * umb_meta, pinned first, read by umbrella-cli) holds the ABI version of the pinned
 * state and the count of layers freed.
 *
 * An array map's value is written whole, so each change here is a read, modify and
 * write of the entry: it keeps the fields it does not name only because every user-space
 * write goes through these functions, under one lock (umbrellad's main thread writes the
 * mode and its registration, the exec gate's thread the epoch; the VM tests and the
 * benchmark, which load their own maps, use them too). The BPF side writes one field:
 * it clears daemon_tgid when umbrellad's thread group leader is freed (protect.bpf.h),
 * when no umbrellad writes any more, and the next one waits for it (pin.c).
 */
#ifndef UMBRELLA_STATE_H
#define UMBRELLA_STATE_H

#include <stdbool.h>

#include <umbrella/bpf-abi.h>

/* The fields of umb_ctl that state_ctl_update() writes. */
enum state_ctl_field {
	STATE_CTL_DAEMON = 1 << 0, /* daemon_tgid: who umbrellad is (0: nobody) */
	STATE_CTL_PIN = 1 << 1,	   /* pin_dev, pin_ino: the pin directory it protects */
	STATE_CTL_FLAGS = 1 << 2,  /* flags: UMB_CTL_PERMISSIVE, UMB_CTL_UNSIGNED_DENY */
	STATE_CTL_EPOCH = 1 << 3,  /* verdict_epoch */
};

/* Reads umb_ctl (@ctl_fd) into @ret. Return: 0 or -errno. */
int state_ctl_read(int ctl_fd, struct umb_ctl *ret);

/* Sets the fields @fields (enum state_ctl_field) of umb_ctl to those of @v, keeping the
 * others, in one write. Return: 0 or -errno. */
int state_ctl_update(int ctl_fd, unsigned int fields, const struct umb_ctl *v);

/* The mode: umb_ctl.flags. */
int state_set_mode(int ctl_fd, __u32 flags);

/* umb_ctl.verdict_epoch: verdicts of other epochs count as none. */
int state_set_verdict_epoch(int ctl_fd, __u32 epoch);

/*
 * state_register_daemon() - makes @tgid umbrellad in umb_ctl, protecting the pin
 * directory (@pin_dev, @pin_ino) and running in the mode @flags, in one write: from
 * then on the programs keep every other process out of the maps and pins. The verdict
 * epoch a previous umbrellad left stays. Return: 0 or -errno.
 */
int state_register_daemon(int ctl_fd, __u32 tgid, __u32 pin_dev, __u64 pin_ino, __u32 flags);

/* Clears umb_ctl.daemon_tgid if it is @tgid (a clean exit; else the BPF side clears it
 * when @tgid's leader is freed). Return: 0 (also when it was not @tgid) or -errno. */
int state_unregister_daemon(int ctl_fd, __u32 tgid);

/* Creates umb_meta (named @name) for this ABI version, with its value in @ret_meta.
 * Return: its fd (the caller pins it) or -errno. */
int state_meta_create(const char *name, struct umb_meta *ret_meta);

/* Counts one freed layer in @meta and writes it to umb_meta @meta_fd (-1: none, the
 * tests). @meta is umbrellad's copy: nothing else changes umb_meta once it is made.
 * Return: 0 or -errno. */
int state_meta_count_freed(int meta_fd, struct umb_meta *meta);

#endif /* UMBRELLA_STATE_H */
