// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the exec gate's verification: the PENDING -> verify -> BPF_EXIST protocol.
 *
 * A verdict is written PENDING before the file is read and replaced with BPF_EXIST
 * after: BPF deletes it on any change to the file (a write open, truncate, chmod...),
 * so a failed replacement means that what we read may be stale, and the file is read
 * again. A writer that was open before is seen by a read lease, which the kernel
 * refuses while one is.
 *
 * A file without a signature section is decided on its headers. A signed one is hashed
 * in steps between the other work of the event loop, in turn per owner of the file
 * (struct gate_job): one user's large files hold up only that user's execs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <umbrella/kdev.h>

#include "elf-dynamic.h"
#include "journal-writer.h"
#include "gate-internal.h"
#include "gate-verify.h"
#include "log.h"
#include "time-util.h"

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The path of the file @fd, as far as the kernel knows it, in @buf. */
const char *gate_fd_path(int fd, char *buf, size_t size)
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

/* @src, cut to fit @size bytes with its NUL (a record's room: the log line has it whole). */
static void copy_cut(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
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
	copy_cut(rec.path, sizeof(rec.path), path);
	copy_cut(rec.reason, sizeof(rec.reason), reason);
	(void)bpf_map_update_elem(g->maps.verdict_log, &key, &rec, BPF_ANY);
}

int gate_verdict_of_read(const struct keyring *k, const struct signed_elf *e, int r,
			 const char *error, const char **ret_reason)
{
	if (r == -EBADMSG) {
		/* A malformed ELF file: refused whatever it claims (signed-elf.h). */
		*ret_reason = error ? error : "malformed ELF file";
		return UMB_VERDICT_REFUSED;
	}
	if (r == -EFBIG) {
		/* Signing makes no file that large: no valid signature can be in it. */
		*ret_reason = "a signature section in a file larger than 1 GiB";
		return UMB_VERDICT_REFUSED;
	}
	if (r < 0)
		return r;
	return keyring_verify(k, e, ret_reason);
}

int gate_verdict_flags(int fd, __u32 *ret_flags)
{
	struct elf_dynamic d;
	int r = elf_dynamic_read(fd, &d);

	/* As binary sign decides: a dynamic section beyond elf-dynamic.h's bounds (node's
	 * 5 MB of strings) is a program's, as signed, not refused under deny. */
	*ret_flags = r == 0 && elf_dynamic_is_library(&d) ? UMB_VERDICT_F_LIBRARY : 0;
	elf_dynamic_release(&d);
	return r == -ENOEXEC || r == -EBADMSG ? 0 : r;
}

/* Logs a refusal of the exec of @path by @pid (to the journal and, without it, stderr). */
static void log_refusal(const char *path, __u32 pid, const struct outcome *o)
{
	char key[KEY_ID_HEX_LEN + 1] = "-";

	if (o->has_key_id)
		key_id_to_hex(o->key_id, key);
	journal_write_refused_binary(path, pid, o->reason, key,
				     o->cached ? "refused" : "not verified");
}

/* Says that @j's file, signed by a key the ring does not know, got the verdict @v: it
 * runs where unsigned files may, as one, with the layer of its restrictions. */
