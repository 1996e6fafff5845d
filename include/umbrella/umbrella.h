/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* libumbrella - process-based access control for the processes a program starts */
#ifndef UMBRELLA_UMBRELLA_H
#define UMBRELLA_UMBRELLA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <umbrella/restrictions.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Restrictions in text form (docs/design.md section 1), one grammar everywhere:
 *
 *   fs:PATH          every access to PATH (a directory: everything under it; "/": all)
 *   fs:PATH:MODES    only the access kinds in MODES (letters r, w, x) on PATH
 *   net              creating sockets of every family but unix: IP, packet, netlink,
 *                    bluetooth, vsock, ... (local sockets stay: name lookups, sd_notify,
 *                    rfork() through umbrellad)
 *   net:unix         creating local (AF_UNIX) sockets; rfork() then cannot reach umbrellad
 *   net:all          creating sockets of any family (net and net:unix together)
 *   net:FAMILY       creating sockets of FAMILY (inet = inet4 + inet6, inet4, inet6,
 *                    unix, netlink, packet, bluetooth, vsock, can, ...)
 *   signal, fork, exec, exec-unsigned, ptrace, mount, module, setid, keys
 *   cap:NAME         using the Linux capability NAME (e.g. cap:net_raw)
 *
 * A list separates items with commas; in a PATH, a comma, a backslash, a colon or white
 * space is escaped with a backslash (white space must be, at the end of a PATH). PATH
 * must be absolute. An unescaped colon always starts MODES, so a colon in a PATH must be
 * written "\:": "fs:/etc:R", "fs:/etc:rwz" and "fs:/a:b:r" are errors, never paths.
 *
 * "net" used to mean every family, unix too (now "net:all"). Written then, a signed
 * binary's policy (version 1 of the section) keeps that meaning, and so does a program
 * built then: UMB_CR_NET_ALL has the old value of UMB_CR_NET.
 */

/*
 * Errors: one convention, libbpf's. A function returning int or pid_t returns a
 * negative errno value on failure and sets errno to the same value; one returning a
 * pointer returns NULL and sets errno. libumbrella(3) lists each function's errors.
 */

/* One parsed restriction item. */
struct umb_item {
	uint32_t kind;	    /* enum umb_item_kind */
	uint32_t fs_access; /* UMB_ITEM_FS: UMB_FS_* */
	uint64_t value;	    /* UMB_ITEM_CAP: the UMB_CR_* bit; UMB_ITEM_NET_FAMILY: the
			     * AF_* number; UMB_ITEM_LINUX_CAP: the CAP_* number */
	const char *path;   /* UMB_ITEM_FS: the absolute path, unescaped; else NULL */
};

/* A set of restrictions: what one layer will deny. */
struct umb_restrictions;

/**
 * umb_restrictions__new() - an empty set of restrictions
 *
 * Return: the set, or NULL with errno set (ENOMEM).
 */
struct umb_restrictions *umb_restrictions__new(void);

/** umb_restrictions__free() - free @r (NULL is fine) */
void umb_restrictions__free(struct umb_restrictions *r);

/**
 * umb_restrictions__parse() - add the items of a comma-separated list
 * @r: the set
 * @list: items in the text form, e.g. "fs:/etc,net:inet,fork"
 * @ret_error: if not NULL, on failure set to a malloc'd message naming the offending
 *             item and why ("fs:etc: not an absolute path"); the caller frees it
 *
 * Nothing is added unless every item parses.
 * Return: 0, -EINVAL for a malformed or unknown item, -ENOMEM.
 */
int umb_restrictions__parse(struct umb_restrictions *r, const char *list, char **ret_error);

/**
 * umb_restrictions__add_fs() - restrict @access on @path
 * @path: an absolute path (no escaping: taken as it is)
 * @access: UMB_FS_* bits, not 0
 *
 * Return: 0, -EINVAL for a relative path or an empty access, -ENOMEM.
 */
int umb_restrictions__add_fs(struct umb_restrictions *r, const char *path, uint32_t access);

/**
 * umb_restrictions__add_cap() - add capability restrictions
 * @bits: UMB_CR_* bits
 *
 * Return: 0, or -EINVAL for an unknown bit.
 */
int umb_restrictions__add_cap(struct umb_restrictions *r, uint64_t bits);

/**
 * umb_restrictions__add_net_family() - deny creating sockets of @family (an AF_* value)
 *
 * Return: 0, or -EINVAL if @family is not between 1 and 63.
 */
int umb_restrictions__add_net_family(struct umb_restrictions *r, int family);

/**
 * umb_restrictions__add_linux_cap() - deny using the Linux capability @cap (CAP_*)
 *
 * Return: 0, or -EINVAL if @cap is not a capability this library knows.
 */
int umb_restrictions__add_linux_cap(struct umb_restrictions *r, int cap);

