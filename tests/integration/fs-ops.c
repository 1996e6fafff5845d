// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-fs (test-fs.c, one load of the BPF object for its four parts): the
 * operations on names and metadata under "fs:PATH" - create, mknod, mkdir, symlink, link (both
 * ends), unlink, rmdir, rename (source, target name, replaced target, exchange), truncate,
 * chmod, chown, utimes, extended attributes; chdir and fchdir into a restricted directory,
 * which work, and what is then reached from it (listing it, opening, stat of its entries,
 * ".."), which is denied; and rules that must cross mount points: "fs:/:w" on a tmpfs, and a
 * restricted directory with a file system mounted below it; and deep paths: rules up to 44
 * levels above the object, on its file system and across mount points (on Linux 6.1 the walk
 * has two kinds of level: before and after the first mount point), and the walk's limit of 64
 * levels on file systems with rules (deeper: denied; a file system with none is not walked, so
 * its depth does not count: the marks above a rule are none).
 *
 * Each denial is EACCES beside the same operation in an unrestricted directory of the
 * same tmpfs. Runs as root inside the test VM (tests/vm/run).
 */
#include <dirent.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "test-fs-util.h"

static char ops_dir[PATH_MAX]; /* the scratch tmpfs */

/* An xattr name tmpfs accepts: user.* (Linux 6.6 and later), else trusted.* (root). */
static const char *xattr_name = "user.umbrella";

enum op_kind {
	OP_CREATE,
	OP_MKNOD,
	OP_MKDIR,
	OP_SYMLINK,
	OP_LINK,
	OP_UNLINK,
	OP_RMDIR,
	OP_RENAME,
	OP_EXCHANGE,
	OP_TRUNCATE,
	OP_OPEN_TRUNC,
	OP_CHMOD,
	OP_CHOWN,
	OP_UTIMES,
	OP_SETXATTR,
	OP_REMOVEXATTR,
	OP_GETXATTR,
	OP_LISTXATTR,
};

/* What probe_in_dir() does: enter the directory (chdir, or fchdir to an O_PATH fd of it
 * with IN_FCHDIR), then one of the rest, by names relative to it. */
enum in_dir {
	IN_NOTHING,
	IN_LIST,     /* opendir("."), readdir */
	IN_OPEN,     /* open("f"), read */
	IN_STAT,     /* stat("f") */
	IN_PARENT_F, /* open("../f"), read: out through ".." to a restricted file */
	IN_FCHDIR = 0x100,
};

/* Does the operation op->flags on op->path (and op->path2). */
static int probe_op(void *arg)
{
	const struct fs_op *op = arg;
	char buf[256];
	int r;

	switch (op->flags) {
	case OP_CREATE:
		return probe_open(OP(op->path, .flags = O_WRONLY | O_CREAT | O_EXCL));
	case OP_MKNOD:
		r = mknod(op->path, S_IFIFO | 0644, 0);
		break;
	case OP_MKDIR:
		r = mkdir(op->path, 0755);
		break;
	case OP_SYMLINK:
		r = symlink("target", op->path);
		break;
	case OP_LINK:
		r = link(op->path, op->path2);
		break;
	case OP_UNLINK:
		r = unlink(op->path);
		break;
	case OP_RMDIR:
		r = rmdir(op->path);
		break;
	case OP_RENAME:
		r = rename(op->path, op->path2);
		break;
	case OP_EXCHANGE:
		r = renameat2(AT_FDCWD, op->path, AT_FDCWD, op->path2, RENAME_EXCHANGE);
		break;
	case OP_TRUNCATE:
		r = truncate(op->path, 0);
		break;
	case OP_OPEN_TRUNC:
		return probe_open(OP(op->path, .flags = O_WRONLY | O_TRUNC));
	case OP_CHMOD:
		r = chmod(op->path, 0600);
		break;
	case OP_CHOWN:
		r = chown(op->path, 0, 0);
		break;
	case OP_UTIMES:
		r = utimensat(AT_FDCWD, op->path, NULL, 0);
		break;
	case OP_SETXATTR:
		r = setxattr(op->path, xattr_name, "v", 1, 0);
		break;
	case OP_REMOVEXATTR:
		r = removexattr(op->path, xattr_name);
		break;
	case OP_GETXATTR:
		r = getxattr(op->path, xattr_name, buf, sizeof(buf)) < 0 ? -1 : 0;
		break;
	case OP_LISTXATTR:
		r = listxattr(op->path, buf, sizeof(buf)) < 0 ? -1 : 0;
		break;
	default:
		return PROBE_SETUP_FAILED;
	}
	return r < 0 ? errno : 0;
}

