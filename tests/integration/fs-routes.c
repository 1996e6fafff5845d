// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-fs (test-fs.c, one load of the BPF object for its four parts):
 * "fs:PATH" holds on every other route to the object (docs/design.md section 2): bind mounts,
 * hard links, symlinks, "..", /proc/self/root, /proc/PID/fd re-opens of O_PATH fds, openat2
 * with RESOLVE_* flags, O_PATH then fstat or openat, chroot, a new mount namespace, renaming
 * the object or its directory, replacing it by rename, a restricted path created after the
 * rule, io_uring opens, inotify watches (they tell the names created in a directory), a file
 * received over SCM_RIGHTS from an unrestricted process, and unix sockets bound to a path
 * (connect(2), sendto(2)), also at the walk's limit of 64 levels. And the routes around rules
 * without w: a hard link or a rename out of a rule's reach, or planted at a name a rule covers
 * (a unix socket bound there too), by a user and by root (lib/reach.bpf.h); readlink(2) under
 * r; inode flags under w.
 *
 * The test process (unrestricted) sets each route up in a scratch tmpfs; a child that
 * carries the layer tries it. Every denial is EACCES, next to a positive control.
 * Runs as root inside the test VM (tests/vm/run).
 */
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <grp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "test-fs-util.h"

static char routes_dir[PATH_MAX]; /* the scratch tmpfs */

/* The result of probe_io_uring_open when io_uring cannot be used at all. */
#define IO_URING_UNAVAILABLE 101

/* Opens with O_PATH (allowed: no access), then re-opens through /proc/self/fd/N or,
 * with flags 1, /proc/PID/fd/N. */
static int probe_proc_fd_reopen(void *arg)
{
	const struct fs_op *op = arg;
	int fd = open(op->path, O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = probe_read(OP(op->flags ? fs_path("/proc/%d/fd/%d", getpid(), fd) :
				      fs_path("/proc/self/fd/%d", fd)));
	close(fd);
	return r;
}

/* openat2(dirfd of path2 or AT_FDCWD, path, O_RDONLY, resolve = flags). */
static int probe_openat2(void *arg)
{
	const struct fs_op *op = arg;
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = op->flags };
	int dirfd = op->path2 ? open(op->path2, O_PATH | O_DIRECTORY | O_CLOEXEC) : AT_FDCWD;
	int fd, r = 0;

	if (op->path2 && dirfd < 0)
		return PROBE_SETUP_FAILED;
	fd = syscall(SYS_openat2, dirfd, op->path, &how, sizeof(how));
	if (fd < 0)
		r = errno;
	else
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	return r;
}

/* open(path, O_PATH) must work; then fstat() the fd. */
static int probe_opath_fstat(void *arg)
{
	const struct fs_op *op = arg;
	struct stat st;
	int fd = open(op->path, O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED; /* O_PATH itself is no access: must work */
	r = fstat(fd, &st) < 0 ? errno : 0;
	close(fd);
	return r;
}

/* open(path, O_PATH | O_DIRECTORY) must work; then openat(fd, path2, O_RDONLY). */
static int probe_opath_openat(void *arg)
{
	const struct fs_op *op = arg;
	int dirfd = open(op->path, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (dirfd < 0)
		return PROBE_SETUP_FAILED;
	fd = openat(dirfd, op->path2, O_RDONLY | O_CLOEXEC);
	close(dirfd);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int probe_chroot(void *arg)
{
	const struct fs_op *op = arg;

	return chroot(op->path) < 0 ? errno : 0;
}

/* chroot(path), chdir("/"), then read path2 (a path inside the new root). */
static int probe_chroot_read(void *arg)
{
	const struct fs_op *op = arg;

	if (chroot(op->path) < 0 || chdir("/") < 0)
		return PROBE_SETUP_FAILED;
	return probe_read(OP(op->path2));
}

/* unshare(CLONE_NEWNS), then read path; with path2, first bind-mount path2 (a restricted
 * directory) on the scratch directory routes_dir/nsmnt and read path through it. */
static int probe_newns_read(void *arg)
{
	const struct fs_op *op = arg;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return PROBE_SETUP_FAILED;
	if (op->path2 && mount(op->path2, fs_path("%s/nsmnt", routes_dir), NULL, MS_BIND, NULL) < 0)
		return PROBE_SETUP_FAILED;
	return probe_read(OP(op->path));
}

/* IORING_OP_OPENAT of path through raw io_uring syscalls; flags: IOSQE_* of the SQE
 * (IOSQE_ASYNC makes an io-wq worker thread do the open). */
static int probe_io_uring_open(void *arg)
{
	const struct fs_op *op = arg;
	struct io_uring_params p = {};
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqe;
	unsigned *sq_tail, *sq_array, *cq_head;
	void *sq, *cq;
	int ring, r;

	ring = syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0)
		return IO_URING_UNAVAILABLE;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return PROBE_SETUP_FAILED;

	sqe = &sqes[0];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)op->path;
	sqe->open_flags = O_RDONLY | O_CLOEXEC;
	sqe->flags = op->flags;
	sq_tail = (unsigned *)((char *)sq + p.sq_off.tail);
	sq_array = (unsigned *)((char *)sq + p.sq_off.array);
	sq_array[*sq_tail & *(unsigned *)((char *)sq + p.sq_off.ring_mask)] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return PROBE_SETUP_FAILED;

	cq_head = (unsigned *)((char *)cq + p.cq_off.head);
	if (__atomic_load_n((unsigned *)((char *)cq + p.cq_off.tail), __ATOMIC_ACQUIRE) == *cq_head)
		return PROBE_SETUP_FAILED;
	cqe = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes) +
	      (*cq_head & *(unsigned *)((char *)cq + p.cq_off.ring_mask));
	r = cqe->res < 0 ? -cqe->res : 0;
	if (cqe->res >= 0)
		close(cqe->res);
	close(ring);
	return r;
}

/* inotify_add_watch(2) on the path. */
static int probe_inotify(void *arg)
{
	const struct fs_op *op = arg;
	int fd = inotify_init1(IN_CLOEXEC), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	r = inotify_add_watch(fd, op->path, IN_CREATE | IN_DELETE) < 0 ? errno : 0;
	close(fd);
	return r;
}

