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

/*
 * Where the figures go: Prometheus' text, or (--json) an array of the same families,
 * [{"name", "type", "help", "samples": [{"name", "labels": {...}, "value"}]}], so that
 * both forms name the same things and a reader of one can find them in the other.
 */
struct metrics_out {
	FILE *text;	   /* the text form, or NULL */
	json_writer_t *jw; /* the JSON form, or NULL */
	bool in_family;	   /* JSON: a family's object and samples array are open */
};

static void family(struct metrics_out *o, const char *name, const char *type, const char *help)
{
	if (o->text) {
		fprintf(o->text, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
		return;
	}
	if (o->in_family) {
		jsonw_end_array(o->jw);
		jsonw_end_object(o->jw);
	}
	jsonw_start_object(o->jw);
	jsonw_string_field(o->jw, "name", name);
	jsonw_string_field(o->jw, "type", type);
	jsonw_string_field(o->jw, "help", help);
	jsonw_name(o->jw, "samples");
	jsonw_start_array(o->jw);
	o->in_family = true;
}

/*
 * One sample of the current family: @name, the label pairs @labels (name, value, ...,
 * NULL) and @value. @seconds: @value is in microseconds and shown in seconds.
 */
static void sample_labels(struct metrics_out *o, const char *name, const char *const *labels,
			  unsigned long long value, bool seconds)
{
	if (o->text) {
		fputs(name, o->text);
		for (size_t i = 0; labels[i]; i += 2)
			fprintf(o->text, "%s%s=\"%s\"", i ? "," : "{", labels[i], labels[i + 1]);
		if (labels[0])
			fputc('}', o->text);
		if (seconds)
			fprintf(o->text, " %.6f\n", (double)value / 1e6);
		else
			fprintf(o->text, " %llu\n", value);
		return;
	}
	jsonw_start_object(o->jw);
	jsonw_string_field(o->jw, "name", name);
	jsonw_name(o->jw, "labels");
	jsonw_start_object(o->jw);
	for (size_t i = 0; labels[i]; i += 2)
		jsonw_string_field(o->jw, labels[i], labels[i + 1]);
	jsonw_end_object(o->jw);
	jsonw_name(o->jw, "value");
	if (seconds)
		jsonw_printf(o->jw, "%.6f", (double)value / 1e6);
	else
		jsonw_lluint(o->jw, value);
	jsonw_end_object(o->jw);
}

static void sample(struct metrics_out *o, const char *name, unsigned long long value)
{
	sample_labels(o, name, (const char *const[]){ NULL }, value, false);
}

/* A sample with the one label @label="@value". */
static void sample1(struct metrics_out *o, const char *name, const char *label,
		    const char *label_value, unsigned long long value)
{
	sample_labels(o, name, (const char *const[]){ label, label_value, NULL }, value, false);
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

static int print_state(struct metrics_out *out, const struct pinned_maps *m)
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
	sample1(out, "umbrella_fs_rules", "map", "inode", inode_rules);
	sample1(out, "umbrella_fs_rules", "map", "name", name_rules);
	family(out, "umbrella_fs_rules_limit", "gauge", "The most rules each map holds.");
	sample1(out, "umbrella_fs_rules_limit", "map", "inode",
		max_entries(m->fs_inodes, "umb_fs_inodes"));
	sample1(out, "umbrella_fs_rules_limit", "map", "name",
		max_entries(m->fs_names, "umb_fs_names"));
	return 0;
}

static int print_drops(struct metrics_out *out, const struct pinned_maps *m)
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
		sample1(out, "umbrella_records_dropped_total", "ring", drops[i].ring, value);
	}
	return 0;
}

/* The BPF programs' counters (umb_counters); zeros when umbrellad has not pinned the
 * map yet. Denials are listed for the (hook, kind) pairs that have any. */
