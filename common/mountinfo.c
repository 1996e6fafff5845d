// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* Umbrella - reading /proc/PID/mountinfo through libmount (mountinfo.h). */
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <umbrella/kdev.h>

#include "mountinfo.h"

/* What one read(2) asks for: procfs hands out whole lines of a mountinfo per read. */
#define READ_SIZE 16384

/*
 * The descriptor read in chunks of whole lines: buf[off, end) is the part of the chunk
 * libmount has not had yet, buf[end, len) the start of the next chunk's first line.
 */
struct reader {
	int fd;
	const struct mountinfo_ops *ops;
	void *userdata;
	char *buf;
	size_t size, len, off, end;
	bool eof; /* the file's end was read */
};

/* The next chunk: what is left of the last one's line and at least one read more, up
 * to the last whole line (or the end of the file). 0 or -errno (a callback's too). */
static int reader_fill(struct reader *rd)
{
	memmove(rd->buf, rd->buf + rd->end, rd->len - rd->end);
	rd->len -= rd->end;
	rd->off = rd->end = 0;
	for (;;) {
		const char *nl;
		ssize_t n;
		int r;

		if (rd->eof) {
			rd->end = rd->len;
			return 0;
		}
		if (rd->size - rd->len < READ_SIZE) {
			size_t size = rd->len + 2 * READ_SIZE;
			char *grown = realloc(rd->buf, size);

			if (!grown)
				return -ENOMEM;
			rd->buf = grown;
			rd->size = size;
		}
		do
			n = read(rd->fd, rd->buf + rd->len, rd->size - rd->len);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if (n == 0) {
			rd->eof = true;
			continue;
		}
		if (rd->ops->bytes) {
			r = rd->ops->bytes(rd->buf + rd->len, (size_t)n, rd->userdata);
			if (r != 0)
				return r;
		}
		nl = memrchr(rd->buf + rd->len, '\n', (size_t)n);
		rd->len += (size_t)n;
		if (nl) {
			rd->end = (size_t)(nl - rd->buf) + 1;
			return 0;
		}
	}
}

/* The stream's read: the chunk, then an end of file, which ends libmount's parse. */
static ssize_t reader_read(void *cookie, char *buf, size_t size)
{
	struct reader *rd = cookie;
	size_t n = rd->end - rd->off < size ? rd->end - rd->off : size;

	memcpy(buf, rd->buf + rd->off, n);
	rd->off += n;
	return (ssize_t)n;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* Hands each mount of @tb to @rd's callback: 0, or what the callback stopped with. */
static int reader_hand(struct reader *rd, struct libmnt_table *tb, struct libmnt_iter *itr)
{
	struct libmnt_fs *fs;
	int r = 0;

	mnt_reset_iter(itr, MNT_ITER_FORWARD);
	while (r == 0 && mnt_table_next_fs(tb, itr, &fs) == 0) {
		dev_t dev = mnt_fs_get_devno(fs);

		/* Lines of mountinfo's format only (libmount guesses it from the first). */
		if (!mnt_fs_is_kernel(fs))
			continue;
		r = rd->ops->entry(
			&(struct mountinfo_entry){
				.id = mnt_fs_get_id(fs),
				.parent = mnt_fs_get_parent_id(fs),
				.major = major(dev),
				.minor = minor(dev),
				.kdev = umb_kdev(dev),
				.root = or_empty(mnt_fs_get_root(fs)),
				.target = or_empty(mnt_fs_get_target(fs)),
				.fstype = or_empty(mnt_fs_get_fstype(fs)),
				.source = or_empty(mnt_fs_get_source(fs)),
				.optional = or_empty(mnt_fs_get_optional_fields(fs)),
			},
			rd->userdata);
	}
	return r;
}

int mountinfo_read_fd(int fd, const struct mountinfo_ops *ops, void *userdata)
{
	struct reader rd = { .fd = fd, .ops = ops, .userdata = userdata };
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_cache *cache = mnt_new_cache();
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	FILE *f = NULL;
	int r = -ENOMEM;

	if (!tb || !cache || !itr)
		goto out;
	/* The system root's guess for a "/dev/root" source, once per read (mountinfo.h). */
	mnt_table_set_cache(tb, cache);
	/* Not fdopen(): libmount would see a procfs descriptor and read all of it first. */
	f = fopencookie(&rd, "r", (cookie_io_functions_t){ .read = reader_read });
	if (!f) {
		r = -errno;
		goto out;
	}
	for (;;) {
		r = reader_fill(&rd);
		if (r != 0 || rd.end == 0)
			break;
		clearerr(f);
		/* The name is for libmount's messages, and resolved for a pid it keeps: "/"
		 * costs no look-up. */
		r = mnt_table_parse_stream(tb, f, "/");
		if (r == 0)
			r = reader_hand(&rd, tb, itr);
		mnt_reset_table(tb);
		if (r != 0)
			break;
	}
out:
	if (f)
		fclose(f);
	mnt_free_iter(itr);
	mnt_unref_cache(cache);
	mnt_unref_table(tb);
	free(rd.buf);
	return r;
}

int mountinfo_read_path(const char *path, const struct mountinfo_ops *ops, void *userdata)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = mountinfo_read_fd(fd, ops, userdata);
	close(fd);
	return r;
}
