// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec-time gate of signed binaries (DESIGN.md section 3, issue 5).
 *
 * BPF cannot sleep, so the kernel holds an exec here while umbrellad decides: one
 * fanotify group marks every file system where the kernel sees every write with
 * FAN_OPEN_EXEC_PERM. An exec-open of a file without a valid verdict waits until we
 * have read it through the event's descriptor (never by path), checked its signature
 * against the key ring, written the verdict (and the layer of its execute restrictions)
 * into the BPF maps and answered. An ignore mark on the inode keeps later execs of the
 * unchanged file in the kernel. The BPF hooks, not our answer, are the authority:
 * fanotify fails open when its listener dies, the pinned verdicts do not.
 *
 * A verdict is written PENDING before the file is read and replaced with BPF_EXIST
 * after: BPF deletes it on any change to the file (a write open, truncate, chmod...),
 * so a failed replacement means that what we read may be stale. A writer that was open
 * before is seen by a read lease, which the kernel refuses while one is. Each such deletion also comes back on the ring buffer
 * umb_invalidated; we then drop the ignore marks so that the next exec asks again.
 *
 * Every permission event is answered, on every path: an unanswered one would hold the
 * exec for ever. umbrellad never execs anything itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>
#include <umbrella/umbrella.h>

#include "events.h"
#include "exec-gate.h"
#include "keyring.h"
#include "signed-elf.h"

/*
 * The file systems whose writes all pass through this kernel, so that BPF sees every
 * change to a verified file and a cached verdict cannot outlive its content. FUSE
 * (virtiofs too), network file systems and overlayfs (whose lower layers change under
 * it) are not marked: an exec there is a miss and follows the mode.
 */
static const char *const cacheable_fs[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "tmpfs", "ramfs",
};

/* The same as f_type, for umbrellad's own executable (statfs). */
static bool cacheable_magic(long type)
{
	switch ((unsigned long)type) {
	case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case F2FS_SUPER_MAGIC:
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
		return true;
	default:
		return false;
	}
}

/* The layer of one distinct (policy text, key id): binaries that share both share it.
 * The gate holds a reference on it for as long as the pin directory lives: a verdict
 * cached in an inode may name it at any later exec, and verdicts cannot be listed to
 * find the last one. Signed policies are few (one per policy text and key), so this is
 * not a resource any caller can use up: only binaries signed by a trusted key make one. */
struct policy_layer {
	char *text;
	__u8 key_id[UMB_KEY_ID_LEN];
	__u32 layer;
};

struct exec_gate {
	struct exec_gate_maps maps;
	const char *keyring_dir;
	struct keyring *keyring;
	int fan_fd;	  /* the fanotify group */
	int mountinfo_fd; /* /proc/self/mountinfo: POLLPRI when the mounts change */
	int inotify_fd;	  /* the key ring directory; -1 when it does not exist */
	struct ring_buffer *invalidated;
	bool flush_marks; /* an invalidation record came: drop the ignore marks */
	bool self_warned; /* trust_self() said why it cannot trust umbrellad's executable */
	__u32 epoch;	  /* umb_ctl.verdict_epoch, which only we write */
	struct policy_layer *policies;
	size_t policy_count;
};

static uint64_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The path of the file @fd, as far as the kernel knows it, in @buf. */
static const char *fd_path(int fd, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		snprintf(buf, size, "(fd %d: %s)", fd, strerror(errno));
	else
		buf[n] = '\0';
	return buf;
}

/* The inode of @fd as the kernel names it (struct umb_inode_key: s_dev, not st_dev,
 * which btrfs and overlayfs make up; kdev.h). Unknown (a detached mount): st_dev. */
static struct umb_inode_key inode_key(int fd, const struct stat *st)
{
	struct umb_inode_key key = { .dev = umb_kdev(st->st_dev), .ino = st->st_ino };
	uint64_t ino;
	uint32_t dev;

	if (umb_kernel_inode(fd, 0, &dev, &ino) == 0)
		key = (struct umb_inode_key){ .dev = dev, .ino = ino };
	return key;
}

