// SPDX-License-Identifier: GPL-2.0-only
/*
 * umbrellad - the configuration file, umbrella.conf (docs/design.md section 1; umbrella.conf(5)).
 *
 * The one place that knows its format: "key = value" lines, "#" to the end of a line is
 * a comment (no value contains one), blank lines, whitespace around keys and values.
 * Every key at most once. Anything else is an error that names the file and the line,
 * so that an administrator never wonders which of two settings won, or whether a
 * misspelt key was silently ignored; every such line is reported, not only the first.
 * The keys:
 *
 *   mode = enforcing | permissive    permissive: denials are recorded, not enforced
 *   unsigned = allow | deny          exec of binaries without a valid signature, and
 *                                    of any without a verdict, system-wide
 *   unsigned_deny_force = yes | no   apply "unsigned = deny" although essential programs
 *                                    are not validly signed (essentials.c)
 *   max_rules_per_layer = N          items in one rfork()/restrict_self() request
 *   max_layers_per_user = N          live layers one non-root uid may hold
 *   max_rules_per_user = N           fs rules of the live layers of one non-root uid
 *   max_connections_per_user = N     open connections to the socket of one non-root uid
 *   idle_timeout = SECONDS           a connection's time to send its (next) request
 *   request_time_per_user = SECONDS  umbrellad's time per minute for one non-root uid's
 *                                    requests
 *   log_rate_limit = BURST/SECONDS | off
 *
 * Parsing is pure (config_parse()): umbrellad applies a configuration only once all of
 * it has been read, and keeps the one it has when a reload finds an error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fileio.h"
#include "macro.h"

/* Bigger than any sensible configuration: a file this large is a mistake. */
#define CONFIG_SIZE_MAX (1 << 20)

/* log_rate_limit bounds: a burst beyond this is no limit, an interval beyond a day is a
 * typo. */
#define LOG_BURST_MAX	 1000000
#define LOG_INTERVAL_MAX 86400

/* The message of a key's parser, to which config_parse() adds the file and line. */
struct message {
	char text[256];
};

__attribute__((format(printf, 2, 3))) static int fail(struct message *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @s for a message: at most 48 characters, control characters as '?'. */
static const char *shown(const char *s, char buf[64])
{
	size_t n = 0;

	for (; *s && n < 48; s++)
		buf[n++] = isprint((unsigned char)*s) ? *s : '?';
	if (*s)
		n += (size_t)snprintf(buf + n, 64 - n, "...");
	buf[n] = '\0';
	return buf;
}

/* A decimal number from @min to @max, nothing else (no sign, no spaces, no suffix). */
static bool parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *ret)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > max)
			return false;
	}
	if (v < min)
		return false;
	*ret = (unsigned int)v;
	return true;
}

static int parse_mode(const char *value, struct config *c, struct message *m)
{
	char buf[64];

	if (strcmp(value, "enforcing") == 0)
		c->permissive = false;
	else if (strcmp(value, "permissive") == 0)
		c->permissive = true;
	else
		return fail(m, "unknown mode '%s' (expected enforcing or permissive)",
			    shown(value, buf));
	return 0;
}

static int parse_unsigned(const char *value, struct config *c, struct message *m)
{
	char buf[64];

	if (strcmp(value, "allow") == 0)
		c->unsigned_deny = false;
	else if (strcmp(value, "deny") == 0)
		c->unsigned_deny = true;
	else
		return fail(m, "unknown value '%s' for 'unsigned' (expected allow or deny)",
			    shown(value, buf));
	return 0;
}

static int parse_unsigned_deny_force(const char *value, struct config *c, struct message *m)
{
	char buf[64];

	if (strcmp(value, "no") == 0)
		c->unsigned_deny_force = false;
	else if (strcmp(value, "yes") == 0)
		c->unsigned_deny_force = true;
	else
		return fail(m, "unknown value '%s' for 'unsigned_deny_force' (expected yes or no)",
			    shown(value, buf));
	return 0;
}

/* A number from 1 to @max for the key @key, into *@ret. */
static int parse_count(const char *key, const char *value, unsigned int max, unsigned int *ret,
		       struct message *m)
{
	char buf[64];

	if (!parse_uint(value, 1, max, ret))
		return fail(m, "'%s' must be a number from 1 to %u, not '%s'", key, max,
			    shown(value, buf));
	return 0;
}