/* Checks @kind on the restricted @denied (EACCES) and on the free @allowed (works). */
static void check(struct umbrella_bpf *skel, __u32 layer, int kind, const char *what,
		  const char *denied, const char *denied2, const char *allowed,
		  const char *allowed2)
{
	TAP_EQ(test_probe(skel, layer, probe_op, OP(denied, .path2 = denied2, .flags = kind)),
	       EACCES, "fs:w: %s in w fails with EACCES", what);
	TAP_EQ(test_probe(skel, layer, probe_op, OP(allowed, .path2 = allowed2, .flags = kind)), 0,
	       "fs:w: %s in ok works", what);
}

#define W(name)	 fs_path("%s/w/%s", ops_dir, name)
#define OK(name) fs_path("%s/ok/%s", ops_dir, name)

static void test_names(struct umbrella_bpf *skel, __u32 w)
{
	check(skel, w, OP_CREATE, "creating a file", W("new"), NULL, OK("new"), NULL);
	check(skel, w, OP_MKNOD, "mknod (a fifo)", W("fifo"), NULL, OK("fifo"), NULL);
	check(skel, w, OP_MKDIR, "mkdir", W("dir"), NULL, OK("dir"), NULL);
	check(skel, w, OP_SYMLINK, "creating a symlink", W("sym"), NULL, OK("sym"), NULL);
	check(skel, w, OP_LINK, "a hard link to a restricted file", W("f"), OK("l1"), OK("f"),
	      OK("l2"));
	check(skel, w, OP_LINK, "a hard link named in the restricted directory", OK("f"), W("l3"),
	      OK("f"), OK("l4"));
	check(skel, w, OP_UNLINK, "unlink", W("f"), NULL, OK("u"), NULL);
	check(skel, w, OP_RMDIR, "rmdir", W("e"), NULL, OK("e"), NULL);
	check(skel, w, OP_RENAME, "renaming a restricted file away", W("f"), OK("m1"), OK("m"),
	      OK("m1"));
	check(skel, w, OP_RENAME, "renaming a file into the restricted directory", OK("m1"),
	      W("m2"), OK("m1"), OK("m2"));
	check(skel, w, OP_RENAME, "renaming a file onto a restricted file", OK("m2"), W("f"),
	      OK("m2"), OK("m3"));
	check(skel, w, OP_RENAME, "renaming the restricted directory itself",
	      fs_path("%s/w", ops_dir), fs_path("%s/w2", ops_dir), OK("dir"), OK("dir2"));
	check(skel, w, OP_EXCHANGE, "exchanging a file with a restricted one", OK("m3"), W("f"),
	      OK("m3"), OK("f"));
}

