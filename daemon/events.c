// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - denial records from the ring buffer (umb_events): each is described once,
 * as text, and goes to the connections that follow its layer (follow.c), to the recent
 * denials of its layer's uid (history.c) and to the journal (journal-writer.c). Records
 * the BPF side dropped (beyond their uid's budget, or the ring buffer full) are counted
 * there, in all (umb_stats) and per uid (umb_event_budget), and reported here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/epoll.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include <umbrella/event-names.h>
#include <umbrella/kdev.h>
#include <umbrella/umbrella.h>

#include "event-priority.h"
#include "events.h"
#include "follow.h"
#include "history.h"
#include "journal-writer.h"
#include "layers.h"
#include "log.h"
#include "macro.h"
#include "time-util.h"

/* How often the records dropped and the denials suppressed are looked for: a gap in the
 * journal is said within this long. */
#define TICK_USEC (1 * USEC_PER_SEC)

/*
 * Records read from each ring buffer in one turn of the loop. ring_buffer__consume()
 * reads until a ring is empty, and a ring that a user's loop of denied calls keeps
 * filling is never empty: the loop would serve nothing else (not the socket, not the
 * exec gate, not systemd's watchdog, which then kills umbrellad). A turn reads at most
 * this many per ring; what is left keeps the descriptor ready (level-triggered), so the
 * loop comes back to it after the other sources it has pending. Records the BPF side
 * cannot queue meanwhile are dropped and counted (events_report_drops()).
 */
#define RECORDS_PER_TURN 256

/* A uid's dropped count (struct umb_event_budget.dropped). */
struct uid_drops {
	__u32 uid;
	__u64 dropped;
};

/* The loop's sources (events_attach()); one reader per process. */
static struct {
	struct ring_buffer *rb;
	int stats_fd, budget_fd;
	sd_event_source *ready, *tick;
	unsigned int turn_left; /* records the current ring may still give this turn */
	__u64 reported;		/* drops written to the journal, of all uids */
	/* The dropped counts of umb_event_budget as last written, by uid */
	struct uid_drops seen[UMB_EVENT_BUDGET_UIDS];
	size_t nseen;
} attached = { .stats_fd = -1, .budget_fd = -1 };

int events_record_read(void)
{
	return --attached.turn_left ? 0 : -EAGAIN;
}

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
			 e->item == UMB_VERDICT_LIBRARY	   ? "library" :
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
		/* What the path builder (bpf/lib/dpath.bpf.h) could not be sure of. */
		snprintf(buf, size, "%.*s%s%s%s", UMB_EVENT_PATH_MAX, e->path,
			 e->flags & UMB_EVENT_PATH_DELETED ? " (deleted)" : "",
			 e->flags & UMB_EVENT_PATH_UNSURE ? " (raced with a rename)" : "",
			 e->flags & UMB_EVENT_PATH_SOME_MOUNT ? " (via one of several mounts)" :
								"");
	else if (e->ino)
		snprintf(buf, size, "inode %s", inode);
	else if (e->target_pid)
		snprintf(buf, size, "pid %u", e->target_pid);
	else
		snprintf(buf, size, "-");
}

/* What @e says, as text: the same for the journal and for the followers. */
static void event_describe(const struct umb_event *e, struct event_text *t)
{
	snprintf(t->comm, sizeof(t->comm), "%.*s", UMB_COMM_LEN, e->comm);
	t->hook = umb_hook_name(e->hook);
	event_item_text(e, t->item, sizeof(t->item));
	t->inode[0] = '\0';
	if (e->ino)
		umb_inode_text(t->inode, sizeof(t->inode), e->dev, e->ino);
	object_text(e, t->inode, t->object, sizeof(t->object));
}

/* @e as a record of the socket's (protocol.h), as the journal has it. */
static void denial_record(const struct umb_event *e, const struct event_text *t,
			  struct umb_denial *ret)
{
	struct umb_denial d = { .kind = UMB_DENIAL_RECORD,
				.layer = e->layer,
				.pid = e->pid,
				.flags = e->flags & UMB_EVENT_PERMISSIVE };

	/* Each cut to its field of struct umb_denial. */
	snprintf(d.comm, sizeof(d.comm), "%.*s", (int)sizeof(d.comm) - 1, t->comm);
	snprintf(d.hook, sizeof(d.hook), "%.*s", (int)sizeof(d.hook) - 1, t->hook);
	snprintf(d.restriction, sizeof(d.restriction), "%.*s", (int)sizeof(d.restriction) - 1,
		 t->item);
	snprintf(d.object, sizeof(d.object), "%.*s", (int)sizeof(d.object) - 1, t->object);
	*ret = d;
}

/* @d to its layer's uid's recent denials: only while the layer lives is its uid known
 * (a record read after its layer was freed is kept for nobody, never for a guess). */
static void history_record(const struct event_sinks *sinks, const struct umb_denial *d)
{
	const struct umb_layer *l = layers_get(sinks->layers, d->layer);
	struct timespec now;

	if (!l)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	history_add(sinks->history, l->uid, d,
		    (uint64_t)now.tv_sec * USEC_PER_SEC + (uint64_t)now.tv_nsec / 1000);
}