/* The socket to the unrestricted sender of start_sender(). */
static int sender_sock = -1;

/* Asks the sender for the file op->path names (its index in op->flags) and reads
 * through the fd received: EACCES when the kernel dropped it (MSG_CTRUNC). */
static int probe_scm_receive(void *arg)
{
	const struct fs_op *op = arg;
	char which = (char)op->flags, byte, cbuf[CMSG_SPACE(sizeof(int))], data[8];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cmsg;
	int fd;

	if (write(sender_sock, &which, 1) != 1 || recvmsg(sender_sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return PROBE_SETUP_FAILED;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return (msg.msg_flags & MSG_CTRUNC) ? EACCES : PROBE_SETUP_FAILED;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(fd));
	if (read(fd, data, sizeof(data)) < 0) {
		close(fd);
		return errno;
	}
	close(fd);
	return 0;
}

/* A process with no layer that sends, for each byte it reads, an fd of paths[byte]. */
static pid_t start_sender(const char *const paths[2])
{
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char which;

		close(sp[1]);
		while (read(sp[0], &which, 1) == 1) {
			char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
			struct iovec iov = { &which, 1 };
			struct msghdr msg = { .msg_iov = &iov,
					      .msg_iovlen = 1,
					      .msg_control = cbuf,
					      .msg_controllen = sizeof(cbuf) };
			struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
			int fd = open(paths[which & 1], O_RDONLY | O_CLOEXEC);

			cmsg->cmsg_level = SOL_SOCKET;
			cmsg->cmsg_type = SCM_RIGHTS;
			cmsg->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cmsg), &fd, sizeof(fd));
			if (fd < 0 || sendmsg(sp[0], &msg, 0) != 1)
				_exit(1);
			close(fd);
		}
		_exit(0);
	}
	close(sp[0]);
	if (pid < 0) {
		close(sp[1]);
		return -1;
	}
	sender_sock = sp[1];
	return pid;
}

static void test_watch_and_receive(struct umbrella_bpf *skel, __u32 r)
{
	const char *paths[2];
	pid_t sender;

	TAP_EQ(test_probe(skel, r, probe_inotify, OP(fs_path("%s/ok", routes_dir))), 0,
	       "inotify_add_watch on ok works");
	TAP_EQ(test_probe(skel, r, probe_inotify, OP(fs_path("%s/r", routes_dir))), EACCES,
	       "inotify_add_watch on r fails with EACCES");

	paths[0] = strdup(fs_path("%s/ok/f", routes_dir));
	paths[1] = strdup(fs_path("%s/r/f", routes_dir));
	sender = paths[0] && paths[1] ? start_sender(paths) : -1;
	if (!TAP_OK(sender > 0, "setup: an unrestricted sender of fds runs"))
		goto out;
	TAP_EQ(test_probe(skel, r, probe_scm_receive, OP(paths[0], .flags = 0)), 0,
	       "receiving an fd of ok/f over SCM_RIGHTS works");
	TAP_EQ(test_probe(skel, r, probe_scm_receive, OP(paths[1], .flags = 1)), EACCES,
	       "receiving an fd of r/f over SCM_RIGHTS is refused (the fd is dropped)");
	close(sender_sock);
	sender_sock = -1;
	waitpid(sender, NULL, 0);
out:
	free((void *)paths[0]);
	free((void *)paths[1]);
}

/* A unix socket of @type bound at @path (listening, for a stream): the fd, or -1. */
static int unix_bound(const char *path, int type)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) < 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Reaches the unix socket bound at op->path: connect(2) with a socket of type
 * op->flags, or with op->flags SOCK_RAW (a stand-in) a datagram sent by sendto(2). */