static void log_unknown_signer(const struct gate_job *j, const struct umb_verdict *v)
{
	char key[KEY_ID_HEX_LEN + 1];

	key_id_to_hex(j->e.signature.key_id, key);
	if (v->layer)
		log_notice("exec gate: %s is signed by key %s, which the key ring does not "
			   "know: it counts as an unsigned file, with its restrictions (layer %u)",
			   j->path, key, v->layer);
	else
		log_notice("exec gate: %s is signed by key %s, which the key ring does not "
			   "know: it counts as an unsigned file",
			   j->path, key);
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
	struct gate_policy_signer signer = {};
	struct umb_verdict v;
	const char *reason;
	bool done = true;
	__u32 flags = 0;
	int state;

	state = gate_verdict_of_read(g->keyring, &j->e, r, error, &reason);
	/* Signed by a key the ring does not know: no worse off than unsigned. It runs as
	 * an unsigned file does, with the restrictions it carries (a layer only takes
	 * rights away, so they need no trust), never as SIGNED; and not as umbrellad's
	 * own executable (trust_self). A new key starts a new epoch: its next exec is
	 * verified again. */
	if (state == UMB_VERDICT_REFUSED && r >= 0 && keyring_signer_unknown(g->keyring, &j->e)) {
		state = UMB_VERDICT_UNSIGNED;
		signer.unknown = true;
		signer.uid = j->st.st_uid;
		reason = "unknown signer: run as unsigned with its restrictions";
		flags = UMB_VERDICT_RECORD_UNKNOWN_SIGNER;
	}
	if (state < 0) {
		snprintf(o->reason, sizeof(o->reason), "not verified: %s",
			 r == -ETIMEDOUT ? "reading took too long" :
			 error		 ? error :
					   strerror(-r));
		job_uncached(g, j);
		goto out;
	}
	if (j->e.has_signature) {
		memcpy(o->key_id, j->e.signature.key_id, sizeof(o->key_id));
		o->has_key_id = true;
	}
	if (state == UMB_VERDICT_UNSIGNED && j->trust_self && !signer.unknown) {
		state = UMB_VERDICT_SIGNED;
		reason = "umbrellad's own executable";
		flags = UMB_VERDICT_RECORD_TRUSTED_SELF;
	}
	v = (struct umb_verdict){ .state = (__u32)state, .epoch = g->epoch };
	if (signer.unknown)
		v.flags = UMB_VERDICT_F_UNKNOWN_SIGNER;
	if (state == UMB_VERDICT_SIGNED && !(flags & UMB_VERDICT_RECORD_TRUSTED_SELF)) {
		r = gate_verdict_flags(j->fd, &v.flags);
		if (r < 0) {
			snprintf(o->reason, sizeof(o->reason), "not verified: %s", strerror(-r));
			job_uncached(g, j);
			goto out;
		}
	}
	if ((state == UMB_VERDICT_SIGNED || signer.unknown) && j->e.has_policy) {
		char *install_error = NULL;

		memcpy(signer.key_id, j->e.signature.key_id, sizeof(signer.key_id));
		r = gate_layer_get(g, j->e.policy_text, &signer, j->pid, j->path, &v.layer,
				   &install_error);
		if (r < 0) {
			snprintf(o->reason, sizeof(o->reason),
				 "cannot install its restrictions: %s",
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
		if (signer.unknown)
			log_unknown_signer(j, &v);
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
		j->deadline = now_usec() + GATE_DEADLINE_USEC;
		return false;
	}
	return job_decide(g, j, r, error);
}

/*
 * Advances @j: hashes about @budget bytes (0: to the end). Return: true when the job
 * is done (j->o says how), false when it must wait for another turn.
 */
bool gate_job_run(struct exec_gate *g, struct gate_job *j, uint64_t budget)
{
	char *error;
	int r;

	for (;;) {
		if (!j->reader && job_begin(g, j))
			return true;
		if (!j->reader)
			continue; /* the file changed while its headers were read */
		error = NULL;
		if (now_usec() > j->deadline) {
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
bool gate_job_locate(struct exec_gate *g, struct gate_job *j)
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

/* Whether a job is reading the inode (@dev, @ino): its PENDING verdict is its own. */
static bool inode_busy(void *arg, dev_t dev, ino_t ino)
{
	const struct exec_gate *g = arg;

	for (const struct gate_job *o = g->jobs; o; o = o->next)
		if (o->st.st_dev == dev && o->st.st_ino == ino)
			return true;
	return false;
}

static bool verify_libraries(struct exec_gate *g, struct gate_job *j)
{
	const struct gate_libraries_env env = {
		.verdicts = g->maps.verdicts,
		.epoch = g->epoch,
		.keyring = g->keyring,
		.mounts = &g->mounts,
		.busy = inode_busy,
		.arg = g,
	};

	return gate_libraries_verify(&g->libs, &env, j->fd, (pid_t)j->pid, j->path);
}

/* Answers @j's exec as decided (and frees @j). */
static void job_finish(struct exec_gate *g, struct gate_job *j)
{
	bool mark = j->o.cached;

	/* A file read (not a verdict found cached, nor an exec refused unread). */
	if (j->attempt)
		gate_stats_record(&g->stats, j->o.cached ? j->o.verdict.state : 0,
				  now_usec() - j->event_us);
	/* A signed program: its libraries get verdicts before it can map them. A closure
	 * the caller's mounts kept from being verified leaves no ignore mark: the next
	 * exec, maybe another caller's, asks again (the refusal is that caller's alone). */
	if (j->event && j->o.allow && j->o.cached && j->o.verdict.state == UMB_VERDICT_SIGNED &&
	    !verify_libraries(g, j))
		mark = false;
	if (mark)
		gate_ignore_mark(g, j);
	gate_backing_fill(g, j); /* an exec through overlayfs: before the answer */
	gate_answer(g, j->fd, j->o.allow);
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
void gate_run_jobs(struct exec_gate *g)
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
		    gate_job_run(g, j, GATE_STEP_BYTES)) {
			*p = j->next;
			job_finish(g, j);
			gate_progress(g);
			continue;
		}
		gate_progress(g);
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
 * Answered now, or by gate_run_jobs() once the file is read. */
void gate_handle_exec(struct exec_gate *g, int fd, __u32 pid)
{
	struct gate_job *j = calloc(1, sizeof(*j));

	if (!j) {
		gate_answer(g, fd, false);
		close(fd);
		return;
	}
	*j = (struct gate_job){ .fd = fd, .pid = pid, .event = true, .event_us = now_usec() };
	gate_fd_path(fd, j->path, sizeof(j->path));
	if (gate_job_locate(g, j) || job_cached(g, j)) {
		job_finish(g, j);
		return;
	}
	/* Behind an older job of its owner or inode it waits its turn (not begun); else
	 * it begins now, and most files (unsigned, or small) are done at once. */
	if (job_blocked(g, j)) {
		if (job_queue(g, j))
			return;
	} else if (!gate_job_run(g, j, GATE_STEP_BYTES) && job_queue(g, j)) {
		return;
	}
	job_finish(g, j);
}