static int parse_max_rules(const char *value, struct config *c, struct message *m)
{
	return parse_count("max_rules_per_layer", value, CONFIG_MAX_RULES_LIMIT,
			   &c->max_rules_per_layer, m);
}

static int parse_max_layers_per_user(const char *value, struct config *c, struct message *m)
{
	return parse_count("max_layers_per_user", value, CONFIG_MAX_LAYERS_PER_USER_LIMIT,
			   &c->max_layers_per_user, m);
}

static int parse_max_rules_per_user(const char *value, struct config *c, struct message *m)
{
	return parse_count("max_rules_per_user", value, CONFIG_MAX_RULES_PER_USER_LIMIT,
			   &c->max_rules_per_user, m);
}

static int parse_max_connections_per_user(const char *value, struct config *c, struct message *m)
{
	return parse_count("max_connections_per_user", value, CONFIG_MAX_CONNECTIONS_PER_USER_LIMIT,
			   &c->max_connections_per_user, m);
}

static int parse_idle_timeout(const char *value, struct config *c, struct message *m)
{
	return parse_count("idle_timeout", value, CONFIG_IDLE_TIMEOUT_LIMIT, &c->idle_timeout_sec,
			   m);
}

static int parse_request_time_per_user(const char *value, struct config *c, struct message *m)
{
	return parse_count("request_time_per_user", value, CONFIG_REQUEST_TIME_PER_USER_LIMIT,
			   &c->request_time_per_user, m);
}

static int parse_log_rate_limit(const char *value, struct config *c, struct message *m)
{
	char buf[64], burst[16];
	const char *slash = strchr(value, '/');
	size_t len = slash ? (size_t)(slash - value) : 0;

	if (strcmp(value, "off") == 0) {
		c->log_burst = 0;
		c->log_interval_sec = 0;
		return 0;
	}
	if (!slash || len >= sizeof(burst))
		goto invalid;
	memcpy(burst, value, len);
	burst[len] = '\0';
	if (!parse_uint(burst, 0, LOG_BURST_MAX, &c->log_burst) ||
	    !parse_uint(slash + 1, 0, LOG_INTERVAL_MAX, &c->log_interval_sec))
		goto invalid;
	return 0;

invalid:
	return fail(m,
		    "'log_rate_limit' must be BURST/SECONDS (at most %d/%d, for example "
		    "%d/%d) or off, not '%s'",
		    LOG_BURST_MAX, LOG_INTERVAL_MAX, CONFIG_LOG_BURST_DEFAULT,
		    CONFIG_LOG_INTERVAL_DEFAULT, shown(value, buf));
}

static const struct key {
	const char *name;
	int (*parse)(const char *value, struct config *c, struct message *m);
} keys[] = {
	{ "mode", parse_mode },
	{ "unsigned", parse_unsigned },
	{ "unsigned_deny_force", parse_unsigned_deny_force },
	{ "max_rules_per_layer", parse_max_rules },
	{ "max_layers_per_user", parse_max_layers_per_user },
	{ "max_rules_per_user", parse_max_rules_per_user },
	{ "max_connections_per_user", parse_max_connections_per_user },
	{ "idle_timeout", parse_idle_timeout },
	{ "request_time_per_user", parse_request_time_per_user },
	{ "log_rate_limit", parse_log_rate_limit },
};

#define KEY_COUNT ARRAY_SIZE(keys)

void config_init(struct config *c)
{
	*c = (struct config){
		.permissive = false,
		.max_rules_per_layer = CONFIG_MAX_RULES_DEFAULT,
		.max_layers_per_user = CONFIG_MAX_LAYERS_PER_USER_DEFAULT,
		.max_rules_per_user = CONFIG_MAX_RULES_PER_USER_DEFAULT,
		.max_connections_per_user = CONFIG_MAX_CONNECTIONS_PER_USER_DEFAULT,
		.idle_timeout_sec = CONFIG_IDLE_TIMEOUT_DEFAULT,
		.request_time_per_user = CONFIG_REQUEST_TIME_PER_USER_DEFAULT,
		.log_burst = CONFIG_LOG_BURST_DEFAULT,
		.log_interval_sec = CONFIG_LOG_INTERVAL_DEFAULT,
	};
}