/* Sets umb_ctl.verdict_epoch to @epoch (read, modify, write: one thread writes umb_ctl). */
static int epoch_write(struct exec_gate *g, __u32 epoch)
{
	struct umb_ctl ctl;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(g->maps.ctl, &zero, &ctl) < 0)
		return -errno;
	ctl.verdict_epoch = epoch;
	if (bpf_map_update_elem(g->maps.ctl, &zero, &ctl, BPF_ANY) < 0)
		return -errno;
	g->epoch = epoch;
	return 0;
}

/* Empties umb_verdict_log (its records are of an epoch that ended). */
static void log_clear(struct exec_gate *g)
{
	struct umb_inode_key key;

	if (g->maps.verdict_log <= 0)
		return;
	/* Deleting while walking restarts the walk: take the first key each time. */
	while (bpf_map_get_next_key(g->maps.verdict_log, NULL, &key) == 0) {
		if (bpf_map_delete_elem(g->maps.verdict_log, &key) < 0)
			break;
	}
}

/* Records a verdict for umbrella-cli verdict list (informational: failure is no error). */
static void log_verdict(struct exec_gate *g, int fd, const struct stat *st,
			const struct umb_verdict *v,
			__u32 pid, const __u8 *key_id, const char *path, const char *reason,
			__u32 flags)
{
	struct umb_inode_key key = inode_key(fd, st);
	struct umb_verdict_record rec = {
		.time_ns = realtime_ns(),
		.state = v->state,
		.layer = v->layer,
		.epoch = v->epoch,
		.pid = pid,
		.flags = flags,
	};

	if (g->maps.verdict_log <= 0)
		return;
	if (key_id)
		memcpy(rec.key_id, key_id, sizeof(rec.key_id));
	snprintf(rec.path, sizeof(rec.path), "%s", path);
	snprintf(rec.reason, sizeof(rec.reason), "%s", reason);
	(void)bpf_map_update_elem(g->maps.verdict_log, &key, &rec, BPF_ANY);
}

/* Remembers that @layer is the layer of @text signed by @key_id. Without memory it is
 * not remembered: the next binary with this policy gets a layer of its own, which is as
 * correct, only less frugal. */
static void policy_remember(struct exec_gate *g, const char *text, const __u8 *key_id,
			    __u32 layer)
{
	struct policy_layer *grown;

	grown = realloc(g->policies, (g->policy_count + 1) * sizeof(*grown));
	if (!grown)
		return;
	g->policies = grown;
	grown[g->policy_count] = (struct policy_layer){ .text = strdup(text), .layer = layer };
	memcpy(grown[g->policy_count].key_id, key_id, UMB_KEY_ID_LEN);
	if (grown[g->policy_count].text)
		g->policy_count++;
}

/*
 * The layer for @text signed by @key_id: the one made for the same pair before, or a new
 * one (with the key id and the binary's path in its description).
 * Return: 0 and *@ret_layer, or -errno with *@ret_error (malloc'd, may be NULL).
 */
static int policy_layer_get(struct exec_gate *g, const char *text, const __u8 *key_id,
			    __u32 pid, const char *path, __u32 *ret_layer, char **ret_error)
{
	struct umb_restrictions *r;
	struct umb_layer_desc desc;
	int ret, desc_fd;
	__u32 id;

	for (size_t i = 0; i < g->policy_count; i++) {
		if (!memcmp(g->policies[i].key_id, key_id, UMB_KEY_ID_LEN) &&
		    !strcmp(g->policies[i].text, text)) {
			*ret_layer = g->policies[i].layer;
			return 0;
		}
	}

	r = umb_restrictions__new();
	if (!r)
		return -ENOMEM;
	ret = umb_restrictions__parse(r, text, ret_error);
	if (ret < 0)
		goto out;
	/* Charged to root: the system's, not the exec'ing user's (see struct policy_layer). */
	ret = layers_create(g->maps.layers, r, pid, 0, UMB_ORIGIN_SIGNED_BINARY, &id, ret_error);
	if (ret < 0)
		goto out;
	(void)layers_hold(g->maps.layers, id);
	/* layers_create() describes rfork layers: add what only we know. No task carries
	 * the layer before its verdict is written, so nobody reads a half description. */
	desc_fd = g->maps.layers->maps.layer_desc;
	if (desc_fd > 0 && bpf_map_lookup_elem(desc_fd, &id, &desc) == 0) {
		memcpy(desc.key_id, key_id, sizeof(desc.key_id));
		if (snprintf(desc.origin_path, sizeof(desc.origin_path), "%s", path) >=
		    (int)sizeof(desc.origin_path))
			desc.flags |= UMB_DESC_ORIGIN_TRUNCATED;
		(void)bpf_map_update_elem(desc_fd, &id, &desc, BPF_EXIST);
	}

	policy_remember(g, text, key_id, id);
	*ret_layer = id;
	ret = 0;
out:
	umb_restrictions__free(r);
	return ret;
}

