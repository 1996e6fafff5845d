// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM test: nobody can take umbrellad's socket from everyone (issue 13, item 7 and 8's
 * neighbours).
 *
 *   test ─ starts umbrellad: max_connections_per_user = 8, idle_timeout = 60
 *    ├─ 12 uids of a user namespace nobody made (subordinate ids) hold 8 connections,
 *    │  nobody's share (before: 12); controls: those uids in umbrellad's namespace hold
 *    │  12, one uid of a namespace root made 8 (charged to that uid, not to root)
 *    ├─ nobody opens 300 connections and sends nothing: 8 stay open, the others are
 *    │  refused naming max_connections_per_user (before: 256, every slot)
 *    │   ├─ meanwhile root's rfork("net"): its child's socket() -> EPERM
 *    │   └─ and uid 4242's
 *    ├─ nobody closes them: its rfork works again (control)
 *    ├─ reload with idle_timeout = 2: a connection that sends nothing is still open
 *    │  after 1 s (control) and closed within 16 s (never, before)
 *    └─ a request brings a TCP socket with SO_LINGER {1, 60} and megabytes unsent (to
 *       a listener that never reads; the test's own copy closed): refused, and the
 *       next request, another process's, answered, each well before the linger's 60 s
 *       (under 20 s: about 0.3 s alone, 2.6 s was seen with six other VMs on the host;
 *       before, umbrellad's close() of it waited 60 s). Control: such a socket with
 *       SO_LINGER {1, 2} takes seconds to close() here.
 *    └─ the closer thread held, by a FUSE file whose server never answers umbrellad's
 *       FLUSH, then by a unix socket holding a lingering TCP socket: nobody floods,
 *       its connect() is refused once its share waits, root's and uid 4242's rfork
 *       work (before: nobody took all 512 slots); released, nobody's works again.
 *    └─ the closer thread held by that FUSE file again, 80 uids (subordinate ids, a
 *       restricted root with CAP_SETUID) each send it until refused: once all users
 *       hold 192 connections, some being closed, every connect() but root's is refused
 *       (EAGAIN), root's rfork works (before: 512 slots taken, root waited in the
 *       backlog); released, a new uid's rfork works again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <grp.h>
#include <linux/fuse.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "client-probe.h"
#include "daemon-start.h"
#include "tap.h"

#define SOCKET_PATH "/run/umbrella-avail-test/umbrellad.sock"
#define CONFIG_PATH "/run/umbrella-avail-test.conf"
#define LOG_PATH    "/tmp/umbrellad-test-avail.log"
#define NOBODY	    65534
#define OTHER_USER  4242
#define USER_CAP    8
#define FLOOD	    300
#define SUBIDS	    12
#define SUBID_BASE  100000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool write_config(unsigned int idle_timeout)
{
	FILE *f = fopen(CONFIG_PATH, "we");

	if (!f)
		return false;
	fprintf(f, "max_connections_per_user = %d\nidle_timeout = %u\n", USER_CAP, idle_timeout);
	return fclose(f) == 0;
}

/* How many lines of umbrellad's log contain @text. */
static int log_count(const char *text)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(LOG_PATH, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

static void become(uid_t uid)
{
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		_exit(125);
}

/* In a child as @uid (0: root), rfork("net"): the grandchild's socket() result, 124
 * when rfork fails. */
static int rfork_as(uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct umb_restrictions *net = umb_restrictions__new();
		pid_t child;

		if (uid)
			become(uid);
		if (!net || umb_restrictions__parse(net, "net", NULL) < 0)
			_exit(125);
		child = rfork(net);
		if (child == 0)
			_exit(socket_errno());
		if (child < 0)
			fprintf(stderr, "# rfork as %u: %s\n", uid, umb_last_error());
		_exit(child < 0 ? 124 : wait_status(child));
	}
	return wait_status(pid);
}

static int connect_daemon(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCKET_PATH };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The reply's error (its message in @ret_message), or -EPROTO. */
static int read_reply(int fd, char *ret_message, size_t size)
{
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	struct umb_reply rep;
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	ret_message[0] = '\0';
	if (n < (ssize_t)sizeof(rep))
		return -EPROTO;
	buf[n] = '\0';
	memcpy(&rep, buf, sizeof(rep));
	if (rep.error < 0)
		snprintf(ret_message, size, "%s", buf + sizeof(rep));
	return rep.error;
}

/* Whether @fd has something to read (a reply, the end) within @ms. */
static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void put_int(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(124);
}

static int get_int(int fd)
{
	int v = -1;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/*
 * The flood: nobody opens FLOOD connections; those refused are readable (a reply, then
 * the end). Checks what is open meanwhile: root's and another user's rfork.
 */
static void flood(void)
{
	int res[2], go[2], open_count, refused_named;
	pid_t pid;

	if (pipe(res) < 0 || pipe(go) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		static int fds[FLOOD];
		int live = 0, named = 0;
		char message[UMB_REPLY_TEXT_MAX];

		become(NOBODY);
		for (int i = 0; i < FLOOD; i++)
			fds[i] = connect_daemon();
		sleep(2); /* umbrellad takes them all */
		for (int i = 0; i < FLOOD; i++) {
			if (fds[i] < 0)
				continue;
			if (!readable(fds[i], 0)) {
				live++;
				continue;
			}
			if (read_reply(fds[i], message, sizeof(message)) == -EBUSY &&
			    strstr(message, "max_connections_per_user"))
				named++;
			close(fds[i]);
		}
		put_int(res[1], live);
		put_int(res[1], named);
		(void)get_int(go[0]); /* hold them until the others have asked */
		_exit(0);
	}
	open_count = get_int(res[0]);
	refused_named = get_int(res[0]);
	TAP_EQ(open_count, USER_CAP, "nobody's %d connections: %d stay open", FLOOD, open_count);
	TAP_EQ(refused_named, FLOOD - USER_CAP,
	       "the others are refused, naming max_connections_per_user");
	TAP_EQ(rfork_as(0), EPERM, "meanwhile root's rfork(\"net\"): its child's socket() fails");
	TAP_EQ(rfork_as(OTHER_USER), EPERM, "and uid %d's", OTHER_USER);
	put_int(go[1], 1);
	TAP_EQ(wait_status(pid), 0, "nobody closes its connections");
	TAP_EQ(rfork_as(NOBODY), EPERM, "then nobody's rfork(\"net\") works again (control)");
	close(res[0]);
	close(res[1]);
	close(go[0]);
	close(go[1]);
}

/* Who the SUBIDS connections of subordinate_ids() come from. */
enum subid_mode {
	SUBID_NOBODYS_NS, /* a user namespace nobody made, each its own uid there */
	SUBID_PLAIN,	  /* those uids, set by root in umbrellad's namespace */
	SUBID_ROOTS_NS,	  /* a user namespace root made, all with one uid there */
};

/* The connection of a process in subordinate_ids(): 0 open, 1 refused naming
 * max_connections_per_user, 2 otherwise. */
static int subid_connection(void)
{
	char message[UMB_REPLY_TEXT_MAX];
	int fd = connect_daemon();

	if (fd < 0)
		return 2;
	sleep(2); /* umbrellad takes them all */
	if (!readable(fd, 0))
		return 0;
	return read_reply(fd, message, sizeof(message)) == -EBUSY &&
			       strstr(message, "max_connections_per_user") ?
		       1 :
		       2;
}

/* As root: maps uids and gids 0-63 of @pid's user namespace to SUBID_BASE and on, as
 * newuidmap(1) does for a user's range in /etc/subuid. */
static bool map_subids(pid_t pid)
{
	static const char *const files[] = { "uid_map", "gid_map" };
	char path[64], map[64];

	snprintf(map, sizeof(map), "0 %d 64\n", SUBID_BASE);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		int fd;
		bool ok;

		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		ok = fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map);
		if (fd >= 0)
			close(fd);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * SUBIDS processes each hold a connection, as @mode says; the open ones into
 * *@ret_open, those refused naming max_connections_per_user into *@ret_named.
 */
static bool subid_connections(enum subid_mode mode, int *ret_open, int *ret_named)
{
	int res[2], go[2], sync[2], mapped[2], v, counts[3] = { 0 };
	pid_t pid;

	if (pipe(res) < 0 || pipe(go) < 0 || pipe(sync) < 0 || pipe(mapped) < 0)
		return false;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (mode == SUBID_NOBODYS_NS)
			become(NOBODY);
		if (mode != SUBID_PLAIN && (unshare(CLONE_NEWUSER) < 0 ||
					    write(sync[1], "u", 1) != 1 || get_int(mapped[0]) != 1))
			_exit(1);
		for (int i = 1; i <= SUBIDS; i++) {
			uid_t uid = mode == SUBID_NOBODYS_NS ? (uid_t)i :
				    mode == SUBID_PLAIN	     ? (uid_t)(SUBID_BASE + i) :
							       0;

			if (fork() == 0) {
				if (setresgid(0, 0, 0) < 0 || setresuid(uid, uid, uid) < 0)
					_exit(1);
				put_int(res[1], subid_connection());
				(void)get_int(go[0]); /* hold it until the parent has them all */
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	if (mode != SUBID_PLAIN) {
		char c;

		put_int(mapped[1], read(sync[0], &c, 1) == 1 && map_subids(pid));
	}
	for (int i = 0; i < SUBIDS; i++) {
		v = get_int(res[0]);
		if (v < 0 || v > 2)
			break;
		counts[v]++;
	}
	close(go[1]);
	(void)wait_status(pid);
	for (int *fd = (int[]){ res[0], res[1], sync[0], sync[1], mapped[0], mapped[1], -1 };
	     *fd >= 0; fd++)
		close(*fd);
	*ret_open = counts[0];
	*ret_named = counts[1];
	return true;
}

/*
 * Subordinate ids (issue 27): a user with a range in /etc/subuid has SUBIDS uids in a
 * user namespace it made. Charged by uid, each had a share of its own (SUBIDS
 * connections open, with USER_CAP per user); charged to the namespace's owner, they
 * share nobody's. Controls: the same uids set by root in umbrellad's namespace have a
 * share each; in a namespace root made, processes are charged to their own uid (one
 * uid: USER_CAP open), not to root (who has no cap).
 */
static void subordinate_ids(void)
{
	int open_count, named;

	if (subid_connections(SUBID_NOBODYS_NS, &open_count, &named)) {
		TAP_EQ(open_count, USER_CAP,
		       "%d uids of a user namespace nobody made: %d connections stay open", SUBIDS,
		       open_count);
		TAP_EQ(named, SUBIDS - USER_CAP,
		       "the others are refused, naming max_connections_per_user");
	}
	if (subid_connections(SUBID_PLAIN, &open_count, &named))
		TAP_EQ(open_count, SUBIDS,
		       "the same uids in umbrellad's namespace: each has a share (control)");
	if (subid_connections(SUBID_ROOTS_NS, &open_count, &named))
		TAP_EQ(open_count, USER_CAP,
		       "%d processes of one uid in a user namespace root made: charged to that uid, not root",
		       SUBIDS);
}

/* Applies umbrella.conf with @idle_timeout (SIGHUP); waits for umbrellad to say so. */
static bool reload(pid_t daemon, unsigned int idle_timeout)
{
	int before = log_count("configuration:");

	if (!write_config(idle_timeout) || kill(daemon, SIGHUP) < 0)
		return false;
	for (int i = 0; i < 100; i++) {
		if (log_count("configuration:") > before)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

static void idle(void)
{
	char byte;
	int fd = connect_daemon();

	if (!TAP_OK(fd >= 0, "a connection that sends nothing"))
		return;
	TAP_OK(!readable(fd, 1000), "is still open after 1 s (control)");
	/* Up to 15 s more: a loaded host delays the timer, and without one it never closes. */
	TAP_OK(readable(fd, 15000) && recv(fd, &byte, 1, MSG_DONTWAIT) == 0,
	       "is closed by umbrellad after idle_timeout (2 s)");
	close(fd);
}

/*
 * A TCP socket, connected to a listener on 127.0.0.1 that never accepts, with as much
 * written as the kernel takes (megabytes: both buffers full), and SO_LINGER {1, @secs}:
 * its last close() waits @secs for the data to go. The listener in *@ret_listener.
 */
static int lingering_socket(int secs, int *ret_listener, size_t *ret_written)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	static char chunk[65536];
	int l, fd;

	*ret_written = 0;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* A small receive buffer would do; the default one takes a few MB as well. */
	if (l < 0 || bind(l, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&addr, &len) < 0)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (fd < 0 || errno != EINPROGRESS)
			return -1;
	}
	(void)readable(l, 1000);
	for (int i = 0; i < 100; i++) {
		ssize_t n = write(fd, chunk, sizeof(chunk));

		if (n > 0) {
			*ret_written += (size_t)n;
			i = 0;
			continue;
		}
		if (errno != EAGAIN)
			return -1;
		usleep(10 * 1000); /* a little more may go */
		if (*ret_written > (64u << 20))
			break;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, secs },
		       sizeof(struct linger)) < 0)
		return -1;
	*ret_listener = l;
	return fd;
}

/* Sends UMB_OP_ARM_CHILD for this thread with no restrictions, bringing @extra and the
 * sender's pidfd (protocol 4). */
static int send_request_with(int fd, int extra)
{
	char buf[sizeof(struct umb_request) + 1], control[CMSG_SPACE(2 * sizeof(int))] = {};
	struct umb_request req = { .version = UMB_PROTOCOL_VERSION,
				   .op = UMB_OP_ARM_CHILD,
				   .tid = (__u32)gettid() };
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	int fds[2] = { extra, (int)syscall(SYS_pidfd_open, getpid(), 0) }, r;

	if (fds[1] < 0)
		return -errno;
	memcpy(buf, &req, sizeof(req));
	buf[sizeof(req)] = '\0';
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
	r = sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
	close(fds[1]);
	return r;
}

static void linger(void)
{
	int listener = -1, control_listener = -1, fd, tcp, r;
	size_t written = 0, control_written = 0;
	char message[UMB_REPLY_TEXT_MAX];
	double t;

	/* Control: this socket's close() does wait. */
	tcp = lingering_socket(2, &control_listener, &control_written);
	if (!TAP_OK(tcp >= 0, "a lingering TCP socket (%zu bytes unsent)", control_written))
		return;
	t = now();
	close(tcp);
	TAP_OK(now() - t >= 1.5, "control: its close() here waits (%.1f s)", now() - t);
	close(control_listener);

	tcp = lingering_socket(60, &listener, &written);
	fd = connect_daemon();
	if (!TAP_OK(tcp >= 0 && fd >= 0, "another, SO_LINGER {1, 60}, %zu bytes unsent", written))
		return;
	t = now();
	r = send_request_with(fd, tcp);
	close(tcp); /* umbrellad's copy is the last one */
	if (!TAP_EQ(r, 0, "a request brings it to umbrellad"))
		return;
	r = read_reply(fd, message, sizeof(message));
	TAP_OK(r == -EBADMSG && now() - t < 20.0,
	       "the request is refused before the linger's end (%d: %s, %.2f s)", r, message,
	       now() - t);
	close(fd);
	t = now();
	r = rfork_as(NOBODY);
	TAP_OK(r == EPERM && now() - t < 20.0,
	       "the next request, nobody's rfork(\"net\"), is served before the linger's end (%.2f s)",
	       now() - t);
	close(listener);
}

/*
 * A flooding child counts in *flood_progress each connect() of its that returned (a page
 * shared with the parent, made before fork()).
 */
static int *flood_progress;
#define FLOOD_STALL 120 /* seconds */
static pid_t umbrellad_pid;

/* Where each thread of @pid waits (its kernel wait channel and stack), as TAP comments:
 * what a hang leaves to go by. */
static void show_waits(const char *who, pid_t pid)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "for t in /proc/%d/task/*; do echo \"# %s thread ${t##*/} ($(cat $t/comm)):"
		 " $(cat $t/wchan)\"; sed 's/^/#   /' $t/stack; done 2>/dev/null",
		 pid, who);
	fflush(stdout);
	if (system(cmd) != 0)
		TAP_DIAG("%s (%d): its threads cannot be read", who, pid);
}

