// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: the parser and formatter of the restriction grammar, good and malformed input */
#include <stdlib.h>
#include <sys/socket.h>
#include <linux/capability.h>

#include <umbrella/umbrella.h>

#include "cap-names.h"
#include "tap.h"

/* Expected items: a list ends with kind 0. */
#define FS(p, a) { .kind = UMB_ITEM_FS, .fs_access = (a), .path = (p) }
#define CAP(b)	 { .kind = UMB_ITEM_CAP, .value = (b) }
#define NET(f)	 { .kind = UMB_ITEM_NET_FAMILY, .value = (f) }
#define LCAP(c)	 { .kind = UMB_ITEM_LINUX_CAP, .value = (c) }
#define END	 { .kind = 0 }

static bool item_eq(const struct umb_item *a, const struct umb_item *b)
{
	if (!a || !b || a->kind != b->kind || a->fs_access != b->fs_access || a->value != b->value)
		return false;
	if (!a->path || !b->path)
		return !a->path && !b->path;
	return strcmp(a->path, b->path) == 0;
}

static size_t expected_count(const struct umb_item *want)
{
	size_t n = 0;

	while (want[n].kind)
		n++;
	return n;
}

/* @r holds exactly the items of @want, in order. */
static bool set_is(const struct umb_restrictions *r, const struct umb_item *want)
{
	size_t n = expected_count(want);

	if (umb_restrictions__count(r) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!item_eq(umb_restrictions__item(r, i), &want[i]))
			return false;
	}
	return true;
}

/* Two sets with the same items in the same order. */
static bool sets_equal(const struct umb_restrictions *a, const struct umb_restrictions *b)
{
	if (umb_restrictions__count(a) != umb_restrictions__count(b))
		return false;
	for (size_t i = 0; i < umb_restrictions__count(a); i++) {
		if (!item_eq(umb_restrictions__item(a, i), umb_restrictions__item(b, i)))
			return false;
	}
	return true;
}

/* Formats @r, checks the text against @want_text (unless NULL), and that it parses back
 * to the same items. */
static void check_format(const struct umb_restrictions *r, const char *want_text, const char *what)
{
	struct umb_restrictions *back = umb_restrictions__new();
	char *text = NULL, *error = NULL;
	int ret;

	ret = umb_restrictions__format(r, &text);
	TAP_EQ(ret, 0, "%s: formats", tap_show(what));
	if (ret < 0 || !text) {
		umb_restrictions__free(back);
		return;
	}
	if (want_text && !TAP_OK(strcmp(text, want_text) == 0, "%s: formats as '%s'",
				 tap_show(what), tap_show(want_text)))
		TAP_DIAG("got '%s'", tap_show(text));
	ret = umb_restrictions__parse(back, text, &error);
	TAP_OK(ret == 0 && sets_equal(r, back), "%s: '%s' parses back to the same items",
	       tap_show(what), tap_show(text));
	if (error)
		TAP_DIAG("error: %s", tap_show(error));
	free(error);
	free(text);
	umb_restrictions__free(back);
}

/* @list parses to @want; the canonical text is @canonical (NULL: @list itself). */
static void parse_ok(const char *list, const struct umb_item *want, const char *canonical)
{
	struct umb_restrictions *r = umb_restrictions__new();
	static char untouched[] = "untouched";
	char *error = untouched;
	int ret;

	ret = umb_restrictions__parse(r, list, &error);
	if (!TAP_EQ(ret, 0, "'%s' parses", tap_show(list)))
		TAP_DIAG("error: %s", error ? tap_show(error) : "(none)");
	TAP_OK(error == NULL, "'%s': no error message on success", tap_show(list));
	if (error != untouched)
		free(error);
	if (!TAP_OK(set_is(r, want), "'%s' gives the expected %zu item(s)", tap_show(list),
		    expected_count(want))) {
		for (size_t i = 0; i < umb_restrictions__count(r); i++) {
			const struct umb_item *it = umb_restrictions__item(r, i);

			TAP_DIAG("item %zu: kind %u access %u value %llu path '%s'", i, it->kind,
				 it->fs_access, (unsigned long long)it->value,
				 it->path ? tap_show(it->path) : "(null)");
		}
	}
	check_format(r, canonical ? canonical : list, list);
	umb_restrictions__free(r);
}

/* @list is refused with -EINVAL and exactly the message @want_error; the set keeps the
 * items it had before. */