/*
 * Layers of signed binaries a previous umbrellad made (umb_layer_desc): reused, so that
 * restarts do not make a new layer per policy each time. A truncated text cannot be
 * compared and is skipped.
 */
static void policy_layers_adopt(struct exec_gate *g)
{
	int desc_fd = g->maps.layers->maps.layer_desc;
	struct umb_layer_desc desc;
	__u32 key, next;
	bool first = true;

	if (desc_fd <= 0)
		return;
	/* Their references are still counted in their slots: held already. */
	while (bpf_map_get_next_key(desc_fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(desc_fd, &key, &desc) < 0 ||
		    desc.origin != UMB_ORIGIN_SIGNED_BINARY || desc.flags & UMB_DESC_TEXT_TRUNCATED ||
		    !layers_get(g->maps.layers, key))
			continue;
		desc.text[sizeof(desc.text) - 1] = '\0';
		policy_remember(g, desc.text, desc.key_id, key);
	}
}

/* What verify() found. */
struct outcome {
	bool allow;	    /* the fanotify answer */
	bool cached;	    /* a final verdict is in umb_verdicts: set the ignore mark */
	struct umb_verdict verdict;
	__u8 key_id[UMB_KEY_ID_LEN];
	bool has_key_id;
	char reason[160];
};

/* Logs a refusal of the exec of @path by @pid (to the journal and, without it, stderr). */
static void log_refusal(const char *path, __u32 pid, const struct outcome *o)
{
	char key[KEY_ID_HEX_LEN + 1] = "-";

	if (o->has_key_id)
		key_id_to_hex(o->key_id, key);
	events_log_refused_binary(path, pid, o->reason, key,
				  o->cached ? "refused" : "not verified");
}

/*
 * Verifies the file @fd (a fanotify event's) for the exec of @pid, writing the verdict.
 * @trust_self: umbrellad's own executable: unsigned counts as signed.
 */
static void verify(struct exec_gate *g, int fd, __u32 pid, bool trust_self, const char *path,
		   struct outcome *o)
{
	struct umb_verdict v = { .state = UMB_VERDICT_PENDING, .epoch = g->epoch };
	struct signed_elf e = {};
	char *error = NULL;
	const char *reason;
	struct stat st;
	__u32 flags;
	int r, state;

