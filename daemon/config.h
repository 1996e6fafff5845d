/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrellad - the configuration file, umbrella.conf */
#ifndef UMBRELLA_CONFIG_H
#define UMBRELLA_CONFIG_H

#include <stdbool.h>

#define CONFIG_PATH_DEFAULT "/etc/umbrella/umbrella.conf"

/* Defaults: what a missing default file, or a missing key, means. */
#define CONFIG_MAX_RULES_DEFAULT		1024
#define CONFIG_MAX_RULES_LIMIT			65536 /* the size of umb_fs_inodes: no layer could be bigger */
/* Per non-root uid (daemon/layers.c): the defaults leave room for 12 users at their
 * limit before the share of all non-root users (3/4 of the maps) is reached. */
#define CONFIG_MAX_LAYERS_PER_USER_DEFAULT	1024
#define CONFIG_MAX_LAYERS_PER_USER_LIMIT	12288 /* 3/4 of the 16384 layer slots */
#define CONFIG_MAX_RULES_PER_USER_DEFAULT	8192
#define CONFIG_MAX_RULES_PER_USER_LIMIT		49152 /* 3/4 of umb_fs_inodes */
/* Connections on the socket (daemon/server.h): per non-root uid, at most the share of
 * all non-root users (SERVER_USERS_MAX). */
#define CONFIG_MAX_CONNECTIONS_PER_USER_DEFAULT 32
#define CONFIG_MAX_CONNECTIONS_PER_USER_LIMIT	192
/* Seconds a connection may wait before its (next) request, unless it follows layers. */
#define CONFIG_IDLE_TIMEOUT_DEFAULT		5
#define CONFIG_IDLE_TIMEOUT_LIMIT		3600
/* Seconds of umbrellad's loop that the requests of one non-root uid may take per
 * minute (daemon/turns.h); past it they are refused until it drains. */
#define CONFIG_REQUEST_TIME_PER_USER_DEFAULT	30
#define CONFIG_REQUEST_TIME_PER_USER_LIMIT	60
#define CONFIG_LOG_BURST_DEFAULT		200 /* as daemon/events.c starts */
#define CONFIG_LOG_INTERVAL_DEFAULT		5

/* What umbrella.conf says. */
struct config {
	bool permissive;    /* mode = permissive: denials recorded, not enforced */
	bool unsigned_deny; /* unsigned = deny: UMB_CTL_UNSIGNED_DENY */
	/* unsigned_deny_force = yes: deny applies although essential programs are not
	 * validly signed (essentials.h), which otherwise refuses the configuration */
	bool unsigned_deny_force;
	unsigned int max_rules_per_layer; /* items in one rfork/restrict_self request */
	/* live layers, and their fs rules, of one non-root uid; 0: the default */
	unsigned int max_layers_per_user, max_rules_per_user;
	unsigned int max_connections_per_user; /* open connections of one non-root uid */
	unsigned int idle_timeout_sec;	       /* a connection's time to ask (server.c) */
	unsigned int request_time_per_user;    /* seconds per minute of one non-root uid */
	unsigned int log_burst;		       /* log_rate_limit = BURST/SECONDS; 0: no limit */
	unsigned int log_interval_sec;
};

/* @c with every default. */
void config_init(struct config *c);

/*
 * config_parse() - read the text of a configuration file
 * @text: the whole file, NUL-terminated
 * @name: the file's name, for messages
 * @ret: set only on success
 * @ret_error: on failure, a malloc'd "NAME:LINE: what is wrong", one such line (joined
 *	by '\n', no newline at the end) for each malformed line of @text, in order (NULL
 *	if out of memory)
 *
 * Pure: no I/O, no logging. Keys missing from @text keep their defaults.
 * Return: 0, -EINVAL on malformed lines, or -ENOMEM.
 */
int config_parse(const char *text, const char *name, struct config *ret, char **ret_error);

/*
 * config_load() - read the configuration file @path
 * @required: whether a missing file is an error (given with --config) rather than the
 *	defaults (the default path)
 * @ret, @ret_error: as config_parse(); @ret_error also names @path for I/O errors
 *
 * Return: 0, 1 when @path does not exist and @ret holds the defaults, -EINVAL, or the
 * -errno of reading @path.
 */
int config_load(const char *path, bool required, struct config *ret, char **ret_error);

/* The one-line summary of @c ("mode=enforcing unsigned=allow ...") in @buf. */
const char *config_summary(const struct config *c, char *buf, unsigned int size);

#endif /* UMBRELLA_CONFIG_H */