/* @s without the whitespace at both ends (written in place). */
static char *strip(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* One line (without its newline), number @line_no. */
static int parse_line(char *line, unsigned int line_no, unsigned int set_on[KEY_COUNT],
		      struct config *c, struct message *m)
{
	char *comment = strchr(line, '#'), *eq, *key, *value, buf[64];

	if (comment)
		*comment = '\0';
	line = strip(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return fail(m, "expected 'key = value', not '%s'", shown(line, buf));
	*eq = '\0';
	key = strip(line);
	value = strip(eq + 1);
	if (!*key)
		return fail(m, "expected 'key = value': no key before '='");
	for (size_t i = 0; i < KEY_COUNT; i++) {
		if (strcmp(key, keys[i].name) != 0)
			continue;
		if (set_on[i])
			return fail(m, "duplicate key '%s' (already set on line %u)", key,
				    set_on[i]);
		if (!*value)
			return fail(m, "no value for '%s'", key);
		set_on[i] = line_no;
		return keys[i].parse(value, c, m);
	}
	return fail(m, "unknown key '%s'", shown(key, buf));
}

/* Appends "NAME:LINE: TEXT" to the lines in *@errors. Return: 0 or -ENOMEM. */
static int add_error(char **errors, const char *name, unsigned int line_no, const char *text)
{
	char *more;

	if (asprintf(&more, "%s%s%s:%u: %s", *errors ? *errors : "", *errors ? "\n" : "", name,
		     line_no, text) < 0)
		return -ENOMEM;
	free(*errors);
	*errors = more;
	return 0;
}

int config_parse(const char *text, const char *name, struct config *ret, char **ret_error)
{
	unsigned int set_on[KEY_COUNT] = {}, line_no = 0;
	char *copy, *line, *next, *errors = NULL;
	struct config c;
	int r = 0;

	if (ret_error)
		*ret_error = NULL;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	config_init(&c);
	/* Every line, also after an error: the administrator fixes them all in one go. */
	for (line = copy; line; line = next) {
		struct message m = {};

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line_no++;
		if (parse_line(line, line_no, set_on, &c, &m) < 0) {
			r = -EINVAL;
			if (add_error(&errors, name, line_no, m.text) < 0) {
				r = -ENOMEM;
				break;
			}
		}
	}
	free(copy);
	if (r < 0) {
		if (ret_error && r == -EINVAL)
			*ret_error = errors;
		else
			free(errors);
		return r;
	}
	*ret = c;
	return 0;
}

int config_load(const char *path, bool required, struct config *ret, char **ret_error)
{
	char *text = NULL;
	const char *nul;
	size_t size = 0;
	int r;

	if (ret_error)
		*ret_error = NULL;
	r = read_full_file_at(AT_FDCWD, path, 0, CONFIG_SIZE_MAX, &text, &size);
	if (r == -ENOENT && !required) {
		config_init(ret);
		return 1;
	}
	if (r < 0)
		goto fail;
	/* A NUL would end the text early: whatever followed would be silently ignored. */
	nul = memchr(text, '\0', size);
	if (nul) {
		unsigned int line_no = 1;

		for (const char *p = text; p < nul; p++)
			line_no += *p == '\n';
		free(text);
		if (ret_error &&
		    asprintf(ret_error, "%s:%u: a NUL byte (not a text file?)", path, line_no) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	r = config_parse(text, path, ret, ret_error);
	free(text);
	return r;

fail:
	if (ret_error && asprintf(ret_error, "%s: %s", path,
				  r == -EFBIG ? "larger than 1 MiB" : strerror(-r)) < 0)
		*ret_error = NULL;
	return r;
}

const char *config_summary(const struct config *c, char *buf, unsigned int size)
{
	char rate[32];

	if (c->log_burst && c->log_interval_sec)
		snprintf(rate, sizeof(rate), "%u/%u", c->log_burst, c->log_interval_sec);
	else
		snprintf(rate, sizeof(rate), "off");
	snprintf(buf, size, "mode=%s unsigned=%s%s max_rules_per_layer=%u log_rate_limit=%s",
		 c->permissive ? "permissive" : "enforcing", c->unsigned_deny ? "deny" : "allow",
		 c->unsigned_deny_force ? " unsigned_deny_force=yes" : "", c->max_rules_per_layer,
		 rate);
	return buf;
}
