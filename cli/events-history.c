// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli events for a user (events-history.h)
 *
 * journald puts umbrellad's records in the system journal, which a user cannot read.
 * umbrellad keeps the last UMB_EVENTS_MAX denials of each uid's layers in memory and
 * gives a caller those of its own uid's layers, nobody else's (UMB_OP_EVENTS); this
 * filters them as the journal's matches would and prints them the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>

#include "cli.h"
#include "daemon-op.h"
#include "events-history.h"
#include "printable.h"

/* With --follow, how often umbrellad is asked again: more than UMB_EVENTS_MAX denials
 * of the caller's layers within this long, and some are missed. */
#define FOLLOW_POLL_SEC 1

/* The reply: the header and at most UMB_EVENTS_MAX records, or an error's text. */
#define REPLY_MAX (sizeof(struct umb_reply) + UMB_EVENTS_MAX * sizeof(struct umb_event_record))

/* Asks for the records into @buf (REPLY_MAX + 1). Return: the reply's length, or -1
 * (said). */
static ssize_t ask(char *buf)
{
	ssize_t n = cli_daemon_op(UMB_OP_EVENTS, "events", buf, REPLY_MAX + 1);

	if (n < 0)
		return -1;
	if ((n - sizeof(struct umb_reply)) % sizeof(struct umb_event_record)) {
		cli_error("events: malformed reply from umbrellad");
		return -1;
	}
	return n;
}

static bool selected(const struct events_filter *f, const struct umb_event_record *r)
{
	return (!f->pid || r->denial.pid == f->pid) && (!f->layer || r->denial.layer == f->layer) &&
	       r->time_usec >= f->since;
}

/* The fields of the journal's records that umbrellad keeps; the others are null. */
static void print_json(json_writer_t *w, const struct umb_event_record *r)
{
	const struct umb_denial *d = &r->denial;
	char stamp[64];

	jsonw_start_object(w);
	jsonw_string_field(w, "time", events_format_time(r->time_usec, true, stamp, sizeof(stamp)));
	jsonw_string_field(w, "type", "denial");
	jsonw_uint_field(w, "pid", d->pid);
	jsonw_null_field(w, "tid");
	jsonw_string_field(w, "comm", d->comm);
	jsonw_string_field(w, "hook", d->hook);
	jsonw_string_field(w, "restriction", d->restriction);
	jsonw_uint_field(w, "layer", d->layer);
	jsonw_string_field(w, "object", d->object);
	jsonw_null_field(w, "inode");
	jsonw_null_field(w, "target_pid");
	jsonw_bool_field(w, "permissive", d->flags & UMB_EVENT_PERMISSIVE);
	jsonw_end_object(w);
}

static void print_text(const struct umb_event_record *r)
{
	const struct umb_denial *d = &r->denial;
	char stamp[64], comm[CLI_PRINTABLE_SIZE(sizeof(d->comm))],
		object[CLI_PRINTABLE_SIZE(sizeof(d->object))];

	printf("%s pid=%u comm=%s hook=%s restriction=%s layer=%u object=%s%s\n",
	       events_format_time(r->time_usec, false, stamp, sizeof(stamp)), d->pid,
	       cli_printable(d->comm, comm, sizeof(comm)), d->hook, d->restriction, d->layer,
	       cli_printable(d->object, object, sizeof(object)),
	       d->flags & UMB_EVENT_PERMISSIVE ? " (permissive: allowed)" : "");
}

/* With --follow, one JSON object per line: a writer per object. */
static int print_json_line(const struct umb_event_record *r)
{
	json_writer_t *line = cli_json_new();

	if (!line)
		return -ENOMEM;
	print_json(line, r);
	jsonw_destroy(&line);
	return 0;
}

/* Each record of @buf's reply (@n bytes) that @f selects and is newer than *@seen (its
 * seq), the last @f->lines only at the first (*@seen 0) without --since. */
static int print_records(const struct events_filter *f, const char *buf, size_t n, json_writer_t *w,
			 bool json, uint64_t *seen)
{
	const struct umb_event_record *records =
		(const struct umb_event_record *)(buf + sizeof(struct umb_reply));
	size_t count = (n - sizeof(struct umb_reply)) / sizeof(*records), first = 0, shown = 0;
	int r;

	if (!*seen && !f->since)
		for (first = count; first > 0 && shown < f->lines;)
			shown += selected(f, &records[--first]);
	for (size_t i = first; i < count; i++) {
		if (records[i].seq <= *seen || !selected(f, &records[i]))
			continue;
		if (w)
			print_json(w, &records[i]);
		else if (json && (r = print_json_line(&records[i])) < 0)
			return r;
		else if (!json)
			print_text(&records[i]);
	}
	if (count && records[count - 1].seq > *seen)
		*seen = records[count - 1].seq;
	/* Nothing new yet: what comes from now on is new. */
	if (!*seen)
		*seen = 1;
	return 0;
}

int events_history(const struct events_filter *f, bool follow, bool json)
{
	char *buf = malloc(REPLY_MAX + 1);
	json_writer_t *w = NULL;
	int ret = EXIT_ERROR;
	uint64_t seen = 0;
	ssize_t n;

	if (!buf) {
		cli_error("events: %s", strerror(ENOMEM));
		return EXIT_ERROR;
	}
	if (!json && getuid() == 0)
		fprintf(stderr,
			"(the journal holds no denial: every uid's, from umbrellad's memory "
			"since it started (at most %d each))\n",
			UMB_EVENTS_MAX);
	else if (!json)
		fprintf(stderr,
			"(the denials of your layers, from umbrellad's memory since it started "
			"(at most %d), not the journal)\n",
			UMB_EVENTS_MAX);
	else if (!follow) {
		w = cli_json_new();
		if (!w)
			goto out;
		jsonw_start_array(w);
	}
	for (;;) {
		n = ask(buf);
		if (n < 0)
			goto out;
		if (print_records(f, buf, (size_t)n, w, json, &seen) < 0)
			goto out;
		if (!follow)
			break;
		fflush(stdout);
		sleep(FOLLOW_POLL_SEC);
	}
	ret = EXIT_OK;
out:
	if (w) {
		jsonw_end_array(w);
		jsonw_destroy(&w);
	}
	free(buf);
	return ret;
}
