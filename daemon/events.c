// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - denial records from the ring buffer, logged to the systemd journal with
 * structured fields (include/umbrella/journal.h), rate limited. Records the ring buffer
 * could not take are counted by the BPF side and reported here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#include <umbrella/event-names.h>
#include <umbrella/journal.h>
#include <umbrella/kdev.h>
#include <umbrella/umbrella.h>

#include "events.h"
#include "follow.h"
#include "log.h"
#include "time-util.h"

const char *event_item_text(const struct umb_event *e, char *buf, size_t size)
{
	const char *name;

	switch (e->item_kind) {
	case UMB_ITEM_FS:
		snprintf(buf, size, "fs:%s%s%s", e->item & UMB_FS_READ ? "r" : "",
			 e->item & UMB_FS_WRITE ? "w" : "", e->item & UMB_FS_EXEC ? "x" : "");
		return buf;
	case UMB_ITEM_CAP:
		name = umb_cap_restriction_name(e->item);
		snprintf(buf, size, "%s", name ? name : "unknown");
		return buf;
	case UMB_ITEM_NET_FAMILY:
		name = umb_net_family_name((int)e->item);
		if (name)
			snprintf(buf, size, "net:%s", name);
		else
			snprintf(buf, size, "net:%llu", (unsigned long long)e->item);
		return buf;
	case UMB_ITEM_SELF:
		snprintf(buf, size, "self:%llu", (unsigned long long)e->item);
		return buf;
	case UMB_ITEM_VERDICT:
		/* The verdict of the file run, or none (a miss). */
		snprintf(buf, size, "verdict:%s",
			 e->item == UMB_VERDICT_UNSIGNED   ? "unsigned" :
			 e->item == UMB_VERDICT_REFUSED	   ? "refused" :
			 e->item == UMB_VERDICT_PENDING	   ? "pending" :
			 e->item == UMB_VERDICT_STALE	   ? "stale" :
			 e->item == UMB_VERDICT_UNVERIFIED ? "unverified" :
			 e->item == 0			   ? "none" :
							     "unknown");
		return buf;
	case UMB_ITEM_SCOPE:
		/* What every layer forbids (enum umb_scope). */
		snprintf(buf, size, "scope:%s",
			 e->item == UMB_SCOPE_PROCESS	? "process" :
			 e->item == UMB_SCOPE_KERNEL	? "kernel" :
			 e->item == UMB_SCOPE_TERMINAL	? "terminal" :
			 e->item == UMB_SCOPE_PRIVILEGE ? "privilege" :
							  "unknown");
		return buf;
	case UMB_ITEM_LINUX_CAP:
		name = umb_linux_cap_name((int)e->item);
		if (name)
			snprintf(buf, size, "cap:%s", name);
		else
			snprintf(buf, size, "cap:%llu", (unsigned long long)e->item);
		return buf;
	}
	snprintf(buf, size, "unknown");
	return buf;
}

/*
 * The rate limit: a window opens with the first denial after the last one closed; in it
 * the first rl_burst denials are logged and the rest only counted, and the count is
 * logged once the window has closed. A flood of denials costs a bounded journal, and
 * the total still adds up.
 */
static unsigned int rl_burst = 200;
static uint64_t rl_interval_usec = 5 * 1000000ULL;
static uint64_t rl_window_start;
static unsigned int rl_window_count;
static unsigned long long rl_suppressed;

/*
 * Under systemd stderr is a stream to the journal, and a line there would log each
 * denial twice. Elsewhere (a terminal, the plain test VM without journald) the line on
 * stderr is what people and tests read.
 */
static bool log_to_stderr(void)
{
	return !log_stderr_is_journal();
}

void events_set_rate_limit(unsigned int burst, unsigned int interval_sec)
{
	events_flush_suppressed(true);
	rl_burst = burst;
	rl_interval_usec = (uint64_t)interval_sec * 1000000;
	rl_window_start = 0;
	rl_window_count = 0;
}

/*
 * Logs a gap in the record of denials (@n of them not logged, @text says why) as a
 * warning: to the journal under @message_id with @n in @field, and to stderr when that
 * is not the journal.
 */
static void log_gap(const char *message_id, const char *field, unsigned long long n,
		    const char *text)
{
	(void)sd_journal_send("MESSAGE=%s", text, "MESSAGE_ID=%s", message_id, "PRIORITY=%d",
			      LOG_WARNING, "SYSLOG_IDENTIFIER=umbrellad", "%s=%llu", field, n,
			      NULL);
	if (log_to_stderr())
		log_warning("%s", text);
}

