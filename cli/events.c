// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli events - the denials umbrellad logged to the journal, newest last.
 *
 * umbrellad writes one entry per denial, with the fields of include/umbrella/journal.h;
 * this reads them back by MESSAGE_ID, together with the entries that say how many
 * denials the rate limit held back or the ring buffer dropped, so the reader sees the
 * gaps too. With --json: an array (bpftool style), or with --follow one object per line
 * (an array never ends while following). That is root's: any other user asks umbrellad
 * for the denials of their own layers instead (events-history.c).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include <umbrella/journal.h>
#include <umbrella/protocol.h>

#include "cli.h"
#include "events-history.h"
#include "events.h"
#include "printable.h"

#define EVENTS_DEFAULT_LINES 50

enum entry_kind { ENTRY_DENIED, ENTRY_SUPPRESSED, ENTRY_DROPPED, ENTRY_OTHER };

static int events_usage(void)
{
	printf("Usage: umbrella-cli [OPTIONS] events [--follow] [-n N | --since TIME]\n"
	       "                                    [--pid PID] [--layer ID]\n"
	       "\n"
	       "Shows the last N (default %d) denials umbrellad logged to the journal,\n"
	       "newest last, and how many the rate limit or a full ring buffer left out.\n"
	       "  -f, --follow    then wait for new ones and print them as they come\n"
	       "  -n, --lines N   show the last N (0: none; with --follow, only new ones)\n"
	       "  --since TIME    every one since TIME: @SECONDS (since the epoch),\n"
	       "                  -N{s,min,h,d} (that long ago), YYYY-MM-DD[ HH:MM[:SS]]\n"
	       "  --pid PID       only the denials of process PID\n"
	       "  --layer ID      only the denials by layer ID\n"
	       "(--pid and --layer leave out the counts of records not logged.)\n"
	       "With --json a JSON array; with --follow one JSON object per line instead\n"
	       "(an array that never ends is no use to a reader). Root reads the system\n"
	       "journal; any other user gets the denials of their own layers from\n"
	       "umbrellad's memory since it started (the last %d), not the journal.\n",
	       EVENTS_DEFAULT_LINES, UMB_EVENTS_MAX);
	return EXIT_OK;
}

/* The value of @field in the current entry, NUL-terminated in @buf; NULL if absent. */
static const char *entry_field(sd_journal *j, const char *field, char *buf, size_t size)
{
	size_t name_len = strlen(field), len;
	const void *data;

	if (sd_journal_get_data(j, field, &data, &len) < 0 || len <= name_len ||
	    ((const char *)data)[name_len] != '=')
		return NULL;
	len -= name_len + 1;
	if (len >= size)
		len = size - 1;
	memcpy(buf, (const char *)data + name_len + 1, len);
	buf[len] = '\0';
	return buf;
}

static enum entry_kind entry_kind(sd_journal *j)
{
	char id[40];

	if (!entry_field(j, "MESSAGE_ID", id, sizeof(id)))
		return ENTRY_OTHER;
	if (strcmp(id, UMB_MESSAGE_DENIED) == 0)
		return ENTRY_DENIED;
	if (strcmp(id, UMB_MESSAGE_SUPPRESSED) == 0)
		return ENTRY_SUPPRESSED;
	if (strcmp(id, UMB_MESSAGE_DROPPED) == 0)
		return ENTRY_DROPPED;
	return ENTRY_OTHER;
}

/* A numeric field as a JSON number, or null when it is absent or not a number. */
static void json_number_field(json_writer_t *w, sd_journal *j, const char *name, const char *field)
{
	char buf[32], *end;
	unsigned long long v;
	const char *s = entry_field(j, field, buf, sizeof(buf));

	jsonw_name(w, name);
	errno = 0;
	if (s && *s && (v = strtoull(s, &end, 10), !errno && !*end))
		jsonw_lluint(w, v);
	else
		jsonw_null(w);
}

static void json_string_field(json_writer_t *w, sd_journal *j, const char *name, const char *field)
{
	char buf[512];
	const char *s = entry_field(j, field, buf, sizeof(buf));

	jsonw_name(w, name);
	if (s)
		jsonw_string(w, s);
	else
		jsonw_null(w);
}

const char *events_format_time(uint64_t usec, bool json, char *buf, size_t size)
{
	time_t t = (time_t)(usec / 1000000);
	char day[48];
	struct tm tm;

	if (json) {
		gmtime_r(&t, &tm);
		strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, size, "%s.%06" PRIu64 "Z", day, usec % 1000000);
	} else {
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	}
	return buf;
}