	*o = (struct outcome){};
	if (fstat(fd, &st) < 0) {
		snprintf(o->reason, sizeof(o->reason), "cannot stat: %s", strerror(errno));
		return;
	}
	/* Checked before anything is written or read: a huge file is no verdict. */
	if ((uint64_t)st.st_size > GATE_SIZE_MAX) {
		snprintf(o->reason, sizeof(o->reason), "larger than %llu MiB: not verified",
			 GATE_SIZE_MAX >> 20);
		return;
	}
	/* Twice at most: a file that changed while we read it is read once more, a file
	 * that keeps changing is denied. */
	for (int attempt = 0; attempt < 2; attempt++) {
		v = (struct umb_verdict){ .state = UMB_VERDICT_PENDING, .epoch = g->epoch };
		if (bpf_map_update_elem(g->maps.verdicts, &fd, &v, BPF_ANY) < 0) {
			snprintf(o->reason, sizeof(o->reason), "cannot write the verdict: %s",
				 strerror(errno));
			return;
		}
		/* A writer already open when PENDING was written can write after our
		 * reading without BPF seeing it (BPF deletes PENDING at a write open, and
		 * a hook on every close would cost every close). A read lease is granted
		 * only while nobody has the file open for writing (a shared writable
		 * mapping holds such a file too). Released at once: no writer waits. */
		if (fcntl(fd, F_SETLEASE, F_RDLCK) < 0) {
			snprintf(o->reason, sizeof(o->reason), "%s: not verified",
				 errno == EAGAIN ? "open for writing" : strerror(errno));
			goto uncached;
		}
		(void)fcntl(fd, F_SETLEASE, F_UNLCK);
		signed_elf_release(&e);
		free(error);
		error = NULL;
		r = signed_elf_read(fd, monotonic_usec() + GATE_DEADLINE_USEC, &e, &error);
		if (r == -EBADMSG) {
			/* A malformed ELF file: refused whatever it claims (signed-elf.h). */
			state = UMB_VERDICT_REFUSED;
			reason = error ? error : "malformed ELF file";
		} else if (r < 0) {
			snprintf(o->reason, sizeof(o->reason), "not verified: %s",
				 r == -ETIMEDOUT ? "reading took too long" :
				 r == -EFBIG	 ? "file too large" :
				 error		 ? error :
						   strerror(-r));
			goto uncached;
		} else {
			state = keyring_verify(g->keyring, &e, &reason);
		}
		if (e.has_signature) {
			memcpy(o->key_id, e.signature.key_id, sizeof(o->key_id));
			o->has_key_id = true;
		}
		flags = 0;
		if (state == UMB_VERDICT_UNSIGNED && trust_self) {
			state = UMB_VERDICT_SIGNED;
			reason = "umbrellad's own executable";
			flags = UMB_VERDICT_RECORD_TRUSTED_SELF;
		}
		v = (struct umb_verdict){ .state = (__u32)state, .epoch = g->epoch };
		if (state == UMB_VERDICT_SIGNED && e.has_policy) {
			char *install_error = NULL;

			r = policy_layer_get(g, e.policy_text, e.signature.key_id, pid, path,
					     &v.layer, &install_error);
			if (r < 0) {
				snprintf(o->reason, sizeof(o->reason),
					 "cannot install its restrictions: %s",
					 install_error ? install_error : strerror(-r));
				free(install_error);
				goto uncached;
			}
		}
		snprintf(o->reason, sizeof(o->reason), "%s", reason);
		if (bpf_map_update_elem(g->maps.verdicts, &fd, &v, BPF_EXIST) == 0) {
			o->verdict = v;
			o->cached = true;
			o->allow = state != UMB_VERDICT_REFUSED;
			log_verdict(g, fd, &st, &v, pid, o->has_key_id ? o->key_id : NULL, path,
				    o->reason, flags);
			goto out;
		}
		if (errno != ENOENT) {
			snprintf(o->reason, sizeof(o->reason), "cannot write the verdict: %s",
				 strerror(errno));
			goto uncached;
		}
		/* ENOENT: BPF deleted PENDING, the file changed while we read it. */
	}
	snprintf(o->reason, sizeof(o->reason), "the file kept changing while it was verified");
uncached:
	/* Nothing cached: the next exec asks again. PENDING counts as none, but leave no
	 * stale entry behind. */
	(void)bpf_map_delete_elem(g->maps.verdicts, &fd);
	o->allow = false;
out:
	signed_elf_release(&e);
	free(error);
}

/* Keeps later execs of the inode of @fd out of user space (until an invalidation). */
static void ignore_mark(struct exec_gate *g, int fd)
{
	if (fanotify_mark(g->fan_fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK, FAN_OPEN_EXEC_PERM,
			  fd, NULL) < 0)
		fprintf(stderr, SD_WARNING "umbrellad: exec gate: cannot set an ignore mark: %s\n",
			strerror(errno));
}

static void answer(struct exec_gate *g, int fd, bool allow)
{
	struct fanotify_response resp = { .fd = fd, .response = allow ? FAN_ALLOW : FAN_DENY };

	if (write(g->fan_fd, &resp, sizeof(resp)) != sizeof(resp))
		fprintf(stderr, SD_ERR "umbrellad: exec gate: cannot answer an exec: %s\n",
			strerror(errno));
}

