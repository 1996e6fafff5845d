/* SPDX-License-Identifier: GPL-2.0-only */
/* umbrella-cli run - telling its user what was denied to CMD, and why */
#ifndef UMBRELLA_CLI_RUN_EXPLAIN_H
#define UMBRELLA_CLI_RUN_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include <umbrella/umbrella.h>

#define RUN_EXPLAIN_LINES  5
/* The distinct denials kept to choose the lines from; beyond, denials are counted. */
#define RUN_EXPLAIN_GROUPS 64

/* One distinct denial (the same operation, object and rule) and how often it came. */
struct run_explain_group {
	char *line;	    /* "umbrella: denied open /etc/hostname (fs:/etc, layer 12)" */
	char kind[16];	    /* the rule's kind ("fs", "net", "signal"): one line each first */
	unsigned int count; /* how many times */
};

struct run_explain {
	int fd; /* the follow connection (UMB_OP_FOLLOW); -1: nothing to explain */
	const struct umb_restrictions *r; /* what the layer denies: names the rule */
	unsigned int groups, more;	  /* distinct denials kept, the others counted */
	uint32_t layer;			  /* the layer of the last record */
	bool mapping_denied;		  /* an mmap or mprotect of code was denied (enforced) */
	/* printed once CMD has ended, in the order they first came */
	struct run_explain_group group[RUN_EXPLAIN_GROUPS];
};

/*
 * run_explain_start() - follow the denials of the layers this process asks for from
 * now on (call it before umb_rfork()), whose restrictions are @r. When umbrellad does
 * not take the request, says on stderr that nothing will be explained: not an error,
 * the layer is enforced all the same. Return: 0, or -ETIMEDOUT when umbrellad did not
 * answer in DAEMON_SOCKET_TIMEOUT_SEC (stalled: the rfork would not be answered either).
 */
int run_explain_start(struct run_explain *x, const struct umb_restrictions *r);

/* Reads the denials that have arrived: keeps the first few, counts the rest. */
void run_explain_read(struct run_explain *x);

/* After CMD has ended: prints the denials recorded until then, the count of those
 * not printed, and what may be missing; then closes the connection. Printed at the
 * end, not as they come, so that no line cuts into one of CMD's on the terminal. */
void run_explain_finish(struct run_explain *x);

#endif /* UMBRELLA_CLI_RUN_EXPLAIN_H */