/* One entry as a JSON object: a "type" ("denial", "suppressed", "dropped"), then its
 * fields, numbers as numbers; a field the entry lacks is null. */
static void print_json(json_writer_t *w, sd_journal *j, enum entry_kind kind, uint64_t usec)
{
	char stamp[64], buf[8];

	jsonw_start_object(w);
	jsonw_string_field(w, "time", events_format_time(usec, true, stamp, sizeof(stamp)));
	switch (kind) {
	case ENTRY_DENIED:
		jsonw_string_field(w, "type", "denial");
		json_number_field(w, j, "pid", UMB_FIELD_PID);
		json_number_field(w, j, "tid", UMB_FIELD_TID);
		json_string_field(w, j, "comm", UMB_FIELD_COMM);
		json_string_field(w, j, "hook", UMB_FIELD_HOOK);
		json_string_field(w, j, "restriction", UMB_FIELD_RESTRICTION);
		json_number_field(w, j, "layer", UMB_FIELD_LAYER);
		json_string_field(w, j, "object", UMB_FIELD_OBJECT);
		json_string_field(w, j, "inode", UMB_FIELD_INODE);
		json_number_field(w, j, "target_pid", UMB_FIELD_TARGET_PID);
		jsonw_bool_field(w, "permissive",
				 entry_field(j, UMB_FIELD_PERMISSIVE, buf, sizeof(buf)) &&
					 strcmp(buf, "1") == 0);
		break;
	case ENTRY_SUPPRESSED:
		jsonw_string_field(w, "type", "suppressed");
		json_number_field(w, j, "count", UMB_FIELD_SUPPRESSED);
		json_number_field(w, j, "uid", UMB_FIELD_UID);
		break;
	case ENTRY_DROPPED:
		jsonw_string_field(w, "type", "dropped");
		json_number_field(w, j, "count", UMB_FIELD_DROPPED);
		json_number_field(w, j, "uid", UMB_FIELD_UID);
		break;
	case ENTRY_OTHER:
		break;
	}
	jsonw_end_object(w);
}

/* One entry as a line: "TIME pid=... comm=... hook=... restriction=... layer=...
 * object=...", the daemon's own line, or "TIME -- N denials ..." for the gaps. */
static void print_text(sd_journal *j, enum entry_kind kind, uint64_t usec)
{
	char stamp[64], pid[16], comm[64], hook[48], item[64], layer[16], object[512], n[32],
		uid[16], flag[8], safe_comm[CLI_PRINTABLE_SIZE(sizeof(comm))],
		safe_object[CLI_PRINTABLE_SIZE(sizeof(object))];

#define F(field, buf) (entry_field(j, field, buf, sizeof(buf)) ?: "?")
	events_format_time(usec, false, stamp, sizeof(stamp));
	switch (kind) {
	case ENTRY_DENIED:
		printf("%s pid=%s comm=%s hook=%s restriction=%s layer=%s object=%s%s\n", stamp,
		       F(UMB_FIELD_PID, pid),
		       cli_printable(F(UMB_FIELD_COMM, comm), safe_comm, sizeof(safe_comm)),
		       F(UMB_FIELD_HOOK, hook), F(UMB_FIELD_RESTRICTION, item),
		       F(UMB_FIELD_LAYER, layer),
		       cli_printable(F(UMB_FIELD_OBJECT, object), safe_object, sizeof(safe_object)),
		       strcmp(F(UMB_FIELD_PERMISSIVE, flag), "1") == 0 ? " (permissive: allowed)" :
									 "");
		break;
	case ENTRY_SUPPRESSED:
		if (entry_field(j, UMB_FIELD_UID, uid, sizeof(uid)))
			printf("%s -- %s denials of uid %s not logged (rate limit)\n", stamp,
			       F(UMB_FIELD_SUPPRESSED, n), uid);
		else
			printf("%s -- %s denials not logged (rate limit)\n", stamp,
			       F(UMB_FIELD_SUPPRESSED, n));
		break;
	case ENTRY_DROPPED:
		if (entry_field(j, UMB_FIELD_UID, uid, sizeof(uid)))
			printf("%s -- %s denial records of uid %s dropped (its budget, or ring "
			       "buffer full)\n",
			       stamp, F(UMB_FIELD_DROPPED, n), uid);
		else
			printf("%s -- %s denial records dropped (ring buffer full)\n", stamp,
			       F(UMB_FIELD_DROPPED, n));
		break;
	case ENTRY_OTHER:
		break;
	}
#undef F
}