static int probe_unix_reach(void *arg)
{
	const struct fs_op *op = arg;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	bool send = op->flags == SOCK_RAW;
	int fd = socket(AF_UNIX, (send ? SOCK_DGRAM : op->flags) | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return PROBE_SETUP_FAILED;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", op->path);
	if (send)
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? errno : 0;
	else
		r = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? errno : 0;
	close(fd);
	return r;
}

static void test_unix_sockets(struct umbrella_bpf *skel, __u32 r)
{
	static const struct {
		int type;
		const char *how;
	} ways[] = {
		{ SOCK_STREAM, "connect(2) to a stream socket" },
		{ SOCK_DGRAM, "connect(2) to a datagram socket" },
		{ SOCK_RAW, "sendto(2) to a datagram socket" },
	};
	int fds[4] = { unix_bound(fs_path("%s/r/stream", routes_dir), SOCK_STREAM),
		       unix_bound(fs_path("%s/ok/stream", routes_dir), SOCK_STREAM),
		       unix_bound(fs_path("%s/r/dgram", routes_dir), SOCK_DGRAM),
		       unix_bound(fs_path("%s/ok/dgram", routes_dir), SOCK_DGRAM) };

	if (TAP_OK(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 && fds[3] >= 0,
		   "setup: unix sockets bound in r and in ok")) {
		for (size_t i = 0; i < ARRAY_SIZE(ways); i++) {
			const char *name = ways[i].type == SOCK_STREAM ? "stream" : "dgram";

			TAP_EQ(test_probe(skel, r, probe_unix_reach,
					  OP(fs_path("%s/ok/%s", routes_dir, name),
					     .flags = ways[i].type)),
			       0, "%s bound in ok works", ways[i].how);
			TAP_EQ(test_probe(skel, r, probe_unix_reach,
					  OP(fs_path("%s/r/%s", routes_dir, name),
					     .flags = ways[i].type)),
			       EACCES, "%s bound in r fails with EACCES", ways[i].how);
		}
	}
	for (size_t i = 0; i < 4; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Levels the walk looks at before it gives up and denies (UMB_WALK_MAX in
 * bpf/walk.bpf.h); a file system root and a mount point count as one each. */
#define WALK_MAX 64

/* @top/c1/.../c@k into @buf. */
static const char *unix_deep_path(char buf[PATH_MAX], const char *top, int k)
{
	int len = snprintf(buf, PATH_MAX, "%s", top);

	for (int i = 1; i <= k && len < PATH_MAX; i++)
		len += snprintf(buf + len, PATH_MAX - len, "/c%d", i);
	return buf;
}

/*
 * A unix socket's peer at the walk's limit. The hooks of unix sockets know the peer's
 * dentry as a number, so on Linux 6.1 every level is read with bpf_probe_read_kernel()
 * (walk.bpf.c; the other hooks walk the object's own file system with plain loads
 * first). The sockets are bound in a detached copy of a tmpfs (open_tree()), whose
 * mount is its own parent: the walk from ok/c1/.../cK/s ends at the tmpfs root, K + 3
 * levels, whatever the test VM's mounts above /tmp. So ok/c1/.../c61/s is walked to
 * level 64 and works, c62 (65 levels) is too deep and denied; in r (fs:r), r is level
 * 64 from r/c1/.../c62/s.
 */
static void test_unix_deep(struct umbrella_bpf *skel)
{
	static const struct {
		const char *top;
		int depth;
	} socks[] = { { "ok", WALK_MAX - 3 }, { "ok", WALK_MAX - 2 }, { "r", WALK_MAX - 2 } };
	const char *d = strdupa(fs_path("%s/unixdeep", routes_dir));
	char buf[PATH_MAX], paths[3][64];
	int tree = -1, dirs[3] = { -1, -1, -1 }, fds[3] = { -1, -1, -1 };
	bool ready;
	__u32 layer = 0;

	ready = mkdir(d, 0755) == 0 && mount("umb-fs-unix", d, "tmpfs", 0, "mode=0755") == 0;
	for (int i = 0; ready && i < 2; i++) {
		const char *top = i ? "r" : "ok";

		ready = mkdirat(AT_FDCWD, fs_path("%s/%s", d, top), 0755) == 0;
		for (int k = 1; ready && k <= WALK_MAX - 2; k++)
			ready = mkdirat(AT_FDCWD, fs_path("%s/%s", d, unix_deep_path(buf, top, k)),
					0755) == 0;
	}
	if (ready)
		layer = test_layer(skel, fs_path("fs:%s/r", d));
	if (ready && layer)
		tree = open_tree(AT_FDCWD, d, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	for (size_t i = 0; tree >= 0 && i < 3; i++) {
		dirs[i] = openat(tree, unix_deep_path(buf, socks[i].top, socks[i].depth),
				 O_PATH | O_DIRECTORY | O_CLOEXEC);
		/* bound through the detached copy: the socket's path is on its mount */
		snprintf(paths[i], sizeof(paths[i]), "/proc/self/fd/%d/s", dirs[i]);
		fds[i] = dirs[i] >= 0 ? unix_bound(paths[i], SOCK_STREAM) : -1;
	}
	if (!TAP_OK(layer && tree >= 0 && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0,
		    "setup: unix sockets bound %d and %d levels deep in a detached tmpfs",
		    WALK_MAX - 3, WALK_MAX - 2))
		goto out;

	TAP_EQ(test_probe(skel, 0, probe_unix_reach, OP(paths[1], .flags = SOCK_STREAM)), 0,
	       "unrestricted: connect(2) to ok/c1/.../c%d/s (%d levels) works", WALK_MAX - 2,
	       WALK_MAX + 1);
	TAP_EQ(test_probe(skel, 0, probe_unix_reach, OP(paths[2], .flags = SOCK_STREAM)), 0,
	       "unrestricted: connect(2) to r/c1/.../c%d/s works", WALK_MAX - 2);
	TAP_EQ(test_probe(skel, layer, probe_unix_reach, OP(paths[0], .flags = SOCK_STREAM)), 0,
	       "fs:r: connect(2) to ok/c1/.../c%d/s (%d levels, read as numbers) works",
	       WALK_MAX - 3, WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_unix_reach, OP(paths[2], .flags = SOCK_STREAM)),
	       EACCES, "fs:r: connect(2) to r/c1/.../c%d/s (r at level %d) fails with EACCES",
	       WALK_MAX - 2, WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_unix_reach, OP(paths[1], .flags = SOCK_STREAM)),
	       EACCES,
	       "fs:r: connect(2) to ok/c1/.../c%d/s (%d levels: too deep) fails with "
	       "EACCES",
	       WALK_MAX - 2, WALK_MAX + 1);
out:
	for (size_t i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (dirs[i] >= 0)
			close(dirs[i]);
	}
	if (tree >= 0)
		close(tree);
	(void)umount2(d, MNT_DETACH);
}

/* The handle test's file handle and the directory its mount_fd opens. */
static struct {
	struct file_handle fh;
	unsigned char bytes[MAX_HANDLE_SZ];
} handle;
static const char handle_mount[] = "/tmp/umbrella-handle-ext4";

static int probe_open_by_handle(void *arg __attribute__((unused)))
{
	int mount_fd = open(handle_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, r = 0;

	if (mount_fd < 0)
		return PROBE_SETUP_FAILED;
	fd = open_by_handle_at(mount_fd, &handle.fh, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		r = errno;
	else
		close(fd);
	close(mount_fd);
	return r;
}

/*
 * open_by_handle_at() of a file whose dentry was evicted: the kernel makes a
 * disconnected dentry, with no directory above it. On ext4 (a loop device in the VM's
 * /tmp; tmpfs never evicts a dentry). The walk must deny, not end at that dentry.
 */
static void test_handles(struct umbrella_bpf *skel)
{
	int mount_id;
	__u32 d;

	if (!TAP_EQ(system("img=/tmp/umbrella-handle.img dir=/tmp/umbrella-handle-ext4; "
			   "truncate -s 16M $img && mkfs.ext4 -q -F $img && mkdir -p $dir && "
			   "mount -o loop $img $dir && rm -f $img && mkdir $dir/d && "
			   "echo data >$dir/d/f"),
		    0, "setup: an ext4 file system on a loop device with d/f"))
		return;
	handle.fh.handle_bytes = MAX_HANDLE_SZ;
	d = test_layer(skel, fs_path("fs:%s/d", handle_mount));
	if (TAP_OK(d && name_to_handle_at(AT_FDCWD, fs_path("%s/d/f", handle_mount), &handle.fh,
					  &mount_id, 0) == 0,
		   "setup: the layer fs:ext4/d, and a handle of d/f")) {
		/* Evict the dentries (nobody holds d/f): the next open by handle makes a
		 * disconnected one. */
		TAP_EQ(system("sync; echo 2 >/proc/sys/vm/drop_caches"), 0,
		       "setup: the dentry cache dropped");
		TAP_EQ(test_probe(skel, d, probe_open_by_handle, NULL), EACCES,
		       "open_by_handle_at of d/f after its dentry was evicted fails with EACCES");
		TAP_EQ(test_probe(skel, 0, probe_open_by_handle, NULL), 0,
		       "unrestricted: open_by_handle_at of d/f works");
		TAP_EQ(test_probe(skel, d, probe_read, OP(fs_path("%s/d/f", handle_mount))), EACCES,
		       "reading d/f by its path fails with EACCES");
	}
	(void)umount2(handle_mount, MNT_DETACH);
}

static void test_bind_mounts(struct umbrella_bpf *skel, __u32 r)
{
	TAP_EQ(mount(fs_path("%s/r", routes_dir), fs_path("%s/bind", routes_dir), NULL, MS_BIND,
		     NULL),
	       0, "setup: r is bind-mounted on bind");
	TAP_EQ(mount(fs_path("%s/r/sub", routes_dir), fs_path("%s/bindsub", routes_dir), NULL,
		     MS_BIND, NULL),
	       0, "setup: r/sub is bind-mounted on bindsub");
	TAP_EQ(mount(fs_path("%s/ok", routes_dir), fs_path("%s/bindok", routes_dir), NULL, MS_BIND,
		     NULL),
	       0, "setup: ok is bind-mounted on bindok");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/bind/f", routes_dir))), EACCES,
	       "bind mount of the restricted directory: reading bind/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/bindsub/g", routes_dir))), EACCES,
	       "bind mount of a subdirectory: reading bindsub/g fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/bindok/f", routes_dir))), 0,
	       "bind mount of an unrestricted directory: reading bindok/f works");
}

