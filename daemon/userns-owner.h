/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the user a caller's uid is charged to: the owner of its user namespaces */
#ifndef UMBRELLA_USERNS_OWNER_H
#define UMBRELLA_USERNS_OWNER_H

#include <sys/types.h>

/* User namespaces nest at most 32 deep (the kernel's limit): a longer chain is none. */
#define USERNS_DEPTH_MAX 33

/*
 * userns_account_uid() - the uid that pays for a process with uid @uid (in umbrellad's
 * user namespace) that lives in the user namespace @userns_fd
 *
 * umbrellad shares its work out by uid (turns.h, the connections per user, the layers
 * per user). A user owns every uid of a user namespace it made: with subordinate ids
 * (/etc/subuid) its processes there have thousands of uids, each of which would have
 * had a share of its own. So a process below umbrellad's user namespace is charged to
 * the owner of the outermost namespace of its chain, the user who made it; a process
 * in umbrellad's own namespace, to @uid. A chain that root made (a container's) is
 * root's delegation of those uids, and root's exemptions are the administrator's, not
 * the container's: there the process is charged to @uid, as before user namespaces.
 *
 * Return: 0 with *@ret_uid set, or -errno (@userns_fd is not a user namespace below
 * umbrellad's, or the kernel refused to tell): the caller must not guess.
 */
int userns_account_uid(int userns_fd, uid_t uid, uid_t *ret_uid);

#endif
