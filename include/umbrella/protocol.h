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
 * to that process. Since version 4 every request may bring, as its last descriptor
 * (SCM_RIGHTS), a pidfd the sender opened of itself (pidfd_open(getpid())): before
 * Linux 6.5 (no SO_PEERPIDFD) umbrellad arms a thread only for a request with one,
 * whose process must have the sender's pid and run (a sender that exited and whose
 * pid was reused before umbrellad read the request is refused).
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
 *                     With UMB_ARM_PERMISSIVE its denials are only recorded
 *                     (UMB_LAYER_PERMISSIVE): the child's other layers still enforce.
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
 *   UMB_OP_FOLLOW     request: header, then optionally a __u32 layer id. reply: header.
 *                     Then, on this connection until it closes, one struct umb_denial
 *                     per denial by a followed layer. Followed: with no id (or 0), each
 *                     layer that the caller's process asks for from then on (so that
 *                     "umbrella-cli run" misses none of its command's denials); with an
 *                     id, that live layer, if the caller's process asked for it with
 *                     the caller's uid, or the caller is root and carries no layer:
 *                     a user sees the denials of the tasks they restricted, nobody
 *                     else's. A record the connection cannot take at once is dropped,
 *                     never waited for, and counted (umb_denial.dropped).
 *                     The same request with UMB_FOLLOW_END ends the stream: umbrellad
 *                     passes on the records the kernel had written by then, then one
 *                     of kind UMB_DENIAL_END (no reply header; a reply on error).
 *                     At most UMB_FOLLOW_PER_UID such connections per uid.
 *   UMB_OP_EVENTS     request: header. reply: header, then up to UMB_EVENTS_MAX struct
 *                     umb_event_record, oldest first: the last denials by the layers of
 *                     the caller's uid (as charged for its layers: a restricted root
 *                     counts as one user) that umbrellad read since it started, from its
 *                     memory, not the journal. Root that carries no layer gets the last
 *                     of every uid's. A record of another uid's layer never reaches a
 *                     caller; one whose layer was freed before umbrellad read it is kept
 *                     for nobody.
 * A reply with error < 0 carries a NUL-terminated message after the header.
 */
/* The most bytes of a reply's message, its NUL included: umbrellad cuts a longer one,
 * and a reader's buffer this large holds any. */
#define UMB_REPLY_TEXT_MAX   512
#define UMB_SOCKET_PATH	     "/run/umbrella/umbrellad.sock"
/* 2: no UMB_OP_DISARM; 3: fs items as descriptors; 4: the sender's pidfd. umbrellad
 * takes 3 too, but before Linux 6.5 arms no thread for it. */
#define UMB_PROTOCOL_VERSION 4
#define UMB_MSG_MAX	     65536

/* The table byte of an fs item: which descriptors of it follow. */
#define UMB_FS_REF_DIR	  0x1 /* the directory holding its last name (not for "/") */
#define UMB_FS_REF_OBJECT 0x2 /* the object (when it exists) */

/* Descriptors in one message: the kernel passes at most SCM_MAX_FD (253), an fs item
 * takes two. A request with more fs items is refused (E2BIG). */
#define UMB_MSG_MAX_FDS	 252
#define UMB_MAX_FS_ITEMS (UMB_MSG_MAX_FDS / 2)

enum umb_op {
	UMB_OP_ARM_CHILD = 1,
	UMB_OP_ARM_SELF = 2,
	/* 3 was UMB_OP_DISARM (version 1) */
	UMB_OP_FLUSH_VERDICTS = 4,
	UMB_OP_FOLLOW = 5, /* added in version 3: older requests are unchanged */
	UMB_OP_EVENTS = 6, /* added in version 4: older requests are unchanged */
};

/* umb_request.flags of UMB_OP_FOLLOW */
#define UMB_FOLLOW_END 0x1

#define UMB_FOLLOW_PER_UID 16

enum umb_denial_kind {
	UMB_DENIAL_RECORD = 1, /* a denial */
	UMB_DENIAL_END = 2,    /* the last record (UMB_FOLLOW_END) */
};

/* One record of an UMB_OP_FOLLOW stream: the fields of the journal's record (journal.h),
 * as text, NUL-terminated. */
struct umb_denial {
	__u32 kind;    /* enum umb_denial_kind */
	__u32 layer;   /* the layer that denied */
	__u32 pid;     /* tgid of the denied task */
	__u32 dropped; /* records this connection lost so far, in all */
	__u32 flags;   /* UMB_EVENT_PERMISSIVE (bpf-abi.h): allowed, only recorded */
	__u32 __pad0;  /* zero */
	char comm[16];
	char hook[32];	      /* the LSM hook: "file_open" */
	char restriction[64]; /* the item: "fs:r", "net:inet4", "signal" */
	char object[320];     /* a path, "inode MAJ:MIN/INO", "pid N", "socket inet6" or "-" */
};

_Static_assert(sizeof(struct umb_denial) == 456, "struct umb_denial is ABI");

/* Records in one UMB_OP_EVENTS reply (and kept per uid): the reply fits UMB_MSG_MAX. */
#define UMB_EVENTS_MAX 128

/* One record of an UMB_OP_EVENTS reply. */
struct umb_event_record {
	__u64 seq;		  /* umbrellad's count of records kept, from 1 since it started */
	__u64 time_usec;	  /* CLOCK_REALTIME when umbrellad read it */
	struct umb_denial denial; /* kind UMB_DENIAL_RECORD, dropped 0 */
};

_Static_assert(sizeof(struct umb_event_record) == 472, "struct umb_event_record is ABI");
_Static_assert(16 + UMB_EVENTS_MAX * sizeof(struct umb_event_record) <= UMB_MSG_MAX,
	       "an UMB_OP_EVENTS reply fits one message");

struct umb_request {
	__u32 version; /* UMB_PROTOCOL_VERSION */
	__u32 op;      /* enum umb_op */
	__u32 tid;     /* the calling thread */
	__u32 flags;   /* UMB_ARM_ON_EXEC, UMB_ARM_PERMISSIVE or 0 */
};

/* umb_request.flags of UMB_OP_ARM_CHILD (beside UMB_ARM_ON_EXEC, bpf-abi.h): a layer
 * whose denials are recorded, not enforced (UMB_LAYER_PERMISSIVE). Refused with
 * UMB_OP_ARM_SELF: a task tries a list out on a child it starts, not on itself. */
#define UMB_ARM_PERMISSIVE 0x100

_Static_assert(sizeof(struct umb_request) == 16, "struct umb_request is ABI");

struct umb_reply {
	__s32 error;  /* 0 or -errno */
	__u32 layer;  /* UMB_OP_ARM_*: the layer id */
	__u32 __pad1; /* zero */
	__u32 __pad0; /* zero */
};

_Static_assert(sizeof(struct umb_reply) == 16, "struct umb_reply is ABI");

#endif /* UMBRELLA_PROTOCOL_H */
