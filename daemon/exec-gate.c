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
 * before is seen by a read lease, which the kernel refuses while one is. Each such
 * deletion also comes back on the ring buffer umb_invalidated; we then drop that
 * inode's ignore mark (gate-marks.c) so that its next exec asks again.
 *
 * A signed program's shared libraries get their verdicts too, before its exec is
 * answered: under exec-unsigned a task maps code only from signed files, and fanotify
 * has no event for a mapping (gate-libraries.c).
 *
 * A file without a signature section is decided on its headers. A signed one is hashed
 * in steps between the other work of the event loop, in turn per owner of the file
 * (struct gate_job): one user's large files hold up only that user's execs.
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
#include <time.h>
#include <unistd.h>


#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>
#include <umbrella/umbrella.h>

#include "events.h"
#include "exec-gate.h"
#include "gate-libraries.h"
#include "gate-marks.h"
#include "gate-stats.h"
#include "gate-mounts.h"
#include "keyring.h"
#include "log.h"
#include "signed-elf.h"
#include "state.h"

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
	struct gate_mounts mounts; /* as last read from /proc/self/mountinfo */
	struct gate_marks marks;   /* the ignore marks, by inode */
	bool flush_marks; /* an ignore mark could not be removed alone: drop them all */
	bool mark_warned; /* gate_marks_add() failed once: said so */
	bool remove_warned; /* gate_marks_remove() failed once: said so */
	bool self_warned; /* trust_self() said why it cannot trust umbrellad's executable */
	__u32 epoch;	  /* umb_ctl.verdict_epoch, which only we write */
	struct policy_layer *policies;
	size_t policy_count;
	struct gate_job *jobs; /* the execs held while their files are read, oldest first */
	struct gate_libraries libs; /* the inodes of verified library closures */
	struct gate_stats stats;
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
	int r = state_set_verdict_epoch(g->maps.ctl, epoch);

	if (r < 0)
		return r;
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
static void log_verdict(struct exec_gate *g, uint32_t kdev, uint64_t ino,
			const struct umb_verdict *v, __u32 pid, const __u8 *key_id,
			const char *path, const char *reason, __u32 flags)
{
	struct umb_inode_key key = { .dev = kdev, .ino = ino };
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

/* What a verification found. */
struct outcome {
	bool allow;	    /* the fanotify answer */
	bool cached;	    /* a final verdict is in umb_verdicts: set the ignore mark */
	struct umb_verdict verdict;
	__u8 key_id[UMB_KEY_ID_LEN];
	bool has_key_id;
	char reason[160];
};

/*
 * One exec held by the gate (or umbrellad's own executable, whose descriptor is not an
 * event's): a verification that may take several turns of the event loop. Jobs wait in
 * one list, oldest first; each turn advances the oldest job of each owner of a file by
 * GATE_STEP_BYTES (exec_gate_dispatch()), so that one user's large files delay only
 * that user's: every other owner's files, and the socket, are served in between.
 */
struct gate_job {
	struct gate_job *next;
	int fd;
	__u32 pid;
	bool event;	 /* @fd is a fanotify event's: answer it, then close it */
	bool trust_self; /* umbrellad's own executable: unsigned counts as signed */
	bool markable;	 /* its mount is known: an ignore mark can be removed again */
	struct stat st;
	uint32_t kdev;	 /* the super block's s_dev, as BPF names the inode */
	int attempt;	 /* reads begun: a file that changed while read is read twice at most */
	uint64_t deadline; /* CLOCK_MONOTONIC µs: the current read gives up after it */
	uint64_t event_us; /* CLOCK_MONOTONIC µs: when the gate got the exec's event */
	struct signed_elf e;
	struct signed_elf_reader *reader; /* while the body is being hashed */
	struct outcome o;
	char path[PATH_MAX];
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

/* Ends @j without a cached verdict: the exec is refused and the next one asks again.
 * PENDING counts as none, but leave no stale entry behind. */
static void job_uncached(struct exec_gate *g, struct gate_job *j)
{
	signed_elf_reader_free(j->reader);
	j->reader = NULL;
	(void)bpf_map_delete_elem(g->maps.verdicts, &j->fd);
	j->o.allow = false;
	j->o.cached = false;
}

/*
 * The verdict on @j's file from signed_elf_begin() or _step()'s result @r (and @error,
 * freed here), written with BPF_EXIST over PENDING. Return: true when the job is done
 * (j->o says how), false when BPF deleted PENDING meanwhile: the file changed while it
 * was read, and must be read again.
 */
static bool job_decide(struct exec_gate *g, struct gate_job *j, int r, char *error)
{
	struct outcome *o = &j->o;
	struct umb_verdict v;
	const char *reason;
	bool done = true;
	__u32 flags = 0;
	int state;

	if (r == -EBADMSG) {
		/* A malformed ELF file: refused whatever it claims (signed-elf.h). */
		state = UMB_VERDICT_REFUSED;
		reason = error ? error : "malformed ELF file";
	} else if (r == -EFBIG) {
		/* Signing makes no file that large: no valid signature can be in it. */
		state = UMB_VERDICT_REFUSED;
		reason = "a signature section in a file larger than 1 GiB";
	} else if (r < 0) {
		snprintf(o->reason, sizeof(o->reason), "not verified: %s",
			 r == -ETIMEDOUT ? "reading took too long" :
			 error		 ? error :
					   strerror(-r));
		job_uncached(g, j);
		goto out;
	} else {
		state = keyring_verify(g->keyring, &j->e, &reason);
	}
	if (j->e.has_signature) {
		memcpy(o->key_id, j->e.signature.key_id, sizeof(o->key_id));
		o->has_key_id = true;
	}
	if (state == UMB_VERDICT_UNSIGNED && j->trust_self) {
		state = UMB_VERDICT_SIGNED;
		reason = "umbrellad's own executable";
		flags = UMB_VERDICT_RECORD_TRUSTED_SELF;
	}
	v = (struct umb_verdict){ .state = (__u32)state, .epoch = g->epoch };
	if (state == UMB_VERDICT_SIGNED && j->e.has_policy) {
		char *install_error = NULL;

		r = policy_layer_get(g, j->e.policy_text, j->e.signature.key_id, j->pid, j->path,
				     &v.layer, &install_error);
		if (r < 0) {
			snprintf(o->reason, sizeof(o->reason), "cannot install its restrictions: %s",
				 install_error ? install_error : strerror(-r));
			free(install_error);
			job_uncached(g, j);
			goto out;
		}
	}
	snprintf(o->reason, sizeof(o->reason), "%s", reason);
	if (bpf_map_update_elem(g->maps.verdicts, &j->fd, &v, BPF_EXIST) == 0) {
		o->verdict = v;
		o->cached = true;
		struct umb_inode_key key = inode_key(j->fd, &j->st);

		o->allow = state != UMB_VERDICT_REFUSED;
		log_verdict(g, key.dev, key.ino, &v, j->pid, o->has_key_id ? o->key_id : NULL,
			    j->path, o->reason, flags);
	} else if (errno != ENOENT) {
		snprintf(o->reason, sizeof(o->reason), "cannot write the verdict: %s",
			 strerror(errno));
		job_uncached(g, j);
	} else {
		done = false; /* ENOENT: BPF deleted PENDING, the file changed */
	}
out:
	free(error);
	return done;
}

/*
 * Begins (again) to read @j's file: PENDING written, no writer open, the headers read.
 * A file without a signature section is decided here, whatever its size; a signed one
 * leaves j->reader to hash it with. Return: true when the job is done.
 */
static bool job_begin(struct exec_gate *g, struct gate_job *j)
{
	struct umb_verdict v = { .state = UMB_VERDICT_PENDING, .epoch = g->epoch };
	char *error = NULL;
	int r;

	if (j->attempt++ >= 2) {
		snprintf(j->o.reason, sizeof(j->o.reason),
			 "the file kept changing while it was verified");
		job_uncached(g, j);
		return true;
	}
	if (bpf_map_update_elem(g->maps.verdicts, &j->fd, &v, BPF_ANY) < 0) {
		snprintf(j->o.reason, sizeof(j->o.reason), "cannot write the verdict: %s",
			 strerror(errno));
		return true;
	}
	/* A writer already open when PENDING was written can write after our reading
	 * without BPF seeing it (BPF deletes PENDING at a write open, and a hook on every
	 * close would cost every close). A read lease is granted only while nobody has the
	 * file open for writing (a shared writable mapping holds such a file too).
	 * Released at once: no writer waits. */
	if (fcntl(j->fd, F_SETLEASE, F_RDLCK) < 0) {
		snprintf(j->o.reason, sizeof(j->o.reason), "%s: not verified",
			 errno == EAGAIN ? "open for writing" : strerror(errno));
		job_uncached(g, j);
		return true;
	}
	(void)fcntl(j->fd, F_SETLEASE, F_UNLCK);
	signed_elf_release(&j->e);
	r = signed_elf_begin(j->fd, 0, &j->e, &j->reader, &error);
	if (r == 0 && j->reader) {
		j->deadline = monotonic_usec() + GATE_DEADLINE_USEC;
		return false;
	}
	return job_decide(g, j, r, error);
}

/*
 * Advances @j: hashes about @budget bytes (0: to the end). Return: true when the job
 * is done (j->o says how), false when it must wait for another turn.
 */
static bool job_run(struct exec_gate *g, struct gate_job *j, uint64_t budget)
{
	char *error;
	int r;

	for (;;) {
		if (!j->reader && job_begin(g, j))
			return true;
		if (!j->reader)
			continue; /* the file changed while its headers were read */
		error = NULL;
		if (monotonic_usec() > j->deadline) {
			r = -ETIMEDOUT;
			signed_elf_reader_free(j->reader);
		} else {
			r = signed_elf_step(j->reader, budget ? budget : GATE_STEP_BYTES, &error);
			if (r == 1 && budget)
				return false;
			if (r == 1)
				continue;
		}
		j->reader = NULL; /* freed by signed_elf_step() unless it returned 1 */
		if (job_decide(g, j, r, error))
			return true;
	}
}

/*
 * Where @j's file is: the super block's device number (BPF's name for it) and whether
 * verdicts may be cached there. Return: true when that ended the job (refused).
 */
static bool job_locate(struct exec_gate *g, struct gate_job *j)
{
	const struct gate_mount *m;
	int id;

	if (fstat(j->fd, &j->st) < 0) {
		snprintf(j->o.reason, sizeof(j->o.reason), "cannot stat: %s", strerror(errno));
		return true;
	}
	j->kdev = umb_kdev(j->st.st_dev);
	id = gate_mount_id(j->fd);
	m = id < 0 ? NULL : gate_mounts_find(&g->mounts, id);
	/* A mount of another mount namespace, or a bind mount made since the last scan
	 * (a new file system sends no event before a scan has marked it): another mount
	 * of the same file system. */
	for (size_t i = 0; !m && i < g->mounts.n; i++)
		if (g->mounts.v[i].kdev == j->kdev)
			m = &g->mounts.v[i];
	if (!m) {
		/* Only a file system the gate marked sends events, and it marks only the
		 * cacheable ones: this one is, but unseen from here (a btrfs subvolume of
		 * another namespace). Its mark could not be found again: none. */
		j->markable = false;
		return false;
	}
	if (!m->cacheable) {
		snprintf(j->o.reason, sizeof(j->o.reason), "not verified: %s", m->why);
		return true;
	}
	j->kdev = m->kdev;
	j->markable = true;
	return false;
}

/* Keeps later execs of @j's inode out of user space (until an invalidation). */
static void ignore_mark(struct exec_gate *g, struct gate_job *j)
{
	int r;

	if (!j->markable)
		return;
	r = gate_marks_add(&g->marks, j->fd, j->kdev, j->st.st_ino);
	/* No file handles (ramfs): no mark, each exec asks and is answered at once. */
	if (r < 0 && r != -EOPNOTSUPP && !g->mark_warned) {
		log_msg(LOG_WARNING, "exec gate: cannot set an ignore mark: %s\n", strerror(-r));
		g->mark_warned = true;
	}
}

static void answer(struct exec_gate *g, int fd, bool allow)
{
	struct fanotify_response resp = { .fd = fd, .response = allow ? FAN_ALLOW : FAN_DENY };

	if (write(g->fan_fd, &resp, sizeof(resp)) != sizeof(resp))
		log_msg(LOG_ERR, "exec gate: cannot answer an exec: %s\n", strerror(errno));
}

/* Whether a job is reading the inode (@dev, @ino): its PENDING verdict is its own. */
static bool inode_busy(void *arg, dev_t dev, ino_t ino)
{
	const struct exec_gate *g = arg;

	for (const struct gate_job *o = g->jobs; o; o = o->next)
		if (o->st.st_dev == dev && o->st.st_ino == ino)
			return true;
	return false;
}

static void verify_libraries(struct exec_gate *g, struct gate_job *j)
{
	const struct gate_libraries_env env = {
		.verdicts = g->maps.verdicts, .epoch = g->epoch, .keyring = g->keyring,
		.mounts = &g->mounts, .busy = inode_busy, .arg = g,
	};

	gate_libraries_verify(&g->libs, &env, j->fd, (pid_t)j->pid, j->path);
}

/* Answers @j's exec as decided (and frees @j). */
static void job_finish(struct exec_gate *g, struct gate_job *j)
{
	/* A file read (not a verdict found cached, nor an exec refused unread). */
	if (j->attempt)
		gate_stats_record(&g->stats, j->o.cached ? j->o.verdict.state : 0,
				  monotonic_usec() - j->event_us);
	if (j->o.cached)
		ignore_mark(g, j);
	/* A signed program: its libraries get verdicts before it can map them. */
	if (j->event && j->o.allow && j->o.cached && j->o.verdict.state == UMB_VERDICT_SIGNED)
		verify_libraries(g, j);
	answer(g, j->fd, j->o.allow);
	if (!j->o.allow)
		log_refusal(j->path, j->pid, &j->o);
	signed_elf_reader_free(j->reader);
	signed_elf_release(&j->e);
	close(j->fd);
	free(j);
}

/* A valid verdict for @j's file (the ignore mark went with an invalidation of another
 * file, or a job for the same file was ahead): set j->o from it. UNSIGNED is allowed
 * here: BPF decides by the mode and the task's layers. */
static bool job_cached(struct exec_gate *g, struct gate_job *j)
{
	struct umb_verdict v;

	if (bpf_map_lookup_elem(g->maps.verdicts, &j->fd, &v) < 0 || v.epoch != g->epoch ||
	    v.state == UMB_VERDICT_PENDING || v.state == UMB_VERDICT_STALE)
		return false;
	j->o.cached = true;
	j->o.verdict = v;
	j->o.allow = v.state != UMB_VERDICT_REFUSED;
	snprintf(j->o.reason, sizeof(j->o.reason), "refused when verified");
	return true;
}

/* Whether @j must wait for an older job: one of the same owner, or of the same inode
 * (whose PENDING verdict another read must not overwrite). */
static bool job_blocked(const struct exec_gate *g, const struct gate_job *j)
{
	for (const struct gate_job *o = g->jobs; o && o != j; o = o->next)
		if (o->st.st_uid == j->st.st_uid ||
		    (o->st.st_dev == j->st.st_dev && o->st.st_ino == j->st.st_ino))
			return true;
	return false;
}

/* One turn: the oldest job of each owner that may run advances by GATE_STEP_BYTES. */
static void run_jobs(struct exec_gate *g)
{
	struct gate_job **p = &g->jobs;

	while (*p) {
		struct gate_job *j = *p;

		if (job_blocked(g, j)) {
			p = &j->next;
			continue;
		}
		/* Not begun (it waited for an older job of its inode): maybe decided now. */
		if ((!j->reader && j->attempt == 0 && job_cached(g, j)) ||
		    job_run(g, j, GATE_STEP_BYTES)) {
			*p = j->next;
			job_finish(g, j);
			continue;
		}
		p = &j->next;
	}
}

/* Appends @j to the jobs, or refuses it when its owner (or everyone) has too many
 * waiting. Return: true when queued. */
static bool job_queue(struct exec_gate *g, struct gate_job *j)
{
	struct gate_job **p = &g->jobs;
	size_t owner = 0, users = 0;

	for (; *p; p = &(*p)->next) {
		owner += (*p)->st.st_uid == j->st.st_uid;
		users += (*p)->st.st_uid != 0;
	}
	if (owner >= GATE_QUEUE_OWNER_MAX || (j->st.st_uid != 0 && users >= GATE_QUEUE_MAX)) {
		snprintf(j->o.reason, sizeof(j->o.reason),
			 "not verified: too many files of uid %u waiting", (unsigned)j->st.st_uid);
		/* Begun: its PENDING goes. Not begun: the verdict is another read's. */
		if (j->attempt)
			job_uncached(g, j);
		j->o.allow = false;
		return false;
	}
	*p = j;
	return true;
}

/* One FAN_OPEN_EXEC_PERM event: the exec by @pid of the file @fd, which this takes.
 * Answered now, or by run_jobs() once the file is read. */
static void handle_exec(struct exec_gate *g, int fd, __u32 pid)
{
	struct gate_job *j = calloc(1, sizeof(*j));

	if (!j) {
		answer(g, fd, false);
		close(fd);
		return;
	}
	*j = (struct gate_job){ .fd = fd, .pid = pid, .event = true,
				.event_us = monotonic_usec() };
	fd_path(fd, j->path, sizeof(j->path));
	if (job_locate(g, j) || job_cached(g, j)) {
		job_finish(g, j);
		return;
	}
	/* Behind an older job of its owner or inode it waits its turn (not begun); else
	 * it begins now, and most files (unsigned, or small) are done at once. */
	if (job_blocked(g, j)) {
		if (job_queue(g, j))
			return;
	} else if (!job_run(g, j, GATE_STEP_BYTES) && job_queue(g, j)) {
		return;
	}
	job_finish(g, j);
}

/* Reads and answers (or queues) every waiting event. */
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
				log_msg(LOG_ERR, "exec gate: read: %s\n", strerror(errno));
			return;
		}
		for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
			if (m->fd < 0)
				continue; /* a queue overflow: not a permission event */
			if (m->vers != FANOTIFY_METADATA_VERSION) {
				answer(g, m->fd, false); /* cannot happen: the ABI is stable */
				close(m->fd);
			} else if (m->mask & FAN_OPEN_EXEC_PERM) {
				handle_exec(g, m->fd, (__u32)m->pid);
			} else {
				close(m->fd);
			}
		}
	}
}