static void parse_bad(const char *list, const char *want_error)
{
	static const struct umb_item before[] = { CAP(UMB_CR_EXEC), FS("/tmp", UMB_FS_WRITE), END };
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;
	int ret;

	(void)umb_restrictions__parse(r, "exec,fs:/tmp:w", NULL);
	ret = umb_restrictions__parse(r, list, &error);
	TAP_EQ(ret, -EINVAL, "'%s' is refused with -EINVAL", tap_show(list));
	TAP_OK(set_is(r, before), "'%s' adds nothing to the set", tap_show(list));
	if (!TAP_OK(error && strcmp(error, want_error) == 0, "'%s': error '%s'", tap_show(list),
		    tap_show(want_error)))
		TAP_DIAG("got '%s'", error ? tap_show(error) : "(null)");
	free(error);

	/* Without a place for the message, the same refusal. */
	TAP_EQ(umb_restrictions__parse(r, list, NULL), -EINVAL,
	       "'%s' is refused without ret_error too", tap_show(list));
	TAP_OK(set_is(r, before), "'%s' still adds nothing", tap_show(list));
	umb_restrictions__free(r);
}

static void test_cap_restrictions(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(expected_cap_names); i++)
		parse_ok(expected_cap_names[i].name,
			 (struct umb_item[]){ CAP(expected_cap_names[i].bit), END }, NULL);
}

static void test_net_families(void)
{
	static const struct {
		const char *name;
		int family;
	} families[] = {
		{ "unix", AF_UNIX },
		{ "inet4", AF_INET },
		{ "inet6", AF_INET6 },
		{ "netlink", AF_NETLINK },
		{ "packet", AF_PACKET },
		{ "bluetooth", AF_BLUETOOTH },
		{ "vsock", AF_VSOCK },
		{ "can", AF_CAN },
		{ "x25", AF_X25 },
		{ "ax25", AF_AX25 },
		{ "appletalk", AF_APPLETALK },
		{ "ipx", AF_IPX },
		{ "key", AF_KEY },
		{ "rds", AF_RDS },
		{ "tipc", AF_TIPC },
		{ "alg", AF_ALG },
		{ "xdp", AF_XDP },
		{ "mctp", AF_MCTP },
		{ "qipcrtr", AF_QIPCRTR },
		{ "smc", AF_SMC },
		{ "netrom", AF_NETROM },
		{ "bridge", AF_BRIDGE },
		{ "atmpvc", AF_ATMPVC },
		{ "rose", AF_ROSE },
		{ "decnet", AF_DECnet },
		{ "netbeui", AF_NETBEUI },
		{ "security", AF_SECURITY },
		{ "ash", AF_ASH },
		{ "econet", AF_ECONET },
		{ "atmsvc", AF_ATMSVC },
		{ "sna", AF_SNA },
		{ "irda", AF_IRDA },
		{ "pppox", AF_PPPOX },
		{ "wanpipe", AF_WANPIPE },
		{ "llc", AF_LLC },
		{ "ib", AF_IB },
		{ "mpls", AF_MPLS },
		{ "iucv", AF_IUCV },
		{ "rxrpc", AF_RXRPC },
		{ "isdn", AF_ISDN },
		{ "phonet", AF_PHONET },
		{ "ieee802154", AF_IEEE802154 },
		{ "caif", AF_CAIF },
		{ "nfc", AF_NFC },
		{ "kcm", AF_KCM },
	};
	char list[64];
	int named = 0;

	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		const char *name = umb_net_family_name(families[i].family);

		TAP_OK(name && strcmp(name, families[i].name) == 0, "family %d is named '%s'",
		       families[i].family, families[i].name);
		(void)snprintf(list, sizeof(list), "net:%s", families[i].name);
		parse_ok(list, (struct umb_item[]){ NET(families[i].family), END }, NULL);
	}

	/* Every family from 1 to 63 that has a name reads back from it. */
	for (int f = 0; f <= 64; f++) {
		const char *name = umb_net_family_name(f);
		struct umb_restrictions *r;

		if (!name)
			continue;
		named++;
		r = umb_restrictions__new();
		(void)snprintf(list, sizeof(list), "net:%s", name);
		TAP_OK(umb_restrictions__parse(r, list, NULL) == 0 &&
			       set_is(r, (struct umb_item[]){ NET(f), END }),
		       "'%s' is family %d", list, f);
		umb_restrictions__free(r);
	}
	TAP_EQ(named, 45, "every family from AF_UNIX to AF_MCTP has a name");
	TAP_OK(umb_net_family_name(AF_UNSPEC) == NULL, "no name for AF_UNSPEC");
	TAP_OK(umb_net_family_name(-1) == NULL, "no name for family -1");
	TAP_OK(umb_net_family_name(46) == NULL, "no name for family 46");
	TAP_OK(umb_net_family_name(64) == NULL, "no name for family 64");
	TAP_OK(umb_net_family_name(1 << 20) == NULL, "no name for family 1 << 20");

	/* inet is two items, one per IP version. */
	parse_ok("net:inet", (struct umb_item[]){ NET(AF_INET), NET(AF_INET6), END },
		 "net:inet4,net:inet6");
	parse_ok("net:inet,net:unix",
		 (struct umb_item[]){ NET(AF_INET), NET(AF_INET6), NET(AF_UNIX), END },
		 "net:inet4,net:inet6,net:unix");

	/* Numbers: for families without a name; a named one formats by its name. */
	parse_ok("net:2", (struct umb_item[]){ NET(AF_INET), END }, "net:inet4");
	parse_ok("net:1", (struct umb_item[]){ NET(AF_UNIX), END }, "net:unix");
	parse_ok("net:50", (struct umb_item[]){ NET(50), END }, NULL);
	parse_ok("net:63", (struct umb_item[]){ NET(63), END }, NULL);
	parse_ok("net:46", (struct umb_item[]){ NET(46), END }, NULL);
}