void events_flush_suppressed(bool now)
{
	unsigned long long n = rl_suppressed;
	char text[128];

	if (!n || (!now && now_usec() - rl_window_start < rl_interval_usec))
		return;
	rl_suppressed = 0;
	snprintf(text, sizeof(text), "%llu denials suppressed (rate limit: %u per %llu s)", n,
		 rl_burst, (unsigned long long)(rl_interval_usec / 1000000));
	log_gap(UMB_MESSAGE_SUPPRESSED, UMB_FIELD_SUPPRESSED, n, text);
}

/* Whether this denial is within the rate limit; counts it if not. */
static bool rate_limit_pass(void)
{
	uint64_t now;

	if (!rl_burst || !rl_interval_usec)
		return true;
	now = now_usec();
	if (!rl_window_start || now - rl_window_start >= rl_interval_usec) {
		events_flush_suppressed(true);
		rl_window_start = now;
		rl_window_count = 0;
	}
	if (rl_window_count < rl_burst) {
		rl_window_count++;
		return true;
	}
	rl_suppressed++;
	return false;
}

/* One journal field, "NAME=value", for sd_journal_sendv(). */
struct field {
	char text[UMB_EVENT_PATH_MAX + 256]; /* MESSAGE: the line, with a whole path */
};

static void __attribute__((format(printf, 3, 4))) field_set(struct iovec *iov, struct field *f,
							    const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	*iov = (struct iovec){ f->text,
			       (size_t)len < sizeof(f->text) ? (size_t)len : sizeof(f->text) - 1 };
}

/* What @e's record denied (UMB_FIELD_OBJECT), in @buf; @inode: its inode's text. */
static void object_text(const struct umb_event *e, const char *inode, char *buf, size_t size)
{
	const char *family;

	if (e->hook == UMB_HOOK_SOCKET_CREATE) {
		/* The family asked for, by its name in "net:FAMILY" items. */
		family = umb_net_family_name((int)e->family);
		if (family)
			snprintf(buf, size, "socket %s", family);
		else
			snprintf(buf, size, "socket %u", e->family);
	} else if (e->path[0])
		snprintf(buf, size, "%.*s", UMB_EVENT_PATH_MAX, e->path);
	else if (e->ino)
		snprintf(buf, size, "inode %s", inode);
	else if (e->target_pid)
		snprintf(buf, size, "pid %u", e->target_pid);
	else
		snprintf(buf, size, "-");
}

/* @e to the connections that follow its layer (follow.h), as the journal has it. */
static void follow_record(struct follows *f, const struct umb_event *e)
{
	struct umb_denial d = { .kind = UMB_DENIAL_RECORD,
				.layer = e->layer,
				.pid = e->pid,
				.flags = e->flags & UMB_EVENT_PERMISSIVE };
	char inode[48] = "";

	snprintf(d.comm, sizeof(d.comm), "%.*s", UMB_COMM_LEN, e->comm);
	snprintf(d.hook, sizeof(d.hook), "%s", umb_hook_name(e->hook));
	event_item_text(e, d.restriction, sizeof(d.restriction));
	if (e->ino)
		umb_inode_text(inode, sizeof(inode), e->dev, e->ino);
	object_text(e, inode, d.object, sizeof(d.object));
	follow_denial(f, &d);
}