static int print_counters(struct metrics_out *out)
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
				sample_labels(
					out, "umbrella_denials_total",
					(const char *const[]){ "hook", umb_hook_name(hook), "kind",
							       umb_item_kind_name(kind), NULL },
					value, false);
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
static int print_gate(struct metrics_out *out)
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
	sample1(out, "umbrella_gate_verifications_total", "result", "signed", s.signed_ok);
	sample1(out, "umbrella_gate_verifications_total", "result", "unsigned", s.unsigned_);
	sample1(out, "umbrella_gate_verifications_total", "result", "refused", s.refused);
	sample1(out, "umbrella_gate_verifications_total", "result", "error", s.errors);

	family(out, "umbrella_gate_wait_seconds", "histogram",
	       "How long an exec waited for the gate to read its file.");
	for (size_t i = 0; i < UMB_GATE_LATENCY_BUCKETS; i++) {
		char le[32] = "+Inf";

		cumulative += s.latency_buckets[i];
		if (i < UMB_GATE_LATENCY_BUCKETS - 1)
			snprintf(le, sizeof(le), "%g", (double)latency_bounds_us[i] / 1e6);
		sample1(out, "umbrella_gate_wait_seconds_bucket", "le", le, cumulative);
	}
	sample_labels(out, "umbrella_gate_wait_seconds_sum", (const char *const[]){ NULL },
		      s.latency_sum_us, true);
	sample(out, "umbrella_gate_wait_seconds_count", cumulative);
	return 0;
}

/*
 * Writes the figures to @f. The JSON form is made in memory and written once complete:
 * a failure half-way is then the one {"error": ...} object on stdout, not a torn array.
 */
static int print_metrics(FILE *f)
{
	struct metrics_out out = { .text = arg_json ? NULL : f };
	char *json = NULL;
	size_t json_size = 0;
	FILE *mem = NULL;
	struct pinned_maps m;
	int r;

	if (arg_json) {
		mem = open_memstream(&json, &json_size);
		out.jw = mem ? jsonw_new(mem) : NULL;
		if (!out.jw) {
			if (mem)
				fclose(mem);
			free(json);
			cli_error("metrics: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
		jsonw_pretty(out.jw, arg_pretty);
		jsonw_start_array(out.jw);
	}
	r = pinned_maps_open(&m);
	if (r == 0) {
		r = print_state(&out, &m);
		if (r == 0)
			r = print_drops(&out, &m);
		pinned_maps_close(&m);
	}
	if (r == 0)
		r = print_counters(&out);
	if (r == 0)
		r = print_gate(&out);
	if (!out.jw)
		return r;
	if (out.in_family) {
		jsonw_end_array(out.jw);
		jsonw_end_object(out.jw);
	}
	jsonw_end_array(out.jw);
	jsonw_destroy(&out.jw); /* ends the line */
	if (fclose(mem) != 0 && r == 0) {
		r = -errno;
		cli_error("metrics: %s", strerror(-r));
	}
	if (r == 0 && fwrite(json, 1, json_size, f) != json_size) {
		r = -errno;
		cli_error("metrics: %s", strerror(-r));
	}
	free(json);
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
	return cli_help("Usage: umbrella-cli [-j|-p] metrics [-o FILE]\n"
			"\n"
			"Prints Umbrella's figures in the Prometheus text format, read from the\n"
			"pinned maps (as root). -o FILE writes them to FILE (through a temporary\n"
			"file renamed over it), as node_exporter's textfile collector wants.\n"
			"With --json, the same families as a JSON array: name, type, help and\n"
			"samples, each with its name, labels and value.\n");
}

int cli_metrics(int argc, char **argv)
{
	static const struct option options[] = { { "output", required_argument, NULL, 'o' },
						 { "help", no_argument, NULL, 'h' },
						 {} };
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
				  argv[optind - 1],
				  c == ':' ? "missing argument" : "unknown option");
			return EXIT_USAGE;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "help") && optind + 1 == argc)
		return metrics_help();
	if (optind < argc) {
		cli_error("metrics: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	r = output ? write_file(output) : print_metrics(stdout);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}