/* One umb_events record: to its layer's followers and its uid's history, and to the
 * journal (journal-writer.c) within the rate limit, which holds for the journal only:
 * the followers' sockets bound what they queue, the history is bounded per uid. */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct event_sinks *sinks = ctx;
	const struct umb_event *e = data;
	struct umb_denial d;
	struct event_text t;

	if (size < sizeof(*e))
		return 0;
	event_describe(e, &t);
	denial_record(e, &t, &d);
	if (follow_any(sinks->follows))
		follow_denial(sinks->follows, &d);
	history_record(sinks, &d);
	if (journal_denial_within_limit(e->uid))
		journal_write_denial(e, &t);
	return events_record_read();
}

struct ring_buffer *events_open(int ringbuf_fd, struct event_sinks *sinks)
{
	return ring_buffer__new(ringbuf_fd, on_event, sinks, NULL);
}

static int uid_drops_cmp(const void *a, const void *b)
{
	const struct uid_drops *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/*
 * Writes each uid's records dropped since the last look (umb_event_budget), and
 * returns their sum. An entry whose count is below what was written was evicted and
 * made again since: all of its count is new. Its previous entry's count since the last
 * look is lost, and shows in the total (events_report_drops()).
 */
static __u64 report_uid_drops(void)
{
	static struct uid_drops now[UMB_EVENT_BUDGET_UIDS];
	struct umb_event_budget v;
	__u32 key, next, *prev = NULL;
	size_t n = 0;
	__u64 sum = 0;

	if (attached.budget_fd < 0)
		return 0;
	/* Bounded: an entry deleted under the walk restarts it (the LRU evicts). */
	for (int i = 0; i < 2 * UMB_EVENT_BUDGET_UIDS && n < UMB_EVENT_BUDGET_UIDS; i++) {
		if (bpf_map_get_next_key(attached.budget_fd, prev, &next) < 0)
			break;
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(attached.budget_fd, &key, &v) == 0 && v.dropped)
			now[n++] = (struct uid_drops){ .uid = key, .dropped = v.dropped };
	}
	qsort(now, n, sizeof(*now), uid_drops_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct uid_drops *was;
		__u64 d;

		if (i && now[i].uid == now[i - 1].uid)
			continue; /* met twice by a restarted walk */
		was = bsearch(&now[i], attached.seen, attached.nseen, sizeof(*was), uid_drops_cmp);
		d = was && was->dropped <= now[i].dropped ? now[i].dropped - was->dropped :
							    now[i].dropped;
		if (d) {
			journal_write_dropped(true, now[i].uid, d);
			sum += d;
		}
	}
	/* Uids no longer in the map are forgotten: a new entry's count starts at 0. */
	memcpy(attached.seen, now, n * sizeof(*now));
	attached.nseen = n;
	return sum;
}

void events_report_drops(int stats_fd)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = UMB_STAT_EVENTS_DROPPED;
	__u64 total = 0, *values;

	if (ncpus <= 0)
		return;
	values = calloc(ncpus, sizeof(*values));
	if (!values)
		return;
	/* The total first: the BPF side counts a drop for its uid before it counts it in
	 * the total, so the uids' counts read after it cover it. */
	if (bpf_map_lookup_elem(stats_fd, &key, values) == 0) {
		for (int i = 0; i < ncpus; i++)
			total += values[i];
		if (total > attached.reported) {
			attached.reported += report_uid_drops();
			/* What no uid's count explains: an evicted entry's, or a record with
			 * no entry to count it in. */
			if (total > attached.reported) {
				journal_write_dropped(false, 0, total - attached.reported);
				attached.reported = total;
			}
		}
	}
	free(values);
}

/* Records wait in the ring buffer(s): read a turn's worth of each (RECORDS_PER_TURN).
 * What was dropped is said at the tick: the look at every uid's count is not for each
 * turn of a flood. */
static int on_records(_unused_ sd_event_source *s, _unused_ int fd, _unused_ uint32_t revents,
		      _unused_ void *userdata)
{
	struct ring *ring;

	for (unsigned int i = 0; (ring = ring_buffer__ring(attached.rb, i)); i++) {
		attached.turn_left = RECORDS_PER_TURN;
		(void)ring__consume(ring);
	}
	return 0;
}

static int on_tick(sd_event_source *s, _unused_ uint64_t usec, _unused_ void *userdata)
{
	int r;

	events_report_drops(attached.stats_fd);
	journal_flush_suppressed(false);
	r = sd_event_source_set_time_relative(s, TICK_USEC);
	if (r < 0)
		log_error_errno(r, "Failed to schedule the next look for dropped records: %m");
	return 0;
}

int events_attach(struct ring_buffer *rb, int stats_fd, int budget_fd, sd_event *e)
{
	int r;

	attached.rb = rb;
	attached.stats_fd = stats_fd;
	attached.budget_fd = budget_fd;
	r = event_add_io(e, &attached.ready, ring_buffer__epoll_fd(rb), EPOLLIN, PRIORITY_WORK,
			 on_records, NULL);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the ring buffers: %m");
	r = sd_event_add_time_relative(e, &attached.tick, CLOCK_MONOTONIC, TICK_USEC,
				       TICK_USEC / 10, on_tick, NULL);
	if (r >= 0)
		r = sd_event_source_set_enabled(attached.tick, SD_EVENT_ON);
	if (r < 0)
		return log_error_errno(r, "Failed to schedule the look for dropped records: %m");
	return 0;
}

void events_detach(void)
{
	attached.ready = sd_event_source_disable_unref(attached.ready);
	attached.tick = sd_event_source_disable_unref(attached.tick);
	attached.rb = NULL;
}