static void test_links(struct umbrella_bpf *skel, __u32 r)
{
	/* A hard link is another name of the file: the rule on the file follows it. (A rule
	 * on a directory holds for what is under it; a link made elsewhere, by a task the
	 * rule does not restrict, is not under it. The restricted task cannot make one:
	 * fs-ops.c checks link().) */
	__u32 file = test_layer(skel, fs_path("fs:%s/r/f", routes_dir));

	TAP_EQ(link(fs_path("%s/r/f", routes_dir), fs_path("%s/hard", routes_dir)), 0,
	       "setup: hard link r/f -> hard");
	TAP_EQ(link(fs_path("%s/ok/f", routes_dir), fs_path("%s/hardok", routes_dir)), 0,
	       "setup: hard link ok/f -> hardok");
	TAP_EQ(test_probe(skel, file, probe_read, OP(fs_path("%s/hard", routes_dir))), EACCES,
	       "fs:r/f: reading its hard link fails with EACCES");
	TAP_EQ(test_probe(skel, file, probe_read, OP(fs_path("%s/hardok", routes_dir))), 0,
	       "fs:r/f: reading a hard link to an unrestricted file works");

	TAP_EQ(symlink(fs_path("%s/r/f", routes_dir), fs_path("%s/sym", routes_dir)), 0,
	       "setup: symlink sym -> r/f");
	TAP_EQ(symlink(fs_path("%s/r", routes_dir), fs_path("%s/symdir", routes_dir)), 0,
	       "setup: symlink symdir -> r");
	TAP_EQ(symlink("ok/f", fs_path("%s/symok", routes_dir)), 0, "setup: symlink symok -> ok/f");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/sym", routes_dir))), EACCES,
	       "symlink to the restricted file: reading through it fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/symdir/f", routes_dir))), EACCES,
	       "symlink to the restricted directory: reading symdir/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/symok", routes_dir))), 0,
	       "symlink to an unrestricted file: reading through it works");
}

static void test_route_names(struct umbrella_bpf *skel, __u32 r)
{
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/ok/../r/f", routes_dir))), EACCES,
	       "ok/../r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/r/sub/../f", routes_dir))), EACCES,
	       "r/sub/../f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("%s/r/../ok/f", routes_dir))), 0,
	       "r/../ok/f works (the object decides, not the names on the way)");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("/proc/self/root%s/r/f", routes_dir))),
	       EACCES, "/proc/self/root/.../r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_read, OP(fs_path("/proc/self/root%s/ok/f", routes_dir))),
	       0, "/proc/self/root/.../ok/f works");
	TAP_EQ(test_probe(skel, r, probe_proc_fd_reopen, OP(fs_path("%s/r/f", routes_dir))), EACCES,
	       "O_PATH fd of r/f re-opened through /proc/self/fd/N fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_proc_fd_reopen,
			  OP(fs_path("%s/r/f", routes_dir), .flags = 1)),
	       EACCES, "O_PATH fd of r/f re-opened through /proc/PID/fd/N fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_proc_fd_reopen, OP(fs_path("%s/ok/f", routes_dir))), 0,
	       "O_PATH fd of ok/f re-opened through /proc/self/fd/N works");
}