static int print_entry(sd_journal *j, json_writer_t *w, bool json, bool follow)
{
	enum entry_kind kind = entry_kind(j);
	uint64_t usec = 0;

	if (kind == ENTRY_OTHER)
		return 0;
	(void)sd_journal_get_realtime_usec(j, &usec);
	if (!json) {
		print_text(j, kind, usec);
	} else if (!follow) {
		print_json(w, j, kind, usec);
	} else {
		/* JSON lines: a writer per object, whose end writes the newline. */
		json_writer_t *line = cli_json_new();

		if (!line)
			return -ENOMEM;
		print_json(line, j, kind, usec);
		jsonw_destroy(&line);
	}
	if (follow)
		fflush(stdout);
	return 0;
}

/*
 * Only umbrellad's entries: its MESSAGE_IDs (ORed, one field), from a root process
 * (_UID is set by journald, so an unprivileged sd_journal_send cannot fake a denial).
 */
/* What the command line asks for. */
struct events_args {
	bool follow;
	unsigned long lines;
	bool lines_given;
	const char *pid;   /* --pid: only this process's denials (decimal) */
	const char *layer; /* --layer: only this layer's denials (decimal) */
	uint64_t since;	   /* --since: CLOCK_REALTIME µs, 0 for none */
};

static int add_matches(sd_journal *j, const struct events_args *a)
{
	char match[64];
	int r;

	r = sd_journal_add_match(j, "MESSAGE_ID=" UMB_MESSAGE_DENIED, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "MESSAGE_ID=" UMB_MESSAGE_SUPPRESSED, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "MESSAGE_ID=" UMB_MESSAGE_DROPPED, 0);
	if (r >= 0)
		r = sd_journal_add_match(j, "_UID=0", 0);
	/* Fields of denials only: the counts of suppressed and dropped records name no
	 * process or layer, so these leave them out. */
	if (r >= 0 && a->pid) {
		snprintf(match, sizeof(match), "%s=%s", UMB_FIELD_PID, a->pid);
		r = sd_journal_add_match(j, match, 0);
	}
	if (r >= 0 && a->layer) {
		snprintf(match, sizeof(match), "%s=%s", UMB_FIELD_LAYER, a->layer);
		r = sd_journal_add_match(j, match, 0);
	}
	return r;
}

/* Whether @s is a decimal number from 1 to UINT32_MAX (a pid or a layer id). */
static bool is_id(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s[0] || s[0] == '0' || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	return !errno && v <= UINT32_MAX;
}

/*
 * --since TIME: "@SECONDS" (since the epoch), "-N" with a unit s, min, h or d (that long
 * ago), or a local "YYYY-MM-DD[ HH:MM[:SS]]". Return: CLOCK_REALTIME µs, or 0 when
 * @s is none of these.
 */
static uint64_t parse_since(const char *s)
{
	static const struct {
		const char *unit;
		uint64_t sec;
	} units[] = { { "s", 1 }, { "min", 60 }, { "h", 3600 }, { "d", 86400 } };
	struct tm tm = { .tm_isdst = -1 };
	unsigned long long n;
	struct timespec now;
	const char *end;
	char *num_end;
	time_t t;

	if (s[0] == '@' || s[0] == '-') {
		if (!isdigit((unsigned char)s[1]))
			return 0;
		errno = 0;
		n = strtoull(s + 1, &num_end, 10);
		if (errno || n > UINT32_MAX)
			return 0;
		if (s[0] == '@')
			return *num_end ? 0 : (uint64_t)n * 1000000;
		for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
			if (strcmp(num_end, units[i].unit))
				continue;
			clock_gettime(CLOCK_REALTIME, &now);
			if ((uint64_t)n * units[i].sec >= (uint64_t)now.tv_sec)
				return 0;
			return ((uint64_t)now.tv_sec - n * units[i].sec) * 1000000;
		}
		return 0;
	}
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end && *end == ' ') {
		const char *clock = end + 1;

		end = strptime(clock, "%H:%M:%S", &tm);
		if (!end || *end)
			end = strptime(clock, "%H:%M", &tm);
	}
	if (!end || *end)
		return 0;
	t = mktime(&tm);
	return t > 0 ? (uint64_t)t * 1000000 : 0;
}

