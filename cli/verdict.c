// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli verdict - the exec verdicts of umbrellad's gate (signed binaries).
 *
 * The verdicts themselves live in the inodes (umb_verdicts, inode storage), which no one
 * can list. umbrellad records each verdict it makes in umb_verdict_log, by inode, with
 * the path and the reason: "list" prints that, from the pins, so it works while
 * umbrellad is down. Whether a recorded verdict is still in force is asked of the inode
 * itself where its path still names it: a read-only open of the file (which changes
 * nothing) and a lookup in umb_verdicts. "flush" asks umbrellad to forget them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/kdev.h>
#include <umbrella/protocol.h>

#include "cli.h"
#include "command.h"
#include "daemon-op.h"
#include "format.h"
#include "keyring.h"
#include "pinned-maps.h"
#include "printable.h"
#include "verdict.h"

enum in_force { IN_FORCE_UNKNOWN, IN_FORCE_YES, IN_FORCE_NO };

/*
 * Is the verdict @rec of inode @key still in force? Only knowable through a descriptor
 * of the inode: its recorded path must still name it.
 */
static enum in_force in_force(int verdicts_fd, __u32 epoch, const struct umb_inode_key *key,
			      const struct umb_verdict_record *rec)
{
	struct umb_verdict v;
	enum in_force ret = IN_FORCE_UNKNOWN;
	struct stat st;
	uint64_t ino;
	uint32_t dev;
	int fd;

	if (verdicts_fd < 0 || rec->path[0] != '/')
		return IN_FORCE_UNKNOWN;
	/* O_NONBLOCK: a FIFO put there meanwhile must not hang us. */
	fd = open(rec->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return IN_FORCE_UNKNOWN;
	/* Keyed as the kernel keys it (kdev.h): st_dev is not the super block's everywhere. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    umb_kernel_inode(fd, 0, &dev, &ino) == 0 && ino == key->ino && dev == key->dev) {
		if (bpf_map_lookup_elem(verdicts_fd, &fd, &v) == 0 && v.epoch == epoch &&
		    v.state == rec->state)
			ret = IN_FORCE_YES;
		else
			ret = IN_FORCE_NO;
	}
	close(fd);
	return ret;
}

static const char *const in_force_names[] = { "unknown", "yes", "no" };

static int verdict_list(void)
{
	int log_fd, verdicts_fd, ctl_fd, r = 0;
	struct umb_inode_key key;
	struct umb_ctl ctl = {};
	json_writer_t *jw = NULL;
	__u32 zero = 0;
	bool first = true;
	size_t count = 0;

	log_fd = pinned_map_open("umb_verdict_log", sizeof(struct umb_verdict_record));
	if (log_fd < 0)
		return EXIT_ERROR;
	ctl_fd = pinned_map_open("umb_ctl", sizeof(struct umb_ctl));
	if (ctl_fd < 0) {
		close(log_fd);
		return EXIT_ERROR;
	}
	if (bpf_map_lookup_elem(ctl_fd, &zero, &ctl) < 0) {
		cli_error("umb_ctl: %s", strerror(errno));
		r = -errno;
		goto out;
	}
	/* Without it, "in force" is unknown: still worth listing. */
	verdicts_fd = pinned_map_open("umb_verdicts", sizeof(struct umb_verdict));

	if (arg_json) {
		jw = cli_json_new();
		if (!jw) {
			r = -ENOMEM;
			goto out_verdicts;
		}
		jsonw_start_array(jw);
	} else {
		printf("%-8s %-9s %5s %-16s %-23s %s\n", "STATE", "IN FORCE", "LAYER", "KEY",
		       "VERIFIED", "PATH (REASON)");
	}
	for (;;) {
		struct umb_verdict_record rec;
		char key_hex[KEY_ID_HEX_LEN + 1] = "-", when[CLI_TIME_TEXT_SIZE];
		char path[CLI_PRINTABLE_SIZE(sizeof(rec.path))];
		char reason[CLI_PRINTABLE_SIZE(sizeof(rec.reason))];
		enum in_force f;

		if (bpf_map_get_next_key(log_fd, first ? NULL : &key, &key) < 0)
			break;
		first = false;
		if (bpf_map_lookup_elem(log_fd, &key, &rec) < 0)
			continue; /* deleted meanwhile */
		rec.path[sizeof(rec.path) - 1] = '\0';
		rec.reason[sizeof(rec.reason) - 1] = '\0';
		f = rec.epoch == ctl.verdict_epoch ?
			    in_force(verdicts_fd, ctl.verdict_epoch, &key, &rec) :
			    IN_FORCE_NO;
		if (cli_key_id_set(rec.key_id))
			key_id_to_hex(rec.key_id, key_hex);
		count++;
		if (jw) {
			char inode[64];

			jsonw_start_object(jw);
			umb_inode_text(inode, sizeof(inode), key.dev, key.ino);
			jsonw_string_field(jw, "path", rec.path);
			jsonw_string_field(jw, "inode", inode);
			jsonw_string_field(jw, "state", cli_verdict_name(rec.state));
			jsonw_bool_field(jw, "trusted_self",
					 rec.flags & UMB_VERDICT_RECORD_TRUSTED_SELF);
			jsonw_bool_field(jw, "unknown_signer",
					 rec.flags & UMB_VERDICT_RECORD_UNKNOWN_SIGNER);
			if (f == IN_FORCE_UNKNOWN)
				jsonw_null_field(jw, "in_force");
			else
				jsonw_bool_field(jw, "in_force", f == IN_FORCE_YES);
			jsonw_uint_field(jw, "layer", rec.layer);
			if (cli_key_id_set(rec.key_id))
				jsonw_string_field(jw, "key_id", key_hex);
			else
				jsonw_null_field(jw, "key_id");
			jsonw_string_field(jw, "reason", rec.reason);
			jsonw_uint_field(jw, "epoch", rec.epoch);
			jsonw_uint_field(jw, "pid", rec.pid);
			cli_time_text(rec.time_ns, true, when, sizeof(when));
			jsonw_string_field(jw, "verified", when);
			jsonw_end_object(jw);
		} else {
			cli_time_text(rec.time_ns, false, when, sizeof(when));
			if (strlen(key_hex) > 16)
				strcpy(key_hex + 13, "...");
			/* Any user names the files it runs: printable.h. */
			printf("%-8s %-9s %5u %-16s %-23s %s (%s%s)\n", cli_verdict_name(rec.state),
			       in_force_names[f], rec.layer, key_hex, when,
			       cli_printable(rec.path, path, sizeof(path)),
			       cli_printable(rec.reason, reason, sizeof(reason)),
			       rec.flags & UMB_VERDICT_RECORD_TRUSTED_SELF ? ", trusted" : "");
		}
	}
	if (jw) {
		jsonw_end_array(jw);
		jsonw_destroy(&jw);
	} else if (!count) {
		printf("(no verdicts; epoch %u)\n", ctl.verdict_epoch);
	}
out_verdicts:
	if (verdicts_fd >= 0)
		close(verdicts_fd);
out:
	close(ctl_fd);
	close(log_fd);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

/* Asks umbrellad to forget every verdict (UMB_OP_FLUSH_VERDICTS). */
static int verdict_flush(void)
{
	char buf[sizeof(struct umb_reply) + UMB_REPLY_TEXT_MAX];
	ssize_t n = cli_daemon_op(UMB_OP_FLUSH_VERDICTS, "verdict flush", buf, sizeof(buf));

	if (n < 0)
		return (int)-n;
	if (arg_json) {
		json_writer_t *jw = cli_json_new();

		if (!jw)
			return EXIT_ERROR;
		jsonw_start_object(jw);
		jsonw_bool_field(jw, "flushed", true);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		printf("verdicts flushed: every binary is verified again at its next exec\n");
	}
	return EXIT_OK;
}

static int verdict_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help("Usage: umbrella-cli [-j|-p] verdict list\n"
			"       umbrella-cli [-j|-p] verdict flush\n"
			"       umbrella-cli verdict help\n");
}

/* Neither command takes an argument. */
static bool no_argument(int argc, char **argv)
{
	if (argc > 1)
		cli_error("verdict %s: too many arguments (try 'umbrella-cli verdict help')",
			  argv[0]);
	return argc <= 1;
}

static int do_list(int argc, char **argv)
{
	return no_argument(argc, argv) ? verdict_list() : EXIT_USAGE;
}

static int do_flush(int argc, char **argv)
{
	return no_argument(argc, argv) ? verdict_flush() : EXIT_USAGE;
}

int cli_verdict(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "list", do_list },
		{ "flush", do_flush },
		{},
	};

	return cmd_select(cmds, "verdict", argc - 1, argv + 1, verdict_help);
}