static void test_metadata(struct umbrella_bpf *skel, __u32 w)
{
	int r;

	check(skel, w, OP_TRUNCATE, "truncate()", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_OPEN_TRUNC, "open(O_TRUNC)", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_CHMOD, "chmod", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_CHOWN, "chown", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_UTIMES, "utimes (utimensat)", W("f"), NULL, OK("f"), NULL);

	r = setxattr(OK("f"), xattr_name, "v", 1, 0);
	if (r < 0 && errno == EOPNOTSUPP) {
		TAP_DIAG("tmpfs has no user.* xattrs on this kernel (before 6.6): using trusted.*");
		xattr_name = "trusted.umbrella";
		r = setxattr(OK("f"), xattr_name, "v", 1, 0);
	}
	if (!TAP_EQ(r == 0 && setxattr(W("f"), xattr_name, "v", 1, 0) == 0 &&
			    setxattr(OK("x"), xattr_name, "v", 1, 0) == 0,
		    true, "setup: %s set on w/f, ok/f and ok/x", xattr_name))
		return;
	check(skel, w, OP_SETXATTR, "setxattr", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_GETXATTR, "getxattr", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_LISTXATTR, "listxattr", W("f"), NULL, OK("f"), NULL);
	check(skel, w, OP_REMOVEXATTR, "removexattr", W("f"), NULL, OK("x"), NULL);
}

/*
 * Enters op->path as op->flags says (enum in_dir), then does the rest. Returns the
 * errno of entering with IN_NOTHING, else that of the rest (PROBE_SETUP_FAILED when the
 * directory could not be entered).
 */