/*
 * Marks the file system of every mount that may cache verdicts (gate-mounts.c).
 * Marking one already marked changes nothing, so each scan simply marks them all: a
 * file system unmounted and another mounted with the same device number between two
 * scans is not missed.
 */
static void mark_filesystems(struct exec_gate *g)
{
	int r = gate_mounts_scan(&g->mounts);

	if (r < 0) {
		log_msg(LOG_ERR, "exec gate: /proc/self/mountinfo: %s\n", strerror(-r));
		return;
	}
	for (size_t i = 0; i < g->mounts.n; i++) {
		if (!g->mounts.v[i].cacheable)
			continue;
		/* A mount we cannot reach (over-mounted): its file system is marked through
		 * another mount, or its execs are misses. */
		(void)fanotify_mark(g->fan_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				    FAN_OPEN_EXEC_PERM, AT_FDCWD, g->mounts.v[i].path);
	}
}

/* Drops every ignore mark (the file system marks stay): each file asks once more. */
static void flush_ignore_marks(struct exec_gate *g)
{
	int r = gate_marks_flush(&g->marks);

	if (r < 0)
		log_msg(LOG_ERR, "exec gate: cannot flush the ignore marks: %s\n", strerror(-r));
}

/* An umb_invalidated record: BPF deleted the verdict of an inode. */
static int on_invalidated(void *ctx, void *data, size_t size)
{
	struct exec_gate *g = ctx;
	struct umb_invalidation inv;
	int r;

	if (size < sizeof(inv))
		return 0;
	memcpy(&inv, data, sizeof(inv));
	if (g->maps.verdict_log > 0)
		(void)bpf_map_delete_elem(g->maps.verdict_log, &inv.inode);
	/* A library's verdict died: the programs that map it keep their ignore marks, and
	 * their next execs must verify it again. */
	if (gate_libraries_forget(&g->libs, inv.inode.dev, inv.inode.ino))
		g->flush_marks = true;
	/*
	 * The inode's ignore mark must go, or its next exec would skip the gate (and be
	 * refused as STALE, or a miss). That inode's alone: a mark that cannot be found
	 * again takes all of them with it (each cached file then asks once more, and
	 * finds its verdict).
	 */
	r = gate_marks_remove(&g->marks, inv.inode.dev, inv.inode.ino);
	if (r < 0) {
		if (!g->remove_warned)
			log_msg(LOG_NOTICE,
				"exec gate: an ignore mark cannot be "
				"removed alone (%s): all of them go (said once)\n",
				strerror(-r));
		g->remove_warned = true;
		g->flush_marks = true;
	}
	return 0;
}

