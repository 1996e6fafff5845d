/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - connections that follow layers' denials (UMB_OP_FOLLOW) */
#ifndef UMBRELLA_FOLLOW_H
#define UMBRELLA_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <umbrella/protocol.h>

/* At most this many follow connections at once (the rest of SERVER_MAX_CLIENTS stays
 * for requests), and UMB_FOLLOW_PER_UID per uid. */
#define FOLLOW_MAX    64
/* Layers one connection follows: "umbrella-cli run" needs one. */
#define FOLLOW_LAYERS 16

struct follower {
	int fd;
	uid_t uid;	  /* the connector's, for UMB_FOLLOW_PER_UID */
	pid_t pid;	  /* with own: the process whose new layers are followed */
	int pidfd;	  /* that process, so that a reuse of its pid is not taken for it */
	bool own;	  /* follows the layers @pid asks for from now on */
	uint32_t dropped; /* records the socket could not take */
	unsigned int layer_count;
	uint32_t layers[FOLLOW_LAYERS];
};

struct follows {
	struct follower list[FOLLOW_MAX];
	size_t count;
};

/*
 * follow_add() - connection @fd follows @layer (0: the layers process @pid, whose
 * pidfd is @pidfd, asks for from now on) for the connector @uid
 * Return: 0, or -EBUSY/-EUSERS (limits, *@ret_error says which), -EALREADY, -errno.
 */
int follow_add(struct follows *f, int fd, uid_t uid, pid_t pid, int pidfd, uint32_t layer,
	       const char **ret_error);

/* Process @pid was given layer @id: the connections that follow its new layers add it. */
void follow_layer_created(struct follows *f, pid_t pid, uint32_t id);

/* Sends @d to each connection following layer @d->layer, without waiting. */
void follow_denial(struct follows *f, const struct umb_denial *d);

/* Whether any connection follows anything (a denial record costs nothing otherwise). */
bool follow_any(const struct follows *f);

/* Whether connection @fd follows anything. */
bool follow_has(const struct follows *f, int fd);

/* Ends the stream of @fd: the UMB_DENIAL_END record, then it follows nothing.
 * Return: 0, -ENOENT if @fd followed nothing, or send(2)'s -errno. */
int follow_end(struct follows *f, int fd);

/* Connection @fd closed: forget it (if it followed anything). */
void follow_closed(struct follows *f, int fd);

#endif /* UMBRELLA_FOLLOW_H */
