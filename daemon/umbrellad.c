// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the privileged side of Umbrella.
 *
 * Loads and attaches the BPF LSM programs, serves the local socket on which processes
 * ask for layers on their children (rfork) or themselves (restrict_self), and prints the
 * denials the programs report. Stays in the foreground; tells systemd when it is ready
 * and pets its watchdog.
 *
 * The main sd-event loop (loop_new()) serves the socket and its connections (server.c,
 * in turns by uid: turns.c), the denial and release records (events.c, which hands
 * denials to journal-writer.c and follow.c) and the layers; this file has the signals
 * (SIGHUP reloads, SIGTERM and SIGINT stop), the sweep of the layers and the watchdog
 * (watchdog.c: petted while both loops turn). The exec gate (exec-gate.c: fanotify,
 * BPF's invalidations, mounts, key ring, library directories, the files being
 * verified, a step per turn) runs a loop of its own on its own thread (gate-thread.c),
 * so that no request delays an exec's answer. event-priority.h says in which order one
 * turn of a loop serves its sources.
 *
 * The programs' links and the maps are pinned in the pin directory (pin.c): they keep
 * enforcing when umbrellad stops or dies, and the next umbrellad adopts them, attaching
 * its programs before it lets go of the old ones. Stopping umbrellad therefore does not
 * lift any restriction; `umbrellad --reset-pins` does.
 * The configuration file (config.c) is read at start and again on SIGHUP (systemctl
 * reload): a reload that finds an error keeps the configuration in force.
 * The exec gate (exec-gate.c) holds the exec of every unverified file on the file systems
 * it marks until it has checked the file's signature against the key ring (--keyring),
 * which is read again when its directory changes and on SIGHUP. A bad file in the key
 * ring is reported and not trusted; it never keeps umbrellad, and so the gate, from
 * running. `umbrellad --check-config` reports every error of both, and exits.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>

#include "arm.h"
#include "bpf-open.h"
#include "config.h"
#include "daemon-options.h"
#include "event-priority.h"
#include "essentials.h"
#include "events.h"
#include "exec-gate.h"
#include "fs-watch.h"
#include "journal-writer.h"
#include "keyring.h"
#include "log.h"
#include "lsm-probe.h"
#include "macro.h"
#include "pin.h"
#include "history.h"
#include "self-files.h"
#include "server.h"
#include "state.h"
#include "time-util.h"
#include "umbrella.skel.h"
#include "watchdog.h"

/* EX_CONFIG: restarting cannot help (the unit's RestartPreventExitStatus=). */
#define EXIT_PINS_INCOMPATIBLE 78
/* The same status for a configuration file with an error (or unreadable): both need an
 * administrator, and both leave the pinned programs as they were. */
#define EXIT_BAD_CONFIG	       78

static int ctl_fd = -1; /* umb_ctl: the mode (config_apply()) */
static const char *arg_socket = UMB_SOCKET_PATH;
static const char *arg_pin_dir = PIN_DIR_DEFAULT;
static bool arg_reset_pins;
static bool arg_check_config;
static const char *arg_config = CONFIG_PATH_DEFAULT;
static const char *arg_keyring = KEYRING_DIR_DEFAULT;
static bool arg_config_given;	/* --config: the file must exist */
static bool arg_log_rate_limit; /* --log-rate-limit: overrides the configuration's */

/* The configuration in force (config_apply()). */
static struct config config;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* The verifier log comes at warning level: keep it, it says why a load failed. */
	if (level == LIBBPF_DEBUG)
		return 0;
	log_vprintf(LOG_WARNING, fmt, args);
	return 0;
}