/*
 * The exit status of flooding child @pid, or -1 once no connect() of it has returned for
 * FLOOD_STALL seconds: it waits in connect() for a slot that never comes (before, a
 * flood hung so; the child is killed). A hang limit, not a measure of speed: how long
 * a whole flood takes follows how fast umbrellad and the child run under emulation on
 * a busy host; a wall-clock limit on it failed by chance.
 */
static int flood_wait(pid_t pid)
{
	int status, last = -1, still = 0;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		int n = __atomic_load_n(flood_progress, __ATOMIC_RELAXED);

		still = n == last ? still + 1 : 0;
		last = n;
		if (still >= FLOOD_STALL * 10) {
			TAP_DIAG("no connect() has returned for %d s (%d did)", FLOOD_STALL, n);
			show_waits("the flood", pid);
			show_waits("umbrellad", umbrellad_pid);
			kill(pid, SIGKILL);
			(void)waitpid(pid, &status, 0);
			return -1;
		}
		usleep(100 * 1000);
	}
	return r == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One connect() of a flooding child returned. */
static void flood_step(void)
{
	__atomic_fetch_add(flood_progress, 1, __ATOMIC_RELAXED);
}

/* rfork_as(), given up (-1) after @secs: a caller kept waiting in the listen backlog. */
static int rfork_as_within(uid_t uid, unsigned int secs)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(secs);
		_exit(rfork_as(uid));
	}
	return wait_status(pid);
}

