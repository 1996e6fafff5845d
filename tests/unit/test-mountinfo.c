// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the mountinfo reader (common/mountinfo.c, on libmount) on text with octal
 * escapes, optional fields, an empty source, odd names, a malformed line, a line longer
 * than a read, text that arrives in small pieces (a pipe), and callbacks that stop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mountinfo.h"
#include "tap.h"

#define MAX_SEEN 16

struct seen {
	size_t n;
	int stop_at;	  /* the id whose entry stops the reading (returns 1), or 0 */
	size_t bytes;	  /* told to the bytes callback */
	size_t stop_past; /* the bytes callback stops once past this many, or 0 */
	struct {
		int id, parent;
		unsigned int major, minor;
		uint32_t kdev;
		char *root, *target, *fstype, *source, *optional;
	} v[MAX_SEEN];
};

static int on_entry(const struct mountinfo_entry *e, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < MAX_SEEN) {
		s->v[s->n].id = e->id;
		s->v[s->n].parent = e->parent;
		s->v[s->n].major = e->major;
		s->v[s->n].minor = e->minor;
		s->v[s->n].kdev = e->kdev;
		s->v[s->n].root = strdup(e->root);
		s->v[s->n].target = strdup(e->target);
		s->v[s->n].fstype = strdup(e->fstype);
		s->v[s->n].source = strdup(e->source);
		s->v[s->n].optional = strdup(e->optional);
	}
	s->n++;
	return s->stop_at && e->id == s->stop_at ? 1 : 0;
}

static int on_bytes(const char *buf, size_t n, void *userdata)
{
	struct seen *s = userdata;

	(void)buf;
	s->bytes += n;
	return s->stop_past && s->bytes > s->stop_past ? -EOVERFLOW : 0;
}

static const struct mountinfo_ops ops = { .entry = on_entry, .bytes = on_bytes };

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n && i < MAX_SEEN; i++) {
		free(s->v[i].root);
		free(s->v[i].target);
		free(s->v[i].fstype);
		free(s->v[i].source);
		free(s->v[i].optional);
	}
	*s = (struct seen){};
}