static int probe_in_dir(void *arg)
{
	const struct fs_op *op = arg;
	int what = op->flags & ~IN_FCHDIR, fd, r;
	struct stat st;
	DIR *dir;

	if (op->flags & IN_FCHDIR) {
		fd = open(op->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return PROBE_SETUP_FAILED;
		r = fchdir(fd);
	} else {
		r = chdir(op->path);
	}
	if (r < 0)
		return what == IN_NOTHING ? errno : PROBE_SETUP_FAILED;
	switch (what) {
	case IN_NOTHING:
		return 0;
	case IN_LIST:
		dir = opendir(".");
		if (!dir)
			return errno;
		errno = 0;
		r = readdir(dir) ? 0 : errno ?: ENOENT;
		closedir(dir);
		return r;
	case IN_OPEN:
		return probe_read(OP("f"));
	case IN_STAT:
		return stat("f", &st) < 0 ? errno : 0;
	case IN_PARENT_F:
		return probe_read(OP("../f"));
	default:
		return PROBE_SETUP_FAILED;
	}
}

/* @how (enum in_dir) in the restricted @denied gives @denied_result, in @allowed 0. */
static void check_in(struct umbrella_bpf *skel, __u32 layer, int how, const char *what,
		     const char *denied, int denied_result, const char *allowed)
{
	TAP_EQ(test_probe(skel, layer, probe_in_dir, OP(denied, .flags = how)), denied_result,
	       "fs:w: %s in w %s", what, denied_result ? "fails with EACCES" : "works");
	TAP_EQ(test_probe(skel, layer, probe_in_dir, OP(allowed, .flags = how)), 0,
	       "fs:w: %s in ok works", what);
}

/*
 * chdir and fchdir into a restricted directory work (no check sits on the per-component
 * inode_permission hook: docs/security.md); whatever is then reached
 * from there is still denied, each beside the same in the free directory.
 */
static void test_chdir(struct umbrella_bpf *skel, __u32 w)
{
	const char *wd = strdupa(fs_path("%s/w", ops_dir)),
		   *okd = strdupa(fs_path("%s/ok", ops_dir));
	const char *we = strdupa(W("e")), *oke = strdupa(OK("e2"));

	check_in(skel, w, IN_NOTHING, "chdir", wd, 0, okd);
	check_in(skel, w, IN_LIST, "chdir, then listing \".\"", wd, EACCES, okd);
	check_in(skel, w, IN_OPEN, "chdir, then reading \"f\"", wd, EACCES, okd);
	check_in(skel, w, IN_STAT, "chdir, then stat of \"f\"", wd, EACCES, okd);
	check_in(skel, w, IN_NOTHING | IN_FCHDIR, "fchdir to an O_PATH fd", wd, 0, okd);
	check_in(skel, w, IN_LIST | IN_FCHDIR, "fchdir to an O_PATH fd, then listing \".\"", wd,
		 EACCES, okd);
	check_in(skel, w, IN_OPEN | IN_FCHDIR, "fchdir to an O_PATH fd, then reading \"f\"", wd,
		 EACCES, okd);
	check_in(skel, w, IN_LIST, "chdir to a subdirectory, then listing \".\"", we, EACCES, oke);
	check_in(skel, w, IN_PARENT_F, "chdir to a subdirectory, then reading \"../f\"", we, EACCES,
		 oke);
}

/* Rules above a mount point hold below it. */
static void test_mount_crossing(struct umbrella_bpf *skel)
{
	__u32 root_w = test_layer(skel, "fs:/:w");
	__u32 outer = test_layer(skel, fs_path("fs:%s/outer", ops_dir));

	TAP_EQ(test_probe(skel, root_w, probe_op, OP(OK("byroot"), .flags = OP_CREATE)), EACCES,
	       "fs:/:w: creating a file on a tmpfs below /tmp fails with EACCES");
	TAP_EQ(test_probe(skel, root_w, probe_op, OP(OK("f"), .flags = OP_CHMOD)), EACCES,
	       "fs:/:w: chmod of a file on that tmpfs fails with EACCES");
	TAP_EQ(test_probe(skel, root_w, probe_open, OP(OK("f"), .flags = O_WRONLY)), EACCES,
	       "fs:/:w: opening a file on that tmpfs for writing fails with EACCES");
	TAP_EQ(test_probe(skel, root_w, probe_read, OP(OK("f"))), 0,
	       "fs:/:w: reading a file on that tmpfs works");
	TAP_EQ(test_probe(skel, root_w, probe_read, OP("/etc/hostname")), 0,
	       "fs:/:w: reading /etc/hostname works");

	TAP_EQ(test_probe(skel, outer, probe_read, OP(fs_path("%s/outer/m/f", ops_dir))), EACCES,
	       "fs:outer: reading outer/m/f, on a tmpfs mounted on outer/m, fails with EACCES");
	TAP_EQ(test_probe(skel, outer, probe_op,
			  OP(fs_path("%s/outer/m/new", ops_dir), .flags = OP_CREATE)),
	       EACCES, "fs:outer: creating outer/m/new fails with EACCES");
	TAP_EQ(test_probe(skel, outer, probe_read, OP(OK("f"))), 0, "fs:outer: reading ok/f works");
}

/* @base/@prefix1/.../@prefix@k, then "/@leaf" unless @leaf is NULL. */
static const char *deep_path(const char *base, const char *prefix, int k, const char *leaf)
{
	char buf[PATH_MAX];
	int len = snprintf(buf, sizeof(buf), "%s", base);

	for (int i = 1; i <= k && len < (int)sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "/%s%d", prefix, i);
	if (leaf && len < (int)sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, "/%s", leaf);
	return fs_path("%s", buf);
}

/* mkdir @base/@prefix1/.../@prefix@n (@base exists), with a file "f" in each directory
 * from @base down when @files. */
static bool deep_make(const char *base_arg, const char *prefix, int n, bool files)
{
	const char *base = strdupa(base_arg); /* fs_path() reuses its buffers */
	bool ok = true;

	for (int k = 0; k <= n; k++) {
		if (k > 0)
			ok &= mkdir(deep_path(base, prefix, k, NULL), 0755) == 0;
		if (files)
			ok &= fs_write(deep_path(base, prefix, k, "f"), "deep\n", 0644) == 0;
	}
	return ok;
}

/* chroot(path2), then open(path, flags) as probe_open does. */
static int probe_chroot_open(void *arg)
{
	const struct fs_op *op = arg;

	if (chroot(op->path2) < 0 || chdir("/") < 0)
		return PROBE_SETUP_FAILED;
	return probe_open(arg);
}

/* Levels the walk looks at before it gives up and denies (UMB_WALK_MAX in
 * bpf/walk.bpf.h); a file system root and a mount point count as one each. */
#define WALK_MAX 64

/*
 * Deep paths. On Linux 6.1 the walk reads the levels of the object's own file system
 * with plain loads (one bpf_loop() callback), and those from its first mount point on
 * with bpf_probe_read_kernel() (another); 6.12 walks all of them in one loop. ck/f
 * below is the file f in a directory k levels below the named one: the directory r is
 * level k + 2 of the walk from ck/f, its parent level k + 3, where the name n
 * (restricted before it existed: a name rule only) is looked up with the child it came
 * from. mr and kr are found after mount points, far up. ok is the control, with the
 * same layer.
 */
static void test_depth(struct umbrella_bpf *skel)
{
	static const int depths[] = { 0, 13, 14, 15, 16, 40 };
	/* copies: fs_path() reuses its buffers */
	const char *deep = strdupa(fs_path("%s/deep", ops_dir));
	const char *r = strdupa(fs_path("%s/r", deep)), *n = strdupa(fs_path("%s/n", deep));
	const char *ok = strdupa(fs_path("%s/ok", deep));
	const char *mr = strdupa(deep_path(fs_path("%s/mr", deep), "c", 20, "m"));
	const char *mo = strdupa(deep_path(fs_path("%s/mo", deep), "c", 20, "m"));
	const char *kr = strdupa(fs_path("%s/kr/b", deep)), *ko = strdupa(fs_path("%s/ko/b", deep));
	__u32 layer, kw;
	bool ready;

	ready = mkdir(deep, 0755) == 0 && mkdir(r, 0755) == 0 && mkdir(ok, 0755) == 0 &&
		mkdir(fs_path("%s/mr", deep), 0755) == 0 &&
		mkdir(fs_path("%s/mo", deep), 0755) == 0 &&
		mkdir(fs_path("%s/kr", deep), 0755) == 0 &&
		mkdir(fs_path("%s/ko", deep), 0755) == 0 && mkdir(kr, 0755) == 0 &&
		mkdir(ko, 0755) == 0 && deep_make(r, "c", 40, true) &&
		deep_make(ok, "c", 40, true) && deep_make(fs_path("%s/mr", deep), "c", 20, false) &&
		deep_make(fs_path("%s/mo", deep), "c", 20, false) && mkdir(mr, 0755) == 0 &&
		mkdir(mo, 0755) == 0;
	/* the rule on n first, then n: it holds by name only */
	layer = test_layer(skel, fs_path("fs:%s,fs:%s,fs:%s/mr", r, n, deep));
	kw = test_layer(skel, fs_path("fs:%s/kr:w", deep));
	ready = ready && layer && kw && mkdir(n, 0755) == 0 && deep_make(n, "c", 40, true);
	/* a tmpfs 21 levels below mr (and mo), with f and e1/.../e20/f in it */
	for (int i = 0; ready && i < 2; i++) {
		const char *m = i ? mo : mr;

		ready = mount("umb-fs-deep", m, "tmpfs", 0, "mode=0755") == 0 &&
			deep_make(m, "e", 20, true);
	}
	/* a tmpfs on kr/b (ko/b) to chroot into, with a tmpfs 21 levels down in it (a) */
	for (int i = 0; ready && i < 2; i++) {
		const char *b = i ? ko : kr, *a = strdupa(deep_path(b, "b", 20, "a"));

		ready = mount("umb-fs-root", b, "tmpfs", 0, "mode=0755") == 0 &&
			deep_make(b, "b", 20, false) && mkdir(a, 0755) == 0 &&
			mount("umb-fs-a", a, "tmpfs", 0, "mode=0755") == 0 &&
			fs_write(fs_path("%s/f", a), "deep\n", 0644) == 0;
	}
	/* the limit: l1/.../l64 below the scratch root, with no mount crossed (listxattr
	 * walks one file system): l63 is level 64 of the walk, l64 level 65 */
	ready = ready && deep_make(ops_dir, "l", WALK_MAX, false);
	if (!TAP_OK(ready, "setup: the deep directories, files, mounts and layers are made"))
		goto out;

	for (size_t i = 0; i < ARRAY_SIZE(depths); i++) {
		int k = depths[i];

		TAP_EQ(test_probe(skel, 0, probe_read, OP(deep_path(r, "c", k, "f"))), 0,
		       "unrestricted: reading r/c1/.../c%d/f works", k);
		TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(r, "c", k, "f"))), EACCES,
		       "fs:r: reading r/c1/.../c%d/f (r at level %d) fails with EACCES", k, k + 2);
		TAP_EQ(test_probe(skel, layer, probe_open,
				  OP(deep_path(r, "c", k, "f"), .flags = O_WRONLY)),
		       EACCES, "fs:r: opening r/c1/.../c%d/f for writing fails with EACCES", k);
		TAP_EQ(test_probe(skel, layer, probe_op,
				  OP(deep_path(r, "c", k, NULL), .flags = OP_LISTXATTR)),
		       EACCES, "fs:r: listxattr r/c1/.../c%d (no mount known) fails with EACCES",
		       k);
		TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(n, "c", k, "f"))), EACCES,
		       "fs:n (a name rule): reading n/c1/.../c%d/f (its parent at level %d) fails "
		       "with EACCES",
		       k, k + 3);
		TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(ok, "c", k, "f"))), 0,
		       "fs:r: reading ok/c1/.../c%d/f works", k);
		TAP_EQ(test_probe(skel, layer, probe_op,
				  OP(deep_path(ok, "c", k, NULL), .flags = OP_LISTXATTR)),
		       0, "fs:r: listxattr ok/c1/.../c%d works", k);
	}

	TAP_EQ(test_probe(skel, layer, probe_read, OP(fs_path("%s/f", mr))), EACCES,
	       "fs:mr: reading f on a tmpfs 21 levels below mr fails with EACCES");
	TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(mr, "e", 20, "f"))), EACCES,
	       "fs:mr: reading e1/.../e20/f on that tmpfs fails with EACCES");
	TAP_EQ(test_probe(skel, layer, probe_read, OP(fs_path("%s/f", mo))), 0,
	       "fs:mr: reading f on a tmpfs 21 levels below mo works");
	TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(mo, "e", 20, "f"))), 0,
	       "fs:mr: reading e1/.../e20/f on that tmpfs works");

	TAP_EQ(test_probe(skel, 0, probe_chroot_open,
			  OP(deep_path("", "b", 20, "a/f"), .path2 = kr, .flags = O_WRONLY)),
	       0, "unrestricted: in a chroot to kr/b, writing b1/.../b20/a/f works");
	TAP_EQ(test_probe(skel, kw, probe_chroot_open,
			  OP(deep_path("", "b", 20, "a/f"), .path2 = kr, .flags = O_WRONLY)),
	       EACCES,
	       "fs:kr:w: in a chroot to kr/b (a tmpfs), writing b1/.../b20/a/f "
	       "(on another tmpfs) fails with EACCES");
	TAP_EQ(test_probe(skel, kw, probe_chroot_open,
			  OP(deep_path("", "b", 20, "a/f"), .path2 = kr, .flags = O_RDONLY)),
	       0, "fs:kr:w: in that chroot, reading b1/.../b20/a/f works");
	TAP_EQ(test_probe(skel, kw, probe_chroot_open,
			  OP(deep_path("", "b", 20, "a/f"), .path2 = ko, .flags = O_WRONLY)),
	       0, "fs:kr:w: in a chroot to ko/b, writing b1/.../b20/a/f works");

	/* the limit (on 6.1 through the levels read with plain loads; the other kind,
	 * bpf_probe_read_kernel() only, is what a unix socket's peer takes: fs-routes.c) */
	TAP_EQ(test_probe(skel, 0, probe_op,
			  OP(deep_path(ops_dir, "l", WALK_MAX, NULL), .flags = OP_LISTXATTR)),
	       0, "unrestricted: listxattr l1/.../l%d works", WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_op,
			  OP(deep_path(ops_dir, "l", WALK_MAX - 1, NULL), .flags = OP_LISTXATTR)),
	       0, "fs:r: listxattr l1/.../l%d (%d levels) works", WALK_MAX - 1, WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_op,
			  OP(deep_path(ops_dir, "l", WALK_MAX, NULL), .flags = OP_LISTXATTR)),
	       EACCES, "fs:r: listxattr l1/.../l%d (%d levels: too deep) fails with EACCES",
	       WALK_MAX, WALK_MAX + 1);

	/* A file system on which no rule names an inode is left at once: its depth does
	 * not count (the tmpfs on mo has no rule; the one above it has). */
	TAP_OK(deep_make(mo, "l", WALK_MAX, true), "setup: mo/l1/.../l%d on the tmpfs on mo",
	       WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_op,
			  OP(deep_path(mo, "l", WALK_MAX, NULL), .flags = OP_LISTXATTR)),
	       0,
	       "fs:r: listxattr mo/l1/.../l%d (%d levels of a file system with no rule) "
	       "works",
	       WALK_MAX, WALK_MAX + 1);
	TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(mo, "l", WALK_MAX, "f"))), 0,
	       "fs:r: reading mo/l1/.../l%d/f (then 22 levels above mo) works", WALK_MAX);
	TAP_EQ(test_probe(skel, layer, probe_read, OP(deep_path(mr, "e", 20, "f"))), EACCES,
	       "fs:mr: reading mr/e1/.../e20/f still fails with EACCES (control)");