/*
 * A unix socket whose queue holds @tcp (a lingering socket): whoever closes it last
 * runs @tcp's release, which waits for the linger (the closer thread's setsockopt()
 * reaches only the sockets it received, not those queued in them). As a FUSE file
 * whose server never answers FLUSH would, it holds umbrellad's closer thread.
 */
static int socket_holding(int tcp)
{
	char control[CMSG_SPACE(sizeof(int))] = {}, byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
		return -1;
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &tcp, sizeof(int));
	if (sendmsg(pair[0], &msg, 0) != 1) {
		close(pair[0]);
		close(pair[1]);
		return -1;
	}
	close(pair[0]);
	return pair[1];
}

/*
 * The closer thread held (issue 13): nobody's first request brings @held, whose close
 * in umbrellad does not return, then nobody opens STUCK_FLOOD connections, each with a
 * request that brings /dev/null (closed by the closer thread, behind the held close).
 * Before: each kept its slot, refused or not, until all 512 were taken and root waited
 * in the listen backlog (its rfork given up here; the flood itself blocked in
 * connect(), ended once none returned for FLOOD_STALL s). Now: once nobody holds
 * USER_CAP slots with closes pending, its connect() fails (EAGAIN); root's and another
 * user's rfork work; nobody's fails (the limit is its own).
 */