static void test_linux_caps(void)
{
	static const struct {
		const char *name;
		int cap;
	} caps[] = {
		{ "chown", CAP_CHOWN },
		{ "dac_override", CAP_DAC_OVERRIDE },
		{ "dac_read_search", CAP_DAC_READ_SEARCH },
		{ "fowner", CAP_FOWNER },
		{ "fsetid", CAP_FSETID },
		{ "kill", CAP_KILL },
		{ "setgid", CAP_SETGID },
		{ "setuid", CAP_SETUID },
		{ "setpcap", CAP_SETPCAP },
		{ "linux_immutable", CAP_LINUX_IMMUTABLE },
		{ "net_bind_service", CAP_NET_BIND_SERVICE },
		{ "net_broadcast", CAP_NET_BROADCAST },
		{ "net_admin", CAP_NET_ADMIN },
		{ "net_raw", CAP_NET_RAW },
		{ "ipc_lock", CAP_IPC_LOCK },
		{ "ipc_owner", CAP_IPC_OWNER },
		{ "sys_module", CAP_SYS_MODULE },
		{ "sys_rawio", CAP_SYS_RAWIO },
		{ "sys_chroot", CAP_SYS_CHROOT },
		{ "sys_ptrace", CAP_SYS_PTRACE },
		{ "sys_pacct", CAP_SYS_PACCT },
		{ "sys_admin", CAP_SYS_ADMIN },
		{ "sys_boot", CAP_SYS_BOOT },
		{ "sys_nice", CAP_SYS_NICE },
		{ "sys_resource", CAP_SYS_RESOURCE },
		{ "sys_time", CAP_SYS_TIME },
		{ "sys_tty_config", CAP_SYS_TTY_CONFIG },
		{ "mknod", CAP_MKNOD },
		{ "lease", CAP_LEASE },
		{ "audit_write", CAP_AUDIT_WRITE },
		{ "audit_control", CAP_AUDIT_CONTROL },
		{ "setfcap", CAP_SETFCAP },
		{ "mac_override", CAP_MAC_OVERRIDE },
		{ "mac_admin", CAP_MAC_ADMIN },
		{ "syslog", CAP_SYSLOG },
		{ "wake_alarm", CAP_WAKE_ALARM },
		{ "block_suspend", CAP_BLOCK_SUSPEND },
		{ "audit_read", CAP_AUDIT_READ },
		{ "perfmon", CAP_PERFMON },
		{ "bpf", CAP_BPF },
		{ "checkpoint_restore", CAP_CHECKPOINT_RESTORE },
	};
	char list[64];

	TAP_EQ(ARRAY_SIZE(caps), 41, "the test knows capabilities 0 to 40");
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
		const char *name = umb_linux_cap_name(caps[i].cap);

		TAP_EQ(caps[i].cap, (int)i, "capability '%s' is number %zu", caps[i].name, i);
		TAP_OK(name && strcmp(name, caps[i].name) == 0, "capability %d is named '%s'",
		       caps[i].cap, caps[i].name);
		(void)snprintf(list, sizeof(list), "cap:%s", caps[i].name);
		parse_ok(list, (struct umb_item[]){ LCAP(caps[i].cap), END }, NULL);
	}
	TAP_OK(umb_linux_cap_name(-1) == NULL, "no name for capability -1");
	TAP_OK(umb_linux_cap_name(41) == NULL, "no name for capability 41");
	TAP_OK(umb_linux_cap_name(63) == NULL, "no name for capability 63");
}

