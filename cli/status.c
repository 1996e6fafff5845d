// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli status - is Umbrella enforcing, and is umbrellad up.
 *
 * The two questions have separate answers: the programs enforce as long as their pinned
 * links exist, with or without umbrellad; umbrellad is needed for new rfork() calls.
 * Both come from the pin directory: the links under links/ (one per attached program,
 * named after it), and umb_ctl.daemon_tgid, the last umbrellad to start, which is
 * running if that process still exists and is an umbrellad (pids get reused).
 * The key ring is read from its directory as umbrellad reads it (it reloads on every
 * change): the files it rejects, and so does not trust, are listed here too. The
 * directory is the running umbrellad's (its --keyring, from /proc/PID/cmdline), not
 * the one this CLI would use (--keyring, $UMBRELLA_KEYRING): only when no umbrellad
 * runs, or its command line cannot be read, is it the CLI's, and said so.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cli.h"
#include "command.h"
#include "daemon-args.h"
#include "daemon-pid.h"
#include "daemon-socket.h"
#include "key.h"
#include "keyring.h"
#include "pinned-maps.h"
#include "status.h"

#define PROG_PREFIX    "umb_" /* programs are umb_<hook> */
/* 6.1: remove when 6.1 goes (inode_setattr without the idmap, up to 6.2): the variant's
 * program is umb_inode_setattr_noidmap, on the hook inode_setattr. */
#define VARIANT_SUFFIX "_noidmap"
#define FS_RULES_MAX   65536 /* max_entries of umb_fs_inodes and umb_fs_names */

/* The uids with the most records dropped that status shows. */
#define STATUS_UIDS 8

struct status {
	bool pinned;	/* umb_meta exists: umbrellad has run */
	int unreadable; /* -errno: this user cannot see the pins (not root) */
	struct umb_ctl ctl;
	bool daemon_running;
	char **hooks; /* the attached programs' hooks, sorted */
	size_t hook_count;
	__u32 layers;		       /* live layers in umb_layers */
	__u32 inode_rules, name_rules; /* entries of umb_fs_inodes and umb_fs_names */
	__u64 denials, dropped, releases_dropped;
	/* The uids with the most records dropped (umb_event_budget), the most first */
	struct uid_dropped {
		__u32 uid;
		__u64 dropped;
	} uid_drops[STATUS_UIDS];
	size_t uid_drop_count;
	struct umb_meta meta;
	char *keyring_dir;
	bool keyring_is_daemons; /* keyring_dir is the running umbrellad's */
	struct keyring *keyring; /* NULL if it could not be read (out of memory) */
};

/* Keeps the STATUS_UIDS uids of umb_event_budget with the most records dropped, in
 * @s. A pin directory without the map (none is made before umbrellad starts) has none. */
static int read_uid_drops(struct status *s)
{
	int fd = pinned_map_open_optional("umb_event_budget", sizeof(struct umb_event_budget));
	struct umb_event_budget v;
	__u32 key, *prev = NULL;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	for (int i = 0; i < 2 * UMB_EVENT_BUDGET_UIDS; i++) {
		size_t at;

		if (bpf_map_get_next_key(fd, prev, &key) < 0)
			break;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) < 0 || !v.dropped)
			continue;
		/* Insertion into the short list, the most first (a restarted walk may
		 * meet a uid twice: kept once). */
		for (at = 0; at < s->uid_drop_count && s->uid_drops[at].uid != key; at++)
			;
		if (at < s->uid_drop_count)
			continue;
		for (at = s->uid_drop_count; at > 0 && s->uid_drops[at - 1].dropped < v.dropped;
		     at--)
			if (at < STATUS_UIDS)
				s->uid_drops[at] = s->uid_drops[at - 1];
		if (at < STATUS_UIDS) {
			s->uid_drops[at] = (struct uid_dropped){ key, v.dropped };
			if (s->uid_drop_count < STATUS_UIDS)
				s->uid_drop_count++;
		}
	}
	close(fd);
	return 0;
}