out:
	for (int i = 0; i < 2; i++) {
		(void)umount2(deep_path(i ? ko : kr, "b", 20, "a"), MNT_DETACH);
		(void)umount2(i ? ko : kr, MNT_DETACH);
		(void)umount2(i ? mo : mr, MNT_DETACH);
	}
}

/*
 * The directories above a rule are marked (its ancestors: lib/ancestors.bpf.h), but
 * they are not rules: a file system that holds nothing but marks has no rule, and its
 * depth does not count against the walk's limit (nor is it walked: the walk on /, which
 * holds the marks of every rule, is the cost this spares). x is a tmpfs with c1/.../c50
 * in it, and on c50/m a tmpfs y with a rule on y/r: reading y/d1/.../d20/f is 22
 * levels on y and 52 more on x. Then a rule on x: x is walked, and the same read is
 * too deep (the control that the limit is reached there).
 */
static void test_ancestor_depth(struct umbrella_bpf *skel)
{
	const char *x = strdupa(fs_path("%s/x", ops_dir));
	const char *y = strdupa(deep_path(x, "c", 50, "m"));
	const char *f = strdupa(deep_path(y, "d", 20, "f"));
	__u32 marks, merged, rule;
	bool ready;

	ready = mkdir(x, 0755) == 0 && mount("umb-fs-x", x, "tmpfs", 0, "mode=0755") == 0 &&
		deep_make(x, "c", 50, false) && mkdir(y, 0755) == 0 &&
		mount("umb-fs-y", y, "tmpfs", 0, "mode=0755") == 0 &&
		mkdir(fs_path("%s/r", y), 0755) == 0 &&
		fs_write(fs_path("%s/r/f", y), "data\n", 0644) == 0 && deep_make(y, "d", 20, true);
	marks = ready ? test_layer(skel, fs_path("fs:%s/r", y)) : 0;
	if (!TAP_OK(marks, "setup: c1/.../c50 on the tmpfs x, y on c50/m, the layer fs:y/r"))
		goto out;
	TAP_EQ(test_probe(skel, marks, probe_read, OP(fs_path("%s/r/f", y))), EACCES,
	       "fs:y/r: reading y/r/f fails with EACCES");
	TAP_EQ(test_probe(skel, marks, probe_read, OP(f)), 0,
	       "fs:y/r: reading y/d1/.../d20/f works (x, 52 levels of marks only, is not walked)");
	/* A rule on a directory that the same layer marked first (g, above g/h/f): the
	 * mark becomes a rule the walk reads. g is then renamed (by the test, unrestricted),
	 * so that only the rule on its inode, not the one on its name, holds for g2/f. */
	merged = 0;
	if (mkdir(fs_path("%s/g", y), 0755) == 0 && mkdir(fs_path("%s/g/h", y), 0755) == 0 &&
	    fs_write(fs_path("%s/g/f", y), "data\n", 0644) == 0)
		merged = test_layer(skel, fs_path("fs:%s/g/h/f,fs:%s/g", y, y));
	if (TAP_OK(merged && rename(fs_path("%s/g", y), fs_path("%s/g2", y)) == 0,
		   "setup: the layer fs:y/g/h/f,fs:y/g, then g renamed to g2")) {
		TAP_EQ(test_probe(skel, merged, probe_read, OP(fs_path("%s/g2/f", y))), EACCES,
		       "fs:y/g/h/f,fs:y/g: reading g2/f (g's inode) fails with EACCES");
		TAP_EQ(test_probe(skel, merged, probe_read, OP(fs_path("%s/d1/f", y))), 0,
		       "fs:y/g/h/f,fs:y/g: reading y/d1/f works");
	}
	rule = test_layer(skel, fs_path("fs:%s/c1/other", x));
	if (!TAP_OK(rule, "setup: the layer fs:x/c1/other, a rule on x"))
		goto out;
	TAP_EQ(test_probe(skel, marks, probe_read, OP(f)), EACCES,
	       "fs:y/r with a rule on x: reading y/d1/.../d20/f (74 levels: too deep) fails "
	       "with EACCES");
	TAP_EQ(test_probe(skel, marks, probe_read, OP(deep_path(y, "d", 1, "f"))), 0,
	       "fs:y/r with a rule on x: reading y/d1/f (55 levels up to the root of x) works");
out:
	(void)umount2(y, MNT_DETACH);
	(void)umount2(x, MNT_DETACH);
}

