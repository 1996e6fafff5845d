/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Umbrella - what umbrellad writes to the systemd journal, and umbrella-cli events reads:
 * the MESSAGE_IDs of its entries and the names of their fields. Both sides take them
 * from here, so a renamed field cannot leave the reader matching nothing.
 */
#ifndef UMBRELLA_JOURNAL_H
#define UMBRELLA_JOURNAL_H

/*
 * MESSAGE_IDs: fixed 128-bit ids (made once, with python's uuid4), as sd-id128 prints
 * them. `journalctl MESSAGE_ID=...` finds the entries of one kind whatever their text.
 */
/* One denial: a task was refused an access by one of its layers (PRIORITY 5, notice). */
#define UMB_MESSAGE_DENIED     "cd38e43964fc4b82908acab493662f3c"
/* The rate limit held back UMB_FIELD_SUPPRESSED denials of UMB_FIELD_UID (absent: of the
 * uids beyond those counted one by one) in the interval that ended. */
#define UMB_MESSAGE_SUPPRESSED "06564f98d4134ce4a9fc2a6baa5bb2ab"
/* UMB_FIELD_DROPPED denial records of UMB_FIELD_UID never reached umbrellad: beyond that
 * uid's budget, or the ring buffer was full. Without UMB_FIELD_UID: records whose uid's
 * count was lost (an evicted budget entry). */
#define UMB_MESSAGE_DROPPED    "8b542c777e544da9ba210aa33ff995d1"

/* umbrellad's exec gate refused a binary (PRIORITY 4, warning): a signature section
 * that does not verify, or a file it could not verify in time. */
#define UMB_MESSAGE_REFUSED_BINARY "c2b83e4cb3914fa1a091cebf012b0769"

/* Fields of a denial; all values are text, numbers in decimal. */
#define UMB_FIELD_PID	      "UMBRELLA_PID"	     /* tgid of the denied task */
#define UMB_FIELD_TID	      "UMBRELLA_TID"	     /* its thread id */
#define UMB_FIELD_COMM	      "UMBRELLA_COMM"	     /* its comm */
#define UMB_FIELD_HOOK	      "UMBRELLA_HOOK"	     /* the LSM hook: file_open, task_kill... */
#define UMB_FIELD_RESTRICTION "UMBRELLA_RESTRICTION" /* the item: fs:r, net:inet4, signal */
#define UMB_FIELD_LAYER	      "UMBRELLA_LAYER"	     /* id of the layer that denied */
/* What was denied: a path, "inode MAJ:MIN/INO" when no path is known, "pid N", "socket
 * FAMILY" (socket_create: the family by its net:FAMILY name, or its number), or "-". */
#define UMB_FIELD_OBJECT      "UMBRELLA_OBJECT"
#define UMB_FIELD_INODE	      "UMBRELLA_INODE"	    /* fs: the object's inode, MAJ:MIN/INO */
#define UMB_FIELD_TARGET_PID  "UMBRELLA_TARGET_PID" /* signal, ptrace: the target's pid */
/* "1" in permissive mode: the access was allowed, enforcing would have denied it. */
#define UMB_FIELD_PERMISSIVE  "UMBRELLA_PERMISSIVE"
/* The uid whose record budget and rate limit the denial took (struct umb_event.uid): the
 * uid of the layer that denied, or the task's for a denial by no layer. Also in the
 * UMB_MESSAGE_SUPPRESSED and UMB_MESSAGE_DROPPED entries of one uid. */
#define UMB_FIELD_UID	      "UMBRELLA_UID"

/* Fields of an UMB_MESSAGE_REFUSED_BINARY entry, with UMB_FIELD_PID (the process whose
 * exec was refused) and UMB_FIELD_OBJECT (the binary's path). */
#define UMB_FIELD_VERDICT "UMBRELLA_VERDICT" /* "refused" (cached) or "not verified" */
#define UMB_FIELD_REASON  "UMBRELLA_REASON"  /* why: "unknown key", "signature does not match" */
#define UMB_FIELD_KEY_ID  "UMBRELLA_KEY_ID"  /* the key id the signature names, or "-" */

/* Field of an UMB_MESSAGE_SUPPRESSED entry: how many denials were not logged. */
#define UMB_FIELD_SUPPRESSED "UMBRELLA_SUPPRESSED"
/* Field of an UMB_MESSAGE_DROPPED entry: how many records the ring buffer lost. */
#define UMB_FIELD_DROPPED    "UMBRELLA_DROPPED"

#endif /* UMBRELLA_JOURNAL_H */