/* One FAN_OPEN_EXEC_PERM event: the exec by @pid of the file @fd. Always answered. */
static void handle_exec(struct exec_gate *g, int fd, __u32 pid)
{
	struct umb_verdict v;
	struct outcome o;
	char path[PATH_MAX];

	/* A valid verdict (the ignore mark went with a flush or an invalidation of another
	 * file): answer it at once. UNSIGNED is allowed here: BPF decides by the mode and
	 * the task's layers. */
	if (bpf_map_lookup_elem(g->maps.verdicts, &fd, &v) == 0 && v.epoch == g->epoch &&
	    v.state != UMB_VERDICT_PENDING && v.state != UMB_VERDICT_STALE) {
		ignore_mark(g, fd);
		answer(g, fd, v.state != UMB_VERDICT_REFUSED);
		return;
	}
	fd_path(fd, path, sizeof(path));
	verify(g, fd, pid, false, path, &o);
	if (o.cached)
		ignore_mark(g, fd);
	answer(g, fd, o.allow);
	if (!o.allow)
		log_refusal(path, pid, &o);
}

/* Reads and answers every waiting event. */
static void read_events(struct exec_gate *g)
{
	/* Few at a time: each event holds a descriptor until it is answered. */
	char buf[64 * sizeof(struct fanotify_event_metadata)]
		__attribute__((aligned(__alignof__(struct fanotify_event_metadata))));

	for (;;) {
		struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
		ssize_t n = read(g->fan_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* The kernel denies a permission event it could not hand over. */
			if (errno != EAGAIN)
				fprintf(stderr, SD_ERR "umbrellad: exec gate: read: %s\n",
					strerror(errno));
			return;
		}
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			if (m->fd < 0)
				continue; /* a queue overflow: not a permission event */
			if (m->vers != FANOTIFY_METADATA_VERSION)
				answer(g, m->fd, false); /* cannot happen: the ABI is stable */
			else if (m->mask & FAN_OPEN_EXEC_PERM)
				handle_exec(g, m->fd, (__u32)m->pid);
			close(m->fd);
		}
	}
}

/* Undoes the escaping of a mountinfo field (\040 for a space...) in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * Marks the file system of every mount of a cacheable type. Marking one already marked
 * changes nothing, so each scan simply marks them all: a file system unmounted and
 * another mounted with the same device number between two scans is not missed.
 */
static void mark_filesystems(struct exec_gate *g)
{
	char *line = NULL, *fields[12];
	size_t size = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		fprintf(stderr, SD_ERR "umbrellad: exec gate: /proc/self/mountinfo: %s\n",
			strerror(errno));
		return;
	}
	while (getline(&line, &size, f) > 0) {
		char *save = NULL, *fstype = NULL, *mountpoint;
		size_t n = 0;
		bool ok = false;

		for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			if (n < 5)
				fields[n++] = t;
			else if (!strcmp(t, "-")) {
				fstype = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (n < 5 || !fstype)
			continue;
		for (size_t i = 0; i < sizeof(cacheable_fs) / sizeof(cacheable_fs[0]); i++)
			ok |= !strcmp(fstype, cacheable_fs[i]);
		if (!ok)
			continue;
		mountpoint = fields[4];
		unescape(mountpoint);
		if (fanotify_mark(g->fan_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM,
				  AT_FDCWD, mountpoint) < 0) {
			/* A mount we cannot reach (over-mounted): its file system is marked
			 * through another mount, or its execs are misses. */
			continue;
		}
	}
	free(line);
	fclose(f);
}

