// SPDX-License-Identifier: GPL-2.0-only
/*
 * Part of the VM test test-fs (test-fs.c, one load of the BPF object for its four parts):
 * "fs:PATH" and "fs:PATH:MODES" on plain paths - reading and writing a file and listing a
 * directory under a restricted directory, stat, the access modes each denying only their kind,
 * the audit record of a denial, and `cat /etc/hostname`.
 *
 * Reads use the read-only root (/etc); writes a tmpfs mounted under /tmp. Every denied
 * operation fails with EACCES and has a positive control beside it. Runs as root inside
 * the test VM (tests/vm/run).
 */
#include <bpf/libbpf.h>

#include "test-fs-util.h"

static char scratch[PATH_MAX];

/* Runs cat @arg with its stderr in scratch/cat.err: the result is cat's exit status. */
static int probe_cat(void *arg)
{
	int fd = open(fs_path("%s/cat.err", scratch), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || dup2(fd, 2) < 0)
		return PROBE_SETUP_FAILED;
	execl("/bin/cat", "cat", (const char *)arg, (char *)NULL);
	return PROBE_SETUP_FAILED;
}

static bool cat_said(const char *what)
{
	char buf[512] = "";
	int fd = open(fs_path("%s/cat.err", scratch), O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n > 0)
		TAP_DIAG("cat said: %.*s", (int)(n - (buf[n - 1] == '\n')), buf);
	return n > 0 && strstr(buf, what);
}

static void test_acceptance(struct umbrella_bpf *skel)
{
	TAP_EQ(test_probe(skel, 0, probe_cat, "/etc/hostname"), 0,
	       "unrestricted: cat /etc/hostname works");
	TAP_EQ(test_probe_items(skel, "fs:/etc", probe_cat, "/etc/hostname"), 1,
	       "fs:/etc: cat /etc/hostname fails");
	TAP_OK(cat_said("Permission denied"), "fs:/etc: cat says \"Permission denied\"");
}

static void test_read_only_root(struct umbrella_bpf *skel)
{
	__u32 etc = test_layer(skel, "fs:/etc");

	TAP_EQ(test_probe(skel, 0, probe_read, OP("/etc/hostname")), 0,
	       "unrestricted: reading /etc/hostname works");
	TAP_EQ(test_probe(skel, etc, probe_read, OP("/etc/hostname")), EACCES,
	       "fs:/etc: reading /etc/hostname fails with EACCES");
	TAP_EQ(test_probe(skel, etc, probe_read, OP("/bin/sh")), 0,
	       "fs:/etc: reading /bin/sh works");
	TAP_EQ(test_probe(skel, etc, probe_open, OP("/etc", .flags = O_RDONLY | O_DIRECTORY)),
	       EACCES, "fs:/etc: opening /etc to list it fails with EACCES");
	TAP_EQ(test_probe(skel, etc, probe_open, OP("/usr", .flags = O_RDONLY | O_DIRECTORY)), 0,
	       "fs:/etc: opening /usr to list it works");
	TAP_EQ(test_probe(skel, etc, probe_open, OP("/etc/ssl/certs", .flags = O_RDONLY)), EACCES,
	       "fs:/etc: opening a directory two levels down fails with EACCES");
	TAP_EQ(test_probe(skel, 0, probe_stat, OP("/etc/hostname")), 0,
	       "unrestricted: stat /etc/hostname works");
	TAP_EQ(test_probe(skel, etc, probe_stat, OP("/etc/hostname")), EACCES,
	       "fs:/etc: stat /etc/hostname fails with EACCES");
	TAP_EQ(test_probe(skel, etc, probe_stat, OP("/etc")), EACCES,
	       "fs:/etc: stat /etc fails with EACCES");
	TAP_EQ(test_probe(skel, etc, probe_stat, OP("/usr")), 0, "fs:/etc: stat /usr works");
	TAP_EQ(test_probe(skel, etc, probe_exec, OP("/bin/true")), 0,
	       "fs:/etc: running /bin/true works");
}

static void test_tmpfs(struct umbrella_bpf *skel)
{
	const char *f = fs_path("%s/r/f", scratch), *ok = fs_path("%s/ok/f", scratch);
	__u32 r = test_layer(skel, fs_path("fs:%s/r", scratch));

	TAP_EQ(test_probe(skel, 0, probe_open, OP(f, .flags = O_WRONLY)), 0,
	       "unrestricted: opening r/f for writing works");
	TAP_EQ(test_probe(skel, r, probe_open, OP(f, .flags = O_WRONLY)), EACCES,
	       "fs:r: opening r/f for writing fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_open, OP(f, .flags = O_RDWR)), EACCES,
	       "fs:r: opening r/f for reading and writing fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_open, OP(f, .flags = O_RDONLY)), EACCES,
	       "fs:r: opening r/f for reading fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_open, OP(f, .flags = O_WRONLY | O_APPEND)), EACCES,
	       "fs:r: opening r/f for appending fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_open, OP(f, .flags = O_ACCMODE)), EACCES,
	       "fs:r: opening r/f with neither read nor write (ioctl only) fails with EACCES");
	TAP_EQ(test_probe(skel, r, probe_open, OP(ok, .flags = O_RDWR)), 0,
	       "fs:r: opening ok/f for reading and writing works");
	TAP_EQ(test_probe(skel, r, probe_open, OP(fs_path("%s/r2", scratch), .flags = O_RDONLY)), 0,
	       "fs:r: opening r2 (a name that only starts like r) works");
}