/* Writes a verdict for umbrellad's own executable (see exec_gate_new()). */
static void trust_self(struct exec_gate *g)
{
	struct gate_job *j = calloc(1, sizeof(*j));
	bool ended;

	if (!j)
		return;
	j->trust_self = true;
	j->pid = (__u32)getpid();
	j->fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (j->fd < 0) {
		log_msg(LOG_WARNING, "cannot open its own executable: %s\n", strerror(errno));
		free(j);
		return;
	}
	fd_path(j->fd, j->path, sizeof(j->path));
	ended = job_locate(g, j);
	if (ended || !j->markable) {
		/* Where no verdict is cached, none can be trusted either. Said once. */
		if (!g->self_warned)
			log_msg(LOG_NOTICE,
				"%s is not on a file system the exec gate "
				"caches: under 'unsigned = deny' it cannot start again "
				"while umbrellad is down\n",
				j->path);
		g->self_warned = true;
	} else {
		(void)job_run(g, j, 0);
		if (!j->o.cached || j->o.verdict.state != UMB_VERDICT_SIGNED)
			log_msg(LOG_WARNING,
				"its own executable %s is not trusted (%s): "
				"under 'unsigned = deny' it cannot start again while "
				"umbrellad is down\n",
				j->path, j->o.reason);
	}
	signed_elf_release(&j->e);
	close(j->fd);
	free(j);
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
	gate_libraries_clear(&g->libs);
	r = epoch_write(g, g->epoch + 1);
	if (r < 0) {
		log_msg(LOG_ERR, "exec gate: cannot start a new verdict epoch: %s\n", strerror(-r));
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
		log_msg(LOG_INFO, "verdicts flushed (epoch %u)\n", g->epoch);
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
		log_msg(LOG_WARNING, "cannot watch the key ring %s: %s\n", g->keyring_dir,
			strerror(errno));
}

/*
 * Reads the key ring into @ret, logging each file it rejects at error level: a stray
 * file is not a reason to stop gating, but nobody may miss that it is not trusted.
 * Return: 0 or -ENOMEM.
 */
static int keyring_read(const char *dir, struct keyring **ret)
{
	struct keyring *k = NULL;
	char *error = NULL;
	size_t rejected;
	int r;

	r = keyring_load(dir, &k, &error);
	if (r < 0) {
		log_msg(LOG_ERR, "%s\n", error ? error : strerror(-r));
		free(error);
		return r;
	}
	rejected = keyring_rejected_count(k);
	for (size_t i = 0; i < rejected; i++)
		log_msg(LOG_ERR, "key ring: %s\n", keyring_rejected(k, i));
	if (!keyring_revocations_known(k))
		log_msg(LOG_CRIT,
			"key ring %s: its revocation list is not known: every signed "
			"binary is refused until it is fixed\n",
			dir);
	*ret = k;
	return 0;
}

/* What the key ring @k trusts, for the line that says it is in force, in @buf. */
static const char *keyring_summary(const struct keyring *k, char *buf, size_t size)
{
	size_t n = keyring_count(k), rejected = keyring_rejected_count(k);

	if (!keyring_revocations_known(k))
		snprintf(buf, size, "no key trusted (the revocation list is not known)");
	else
		snprintf(buf, size, "%zu key%s, %zu file%s rejected", n, n == 1 ? "" : "s",
			 rejected, rejected == 1 ? "" : "s");
	return buf;
}

size_t exec_gate_keyring_rejected(const struct exec_gate *g)
{
	return keyring_rejected_count(g->keyring);
}

int exec_gate_reload_keyring(struct exec_gate *g)
{
	struct keyring *k = NULL;
	char summary[96];
	int r;

	/* A directory created since the last look is watched from now on. */
	keyring_watch(g);
	/* Only out of memory keeps the ring in force: a rejected file takes effect like
	 * the others (a key whose file went bad is not trusted any more). */
	r = keyring_read(g->keyring_dir, &k);
	if (r < 0) {
		log_msg(LOG_ERR, "keeping the key ring in force\n");
		return r;
	}
	keyring_free(g->keyring);
	g->keyring = k;
	r = new_epoch(g);
	/* Once this is logged, every exec is decided by the new ring. */
	if (r == 0)
		log_msg(LOG_INFO, "key ring %s loaded: %s\n", g->keyring_dir,
			keyring_summary(k, summary, sizeof(summary)));
	return r;
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
	fds[n++] = (struct pollfd){ .fd = g->libs.inotify_fd, .events = POLLIN };
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
	run_jobs(g);
	if (n > 2 && fds[2].revents & (POLLPRI | POLLERR))
		mark_filesystems(g);
	if (n > 3 && fds[3].revents & POLLIN)
		read_inotify(g);
	/* A library directory changed: each program asks once more (gate-libraries.h). */
	if (n > 4 && fds[4].revents & POLLIN && gate_libraries_read(&g->libs))
		flush_ignore_marks(g);
}

bool exec_gate_busy(const struct exec_gate *g)
{
	return g->jobs;
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
	char summary[96];
	struct umb_ctl ctl;
	__u32 zero = 0;
	int r;

	if (!g)
		return -ENOMEM;
	g->maps = *maps;
	g->keyring_dir = keyring_dir;
	gate_stats_open(&g->stats, maps->gate_stats);
	g->fan_fd = g->mountinfo_fd = g->inotify_fd = g->libs.inotify_fd = -1;

	r = keyring_read(keyring_dir, &g->keyring);
	if (r < 0)
		goto fail;
	raise_fd_limit();
	g->fan_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
				  O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (g->fan_fd < 0) {
		r = -errno;
		log_msg(LOG_ERR, "exec gate: fanotify_init: %s\n", strerror(-r));
		goto fail;
	}
	g->marks = (struct gate_marks){ .fan_fd = g->fan_fd, .mounts = &g->mounts };
	g->mountinfo_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (g->mountinfo_fd < 0) {
		r = -errno;
		log_msg(LOG_ERR, "/proc/self/mountinfo: %s\n", strerror(-r));
		goto fail;
	}
	g->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	keyring_watch(g);
	r = gate_libraries_init(&g->libs);
	if (r < 0)
		log_msg(LOG_WARNING, "exec gate: no inotify for library directories: %s\n",
			strerror(-r));
	g->invalidated = ring_buffer__new(maps->invalidated, on_invalidated, g, NULL);
	if (!g->invalidated) {
		r = -errno;
		log_msg(LOG_ERR, "exec gate: cannot read umb_invalidated: %s\n", strerror(-r));
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
	log_msg(LOG_INFO, "exec gate: key ring %s (%s), verdict epoch %u\n", keyring_dir,
		keyring_summary(g->keyring, summary, sizeof(summary)), g->epoch);
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
	/* Execs still held: the kernel answers them when the group closes (below). */
	while (g->jobs) {
		struct gate_job *j = g->jobs;

		g->jobs = j->next;
		signed_elf_reader_free(j->reader);
		signed_elf_release(&j->e);
		close(j->fd);
		free(j);
	}
	gate_marks_release(&g->marks);
	gate_libraries_release(&g->libs);
	gate_mounts_release(&g->mounts);
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
