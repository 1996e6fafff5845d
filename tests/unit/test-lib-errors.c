// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/*
 * Unit test: libumbrella's one error convention (libumbrella(3), RETURN VALUE): -errno
 * returned and errno set, by every call; and the old ABI: a program linked against
 * UMBRELLA_0.1 gets -1 with errno from umb_rfork() and rfork(), as before. No umbrellad:
 * its socket is a path that does not exist, so each call fails before any fork.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <umbrella/umbrella.h>

#include "tap.h"

/* The symbols a program linked before UMBRELLA_0.3 calls. */
pid_t umb_rfork_0_1(const struct umb_restrictions *r, unsigned int flags);
pid_t rfork_0_1(const struct umb_restrictions *r);
__asm__(".symver umb_rfork_0_1, umb_rfork@UMBRELLA_0.1");
__asm__(".symver rfork_0_1, rfork@UMBRELLA_0.1");

#define CHECK_ERR(call, expected, what)                                                        \
	do {                                                                                   \
		long ret_;                                                                     \
		errno = 0;                                                                     \
		ret_ = (long)(call);                                                           \
		TAP_OK(ret_ == (expected) && errno == ((expected) == -1 ? want : -(expected)), \
		       "%s: %ld, errno %d", what, ret_, errno);                                \
	} while (0)

int main(void)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *args[] = { (char *)"true", NULL };
	int want = 0, pidfd = -1;
	uint64_t bit;

	if (!r || umb_restrictions__parse(r, "net", NULL) < 0) {
		printf("1..0 # SKIP out of memory\n");
		return 77;
	}
	setenv("UMBRELLA_SOCKET", "/nonexistent/umbrellad.sock", 1);

	CHECK_ERR(umb_restrictions__parse(r, "nope", NULL), -EINVAL,
		  "umb_restrictions__parse() of an unknown item");
	CHECK_ERR(umb_restrictions__add_fs(r, "etc", UMB_FS_READ), -EINVAL,
		  "umb_restrictions__add_fs() of a relative path");
	CHECK_ERR(umb_restrictions__add_cap(r, 1ULL << 62), -EINVAL,
		  "umb_restrictions__add_cap() of an unknown bit");
	CHECK_ERR(umb_restrictions__add_net_family(r, 0), -EINVAL,
		  "umb_restrictions__add_net_family(0)");
	CHECK_ERR(umb_restrictions__add_linux_cap(r, 999), -EINVAL,
		  "umb_restrictions__add_linux_cap(999)");
	CHECK_ERR(umb_restrictions__format(r, NULL), -EINVAL,
		  "umb_restrictions__format() without a place for the text");
	CHECK_ERR(umb_cap_restriction_from_name("nope", &bit), -EINVAL,
		  "umb_cap_restriction_from_name() of an unknown name");
	CHECK_ERR(umb_restrict_self(r), -ENOENT, "umb_restrict_self() without umbrellad");
	CHECK_ERR(umb_restrict_self_on_exec(r), -ENOENT,
		  "umb_restrict_self_on_exec() without umbrellad");
	CHECK_ERR(umb_rfork(r, 1U << 30), -EINVAL, "umb_rfork() with an unknown flag");
	CHECK_ERR(umb_rfork(r, 0), -ENOENT, "umb_rfork() without umbrellad");
	CHECK_ERR(rfork(r), -ENOENT, "rfork() without umbrellad");
	CHECK_ERR(umb_spawn(&pidfd, NULL, "/bin/true", args, NULL, r, 0), -ENOENT,
		  "umb_spawn() without umbrellad");
	CHECK_ERR(umb_spawn(&pidfd, NULL, "/bin/true", args, NULL, r, UMB_RFORK_ON_EXEC), -EINVAL,
		  "umb_spawn() with a flag it does not take");
	CHECK_ERR(umb_spawn(NULL, NULL, "/bin/true", args, NULL, r, 0), -EINVAL,
		  "umb_spawn() without a place for the pidfd");
	TAP_OK(pidfd == -1 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	       "umb_spawn() that failed left no pidfd and no child");

	/* UMBRELLA_0.1: fork(2)'s convention, kept for programs linked then. */
	want = EINVAL;
	CHECK_ERR(umb_rfork_0_1(r, 1U << 30), -1, "umb_rfork@UMBRELLA_0.1 with an unknown flag");
	want = ENOENT;
	CHECK_ERR(umb_rfork_0_1(r, 0), -1, "umb_rfork@UMBRELLA_0.1 without umbrellad");
	CHECK_ERR(rfork_0_1(r), -1, "rfork@UMBRELLA_0.1 without umbrellad");
	TAP_OK(umb_last_error() && strstr(umb_last_error(), "/nonexistent/umbrellad.sock"),
	       "umb_last_error() names the socket: %s", tap_show(umb_last_error()));

	umb_restrictions__free(r);
	return tap_finish();
}
