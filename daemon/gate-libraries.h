/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umbrellad - verdicts for the shared libraries of a signed program (issue 15): under
 * exec-unsigned the BPF mmap_file/file_mprotect hooks let a task map code only from a
 * file with a SIGNED verdict, and fanotify has no event for a mapping. So when the gate
 * has a SIGNED verdict for a program it is about to let run, it resolves the libraries
 * the dynamic loader will map (PT_INTERP, DT_NEEDED recursively), as ld.so would in the
 * exec'ing process's root, and verifies each one there, before the exec goes on.
 */
#ifndef UMBRELLA_GATE_LIBRARIES_H
#define UMBRELLA_GATE_LIBRARIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

struct gate_mounts;
struct keyring;

/* Per exec: at most this many files of the closure (the program's own included)... */
#define GATE_LIBS_MAX	    64
/* ...and this many bytes of signed libraries hashed (cached verdicts cost nothing): a
 * bound on how long one exec holds the gate. Beyond either, a library is not verified
 * and its mapping refused. */
#define GATE_LIBS_BYTES_MAX (64ULL * 1024 * 1024)
/* The library inodes remembered (for gate_libraries_forget()): beyond it, any
 * invalidation counts as one of a library. */
#define GATE_LIBS_KNOWN_MAX 4096

/* A mount namespace whose closure went past the mount guard's budget is remembered this
 * long: its next closures are refused without reading its mounts again (a user with
 * 65536 mounts there and many processes exec'ing would hold the gate 4 s each). Up to
 * GATE_LIBS_OVER_BUDGET_NS at once, each held open so that its inode is not reused. */
#define GATE_LIBS_OVER_BUDGET_USEC (60 * USEC_PER_SEC)
#define GATE_LIBS_OVER_BUDGET_NS   8

/* What the gate tells the closure code. */
struct gate_libraries_env {
	int verdicts; /* umb_verdicts */
	__u32 epoch;  /* the verdict epoch in force */
	const struct keyring *keyring;
	const struct gate_mounts *mounts;
	/* Whether a job of the gate is reading the inode (its PENDING is not ours). */
	bool (*busy)(void *arg, dev_t dev, ino_t ino);
	void *arg;
};

struct gate_lib_inode {
	uint32_t kdev;
	uint64_t ino;
};

/* The directories watched for libraries that appear, go, or are replaced. */
#define GATE_LIBS_WATCHES_MAX 1024

/* The library inodes whose verdicts the closure code wrote or relied on. */
struct gate_libraries {
	struct gate_lib_inode *v;
	size_t n;
	bool overflow; /* more than GATE_LIBS_KNOWN_MAX: every invalidation counts */
	/* inotify on the directories where libraries were found: a library replaced by
	 * a rename (as package managers install) is a new inode without a verdict, and
	 * no invalidation says so. -1: none. */
	int inotify_fd;
	size_t watches; /* directories watched (IN_IGNORED ends one) */
	int max_wd;	/* the highest watch descriptor so far: a higher one is new */
	bool watch_warned;
	/* The mount namespaces past the budget lately (GATE_LIBS_OVER_BUDGET_USEC). */
	struct {
		int fd; /* of /proc/PID/ns/mnt; valid while until_usec != 0 */
		uint64_t ino, until_usec;
	} over_budget[GATE_LIBS_OVER_BUDGET_NS];
	size_t over_budget_next;
};

/* gate_libraries_init() - set up @libs (its inotify descriptor). Return: 0 or -errno. */
int gate_libraries_init(struct gate_libraries *libs);

/*
 * gate_libraries_read() - read @libs' inotify events (its descriptor polled readable)
 * Return: true when a watched directory changed: every program's ignore mark must go,
 * so that its next exec resolves its closure again.
 */
bool gate_libraries_read(struct gate_libraries *libs);

void gate_libraries_release(struct gate_libraries *libs);

/*
 * gate_libraries_verify() - verify the library closure of the program @fd, exec'd by
 * @pid (its path @path, as umbrellad sees it), and write each library's verdict
 * A library that cannot be found, read or verified gets no verdict: its mapping is
 * refused. A library refused by its signature is logged, naming the program.
 * Return: false when the caller's mounts were past the mount guard's budget (logged):
 * the closure was not verified for that caller, and the program's exec must ask again
 * (no ignore mark). True otherwise.
 */
bool gate_libraries_verify(struct gate_libraries *libs, const struct gate_libraries_env *env,
			   int fd, pid_t pid, const char *path);

/*
 * gate_libraries_forget() - the verdict of (@kdev, @ino) died: whether it was a library
 * of a verified closure. Then each program's ignore mark must go, so that its next exec
 * verifies its closure again (otherwise a library updated in place stays refused).
 */
bool gate_libraries_forget(struct gate_libraries *libs, uint32_t kdev, uint64_t ino);

/* A new epoch: every verdict is void, and every ignore mark gone. */
void gate_libraries_clear(struct gate_libraries *libs);

#endif /* UMBRELLA_GATE_LIBRARIES_H */