static void test_openat2(struct umbrella_bpf *skel, __u32 r)
{
	static const struct {
		const char *name;
		__u64 resolve;
		bool beneath; /* relative to routes_dir */
	} cases[] = {
		{ "0", 0, false },
		{ "RESOLVE_NO_SYMLINKS", RESOLVE_NO_SYMLINKS, false },
		{ "RESOLVE_NO_MAGICLINKS", RESOLVE_NO_MAGICLINKS, false },
		{ "RESOLVE_NO_XDEV", RESOLVE_NO_XDEV, true },
		{ "RESOLVE_BENEATH", RESOLVE_BENEATH, true },
		{ "RESOLVE_IN_ROOT", RESOLVE_IN_ROOT, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *dir = cases[i].beneath ? routes_dir : NULL;
		const char *f = cases[i].beneath ? "r/f" : fs_path("%s/r/f", routes_dir);
		const char *ok = cases[i].beneath ? "ok/f" : fs_path("%s/ok/f", routes_dir);

		TAP_EQ(test_probe(skel, r, probe_openat2,
				  OP(f, .path2 = dir, .flags = (int)cases[i].resolve)),
		       EACCES, "openat2(r/f, resolve %s) fails with EACCES", cases[i].name);
		TAP_EQ(test_probe(skel, r, probe_openat2,
				  OP(ok, .path2 = dir, .flags = (int)cases[i].resolve)),
		       0, "openat2(ok/f, resolve %s) works", cases[i].name);
	}
	TAP_EQ(test_probe(skel, r, probe_opath_fstat, OP(fs_path("%s/r/f", routes_dir))), EACCES,
	       "open(r/f, O_PATH) works, fstat() of it fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_opath_fstat, OP(fs_path("%s/ok/f", routes_dir))), 0,
	       "open(ok/f, O_PATH) and fstat() of it work");
	TAP_EQ(test_probe(skel, r, probe_opath_openat,
			  OP(fs_path("%s/r", routes_dir), .path2 = "f")),
	       EACCES, "openat(O_PATH fd of r, \"f\") fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_opath_openat,
			  OP(fs_path("%s/ok", routes_dir), .path2 = "f")),
	       0, "openat(O_PATH fd of ok, \"f\") works");
}

static void test_chroot_ns(struct umbrella_bpf *skel, __u32 r)
{
	TAP_EQ(test_probe(skel, r, probe_chroot, OP(fs_path("%s/r", routes_dir))), EACCES,
	       "chroot into r fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_chroot, OP(fs_path("%s/ok", routes_dir))), 0,
	       "chroot into ok works");
	TAP_EQ(test_probe(skel, r, probe_chroot_read, OP(routes_dir, .path2 = "/r/f")), EACCES,
	       "inside a chroot above r: reading /r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_chroot_read, OP(routes_dir, .path2 = "/ok/f")), 0,
	       "inside a chroot above r: reading /ok/f works");
	TAP_EQ(test_probe(skel, r, probe_chroot, OP(fs_path("%s/bind", routes_dir))), EACCES,
	       "chroot into the bind mount of r fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_newns_read, OP(fs_path("%s/r/f", routes_dir))), EACCES,
	       "in a new mount namespace: reading r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_newns_read, OP(fs_path("%s/ok/f", routes_dir))), 0,
	       "in a new mount namespace: reading ok/f works");
	TAP_EQ(test_probe(skel, r, probe_newns_read,
			  OP(fs_path("%s/nsmnt/f", routes_dir),
			     .path2 = fs_path("%s/r", routes_dir))),
	       EACCES,
	       "in a new mount namespace, through a bind mount made there: reading "
	       "r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_newns_read,
			  OP(fs_path("%s/nsmnt/f", routes_dir),
			     .path2 = fs_path("%s/ok", routes_dir))),
	       0, "in a new mount namespace, through a bind mount of ok made there: works");
}

static void test_renames(struct umbrella_bpf *skel)
{
	__u32 file = test_layer(skel, fs_path("fs:%s/mv/f", routes_dir));
	__u32 dir = test_layer(skel, fs_path("fs:%s/pd", routes_dir));
	__u32 rep = test_layer(skel, fs_path("fs:%s/rep/f", routes_dir));
	__u32 later = test_layer(skel, fs_path("fs:%s/later", routes_dir));
	__u32 laterdir = test_layer(skel, fs_path("fs:%s/laterdir", routes_dir));

	/* The rule follows the object. */
	TAP_EQ(rename(fs_path("%s/mv/f", routes_dir), fs_path("%s/moved", routes_dir)), 0,
	       "setup: mv/f renamed to moved");
	TAP_EQ(test_probe(skel, file, probe_read, OP(fs_path("%s/moved", routes_dir))), EACCES,
	       "fs:mv/f, renamed to moved: reading moved fails with EACCES");
	TAP_EQ(test_probe(skel, file, probe_read, OP(fs_path("%s/mv/g", routes_dir))), 0,
	       "fs:mv/f: reading mv/g works");
	TAP_EQ(rename(fs_path("%s/pd", routes_dir), fs_path("%s/pd2", routes_dir)), 0,
	       "setup: pd renamed to pd2");
	TAP_EQ(test_probe(skel, dir, probe_read, OP(fs_path("%s/pd2/f", routes_dir))), EACCES,
	       "fs:pd, renamed to pd2: reading pd2/f fails with EACCES");
	TAP_EQ(test_probe(skel, dir, probe_read, OP(fs_path("%s/ok/f", routes_dir))), 0,
	       "fs:pd: reading ok/f works");

	/* The rule holds for what bears the name. */
	TAP_EQ(fs_write(fs_path("%s/ok/new", routes_dir), "new\n", 0644), 0,
	       "setup: ok/new written");
	TAP_EQ(rename(fs_path("%s/ok/new", routes_dir), fs_path("%s/rep/f", routes_dir)), 0,
	       "setup: ok/new renamed onto rep/f");
	TAP_EQ(test_probe(skel, rep, probe_read, OP(fs_path("%s/rep/f", routes_dir))), EACCES,
	       "fs:rep/f, replaced by rename: reading the new rep/f fails with EACCES");
	TAP_EQ(test_probe(skel, rep, probe_read, OP(fs_path("%s/rep/g", routes_dir))), 0,
	       "fs:rep/f: reading rep/g works");
	TAP_EQ(fs_write(fs_path("%s/later", routes_dir), "later\n", 0644), 0,
	       "setup: later created after its rule");
	TAP_EQ(test_probe(skel, later, probe_read, OP(fs_path("%s/later", routes_dir))), EACCES,
	       "fs:later, created afterwards: reading it fails with EACCES");
	TAP_EQ(mkdir(fs_path("%s/laterdir", routes_dir), 0755) == 0 &&
		       fs_write(fs_path("%s/laterdir/f", routes_dir), "x\n", 0644) == 0,
	       true, "setup: laterdir/f created after the rule on laterdir");
	TAP_EQ(test_probe(skel, laterdir, probe_read, OP(fs_path("%s/laterdir/f", routes_dir))),
	       EACCES, "fs:laterdir, created afterwards: reading laterdir/f fails with EACCES");
	TAP_EQ(test_probe(skel, laterdir, probe_read, OP(fs_path("%s/ok/f", routes_dir))), 0,
	       "fs:laterdir: reading ok/f works");
}

