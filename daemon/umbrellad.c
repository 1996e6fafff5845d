// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - loads Umbrella's BPF LSM programs and keeps them attached.
 *
 * This first version loads the object, attaches every program, tells systemd it is
 * ready and holds the programs until SIGTERM or SIGINT. The local socket, layers,
 * pinning and the signed-binary gate come with the issues that follow.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include <umbrella/bpf-abi.h>

#include "lsm-probe.h"
#include "umbrella.skel.h"

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
	printf("Usage: umbrellad [--help] [--version]\n"
	       "Loads Umbrella's BPF LSM programs and keeps them attached until stopped.\n");
}

static int parse_argv(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
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

int main(int argc, char *argv[])
{
	struct umbrella_bpf *skel;
	sigset_t stop_signals;
	int r, sig;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

	libbpf_set_print(libbpf_print);

	r = lsm_probe_bpf_active();
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: %s\n", lsm_probe_hint(r));
		return EXIT_FAILURE;
	}

	/* Block the stop signals before attaching, so none is lost in between. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigprocmask(SIG_BLOCK, &stop_signals, NULL);

	skel = umbrella_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, SD_ERR "umbrellad: failed to load the BPF object: %s\n",
			strerror(errno));
		return EXIT_FAILURE;
	}
	r = umbrella_bpf__attach(skel);
	if (r < 0) {
		fprintf(stderr, SD_ERR "umbrellad: failed to attach the BPF programs: %s\n",
			strerror(-r));
		umbrella_bpf__destroy(skel);
		return EXIT_FAILURE;
	}

	fprintf(stderr, SD_INFO "umbrellad: programs attached\n");
	(void)sd_notify(0, "READY=1\nSTATUS=Programs attached");

	if (sigwait(&stop_signals, &sig) == 0)
		fprintf(stderr, SD_INFO "umbrellad: %s, detaching\n", strsignal(sig));
	(void)sd_notify(0, "STOPPING=1");
	umbrella_bpf__destroy(skel);
	return EXIT_SUCCESS;
}