/** umb_restrictions__count() - the number of items in @r */
size_t umb_restrictions__count(const struct umb_restrictions *r);

/**
 * umb_restrictions__item() - the @i-th item of @r, in the order they were added
 *
 * Return: the item (valid until @r changes or is freed), or NULL if @i is out of range.
 */
const struct umb_item *umb_restrictions__item(const struct umb_restrictions *r, size_t i);

/**
 * umb_restrictions__format() - the text form of @r, items in the order added
 * @ret_text: set to a malloc'd string that umb_restrictions__parse() reads back (the
 *            empty set gives "", which the parser refuses as an empty list)
 *
 * Return: 0 or -ENOMEM.
 */
int umb_restrictions__format(const struct umb_restrictions *r, char **ret_text);

/**
 * umb_cap_restriction_from_name() - look up a capability restriction by its name
 * @name: the item as written in the restriction grammar, e.g. "net", "fork",
 *        "exec-unsigned"
 * @ret_bit: on success, set to the item's UMB_CR_* bit
 *
 * Return: 0 on success, -EINVAL if @name is not a capability restriction.
 */
int umb_cap_restriction_from_name(const char *name, uint64_t *ret_bit);

/**
 * umb_cap_restriction_name() - the grammar's name of a capability restriction
 * @bit: exactly one UMB_CR_* bit
 *
 * Return: the name, or NULL if @bit is not exactly one known restriction.
 */
const char *umb_cap_restriction_name(uint64_t bit);

/**
 * umb_net_family_name() - the grammar's name of address family @family ("inet4", ...)
 *
 * Return: the name, or NULL for a family the grammar has no name for.
 */
const char *umb_net_family_name(int family);

/**
 * umb_linux_cap_name() - the grammar's name of Linux capability @cap ("net_raw", ...)
 *
 * Return: the name, or NULL for an unknown capability.
 */
const char *umb_linux_cap_name(int cap);

/* umb_rfork() flags */
enum umb_rfork_flags {
	/* The restrictions take effect at the child's next exec, not at once: the child
	 * can exec the program that is to run restricted (like pledge's execpromises).
	 * Until then the child has its parent's restrictions only. */
	UMB_RFORK_ON_EXEC = 1 << 0,
	/* The new layer only records its denials (the journal, "umbrella-cli events"),
	 * it does not enforce them: to try a list out. The child's other layers, the
	 * caller's, still enforce theirs, and so do the scope and Umbrella's protection
	 * of itself. */
	UMB_RFORK_PERMISSIVE = 1 << 1,
};

/**
 * umb_rfork() - fork a child that carries the caller's restrictions plus @r
 * @r: the restrictions of the new layer (an empty set adds an empty layer)
 * @flags: enum umb_rfork_flags
 *
 * umbrellad builds a layer from @r and arms it for the calling thread; the kernel puts
 * the layer on the child while creating it, so the child never runs a single
 * instruction of the caller's code without it. If the layer cannot be applied, no child
 * runs (one that was created is killed before it returns from umb_rfork()).
 * The daemon's socket is $UMBRELLA_SOCKET or UMB_SOCKET_PATH.
 *
 * Return: the child's pid in the parent, 0 in the child (like fork(2)), or on failure a
 * negative errno value, errno set to it too (the library's convention, above; a
 * program linked against UMBRELLA_0.1 gets -1 and errno, as from fork(2)):
 * -EINVAL (an item umbrellad refused, see umb_last_error(); an unknown flag), -ENOENT (an
 * fs path whose directory does not exist), -ECONNREFUSED or -ENOENT (umbrellad is not
 * running), -EPERM (the stack already has 16 layers, the most a task carries), -E2BIG
 * (too many fs items, or more or deeper mounts below them than one request may make
 * umbrellad look up; see umb_last_error()), or fork(2)'s errors negated.
 */
pid_t umb_rfork(const struct umb_restrictions *r, unsigned int flags);

/**
 * rfork() - umb_rfork(@r, 0), under the name the original Umbrella gave it
 */
pid_t rfork(const struct umb_restrictions *r);

/**
 * umb_restrict_self() - add a layer made of @r to the calling thread
 *
 * The layer applies to the calling thread and everything it starts from then on, not
 * to the process's other threads (as with Landlock): call it before creating threads.
 *
 * Return: 0, or a negative errno value (errno set too) as for umb_rfork().
 */
int umb_restrict_self(const struct umb_restrictions *r);

/**
 * umb_restrict_self_on_exec() - add a layer made of @r to the calling thread at its
 * next exec
 *
 * Until then the thread runs with the restrictions it had, so it can exec a program
 * that @r would keep it from executing; the kernel refuses an exec that could not take
 * the layer, and the layer is on the new program before its first instruction. This is
 * how a launcher restricts the program it becomes ("umbrella-cli run --no-fork"). The
 * layer waits on the calling thread only: an exec by another thread of the process
 * runs without it.
 *
 * Return: 0, or a negative errno value (errno set too) as for umb_rfork().
 */