static void test_io_uring(struct umbrella_bpf *skel, __u32 r)
{
	int ok = test_probe(skel, r, probe_io_uring_open, OP(fs_path("%s/ok/f", routes_dir)));

	if (ok == IO_URING_UNAVAILABLE) {
		TAP_SKIP("io_uring IORING_OP_OPENAT: io_uring is not available on this kernel");
		return;
	}
	TAP_EQ(ok, 0, "io_uring IORING_OP_OPENAT of ok/f works");
	TAP_EQ(test_probe(skel, r, probe_io_uring_open, OP(fs_path("%s/r/f", routes_dir))), EACCES,
	       "io_uring IORING_OP_OPENAT of r/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_io_uring_open,
			  OP(fs_path("%s/r/f", routes_dir), .flags = IOSQE_ASYNC)),
	       EACCES, "io_uring IORING_OP_OPENAT of r/f in an io-wq worker fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_io_uring_open,
			  OP(fs_path("%s/ok/f", routes_dir), .flags = IOSQE_ASYNC)),
	       0, "io_uring IORING_OP_OPENAT of ok/f in an io-wq worker works");
}

enum reach_op {
	REACH_LINK,
	REACH_RENAME,
	REACH_SYMLINK,
	REACH_BIND,
	REACH_READLINK,
	REACH_SETFLAGS,
	REACH_FSSETXATTR
};
#define AS_USER 0x100 /* the probe drops to USER_ID first */
#define USER_ID 1000

/* Sets the immutable flag of @path through a read-only descriptor, with FS_IOC_SETFLAGS
 * or (@fsx) FS_IOC_FSSETXATTR, and takes it off again when that worked. */
static int set_immutable(const char *path, bool fsx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	struct fsxattr fa;
	int flags;

	if (fd < 0 || ioctl(fd, fsx ? FS_IOC_FSGETXATTR : FS_IOC_GETFLAGS,
			    fsx ? (void *)&fa : (void *)&flags) < 0)
		return PROBE_SETUP_FAILED;
	fa.fsx_xflags |= FS_XFLAG_IMMUTABLE;
	flags |= FS_IMMUTABLE_FL;
	r = ioctl(fd, fsx ? FS_IOC_FSSETXATTR : FS_IOC_SETFLAGS,
		  fsx ? (void *)&fa : (void *)&flags);
	if (r < 0) {
		r = errno;
	} else {
		fa.fsx_xflags &= ~FS_XFLAG_IMMUTABLE;
		flags &= ~FS_IMMUTABLE_FL;
		(void)ioctl(fd, fsx ? FS_IOC_FSSETXATTR : FS_IOC_SETFLAGS,
			    fsx ? (void *)&fa : (void *)&flags);
	}
	close(fd);
	return r;
}

/* op->flags: enum reach_op, with AS_USER. */
static int probe_reach(void *arg)
{
	const struct fs_op *op = arg;
	char buf[PATH_MAX];
	int r;

	if ((op->flags & AS_USER) &&
	    (setgroups(0, NULL) < 0 || setresgid(USER_ID, USER_ID, USER_ID) < 0 ||
	     setresuid(USER_ID, USER_ID, USER_ID) < 0))
		return PROBE_SETUP_FAILED;
	switch (op->flags & ~AS_USER) {
	case REACH_LINK:
		r = link(op->path, op->path2);
		break;
	case REACH_RENAME:
		r = rename(op->path, op->path2);
		break;
	case REACH_SYMLINK:
		r = symlink(op->path, op->path2);
		break;
	case REACH_BIND: /* a unix stream socket bound at op->path, then the name freed */
		r = unix_bound(op->path, SOCK_STREAM);
		if (r >= 0)
			r = close(r) < 0 || unlink(op->path) < 0 ? -1 : 0;
		break;
	case REACH_READLINK:
		r = readlink(op->path, buf, sizeof(buf)) < 0 ? -1 : 0;
		break;
	case REACH_SETFLAGS:
	case REACH_FSSETXATTR:
		return set_immutable(op->path, (op->flags & ~AS_USER) == REACH_FSSETXATTR);
	default:
		return PROBE_SETUP_FAILED;
	}
	return r < 0 ? errno : 0;
}

/* The record looked for by on_reach_event(): a path_link denial of @layer on a path
 * ending in @suffix, permissive or not. */
static struct {
	__u32 layer, permissive;
	const char *suffix;
	bool found;
} reach_event;

static int on_reach_event(void *ctx __attribute__((unused)), void *data, size_t size)
{
	const struct umb_event *e = data;
	size_t len, n = strlen(reach_event.suffix);

	if (size < sizeof(*e) || e->hook != UMB_HOOK_PATH_LINK || e->item_kind != UMB_ITEM_FS ||
	    e->layer != reach_event.layer ||
	    !!(e->flags & UMB_EVENT_PERMISSIVE) != reach_event.permissive)
		return 0;
	len = strnlen(e->path, sizeof(e->path));
	if (len >= n && strcmp(e->path + len - n, reach_event.suffix) == 0)
		reach_event.found = true;
	return 0;
}

#define RD(name)   fs_path("%s/rd/%s", routes_dir, name)
#define FREE(name) fs_path("%s/free/%s", routes_dir, name)

/* Whether a hard link of rd/f to free/@name by a user under @layer (@permissive: made
 * so) gives @expected, and a record of it. */