static int name_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the link pinned at @path attached to a program? */
static bool link_attached(const char *path)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	bool attached;
	int fd;

	/* The kernel opens links read-write only (BPF_OBJ_GET refuses other flags); we only
	 * read its info. */
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	attached = bpf_link_get_info_by_fd(fd, &info, &len) == 0 && info.prog_id != 0;
	close(fd);
	return attached;
}

/* The hook of the program named @name (without PROG_PREFIX): @name, cut before
 * VARIANT_SUFFIX. */
static void strip_variant(char *name)
{
	size_t len = strlen(name), suffix = strlen(VARIANT_SUFFIX);

	if (len > suffix && !strcmp(name + len - suffix, VARIANT_SUFFIX))
		name[len - suffix] = '\0';
}

/* Collects the hooks of the pinned, attached links. Return: 0 or -errno (printed). */
static int read_links(struct status *s)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	size_t capacity = 0;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/links", arg_pin_dir);
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0; /* pinned maps, no links: nothing attached */
		cli_error("%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		/* umbrellad pins a replacement as new-PROG before renaming it over PROG. */
		if (strncmp(de->d_name, PROG_PREFIX, strlen(PROG_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!link_attached(path))
			continue;
		if (s->hook_count == capacity) {
			char **more =
				reallocarray(s->hooks, capacity ? 2 * capacity : 64, sizeof(*more));

			if (!more) {
				closedir(d);
				cli_error("status: %s", strerror(ENOMEM));
				return -ENOMEM;
			}
			s->hooks = more;
			capacity = capacity ? 2 * capacity : 64;
		}
		s->hooks[s->hook_count] = strdup(de->d_name + strlen(PROG_PREFIX));
		if (!s->hooks[s->hook_count]) {
			closedir(d);
			cli_error("status: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		strip_variant(s->hooks[s->hook_count]);
		s->hook_count++;
	}
	closedir(d);
	qsort(s->hooks, s->hook_count, sizeof(*s->hooks), name_compare);
	return 0;
}

static int count_layers(const struct pinned_maps *m, __u32 *ret_count)
{
	__u32 *ids = NULL;
	int r = pinned_layer_ids(m, &ids);

	free(ids);
	if (r < 0)
		return r;
	*ret_count = (__u32)r;
	return 0;
}

/* The key ring of the running umbrellad, or else the CLI's own (read_status() has told
 * whether umbrellad runs). Return: 0 or -ENOMEM. */
static int read_keyring(struct status *s)
{
	char *error = NULL;

	if (s->daemon_running && s->ctl.daemon_tgid &&
	    daemon_keyring_dir(s->ctl.daemon_tgid, KEYRING_DIR_DEFAULT, &s->keyring_dir) == 0)
		s->keyring_is_daemons = true;
	else if (!(s->keyring_dir = strdup(cli_keyring_dir(arg_keyring))))
		return -ENOMEM;
	if (keyring_load(s->keyring_dir, &s->keyring, &error) < 0) {
		cli_warn("%s", error ? error : "cannot read the key ring");
		free(error);
	}
	return 0;
}

static int read_status(struct status *s)
{
	struct pinned_maps m;
	int r;

	r = pinned_state_access();
	s->pinned = r == 0;
	if (r < 0 && r != -ENOENT) {
		/* What a user who may not read the pins can still tell: whether umbrellad
		 * answers on its socket (it attaches the programs before it listens). */
		const char *path;
		int fd = daemon_socket_connect(&path, NULL);

		s->unreadable = r;
		s->daemon_running = fd >= 0;
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (!s->pinned)
		return 0;
	r = pinned_maps_open(&m);
	if (r < 0)
		return r;
	s->meta = m.meta;
	r = pinned_ctl_read(&m, &s->ctl);
	if (r == 0)
		r = count_layers(&m, &s->layers);
	if (r == 0)
		r = pinned_count_entries(m.fs_inodes, "umb_fs_inodes", &s->inode_rules);
	if (r == 0)
		r = pinned_count_entries(m.fs_names, "umb_fs_names", &s->name_rules);
	if (r == 0)
		r = pinned_stat_read(&m, UMB_STAT_RELEASES_DROPPED, &s->releases_dropped);
	if (r == 0)
		r = pinned_stat_read(&m, UMB_STAT_DENIALS, &s->denials);
	if (r == 0)
		r = pinned_stat_read(&m, UMB_STAT_EVENTS_DROPPED, &s->dropped);
	if (r == 0)
		r = read_uid_drops(s);
	pinned_maps_close(&m);
	if (r < 0)
		return r;
	s->daemon_running = daemon_pid_is_umbrellad(s->ctl.daemon_tgid);
	return read_links(s);
}

/* The system mode: what the attached programs do with a denial. */
static const char *mode_name(const struct status *s)
{
	if (!s->hook_count)
		return "off";
	return s->ctl.flags & UMB_CTL_PERMISSIVE ? "permissive" : "enforcing";
}

/* umbrella.conf's "unsigned": whether an exec without a valid signature is refused for
 * every task, or only for tasks with exec-unsigned. */
static const char *unsigned_name(const struct status *s)
{
	return s->ctl.flags & UMB_CTL_UNSIGNED_DENY ? "deny" : "allow";
}

/* The JSON answer opened, up to the "running" field of its "umbrellad" object; NULL
 * after printing the error. */
static json_writer_t *json_start(const struct status *s)
{
	json_writer_t *jw = cli_json_new();

	if (!jw)
		return NULL;
	jsonw_start_object(jw);
	jsonw_name(jw, "umbrellad");
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "running", s->daemon_running);
	return jw;
}

static void status_json(const struct status *s)
{
	json_writer_t *jw = json_start(s);

	if (!jw)
		return;
	if (s->daemon_running)
		jsonw_uint_field(jw, "pid", s->ctl.daemon_tgid);
	else
		jsonw_null_field(jw, "pid");
	jsonw_end_object(jw);
	jsonw_string_field(jw, "pin_dir", arg_pin_dir);
	jsonw_bool_field(jw, "pinned", s->pinned);
	if (s->pinned)
		jsonw_uint_field(jw, "abi_version", s->meta.abi_version);
	else
		jsonw_null_field(jw, "abi_version");
	jsonw_bool_field(jw, "enforcing",
			 s->hook_count > 0 && !(s->ctl.flags & UMB_CTL_PERMISSIVE));
	jsonw_bool_field(jw, "permissive", s->ctl.flags & UMB_CTL_PERMISSIVE);
	jsonw_string_field(jw, "mode", mode_name(s));
	jsonw_string_field(jw, "unsigned", unsigned_name(s));
	jsonw_uint_field(jw, "verdict_epoch", s->ctl.verdict_epoch);
	jsonw_string_field(jw, "version", UMBRELLA_VERSION);
	jsonw_uint_field(jw, "cli_abi_version", UMB_ABI_VERSION);
	jsonw_name(jw, "programs");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "attached", s->hook_count);
	jsonw_name(jw, "hooks");
	jsonw_start_array(jw);
	for (size_t i = 0; i < s->hook_count; i++)
		jsonw_string(jw, s->hooks[i]);
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	jsonw_uint_field(jw, "layers", s->layers);
	jsonw_name(jw, "occupancy");
	jsonw_start_object(jw);
	jsonw_name(jw, "layers");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "live", s->layers);
	jsonw_uint_field(jw, "max", UMB_LAYER_SLOTS);
	jsonw_uint_field(jw, "freed", s->meta.layers_freed);
	jsonw_uint_field(jw, "releases_dropped", s->releases_dropped);
	jsonw_end_object(jw);
	jsonw_name(jw, "fs_inode_rules");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "live", s->inode_rules);
	jsonw_uint_field(jw, "max", FS_RULES_MAX);
	jsonw_end_object(jw);
	jsonw_name(jw, "fs_name_rules");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "live", s->name_rules);
	jsonw_uint_field(jw, "max", FS_RULES_MAX);
	jsonw_end_object(jw);
	jsonw_end_object(jw);
	jsonw_uint_field(jw, "denials", s->denials);
	jsonw_uint_field(jw, "denials_dropped", s->dropped);
	/* uid (as text: a JSON key) -> records dropped, the uids with the most */
	jsonw_name(jw, "denials_dropped_by_uid");
	jsonw_start_object(jw);
	for (size_t i = 0; i < s->uid_drop_count; i++) {
		char uid[16];

		snprintf(uid, sizeof(uid), "%u", s->uid_drops[i].uid);
		jsonw_uint_field(jw, uid, s->uid_drops[i].dropped);
	}
	jsonw_end_object(jw);
	if (s->keyring) {
		jsonw_name(jw, "keyring");
		jsonw_start_object(jw);
		jsonw_string_field(jw, "dir", s->keyring_dir);
		/* "umbrellad": the running umbrellad's; "cli": what this CLI would use */
		jsonw_string_field(jw, "of", s->keyring_is_daemons ? "umbrellad" : "cli");
		jsonw_uint_field(jw, "keys", keyring_count(s->keyring));
		jsonw_bool_field(jw, "revocations_known", keyring_revocations_known(s->keyring));
		jsonw_name(jw, "rejected");
		jsonw_start_array(jw);
		for (size_t i = 0; i < keyring_rejected_count(s->keyring); i++)
			jsonw_string(jw, keyring_rejected(s->keyring, i));
		jsonw_end_array(jw);
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
}

