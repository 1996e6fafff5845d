// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz target: one message on umbrellad's socket (daemon/request.c), from its bytes up
 * to the maps. The input is sent as it is on a SOCK_SEQPACKET pair (this process is the
 * caller: SO_PEERCRED, SCM_CREDENTIALS and its pidfd are real), request_serve() reads
 * and answers it, and stubs stand where BPF would start (server_arm(),
 * exec_gate_flush()), checking what reaches them.
 *
 * Two fields are the harness's, since a corpus cannot know this process's ids:
 *   - tid: with its top bit set, sent as it is (no thread of ours); else this thread's
 *     id is sent, and the bits of the input's value perturb the descriptors below.
 *   - descriptors: after the text's NUL, each table byte brings what it announces, an
 *     O_PATH directory for UMB_FS_REF_DIR and an O_PATH file for UMB_FS_REF_OBJECT;
 *     tid bit 0 adds one more, bit 1 drops the last, bit 2 makes the first a file
 *     where a directory is announced, bit 3 sends it without O_PATH (refused, the
 *     descriptors left for the closer thread).
 * Every reply must be well formed, and every descriptor closed after the request.
 */
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <umbrella/protocol.h>
#include <umbrella/umbrella.h>

#include "config.h"
#include "exec-gate.h"
#include "fuzz.h"
#include "request.h"

static int sv[2] = { -1, -1 }; /* [0] umbrellad's end, [1] the caller's */
static int dir_fd = -1, file_fd = -1, plain_fd = -1;
static struct server server;
static int arms, flushes, follows;
static __u32 followed; /* the layer of the last follow request (its reply's) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	FUZZ_SETUP(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	FUZZ_SETUP(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) == 0);
	/* Room for the largest message and its reply. */
	FUZZ_SETUP(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &(int){ 1 << 20 }, sizeof(int)) == 0);
	dir_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	file_fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	plain_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	FUZZ_SETUP(dir_fd >= 0 && file_fd >= 0 && plain_fd >= 0);
	server = (struct server){ .listen_fd = -1,
				  .conn_full_fd = -1,
				  .daemon_sock_fd = -1,
				  .task_fd = -1,
				  .max_rules = CONFIG_MAX_RULES_DEFAULT,
				  .gate = (struct exec_gate *)&server /* not NULL; never read */ };
	return 0;
}

/* Whether @fd is an open O_PATH descriptor. */
static bool is_path_fd(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags >= 0 && (flags & O_PATH);
}

/* The stub of the BPF side of an arm request: what reaches it must be checked. */
int server_arm(struct server *s, const struct peer *peer, const struct umb_request *req,
	       uint64_t start, const struct umb_restrictions *r, const struct fs_refs *refs,
	       __u32 *ret_id, char **ret_error)
{
	size_t fs_count = 0, next = 0;
	char *text = NULL;

	(void)start;
	(void)ret_error;
	FUZZ_CHECK(peer->pid == getpid(), "peer %d", peer->pid);
	FUZZ_CHECK(req->op == UMB_OP_ARM_CHILD || req->op == UMB_OP_ARM_SELF, "op %u", req->op);
	/* UMB_ARM_ON_EXEC, for a child or the thread itself; UMB_ARM_PERMISSIVE, for a child
	 * only (handle_arm() refuses it on the caller itself). */
	FUZZ_CHECK(!(req->flags & ~(__u32)(UMB_ARM_ON_EXEC | UMB_ARM_PERMISSIVE)), "flags %#x",
		   req->flags);
	FUZZ_CHECK(!(req->flags & UMB_ARM_PERMISSIVE) || req->op == UMB_OP_ARM_CHILD,
		   "permissive on op %u", req->op);
	FUZZ_CHECK(req->tid == (__u32)syscall(SYS_gettid), "tid %u", req->tid);
	FUZZ_CHECK(umb_restrictions__count(r) <= s->max_rules, "%zu rules",
		   umb_restrictions__count(r));
	for (size_t i = 0; i < umb_restrictions__count(r); i++)
		fs_count += umb_restrictions__item(r, i)->kind == UMB_ITEM_FS;
	FUZZ_CHECK(refs->count == fs_count && refs->peer == peer->pid, "%zu refs, %zu fs items",
		   refs->count, fs_count);
	for (size_t i = 0; i < refs->count; i++) {
		const struct fs_ref *f = &refs->items[i];

		FUZZ_CHECK(f->dir_fd == -1 || is_path_fd(f->dir_fd), "item %zu: dir_fd", i);
		FUZZ_CHECK(f->obj_fd == -1 || is_path_fd(f->obj_fd), "item %zu: obj_fd", i);
		next += (f->dir_fd >= 0) + (f->obj_fd >= 0);
	}
	FUZZ_CHECK(next == s->request_fds.count, "%zu of %zu descriptors used", next,
		   s->request_fds.count);
	/* layer_install() writes the text into the layer's description. */
	FUZZ_SETUP(umb_restrictions__format(r, &text) == 0);
	free(text);
	arms++;
	*ret_id = 1;
	return 0;
}

