// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* signing (internal) - replacing a file, keeping what it carried (file-replace.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "file-replace.h"
#include "signing-error.h"

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Refuses a file whose attributes no changed copy can keep: security.evm. EVM's value
 * is an HMAC keyed to the inode (its number and generation) or a signature over the
 * file's security attributes, security.ima among them, whose hash of the contents
 * signing changes: copied, it would not verify (the kernel refuses to set an HMAC one),
 * and dropped, the file would lose its protection unnoticed. Its owner removes it, signs,
 * and has IMA and EVM's attributes made anew for the signed file.
 */
static int check_xattrs_keepable(int fd, const char *path, char **ret_error)
{
	if (fgetxattr(fd, "security.evm", NULL, 0) >= 0)
		return signing_error(ret_error, -ENOTSUP,
				     "it carries the extended attribute security.evm, which "
				     "signing would invalidate (EVM covers the inode and the "
				     "IMA hash of the contents); remove it, sign, and make "
				     "the IMA/EVM attributes anew");
	if (errno == ENODATA || errno == ENOTSUP || errno == EOPNOTSUPP)
		return 0;
	return signing_error(ret_error, -errno, "reading the extended attributes of %s: %s", path,
			     strerror(errno));
}

/*
 * Gives @to every extended attribute of @from: file capabilities (security.capability),
 * ACLs, SELinux labels, IMA's, user attributes (not security.evm:
 * check_xattrs_keepable()). The file that replaces a binary
 * must keep what it carried: a ping signed without its cap_net_raw would fail, and one
 * losing a label would run under another domain. Any that cannot be set is an error
 * (naming it): the caller then leaves the file as it was.
 */
static int copy_xattrs(int from, int to, char **ret_error)
{
	char *names = NULL, *value = NULL;
	ssize_t size, vsize;
	int r = 0;

	size = flistxattr(from, NULL, 0);
	if (size < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		return 0; /* a file system without them: nothing to keep */
	if (size <= 0)
		goto io_error;
	names = malloc((size_t)size);
	if (!names)
		return -ENOMEM;
	size = flistxattr(from, names, (size_t)size);
	if (size < 0)
		goto io_error;
	for (char *name = names; name < names + size; name += strlen(name) + 1) {
		vsize = fgetxattr(from, name, NULL, 0);
		if (vsize >= 0) {
			free(value);
			value = malloc(vsize ? (size_t)vsize : 1);
			if (!value) {
				r = -ENOMEM;
				goto out;
			}
			vsize = fgetxattr(from, name, value, (size_t)vsize);
		}
		if (vsize < 0 || fsetxattr(to, name, value, (size_t)vsize, 0) < 0) {
			r = -errno;
			set_error(ret_error,
				  "cannot keep its extended attribute %s: %s (the file is left "
				  "unsigned)",
				  name, strerror(errno));
			goto out;
		}
	}
	goto out;
io_error:
	if (size == 0)
		goto out;
	r = -errno;
	set_error(ret_error, "reading its extended attributes: %s", strerror(errno));
out:
	free(names);
	free(value);
	return r;
}

int file_replace(const char *path, int src_fd, const struct stat *st, const uint8_t *p, size_t len,
		 char **ret_error)
{
	char *tmp = NULL;
	int fd, r;

	r = check_xattrs_keepable(src_fd, path, ret_error);
	if (r < 0)
		return r;
	if (asprintf(&tmp, "%s.umbrella-XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		set_error(ret_error, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return r;
	}
	r = write_all(fd, p, len);
	if (r == 0 && fchown(fd, st->st_uid, st->st_gid) < 0 && errno != EPERM)
		r = -errno;
	/* After fchown, which may clear set-id bits. */
	if (r == 0 && fchmod(fd, st->st_mode & 07777) < 0)
		r = -errno;
	/* Last: writing and chown clear security.capability. */
	if (r == 0) {
		r = copy_xattrs(src_fd, fd, ret_error);
		if (r < 0) {
			close(fd);
			(void)unlink(tmp);
			free(tmp);
			return r;
		}
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		set_error(ret_error, "%s: %s", path, strerror(-r));
		(void)unlink(tmp);
	}
	free(tmp);
	return r;
}
