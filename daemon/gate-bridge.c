// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - what the exec gate's thread and the main thread hand each other.
 *
 * Each sd-event loop is touched by its own thread only (gate-thread.c says why there
 * are two). What one thread needs done by the other goes as a message to the other's
 * loop (an eventfd source there) and a wait for its result, bounded, under bridge_lock:
 *
 * - The gate needs the layer of a signed policy (gate_layer_get()). A layer made
 *   before (the usual case: every later exec of that policy, whatever the file) it finds
 *   in umb_policies itself, without asking (gate_policies_cached()): a user who copies a
 *   signed binary to new files, each exec'd once, while flooding the main loop with
 *   requests, delays nobody's execs. A new one it asks for: the layers are the main
 *   loop's (layers.c; fs-watch.c's sources are in that loop). The main loop makes
 *   it after the event it serves (its source comes before every other), so the gate
 *   waits for at most that one event's budgeted work; past GATE_LAYER_WAIT_USEC the exec
 *   is refused, and a layer made for a job nobody waits for any more is dropped unless
 *   the cache of policies (umb_policies) keeps it for the next exec.
 *
 * - The main thread flushes the verdicts (a request) and reloads the key ring (SIGHUP)
 *   (gate_call()): the gate's loop runs the call after the event it serves. That event
 *   may be a read stuck on a stalled FUSE or NFS file, and the main loop must not stall
 *   with it: past GATE_CALL_WAIT_USEC the call fails with -EBUSY (one not yet begun is
 *   taken back; one begun ends without a reader). While it waits, the main thread makes
 *   the layer the gate may be waiting for, so that neither waits for the other.
 *
 * The gate waits with no lock held but bridge_lock, in pthread_cond_timedwait(), and
 * serves one event at a time: nothing here nests a wait in another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "event-priority.h"
#include "gate-internal.h"
#include "log.h"
#include "macro.h"

/* A layer the gate asked the main loop for. Owned by the gate while queued or done,
 * by the main thread while it makes it once the gate stopped waiting (abandoned). */
struct gate_layer_job {
	char *text, *path;
	struct gate_policy_signer signer;
	__u32 pid;
	bool running;	/* the main thread took it (g->layer_job is NULL again) */
	bool done;	/* the result is here */
	bool abandoned; /* the gate stopped waiting: the main thread frees it */
	int r;
	__u32 layer;
	char *error;
};

static void layer_job_free(struct gate_layer_job *job)
{
	if (!job)
		return;
	free(job->text);
	free(job->path);
	free(job->error);
	free(job);
}

/* The CLOCK_MONOTONIC time @usec from now, for pthread_cond_timedwait(). */
static struct timespec deadline_after(uint64_t usec)
{
	uint64_t t = now_usec() + usec;

	return (struct timespec){ .tv_sec = (time_t)(t / USEC_PER_SEC),
				  .tv_nsec = (long)(t % USEC_PER_SEC) * 1000 };
}

int gate_bridge_init(struct exec_gate *g)
{
	pthread_condattr_t attr;
	int r;

	g->layer_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->layer_fd < 0)
		return -errno;
	g->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g->call_fd < 0)
		return -errno;
	r = -pthread_condattr_init(&attr);
	if (r < 0)
		return r;
	r = -pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (r == 0)
		r = -pthread_cond_init(&g->bridge_changed, &attr);
	pthread_condattr_destroy(&attr);
	if (r < 0)
		return r;
	r = -pthread_mutex_init(&g->bridge_lock, NULL);
	if (r < 0) {
		pthread_cond_destroy(&g->bridge_changed);
		return r;
	}
	g->bridge_ready = true;
	return 0;
}

void gate_bridge_release(struct exec_gate *g)
{
	sd_event_source_disable_unref(g->layer_source);
	g->layer_source = NULL;
	/* The gate's thread is joined: a job still here is its, never taken. */
	layer_job_free(g->layer_job);
	g->layer_job = NULL;
	if (g->bridge_ready) {
		pthread_cond_destroy(&g->bridge_changed);
		pthread_mutex_destroy(&g->bridge_lock);
		g->bridge_ready = false;
	}
	if (g->layer_fd >= 0)
		close(g->layer_fd);
	if (g->call_fd >= 0)
		close(g->call_fd);
	g->layer_fd = g->call_fd = -1;
}