/* Reads @text through a pipe, written in pieces of @piece bytes by a child. */
static int read_text(const char *text, size_t piece, struct seen *s)
{
	int p[2], r, st;
	pid_t child;

	if (pipe(p) < 0 || (child = fork()) < 0)
		return -errno;
	if (child == 0) {
		size_t len = strlen(text);

		close(p[0]);
		for (size_t off = 0; off < len; off += piece)
			if (write(p[1], text + off, len - off < piece ? len - off : piece) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	r = mountinfo_read_fd(p[0], &ops, s);
	close(p[0]);
	waitpid(child, &st, 0);
	return r;
}

static const char text[] =
	"22 1 259:1048575 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"30 22 0:40 /sub\\040dir /mnt/a\\040b\\011c\\012d\\134e rw,nosuid shared:5 master:3 "
	"- tmpfs my\\040src rw,size=1k\n"
	"this line is no mount\n"
	"31 22 0:41 / /mnt/x\\040-\\040y rw - fuse.sshfs user@host:/ rw,user_id=0\n"
	"32 22 0:42 / /y rw - tmpfs  rw\n"
	"33 22 0:43 / /gone\\040(deleted) rw - tmpfs none rw\n"
	"34 22 0:44 / /last rw - proc proc rw"; /* no final newline */

static void check_text(struct seen *s, const char *how)
{
	TAP_EQ(s->n, 6, "%s: six mounts, the line that is none skipped", how);
	if (s->n != 6)
		return;
	TAP_OK(s->v[0].id == 22 && s->v[0].parent == 1 && s->v[0].major == 259 &&
		       s->v[0].minor == 1048575 && s->v[0].kdev == (259U << 20 | 1048575),
	       "%s: id, parent, major:minor and the kernel's s_dev", how);
	TAP_OK(!strcmp(s->v[0].optional, "shared:1") && !strcmp(s->v[0].fstype, "ext4") &&
		       !strcmp(s->v[0].source, "/dev/sda1"),
	       "%s: an optional field, type, source", how);
	TAP_OK(!strcmp(s->v[1].target, "/mnt/a b\tc\nd\\e"),
	       "%s: a mount point's escapes undone (space, tab, newline, backslash): %s", how,
	       tap_show(s->v[1].target));
	TAP_OK(!strcmp(s->v[1].root, "/sub dir") && !strcmp(s->v[1].source, "my src"),
	       "%s: the root's and the source's escapes undone", how);
	TAP_OK(!strcmp(s->v[1].optional, "shared:5 master:3"), "%s: two optional fields: %s", how,
	       s->v[1].optional);
	TAP_OK(!strcmp(s->v[2].target, "/mnt/x - y") && !strcmp(s->v[2].optional, "") &&
		       !strcmp(s->v[2].fstype, "fuse.sshfs") &&
		       !strcmp(s->v[2].source, "user@host:/"),
	       "%s: \" - \" in a name is no separator; no optional field; a subtype kept", how);
	TAP_OK(s->v[3].id == 32 && !strcmp(s->v[3].source, "") && !strcmp(s->v[3].fstype, "tmpfs"),
	       "%s: an empty source", how);
	/* A directory may be named so: its mount is looked for by that name (fs-mounts.c). */
	TAP_OK(!strcmp(s->v[4].target, "/gone (deleted)"),
	       "%s: \" (deleted)\" kept at the end of a mount point (mountinfo.h): %s", how,
	       s->v[4].target);
	TAP_OK(s->v[5].id == 34 && !strcmp(s->v[5].target, "/last"),
	       "%s: a last line without its newline", how);
}

int main(void)
{
	struct seen s = {};
	size_t long_len = 3 * 16384 + 100;
	char *long_text, *p;
	FILE *f;
	int r;

	r = read_text(text, sizeof(text), &s);
	TAP_EQ(r, 0, "one write: read to the end");
	TAP_EQ(s.bytes, strlen(text), "each byte told to the bytes callback once");
	check_text(&s, "one write");
	seen_free(&s);

	r = read_text(text, 7, &s);
	TAP_EQ(r, 0, "pieces of 7 bytes: read to the end");
	check_text(&s, "pieces of 7 bytes");
	seen_free(&s);

	/* A mount point longer than three reads, between two lines, in pieces. */
	long_text = malloc(long_len + 256);
	if (!long_text)
		return 1;
	p = long_text + sprintf(long_text, "40 1 0:50 / / rw - tmpfs a rw\n41 40 0:51 / /");
	memset(p, 'n', long_len);
	p += long_len;
	sprintf(p, " rw - tmpfs b rw\n42 40 0:52 / /z rw - tmpfs c rw\n");
	r = read_text(long_text, 1000, &s);
	TAP_OK(r == 0 && s.n == 3 && s.v[1].id == 41 && strlen(s.v[1].target) == long_len + 1 &&
		       s.v[2].id == 42 && !strcmp(s.v[2].source, "c"),
	       "a line longer than three reads, and the lines around it");
	seen_free(&s);

	s.stop_at = 30;
	r = read_text(text, sizeof(text), &s);
	TAP_OK(r == 1 && s.n == 2, "an entry callback's 1 stops the reading: %d after %zu", r, s.n);
	seen_free(&s);

	s.stop_past = 1;
	r = read_text(long_text, 1000, &s);
	TAP_OK(r == -EOVERFLOW && s.n == 0,
	       "the bytes callback's error stops the reading before its lines are parsed: "
	       "%d, %zu mounts",
	       r, s.n);
	seen_free(&s);
	free(long_text);

	/* This process's own: as many mounts as lines, "/" among them. */
	r = mountinfo_read_path("/proc/self/mountinfo", &ops, &s);
	f = fopen("/proc/self/mountinfo", "re");
	if (f) {
		size_t lines = 0;
		bool root = false;
		char *line = NULL;
		size_t size = 0;

		while (getline(&line, &size, f) > 0)
			lines++;
		free(line);
		fclose(f);
		for (size_t i = 0; i < s.n && i < MAX_SEEN; i++)
			root |= !strcmp(s.v[i].target, "/");
		TAP_OK(r == 0 && s.n == lines && (root || s.n > MAX_SEEN),
		       "/proc/self/mountinfo: %zu mounts of %zu lines", s.n, lines);
	}
	seen_free(&s);
	TAP_EQ(mountinfo_read_path("/nonexistent/mountinfo", &ops, &s), -ENOENT,
	       "a missing file: -ENOENT");
	return tap_finish();
}