#define STUCK_FLOOD 600
static void stuck_flood(int held, const char *what)
{
	int res[2], handed[2], sent, refused, r;
	pid_t pid;
	double t;

	if (!TAP_OK(held >= 0 && pipe(res) == 0 && pipe(handed) == 0, "%s", what))
		return;
	*flood_progress = 0;
	/*
	 * umbrellad's copy of @held must be the last one, so that its close is the one
	 * held: umbrellad stays stopped until the child has sent @held and closed its own
	 * copy (the copy in flight in the socket's queue keeps it open meanwhile). Else a
	 * quick umbrellad closes first and the child's close() waits for the linger.
	 */
	kill(umbrellad_pid, SIGSTOP);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), ok = 0, again = 0;
		int fd;

		close(handed[0]);
		become(NOBODY);
		fd = connect_daemon();
		if (fd < 0 || send_request_with(fd, held) < 0)
			_exit(124);
		close(held); /* umbrellad's copy, in flight, is the last one */
		put_int(handed[1], 1);
		close(handed[1]);
		for (int i = 0; i < STUCK_FLOOD; i++) {
			struct sockaddr_un addr = { .sun_family = AF_UNIX,
						    .sun_path = SOCKET_PATH };

			fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
			if (fd < 0)
				_exit(124);
			if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
				again += errno == EAGAIN;
			else if (send_request_with(fd, devnull) == 0)
				ok++;
			flood_step();
			close(fd);
		}
		put_int(res[1], ok);
		put_int(res[1], again);
		_exit(0);
	}
	close(held);
	close(handed[1]);
	(void)get_int(handed[0]); /* or EOF, should the child fail first */
	close(handed[0]);
	kill(umbrellad_pid, SIGCONT);
	close(res[1]); /* the child's end only: EOF should it die */
	t = now();
	r = flood_wait(pid); /* its results fit in the pipe */
	sent = get_int(res[0]);
	refused = get_int(res[0]);
	close(res[0]);
	TAP_EQ(r, 0,
	       "nobody's flood of %d connections ends, no connect() waiting for a slot "
	       "(%d returned, %.1f s)",
	       STUCK_FLOOD, *flood_progress, now() - t);
	TAP_OK(refused > 0 && sent <= USER_CAP + 80, /* and at most 65 in the backlog */
	       "nobody's connect() is refused (EAGAIN) once it holds %d connections being closed: "
	       "%d refused, %d accepted",
	       USER_CAP, refused, sent);
	t = now();
	r = rfork_as_within(0, FLOOD_STALL); /* before: it waited in the backlog for good */
	TAP_EQ(r, EPERM, "meanwhile root's rfork(\"net\") works (%.2f s)", now() - t);
	TAP_EQ(rfork_as_within(OTHER_USER, FLOOD_STALL), EPERM, "and uid %d's", OTHER_USER);
	TAP_EQ(rfork_as_within(NOBODY, FLOOD_STALL), 124,
	       "nobody's rfork fails: its share is taken");
}