/*
 * The main thread, under bridge_lock (let go of meanwhile): makes the queued layer job,
 * if there is one. A job the gate no longer waits for is freed, and its layer dropped
 * unless the cache keeps it. Return: whether there was one.
 */
static bool serve_layer_job(struct exec_gate *g)
{
	struct gate_layer_job *job = g->layer_job;

	if (!job)
		return false;
	job->running = true;
	g->layer_job = NULL;
	pthread_mutex_unlock(&g->bridge_lock);
	job->r = gate_policies_layer(&g->policies, job->text, &job->signer, job->pid, job->path,
				     &job->layer, &job->error);
	pthread_mutex_lock(&g->bridge_lock);
	if (job->abandoned) {
		pthread_mutex_unlock(&g->bridge_lock);
		if (job->r == 0)
			gate_policies_abandon(&g->policies, job->text, &job->signer, job->layer);
		layer_job_free(job);
		pthread_mutex_lock(&g->bridge_lock);
	} else {
		job->done = true;
		pthread_cond_broadcast(&g->bridge_changed);
	}
	return true;
}

static int on_layer_job(_unused_ sd_event_source *s, int fd, _unused_ uint32_t revents,
			void *userdata)
{
	struct exec_gate *g = userdata;
	eventfd_t n;

	(void)eventfd_read(fd, &n);
	pthread_mutex_lock(&g->bridge_lock);
	(void)serve_layer_job(g);
	pthread_mutex_unlock(&g->bridge_lock);
	return 0;
}

int exec_gate_attach_main(struct exec_gate *g, sd_event *e)
{
	int r = event_add_io(e, &g->layer_source, g->layer_fd, EPOLLIN, PRIORITY_BRIDGE,
			     on_layer_job, g);

	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch its requests for layers: %m");
	return 0;
}

void gate_bridge_close(struct exec_gate *g)
{
	pthread_mutex_lock(&g->bridge_lock);
	g->bridge_closed = true;
	pthread_cond_broadcast(&g->bridge_changed);
	pthread_mutex_unlock(&g->bridge_lock);
}

int gate_layer_get(struct exec_gate *g, const char *text, const struct gate_policy_signer *s,
		   __u32 pid, const char *path, __u32 *ret_layer, char **ret_error)
{
	struct timespec deadline = deadline_after(GATE_LAYER_WAIT_USEC);
	struct gate_layer_job *job;
	int r = -ETIMEDOUT, w = 0;

	/* Before the thread starts (exec_gate_new()), this is the main thread. */
	if (!g->running)
		return gate_policies_layer(&g->policies, text, s, pid, path, ret_layer, ret_error);
	/* Made before: no need of the main loop (no wait behind its work). */
	if (gate_policies_cached(&g->policies, text, s, ret_layer) == 0)
		return 0;
	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->text = strdup(text);
	job->path = strdup(path);
	if (!job->text || !job->path) {
		layer_job_free(job);
		return -ENOMEM;
	}
	job->signer = *s;
	job->pid = pid;

	pthread_mutex_lock(&g->bridge_lock);
	if (!g->bridge_closed) {
		g->layer_job = job;
		(void)eventfd_write(g->layer_fd, 1);
	}
	while (!job->done && !g->bridge_closed && w != ETIMEDOUT)
		w = pthread_cond_timedwait(&g->bridge_changed, &g->bridge_lock, &deadline);
	if (job->done) {
		r = job->r;
		*ret_layer = job->layer;
		*ret_error = TAKE_PTR(job->error);
		layer_job_free(job);
		pthread_mutex_unlock(&g->bridge_lock);
		return r;
	}
	if (g->bridge_closed)
		r = -ESHUTDOWN;
	if (job->running) {
		job->abandoned = true; /* the main thread frees it when done */
	} else {
		if (g->layer_job == job)
			g->layer_job = NULL;
		layer_job_free(job);
	}
	pthread_mutex_unlock(&g->bridge_lock);
	if (r == -ETIMEDOUT)
		log_error("exec gate: umbrellad's main loop did not make the layer of %s's policy "
			  "within %llu s: its exec is refused",
			  path, GATE_LAYER_WAIT_USEC / USEC_PER_SEC);
	*ret_error = strdup(r == -ETIMEDOUT ? "umbrellad's main loop did not answer in time" :
					      "umbrellad is stopping");
	return r;
}

