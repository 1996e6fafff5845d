/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the local socket that libumbrella talks to */
#ifndef UMBRELLA_SERVER_H
#define UMBRELLA_SERVER_H

#include <stddef.h>

#include <systemd/sd-event.h>

struct ring_buffer;

#include "closer.h"
#include "exec-gate.h"
#include "follow.h"
#include "history.h"
#include "layers.h"
#include "request-fds.h"
#include "turns.h"

/*
 * Connections served at once. Root that carries no layer may use them all; every other
 * caller (a restricted root counts as one user, as for layers) at most
 * max_connections_per_user (umbrella.conf), and all of them together at most
 * SERVER_USERS_MAX, so that no user, nor a few, can keep root from its rfork(). A
 * connection being closed by the closer thread still holds its slot, in a table twice
 * as large, and counts in both limits: once the table is full, new connections wait in
 * the listen backlog. A uid that holds max_connections_per_user slots, some of them
 * waiting for the closer thread, cannot connect at all (the kernel refuses its
 * connect(), umb_conn_full); nor can any user while all users hold SERVER_USERS_MAX so.
 * Stuck closes cost their user its own share, and all users theirs, never root's: users
 * hold at most SERVER_USERS_MAX slots and what they had queued in the backlog
 * (SERVER_BACKLOG + 1), which leaves root more than its SERVER_ROOT_RESERVE.
 */
#define SERVER_MAX_CLIENTS  256
#define SERVER_ROOT_RESERVE 64
#define SERVER_USERS_MAX    (SERVER_MAX_CLIENTS - SERVER_ROOT_RESERVE)
#define SERVER_SLOTS	    (2 * SERVER_MAX_CLIENTS)
#define SERVER_BACKLOG	    64 /* listen(2); the kernel queues one more */
_Static_assert(SERVER_USERS_MAX + SERVER_BACKLOG + 1 + SERVER_ROOT_RESERVE <= SERVER_SLOTS,
	       "users' stuck connections could take root's slots");
_Static_assert(TURNS_ORDER_MAX >= SERVER_SLOTS, "a uid with a request waiting left out of turns");

/* Whose share a connection takes that has no uid at all (SO_PEERCRED failed on it):
 * refused, it may still hold a slot while it is closed, and all such connections share
 * one user's, never root's exemption. No task has this uid. */
#define SERVER_UID_UNIDENTIFIED 0xfffffffdU

/* One connection. */
struct client {
	struct server *server;
	int fd;
	uint32_t uid;	       /* whose share it takes: connection_uid() in server.c, or
		       * SERVER_UID_UNIDENTIFIED */
	sd_event_source *io;   /* its requests; NULL once it is being closed */
	sd_event_source *idle; /* no request for idle_timeout: closed */
	bool closing;	       /* its descriptors are the closer thread's (job) */
	uint64_t queued;       /* its request waits for its uid's turn: its place (turns.queued
				* then); 0: none waits */
	uint64_t queued_turn;  /* turns.served when it was queued */
	struct closer_job job;
};

struct server {
	int listen_fd;
	sd_event *event;		      /* the loop it serves from (server_attach()) */
	sd_event_source *listen_source;	      /* new connections */
	struct layers *layers;		      /* new layers and their arms */
	int task_fd;			      /* umb_task: whether a caller is restricted */
	int conn_full_fd;		      /* umb_conn_full (maps.bpf.h); -1: none (tests) */
	int daemon_sock_fd;		      /* umb_daemon_sock: marks listen_fd for it */
	unsigned int max_rules;		      /* umbrella.conf max_rules_per_layer; 0: no limit */
	struct exec_gate *gate;		      /* UMB_OP_FLUSH_VERDICTS; NULL: none (refused) */
	struct request_fds request_fds;	      /* the request being served brought these */
	struct client *clients[SERVER_SLOTS]; /* every connection, and those being closed */
	size_t client_count;
	unsigned int max_per_user;	  /* umbrella.conf max_connections_per_user */
	uint32_t full_uids[SERVER_SLOTS]; /* the uids listed in umb_conn_full (each holds a slot) */
	size_t full_count;
	bool users_full;		/* UMB_CONN_FULL_USERS is listed in umb_conn_full */
	uint64_t idle_timeout_usec;	/* umbrella.conf idle_timeout */
	struct closer closer;		/* closes what callers sent (closer.h) */
	sd_event_source *closer_source; /* closer.done_fd: a job is done */
	struct follows follows;		/* the clients that follow layers (UMB_OP_FOLLOW) */
	struct history history;		/* each uid's recent denials (UMB_OP_EVENTS) */
	struct ring_buffer *events;	/* consumed before a stream ends; NULL: none (tests) */
	struct turns turns;		/* whose request is served next (turns.h) */
	int turn_fd;			/* an eventfd, always readable: a turn to take */
	sd_event_source *turn_source;	/* on turn_fd, on while a turn is pending */
	uint64_t turn_log_start;	/* the turns' lines: this interval's start, */
	unsigned int turn_log_count;	/* lines so far in it, */
	uint64_t turn_log_skipped;	/* and lines left out since the last one */
};

/* Creates the listening socket at @path (and its directory). Returns the fd or -errno. */
int server_listen(const char *path);

/*
 * server_attach() - serve the socket s->listen_fd from @e: accept its connections and
 * answer their requests (at PRIORITY_WORK, event-priority.h). Return: 0 or -errno
 * (logged).
 */
int server_attach(struct server *s, sd_event *e);

/*
 * server_events() - the recent denials of the caller's layers (UMB_OP_EVENTS): those
 * of the uid it is charged as, or every uid's for root that carries no layer. Fills
 * @out (UMB_EVENTS_MAX). Return: how many.
 */
struct peer;
size_t server_events(const struct server *s, const struct peer *peer, struct umb_event_record *out);

/* Whether the caller is root that carries no layer (the administrator): a root that
 * Umbrella restricts, or whose state cannot be read, is not. */
bool server_unrestricted_root(const struct server *s, const struct peer *peer);

/* Closes every connection and the listening socket (not its path). */
void server_close(struct server *s);

#endif /* UMBRELLA_SERVER_H */
