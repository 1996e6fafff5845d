/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - one request on the socket, from its bytes to the point where BPF is needed */
#ifndef UMBRELLA_REQUEST_H
#define UMBRELLA_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "layer-install.h"
#include "peer.h"
#include "server.h"

/*
 * request_serve() - read one message from client @fd of @s and answer it: the checks
 * of its bytes, of the caller (peer.h) and of the descriptors it brought
 * (request-fds.h), then server_arm() or exec_gate_flush() for what touches the maps.
 * The descriptors the message brought are closed before it returns, whatever happened,
 * unless one is of a kind whose close() may wait (s->request_fds.unexpected): the
 * request is refused, and they stay in s->request_fds for the caller to hand, with
 * @fd, to the closer thread (closer.h).
 *
 * Return: false when the client has left or is to be closed (the caller closes @fd),
 * else true.
 */
bool request_serve(struct server *s, int fd);

/*
 * request_refuse() - read one message from client @fd of @s and refuse it, whatever it
 * asks, with @error and @message (its uid is past its budget, turns.h): nothing of it
 * is looked at but the descriptors it brought, closed as request_serve() closes them.
 * Return: as request_serve().
 */
bool request_refuse(struct server *s, int fd, int error, const char *message);

/* request_reply() - send a reply on @fd; @message (may be NULL: strerror) follows the
 * header when @error < 0. Return: 0, or -errno (-EPIPE: the caller shut its end down). */
int request_reply(int fd, int error, __u32 layer, const char *message);

/*
 * server_arm() - the part of an arm request that writes to the BPF maps (server.c): a
 * new layer made of @r (whose fs items the caller resolved: @refs), charged to the
 * caller, armed for its thread @req->tid started at @start
 * @ret_error: on failure, a malloc'd message (may be NULL)
 *
 * Return: 0 and *@ret_id, or -errno.
 */
int server_arm(struct server *s, const struct peer *peer, const struct umb_request *req,
	       uint64_t start, const struct umb_restrictions *r, const struct fs_refs *refs,
	       __u32 *ret_id, char **ret_error);

/* server_disarm() - take back the arm of the caller's thread @tid, if it is there (its
 * caller did not get the reply: it gave up waiting). */
void server_disarm(struct server *s, __u32 tid);

/*
 * server_follow() - what UMB_OP_FOLLOW needs of the layers (server.c): connection @fd of
 * @peer follows @layer (0: the layers its process asks for from now on), or with
 * UMB_FOLLOW_END in @req->flags its stream ends (the records the kernel wrote so far,
 * then UMB_DENIAL_END)
 * @ret_error: on failure, a static message (may be NULL)
 *
 * Return: 0, or -errno (-EPIPE: the end record could not be sent; close @fd).
 */
int server_follow(struct server *s, int fd, const struct peer *peer, const struct umb_request *req,
		  __u32 layer, const char **ret_error);

#endif /* UMBRELLA_REQUEST_H */