/* The gate's loop: the main thread's call, if it is still wanted. */
static int on_call(_unused_ sd_event_source *s, int fd, _unused_ uint32_t revents, void *userdata)
{
	struct exec_gate *g = userdata;
	enum gate_call_op op;
	eventfd_t n;
	int r;

	(void)eventfd_read(fd, &n);
	pthread_mutex_lock(&g->bridge_lock);
	if (g->call_state != GATE_CALL_QUEUED) {
		pthread_mutex_unlock(&g->bridge_lock);
		return 0; /* taken back */
	}
	g->call_state = GATE_CALL_RUNNING;
	op = g->call_op;
	pthread_mutex_unlock(&g->bridge_lock);

	r = op == GATE_CALL_FLUSH ? gate_flush(g) : gate_reload_keyring(g);

	pthread_mutex_lock(&g->bridge_lock);
	if (g->call_orphaned) {
		g->call_orphaned = false;
		g->call_state = GATE_CALL_IDLE;
	} else {
		g->call_result = r;
		g->call_state = GATE_CALL_DONE;
	}
	pthread_cond_broadcast(&g->bridge_changed);
	pthread_mutex_unlock(&g->bridge_lock);
	return 0;
}

int gate_bridge_attach_gate(struct exec_gate *g, sd_event *e)
{
	int r = event_add_io(e, &g->call_source, g->call_fd, EPOLLIN, PRIORITY_BRIDGE, on_call, g);

	if (r < 0)
		return log_error_errno(r, "exec gate: cannot watch the main thread's calls: %m");
	return 0;
}

/* The main thread, under bridge_lock: waits until @done() or @deadline, making the
 * gate's layer jobs meanwhile. Return: whether @done(). */
static bool main_wait(struct exec_gate *g, bool (*done)(const struct exec_gate *),
		      const struct timespec *deadline)
{
	int w = 0;

	while (!done(g) && w != ETIMEDOUT) {
		if (!serve_layer_job(g))
			w = pthread_cond_timedwait(&g->bridge_changed, &g->bridge_lock, deadline);
	}
	return done(g);
}

static bool call_idle(const struct exec_gate *g)
{
	return g->call_state == GATE_CALL_IDLE;
}

static bool call_done(const struct exec_gate *g)
{
	return g->call_state == GATE_CALL_DONE;
}

int gate_call(struct exec_gate *g, enum gate_call_op op)
{
	static const char *const names[] = {
		[GATE_CALL_FLUSH] = "flush of the verdicts",
		[GATE_CALL_RELOAD_KEYRING] = "reload of the key ring",
	};
	struct timespec deadline = deadline_after(GATE_CALL_WAIT_USEC);
	bool begun = false;
	int r;

	if (!g->running) /* no thread: this one is the gate's */
		return op == GATE_CALL_FLUSH ? gate_flush(g) : gate_reload_keyring(g);
	pthread_mutex_lock(&g->bridge_lock);
	/* An earlier call whose caller gave up may still run: this one comes after it. */
	if (main_wait(g, call_idle, &deadline)) {
		g->call_op = op;
		g->call_state = GATE_CALL_QUEUED;
		(void)eventfd_write(g->call_fd, 1);
		if (main_wait(g, call_done, &deadline)) {
			r = g->call_result;
			g->call_state = GATE_CALL_IDLE;
			pthread_mutex_unlock(&g->bridge_lock);
			return r;
		}
		if (g->call_state == GATE_CALL_QUEUED) {
			g->call_state = GATE_CALL_IDLE; /* taken back: never made */
		} else {
			g->call_orphaned = true; /* begun: it ends without us */
			begun = true;
		}
	}
	pthread_mutex_unlock(&g->bridge_lock);
	if (begun)
		log_error("exec gate: the %s takes more than %llu s: it goes on, unconfirmed",
			  names[op], GATE_CALL_WAIT_USEC / USEC_PER_SEC);
	else
		log_error("exec gate: busy for more than %llu s (a file on a stalled mount?): "
			  "the %s was not made, try again",
			  GATE_CALL_WAIT_USEC / USEC_PER_SEC, names[op]);
	return -EBUSY;
}
