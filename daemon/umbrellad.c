// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the privileged side of Umbrella.
 *
 * Loads and attaches the BPF LSM programs, serves the local socket on which processes
 * ask for layers on their children (rfork) or themselves (restrict_self), and prints the
 * denials the programs report. Stays in the foreground; tells systemd when it is ready.
 * Pinning, the journal, configuration and the signed-binary gate come with the issues
 * that follow.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/protocol.h>

#include "bpf-open.h"
#include "events.h"
#include "lsm-probe.h"
#include "server.h"
#include "umbrella.skel.h"

static const char *arg_socket = UMB_SOCKET_PATH;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* The verifier log comes at warning level: keep it, it says why a load failed. */
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs(SD_WARNING, stderr);
	return vfprintf(stderr, fmt, args);
}

static void help(void)
{
	printf("Usage: umbrellad [OPTION]...\n"
	       "Loads Umbrella's BPF LSM programs and serves restriction requests.\n\n"
	       "  --socket PATH   listen on PATH (default " UMB_SOCKET_PATH ")\n"
	       "  --help          show this help\n"
	       "  --version       show the version\n");
}

static int parse_argv(int argc, char *argv[])
{
	enum { ARG_SOCKET = 0x100 };
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "socket", required_argument, NULL, ARG_SOCKET },
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "hV", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case 'V':
			printf("umbrellad %s (ABI %d)\n", UMBRELLA_VERSION, UMB_ABI_VERSION);
			return 0;
		case ARG_SOCKET:
			arg_socket = optarg;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, SD_ERR "umbrellad: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 1;
}

/* Opens, loads and attaches the BPF object, and tells it which process we are. */
static int bpf_start(struct umbrella_bpf **ret_skel)
{
	struct umbrella_bpf *skel;
	struct umb_ctl ctl = { .daemon_tgid = (__u32)getpid() };
	__u32 zero = 0;
	int r;

	r = umbrella_bpf_open_load(&skel);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: failed to load the BPF object: %s\n",
			strerror(-r));
		return r;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.umb_ctl), &zero, &ctl, BPF_ANY) < 0) {
		r = -errno;
		fprintf(stderr, SD_ERR "umbrellad: failed to configure the BPF object: %s\n",
			strerror(-r));
		umbrella_bpf__destroy(skel);
		return r;
	}
	r = umbrella_bpf__attach(skel);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: failed to attach the BPF programs: %s\n",
			strerror(-r));
		umbrella_bpf__destroy(skel);
		return r;
	}
	*ret_skel = skel;
	return 0;
}

/* Serves until SIGTERM or SIGINT arrives on @signal_fd. */
static int run(struct server *s, struct ring_buffer *events, int stats_fd, int signal_fd)
{
	for (;;) {
		struct pollfd fds[3 + SERVER_MAX_CLIENTS] = {
			{ .fd = signal_fd, .events = POLLIN },
			{ .fd = s->listen_fd, .events = POLLIN },
			{ .fd = ring_buffer__epoll_fd(events), .events = POLLIN },
		};
		size_t n = 3, clients = s->client_count;

		for (size_t i = 0; i < clients; i++)
			fds[n++] = (struct pollfd){ .fd = s->clients[i], .events = POLLIN };
		if (poll(fds, n, 1000) < 0 && errno != EINTR)
			return -errno;

		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(signal_fd, &si, sizeof(si)) == sizeof(si)) {
				fprintf(stderr, SD_INFO "umbrellad: %s, stopping\n",
					strsignal((int)si.ssi_signo));
				return 0;
			}
		}
		(void)ring_buffer__consume(events);
		events_report_drops(stats_fd);
		/* Clients first (their fds are in the set we polled), then new ones. */
		for (size_t i = 3; i < n; i++) {
			if (fds[i].revents)
				server_serve(s, fds[i].fd);
		}
		if (fds[1].revents & POLLIN)
			(void)server_accept(s);
	}
}

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel = NULL;
	struct ring_buffer *events = NULL;
	struct server server = {};
	sigset_t stop_signals;
	int r, signal_fd = -1;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	libbpf_set_print(libbpf_print);

	r = lsm_probe_bpf_active();
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: %s\n", lsm_probe_hint(r));
		return EXIT_FAILURE;
	}

	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_signals, NULL);
	signal_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
	if (signal_fd < 0) {
		fprintf(stderr, SD_ERR "umbrellad: signalfd: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}

	r = bpf_start(&skel);
	if (r < 0)
		goto out;

	events = events_open(bpf_map__fd(skel->maps.umb_events));
	if (!events) {
		r = -errno;
		fprintf(stderr, SD_ERR "umbrellad: failed to read the ring buffer: %s\n",
			strerror(-r));
		goto out;
	}

	server = (struct server){
		.arm_fd = bpf_map__fd(skel->maps.umb_arm),
		.ctl_fd = bpf_map__fd(skel->maps.umb_ctl),
		.maps = {
			.layers = bpf_map__fd(skel->maps.umb_layers),
			.fs_inodes = bpf_map__fd(skel->maps.umb_fs_inodes),
			.fs_names = bpf_map__fd(skel->maps.umb_fs_names),
		},
	};
	server.listen_fd = server_listen(arg_socket);
	if (server.listen_fd < 0) {
		r = server.listen_fd;
		fprintf(stderr, SD_ERR "umbrellad: failed to listen on %s: %s\n", arg_socket,
			strerror(-r));
		goto out;
	}

	fprintf(stderr, SD_INFO "umbrellad: programs attached, listening on %s\n", arg_socket);
	(void)sd_notify(0, "READY=1\nSTATUS=Enforcing");

	r = run(&server, events, bpf_map__fd(skel->maps.umb_stats), signal_fd);
	(void)sd_notify(0, "STOPPING=1");
	(void)ring_buffer__consume(events);

out:
	for (size_t i = 0; i < server.client_count; i++)
		close(server.clients[i]);
	if (server.listen_fd > 0) {
		close(server.listen_fd);
		(void)unlink(arg_socket);
	}
	ring_buffer__free(events);
	umbrella_bpf__destroy(skel);
	close(signal_fd);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