static int log_event(void *ctx, void *data, size_t size)
{
	enum {
		F_MESSAGE,
		F_ID,
		F_PRIORITY,
		F_IDENT,
		F_PID,
		F_TID,
		F_COMM,
		F_HOOK,
		F_ITEM,
		F_LAYER,
		F_OBJECT,
		F_EXTRA,
		F_MAX = F_EXTRA + 2
	};
	const struct umb_event *e = data;
	char item[64], object[UMB_EVENT_PATH_MAX + 64], comm[UMB_COMM_LEN + 1], inode[48] = "";
	/* A few KiB, reused for every record: static, off the callback's stack. */
	static struct field fields[F_MAX];
	struct iovec iov[F_MAX];
	struct field *f;
	size_t n = F_EXTRA;
	const char *hook, *mode;

	if (size < sizeof(*e))
		return 0;
	/* The followers first: their sockets bound what they queue, not the rate limit. */
	if (follow_any(ctx))
		follow_record(ctx, e);
	if (!rate_limit_pass())
		return 0;
	snprintf(comm, sizeof(comm), "%.*s", UMB_COMM_LEN, e->comm);
	hook = umb_hook_name(e->hook);
	mode = e->flags & UMB_EVENT_PERMISSIVE ? " (permissive: allowed)" : "";
	event_item_text(e, item, sizeof(item));
	if (e->ino)
		umb_inode_text(inode, sizeof(inode), e->dev, e->ino);
	object_text(e, inode, object, sizeof(object));

	if (log_to_stderr())
		log_notice("denied: pid=%u tid=%u comm=%s hook=%s "
			   "restriction=%s layer=%u object=%s%s",
			   e->pid, e->tid, comm, hook, item, e->layer, object, mode);

	f = fields;
	field_set(&iov[F_MESSAGE], &f[F_MESSAGE],
		  "MESSAGE=denied: pid=%u tid=%u comm=%s hook=%s restriction=%s layer=%u "
		  "object=%s%s",
		  e->pid, e->tid, comm, hook, item, e->layer, object, mode);
	field_set(&iov[F_ID], &f[F_ID], "MESSAGE_ID=%s", UMB_MESSAGE_DENIED);
	field_set(&iov[F_PRIORITY], &f[F_PRIORITY], "PRIORITY=%d", LOG_NOTICE);
	field_set(&iov[F_IDENT], &f[F_IDENT], "SYSLOG_IDENTIFIER=umbrellad");
	field_set(&iov[F_PID], &f[F_PID], UMB_FIELD_PID "=%u", e->pid);
	field_set(&iov[F_TID], &f[F_TID], UMB_FIELD_TID "=%u", e->tid);
	field_set(&iov[F_COMM], &f[F_COMM], UMB_FIELD_COMM "=%s", comm);
	field_set(&iov[F_HOOK], &f[F_HOOK], UMB_FIELD_HOOK "=%s", hook);
	field_set(&iov[F_ITEM], &f[F_ITEM], UMB_FIELD_RESTRICTION "=%s", item);
	field_set(&iov[F_LAYER], &f[F_LAYER], UMB_FIELD_LAYER "=%u", e->layer);
	field_set(&iov[F_OBJECT], &f[F_OBJECT], UMB_FIELD_OBJECT "=%s", object);
	if (e->ino) {
		field_set(&iov[n], &f[n], UMB_FIELD_INODE "=%s", inode);
		n++;
	} else if (e->target_pid && e->hook != UMB_HOOK_SOCKET_CREATE) {
		field_set(&iov[n], &f[n], UMB_FIELD_TARGET_PID "=%u", e->target_pid);
		n++;
	}
	if (e->flags & UMB_EVENT_PERMISSIVE) {
		field_set(&iov[n], &f[n], UMB_FIELD_PERMISSIVE "=1");
		n++;
	}
	/* Without journald (the plain test VM) this fails at once; stderr had the line. */
	(void)sd_journal_sendv(iov, (int)n);
	return 0;
}

struct ring_buffer *events_open(int ringbuf_fd, struct follows *follows)
{
	return ring_buffer__new(ringbuf_fd, log_event, follows, NULL);
}

void events_report_drops(int stats_fd)
{
	static __u64 reported;
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = UMB_STAT_EVENTS_DROPPED;
	__u64 total = 0, *values;

	if (ncpus <= 0)
		return;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return;
	if (bpf_map_lookup_elem(stats_fd, &key, values) == 0) {
		for (int i = 0; i < ncpus; i++)
			total += values[i];
		if (total > reported) {
			unsigned long long n = total - reported;
			char text[128];

			snprintf(text, sizeof(text),
				 "%llu denial records dropped (ring buffer full)", n);
			log_gap(UMB_MESSAGE_DROPPED, UMB_FIELD_DROPPED, n, text);
			reported = total;
		}
	}
	free(values);
}

void events_log_refused_binary(const char *path, unsigned int pid, const char *reason,
			       const char *key_id, const char *verdict)
{
	if (log_to_stderr())
		log_warning("refused binary: pid=%u path=%s key=%s "
			    "verdict=%s reason=%s",
			    pid, path, key_id, verdict, reason);
	/* Without journald (the plain test VM) this fails at once; stderr had the line. */
	(void)sd_journal_send("MESSAGE=refused binary: pid=%u path=%s key=%s verdict=%s reason=%s",
			      pid, path, key_id, verdict, reason, "MESSAGE_ID=%s",
			      UMB_MESSAGE_REFUSED_BINARY, "PRIORITY=%d", LOG_WARNING,
			      "SYSLOG_IDENTIFIER=umbrellad", UMB_FIELD_PID "=%u", pid,
			      UMB_FIELD_OBJECT "=%s", path, UMB_FIELD_VERDICT "=%s", verdict,
			      UMB_FIELD_REASON "=%s", reason, UMB_FIELD_KEY_ID "=%s", key_id, NULL);
}