static void check_reach_record(struct umbrella_bpf *skel, __u32 layer, bool permissive,
			       const char *name, int expected)
{
	struct ring_buffer *rb =
		ring_buffer__new(bpf_map__fd(skel->maps.umb_events), on_reach_event, NULL, NULL);
	int fd = bpf_map__fd(skel->maps.umb_layers);
	__u32 slot = umb_layer_slot(layer);
	struct umb_layer l;
	const char *how = permissive ? "permissive" : "enforcing";

	if (permissive) { /* as an arm with UMB_ARM_PERMISSIVE makes it (run --permissive) */
		if (bpf_map_lookup_elem(fd, &slot, &l) < 0)
			layer = 0;
		l.flags |= UMB_LAYER_PERMISSIVE;
		if (layer && bpf_map_update_elem(fd, &slot, &l, BPF_EXIST) < 0)
			layer = 0;
	}
	if (!TAP_OK(rb && layer, "setup: the ring buffer, the layer fs:rd:r, %s", how))
		goto out;
	reach_event.layer = layer;
	reach_event.permissive = permissive;
	reach_event.suffix = "/rd/f";
	(void)ring_buffer__consume(rb); /* what earlier checks left */
	reach_event.found = false;
	TAP_EQ(test_probe(skel, layer, probe_reach,
			  OP(RD("f"), .path2 = FREE(name), .flags = REACH_LINK | AS_USER)),
	       expected, "fs:rd:r, %s, a user: a hard link of rd/f in free %s", how,
	       expected ? "fails with EACCES" : "works (recorded only)");
	(void)ring_buffer__consume(rb);
	TAP_OK(reach_event.found, "the %s record: path_link, the layer, rd/f", how);
out:
	ring_buffer__free(rb);
}

/*
 * Rules without w: under fs:rd:r (and :x) neither a user nor root may give what is in rd
 * a name outside it (a hard link, a rename of a file or a directory), nor, under a name
 * rule on nd/token that names nothing yet, plant a file of its own there (link, rename,
 * symlink) and read what a program writes there later, or bind a unix socket there
 * that a client connects to. Beside each: the same operation where no rule is, or
 * within rd (the same rules at both names), works.
 */
static void test_reach(struct umbrella_bpf *skel)
{
	static const char *const dirs[] = { "rd", "rd/sub", "rd/sub2", "free", "free/d", "nd" };
	static const char *const files[] = { "rd/f",	  "rd/a",	"rd/sub2/x",
					     "free/mine", "free/mine2", "free/mine3" };
	__u32 r = 0, x = 0, w = 0, n = 0, xs = 0;
	bool ready = true;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		ready &= mkdir(fs_path("%s/%s", routes_dir, dirs[i]), 0755) == 0 &&
			 chown(fs_path("%s/%s", routes_dir, dirs[i]), USER_ID, USER_ID) == 0;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		ready &= fs_write(fs_path("%s/%s", routes_dir, files[i]), "data\n", 0600) == 0 &&
			 chown(fs_path("%s/%s", routes_dir, files[i]), USER_ID, USER_ID) == 0;
	ready &= fs_write(RD("rootf"), "data\n", 0600) == 0 &&
		 fs_write(FREE("rootf"), "data\n", 0600) == 0 && symlink("f", RD("lnk")) == 0 &&
		 symlink("mine", FREE("lnk")) == 0;
	if (ready) { /* the rules on what exists now */
		r = test_layer(skel, fs_path("fs:%s/rd:r", routes_dir));
		x = test_layer(skel, fs_path("fs:%s/rd:x", routes_dir));
		w = test_layer(skel, fs_path("fs:%s/rd:w", routes_dir));
		n = test_layer(skel, fs_path("fs:%s/nd/token:r", routes_dir));
		xs = test_layer(skel,
				fs_path("fs:%s/rd:x,fs:%s/rd/secret:r", routes_dir, routes_dir));
		ready = r && x && w && n && xs;
	}
	if (!TAP_OK(ready,
		    "setup: rd, free and nd, files of uid %d, layers fs:rd:r, :x, :w and "
		    "fs:nd/token:r",
		    USER_ID))
		return;

	TAP_EQ(test_probe(skel, r, probe_read, OP(RD("f"))), EACCES,
	       "fs:rd:r: reading rd/f fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(RD("f"), .path2 = FREE("l1"), .flags = REACH_LINK | AS_USER)),
	       EACCES, "fs:rd:r, a user: a hard link of rd/f in free fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(FREE("mine"), .path2 = FREE("l2"), .flags = REACH_LINK | AS_USER)),
	       0, "fs:rd:r, a user: a hard link of free/mine in free works");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(RD("sub"), .path2 = FREE("sub"), .flags = REACH_RENAME | AS_USER)),
	       EACCES, "fs:rd:r, a user: renaming rd/sub to free/sub fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(FREE("d"), .path2 = FREE("d2"), .flags = REACH_RENAME | AS_USER)),
	       0, "fs:rd:r, a user: renaming free/d to free/d2 works");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(RD("a"), .path2 = RD("b"), .flags = REACH_RENAME | AS_USER)),
	       0, "fs:rd:r, a user: renaming rd/a to rd/b (the same rules) works");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(RD("sub2/x"), .path2 = RD("x"), .flags = REACH_RENAME | AS_USER)),
	       0, "fs:rd:r, a user: renaming rd/sub2/x to rd/x (the same rules) works");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(FREE("mine3"), .path2 = RD("in"), .flags = REACH_RENAME | AS_USER)),
	       EACCES, "fs:rd:r, a user: renaming free/mine3 into rd fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(RD("rootf"), .path2 = FREE("l3"), .flags = REACH_LINK)),
	       EACCES, "fs:rd:r, root: a hard link of rd/rootf (root's) in free fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach,
			  OP(FREE("rootf"), .path2 = FREE("l4"), .flags = REACH_LINK)),
	       0, "fs:rd:r, root: a hard link of free/rootf in free works");
	TAP_EQ(test_probe(skel, x, probe_reach,
			  OP(RD("f"), .path2 = FREE("l5"), .flags = REACH_LINK | AS_USER)),
	       EACCES, "fs:rd:x, a user: a hard link of rd/f in free fails with EACCES");

	/* The same directory, but a name there that a rule of its own covers: a link of rd/f
	 * at rd/secret would let the task read, through rd/f, what is written there. */
	TAP_EQ(test_probe(skel, xs, probe_reach,
			  OP(RD("f"), .path2 = RD("secret"), .flags = REACH_LINK | AS_USER)),
	       EACCES,
	       "fs:rd:x,fs:rd/secret:r, a user: a hard link of rd/f at rd/secret fails "
	       "with EACCES");
	TAP_EQ(test_probe(skel, xs, probe_reach,
			  OP(RD("f"), .path2 = RD("f2"), .flags = REACH_LINK | AS_USER)),
	       0, "fs:rd:x,fs:rd/secret:r, a user: a hard link of rd/f at rd/f2 works");

	check_reach_record(skel, r, false, "l6", EACCES);
	check_reach_record(skel, test_layer(skel, fs_path("fs:%s/rd:r", routes_dir)), true, "l7",
			   0);

	/* The plant: nd/token names nothing yet. */
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(FREE("mine"), .path2 = fs_path("%s/nd/token", routes_dir),
			     .flags = REACH_LINK | AS_USER)),
	       EACCES,
	       "fs:nd/token:r, a user: a hard link of its file at nd/token fails with EACCES");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(FREE("mine"), .path2 = fs_path("%s/nd/other", routes_dir),
			     .flags = REACH_LINK | AS_USER)),
	       0, "fs:nd/token:r, a user: a hard link of its file at nd/other works");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(FREE("mine2"), .path2 = fs_path("%s/nd/token", routes_dir),
			     .flags = REACH_RENAME | AS_USER)),
	       EACCES, "fs:nd/token:r, a user: renaming its file to nd/token fails with EACCES");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(FREE("mine"), .path2 = fs_path("%s/nd/token", routes_dir),
			     .flags = REACH_SYMLINK | AS_USER)),
	       EACCES, "fs:nd/token:r, a user: a symlink at nd/token fails with EACCES");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(FREE("mine"), .path2 = fs_path("%s/nd/sym", routes_dir),
			     .flags = REACH_SYMLINK | AS_USER)),
	       0, "fs:nd/token:r, a user: a symlink at nd/sym works");
	/* A unix socket at nd/token would answer a client that expects another service. */
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(fs_path("%s/nd/token", routes_dir), .flags = REACH_BIND | AS_USER)),
	       EACCES,
	       "fs:nd/token:r, a user: bind() of a unix socket at nd/token fails with EACCES");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(fs_path("%s/nd/token", routes_dir), .flags = REACH_BIND)),
	       EACCES,
	       "fs:nd/token:r, root: bind() of a unix socket at nd/token fails with EACCES");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(fs_path("%s/nd/sock", routes_dir), .flags = REACH_BIND | AS_USER)),
	       0, "fs:nd/token:r, a user: bind() of a unix socket at nd/sock works");
	TAP_EQ(test_probe(skel, n, probe_reach,
			  OP(fs_path("%s/nd/sock2", routes_dir), .flags = REACH_BIND)),
	       0, "fs:nd/token:r, root: bind() of a unix socket at nd/sock2 works");

	/* readlink(2) tells the target: r. */
	TAP_EQ(test_probe(skel, r, probe_reach, OP(RD("lnk"), .flags = REACH_READLINK | AS_USER)),
	       EACCES, "fs:rd:r: readlink of rd/lnk fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_reach, OP(FREE("lnk"), .flags = REACH_READLINK | AS_USER)),
	       0, "fs:rd:r: readlink of free/lnk works");

	/* Inode flags through a read-only descriptor: w (tmpfs has them since 6.0). */
	TAP_EQ(test_probe(skel, w, probe_read, OP(RD("rootf"))), 0,
	       "fs:rd:w, root: reading rd/rootf works");
	TAP_EQ(test_probe(skel, w, probe_reach, OP(RD("rootf"), .flags = REACH_SETFLAGS)), EACCES,
	       "fs:rd:w, root: FS_IOC_SETFLAGS (immutable) of rd/rootf fails with EACCES");
	TAP_EQ(test_probe(skel, w, probe_reach, OP(FREE("rootf"), .flags = REACH_SETFLAGS)), 0,
	       "fs:rd:w, root: FS_IOC_SETFLAGS (immutable) of free/rootf works");
	TAP_EQ(test_probe(skel, w, probe_reach, OP(RD("rootf"), .flags = REACH_FSSETXATTR)), EACCES,
	       "fs:rd:w, root: FS_IOC_FSSETXATTR (immutable) of rd/rootf fails with EACCES");
	TAP_EQ(test_probe(skel, w, probe_reach, OP(FREE("rootf"), .flags = REACH_FSSETXATTR)), 0,
	       "fs:rd:w, root: FS_IOC_FSSETXATTR (immutable) of free/rootf works");
}