/* What a user who cannot read the pins is told: what umbrellad's socket says. */
static void status_unreadable(const struct status *s)
{
	if (arg_json) {
		json_writer_t *jw = json_start(s);

		if (!jw)
			return;
		jsonw_string_field(jw, "seen_by", "socket");
		jsonw_end_object(jw);
		jsonw_string_field(jw, "pin_dir", arg_pin_dir);
		jsonw_null_field(jw, "pinned");
		jsonw_string_field(jw, "error", strerror(-s->unreadable));
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
		return;
	}
	printf("umbrellad: %s\n", s->daemon_running ?
					  "running (its socket answers)" :
					  "not answering on its socket (it may be down; the pinned "
					  "programs, if any, still enforce)");
	printf("pin directory: %s: %s as uid %u: the details need root\n", arg_pin_dir,
	       strerror(-s->unreadable), (unsigned)getuid());
}

static void keyring_text(const struct status *s)
{
	/* Whose directory: umbrellad's, else (none runs, or its command line cannot be
	 * read) this CLI's, which --keyring and $UMBRELLA_KEYRING choose. */
	const char *whose = s->keyring_is_daemons ? "" :
			    s->daemon_running	  ? " (umbrella-cli's: umbrellad's is unknown)" :
						    " (umbrella-cli's: umbrellad is not running)";
	size_t rejected;

	if (!s->keyring)
		return;
	rejected = keyring_rejected_count(s->keyring);
	if (!keyring_revocations_known(s->keyring))
		printf("key ring: %s%s: no key trusted (the revocation list is not known)\n",
		       s->keyring_dir, whose);
	else
		printf("key ring: %s%s: %zu keys%s\n", s->keyring_dir, whose,
		       keyring_count(s->keyring),
		       rejected ? ", and files rejected (not trusted):" : "");
	for (size_t i = 0; i < rejected; i++)
		printf("  %s\n", keyring_rejected(s->keyring, i));
}