int umb_restrict_self_on_exec(const struct umb_restrictions *r);

/**
 * umb_spawn() - start the program @path as a child that carries the caller's layers
 * plus a new layer made of @r, as posix_spawn(3) starts one, and get a pidfd of it
 * @ret_pidfd: set to a pidfd of the child (pidfd_open(2), O_CLOEXEC): poll it, wait for
 *             it with waitid(P_PIDFD), signal it with pidfd_send_signal(2)
 * @ret_pid: if not NULL, set to the child's pid
 * @path: the program, as execve(2) takes it (no $PATH search)
 * @argv, @envp: as for execve(2); @envp NULL: the caller's environ
 * @r: the restrictions of the new layer, in effect from the program's first instruction
 * @flags: 0 or UMB_RFORK_PERMISSIVE
 *
 * Fails closed: the layer is on the child before it runs anything (as with umb_rfork()
 * and UMB_RFORK_ON_EXEC), and when it cannot be applied or the exec fails, no program
 * runs, the child is reaped and the caller gets the error. Unlike posix_spawn(3) there
 * are no file actions nor attributes: descriptors without O_CLOEXEC, the signal mask
 * and ignored signals pass to the program as through fork(2) and execve(2).
 *
 * Return: 0, or a negative errno value (errno set too): umb_rfork()'s errors, -EINVAL
 * for a NULL argument or an unknown flag, or the exec's error (-ENOENT, -EACCES, ...;
 * -EPERM when the kernel refused the exec, e.g. an unsigned program under
 * "unsigned = deny").
 */
int umb_spawn(int *ret_pidfd, pid_t *ret_pid, const char *path, char *const argv[],
	      char *const envp[], const struct umb_restrictions *r, unsigned int flags);

/**
 * umb_last_error() - the message umbrellad gave with the calling thread's last refusal
 *
 * Return: the message (valid until the thread's next call into the library), or NULL.
 */
const char *umb_last_error(void);

/**
 * UMBRELLA_EXEC_RESTRICTIONS() - embed execute restrictions in the program being built
 * @text: a string literal, the restrictions in the text form ("fs:/etc/passwd,net")
 *
 * Puts a policy section (<umbrella/restrictions.h>) into the object file: the
 * header and @text, its terminating NUL as the padding. Use it once per program, at file
 * scope; two uses in one program make one section with two headers, which is refused.
 * The restrictions take effect only once the program is signed ("umbrella-cli binary
 * sign --key KEY FILE") by a key in the ring: at exec, umbrellad verifies the signature
 * and the program runs with these restrictions as a new layer. The text is checked then,
 * not at compile time: check it with "umbrella-cli binary inspect" after signing.
 *
 * Nothing in the program refers to the section, so it is marked "used" (the compiler
 * and LTO keep it) and "retain" (SHF_GNU_RETAIN: "ld --gc-sections" keeps it). With a
 * compiler that has no "retain" (gcc before 11, clang before 13) --gc-sections drops
 * it; "binary sign" then refuses the program, which has no policy section left.
 * Works in C and in C++ (11 and later).
 */
#define UMBRELLA_EXEC_RESTRICTIONS(text) \
	UMB__EXEC_RESTRICTIONS(text, UMB__CONCAT(umb__exec_restrictions_, __COUNTER__))
#if defined(__has_attribute)
#if __has_attribute(retain)
#define UMB__RETAIN __attribute__((retain))
#endif
#endif
#ifndef UMB__RETAIN
#define UMB__RETAIN
#endif
#define UMB__CONCAT(a, b)  UMB__CONCAT2(a, b)
#define UMB__CONCAT2(a, b) a##b
/* Packed and aligned(1): the section is exactly the header, the text and one NUL. */
#define UMB__EXEC_RESTRICTIONS(umb__text, umb__var)                                           \
	_Static_assert(sizeof(umb__text) > 1 && sizeof(umb__text) - 1 <= UMB_POLICY_TEXT_MAX, \
		       "UMBRELLA_EXEC_RESTRICTIONS: the text must have 1 to "                 \
		       "UMB_POLICY_TEXT_MAX bytes");                                          \
	__attribute__((used, section(UMB_POLICY_SECTION),                                     \
		       aligned(1))) UMB__RETAIN static const struct __attribute__((packed)) { \
		struct umb_policy_header header;                                              \
		char text[sizeof(umb__text)];                                                 \
	} umb__var = { { UMB_POLICY_MAGIC, UMB_POLICY_VERSION, sizeof(umb__text) - 1 }, umb__text }

#ifdef __cplusplus
}
#endif

#endif /* UMBRELLA_UMBRELLA_H */
