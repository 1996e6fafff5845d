/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the local socket that libumbrella talks to */
#ifndef UMBRELLA_SERVER_H
#define UMBRELLA_SERVER_H

#include <stddef.h>

struct ring_buffer;

#include "exec-gate.h"
#include "follow.h"
#include "layers.h"
#include "request-fds.h"

#define SERVER_MAX_CLIENTS 256

struct server {
	int listen_fd;
	struct layers *layers;		/* new layers and their arms */
	int task_fd;			/* umb_task: whether a caller is restricted */
	unsigned int max_rules;		/* umbrella.conf max_rules_per_layer; 0: no limit */
	struct exec_gate *gate;		/* UMB_OP_FLUSH_VERDICTS; NULL: none (refused) */
	struct request_fds request_fds; /* the request being served brought these */
	int clients[SERVER_MAX_CLIENTS];
	size_t client_count;
	struct follows follows;	    /* the clients that follow layers (UMB_OP_FOLLOW) */
	struct ring_buffer *events; /* consumed before a stream ends; NULL: none (tests) */
};

/* Creates the listening socket at @path (and its directory). Returns the fd or -errno. */
int server_listen(const char *path);

/* Accepts a waiting connection. Returns 0 or -errno. */
int server_accept(struct server *s);

/* Answers the requests waiting on client @fd; closes it when the client has left. */
void server_serve(struct server *s, int fd);

#endif /* UMBRELLA_SERVER_H */