/* Drops every ignore mark (the file system marks stay): each file asks once more. */
static void flush_ignore_marks(struct exec_gate *g)
{
	if (fanotify_mark(g->fan_fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0)
		fprintf(stderr, SD_ERR "umbrellad: exec gate: cannot flush the ignore marks: %s\n",
			strerror(errno));
}

/* An umb_invalidated record: BPF deleted the verdict of an inode. */
static int on_invalidated(void *ctx, void *data, size_t size)
{
	struct exec_gate *g = ctx;
	struct umb_invalidation inv;

	if (size < sizeof(inv))
		return 0;
	memcpy(&inv, data, sizeof(inv));
	if (g->maps.verdict_log > 0)
		(void)bpf_map_delete_elem(g->maps.verdict_log, &inv.inode);
	/*
	 * The inode's ignore mark must go, or its next exec would skip the gate (and be a
	 * miss, which "unsigned = allow" lets run: a tampered signed binary too). Without a
	 * descriptor of that inode the mark cannot be named, so all ignore marks go: every
	 * cached file asks once more, and finds its verdict (invalidations are rare: writes
	 * to executables that have been run).
	 */
	g->flush_marks = true;
	return 0;
}

/* Writes a verdict for umbrellad's own executable (see exec_gate_new()). */
static void trust_self(struct exec_gate *g)
{
	char path[PATH_MAX];
	struct statfs sfs;
	struct outcome o;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, SD_WARNING "umbrellad: cannot open its own executable: %s\n",
			strerror(errno));
		return;
	}
	fd_path(fd, path, sizeof(path));
	if (fstatfs(fd, &sfs) < 0 || !cacheable_magic(sfs.f_type)) {
		/* Where no verdict is cached, none can be trusted either. Said once. */
		if (!g->self_warned)
			fprintf(stderr,
				SD_NOTICE "umbrellad: %s is not on a file system the exec gate "
					  "caches: under 'unsigned = deny' it cannot start again "
					  "while umbrellad is down\n",
				path);
		g->self_warned = true;
		close(fd);
		return;
	}
	verify(g, fd, (__u32)getpid(), true, path, &o);
	if (!o.cached || o.verdict.state != UMB_VERDICT_SIGNED)
		fprintf(stderr,
			SD_WARNING "umbrellad: its own executable %s is not trusted (%s): under "
				   "'unsigned = deny' it cannot start again while umbrellad is down\n",
			path, o.reason);
	close(fd);
}

/*
 * Starts a new epoch: every verdict made so far counts as none. The ignore marks go
 * first: an exec of a marked file between the new epoch and the flush would skip the
 * gate and meet a verdict of the old epoch, a miss ("unsigned = deny" refuses it). The
 * other way round, an exec reaches the gate, which answers it once the epoch is new.
 */
static int new_epoch(struct exec_gate *g)
{
	int r;

	flush_ignore_marks(g);
	r = epoch_write(g, g->epoch + 1);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: exec gate: cannot start a new verdict epoch: %s\n",
			strerror(-r));
		return r;
	}
	log_clear(g);
	trust_self(g);
	return 0;
}

int exec_gate_flush(struct exec_gate *g)
{
	int r = new_epoch(g);

	if (r == 0)
		fprintf(stderr, SD_INFO "umbrellad: verdicts flushed (epoch %u)\n", g->epoch);
	return r;
}

/* Watches the key ring directory, if it exists (a missing one is an empty ring). */
static void keyring_watch(struct exec_gate *g)
{
	if (g->inotify_fd < 0)
		return;
	if (inotify_add_watch(g->inotify_fd, g->keyring_dir,
			      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
				      IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0 &&
	    errno != ENOENT)
		fprintf(stderr, SD_WARNING "umbrellad: cannot watch the key ring %s: %s\n",
			g->keyring_dir, strerror(errno));
}

int exec_gate_reload_keyring(struct exec_gate *g)
{
	struct keyring *k = NULL;
	char *error = NULL;
	int r;

	/* A directory created since the last look is watched from now on. */
	keyring_watch(g);
	r = keyring_load(g->keyring_dir, &k, &error);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: %s; keeping the key ring in force\n",
			error ? error : strerror(-r));
		free(error);
		return r;
	}
	keyring_free(g->keyring);
	g->keyring = k;
	fprintf(stderr, SD_INFO "umbrellad: key ring %s loaded\n", g->keyring_dir);
	return new_epoch(g);
}