/* @words, indented, as lines of at most 80 columns. */
static void print_wrapped(char *const *words, size_t count)
{
	size_t column = 0;

	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(words[i]);

		if (column && column + 1 + len > 80) {
			putchar('\n');
			column = 0;
		}
		column += (size_t)printf("%s%s", column ? " " : "  ", words[i]);
	}
	if (column)
		putchar('\n');
}

static void status_text(const struct status *s, bool verbose)
{
	if (s->daemon_running)
		printf("umbrellad: running (pid %u)\n", s->ctl.daemon_tgid);
	else if (s->hook_count)
		printf("umbrellad: not running (restrictions still enforced by the pinned "
		       "programs; new rfork() calls fail until it starts)\n");
	else
		printf("umbrellad: not running\n");
	if (!s->pinned) {
		printf("pin directory: %s: nothing pinned, nothing enforced\n", arg_pin_dir);
		keyring_text(s);
		return;
	}
	printf("pin directory: %s (ABI version %u; umbrella-cli %s, ABI %d)\n", arg_pin_dir,
	       s->meta.abi_version, UMBRELLA_VERSION, UMB_ABI_VERSION);
	printf("mode: %s%s; unsigned = %s (%s); verdict epoch %u\n", mode_name(s),
	       s->ctl.flags & UMB_CTL_PERMISSIVE ? " (denials are only recorded)" : "",
	       unsigned_name(s),
	       s->ctl.flags & UMB_CTL_UNSIGNED_DENY ?
		       "every exec needs a valid signature" :
		       "unsigned programs run, except in tasks restricted with exec-unsigned",
	       s->ctl.verdict_epoch);
	if (s->hook_count && verbose) {
		printf("programs: %zu attached, on the hooks (LSM, and the exit tracepoint "
		       "sched_process_exit):\n",
		       s->hook_count);
		print_wrapped(s->hooks, s->hook_count);
	} else if (s->hook_count) {
		printf("programs: %zu attached (status --verbose names their hooks)\n",
		       s->hook_count);
	} else {
		printf("programs: none attached, nothing enforced\n");
	}
	printf("layers: %u live of %u, %llu freed; fs rules: %u on objects, %u on names "
	       "(of %u each)\n",
	       s->layers, UMB_LAYER_SLOTS, (unsigned long long)s->meta.layers_freed, s->inode_rules,
	       s->name_rules, FS_RULES_MAX);
	printf("denials: %llu (%llu not reported: over their uid's budget, or ring buffer "
	       "full)\n",
	       (unsigned long long)s->denials, (unsigned long long)s->dropped);
	for (size_t i = 0; i < s->uid_drop_count; i++)
		printf("  %llu records of uid %u dropped\n",
		       (unsigned long long)s->uid_drops[i].dropped, s->uid_drops[i].uid);
	keyring_text(s);
}