static void test_fs(void)
{
	/* Every combination of the letters r, w, x, each at most once, in every order. */
	static const char *const letters = "rwx";
	static const uint32_t bits[] = { UMB_FS_READ, UMB_FS_WRITE, UMB_FS_EXEC };

	for (int a = 0; a < 3; a++) {
		for (int b = -1; b < 3; b++) {
			for (int c = -1; c < 3; c++) {
				char list[32], canonical[32];
				uint32_t access = bits[a];
				int n;

				if (b < 0 && c >= 0)
					continue;
				if (b == a || (c >= 0 && (c == a || c == b)))
					continue;
				if (b >= 0)
					access |= bits[b];
				if (c >= 0)
					access |= bits[c];
				n = snprintf(list, sizeof(list), "fs:/a/b:%c", letters[a]);
				if (b >= 0)
					list[n++] = letters[b];
				if (c >= 0)
					list[n++] = letters[c];
				list[n] = '\0';
				n = snprintf(canonical, sizeof(canonical), "fs:/a/b");
				if (access != UMB_FS_ALL) {
					canonical[n++] = ':';
					for (int l = 0; l < 3; l++) {
						if (access & bits[l])
							canonical[n++] = letters[l];
					}
				}
				canonical[n] = '\0';
				parse_ok(list, (struct umb_item[]){ FS("/a/b", access), END },
					 canonical);
			}
		}
	}

	parse_ok("fs:/etc", (struct umb_item[]){ FS("/etc", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/", (struct umb_item[]){ FS("/", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/:r", (struct umb_item[]){ FS("/", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/:w", (struct umb_item[]){ FS("/", UMB_FS_WRITE), END }, NULL);
	parse_ok("fs:/:x", (struct umb_item[]){ FS("/", UMB_FS_EXEC), END }, NULL);
	parse_ok("fs:/etc/passwd:rw", (struct umb_item[]){ FS("/etc/passwd", 3), END }, NULL);
	parse_ok("fs:/a/:x", (struct umb_item[]){ FS("/a/", UMB_FS_EXEC), END }, NULL);

	/* Paths are taken as written. */
	parse_ok("fs://a/../b/.", (struct umb_item[]){ FS("//a/../b/.", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/my dir/a file", (struct umb_item[]){ FS("/my dir/a file", UMB_FS_ALL), END },
		 NULL);
	parse_ok("fs:/ä/ö:r", (struct umb_item[]){ FS("/ä/ö", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/a=b;c", (struct umb_item[]){ FS("/a=b;c", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/RWX", (struct umb_item[]){ FS("/RWX", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/rwx:rwx", (struct umb_item[]){ FS("/rwx", UMB_FS_ALL), END }, "fs:/rwx");
}

static void test_escapes(void)
{
	parse_ok("fs:/a\\,b", (struct umb_item[]){ FS("/a,b", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/a\\\\b", (struct umb_item[]){ FS("/a\\b", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/a\\:b", (struct umb_item[]){ FS("/a:b", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/a\\:b:r", (struct umb_item[]){ FS("/a:b", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/a\\,b\\:c\\\\d:wx",
		 (struct umb_item[]){ FS("/a,b:c\\d", UMB_FS_WRITE | UMB_FS_EXEC), END }, NULL);
	parse_ok("fs:/\\,", (struct umb_item[]){ FS("/,", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/\\:", (struct umb_item[]){ FS("/:", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/\\\\", (struct umb_item[]){ FS("/\\", UMB_FS_ALL), END }, NULL);

	/* An escaped colon never starts MODES. */
	parse_ok("fs:/a\\:rw", (struct umb_item[]){ FS("/a:rw", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/a\\:", (struct umb_item[]){ FS("/a:", UMB_FS_ALL), END }, NULL);

	/* An unescaped colon always starts MODES: a colon in a path is written "\:". */
	parse_ok("fs:/a\\:q", (struct umb_item[]){ FS("/a:q", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/etc\\:R", (struct umb_item[]){ FS("/etc:R", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/a\\:b/c:r", (struct umb_item[]){ FS("/a:b/c", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/a\\:r\\:w:x", (struct umb_item[]){ FS("/a:r:w", UMB_FS_EXEC), END }, NULL);

	/* An escaped backslash does not escape what follows it. */
	parse_ok("fs:/a\\\\,fork",
		 (struct umb_item[]){ FS("/a\\", UMB_FS_ALL), CAP(UMB_CR_FORK), END }, NULL);
	parse_ok("fs:/a\\\\:r", (struct umb_item[]){ FS("/a\\", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/a\\,b,fork",
		 (struct umb_item[]){ FS("/a,b", UMB_FS_ALL), CAP(UMB_CR_FORK), END }, NULL);

	/* White space: allowed inside, escaped at the end of a path. */
	parse_ok("fs:/dir\\ ", (struct umb_item[]){ FS("/dir ", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/dir\\ :r", (struct umb_item[]){ FS("/dir ", UMB_FS_READ), END }, NULL);
	parse_ok("fs:/a\\ b", (struct umb_item[]){ FS("/a b", UMB_FS_ALL), END }, "fs:/a b");
	parse_ok("fs:/tab\\\t", (struct umb_item[]){ FS("/tab\t", UMB_FS_ALL), END }, NULL);
	parse_ok("fs:/nl\\\n:w", (struct umb_item[]){ FS("/nl\n", UMB_FS_WRITE), END }, NULL);
	parse_ok("fs:/a  \\ ", (struct umb_item[]){ FS("/a   ", UMB_FS_ALL), END }, NULL);
}

static void test_lists(void)
{
	parse_ok("fs:/etc,net:inet,fork",
		 (struct umb_item[]){ FS("/etc", UMB_FS_ALL), NET(AF_INET), NET(AF_INET6),
				      CAP(UMB_CR_FORK), END },
		 "fs:/etc,net:inet4,net:inet6,fork");
	parse_ok("net,net:unix,cap:net_raw,exec-unsigned,fs:/home:w,signal,ptrace,mount,module,"
		 "setid,exec,cap:sys_admin",
		 (struct umb_item[]){ CAP(UMB_CR_NET), NET(AF_UNIX), LCAP(CAP_NET_RAW),
				      CAP(UMB_CR_EXEC_UNSIGNED), FS("/home", UMB_FS_WRITE),
				      CAP(UMB_CR_SIGNAL), CAP(UMB_CR_PTRACE), CAP(UMB_CR_MOUNT),
				      CAP(UMB_CR_MODULE), CAP(UMB_CR_SETID), CAP(UMB_CR_EXEC),
				      LCAP(CAP_SYS_ADMIN), END },
		 NULL);
	/* The three meanings of "net": every family but unix, unix, every family. */
	parse_ok("net,net:unix,net:all",
		 (struct umb_item[]){ CAP(UMB_CR_NET), NET(AF_UNIX), CAP(UMB_CR_NET_ALL), END },
		 NULL);
	parse_ok("net:all,fork", (struct umb_item[]){ CAP(UMB_CR_NET_ALL), CAP(UMB_CR_FORK), END },
		 NULL);
	/* Duplicates are kept: the daemon merges them. */
	parse_ok("fork,fork", (struct umb_item[]){ CAP(UMB_CR_FORK), CAP(UMB_CR_FORK), END }, NULL);
	parse_ok("fs:/a,fs:/a:r",
		 (struct umb_item[]){ FS("/a", UMB_FS_ALL), FS("/a", UMB_FS_READ), END }, NULL);
}

/* parse() appends after what the set already holds, and keeps going over calls. */
static void test_append(void)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL;

	TAP_EQ(umb_restrictions__add_cap(r, UMB_CR_EXEC), 0, "builder adds exec");
	TAP_EQ(umb_restrictions__parse(r, "fork,fs:/a:r", &error), 0, "parse after add_cap");
	TAP_EQ(umb_restrictions__parse(r, "cap:bpf", &error), 0, "a second parse");
	TAP_OK(set_is(r, (struct umb_item[]){ CAP(UMB_CR_EXEC), CAP(UMB_CR_FORK),
					      FS("/a", UMB_FS_READ), LCAP(CAP_BPF), END }),
	       "items in order over several calls");
	TAP_EQ(umb_restrictions__parse(r, "fork,cap:nope", &error), -EINVAL, "a bad list");
	TAP_EQ(umb_restrictions__count(r), 4, "a bad list after good ones adds nothing");
	free(error);
	check_format(r, "exec,fork,fs:/a:r,cap:bpf", "a set built in steps");
	umb_restrictions__free(r);
}

/* The longer error messages, after the item. */
#define COLON_IN_PATH	"write a ':' in a path as \"\\:\""
#define NO_MODES	": no access modes after the ':' (" COLON_IN_PATH ")"
#define NOT_MODES	": access modes are the letters r, w and x only (" COLON_IN_PATH ")"
#define TWO_COLONS	": more than one unescaped ':' (" COLON_IN_PATH ")"
#define ENDS_WITH_SPACE ": path ends with white space (write it as \"\\ \" if it is meant)"

static void test_malformed(void)
{
	/* Lists and items. */
	parse_bad("", "empty list of restrictions");
	parse_bad(",", "empty item at the start of the list");
	parse_bad(",fork", "empty item at the start of the list");
	parse_bad(",,", "empty item at the start of the list");
	parse_bad("fork,,exec", "empty item after \"fork\"");
	parse_bad("fork,", "empty item after \"fork\" (the list ends with a comma)");
	parse_bad("fork,exec,", "empty item after \"exec\" (the list ends with a comma)");
	parse_bad("fs:/a\\,b,", "empty item after \"fs:/a\\,b\" (the list ends with a comma)");
	parse_bad("a,,b", "a: unknown restriction");

	/* Unknown items and names. */
	parse_bad("bogus", "bogus: unknown restriction");
	parse_bad("fork,bogus,exec", "bogus: unknown restriction");
	parse_bad("Fork", "Fork: unknown restriction");
	parse_bad("FS:/etc", "FS:/etc: unknown restriction");
	parse_bad("exec_unsigned", "exec_unsigned: unknown restriction");
	parse_bad("exec unsigned", "\"exec unsigned\": unknown restriction");
	parse_bad("files:/etc", "files:/etc: unknown restriction");
	parse_bad("fork:x", "fork:x: unknown restriction");
	parse_bad("fork\\,exec", "fork\\,exec: unknown restriction");
	parse_bad("fs", "fs: no path (fs:PATH or fs:PATH:MODES)");
	parse_bad("cap", "cap: no capability name (cap:NAME)");
	parse_bad("net:bogus", "net:bogus: unknown address family");
	parse_bad("net:INET", "net:INET: unknown address family");
	parse_bad("net:ALL", "net:ALL: unknown address family");
	parse_bad("net:all:", "net:all:: unknown address family");
	parse_bad("net:all ", "\"net:all \": white space after the item");
	parse_bad("net:alll", "net:alll: unknown address family");
	parse_bad("all", "all: unknown restriction");
	parse_bad("net:inet46", "net:inet46: unknown address family");
	parse_bad("net: inet", "\"net: inet\": unknown address family");
	parse_bad("net:", "net:: no address family after \"net:\"");
	parse_bad("net:0", "net:0: address family number not between 1 and 63");
	parse_bad("net:64", "net:64: address family number not between 1 and 63");
	parse_bad("net:02", "net:02: address family number not between 1 and 63");
	parse_bad("net:100", "net:100: address family number not between 1 and 63");
	parse_bad("net:99999999999999999999",
		  "net:99999999999999999999: address family number not between 1 and 63");
	parse_bad("net:-1", "net:-1: unknown address family");
	parse_bad("net:+2", "net:+2: unknown address family");
	parse_bad("net:0x2", "net:0x2: unknown address family");
	parse_bad("cap:", "cap:: no capability name after \"cap:\"");
	parse_bad("cap:bogus", "cap:bogus: unknown Linux capability");
	parse_bad("cap:NET_RAW", "cap:NET_RAW: unknown Linux capability");
	parse_bad("cap:cap_net_raw", "cap:cap_net_raw: unknown Linux capability");
	parse_bad("cap:CAP_NET_RAW", "cap:CAP_NET_RAW: unknown Linux capability");
	parse_bad("cap:13", "cap:13: unknown Linux capability");
	parse_bad("cap:net-raw", "cap:net-raw: unknown Linux capability");

	/* Paths. */
	parse_bad("fs:etc", "fs:etc: not an absolute path");
	parse_bad("fs:etc:r", "fs:etc:r: not an absolute path");
	parse_bad("fs:./etc", "fs:./etc: not an absolute path");
	parse_bad("fs:~/x", "fs:~/x: not an absolute path");
	parse_bad("fs: /etc", "\"fs: /etc\": not an absolute path");
	parse_bad("fs:\\,/etc", "fs:\\,/etc: not an absolute path");
	parse_bad("fork,fs:etc,exec", "fs:etc: not an absolute path");
	parse_bad("fs:", "fs:: empty path");
	parse_bad("fs::r", "fs::r: empty path");
	parse_bad("fs::rwx", "fs::rwx: empty path");
	parse_bad("fs:/a:", "fs:/a:" NO_MODES);
	parse_bad("fs::", "fs::" NO_MODES);
	parse_bad("fs:/a:b:", "fs:/a:b:" TWO_COLONS);
	parse_bad("fs:/a\\::", "fs:/a\\::" NO_MODES);

	/* What follows an unescaped colon is MODES or an error, never part of the path:
	 * these were once taken as paths ("/etc:R") and restricted nothing meant. */
	parse_bad("fs:/etc:R", "fs:/etc:R" NOT_MODES);
	parse_bad("fs:/etc:rwz", "fs:/etc:rwz" NOT_MODES);
	parse_bad("fs:/etc:RW", "fs:/etc:RW" NOT_MODES);
	parse_bad("fs:/a:q", "fs:/a:q" NOT_MODES);
	parse_bad("fs:/a:rwq", "fs:/a:rwq" NOT_MODES);
	parse_bad("fs:/a:r w", "\"fs:/a:r w\"" NOT_MODES);
	parse_bad("fs:/a:r ", "\"fs:/a:r \"" NOT_MODES);
	parse_bad("fs:/a: r", "\"fs:/a: r\"" NOT_MODES);
	parse_bad("fs:/a:b/c", "fs:/a:b/c" NOT_MODES);
	parse_bad("fs:/a:-", "fs:/a:-" NOT_MODES);
	parse_bad("fs:/a:read", "fs:/a:read" NOT_MODES);
	parse_bad("fs:/a:r\\,", "fs:/a:r\\," NOT_MODES);
	parse_bad("fs:/a:\\:", "fs:/a:\\:" NOT_MODES);
	parse_bad("fork,fs:/etc:R,exec", "fs:/etc:R" NOT_MODES);
	parse_bad("fs:/a:b:rw", "fs:/a:b:rw" TWO_COLONS);
	parse_bad("fs:/a:r:w", "fs:/a:r:w" TWO_COLONS);
	parse_bad("fs:/a::r", "fs:/a::r" TWO_COLONS);
	parse_bad("fs:/a:b:q", "fs:/a:b:q" TWO_COLONS);
	parse_bad("fs:/a:rr", "fs:/a:rr: access mode 'r' given twice");
	parse_bad("fs:/a:ww", "fs:/a:ww: access mode 'w' given twice");
	parse_bad("fs:/a:xx", "fs:/a:xx: access mode 'x' given twice");
	parse_bad("fs:/a:rwr", "fs:/a:rwr: access mode 'r' given twice");
	parse_bad("fs:/a:rwxw", "fs:/a:rwxw: access mode 'w' given twice");

	/* Escapes. */
	parse_bad("fs:/a\\", "fs:/a\\: backslash at the end with nothing to escape");
	parse_bad("fs:\\", "fs:\\: backslash at the end with nothing to escape");
	parse_bad("fs:/a\\\\\\", "fs:/a\\\\\\: backslash at the end with nothing to escape");
	parse_bad("fork,fs:/a\\", "fs:/a\\: backslash at the end with nothing to escape");
	parse_bad("fs:/a\\b", "fs:/a\\b: a backslash escapes only ',', ':', '\\' and white space");
	parse_bad("fs:/a\\n", "fs:/a\\n: a backslash escapes only ',', ':', '\\' and white space");
	parse_bad("fs:/a:r\\w",
		  "fs:/a:r\\w: a backslash escapes only ',', ':', '\\' and white space");

	/* White space around items and at the end of paths. */
	parse_bad(" fork", "\" fork\": white space before the item");
	parse_bad("fork ", "\"fork \": white space after the item");
	parse_bad("fork, exec", "\" exec\": white space before the item");
	parse_bad("fork ,exec", "\"fork \": white space after the item");
	parse_bad("\tfork", "\"\tfork\": white space before the item");
	parse_bad("fork\n", "\"fork\n\": white space after the item");
	parse_bad(" ", "\" \": white space before the item");
	parse_bad(" fs:/etc", "\" fs:/etc\": white space before the item");
	parse_bad("net:inet ", "\"net:inet \": white space after the item");
	parse_bad("cap:bpf ", "\"cap:bpf \": white space after the item");
	parse_bad("fs:/etc ,fork", "\"fs:/etc \"" ENDS_WITH_SPACE);
	parse_bad("fs:/etc :r", "\"fs:/etc :r\"" ENDS_WITH_SPACE);
	parse_bad("fs:/etc:r ", "\"fs:/etc:r \"" NOT_MODES);
	parse_bad("fs:/etc\t", "\"fs:/etc\t\"" ENDS_WITH_SPACE);
}

static void test_bad_arguments(void)
{
	struct umb_restrictions *r = umb_restrictions__new();
	char *error = NULL, *text = NULL;

	TAP_EQ(umb_restrictions__parse(r, NULL, &error), -EINVAL, "a NULL list is refused");
	TAP_OK(error && strcmp(error, "no list of restrictions") == 0, "and says so");
	free(error);
	error = NULL;
	TAP_EQ(umb_restrictions__parse(NULL, "fork", &error), -EINVAL, "a NULL set is refused");
	free(error);
	TAP_EQ(umb_restrictions__format(NULL, &text), -EINVAL, "format of a NULL set");
	TAP_EQ(umb_restrictions__format(r, NULL), -EINVAL, "format without ret_text");
	TAP_EQ(umb_restrictions__count(r), 0, "nothing was added");
	umb_restrictions__free(r);
}

/* Sets made by the builder format to text that reads back. */
static void test_format(void)
{
	struct umb_restrictions *r;
	char *text = NULL;

	r = umb_restrictions__new();
	TAP_EQ(umb_restrictions__format(r, &text), 0, "an empty set formats");
	TAP_OK(text && strcmp(text, "") == 0, "as the empty string");
	free(text);
	umb_restrictions__free(r);

	r = umb_restrictions__new();
	(void)umb_restrictions__add_fs(r, "/a,b:c\\d", UMB_FS_READ | UMB_FS_EXEC);
	(void)umb_restrictions__add_fs(r, "/x ", UMB_FS_ALL);
	(void)umb_restrictions__add_fs(r, "/y\t", UMB_FS_WRITE);
	(void)umb_restrictions__add_fs(r, "/rw:rw", UMB_FS_ALL);
	(void)umb_restrictions__add_fs(r, "/z:", UMB_FS_READ);
	(void)umb_restrictions__add_fs(r, "/", UMB_FS_ALL);
	(void)umb_restrictions__add_fs(r, "/ a b ", UMB_FS_EXEC);
	(void)umb_restrictions__add_fs(r, "/\\", UMB_FS_ALL);
	check_format(r,
		     "fs:/a\\,b\\:c\\\\d:rx,fs:/x\\ ,fs:/y\\\t:w,fs:/rw\\:rw,fs:/z\\::r,fs:/,"
		     "fs:/ a b\\ :x,fs:/\\\\",
		     "awkward paths");
	umb_restrictions__free(r);

	r = umb_restrictions__new();
	(void)umb_restrictions__add_cap(r,
					UMB_CR_NET_ALL | UMB_CR_NET | UMB_CR_FORK | UMB_CR_SETID);
	(void)umb_restrictions__add_net_family(r, AF_INET6);
	(void)umb_restrictions__add_net_family(r, 60);
	(void)umb_restrictions__add_linux_cap(r, CAP_NET_RAW);
	check_format(r, "net:all,fork,setid,net,net:inet6,net:60,cap:net_raw", "one of each kind");
	umb_restrictions__free(r);

	/* Everything there is, in one set. */
	r = umb_restrictions__new();
	(void)umb_restrictions__add_cap(r, UMB_CR_NET | UMB_CR_SIGNAL | UMB_CR_FORK | UMB_CR_EXEC |
						   UMB_CR_EXEC_UNSIGNED | UMB_CR_PTRACE |
						   UMB_CR_MOUNT | UMB_CR_MODULE | UMB_CR_SETID |
						   UMB_CR_NET_ALL | UMB_CR_KEYS);
	for (int f = 1; f <= 63; f++)
		(void)umb_restrictions__add_net_family(r, f);
	for (int c = 0; c <= CAP_CHECKPOINT_RESTORE; c++)
		(void)umb_restrictions__add_linux_cap(r, c);
	for (uint32_t a = 1; a <= UMB_FS_ALL; a++)
		(void)umb_restrictions__add_fs(r, "/srv/data", a);
	TAP_EQ(umb_restrictions__count(r), 11 + 63 + 41 + 7, "the big set holds every item");
	check_format(r, NULL, "every capability restriction, family, capability and mode");
	umb_restrictions__free(r);
}

/* Random paths full of characters that need escaping survive format and parse. */
static void test_round_trip_random(void)
{
	static const char alphabet[] = { '/', 'a', 'r', 'w', 'x', ',', ':', '\\', ' ', '\t', '.' };
	unsigned seed = 20240601, failures = 0;
	int runs = 2000;

	for (int i = 0; i < runs; i++) {
		struct umb_restrictions *r = umb_restrictions__new();
		struct umb_restrictions *back = umb_restrictions__new();
		char path[24], *text = NULL;
		int len;

		seed = seed * 1103515245 + 12345;
		len = 1 + (int)((seed >> 16) % (sizeof(path) - 2));
		path[0] = '/';
		for (int j = 1; j < len; j++) {
			seed = seed * 1103515245 + 12345;
			path[j] = alphabet[(seed >> 16) % sizeof(alphabet)];
		}
		path[len] = '\0';
		seed = seed * 1103515245 + 12345;
		(void)umb_restrictions__add_fs(r, path, 1 + (seed >> 16) % UMB_FS_ALL);
		(void)umb_restrictions__add_cap(r, UMB_CR_FORK);

		if (umb_restrictions__format(r, &text) < 0 ||
		    umb_restrictions__parse(back, text, NULL) < 0 || !sets_equal(r, back)) {
			if (failures++ < 5)
				TAP_DIAG("path '%s' -> '%s' does not read back", tap_show(path),
					 text ? tap_show(text) : "(null)");
		}
		free(text);
		umb_restrictions__free(back);
		umb_restrictions__free(r);
	}
	TAP_EQ(failures, 0, "%d random awkward paths read back after format", runs);
}

int main(void)
{
	test_cap_restrictions();
	test_net_families();
	test_linux_caps();
	test_fs();
	test_escapes();
	test_lists();
	test_append();
	test_malformed();
	test_bad_arguments();
	test_format();
	test_round_trip_random();
	return tap_finish();
}
