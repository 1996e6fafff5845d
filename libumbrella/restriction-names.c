// SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
/* libumbrella - the names of restrictions, address families and capabilities in the grammar */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/capability.h>

#include <umbrella/umbrella.h>

#include "lib-errno.h"

#include "macro.h"
#include "restriction-names.h"

/*
 * The one table from names to bits: the parser and every printer go through it.
 * "net:all" is a name of its own, not a family: it denies every family, AF_UNIX and
 * families that do not exist yet included, which "net" (every family but AF_UNIX) and
 * "net:unix" together also do.
 */
static const struct {
	const char *name;
	uint64_t bit;
} cap_restrictions[] = {
	{ "net", UMB_CR_NET },	     { "net:all", UMB_CR_NET_ALL },
	{ "signal", UMB_CR_SIGNAL }, { "fork", UMB_CR_FORK },
	{ "exec", UMB_CR_EXEC },     { "exec-unsigned", UMB_CR_EXEC_UNSIGNED },
	{ "ptrace", UMB_CR_PTRACE }, { "mount", UMB_CR_MOUNT },
	{ "module", UMB_CR_MODULE }, { "setid", UMB_CR_SETID },
	{ "keys", UMB_CR_KEYS },
};

static int cap_restriction_from_name_impl(const char *name, uint64_t *ret_bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(cap_restrictions); i++) {
		if (strcmp(name, cap_restrictions[i].name) == 0) {
			*ret_bit = cap_restrictions[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

const char *umb_cap_restriction_name(uint64_t bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(cap_restrictions); i++) {
		if (cap_restrictions[i].bit == bit)
			return cap_restrictions[i].name;
	}
	return NULL;
}

/*
 * Address families of "net:FAMILY", by the AF_* name in lowercase without the prefix,
 * except that AF_INET is "inet4" (the grammar's "inet" means both IP versions, see
 * umb_net_families_from_name()). Every family Linux defines is here, the long obsolete
 * ones too (denying them costs nothing); families without a name are written by number.
 */
static const char *const net_families[] = {
	[AF_UNIX] = "unix",
	[AF_INET] = "inet4",
	[AF_AX25] = "ax25",
	[AF_IPX] = "ipx",
	[AF_APPLETALK] = "appletalk",
	[AF_NETROM] = "netrom",
	[AF_BRIDGE] = "bridge",
	[AF_ATMPVC] = "atmpvc",
	[AF_X25] = "x25",
	[AF_INET6] = "inet6",
	[AF_ROSE] = "rose",
	[AF_DECnet] = "decnet",
	[AF_NETBEUI] = "netbeui",
	[AF_SECURITY] = "security",
	[AF_KEY] = "key",
	[AF_NETLINK] = "netlink",
	[AF_PACKET] = "packet",
	[AF_ASH] = "ash",
	[AF_ECONET] = "econet",
	[AF_ATMSVC] = "atmsvc",
	[AF_RDS] = "rds",
	[AF_SNA] = "sna",
	[AF_IRDA] = "irda",
	[AF_PPPOX] = "pppox",
	[AF_WANPIPE] = "wanpipe",
	[AF_LLC] = "llc",
	[AF_IB] = "ib",
	[AF_MPLS] = "mpls",
	[AF_CAN] = "can",
	[AF_TIPC] = "tipc",
	[AF_BLUETOOTH] = "bluetooth",
	[AF_IUCV] = "iucv",
	[AF_RXRPC] = "rxrpc",
	[AF_ISDN] = "isdn",
	[AF_PHONET] = "phonet",
	[AF_IEEE802154] = "ieee802154",
	[AF_CAIF] = "caif",
	[AF_ALG] = "alg",
	[AF_NFC] = "nfc",
	[AF_VSOCK] = "vsock",
	[AF_KCM] = "kcm",
	[AF_QIPCRTR] = "qipcrtr",
	[AF_SMC] = "smc",
	[AF_XDP] = "xdp",
	[AF_MCTP] = "mctp",
};

const char *umb_net_family_name(int family)
{
	if (family < 0 || (size_t)family >= ARRAY_SIZE(net_families))
		return NULL;
	return net_families[family]; /* NULL for AF_UNSPEC */
}

int umb_net_families_from_name(const char *name, int ret_families[2])
{
	if (strcmp(name, "inet") == 0) {
		ret_families[0] = AF_INET;
		ret_families[1] = AF_INET6;
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(net_families); i++) {
		if (net_families[i] && strcmp(name, net_families[i]) == 0) {
			ret_families[0] = (int)i;
			return 1;
		}
	}
	return -EINVAL;
}

/* Linux capabilities of "cap:NAME": the CAP_* name in lowercase without the prefix. */
static const char *const linux_caps[] = {
	[CAP_CHOWN] = "chown",
	[CAP_DAC_OVERRIDE] = "dac_override",
	[CAP_DAC_READ_SEARCH] = "dac_read_search",
	[CAP_FOWNER] = "fowner",
	[CAP_FSETID] = "fsetid",
	[CAP_KILL] = "kill",
	[CAP_SETGID] = "setgid",
	[CAP_SETUID] = "setuid",
	[CAP_SETPCAP] = "setpcap",
	[CAP_LINUX_IMMUTABLE] = "linux_immutable",
	[CAP_NET_BIND_SERVICE] = "net_bind_service",
	[CAP_NET_BROADCAST] = "net_broadcast",
	[CAP_NET_ADMIN] = "net_admin",
	[CAP_NET_RAW] = "net_raw",
	[CAP_IPC_LOCK] = "ipc_lock",
	[CAP_IPC_OWNER] = "ipc_owner",
	[CAP_SYS_MODULE] = "sys_module",
	[CAP_SYS_RAWIO] = "sys_rawio",
	[CAP_SYS_CHROOT] = "sys_chroot",
	[CAP_SYS_PTRACE] = "sys_ptrace",
	[CAP_SYS_PACCT] = "sys_pacct",
	[CAP_SYS_ADMIN] = "sys_admin",
	[CAP_SYS_BOOT] = "sys_boot",
	[CAP_SYS_NICE] = "sys_nice",
	[CAP_SYS_RESOURCE] = "sys_resource",
	[CAP_SYS_TIME] = "sys_time",
	[CAP_SYS_TTY_CONFIG] = "sys_tty_config",
	[CAP_MKNOD] = "mknod",
	[CAP_LEASE] = "lease",
	[CAP_AUDIT_WRITE] = "audit_write",
	[CAP_AUDIT_CONTROL] = "audit_control",
	[CAP_SETFCAP] = "setfcap",
	[CAP_MAC_OVERRIDE] = "mac_override",
	[CAP_MAC_ADMIN] = "mac_admin",
	[CAP_SYSLOG] = "syslog",
	[CAP_WAKE_ALARM] = "wake_alarm",
	[CAP_BLOCK_SUSPEND] = "block_suspend",
	[CAP_AUDIT_READ] = "audit_read",
	[CAP_PERFMON] = "perfmon",
	[CAP_BPF] = "bpf",
	[CAP_CHECKPOINT_RESTORE] = "checkpoint_restore",
};

_Static_assert(CAP_CHECKPOINT_RESTORE == UMB_LINUX_CAP_LAST, "capability numbers");
_Static_assert(ARRAY_SIZE(linux_caps) == UMB_LINUX_CAP_LAST + 1, "a name for every capability");

const char *umb_linux_cap_name(int cap)
{
	if (cap < 0 || (size_t)cap >= ARRAY_SIZE(linux_caps))
		return NULL;
	return linux_caps[cap];
}

int umb_linux_cap_from_name(const char *name, int *ret_cap)
{
	for (size_t i = 0; i < ARRAY_SIZE(linux_caps); i++) {
		if (strcmp(name, linux_caps[i]) == 0) {
			*ret_cap = (int)i;
			return 0;
		}
	}
	return -EINVAL;
}

int umb_cap_restriction_from_name(const char *name, uint64_t *ret_bit)
{
	return umb_errno(cap_restriction_from_name_impl(name, ret_bit));
}