/* fs:PATH:MODES: each mode denies its kind of access only. */
static void test_modes(struct umbrella_bpf *skel)
{
	const char *data = fs_path("%s/m/data", scratch), *prog = fs_path("%s/m/true", scratch);
	static const struct {
		const char *modes;
		int read, write, exec, stat;
	} cases[] = {
		{ "r", EACCES, 0, 0, EACCES },
		{ "w", 0, EACCES, 0, 0 },
		{ "x", 0, 0, EACCES, 0 },
		{ "rw", EACCES, EACCES, 0, EACCES },
		{ "rwx", EACCES, EACCES, EACCES, EACCES },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 layer = test_layer(skel, fs_path("fs:%s/m:%s", scratch, cases[i].modes));
		const char *m = cases[i].modes;

		TAP_EQ(test_probe(skel, layer, probe_read, OP(data)), cases[i].read,
		       "fs:m:%s: reading m/data %s", m,
		       cases[i].read ? "fails with EACCES" : "works");
		TAP_EQ(test_probe(skel, layer, probe_open, OP(data, .flags = O_WRONLY)),
		       cases[i].write, "fs:m:%s: writing m/data %s", m,
		       cases[i].write ? "fails with EACCES" : "works");
		TAP_EQ(test_probe(skel, layer, probe_exec, OP(prog)), cases[i].exec,
		       "fs:m:%s: running m/true %s", m,
		       cases[i].exec ? "fails with EACCES" : "works");
		TAP_EQ(test_probe(skel, layer, probe_stat, OP(data)), cases[i].stat,
		       "fs:m:%s: stat m/data %s", m, cases[i].stat ? "fails with EACCES" : "works");
	}
}

/* The audit record of a denial: file_open records the full path. */
static int on_event(void *ctx, void *data, size_t size)
{
	const struct umb_event *e = data;
	int *found = ctx;

	if (size >= sizeof(*e) && e->hook == UMB_HOOK_FILE_OPEN && e->item_kind == UMB_ITEM_FS &&
	    e->item == UMB_FS_READ && strcmp(e->path, "/etc/hostname") == 0 && e->layer && e->ino)
		*found = 1;
	return 0;
}

static void test_event(struct umbrella_bpf *skel)
{
	int found = 0;
	struct ring_buffer *rb =
		ring_buffer__new(bpf_map__fd(skel->maps.umb_events), on_event, &found, NULL);

	if (!TAP_OK(rb, "the event ring buffer opens"))
		return;
	(void)ring_buffer__consume(rb); /* what earlier checks left */
	found = 0;
	TAP_EQ(test_probe_items(skel, "fs:/etc", probe_read, OP("/etc/hostname")), EACCES,
	       "fs:/etc: reading /etc/hostname fails with EACCES (audited)");
	(void)ring_buffer__consume(rb);
	TAP_OK(found, "the denial is recorded: file_open, fs, read, layer, inode, /etc/hostname");
	ring_buffer__free(rb);
}

static void fs_basic(struct umbrella_bpf *skel)
{
	if (!TAP_EQ(fs_scratch(scratch), 0, "a scratch tmpfs is mounted"))
		return;
	if (mkdir(fs_path("%s/r", scratch), 0755) < 0 ||
	    mkdir(fs_path("%s/ok", scratch), 0755) < 0 ||
	    mkdir(fs_path("%s/r2", scratch), 0755) < 0 ||
	    mkdir(fs_path("%s/m", scratch), 0755) < 0 ||
	    fs_write(fs_path("%s/r/f", scratch), "restricted\n", 0644) < 0 ||
	    fs_write(fs_path("%s/ok/f", scratch), "free\n", 0644) < 0 ||
	    fs_write(fs_path("%s/m/data", scratch), "data\n", 0644) < 0 ||
	    fs_copy("/bin/true", fs_path("%s/m/true", scratch)) < 0) {
		TAP_OK(false, "the scratch files are created");
		goto out_scratch;
	}

	test_acceptance(skel);
	test_read_only_root(skel);
	test_tmpfs(skel);
	test_modes(skel);
	test_event(skel);

out_scratch:
	fs_scratch_done(scratch);
}