/* Once the held close has returned: @uid's rfork works again (within 60 s). */
static void stuck_recovers(uid_t uid)
{
	int r = -1;

	for (int i = 0; i < 60 && r != EPERM; i++) {
		r = rfork_as_within(uid, 30);
		if (r != EPERM)
			sleep(1);
	}
	TAP_EQ(r, EPERM, "once the held close returns, uid %u's rfork works again (control)", uid);
}

/* A unix socket holding a lingering TCP socket; closing the listener resets it. */
static void stuck_linger(void)
{
	int listener = -1, tcp, held;
	size_t written = 0;
	char what[160];

	tcp = lingering_socket(600, &listener, &written);
	held = tcp >= 0 ? socket_holding(tcp) : -1;
	if (tcp >= 0)
		close(tcp);
	snprintf(what, sizeof(what),
		 "a unix socket holding a TCP socket with SO_LINGER {1, 600}, %zu bytes unsent",
		 written);
	stuck_flood(held, what);
	if (listener >= 0)
		close(listener); /* the lingering socket is reset: its release returns */
	stuck_recovers(NOBODY);
}

#define FUSE_DIR "/run/umbrella-avail-fuse"

/* Whether thread @tid belongs to process @tgid (its /proc status). */
static bool thread_of(pid_t tid, pid_t tgid)
{
	char path[64], line[128];
	bool r = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			r = atoi(line + 5) == tgid;
			break;
		}
	}
	fclose(f);
	return r;
}