static void fs_ops(struct umbrella_bpf *skel)
{
	static const char *const dirs[] = { "w", "w/e", "ok", "ok/e", "ok/e2", "outer", "outer/m" };
	static const char *const files[] = { "w/f", "ok/f", "ok/u", "ok/m", "ok/m3", "ok/x" };
	bool ready = true;
	__u32 w;

	if (!TAP_EQ(fs_scratch(ops_dir), 0, "a scratch tmpfs is mounted"))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		ready &= mkdir(fs_path("%s/%s", ops_dir, dirs[i]), 0755) == 0;
	ready &= mount("umb-fs-inner", fs_path("%s/outer/m", ops_dir), "tmpfs", 0, "mode=0755") ==
		 0;
	ready &= fs_write(fs_path("%s/outer/m/f", ops_dir), "inner\n", 0644) == 0;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		ready &= fs_write(fs_path("%s/%s", ops_dir, files[i]), "data\n", 0644) == 0;
	w = test_layer(skel, fs_path("fs:%s/w", ops_dir));
	if (!TAP_OK(ready && w, "the scratch files and the layer fs:w are made"))
		goto out_scratch;

	test_names(skel, w);
	test_metadata(skel, w);
	test_chdir(skel, w);
	test_mount_crossing(skel);
	test_depth(skel);
	test_ancestor_depth(skel);

out_scratch:
	(void)umount2(fs_path("%s/outer/m", ops_dir), MNT_DETACH);
	fs_scratch_done(ops_dir);
}
