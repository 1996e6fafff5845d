/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the local socket that libumbrella talks to */
#ifndef UMBRELLA_SERVER_H
#define UMBRELLA_SERVER_H

#include <stddef.h>

#include <systemd/sd-event.h>

struct ring_buffer;

#include "exec-gate.h"
#include "follow.h"
#include "layers.h"
#include "request-fds.h"

#define SERVER_MAX_CLIENTS 256

struct server {
	int listen_fd;
	sd_event *event;		/* the loop it serves from (server_attach()) */
	sd_event_source *listen_source; /* new connections */
	struct layers *layers;		/* new layers and their arms */
	int task_fd;			/* umb_task: whether a caller is restricted */
	unsigned int max_rules;		/* umbrella.conf max_rules_per_layer; 0: no limit */
	struct exec_gate *gate;		/* UMB_OP_FLUSH_VERDICTS; NULL: none (refused) */
	struct request_fds request_fds; /* the request being served brought these */
	sd_event_source *clients[SERVER_MAX_CLIENTS]; /* one per connection: its descriptor */
	size_t client_count;
	struct follows follows;	    /* the clients that follow layers (UMB_OP_FOLLOW) */
	struct ring_buffer *events; /* consumed before a stream ends; NULL: none (tests) */
};

/* Creates the listening socket at @path (and its directory). Returns the fd or -errno. */
int server_listen(const char *path);

/*
 * server_attach() - serve the socket s->listen_fd from @e: accept its connections and
 * answer their requests (at PRIORITY_WORK, event-priority.h). Return: 0 or -errno
 * (logged).
 */
int server_attach(struct server *s, sd_event *e);

/* Closes every connection and the listening socket (not its path). */
void server_close(struct server *s);

#endif /* UMBRELLA_SERVER_H */