/* The key ring directory changed: read it again. */
static void read_inotify(struct exec_gate *g)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false, rewatch = false;
	ssize_t n;

	while ((n = read(g->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			changed = true;
			rewatch |= ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF);
			p += sizeof(*ev) + ev->len;
		}
	}
	if (rewatch)
		keyring_watch(g);
	if (changed)
		(void)exec_gate_reload_keyring(g);
}

size_t exec_gate_poll_fds(const struct exec_gate *g, struct pollfd *fds)
{
	size_t n = 0;

	fds[n++] = (struct pollfd){ .fd = g->fan_fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(g->invalidated), .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = g->mountinfo_fd, .events = POLLPRI };
	fds[n++] = (struct pollfd){ .fd = g->inotify_fd, .events = POLLIN };
	return n;
}

void exec_gate_dispatch(struct exec_gate *g, const struct pollfd *fds, size_t n)
{
	/* Invalidations first: a mark must not outlive its verdict longer than needed. */
	(void)ring_buffer__consume(g->invalidated);
	if (g->flush_marks) {
		g->flush_marks = false;
		flush_ignore_marks(g);
	}
	if (n > 0 && fds[0].revents & POLLIN)
		read_events(g);
	if (n > 2 && fds[2].revents & (POLLPRI | POLLERR))
		mark_filesystems(g);
	if (n > 3 && fds[3].revents & POLLIN)
		read_inotify(g);
}

/* Each event holds a descriptor until answered: take the hard limit. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int exec_gate_new(const struct exec_gate_maps *maps, const char *keyring_dir,
		  struct exec_gate **ret)
{
	struct exec_gate *g = calloc(1, sizeof(*g));
	struct umb_ctl ctl;
	char *error = NULL;
	__u32 zero = 0;
	int r;

	if (!g)
		return -ENOMEM;
	g->maps = *maps;
	g->keyring_dir = keyring_dir;
	g->fan_fd = g->mountinfo_fd = g->inotify_fd = -1;

	r = keyring_load(keyring_dir, &g->keyring, &error);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: %s\n", error ? error : strerror(-r));
		free(error);
		r = -ENOKEY;
		goto fail;
	}
	raise_fd_limit();
	g->fan_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
				  O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (g->fan_fd < 0) {
		r = -errno;
		fprintf(stderr, SD_ERR "umbrellad: exec gate: fanotify_init: %s\n", strerror(-r));
		goto fail;
	}
	g->mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (g->mountinfo_fd < 0) {
		r = -errno;
		fprintf(stderr, SD_ERR "umbrellad: /proc/self/mountinfo: %s\n", strerror(-r));
		goto fail;
	}
	g->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	keyring_watch(g);
	g->invalidated = ring_buffer__new(maps->invalidated, on_invalidated, g, NULL);
	if (!g->invalidated) {
		r = -errno;
		fprintf(stderr, SD_ERR "umbrellad: exec gate: cannot read umb_invalidated: %s\n",
			strerror(-r));
		goto fail;
	}
	if (bpf_map_lookup_elem(maps->ctl, &zero, &ctl) < 0) {
		r = -errno;
		goto fail;
	}
	g->epoch = ctl.verdict_epoch;
	policy_layers_adopt(g);

	/* The marks first, then the new epoch: no exec slips between the two unasked. */
	mark_filesystems(g);
	r = new_epoch(g);
	if (r < 0)
		goto fail;
	fprintf(stderr, SD_INFO "umbrellad: exec gate: key ring %s, verdict epoch %u\n",
		keyring_dir, g->epoch);
	*ret = g;
	return 0;

fail:
	exec_gate_free(g);
	return r;
}

void exec_gate_free(struct exec_gate *g)
{
	if (!g)
		return;
	ring_buffer__free(g->invalidated);
	if (g->fan_fd >= 0)
		close(g->fan_fd);
	if (g->mountinfo_fd >= 0)
		close(g->mountinfo_fd);
	if (g->inotify_fd >= 0)
		close(g->inotify_fd);
	keyring_free(g->keyring);
	for (size_t i = 0; i < g->policy_count; i++)
		free(g->policies[i].text);
	free(g->policies);
	free(g);
}