static void fs_routes(struct umbrella_bpf *skel)
{
	static const char *const dirs[] = { "r",      "r/sub", "ok", "bind", "bindsub",
					    "bindok", "nsmnt", "mv", "pd",   "rep" };
	static const char *const files[] = { "r/f",  "r/sub/g", "ok/f",	 "mv/f",
					     "mv/g", "pd/f",	"rep/f", "rep/g" };
	bool ready = true;
	__u32 r;

	if (!TAP_EQ(fs_scratch(routes_dir), 0, "a scratch tmpfs is mounted"))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		ready &= mkdir(fs_path("%s/%s", routes_dir, dirs[i]), 0755) == 0;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		ready &= fs_write(fs_path("%s/%s", routes_dir, files[i]), "data\n", 0644) == 0;
	r = test_layer(skel, fs_path("fs:%s/r", routes_dir));
	if (!TAP_OK(ready && r, "the scratch files and the layer fs:r are made"))
		goto out_scratch;

	test_bind_mounts(skel, r);
	test_links(skel, r);
	test_route_names(skel, r);
	test_openat2(skel, r);
	test_chroot_ns(skel, r);
	test_renames(skel);
	test_io_uring(skel, r);
	test_watch_and_receive(skel, r);
	test_unix_sockets(skel, r);
	test_unix_deep(skel);
	test_handles(skel);
	test_reach(skel);

out_scratch:
	(void)umount2(fs_path("%s/bind", routes_dir), MNT_DETACH);
	(void)umount2(fs_path("%s/bindsub", routes_dir), MNT_DETACH);
	(void)umount2(fs_path("%s/bindok", routes_dir), MNT_DETACH);
	fs_scratch_done(routes_dir);
}
