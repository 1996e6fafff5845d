// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli run - telling its user what was denied to CMD, and why (run-explain.h)
 *
 * A user cannot read the system journal, so run asks umbrellad for the denials of the
 * layer it asks for (UMB_OP_FOLLOW, before the layer exists: none is missed), keeps
 * the first RUN_EXPLAIN_LINES and counts the rest. Once CMD has ended, UMB_FOLLOW_END
 * has umbrellad pass on what the kernel recorded until then, and run prints them on
 * stderr: after CMD's own messages, never in the middle of one.
 * The rule named is the item of run's own list that covers the object: umbrellad's
 * record says which access was denied ("fs:r"), the list says where.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>

#include "daemon-socket.h"
#include "fs-rule.h"
#include "macro.h"
#include "printable.h"
#include "run-explain.h"

/* Sends a UMB_OP_FOLLOW request with @flags; the kernel adds our credentials. */
static int send_follow(int fd, __u32 flags)
{
	struct umb_request req = { .version = UMB_PROTOCOL_VERSION,
				   .op = UMB_OP_FOLLOW,
				   .tid = (__u32)gettid(),
				   .flags = flags };

	return send(fd, &req, sizeof(req), MSG_NOSIGNAL) == sizeof(req) ? 0 : -errno;
}

int run_explain_start(struct run_explain *x, const struct umb_restrictions *r)
{
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	struct umb_reply rep;
	const char *path;
	ssize_t n = 0;
	int ret = 0;

	*x = (struct run_explain){ .fd = -1, .r = r };
	/* Without umbrellad, umb_rfork() says so (so it does when it does not let us in). */
	x->fd = daemon_socket_connect(&path, NULL);
	if (x->fd < 0) {
		x->fd = -1;
		return 0;
	}
	if (send_follow(x->fd, 0) < 0 ||
	    (n = daemon_socket_recv(x->fd, buf, sizeof(buf) - 1)) < (ssize_t)sizeof(rep)) {
		/* Stalled: an rfork would wait as long again for nothing. */
		if (n == -ETIMEDOUT) {
			ret = -ETIMEDOUT;
			goto fail;
		}
		fprintf(stderr, "umbrella: denials will not be explained: no reply from %s\n",
			path);
		goto fail;
	}
	buf[n] = '\0';
	memcpy(&rep, buf, sizeof(rep));
	if (rep.error < 0) {
		fprintf(stderr, "umbrella: denials will not be explained: %s\n",
			(size_t)n > sizeof(rep) ? buf + sizeof(rep) : strerror(-rep.error));
		goto fail;
	}
	return 0;
fail:
	close(x->fd);
	x->fd = -1;
	return ret;
}

/* The UMB_FS_* of a record's restriction ("fs:rw"), 0 if it is not an fs one. */
static uint32_t fs_access(const char *restriction)
{
	uint32_t access = 0;

	if (strncmp(restriction, "fs:", 3) != 0)
		return 0;
	for (const char *c = restriction + 3; *c; c++)
		access |= *c == 'r' ? UMB_FS_READ :
			  *c == 'w' ? UMB_FS_WRITE :
			  *c == 'x' ? UMB_FS_EXEC :
				      0;
	return access;
}

/*
 * The rule of @d in @buf: the deepest fs item of run's list that covers the path and
 * denies the access, as it was written ("fs:/etc", "fs:/srv:w"); else the record's
 * restriction ("fs:r" when the path is not known or was reached by another name,
 * "net:inet4", "signal").
 */
static const char *rule_text(const struct run_explain *x, const struct umb_denial *d, char *buf,
			     size_t size)
{
	uint32_t access = fs_access(d->restriction);
	const struct umb_item *best = NULL;

	for (size_t i = 0; access && d->object[0] == '/' && i < umb_restrictions__count(x->r);
	     i++) {
		const struct umb_item *it = umb_restrictions__item(x->r, i);

		if (it->kind != UMB_ITEM_FS || !(it->fs_access & access) ||
		    !fs_rule_covers(it->path, d->object))
			continue;
		if (!best || strlen(it->path) > strlen(best->path))
			best = it;
	}
	if (!best) {
		snprintf(buf, size, "%s", d->restriction);
		return buf;
	}
	return fs_rule_text(best, buf, size);
}

/* What was done, in a word where the hook's name is not one: "open", "mkdir", "exec". */
static const char *operation(const char *hook)
{
	static const struct {
		const char *hook, *word;
	} words[] = {
		{ "bprm_creds_for_exec", "exec" },
		{ "bprm_check_security", "exec" },
		{ "bprm_creds_from_file", "exec" },
		{ "key_alloc", "request_key" },
		/* The object says what: "socket inet6". */
		{ "socket_create", "create" },
		{ "task_alloc", "fork" },
		{ "task_kill", "kill" },
		{ "mmap_file", "mmap" },
		/* Also open(O_CREAT) of a new file. */
		{ "path_mknod", "create" },
		{ "task_fix_setuid", "setuid" },
		{ "task_fix_setgid", "setgid" },
		{ "task_fix_setgroups", "setgroups" },
	};
	static const char *const prefixes[] = { "file_", "inode_", "path_" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(hook, words[i].hook))
			return words[i].word;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(hook, prefixes[i], strlen(prefixes[i])))
			return hook + strlen(prefixes[i]);
	return hook;
}

