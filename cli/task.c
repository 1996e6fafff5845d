// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrella-cli task - the processes that carry layers.
 *
 * umb_task is task storage: it cannot be iterated, only looked up by a pidfd. So
 * "task list" walks /proc and looks up every process. A process is shown by its main
 * thread's state. Threads normally have the same (they inherit it at creation, and a
 * layer applied with rfork or at exec goes to the new process); a thread that called
 * umb_restrict_self() after other threads were started has more layers than they do,
 * and pidfds of threads other than the main one need Linux 6.9, so those are not shown.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cli.h"
#include "command.h"
#include "layer.h"
#include "pinned-maps.h"
#include "printable.h"
#include "task.h"

/* Reads the state of process @pid. Return: 0, -ENOENT (unrestricted), -ESRCH, -errno. */
static int task_state(const struct pinned_maps *m, pid_t pid, struct umb_task_state *st)
{
	int fd, r = 0;

	fd = pidfd_open(pid, 0);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(m->task, &fd, st) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && !st->layer_count && !st->pending_layer)
		r = -ENOENT; /* an entry with nothing on it restricts nothing */
	if (st->layer_count > UMB_MAX_LAYERS)
		st->layer_count = UMB_MAX_LAYERS;
	return r;
}

/* The command name of @pid, "?" when it is gone. */
static void task_comm(pid_t pid, char comm[UMB_COMM_LEN])
{
	char path[64];
	FILE *f;

	strcpy(comm, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, UMB_COMM_LEN, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

static void task_row_json(json_writer_t *jw, pid_t pid, const char *comm,
			  const struct umb_task_state *st)
{
	jsonw_start_object(jw);
	jsonw_int_field(jw, "pid", pid);
	jsonw_string_field(jw, "comm", comm);
	jsonw_name(jw, "layers");
	jsonw_start_array(jw);
	for (__u32 i = 0; i < st->layer_count; i++)
		jsonw_uint(jw, st->layers[i]);
	jsonw_end_array(jw);
	if (st->pending_layer)
		jsonw_uint_field(jw, "pending_layer", st->pending_layer);
	else
		jsonw_null_field(jw, "pending_layer");
	jsonw_end_object(jw);
}

static void task_row_text(pid_t pid, const char *comm, const struct umb_task_state *st)
{
	char safe[CLI_PRINTABLE_SIZE(UMB_COMM_LEN)];

	printf("%-8d %-16s", pid, cli_printable(comm, safe, sizeof(safe)));
	for (__u32 i = 0; i < st->layer_count; i++)
		printf(" %u", st->layers[i]);
	if (st->pending_layer)
		printf(" (pending at exec: %u)", st->pending_layer);
	putchar('\n');
}

static int task_list(const struct pinned_maps *m, char **args)
{
	json_writer_t *jw = NULL;
	struct dirent *de;
	int r = 0;
	DIR *proc;

	(void)args;
	proc = opendir("/proc");
	if (!proc) {
		cli_error("/proc: %s", strerror(errno));
		return EXIT_ERROR;
	}
	if (arg_json && !(jw = cli_json_new())) {
		closedir(proc);
		return EXIT_ERROR;
	}
	if (jw)
		jsonw_start_array(jw);
	else
		printf("%-8s %-16s %s\n", "PID", "COMM", "LAYERS (bottom first)");
	while ((de = readdir(proc))) {
		struct umb_task_state st;
		char comm[UMB_COMM_LEN], *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		r = task_state(m, (pid_t)pid, &st);
		if (r == -ENOENT || r == -ESRCH) { /* unrestricted, or gone meanwhile */
			r = 0;
			continue;
		}
		if (r < 0) {
			cli_error("task %ld: %s", pid, strerror(-r));
			break;
		}
		task_comm((pid_t)pid, comm);
		if (jw)
			task_row_json(jw, (pid_t)pid, comm, &st);
		else
			task_row_text((pid_t)pid, comm, &st);
	}
	if (jw) {
		jsonw_end_array(jw);
		jsonw_destroy(&jw);
	}
	closedir(proc);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

/* One layer of a task; a layer missing from umb_layers (never expected) says so. */
static int task_layer(const struct pinned_maps *m, json_writer_t *jw, __u32 id)
{
	int r = layer_print(m, jw, id, "\t");

	if (r != -ENOENT)
		return r;
	if (jw) {
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "id", id);
		jsonw_bool_field(jw, "missing", true);
		jsonw_end_object(jw);
	} else {
		printf("\tlayer %u: not in umb_layers\n", id);
	}
	return 0;
}

static int task_show(const struct pinned_maps *m, char **args)
{
	const char *arg = args[0];
	struct umb_task_state st = {};
	char comm[UMB_COMM_LEN], safe_comm[CLI_PRINTABLE_SIZE(UMB_COMM_LEN)], *end;
	json_writer_t *jw = NULL;
	long pid;
	int r;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (errno || end == arg || *end || pid <= 0 || pid > INT32_MAX) {
		cli_error("task show %s: not a process id", arg);
		return EXIT_USAGE;
	}
	r = task_state(m, (pid_t)pid, &st);
	if (r == -ESRCH) {
		cli_error("task %ld: no such process", pid);
		return EXIT_NOT_FOUND;
	}
	if (r < 0 && r != -ENOENT) {
		cli_error("task %ld: %s", pid, strerror(-r));
		return EXIT_ERROR;
	}
	if (r == -ENOENT)
		st = (struct umb_task_state){};
	task_comm((pid_t)pid, comm);
	if (arg_json && !(jw = cli_json_new()))
		return EXIT_ERROR;

	if (jw) {
		jsonw_start_object(jw);
		jsonw_int_field(jw, "pid", pid);
		jsonw_string_field(jw, "comm", comm);
		jsonw_bool_field(jw, "restricted", st.layer_count > 0);
		jsonw_name(jw, "layers");
		jsonw_start_array(jw);
	} else if (!st.layer_count) {
		printf("pid %ld (%s): unrestricted\n", pid,
		       cli_printable(comm, safe_comm, sizeof(safe_comm)));
	} else {
		printf("pid %ld (%s): %u layer%s, bottom first\n", pid,
		       cli_printable(comm, safe_comm, sizeof(safe_comm)), st.layer_count,
		       st.layer_count == 1 ? "" : "s");
	}
	r = 0;
	for (__u32 i = 0; i < st.layer_count && r == 0; i++)
		r = task_layer(m, jw, st.layers[i]);
	if (jw) {
		jsonw_end_array(jw);
		jsonw_name(jw, "pending_layer");
		if (st.pending_layer && r == 0)
			r = task_layer(m, jw, st.pending_layer);
		else
			jsonw_null(jw);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else if (st.pending_layer && r == 0) {
		printf("pending, pushed at its next exec:\n");
		r = task_layer(m, NULL, st.pending_layer);
	}
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}

static int task_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_help("Usage: umbrella-cli [-j|-p] task list\n"
			"       umbrella-cli [-j|-p] task show PID\n"
			"       umbrella-cli task help\n"
			"\n"
			"A process is shown by the state of its main thread.\n");
}

static int do_list(int argc, char **argv)
{
	return pinned_maps_command("task", argc, argv, 0, "", task_list);
}

static int do_show(int argc, char **argv)
{
	return pinned_maps_command("task", argc, argv, 1, "PID", task_show);
}

int cli_task(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "list", do_list },
		{ "show", do_show },
		{},
	};

	return cmd_select(cmds, "task", argc - 1, argv + 1, task_help);
}