static int parse_args(int argc, char **argv, struct events_args *a)
{
	enum { OPT_PID = 0x100, OPT_LAYER, OPT_SINCE };
	static const struct option options[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "lines", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "layer", required_argument, NULL, OPT_LAYER },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char *end;
	int c;

	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+:fn:h", options, NULL)) >= 0) {
		switch (c) {
		case 'f':
			a->follow = true;
			break;
		case 'n':
			errno = 0;
			a->lines = strtoul(optarg, &end, 10);
			if (errno || !*optarg || *end || *optarg == '-') {
				cli_error("events: -n %s: not a number", optarg);
				return -EINVAL;
			}
			a->lines_given = true;
			break;
		case OPT_PID:
		case OPT_LAYER:
			if (!is_id(optarg)) {
				cli_error("events: %s %s: not a %s",
					  c == OPT_PID ? "--pid" : "--layer", optarg,
					  c == OPT_PID ? "process id" : "layer id");
				return -EINVAL;
			}
			*(c == OPT_PID ? &a->pid : &a->layer) = optarg;
			break;
		case OPT_SINCE:
			a->since = parse_since(optarg);
			if (!a->since) {
				cli_error(
					"events: --since %s: not a time (@SECONDS, -N{s,min,h,d}, "
					"YYYY-MM-DD[ HH:MM[:SS]])",
					optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			return 0;
		case ':':
			cli_error("events: %s: missing argument", argv[optind - 1]);
			return -EINVAL;
		default:
			cli_error("events: %s: unknown option (try 'umbrella-cli events --help')",
				  argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		cli_error("events: unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (a->since && a->lines_given) {
		cli_error("events: --since shows every entry since then: give it or -n, not both");
		return -EINVAL;
	}
	return 1;
}

int cli_events(int argc, char **argv, bool json)
{
	struct events_args a = { .lines = EVENTS_DEFAULT_LINES };
	json_writer_t *w = NULL;
	sd_journal *j = NULL;
	int r, skipped = 0, ret = EXIT_ERROR;
	bool follow, print_current;

	r = parse_args(argc, argv, &a);
	if (r <= 0)
		return r == 0 ? events_usage() : EXIT_USAGE;
	struct events_filter f = { .pid = a.pid ? (uint32_t)strtoul(a.pid, NULL, 10) : 0,
				   .layer = a.layer ? (uint32_t)strtoul(a.layer, NULL, 10) : 0,
				   .since = a.since,
				   .lines = a.lines };

	/* A user asks umbrellad, whatever their groups: only their own layers' denials,
	 * the same wherever they log in. */
	if (getuid() != 0)
		return events_history(&f, a.follow, json);

	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0) {
		cli_error("events: cannot open the journal: %s", strerror(-r));
		return EXIT_ERROR;
	}
	r = add_matches(j, &a);
	if (r < 0) {
		cli_error("events: journal match: %s", strerror(-r));
		goto out;
	}

	/*
	 * The last @lines entries: from the tail back @lines entries (fewer if the journal
	 * has fewer), printing the one we land on and then those after it. With @lines 0,
	 * step back one so that sd_journal_next() yields only entries yet to come.
	 */
	follow = a.follow;
	if (a.since) {
		/* Every entry from @since on: sd_journal_next() yields the first. */
		r = sd_journal_seek_realtime_usec(j, a.since);
		print_current = false;
	} else {
		r = sd_journal_seek_tail(j);
		if (r >= 0)
			r = skipped = sd_journal_previous_skip(j, a.lines ? a.lines : 1);
		print_current = skipped > 0 && a.lines > 0;
	}
	if (r < 0)
		goto err;
	/* Not one record in the journal: umbrellad logs elsewhere (started by hand, as in
	 * the demo). Its own memory of the recent denials holds them; root sees every
	 * uid's there. */
	if (r == 0 && !a.since && !follow) {
		sd_journal_close(j);
		return events_history(&f, false, json);
	}
	if (json && !follow) {
		w = cli_json_new();
		if (!w)
			goto out;
		jsonw_start_array(w);
	}
	if (print_current) {
		r = print_entry(j, w, json, follow);
		if (r < 0)
			goto err;
	}
	for (;;) {
		r = sd_journal_next(j);
		if (r < 0)
			goto err;
		if (r > 0) {
			r = print_entry(j, w, json, follow);
			if (r < 0)
				goto err;
			continue;
		}
		if (!follow)
			break;
		r = sd_journal_wait(j, UINT64_MAX);
		if (r < 0)
			goto err;
	}
	ret = EXIT_OK;
	goto out;
err:
	cli_error("events: reading the journal: %s", strerror(-r));
out:
	if (w) {
		jsonw_end_array(w);
		jsonw_destroy(&w);
	}
	sd_journal_close(j);
	return ret;
}
