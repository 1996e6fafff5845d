/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Umbrella - the wire protocol between libumbrella and umbrellad */
#ifndef UMBRELLA_PROTOCOL_H
#define UMBRELLA_PROTOCOL_H

#include <linux/types.h>

/*
 * One request and one reply per message on a SOCK_SEQPACKET unix socket, by default
 * UMB_SOCKET_PATH (umbrellad --socket, and $UMBRELLA_SOCKET for the library). The
 * caller is identified by the kernel (a pidfd of the process that connected), never by
 * what it says: each request must be sent by the process that connected
 * (SCM_CREDENTIALS, which umbrellad receives), and a thread id in a request must belong
 * to that process.
 *
 *   UMB_OP_ARM_CHILD  request: header + the restriction list (text form, NUL-terminated)
 *                     + one byte per fs item of the list, in order (UMB_FS_REF_*),
 *                     with the descriptors those bytes announce (SCM_RIGHTS, in the
 *                     same message, in the order of the items, each item's directory
 *                     before its object). The caller resolves each fs path itself, in
 *                     its own root and mount namespace and with its own permissions:
 *                     the text carries the canonical path (its last name is the name
 *                     restricted in the directory), the descriptors (O_PATH) the
 *                     objects; umbrellad resolves no path of the caller's.
 *                     reply:   header (layer = the new layer's id)
 *                     The layer is pushed on the next process the thread forks (or
 *                     pending until that child's next exec, with UMB_ARM_ON_EXEC).
 *   UMB_OP_ARM_SELF   the same, for the thread itself, applied by its
 *                     prctl(UMB_PRCTL_APPLY) (pending until its next exec, with
 *                     UMB_ARM_ON_EXEC).
 *                     The caller learns from the kernel whether the layer was
 *                     applied (prctl UMB_PRCTL_DISARM, UMB_PRCTL_CARRIES): one round
 *                     trip per rfork.
 *   UMB_OP_FLUSH_VERDICTS  request: header. reply: header. Forgets every exec verdict
 *                     (umbrella-cli verdict flush): each file is verified again at its
 *                     next exec. Root only (SO_PEERCRED uid 0); layers do not matter,
 *                     since a flush can only make umbrellad check again.
 * A reply with error < 0 carries a NUL-terminated message after the header.
 */
#define UMB_SOCKET_PATH "/run/umbrella/umbrellad.sock"
#define UMB_PROTOCOL_VERSION 3 /* 2: no UMB_OP_DISARM; 3: fs items as descriptors */
#define UMB_MSG_MAX 65536

/* The table byte of an fs item: which descriptors of it follow. */
#define UMB_FS_REF_DIR	  0x1 /* the directory holding its last name (not for "/") */
#define UMB_FS_REF_OBJECT 0x2 /* the object (when it exists) */

/* Descriptors in one message: the kernel passes at most SCM_MAX_FD (253), an fs item
 * takes two. A request with more fs items is refused (E2BIG). */
#define UMB_MSG_MAX_FDS	  252
#define UMB_MAX_FS_ITEMS  (UMB_MSG_MAX_FDS / 2)

enum umb_op {
	UMB_OP_ARM_CHILD = 1,
	UMB_OP_ARM_SELF = 2,
	/* 3 was UMB_OP_DISARM (version 1) */
	UMB_OP_FLUSH_VERDICTS = 4,
};

struct umb_request {
	__u32 version; /* UMB_PROTOCOL_VERSION */
	__u32 op;      /* enum umb_op */
	__u32 tid;     /* the calling thread */
	__u32 flags;   /* UMB_ARM_ON_EXEC or 0 */
};

_Static_assert(sizeof(struct umb_request) == 16, "struct umb_request is ABI");

struct umb_reply {
	__s32 error;  /* 0 or -errno */
	__u32 layer;  /* UMB_OP_ARM_*: the layer id */
	__u32 __pad1; /* zero */
	__u32 __pad0; /* zero */
};

_Static_assert(sizeof(struct umb_reply) == 16, "struct umb_reply is ABI");

#endif /* UMBRELLA_PROTOCOL_H */
