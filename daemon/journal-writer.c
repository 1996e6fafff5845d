// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the journal writer: each denial record (events.c reads them) and each
 * refused binary (the exec gate) becomes a journal entry with structured fields
 * (include/umbrella/journal.h), denials rate limited per uid. Gaps in the record (denials
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
 * The rate limit, per uid (struct umb_event.uid): a uid's window opens with its first
 * denial after its last window closed; in it the uid's first rl_burst denials are
 * written and the rest only counted, and the count is written once the window has
 * closed. A flood of denials costs a bounded journal, the total still adds up, and one
 * uid's flood suppresses only its own denials.
 *
 * A uid's window is kept from its first denial until it has closed and its count is
 * written (journal_flush_suppressed(), every second): the table holds the uids that
 * made denials in the last interval. Beyond RL_UIDS of them, the others share one
 * window (rl_others): a flood by more uids than that (subordinate uids) is limited as
 * one, and the uids already in the table keep theirs.
 */
#define RL_UIDS 1024

struct rl_window {
	uint32_t uid;
	unsigned int count;	       /* denials written in the window */
	uint64_t start;		       /* 0: no window open */
	unsigned long long suppressed; /* denials counted, not written */
};

static unsigned int rl_burst = 200;
static uint64_t rl_interval_usec = 5 * USEC_PER_SEC;
static struct rl_window rl_uids[RL_UIDS];
static size_t rl_count;
static struct rl_window rl_others;

static bool log_to_stderr(void)
{
	return !log_stderr_is_journal();
}

/*
 * Writes a gap in the record of denials (@n of them not written, @text says why) as a
 * warning: to the journal under @message_id with @n in @field, and @uid in
 * UMB_FIELD_UID unless @uid_known is false, and to stderr when that is not the journal.
 */
static void write_gap(const char *message_id, const char *field, unsigned long long n,
		      bool uid_known, uint32_t uid, const char *text)
{
	if (uid_known)
		(void)sd_journal_send("MESSAGE=%s", text, "MESSAGE_ID=%s", message_id,
				      "PRIORITY=%d", LOG_WARNING, "SYSLOG_IDENTIFIER=umbrellad",
				      "%s=%llu", field, n, UMB_FIELD_UID "=%u", uid, NULL);
	else
		(void)sd_journal_send("MESSAGE=%s", text, "MESSAGE_ID=%s", message_id,
				      "PRIORITY=%d", LOG_WARNING, "SYSLOG_IDENTIFIER=umbrellad",
				      "%s=%llu", field, n, NULL);
	if (log_to_stderr())
		log_warning("%s", text);
}

/* Writes what @w suppressed, if anything, and closes it. */
static void rl_flush(struct rl_window *w)
{
	bool others = w == &rl_others;
	char text[160];

	if (w->suppressed) {
		if (others)
			snprintf(
				text, sizeof(text),
				"%llu denials of other uids suppressed (rate limit: %u per %llu s, "
				"shared beyond %d uids)",
				w->suppressed, rl_burst,
				(unsigned long long)(rl_interval_usec / USEC_PER_SEC), RL_UIDS);
		else
			snprintf(text, sizeof(text),
				 "%llu denials of uid %u suppressed (rate limit: %u per %llu s)",
				 w->suppressed, w->uid, rl_burst,
				 (unsigned long long)(rl_interval_usec / USEC_PER_SEC));
		write_gap(UMB_MESSAGE_SUPPRESSED, UMB_FIELD_SUPPRESSED, w->suppressed, !others,
			  w->uid, text);
	}
	w->suppressed = 0;
	w->start = 0;
	w->count = 0;
}

void journal_flush_suppressed(bool now)
{
	uint64_t t = now_usec();

	for (size_t i = 0; i < rl_count;) {
		struct rl_window *w = &rl_uids[i];

		if (!now && t - w->start < rl_interval_usec) {
			i++;
			continue;
		}
		rl_flush(w);
		*w = rl_uids[--rl_count]; /* closed: its place for another uid */
	}
	if (rl_others.start && (now || t - rl_others.start >= rl_interval_usec))
		rl_flush(&rl_others);
}

void journal_set_rate_limit(unsigned int burst, unsigned int interval_sec)
{
	journal_flush_suppressed(true);
	rl_burst = burst;
	rl_interval_usec = (uint64_t)interval_sec * USEC_PER_SEC;
}

void journal_write_dropped(bool uid_known, uint32_t uid, unsigned long long n)
{
	char text[128];

	if (uid_known)
		snprintf(text, sizeof(text),
			 "%llu denial records of uid %u dropped (over its budget, or ring buffer "
			 "full)",
			 n, uid);
	else
		snprintf(text, sizeof(text), "%llu denial records dropped (ring buffer full)", n);
	write_gap(UMB_MESSAGE_DROPPED, UMB_FIELD_DROPPED, n, uid_known, uid, text);
}

/* @uid's window: its own, or rl_others when RL_UIDS other uids have theirs. */
static struct rl_window *rl_window_of(uint32_t uid)
{
	for (size_t i = 0; i < rl_count; i++)
		if (rl_uids[i].uid == uid)
			return &rl_uids[i];
	if (rl_count == RL_UIDS)
		return &rl_others;
	rl_uids[rl_count] = (struct rl_window){ .uid = uid };
	return &rl_uids[rl_count++];
}

bool journal_denial_within_limit(uint32_t uid)
{
	struct rl_window *w;
	uint64_t now;

	if (!rl_burst || !rl_interval_usec)
		return true;
	now = now_usec();
	w = rl_window_of(uid);
	if (!w->start || now - w->start >= rl_interval_usec) {
		rl_flush(w);
		w->start = now;
	}
	if (w->count < rl_burst) {
		w->count++;
		return true;
	}
	w->suppressed++;
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
		F_UID,
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
	field_set(&iov[F_UID], &f[F_UID], UMB_FIELD_UID "=%u", e->uid);
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