static void help(void)
{
	printf("Usage: umbrellad [OPTION]...\n"
	       "Loads Umbrella's BPF LSM programs and serves restriction requests.\n\n"
	       "  --socket PATH   listen on PATH (default " UMB_SOCKET_PATH ")\n"
	       "  --pin-dir DIR   pin programs and maps in DIR, on a bpf file system\n"
	       "                  (default " PIN_DIR_DEFAULT ")\n"
	       "  --reset-pins    remove everything pinned in the pin directory and exit:\n"
	       "                  detaches the programs and drops every restriction\n"
	       "  --config FILE   read FILE (default " CONFIG_PATH_DEFAULT ", where a\n"
	       "                  missing file means the defaults); SIGHUP reads it again\n"
	       "  --keyring DIR   the signing keys that binaries may be signed with (default\n"
	       "                  " KEYRING_DIR_DEFAULT "); read again when DIR changes and\n"
	       "                  on SIGHUP\n"
	       "  --check-config  report every error of the configuration file, every\n"
	       "                  file the key ring rejects and, under unsigned = deny,\n"
	       "                  each essential program it does not validly sign, and\n"
	       "                  exit (needs no BPF)\n"
	       "  --help          show this help\n"
	       "  --version       show the version\n\n"
	       "Exit status: 0 after SIGTERM or SIGINT, 1 on failure, %d when the pin directory\n"
	       "holds state of another ABI version (see --reset-pins) or the configuration\n"
	       "file has an error (the message names the file and line). --check-config: 0\n"
	       "when nothing is wrong, %d when something is.\n",
	       EXIT_PINS_INCOMPATIBLE, EXIT_BAD_CONFIG);
}

