// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli metrics - Umbrella's figures in the Prometheus text format (version
 * 0.0.4, which node_exporter's textfile collector reads): denials by hook and kind of
 * item, records the ring buffers could not take, the exec verdict cache, the exec
 * gate's verifications and how long execs waited for them, and the maps' occupancy
 * against their limits.
 *
 * Everything comes from the pinned maps (read-only), like status: the figures are
 * there while umbrellad is down, and counters only reset with the pins (a reboot or
 * umbrellad --reset-pins), which Prometheus handles as a counter reset.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <umbrella/bpf-abi.h>
#include <umbrella/event-names.h>

#include "cli.h"
#include "command.h"
#include "daemon-pid.h"
#include "metrics.h"
#include "pinned-maps.h"
#include "status.h"

static const unsigned long long latency_bounds_us[] = UMB_GATE_LATENCY_BOUNDS_US;

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample(FILE *out, const char *name, unsigned long long value)
{
	fprintf(out, "%s %llu\n", name, value);
}

/* The map's max_entries, or 0 (with the error printed). */
static __u32 max_entries(int fd, const char *name)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_map_get_info_by_fd(fd, &info, &len) < 0) {
		cli_error("%s/%s: %s", arg_pin_dir, name, strerror(errno));
		return 0;
	}
	return info.max_entries;
}

static int print_state(FILE *out, const struct pinned_maps *m)
{
	struct umb_ctl ctl;
	__u32 inode_rules, name_rules, *ids = NULL;
	int layers, r;

	r = pinned_ctl_read(m, &ctl);
	if (r < 0)
		return r;
	family(out, "umbrella_daemon_running", "gauge",
	       "Whether umbrellad runs (the pinned programs enforce either way).");
	sample(out, "umbrella_daemon_running", daemon_pid_is_umbrellad(ctl.daemon_tgid));
	family(out, "umbrella_permissive", "gauge",
	       "Whether the system mode is permissive (denials recorded, not enforced).");
	sample(out, "umbrella_permissive", !!(ctl.flags & UMB_CTL_PERMISSIVE));

	layers = pinned_layer_ids(m, &ids);
	free(ids);
	if (layers < 0)
		return layers;
	family(out, "umbrella_layers", "gauge", "Live layers.");
	sample(out, "umbrella_layers", (unsigned long long)layers);
	family(out, "umbrella_layers_limit", "gauge", "The most layers that can live at once.");
	sample(out, "umbrella_layers_limit", UMB_LAYER_SLOTS);
	family(out, "umbrella_layers_freed_total", "counter",
	       "Layers freed since the maps were made.");
	sample(out, "umbrella_layers_freed_total", m->meta.layers_freed);

	r = pinned_count_entries(m->fs_inodes, "umb_fs_inodes", &inode_rules);
	if (r == 0)
		r = pinned_count_entries(m->fs_names, "umb_fs_names", &name_rules);
	if (r < 0)
		return r;
	family(out, "umbrella_fs_rules", "gauge",
	       "File system rules held, by map: inode (an existing object) or name.");
	fprintf(out, "umbrella_fs_rules{map=\"inode\"} %u\n", inode_rules);
	fprintf(out, "umbrella_fs_rules{map=\"name\"} %u\n", name_rules);
	family(out, "umbrella_fs_rules_limit", "gauge", "The most rules each map holds.");
	fprintf(out, "umbrella_fs_rules_limit{map=\"inode\"} %u\n",
		max_entries(m->fs_inodes, "umb_fs_inodes"));
	fprintf(out, "umbrella_fs_rules_limit{map=\"name\"} %u\n",
		max_entries(m->fs_names, "umb_fs_names"));
	return 0;
}

static int print_drops(FILE *out, const struct pinned_maps *m)
{
	static const struct {
		__u32 stat;
		const char *ring;
	} drops[] = {
		{ UMB_STAT_EVENTS_DROPPED, "events" },
		{ UMB_STAT_INVALIDATIONS_DROPPED, "invalidated" },
		{ UMB_STAT_RELEASES_DROPPED, "released" },
	};
	__u64 value;

	family(out, "umbrella_records_dropped_total", "counter",
	       "Records a ring buffer could not take (denials still counted and decided).");
	for (size_t i = 0; i < ARRAY_SIZE(drops); i++) {
		int r = pinned_stat_read(m, drops[i].stat, &value);

		if (r < 0)
			return r;
		fprintf(out, "umbrella_records_dropped_total{ring=\"%s\"} %llu\n", drops[i].ring,
			(unsigned long long)value);
	}
	return 0;
}

/* The BPF programs' counters (umb_counters); zeros when umbrellad has not pinned the
 * map yet. Denials are listed for the (hook, kind) pairs that have any. */