/* The stub of taking an arm back: the harness reads every reply, so none is taken. */
void server_disarm(struct server *s, __u32 tid)
{
	(void)s;
	FUZZ_CHECK(false, "arm of thread %u taken back", tid);
}

/* The stub of UMB_OP_EVENTS's BPF side: no history. */
size_t server_events(const struct server *s, const struct peer *peer, struct umb_event_record *out)
{
	(void)s;
	(void)out;
	FUZZ_CHECK(peer->pid == getpid(), "peer %d", peer->pid);
	return 0;
}

/* The stub of UMB_OP_FOLLOW's BPF side: only a well-formed request reaches it. */
int server_follow(struct server *s, int fd, const struct peer *peer, const struct umb_request *req,
		  __u32 layer, const char **ret_error)
{
	(void)s;
	(void)fd;
	(void)ret_error;
	FUZZ_CHECK(peer->pid == getpid(), "peer %d", peer->pid);
	FUZZ_CHECK(req->op == UMB_OP_FOLLOW, "op %u", req->op);
	FUZZ_CHECK(!(req->flags & ~(__u32)UMB_FOLLOW_END), "flags %#x", req->flags);
	FUZZ_CHECK(!(req->flags & UMB_FOLLOW_END) || layer == 0, "end with layer %u", layer);
	follows++;
	followed = layer;
	/* umbrellad sends the end record itself, instead of a reply. */
	if (req->flags & UMB_FOLLOW_END) {
		struct umb_reply end = { .layer = 0 };

		FUZZ_SETUP(send(fd, &end, sizeof(end), MSG_NOSIGNAL) == sizeof(end));
	}
	return 0;
}

/* The stub of asking the maps whether the caller is restricted: this process is not. */
bool server_unrestricted_root(const struct server *s, const struct peer *peer)
{
	FUZZ_CHECK(s == &server, "server");
	FUZZ_CHECK(peer->pid == getpid(), "peer %d", peer->pid);
	return peer->uid == 0;
}

int exec_gate_flush(struct exec_gate *g)
{
	FUZZ_CHECK(g == server.gate, "gate");
	flushes++;
	return 0;
}

/* The descriptors the table after the text announces, perturbed by @tid's bits. */
static size_t make_fds(const uint8_t *data, size_t size, __u32 tid, int *fds)
{
	const uint8_t *end;
	size_t count = 0;

	if (size > sizeof(struct umb_request) &&
	    (end = memchr(data + sizeof(struct umb_request), '\0',
			  size - sizeof(struct umb_request)))) {
		for (const uint8_t *t = end + 1; t < data + size; t++) {
			if ((*t & UMB_FS_REF_DIR) && count < REQUEST_FDS_MAX)
				fds[count++] = dir_fd;
			if ((*t & UMB_FS_REF_OBJECT) && count < REQUEST_FDS_MAX)
				fds[count++] = file_fd;
		}
	}
	if ((tid & 1) && count < REQUEST_FDS_MAX)
		fds[count++] = file_fd;
	if ((tid & 2) && count)
		count--;
	if ((tid & 4) && count)
		fds[0] = file_fd;
	if ((tid & 8) && count)
		fds[0] = plain_fd;
	return count;
}

