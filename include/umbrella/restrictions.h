/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * libumbrella - the values of restrictions (part of <umbrella/umbrella.h>): the kinds
 * of items, the rights, the access kinds of a file system rule, and the policy section
 * that UMBRELLA_EXEC_RESTRICTIONS() embeds in a program. The values are ABI: the BPF
 * programs (include/umbrella/bpf-abi.h, internal), umbrellad and signed binaries use
 * them too. Nothing else of the kernel and daemon side is installed.
 */
#ifndef UMBRELLA_RESTRICTIONS_H
#define UMBRELLA_RESTRICTIONS_H

#ifndef __VMLINUX_H__ /* the BPF side gets __u32 & co. from vmlinux.h */
#include <linux/types.h>
#endif

/* C++ spells C11's _Static_assert static_assert (g++ knows only that); the header is
 * part of <umbrella/umbrella.h>, which C++ programs include. */
#if defined(__cplusplus) && !defined(_Static_assert)
#define _Static_assert static_assert
#endif

/* The kind of a restriction item (struct umb_item.kind, docs/design.md section 1). */
enum umb_item_kind {
	UMB_ITEM_FS = 1,	 /* fs:PATH[:MODES]; item: the UMB_FS_* access denied */
	UMB_ITEM_CAP = 2,	 /* a capability restriction; item: its UMB_CR_* bit */
	UMB_ITEM_NET_FAMILY = 3, /* net:FAMILY; item: the address family */
	UMB_ITEM_LINUX_CAP = 4,	 /* cap:NAME; item: the capability number */
};

/*
 * Capability restrictions (the CR items of the grammar, docs/design.md section 1) as bits.
 * A set bit denies the right. The values are ABI: the BPF side, the library, the daemon,
 * the CLI and the signed-binary policy format all use them. "net:FAMILY" and
 * "cap:NAME" have bit sets of their own (struct umb_layer).
 */
enum umb_cap_restriction {
	UMB_CR_NET_ALL = 1 << 0,       /* net:all: creating sockets of any family */
	UMB_CR_SIGNAL = 1 << 1,	       /* signal: signalling outside the domain */
	UMB_CR_FORK = 1 << 2,	       /* fork: creating processes (not threads) */
	UMB_CR_EXEC = 1 << 3,	       /* exec: any exec */
	UMB_CR_EXEC_UNSIGNED = 1 << 4, /* exec-unsigned: exec without a valid signature */
	UMB_CR_PTRACE = 1 << 5,	       /* ptrace: tracing outside the domain */
	UMB_CR_MOUNT = 1 << 6,	       /* mount: mount, umount, pivot_root */
	UMB_CR_MODULE = 1 << 7,	       /* module: loading kernel modules */
	UMB_CR_SETID = 1 << 8,	       /* setid: changing uid or gid */
	/* net: creating sockets of every family but AF_UNIX (local sockets stay, so that
	 * name lookups, sd_notify and rfork() through umbrellad keep working). Until ABI 7
	 * and policy version 2 "net" was bit 0, now UMB_CR_NET_ALL: a program built against
	 * the older header still denies every family. */
	UMB_CR_NET = 1 << 9,
	UMB_CR_KEYS = 1 << 10, /* keys: add_key(2), request_key(2), keyctl(2) */
};

/* Access kinds of a file system restriction (the MODES of "fs:PATH:MODES"). */
enum umb_fs_access {
	UMB_FS_READ = 1 << 0,  /* r: open for reading, readdir, stat, getxattr */
	UMB_FS_WRITE = 1 << 1, /* w: write, create, delete, rename, link, metadata, xattrs */
	UMB_FS_EXEC = 1 << 2,  /* x: exec, mmap/mprotect with PROT_EXEC */
	UMB_FS_ALL = UMB_FS_READ | UMB_FS_WRITE | UMB_FS_EXEC, /* "fs:PATH" */
};

/*
 * The policy section of a program (the whole format of signed binaries, with the
 * signature and the digest, is in include/umbrella/signed-elf-format.h of the source
 * tree). Every multi-byte field is little-endian. Section UMB_POLICY_SECTION,
 * SHT_PROGBITS, alignment 1, with or without SHF_ALLOC (UMBRELLA_EXEC_RESTRICTIONS()
 * makes an allocated one, "umbrella-cli binary sign -r" a non-allocated one):
 *
 *   offset size
 *        0    8  magic, UMB_POLICY_MAGIC ("UMBRPOL" and a NUL)
 *        8    4  version, UMB_POLICY_VERSION (2; version 1 is read too, see below)
 *       12    4  text_len: bytes of text that follow
 *       16    n  text: the execute restrictions, a list in the one grammar (docs/design.md
 *                section 1), UTF-8, not NUL-terminated; 1 <= text_len <= UMB_POLICY_TEXT_MAX
 *     16+n  any  padding: zero bytes only (the macro's terminating NUL), at most 4096
 */
#define UMB_POLICY_SECTION ".umbrella.policy"

#define UMB_POLICY_MAGIC    "UMBRPOL" /* with its NUL: 8 bytes */
/* 2: "net" leaves AF_UNIX sockets ("net:all" denies every family). A policy of
 * version 1 is still read, its "net" as "net:all": what it meant when it was signed. */
#define UMB_POLICY_VERSION  2
#define UMB_POLICY_TEXT_MAX 65536

struct umb_policy_header {
	char magic[8];
	__u32 version;
	__u32 text_len;
};

_Static_assert(sizeof(struct umb_policy_header) == 16, "struct umb_policy_header is ABI");

#endif /* UMBRELLA_RESTRICTIONS_H */