int cli_status(int argc, char **argv)
{
	struct status s = {};
	bool verbose = false;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "help") || cmd_wants_help(argc, argv)))
		return cli_help(
			"Usage: umbrella-cli [-j|-p] [--keyring DIR] status [-v|--verbose]\n"
			"--verbose also names the hooks of the attached programs (--json "
			"always does).\n"
			"Exit status: 0 when umbrellad runs and programs are attached, 3 "
			"when not, 1 on error.\n");
	if (argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"))) {
		verbose = true;
		argc--, argv++;
	}
	if (argc > 1) {
		cli_error("status %s: unexpected argument (try 'umbrella-cli status help')",
			  argv[1]);
		return EXIT_USAGE;
	}
	if (read_status(&s) < 0 || read_keyring(&s) < 0) {
		ret = EXIT_ERROR;
		goto out;
	}
	if (s.unreadable) {
		status_unreadable(&s);
		ret = s.daemon_running ? EXIT_OK : EXIT_NOT_RUNNING;
		goto out;
	}
	if (arg_json)
		status_json(&s);
	else
		status_text(&s, verbose);
	ret = s.daemon_running && s.hook_count ? EXIT_OK : EXIT_NOT_RUNNING;
out:
	for (size_t i = 0; i < s.hook_count; i++)
		free(s.hooks[i]);
	free(s.hooks);
	keyring_free(s.keyring);
	free(s.keyring_dir);
	return ret;
}