/* Reads the reply to one request; it must be one, well formed. A success names the
 * layer @layer. */
static void check_reply(__u32 layer)
{
	char buf[UMB_MSG_MAX];
	struct umb_reply rep;
	ssize_t n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT);

	FUZZ_CHECK(n >= (ssize_t)sizeof(rep), "a reply of %zd bytes", n);
	memcpy(&rep, buf, sizeof(rep));
	FUZZ_CHECK(rep.error <= 0 && rep.__pad0 == 0 && rep.__pad1 == 0, "error %d", rep.error);
	if (rep.error < 0)
		FUZZ_CHECK(n > (ssize_t)sizeof(rep) && buf[n - 1] == '\0' &&
				   !memchr(buf + sizeof(rep), '\0', (size_t)n - sizeof(rep) - 1),
			   "an error reply without one NUL-terminated message");
	else
		FUZZ_CHECK(n == (ssize_t)sizeof(rep) && rep.layer == layer,
			   "a success of %zd bytes, layer %u", n, rep.layer);
	FUZZ_CHECK(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN,
		   "more than one reply");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * REQUEST_FDS_MAX)];
		struct cmsghdr align;
	} control;
	uint8_t *copy;
	struct iovec iov;
	struct msghdr msg = {};
	struct umb_request req = {};
	int fds[REQUEST_FDS_MAX], lowest = fuzz_lowest_free_fd();
	int arms_before = arms, flushes_before = flushes, follows_before = follows;
	size_t fd_count;
	bool keep;

	/* A longer message is cut by the kernel to what umbrellad reads. */
	if (size == 0 || size > UMB_MSG_MAX + 1024)
		return -1;
	copy = malloc(size);
	FUZZ_SETUP(copy);
	memcpy(copy, data, size);
	if (size >= sizeof(req))
		memcpy(&req, copy, sizeof(req));
	fd_count = make_fds(copy, size, req.tid, fds);
	if (size >= sizeof(req) && !(req.tid & 0x80000000U)) {
		req.tid = (__u32)syscall(SYS_gettid);
		memcpy(copy + offsetof(struct umb_request, tid), &req.tid, sizeof(req.tid));
	}

	iov = (struct iovec){ .iov_base = copy, .iov_len = size };
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd_count) {
		struct cmsghdr *c;

		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * fd_count);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * fd_count);
	}
	FUZZ_SETUP(sendmsg(sv[1], &msg, MSG_NOSIGNAL) == (ssize_t)size);
	free(copy);

	keep = request_serve(&server, sv[0]);
	/* A descriptor that is not O_PATH (bit 3): refused, and left for the closer
	 * thread with the connection (closer.h), which this harness stands for. */
	if (server.request_fds.unexpected) {
		FUZZ_CHECK(!keep, "a connection that sent a plain descriptor kept");
		FUZZ_CHECK(server.request_fds.count > 0, "unexpected, with no descriptor");
		request_fds_close(&server.request_fds);
		keep = true;
	}
	FUZZ_CHECK(keep, "a request taken for the client leaving");
	FUZZ_CHECK(arms - arms_before + flushes - flushes_before + follows - follows_before <= 1,
		   "two actions for one request");
	check_reply(arms != arms_before ? 1 : follows != follows_before ? followed : 0);
	FUZZ_CHECK(server.request_fds.count == 0, "descriptors kept after the request");
	FUZZ_CHECK(fuzz_lowest_free_fd() == lowest, "a descriptor leaked");
	return 0;
}
