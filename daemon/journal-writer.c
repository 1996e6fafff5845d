// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the journal writer: each denial record (events.c reads them) and each
 * refused binary (the exec gate) becomes a journal entry with structured fields
 * (include/umbrella/journal.h), denials rate limited. Gaps in the record (denials
 * suppressed by the rate limit, records the ring buffer could not take) are entries of
 * their own, so that the totals still add up.
 *
 * Under systemd stderr is a stream to the journal, and a line there would log each
 * entry twice. Elsewhere (a terminal, the plain test VM without journald, where
 * sd_journal_send() fails at once) the line on stderr is what people and tests read.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include <umbrella/journal.h>

#include "journal-writer.h"
#include "log.h"
#include "time-util.h"

/*
 * The rate limit: a window opens with the first denial after the last one closed; in it
 * the first rl_burst denials are written and the rest only counted, and the count is
 * written once the window has closed. A flood of denials costs a bounded journal, and
 * the total still adds up.
 */
static unsigned int rl_burst = 200;
static uint64_t rl_interval_usec = 5 * USEC_PER_SEC;
static uint64_t rl_window_start;
static unsigned int rl_window_count;
static unsigned long long rl_suppressed;

static bool log_to_stderr(void)
{
	return !log_stderr_is_journal();
}

void journal_set_rate_limit(unsigned int burst, unsigned int interval_sec)
{
	journal_flush_suppressed(true);
	rl_burst = burst;
	rl_interval_usec = (uint64_t)interval_sec * USEC_PER_SEC;
	rl_window_start = 0;
	rl_window_count = 0;
}

/*
 * Writes a gap in the record of denials (@n of them not written, @text says why) as a
 * warning: to the journal under @message_id with @n in @field, and to stderr when that
 * is not the journal.
 */
static void write_gap(const char *message_id, const char *field, unsigned long long n,
		      const char *text)
{
	(void)sd_journal_send("MESSAGE=%s", text, "MESSAGE_ID=%s", message_id, "PRIORITY=%d",
			      LOG_WARNING, "SYSLOG_IDENTIFIER=umbrellad", "%s=%llu", field, n,
			      NULL);
	if (log_to_stderr())
		log_warning("%s", text);
}

void journal_flush_suppressed(bool now)
{
	unsigned long long n = rl_suppressed;
	char text[128];

	if (!n || (!now && now_usec() - rl_window_start < rl_interval_usec))
		return;
	rl_suppressed = 0;
	snprintf(text, sizeof(text), "%llu denials suppressed (rate limit: %u per %llu s)", n,
		 rl_burst, (unsigned long long)(rl_interval_usec / USEC_PER_SEC));
	write_gap(UMB_MESSAGE_SUPPRESSED, UMB_FIELD_SUPPRESSED, n, text);
}

void journal_write_dropped(unsigned long long n)
{
	char text[128];

	snprintf(text, sizeof(text), "%llu denial records dropped (ring buffer full)", n);
	write_gap(UMB_MESSAGE_DROPPED, UMB_FIELD_DROPPED, n, text);
}

bool journal_denial_within_limit(void)
{
	uint64_t now;

	if (!rl_burst || !rl_interval_usec)
		return true;
	now = now_usec();
	if (!rl_window_start || now - rl_window_start >= rl_interval_usec) {
		journal_flush_suppressed(true);
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

void journal_write_denial(const struct umb_event *e, const struct event_text *t)
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
	/* A few KiB, reused for every record: static, off the callback's stack. */
	static struct field fields[F_MAX];
	struct iovec iov[F_MAX];
	struct field *f = fields;
	size_t n = F_EXTRA;
	const char *mode;

	mode = e->flags & UMB_EVENT_PERMISSIVE ? " (permissive: allowed)" : "";
	if (log_to_stderr())
		log_notice("denied: pid=%u tid=%u comm=%s hook=%s "
			   "restriction=%s layer=%u object=%s%s",
			   e->pid, e->tid, t->comm, t->hook, t->item, e->layer, t->object, mode);

	field_set(&iov[F_MESSAGE], &f[F_MESSAGE],
		  "MESSAGE=denied: pid=%u tid=%u comm=%s hook=%s restriction=%s layer=%u "
		  "object=%s%s",
		  e->pid, e->tid, t->comm, t->hook, t->item, e->layer, t->object, mode);
	field_set(&iov[F_ID], &f[F_ID], "MESSAGE_ID=%s", UMB_MESSAGE_DENIED);
	field_set(&iov[F_PRIORITY], &f[F_PRIORITY], "PRIORITY=%d", LOG_NOTICE);
	field_set(&iov[F_IDENT], &f[F_IDENT], "SYSLOG_IDENTIFIER=umbrellad");
	field_set(&iov[F_PID], &f[F_PID], UMB_FIELD_PID "=%u", e->pid);
	field_set(&iov[F_TID], &f[F_TID], UMB_FIELD_TID "=%u", e->tid);
	field_set(&iov[F_COMM], &f[F_COMM], UMB_FIELD_COMM "=%s", t->comm);
	field_set(&iov[F_HOOK], &f[F_HOOK], UMB_FIELD_HOOK "=%s", t->hook);
	field_set(&iov[F_ITEM], &f[F_ITEM], UMB_FIELD_RESTRICTION "=%s", t->item);
	field_set(&iov[F_LAYER], &f[F_LAYER], UMB_FIELD_LAYER "=%u", e->layer);
	field_set(&iov[F_OBJECT], &f[F_OBJECT], UMB_FIELD_OBJECT "=%s", t->object);
	if (e->ino) {
		field_set(&iov[n], &f[n], UMB_FIELD_INODE "=%s", t->inode);
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
}

void journal_write_refused_binary(const char *path, unsigned int pid, const char *reason,
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