static int print_counters(FILE *out)
{
	__u64 hits = 0, misses = 0, value;
	int fd, r = 0;

	fd = pinned_map_open_optional("umb_counters", sizeof(__u64));
	if (fd < 0 && fd != -ENOENT)
		return fd;
	family(out, "umbrella_denials_total", "counter",
	       "Denials by LSM hook and kind of item (fs, net, right, cap, scope, verdict, "
	       "self), enforced or (permissive) recorded.");
	for (__u32 hook = 0; fd >= 0 && hook < UMB_HOOK_MAX; hook++) {
		for (__u32 kind = 0; kind < UMB_COUNTER_ITEM_KINDS; kind++) {
			r = pinned_percpu_sum(fd, "umb_counters", umb_counter_denials(hook, kind),
					      &value);
			if (r < 0)
				goto out;
			if (value)
				fprintf(out,
					"umbrella_denials_total{hook=\"%s\",kind=\"%s\"} %llu\n",
					umb_hook_name(hook), umb_item_kind_name(kind),
					(unsigned long long)value);
		}
	}
	if (fd >= 0) {
		r = pinned_percpu_sum(fd, "umb_counters", UMB_COUNTER_VERDICT_HITS, &hits);
		if (r == 0)
			r = pinned_percpu_sum(fd, "umb_counters", UMB_COUNTER_VERDICT_MISSES,
					      &misses);
		if (r < 0)
			goto out;
	}
	family(out, "umbrella_verdict_cache_hits_total", "counter",
	       "Files exec'd (interpreters too) that had a valid cached verdict.");
	sample(out, "umbrella_verdict_cache_hits_total", hits);
	family(out, "umbrella_verdict_cache_misses_total", "counter",
	       "Files exec'd (interpreters too) that had none.");
	sample(out, "umbrella_verdict_cache_misses_total", misses);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* The exec gate's figures (umb_gate_stats, written by umbrellad). */
static int print_gate(FILE *out)
{
	struct umb_gate_stats s = {};
	unsigned long long cumulative = 0;
	__u32 zero = 0;
	int fd;

	fd = pinned_map_open_optional("umb_gate_stats", sizeof(s));
	if (fd < 0 && fd != -ENOENT)
		return fd;
	if (fd >= 0) {
		int r = bpf_map_lookup_elem(fd, &zero, &s) < 0 ? -errno : 0;

		close(fd);
		if (r < 0) {
			cli_error("%s/umb_gate_stats: %s", arg_pin_dir, strerror(-r));
			return r;
		}
	}
	family(out, "umbrella_gate_verifications_total", "counter",
	       "Files the exec gate read, by result: signed (verified), unsigned, refused "
	       "(bad signature, unknown or revoked key, malformed), error (not verified).");
	fprintf(out, "umbrella_gate_verifications_total{result=\"signed\"} %llu\n",
		(unsigned long long)s.signed_ok);
	fprintf(out, "umbrella_gate_verifications_total{result=\"unsigned\"} %llu\n",
		(unsigned long long)s.unsigned_);
	fprintf(out, "umbrella_gate_verifications_total{result=\"refused\"} %llu\n",
		(unsigned long long)s.refused);
	fprintf(out, "umbrella_gate_verifications_total{result=\"error\"} %llu\n",
		(unsigned long long)s.errors);

	family(out, "umbrella_gate_wait_seconds", "histogram",
	       "How long an exec waited for the gate to read its file.");
	for (size_t i = 0; i < UMB_GATE_LATENCY_BUCKETS; i++) {
		cumulative += s.latency_buckets[i];
		if (i < UMB_GATE_LATENCY_BUCKETS - 1)
			fprintf(out, "umbrella_gate_wait_seconds_bucket{le=\"%g\"} %llu\n",
				(double)latency_bounds_us[i] / 1e6, cumulative);
		else
			fprintf(out, "umbrella_gate_wait_seconds_bucket{le=\"+Inf\"} %llu\n",
				cumulative);
	}
	fprintf(out, "umbrella_gate_wait_seconds_sum %.6f\n", (double)s.latency_sum_us / 1e6);
	fprintf(out, "umbrella_gate_wait_seconds_count %llu\n", cumulative);
	return 0;
}

static int print_metrics(FILE *out)
{
	struct pinned_maps m;
	int r;

	r = pinned_maps_open(&m);
	if (r < 0)
		return r;
	r = print_state(out, &m);
	if (r == 0)
		r = print_drops(out, &m);
	pinned_maps_close(&m);
	if (r == 0)
		r = print_counters(out);
	if (r == 0)
		r = print_gate(out);
	return r;
}

/* Writes the metrics to @path through a temporary file renamed over it, so that a
 * collector never reads half of them. */
static int write_file(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int r, fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		cli_error("metrics: %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		cli_error("metrics: %s: %s", tmp, strerror(-r));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return r;
	}
	r = print_metrics(f);
	if (fflush(f) != 0 && r == 0) {
		r = -errno;
		cli_error("metrics: %s: %s", tmp, strerror(-r));
	}
	if (fclose(f) != 0 && r == 0) {
		r = -errno;
		cli_error("metrics: %s: %s", tmp, strerror(-r));
	}
	if (r == 0 && rename(tmp, path) < 0) {
		r = -errno;
		cli_error("metrics: %s: %s", path, strerror(-r));
	}
	if (r < 0)
		unlink(tmp);
	return r;
}

static int metrics_help(void)
{
	return cli_help("Usage: umbrella-cli metrics [-o FILE]\n"
			"\n"
			"Prints Umbrella's figures in the Prometheus text format, read from the\n"
			"pinned maps (as root). -o FILE writes them to FILE (through a temporary\n"
			"file renamed over it), as node_exporter's textfile collector wants.\n"
			"There is no JSON form: --json is an error.\n");
}

int cli_metrics(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *output = NULL;
	int c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", options, NULL)) >= 0) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			return metrics_help();
		default:
			cli_error("metrics: %s: %s (try 'umbrella-cli metrics help')",
				  argv[optind - 1], c == ':' ? "missing argument" : "unknown option");
			return EXIT_USAGE;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "help") && optind + 1 == argc)
		return metrics_help();
	if (optind < argc) {
		cli_error("metrics: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (arg_json) {
		cli_error("metrics: the output is Prometheus' text format, not JSON");
		return EXIT_USAGE;
	}
	r = output ? write_file(output) : print_metrics(stdout);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}