static void fuse_reply(int dev, uint64_t unique, int error, const void *body, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header h = { .len = (uint32_t)(sizeof(h) + len),
				     .error = error,
				     .unique = unique };

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), body, len);
	if (write(dev, buf, h.len) < 0)
		return; /* the request was interrupted: nothing waits for it */
}

static struct fuse_attr fuse_attr_of(uint64_t ino)
{
	return (struct fuse_attr){ .ino = ino,
				   .mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644,
				   .nlink = 1,
				   .blksize = 4096 };
}

/* A FUSE server of one file, "f", that never answers a FLUSH sent by a thread of
 * umbrellad (@daemon); anyone else's it answers. Runs until killed. */
static _Noreturn void fuse_serve(int dev, pid_t daemon)
{
	static char buf[1 << 17];

	for (;;) {
		ssize_t n = read(dev, buf, sizeof(buf));
		struct fuse_in_header in;

		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < 0)
			_exit(0);
		if ((size_t)n < sizeof(in))
			continue;
		memcpy(&in, buf, sizeof(in));
		switch (in.opcode) {
		case FUSE_INIT: {
			struct fuse_init_out out = { .major = FUSE_KERNEL_VERSION,
						     .minor = 31,
						     .max_write = 4096 };

			fuse_reply(dev, in.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out out = { .nodeid = 2,
						      .generation = 1,
						      .attr = fuse_attr_of(2) };

			if (strcmp(buf + sizeof(in), "f"))
				fuse_reply(dev, in.unique, -ENOENT, NULL, 0);
			else
				fuse_reply(dev, in.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out out = { .attr = fuse_attr_of(in.nodeid) };

			fuse_reply(dev, in.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out out = { .fh = 1 };

			fuse_reply(dev, in.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_FLUSH:
			if (!thread_of((pid_t)in.pid, daemon))
				fuse_reply(dev, in.unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			fuse_reply(dev, in.unique, in.opcode == FUSE_RELEASE ? 0 : -ENOSYS, NULL,
				   0);
		}
	}
}

/* Mounts FUSE_DIR served by fuse_serve(): its pid, and FUSE_DIR/f opened in *@ret_file. */
static pid_t fuse_start(pid_t daemon, int *ret_file)
{
	char opts[128];
	pid_t pid;
	int dev;

	*ret_file = -1;
	if (system("bash -c '. " SOURCE_ROOT "/tests/helpers/vm-modules.sh && load_module fuse'") !=
	    0)
		return -1;
	(void)mkdir(FUSE_DIR, 0755);
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", dev);
	if (mount("avail-test", FUSE_DIR, "fuse", MS_NOSUID | MS_NODEV, opts) < 0) {
		close(dev);
		return -1;
	}
	pid = fork();
	if (pid == 0)
		fuse_serve(dev, daemon);
	close(dev); /* the server's is the last: killing it aborts the connection */
	if (pid > 0)
		*ret_file = open(FUSE_DIR "/f", O_RDONLY | O_CLOEXEC);
	return pid;
}

/* A FUSE file whose server never answers umbrellad's FLUSH; killing the server ends
 * the connection, and with it the FLUSH. */
static void stuck_fuse(pid_t daemon)
{
	int file;
	pid_t server = fuse_start(daemon, &file);

	stuck_flood(server > 0 ? file : -1,
		    "a FUSE file whose server never answers umbrellad's FLUSH");
	if (server > 0) {
		kill(server, SIGKILL);
		(void)wait_status(server);
	}
	stuck_recovers(NOBODY);
	(void)umount2(FUSE_DIR, MNT_DETACH);
}

/* In a child as @uid: connect()'s errno, 0 when it connects. */
static int connect_errno_as(uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd;

		become(uid);
		alarm(FLOOD_STALL); /* a blocking connect() waits while the backlog is full */
		fd = connect_daemon();
		_exit(fd < 0 ? errno : 0);
	}
	return wait_status(pid);
}

#define MANY_UIDS     80
#define MANY_UID_BASE 30000
#define NEW_UID	      39999
#define USERS_MAX     192 /* daemon/server.h: SERVER_USERS_MAX */

/*
 * As @uid, USER_CAP + 4 connections, each with a request that brings @file (whose
 * close umbrellad's closer thread waits for, or waits behind): in *@ret_sent those
 * accepted, in *@ret_refused those whose connect() failed with EAGAIN. Returns false
 * when the child did not end (flood_wait(): waiting in connect() for a slot).
 */
static bool send_as(uid_t uid, int file, int *ret_sent, int *ret_refused)
{
	int res[2];
	pid_t pid;

	*ret_sent = *ret_refused = 0;
	if (pipe(res) < 0)
		return false;
	*flood_progress = 0;
	pid = fork();
	if (pid == 0) {
		int sent = 0, refused = 0;

		become(uid);
		for (int i = 0; i < USER_CAP + 4; i++) {
			struct sockaddr_un addr = { .sun_family = AF_UNIX,
						    .sun_path = SOCKET_PATH };
			int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

			if (fd < 0)
				_exit(124);
			if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
				refused += errno == EAGAIN;
			else if (send_request_with(fd, file) == 0)
				sent++;
			flood_step();
			close(fd);
		}
		put_int(res[1], sent);
		put_int(res[1], refused);
		_exit(0);
	}
	close(res[1]);
	if (flood_wait(pid) != 0) {
		close(res[0]);
		return false;
	}
	*ret_sent = get_int(res[0]);
	*ret_refused = get_int(res[0]);
	close(res[0]);
	return true;
}

/*
 * Many uids behind one held close (issue 13): MANY_UIDS uids, as a user with
 * subordinate ids or a restricted root with CAP_SETUID has, each send a FUSE file whose
 * server never answers umbrellad's FLUSH until refused; each holds its share, or less.
 * Before: together they took all 512 slots and root waited in the listen backlog (the
 * uids after those waited in connect(), given up by flood_wait()). Now: once all users
 * hold USERS_MAX connections, some of them being closed, every connect() but root's is
 * refused (EAGAIN): root's rfork works, a new uid cannot connect; once the server is
 * gone, it can.
 */
static void many_uids(pid_t daemon)
{
	int file, sent = 0, refused_uids = 0, ended = 0, r;
	pid_t server = fuse_start(daemon, &file);
	double t;

	if (!TAP_OK(server > 0 && file >= 0,
		    "a FUSE file whose server never answers umbrellad's FLUSH, again"))
		return;
	t = now();
	for (uid_t i = 0; i < MANY_UIDS; i++) {
		int s, refused;

		if (!send_as(MANY_UID_BASE + i, file, &s, &refused))
			break;
		ended++;
		sent += s;
		refused_uids += s == 0 && refused == USER_CAP + 4;
	}
	close(file);
	TAP_EQ(ended, MANY_UIDS,
	       "%d uids each send it until refused; none waits in connect() (%.1f s)", MANY_UIDS,
	       now() - t);
	TAP_OK(sent <= USERS_MAX + 80 && refused_uids > 0, /* 65 more in the backlog, at most */
	       "once all users hold %d connections, some being closed, every uid is refused "
	       "(EAGAIN): %d accepted, %d uids refused every time",
	       USERS_MAX, sent, refused_uids);
	t = now();
	r = rfork_as_within(0, FLOOD_STALL); /* before: it waited in the backlog for good */
	TAP_EQ(r, EPERM, "meanwhile root's rfork(\"net\") works (%.2f s)", now() - t);
	TAP_EQ(connect_errno_as(NEW_UID), EAGAIN, "a new uid's connect() is refused (EAGAIN)");
	TAP_EQ(rfork_as_within(NEW_UID, FLOOD_STALL), 124, "and its rfork fails");
	kill(server, SIGKILL);
	(void)wait_status(server);
	stuck_recovers(NEW_UID);
	(void)umount2(FUSE_DIR, MNT_DETACH);
}

int main(int argc, char *argv[])
{
	char umbrellad[4096];
	pid_t daemon;

	(void)argc;
	test_umbrellad_path(argv[0], umbrellad, sizeof(umbrellad));
	setenv("UMBRELLA_SOCKET", SOCKET_PATH, 1);
	flood_progress = mmap(NULL, sizeof(*flood_progress), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (flood_progress == MAP_FAILED)
		return 1;
	if (!TAP_OK(write_config(60), "umbrella.conf written"))
		return tap_finish();
	daemon = test_start_umbrellad(umbrellad, SOCKET_PATH, LOG_PATH,
				      (const char *const[]){ "--config", CONFIG_PATH, NULL });
	umbrellad_pid = daemon;
	if (!TAP_OK(daemon > 0 && kill(daemon, 0) == 0, "umbrellad starts"))
		return tap_finish();

	TAP_EQ(rfork_as(NOBODY), EPERM, "nobody's rfork(\"net\"): its child's socket() fails");
	subordinate_ids();
	flood();
	if (TAP_OK(reload(daemon, 2), "umbrellad reloads with idle_timeout = 2"))
		idle();
	linger();
	stuck_fuse(daemon);
	stuck_linger();
	many_uids(daemon);
	TAP_OK(kill(daemon, 0) == 0, "umbrellad still runs");

	kill(daemon, SIGTERM);
	(void)wait_status(daemon);
	unlink(CONFIG_PATH);
	return tap_finish();
}