static int parse_argv(int argc, char *argv[])
{
	int c;

	while ((c = getopt_long(argc, argv, "hV", daemon_long_options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case 'V':
			printf("umbrellad %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
			return 0;
		case DAEMON_ARG_SOCKET:
			arg_socket = optarg;
			break;
		case DAEMON_ARG_PIN_DIR:
			arg_pin_dir = optarg;
			break;
		case DAEMON_ARG_RESET_PINS:
			arg_reset_pins = true;
			break;
		case DAEMON_ARG_LOG_RATE_LIMIT: {
			unsigned int burst, interval;
			char end;

			/* BURST/INTERVAL: at most BURST denials logged per INTERVAL seconds. */
			if (sscanf(optarg, "%u/%u%c", &burst, &interval, &end) != 2) {
				log_error("--log-rate-limit %s: expected "
					  "BURST/SECONDS",
					  optarg);
				return -EINVAL;
			}
			journal_set_rate_limit(burst, interval);
			arg_log_rate_limit = true;
			break;
		}
		case DAEMON_ARG_CONFIG:
			arg_config = optarg;
			arg_config_given = true;
			break;
		case DAEMON_ARG_KEYRING:
			arg_keyring = optarg;
			break;
		case DAEMON_ARG_CHECK_CONFIG:
			arg_check_config = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 1;
}

/* Logs @text, one message per line (config_load()'s errors), at @priority, with
 * @last_suffix after its last line. */
static void log_lines(int priority, const char *text, const char *last_suffix)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		log_full_errno(priority, 0, "%.*s%s", (int)n, p, p[n] ? "" : last_suffix);
		p += n + (p[n] == '\n');
	}
}

/*
 * --check-config: reads the configuration file and the key ring as umbrellad would,
 * reports every error of the one and every file the other rejects (on stderr), and
 * what they hold (on stdout). Loads nothing: any user who can read the files may ask.
 * Return: the exit status, 0 when nothing is wrong.
 */
static int check_config(void)
{
	struct keyring *k = NULL;
	char *error = NULL, summary[160];
	bool bad = false;
	struct config c;
	size_t revoked = 0;
	int r;

	r = config_load(arg_config, arg_config_given, &c, &error);
	if (r < 0) {
		log_lines(LOG_ERR, error ? error : strerror(-r), "");
		bad = true;
	} else {
		printf("%s: %s%s\n", arg_config, r == 1 ? "missing, the defaults: " : "",
		       config_summary(&c, summary, sizeof(summary)));
		/* What a start or reload would refuse: deny on unsigned essentials. */
		r = essentials_deny_check(&c, arg_config, arg_keyring, &error);
		if (r != 0)
			log_lines(r < 0 ? LOG_ERR : LOG_WARNING, error ? error : strerror(-r), "");
		bad |= r < 0;
	}
	free(error);
	error = NULL;

	r = keyring_load(arg_keyring, &k, &error);
	if (r < 0) {
		log_error("%s", error ? error : strerror(-r));
		free(error);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < keyring_rejected_count(k); i++) {
		log_error("key ring: %s", keyring_rejected(k, i));
		bad = true;
	}
	for (size_t i = 0; i < keyring_count(k); i++)
		revoked += keyring_is_revoked(k, keyring_key_id(k, i));
	if (keyring_revocations_known(k))
		printf("%s: %zu keys (%zu of them revoked)%s\n", arg_keyring, keyring_count(k),
		       revoked, keyring_rejected_count(k) ? ", and rejected files" : "");
	else
		printf("%s: no key is trusted: the revocation list is not known\n", arg_keyring);
	keyring_free(k);
	return bad ? EXIT_BAD_CONFIG : EXIT_SUCCESS;
}

/* umb_ctl.flags for the configuration @c. */
static __u32 ctl_flags(const struct config *c)
{
	return (c->permissive ? UMB_CTL_PERMISSIVE : 0) |
	       (c->unsigned_deny ? UMB_CTL_UNSIGNED_DENY : 0);
}

/*
 * Opens and loads the BPF object on the maps pinned in @pin (creating and pinning those
 * missing), tells it which process we are, attaches the programs and pins their links
 * in place of the old ones. Until the last step the old links, if any, keep enforcing.
 */
static int bpf_start(struct pin *pin, struct umbrella_bpf **ret_skel)
{
	struct umbrella_bpf *skel;
	struct umb_ctl ctl = {};
	const char *what;
	int r;

	what = "open the BPF object";
	r = umbrella_bpf_open_for_kernel(&skel);
	if (r < 0)
		goto fail;
	what = "set the pin paths";
	r = pin_maps(pin, skel->skeleton);
	if (r < 0)
		goto fail_destroy;
	what = "load the BPF object";
	r = umbrella_bpf__load(skel);
	if (r < 0)
		goto fail_destroy;

	/* Keep what a previous umbrellad left (the verdict epoch), with us as the daemon.
	 * From here on the programs keep everyone else out of our maps and pins. */
	what = "identify the pin directory";
	r = pin_identify(pin, &ctl);
	if (r < 0)
		goto fail_destroy;
	/* Before our programs attach: an adopted state runs with our mode from here on. */
	what = "register umbrellad in umb_ctl";
	r = state_register_daemon(bpf_map__fd(skel->maps.umb_ctl), (__u32)getpid(), ctl.pin_dev,
				  ctl.pin_ino, ctl_flags(&config));
	if (r < 0)
		goto fail_destroy;
	what = NULL; /* pin_attach() and pin_links() name what failed */
	r = pin_attach(pin, skel->skeleton);
	if (r < 0)
		goto fail_destroy;
	r = pin_links(pin, skel->skeleton);
	if (r < 0)
		goto fail_destroy;
	if (pin->adopted)
		log_info("adopted the pinned state in %s (ABI %d), kept %d and "
			 "replaced %d program links",
			 pin->dir, UMB_ABI_VERSION, pin->kept, r);
	else
		log_info("pinned new state in %s (ABI %d)", pin->dir, UMB_ABI_VERSION);
	*ret_skel = skel;
	return 0;

fail_destroy:
	/* Links we pinned stay; the old ones were only replaced by attached programs. */
	umbrella_bpf__destroy(skel);
fail:
	if (what)
		log_error_errno(r, "Failed to %s: %m", what);
	if (pin->adopted)
		log_error("the programs pinned in %s keep enforcing. If its maps "
			  "do not match this umbrellad's, 'umbrellad --reset-pins --pin-dir %s' "
			  "drops them and every restriction in force.",
			  pin->dir, pin->dir);
	return r == -EPROTO ? -EIO : r;
}

/* What the unit's status says of the files the key ring in force rejected, if any, in
 * @buf: the administrator looks there first. Return: whether there are any. */
static bool keyring_rejected_status(const struct exec_gate *gate, char *buf, size_t size)
{
	size_t n = gate ? exec_gate_keyring_rejected(gate) : 0;

	if (!n)
		return false;
	snprintf(buf, size, "key ring: %zu file%s rejected, not trusted: see the journal", n,
		 n == 1 ? "" : "s");
	return true;
}

/* The first word of the unit's status text. */
static const char *mode_status(void)
{
	return config.permissive ? "Permissive" : "Enforcing";
}

/*
 * Makes @c the configuration in force: the mode in umb_ctl (which every program reads
 * on its deny path), the layer size and connection limits of the server @s and the log
 * rate limit.
 * Nothing changes when it fails.
 */
static int config_apply(const struct config *c, struct server *s)
{
	char summary[160];
	int r;

	r = state_set_mode(ctl_fd, ctl_flags(c));
	if (r < 0)
		return r;
	s->max_rules = c->max_rules_per_layer;
	s->layers->limits = (struct layer_limits){
		.user_layers = c->max_layers_per_user ?: CONFIG_MAX_LAYERS_PER_USER_DEFAULT,
		.user_rules = c->max_rules_per_user ?: CONFIG_MAX_RULES_PER_USER_DEFAULT,
	};
	/* For the connections from now on; those open keep their timers till they ask. */
	s->max_per_user = c->max_connections_per_user ?: CONFIG_MAX_CONNECTIONS_PER_USER_DEFAULT;
	s->idle_timeout_usec =
		(uint64_t)(c->idle_timeout_sec ?: CONFIG_IDLE_TIMEOUT_DEFAULT) * USEC_PER_SEC;
	/* The charges so far stay; they drain at the new rate. */
	s->turns.budget_usec =
		(uint64_t)(c->request_time_per_user ?: CONFIG_REQUEST_TIME_PER_USER_DEFAULT) *
		USEC_PER_SEC;
	if (!arg_log_rate_limit)
		journal_set_rate_limit(c->log_burst, c->log_interval_sec);
	config = *c;
	log_info("configuration: %s%s", config_summary(c, summary, sizeof(summary)),
		 c->permissive ? " (denials are logged, not enforced)" : "");
	return 0;
}

/*
 * "unsigned = deny" with essential programs unsigned would lock the machine up
 * (essentials.h): refused like an error of the file (in *@ret_error), or, when forced,
 * logged as a warning. Return: 0, or -EPERM or -ENOMEM with *@ret_error set.
 */
static int deny_check(const struct config *c, char **ret_error)
{
	char *text = NULL;
	int r = essentials_deny_check(c, arg_config, arg_keyring, &text);

	if (r > 0)
		log_lines(LOG_WARNING, text, "");
	if (r >= 0) {
		free(text);
		return 0;
	}
	*ret_error = text;
	return r;
}

/*
 * SIGHUP (systemctl reload): reads the configuration file again and applies it, or on
 * any error logs it, naming the file and line, and keeps the configuration in force.
 * Tells systemd around it (sd_notify(3): RELOADING=1 with MONOTONIC_USEC=, then READY=1).
 */
static void reload(struct server *s)
{
	char *error = NULL, status[512], rejected[128];
	bool keyring_failed;
	struct config c;
	int r;

	snprintf(status, sizeof(status), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64, now_usec());
	(void)sd_notify(0, status);
	log_info("reloading the configuration from %s", arg_config);
	/* The key ring first: it keeps the one in force on error, and says so; once the
	 * configuration's line is logged, the new verdict epoch has begun too. */
	keyring_failed = s->gate && exec_gate_reload_keyring(s->gate) < 0;
	r = config_load(arg_config, arg_config_given, &c, &error);
	if (r == 1)
		log_info("no %s: using the defaults", arg_config);
	/* deny_check() reads the ring from disk: with the gate's reload failed (the gate
	 * busy for 5 s, or out of memory), the ring in force is the old one, which may
	 * not sign the essential programs. */
	if (r >= 0 && keyring_failed && c.unsigned_deny && !c.unsigned_deny_force) {
		r = -EBUSY;
		if (asprintf(&error,
			     "%s: 'unsigned = deny' not applied: the key ring in force could not "
			     "be read again",
			     arg_config) < 0)
			error = NULL;
	}
	if (r >= 0)
		r = deny_check(&c, &error);
	if (r >= 0)
		r = config_apply(&c, s);
	if (r < 0) {
		if (!error &&
		    asprintf(&error, "Failed to apply the configuration: %s", strerror(-r)) < 0)
			error = NULL;
		const char *why = error ? error : strerror(-r);

		log_lines(LOG_ERR, why, "; keeping the configuration in force");
		/* The first error: the status is one line. */
		snprintf(
			status, sizeof(status),
			"READY=1\nSTATUS=%s (reload failed, kept the configuration in force: %.*s)",
			mode_status(), (int)strcspn(why, "\n"), why);
	} else {
		snprintf(status, sizeof(status), "READY=1\nSTATUS=%s (configuration reloaded)",
			 mode_status());
	}
	if (keyring_failed)
		snprintf(status, sizeof(status),
			 "READY=1\nSTATUS=%s (reload failed, kept the key ring in force)",
			 mode_status());
	else if (keyring_rejected_status(s->gate, rejected, sizeof(rejected)))
		snprintf(status, sizeof(status), "READY=1\nSTATUS=%s (%s)", mode_status(),
			 rejected);
	(void)sd_notify(0, status);
	free(error);
}

/* How often umbrellad looks for layers whose release record was lost (a full ring
 * buffer) and arms whose thread is gone without the kernel seeing it (Linux 6.1 can
 * fail a map operation in task_free under contention). */
#define SWEEP_INTERVAL_USEC (10 * USEC_PER_SEC)

/* The kernel dropped the last reference on a layer (umb_released): free it. */
static int on_release(void *ctx, void *data, size_t size)
{
	const struct umb_release *rec = data;

	if (size >= sizeof(*rec))
		layers_released(ctx, rec->layer);
	return events_record_read();
}

/* The layers' sweep (arm.c and layers.c have no source of their own: the benchmark and
 * the tests link them without a loop). */
static int on_sweep(sd_event_source *source, _unused_ uint64_t usec, void *userdata)
{
	struct layers *layers = userdata;
	int r;

	(void)arm_sweep(layers);
	(void)layers_sweep(layers);
	r = sd_event_source_set_time_relative(source, SWEEP_INTERVAL_USEC);
	if (r < 0)
		log_error_errno(r, "Failed to schedule the next sweep of the layers: %m");
	return 0;
}

/* SIGHUP reloads; SIGTERM and SIGINT stop the loop. */
static int on_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata)
{
	if (si->ssi_signo == SIGHUP) {
		reload(userdata);
		return 0;
	}
	log_info("%s, stopping", strsignal((int)si->ssi_signo));
	return sd_event_exit(sd_event_source_get_event(source), 0);
}

/*
 * The event loop: the signals (here), the sweep of the layers (here: layers.c has no
 * loop), and what each module attaches: the socket (server.c), the denial and release
 * records (events.c), the exec gate's requests for layers (gate-bridge.c: the gate has a
 * loop and thread of its own, gate-thread.c), the mounts below restricted directories
 * (fs-watch.c). event-priority.h says
 * in which order a turn serves them. The watchdog (watchdog.c) pets systemd at half of
 * WatchdogSec= while this loop and the gate's both turn.
 */
static int loop_new(struct server *s, struct ring_buffer *events, int stats_fd, int budget_fd,
		    sd_event **ret)
{
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
	_cleanup_(sd_event_unrefp) sd_event *e = NULL;
	sd_event_source *source = NULL; /* left as it was when an add fails */
	int r;

	r = sd_event_new(&e);
	if (r < 0)
		return log_error_errno(r, "Failed to create the event loop: %m");
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		/* Floating: the loop owns them. The signals are blocked in main(). */
		r = sd_event_add_signal(e, &source, signals[i], on_signal, s);
		if (r >= 0)
			r = sd_event_source_set_priority(source, PRIORITY_SIGNAL);
		if (r >= 0)
			r = sd_event_source_set_floating(source, 1);
		source = sd_event_source_unref(source);
		if (r < 0)
			return log_error_errno(r, "Failed to watch %s: %m", strsignal(signals[i]));
	}
	r = sd_event_add_time_relative(e, &source, CLOCK_MONOTONIC, SWEEP_INTERVAL_USEC,
				       USEC_PER_SEC, on_sweep, s->layers);
	if (r >= 0)
		r = sd_event_source_set_enabled(source, SD_EVENT_ON);
	if (r >= 0)
		r = sd_event_source_set_floating(source, 1);
	source = sd_event_source_unref(source);
	if (r < 0)
		return log_error_errno(r, "Failed to schedule the sweep of the layers: %m");
	r = watchdog_attach(e, s->gate);
	if (r < 0)
		return r;
	r = events_attach(events, stats_fd, budget_fd, e);
	if (r < 0)
		return r;
	if (s->gate) {
		r = exec_gate_attach_main(s->gate, e);
		if (r < 0)
			return r;
	}
	if (s->layers->watch) {
		r = fs_watch_attach(s->layers->watch, e);
		if (r < 0)
			return r;
	}
	r = server_attach(s, e);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(e);
	return 0;
}

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel = NULL;
	struct ring_buffer *events = NULL;
	struct exec_gate *gate = NULL;
	struct server server = { .listen_fd = -1, .conn_full_fd = -1, .daemon_sock_fd = -1 };
	struct layers layers = {};
	struct event_sinks sinks = { .follows = &server.follows,
				     .history = &server.history,
				     .layers = &layers };
	struct fs_watch watch = {};
	struct pin pin = { .dir_fd = -1, .meta_fd = -1 };
	char status[256], rejected[128], *config_error = NULL;
	sd_event *loop = NULL;
	sigset_t signals;
	int r;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	libbpf_set_print(libbpf_print);
	/* Known before the gate's thread writes its first message (log.c learns it once). */
	(void)log_stderr_is_journal();

	if (arg_reset_pins)
		return pin_reset(arg_pin_dir) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	if (arg_check_config)
		return check_config();

	/* Before anything is loaded: a bad file changes nothing, pinned or not. */
	r = config_load(arg_config, arg_config_given, &config, &config_error);
	if (r < 0) {
		log_lines(LOG_ERR, config_error ? config_error : strerror(-r), "");
		free(config_error);
		return EXIT_BAD_CONFIG;
	}
	if (r == 1)
		log_info("no %s: using the defaults", arg_config);
	/* Before anything is loaded too: a machine where nothing could be exec'd is the
	 * worse failure, and the administrator must see why (exit 78, as a bad file). */
	r = deny_check(&config, &config_error);
	if (r < 0) {
		log_lines(LOG_ERR, config_error ? config_error : strerror(-r), "");
		free(config_error);
		return EXIT_BAD_CONFIG;
	}

	r = lsm_probe_bpf_active();
	if (r < 0) {
		log_error("%s", lsm_probe_hint(r));
		return EXIT_FAILURE;
	}

	/* Blocked before anything is loaded, so that they wait for the loop (sd-event reads
	 * them from a signalfd, sd_event_add_signal(3)): SIGHUP reloads the configuration,
	 * SIGTERM and SIGINT stop. */
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGHUP);
	sigprocmask(SIG_BLOCK, &signals, NULL);

	(void)sd_notify(0, "STATUS=Loading the BPF programs");
	r = pin_open(arg_pin_dir, &pin);
	if (r < 0)
		goto out;
	r = bpf_start(&pin, &skel);
	if (r < 0)
		goto out;

	ctl_fd = bpf_map__fd(skel->maps.umb_ctl);
	/*
	 * Umbrella's own files, before anything else is read again (the key ring) or can be
	 * asked for. Fail closed: an umbrellad that cannot keep restricted roots from its
	 * configuration and key ring would run with them open to "mode = permissive" for
	 * the next start or a key of their own now; the entries a previous umbrellad made
	 * stay in force meanwhile (pinned), and systemd says why it failed.
	 */
	r = self_files_protect(bpf_map__fd(skel->maps.umb_protected), arg_config, arg_keyring);
	if (r < 0) {
		log_error_errno(r, "refusing to run: Umbrella's own files are not protected from "
				   "restricted tasks: %m");
		goto out;
	}
	r = layers_open(&layers, &(struct layer_maps){ LAYER_MAPS_OF(skel) }, pin.meta_fd);
	if (r < 0) {
		log_error_errno(r, "failed to map the layers: %m");
		goto out;
	}
	/* Every layer made from now on follows the mounts below its directories. */
	watch.layers = &layers;
	layers.watch = &watch;
	/* Before anything makes a layer: learn those a previous umbrellad left, and free
	 * the ones nobody holds any more. */
	r = layers_adopt(&layers);
	if (r < 0) {
		log_error_errno(r, "failed to read the pinned layers: %m");
		goto out;
	}
	if (pin.adopted) {
		struct layer_stats st;

		layers_stats(&layers, &st);
		log_info("%u live layers with %u fs rules; freed %d "
			 "that nobody held",
			 st.live, st.rules, r);
	}

	events = events_open(bpf_map__fd(skel->maps.umb_events), &sinks);
	if (!events || ring_buffer__add(events, bpf_map__fd(skel->maps.umb_released), on_release,
					&layers) < 0) {
		r = -errno;
		log_error_errno(r, "failed to read the ring buffers: %m");
		goto out;
	}

	server = (struct server){ .layers = &layers,
				  .task_fd = bpf_map__fd(skel->maps.umb_task),
				  .conn_full_fd = bpf_map__fd(skel->maps.umb_conn_full),
				  .daemon_sock_fd = bpf_map__fd(skel->maps.umb_daemon_sock),
				  .events = events,
				  .listen_fd = -1 };
	r = config_apply(&config, &server);
	if (r < 0) {
		log_error_errno(r, "Failed to apply the configuration: %m");
		goto out;
	}
	/* Before the socket: once umbrellad is ready, its gate holds execs. */
	r = exec_gate_new(
		&(struct exec_gate_maps){
			.verdicts = bpf_map__fd(skel->maps.umb_verdicts),
			.verdict_log = bpf_map__fd(skel->maps.umb_verdict_log),
			.ctl = ctl_fd,
			.invalidated = bpf_map__fd(skel->maps.umb_invalidated),
			.gate_stats = bpf_map__fd(skel->maps.umb_gate_stats),
			.policies = bpf_map__fd(skel->maps.umb_policies),
			.backing_exec = bpf_map__fd(skel->maps.umb_backing_exec),
			.exec_pins = bpf_map__fd(skel->maps.umb_exec_pins),
			.layers = &layers,
		},
		arg_keyring, &gate);
	if (r < 0)
		goto out;
	server.gate = gate;
	server.listen_fd = server_listen(arg_socket);
	if (server.listen_fd < 0) {
		r = server.listen_fd;
		log_error_errno(r, "failed to listen on %s: %m", arg_socket);
		goto out;
	}
	r = loop_new(&server, events, bpf_map__fd(skel->maps.umb_stats),
		     bpf_map__fd(skel->maps.umb_event_budget), &loop);
	if (r < 0)
		goto out;
	/* Its own loop on its own thread: no request delays an exec's answer. */
	r = exec_gate_start(gate);
	if (r < 0)
		goto out;

	log_info("programs attached, listening on %s", arg_socket);
	if (keyring_rejected_status(gate, rejected, sizeof(rejected)))
		snprintf(status, sizeof(status), "READY=1\nSTATUS=%s (%s)", mode_status(),
			 rejected);
	else
		snprintf(status, sizeof(status), "READY=1\nSTATUS=%s (%s %s)", mode_status(),
			 pin.adopted ? "adopted the state pinned in" : "new state pinned in",
			 pin.dir);
	(void)sd_notify(0, status);

	r = sd_event_loop(loop);
	if (r < 0)
		log_error_errno(r, "The event loop failed: %m");
	(void)sd_notify(0, "STOPPING=1");
	/* Before the last records: from here on nothing asks this thread for a layer. */
	exec_gate_stop(gate);
	(void)ring_buffer__consume(events);
	journal_flush_suppressed(true);

out:
	exec_gate_stop(gate);
	if (server.listen_fd >= 0)
		(void)unlink(arg_socket);
	server_close(&server);
	events_detach();
	ring_buffer__free(events);
	history_free(&server.history);
	/* Execs waiting on the gate are allowed by the kernel when its group closes; the
	 * pinned verdicts and the mode keep deciding in BPF. */
	exec_gate_free(gate);
	fs_watch_close(&watch);
	layers_close(&layers);
	if (skel)
		log_info("the programs stay attached through the links pinned in "
			 "%s",
			 pin.dir);
	if (skel) { /* the next umbrellad, or --reset-pins, may take over */
		int q = state_unregister_daemon(bpf_map__fd(skel->maps.umb_ctl), (__u32)getpid());

		if (q < 0)
			log_warning_errno(q, "Failed to unregister from umb_ctl: %m");
	}
	umbrella_bpf__destroy(skel); /* closes our fds: the pinned links and maps stay */
	pin_close(&pin);
	sd_event_unref(loop);
	if (r == -EPROTO && !skel)
		return EXIT_PINS_INCOMPATIBLE;
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