static void print_denial(struct run_explain *x, struct umb_denial *d)
{
	char rule[UMB_EVENT_PATH_MAX + 64];
	/* The command names its files: escapes in them must not reach the terminal. */
	char object[CLI_PRINTABLE_SIZE(sizeof(d->object))];
	char rule_shown[CLI_PRINTABLE_SIZE(sizeof(rule))];
	struct run_explain_group *g;
	char *line;

	/* Text from the socket: terminated here, whatever it holds. */
	d->hook[sizeof(d->hook) - 1] = d->restriction[sizeof(d->restriction) - 1] = '\0';
	d->object[sizeof(d->object) - 1] = '\0';
	x->layer = d->layer;
	if (!(d->flags & UMB_EVENT_PERMISSIVE) &&
	    (!strcmp(d->hook, "mmap_file") || !strcmp(d->hook, "file_mprotect")))
		x->mapping_denied = true;
	/* Without memory, the line is counted (and its denial in the journal). */
	if (asprintf(&line, "umbrella: %s %s %s (%s, layer %u)",
		     d->flags & UMB_EVENT_PERMISSIVE ? "would deny" : "denied", operation(d->hook),
		     cli_printable(d->object, object, sizeof(object)),
		     cli_printable(rule_text(x, d, rule, sizeof(rule)), rule_shown,
				   sizeof(rule_shown)),
		     d->layer) < 0) {
		x->more++;
		return;
	}
	for (unsigned int i = 0; i < x->groups; i++) {
		if (!strcmp(x->group[i].line, line)) {
			x->group[i].count++;
			free(line);
			return;
		}
	}
	if (x->groups == RUN_EXPLAIN_GROUPS) {
		x->more++;
		free(line);
		return;
	}
	g = &x->group[x->groups++];
	*g = (struct run_explain_group){ .line = line, .count = 1 };
	snprintf(g->kind, sizeof(g->kind), "%.*s", (int)strcspn(d->restriction, ":"),
		 d->restriction);
}

/*
 * Which groups get a line: the first of each kind of rule, so that one net denial is
 * not hidden behind many fs ones, then the others as they came, RUN_EXPLAIN_LINES in
 * all. Sets @chosen[i] for each.
 */
static void choose_lines(const struct run_explain *x, bool chosen[RUN_EXPLAIN_GROUPS])
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < x->groups && n < RUN_EXPLAIN_LINES; i++) {
		bool kind_seen = false;

		for (unsigned int j = 0; j < i && !kind_seen; j++)
			kind_seen = !strcmp(x->group[j].kind, x->group[i].kind);
		if (!kind_seen) {
			chosen[i] = true;
			n++;
		}
	}
	for (unsigned int i = 0; i < x->groups && n < RUN_EXPLAIN_LINES; i++) {
		if (!chosen[i]) {
			chosen[i] = true;
			n++;
		}
	}
}

/*
 * Reads the records waiting (with @wait, all of them until the end record or the
 * connection's end, for at most DAEMON_SOCKET_TIMEOUT_SEC in all: a stalled umbrellad,
 * or one that trickles records, must not keep run from returning CMD's status).
 * Returns 1 once the end record came, 0 when none waits, -1 when the connection ended
 * without it, -ETIMEDOUT when the wait ran out.
 */
static int read_records(struct run_explain *x, bool wait, uint32_t *ret_dropped)
{
	uint64_t deadline = now_usec() + DAEMON_SOCKET_TIMEOUT_SEC * USEC_PER_SEC;
	struct umb_denial d;
	ssize_t n;

	for (;;) {
		if (wait) {
			n = daemon_socket_recv_until(x->fd, &d, sizeof(d), deadline);
			if (n == -ETIMEDOUT)
				return -ETIMEDOUT;
		} else {
			n = recv(x->fd, &d, sizeof(d), MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return 0;
		}
		if (n <= 0)
			return -1;
		if (n != sizeof(d))
			return -1; /* a reply: umbrellad refused our end request */
		*ret_dropped = d.dropped;
		if (d.kind == UMB_DENIAL_END)
			return 1;
		if (d.kind == UMB_DENIAL_RECORD)
			print_denial(x, &d);
	}
}

void run_explain_read(struct run_explain *x)
{
	uint32_t dropped;

	if (x->fd >= 0 && read_records(x, false, &dropped) < 0) {
		close(x->fd);
		x->fd = -1;
	}
}

void run_explain_finish(struct run_explain *x)
{
	bool chosen[RUN_EXPLAIN_GROUPS] = {};
	uint32_t dropped = 0;
	int r = -1;

	if (x->fd < 0)
		return;
	if (send_follow(x->fd, UMB_FOLLOW_END) == 0)
		r = read_records(x, true, &dropped);
	close(x->fd);
	x->fd = -1;
	choose_lines(x, chosen);
	for (unsigned int i = 0; i < x->groups; i++) {
		if (chosen[i] && x->group[i].count > 1)
			fprintf(stderr, "%s, %u times\n", x->group[i].line, x->group[i].count);
		else if (chosen[i])
			fprintf(stderr, "%s\n", x->group[i].line);
		else
			x->more += x->group[i].count;
		free(x->group[i].line);
	}
	x->groups = 0;
	if (x->more)
		fprintf(stderr, "umbrella: %u more denial%s, see umbrella-cli events --layer %u\n",
			x->more, x->more == 1 ? "" : "s", x->layer);
	if (dropped)
		fprintf(stderr,
			"umbrella: %u more denial%s not passed on (too many at once), "
			"see umbrella-cli events --layer %u\n",
			dropped, dropped == 1 ? "" : "s", x->layer);
	if (r == -ETIMEDOUT)
		fprintf(stderr,
			"umbrella: umbrellad did not end the list of denials within %d s: "
			"some may be missing\n",
			DAEMON_SOCKET_TIMEOUT_SEC);
	else if (r < 0)
		fprintf(stderr, "umbrella: umbrellad ended the list of denials early: "
				"some may be missing\n");
}
