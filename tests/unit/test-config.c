// SPDX-License-Identifier: GPL-2.0-only
/* Unit test: umbrellad's configuration file parser (daemon/config.c), every key and
 * every malformed form, each error naming its file and line */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"

/* A per-user limit as the tables below write it: 0 for the default. */
static unsigned int user_limit(unsigned int value, unsigned int def)
{
	return value ?: def;
}

static bool config_eq(const struct config *a, const struct config *b)
{
	return a->permissive == b->permissive && a->unsigned_deny == b->unsigned_deny &&
	       a->unsigned_deny_force == b->unsigned_deny_force &&
	       a->max_rules_per_layer == b->max_rules_per_layer &&
	       user_limit(a->max_layers_per_user, CONFIG_MAX_LAYERS_PER_USER_DEFAULT) ==
		       user_limit(b->max_layers_per_user, CONFIG_MAX_LAYERS_PER_USER_DEFAULT) &&
	       user_limit(a->max_rules_per_user, CONFIG_MAX_RULES_PER_USER_DEFAULT) ==
		       user_limit(b->max_rules_per_user, CONFIG_MAX_RULES_PER_USER_DEFAULT) &&
	       a->log_burst == b->log_burst && a->log_interval_sec == b->log_interval_sec;
}

/* Files that parse, and what they mean (fields not named keep their defaults). */
static const struct good {
	const char *text;
	struct config want;
} good[] = {
	{ "", { .max_rules_per_layer = 1024, .log_burst = 200, .log_interval_sec = 5 } },
	{ "\n\n# only a comment\n   \n\t# indented comment\n",
	  { .max_rules_per_layer = 1024, .log_burst = 200, .log_interval_sec = 5 } },
	{ "mode = enforcing\n",
	  { .max_rules_per_layer = 1024, .log_burst = 200, .log_interval_sec = 5 } },
	{ "mode = permissive\n",
	  { .permissive = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "mode=permissive", /* no spaces, no final newline */
	  { .permissive = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "  \tmode\t =  permissive   # trailing comment\r\n",
	  { .permissive = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "unsigned = allow\n",
	  { .max_rules_per_layer = 1024, .log_burst = 200, .log_interval_sec = 5 } },
	{ "unsigned = deny\n",
	  { .unsigned_deny = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "unsigned = deny\nunsigned_deny_force = yes\n",
	  { .unsigned_deny = true,
	    .unsigned_deny_force = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "unsigned_deny_force = no\n",
	  { .max_rules_per_layer = 1024, .log_burst = 200, .log_interval_sec = 5 } },
	{ "unsigned = deny\nmode = permissive\n",
	  { .permissive = true,
	    .unsigned_deny = true,
	    .max_rules_per_layer = 1024,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "max_rules_per_layer = 1\n",
	  { .max_rules_per_layer = 1, .log_burst = 200, .log_interval_sec = 5 } },
	{ "max_rules_per_layer = 65536\n",
	  { .max_rules_per_layer = 65536, .log_burst = 200, .log_interval_sec = 5 } },
	{ "max_rules_per_layer = 007\n",
	  { .max_rules_per_layer = 7, .log_burst = 200, .log_interval_sec = 5 } },
	{ "max_layers_per_user = 20\nmax_rules_per_user = 49152\n",
	  { .max_rules_per_layer = 1024,
	    .max_layers_per_user = 20,
	    .max_rules_per_user = 49152,
	    .log_burst = 200,
	    .log_interval_sec = 5 } },
	{ "log_rate_limit = 10/2\n",
	  { .max_rules_per_layer = 1024, .log_burst = 10, .log_interval_sec = 2 } },
	{ "log_rate_limit = 1000000/86400\n",
	  { .max_rules_per_layer = 1024, .log_burst = 1000000, .log_interval_sec = 86400 } },
	{ "log_rate_limit = off\n", { .max_rules_per_layer = 1024 } },
	{ "log_rate_limit = 0/0\n", { .max_rules_per_layer = 1024 } },
	{ "# every key\nmode = permissive\nunsigned = allow\n\nmax_rules_per_layer = 32\n"
	  "log_rate_limit = 5/60 # per minute\n",
	  { .permissive = true,
	    .max_rules_per_layer = 32,
	    .log_burst = 5,
	    .log_interval_sec = 60 } },
};

/* Files that do not parse: the line the error must name, and what it must say. */
static const struct bad {
	const char *text;
	unsigned int line;
	const char *says;
} bad[] = {
	{ "mode = enforcing\n\nfoo = 1\n", 3, "unknown key 'foo'" },
	{ "Mode = permissive\n", 1, "unknown key 'Mode'" },
	{ "max rules per layer = 3\n", 1, "unknown key 'max rules per layer'" },
	{ "mode permissive\n", 1, "expected 'key = value', not 'mode permissive'" },
	{ "# fine\nmode\n", 2, "expected 'key = value'" },
	{ "= permissive\n", 1, "no key before '='" },
	{ "mode =\n", 1, "no value for 'mode'" },
	{ "mode = # the value is a comment\n", 1, "no value for 'mode'" },
	{ "mode = strict\n", 1, "unknown mode 'strict' (expected enforcing or permissive)" },
	{ "mode = Permissive\n", 1, "unknown mode 'Permissive'" },
	{ "mode = permissive enforcing\n", 1, "unknown mode 'permissive enforcing'" },
	{ "mode = permissive\nmode = enforcing\n", 2,
	  "duplicate key 'mode' (already set on line 1)" },
	{ "mode = permissive\n\n# again\nmode = permissive\n", 4, "duplicate key 'mode'" },
	{ "unsigned = Deny\n", 1, "unknown value 'Deny' for 'unsigned'" },
	{ "unsigned = deny\nunsigned = allow\n", 2,
	  "duplicate key 'unsigned' (already set on line 1)" },
	{ "unsigned_deny_force = 1\n", 1,
	  "unknown value '1' for 'unsigned_deny_force' (expected yes or no)" },
	{ "unsigned = maybe\n", 1,
	  "unknown value 'maybe' for 'unsigned' (expected allow or deny)" },
	{ "unsigned = allow\nunsigned = allow\n", 2, "duplicate key 'unsigned'" },
	{ "max_rules_per_layer = 0\n", 1, "must be a number from 1 to 65536, not '0'" },
	{ "max_layers_per_user = 0\n", 1, "must be a number from 1 to 12288, not '0'" },
	{ "max_layers_per_user = 12289\n", 1, "must be a number from 1 to 12288, not '12289'" },
	{ "max_rules_per_user = 49153\n", 1, "must be a number from 1 to 49152, not '49153'" },
	{ "max_rules_per_layer = 65537\n", 1, "not '65537'" },
	{ "max_rules_per_layer = -1\n", 1, "not '-1'" },
	{ "max_rules_per_layer = +5\n", 1, "not '+5'" },
	{ "max_rules_per_layer = 12abc\n", 1, "not '12abc'" },
	{ "max_rules_per_layer = 1 2\n", 1, "not '1 2'" },
	{ "max_rules_per_layer = 99999999999999999999999\n", 1, "not '99999999999999999999999'" },
	{ "max_rules_per_layer = ten\n", 1, "not 'ten'" },
	{ "max_rules_per_layer = 5\nmax_rules_per_layer = 6\n", 2,
	  "duplicate key 'max_rules_per_layer'" },
	{ "log_rate_limit = 10\n", 1, "'log_rate_limit' must be BURST/SECONDS" },
	{ "log_rate_limit = 10/\n", 1, "not '10/'" },
	{ "log_rate_limit = /5\n", 1, "not '/5'" },
	{ "log_rate_limit = 10/5/2\n", 1, "not '10/5/2'" },
	{ "log_rate_limit = a/b\n", 1, "not 'a/b'" },
	{ "log_rate_limit = 10 / 5\n", 1, "not '10 / 5'" },
	{ "log_rate_limit = 1000001/1\n", 1, "not '1000001/1'" },
	{ "log_rate_limit = 1/86401\n", 1, "not '1/86401'" },
	{ "log_rate_limit = 12345678901234567890/1\n", 1, "not '12345678901234567890/1'" },
	{ "log_rate_limit = OFF\n", 1, "not 'OFF'" },
	{ "log_rate_limit = off\nlog_rate_limit = 1/1\n", 2, "duplicate key 'log_rate_limit'" },
	/* Control characters are not copied into the message. */
	{ "mode = \033[31mred\n", 1, "unknown mode '?[31mred'" },
	/* Long values are cut short in the message. */
	{ "foo_0123456789_0123456789_0123456789_0123456789_0123456789 = 1\n", 1,
	  "unknown key 'foo_0123456789_0123456789_0123456789_0123456789_...'" },
};

static void test_good(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct config c;
		char *error = NULL;
		int r;

		r = config_parse(good[i].text, "test.conf", &c, &error);
		TAP_OK(r == 0 && !error && config_eq(&c, &good[i].want), "parses '%s'",
		       tap_show(good[i].text));
		if (r < 0)
			TAP_DIAG("error: %s", error);
		free(error);
	}
}

static void test_bad(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct config c = { .max_rules_per_layer = 4242 };
		char prefix[64], *error = NULL;
		int r;

		snprintf(prefix, sizeof(prefix), "test.conf:%u: ", bad[i].line);
		r = config_parse(bad[i].text, "test.conf", &c, &error);
		if (!TAP_OK(r == -EINVAL && error && strncmp(error, prefix, strlen(prefix)) == 0 &&
				    strstr(error, bad[i].says) && c.max_rules_per_layer == 4242,
			    "'%s' is refused: %s%s", tap_show(bad[i].text), prefix, bad[i].says))
			TAP_DIAG("error: %s", tap_show(error));
		free(error);
	}
}

/* Every malformed line is reported, in order, one per line of the message: an
 * administrator (or umbrellad --check-config) sees them all at once. */
static void test_every_error(void)
{
	static const char text[] = "mode = permissive\n"
				   "bogus\n"
				   "# fine\n"
				   "foo = 1\n"
				   "unsigned = maybe\n"
				   "mode = enforcing\n"
				   "max_rules_per_layer = 5\n"
				   "log_rate_limit = 10";
	static const char want[] =
		"test.conf:2: expected 'key = value', not 'bogus'\n"
		"test.conf:4: unknown key 'foo'\n"
		"test.conf:5: unknown value 'maybe' for 'unsigned' (expected allow or deny)\n"
		"test.conf:6: duplicate key 'mode' (already set on line 1)\n"
		"test.conf:8: 'log_rate_limit' must be BURST/SECONDS (at most 1000000/86400, "
		"for example 200/5) or off, not '10'";
	struct config c = { .max_rules_per_layer = 4242 };
	char *error = NULL;
	int r;

	r = config_parse(text, "test.conf", &c, &error);
	if (!TAP_OK(r == -EINVAL && error && strcmp(error, want) == 0 &&
			    c.max_rules_per_layer == 4242,
		    "five malformed lines: five errors, in order, nothing applied"))
		TAP_DIAG("error: %s", tap_show(error));
	free(error);
}

/* config_load(): the file's name in every message, and the missing file cases. */
static void test_load(void)
{
	static const char with_nul[] =
		"mode = permissive\nlog_rate_limit = off\0mode = enforcing\n";
	char dir[] = "/tmp/test-config.XXXXXX", path[128], missing[128], *error = NULL;
	struct config c, defaults;
	FILE *f;
	int r;

	config_init(&defaults);
	if (!mkdtemp(dir)) {
		TAP_OK(false, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/umbrella.conf", dir);
	snprintf(missing, sizeof(missing), "%s/missing.conf", dir);

	r = config_load(missing, false, &c, &error);
	TAP_OK(r == 1 && !error && config_eq(&c, &defaults),
	       "a missing default file means the defaults");
	free(error);

	r = config_load(missing, true, &c, &error);
	TAP_OK(r == -ENOENT && error && strstr(error, missing) &&
		       strstr(error, "No such file or directory"),
	       "a missing file given with --config is an error naming it (%s)", tap_show(error));
	free(error);

	r = config_load(dir, false, &c, &error);
	TAP_OK(r == -EISDIR && error && strstr(error, dir),
	       "a directory is an error naming it (%s)", tap_show(error));
	free(error);

	f = fopen(path, "w");
	fputs("# test\nmode = permissive\nmax_rules_per_layer = 3\n", f);
	fclose(f);
	r = config_load(path, true, &c, &error);
	TAP_OK(r == 0 && c.permissive && c.max_rules_per_layer == 3, "loads %s", path);
	free(error);

	f = fopen(path, "w");
	fputs("mode = permissive\n\nfoo = 1\n", f);
	fclose(f);
	r = config_load(path, false, &c, &error);
	TAP_OK(r == -EINVAL && error && strncmp(error, path, strlen(path)) == 0 &&
		       strstr(error, ":3: unknown key 'foo'"),
	       "an error names the file and line (%s)", tap_show(error));
	free(error);

	f = fopen(path, "w");
	fwrite(with_nul, 1, sizeof(with_nul) - 1, f);
	fclose(f);
	r = config_load(path, false, &c, &error);
	TAP_OK(r == -EINVAL && error && strstr(error, ":2: a NUL byte"),
	       "a NUL byte is an error naming its line (%s)", tap_show(error));
	free(error);

	f = fopen(path, "w");
	for (int i = 0; i < (1 << 20) / 16 + 1; i++)
		fputs("# padding......\n", f);
	fclose(f);
	r = config_load(path, false, &c, &error);
	TAP_OK(r == -EFBIG && error && strstr(error, "larger than 1 MiB"),
	       "a file over 1 MiB is refused (%s)", tap_show(error));
	free(error);

	unlink(path);
	rmdir(dir);
}

/* The example file @path (daemon/umbrella.conf) parses, and says the defaults: as it
 * is, and with every commented-out "#key = value" line taken in. */
static void test_example(const char *path)
{
	struct config c, defaults;
	char *error = NULL, line[256];
	char *text = NULL;
	size_t size = 0;
	FILE *f, *out;
	int r;

	config_init(&defaults);
	r = config_load(path, true, &c, &error);
	if (!TAP_OK(r == 0 && config_eq(&c, &defaults), "the example %s parses", path))
		TAP_DIAG("error: %s", tap_show(error));
	free(error);

	f = fopen(path, "r");
	out = open_memstream(&text, &size);
	if (!f || !out) {
		TAP_OK(false, "open %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t key = strspn(line + 1, "abcdefghijklmnopqrstuvwxyz_");

		/* "#key = value": a default; "# text": prose, left as it is */
		fputs(line[0] == '#' && key && line[1 + key] == ' ' ? line + 1 : line, out);
	}
	fclose(f);
	fclose(out);
	r = config_parse(text, path, &c, &error);
	if (!TAP_OK(r == 0 && config_eq(&c, &defaults),
		    "the example's commented-out values are the defaults"))
		TAP_DIAG("error: %s", tap_show(error));
	free(error);
	free(text);
}

int main(int argc, char *argv[])
{
	struct config c;
	char buf[128];

	config_init(&c);
	TAP_OK(!c.permissive && c.max_rules_per_layer == CONFIG_MAX_RULES_DEFAULT &&
		       c.log_burst == CONFIG_LOG_BURST_DEFAULT &&
		       c.log_interval_sec == CONFIG_LOG_INTERVAL_DEFAULT,
	       "defaults: enforcing, %d rules per layer, %d/%d", CONFIG_MAX_RULES_DEFAULT,
	       CONFIG_LOG_BURST_DEFAULT, CONFIG_LOG_INTERVAL_DEFAULT);
	TAP_OK(strcmp(config_summary(&c, buf, sizeof(buf)),
		      "mode=enforcing unsigned=allow max_rules_per_layer=1024 "
		      "log_rate_limit=200/5") == 0,
	       "summary: %s", buf);
	c.unsigned_deny = true;
	TAP_OK(strcmp(config_summary(&c, buf, sizeof(buf)),
		      "mode=enforcing unsigned=deny max_rules_per_layer=1024 "
		      "log_rate_limit=200/5") == 0,
	       "summary with unsigned = deny: %s", buf);
	c.unsigned_deny_force = true;
	TAP_OK(strcmp(config_summary(&c, buf, sizeof(buf)),
		      "mode=enforcing unsigned=deny unsigned_deny_force=yes "
		      "max_rules_per_layer=1024 log_rate_limit=200/5") == 0,
	       "summary with unsigned_deny_force = yes: %s", buf);
	c.unsigned_deny_force = false;
	c.unsigned_deny = false;
	test_good();
	test_bad();
	test_every_error();
	test_load();
	/* The example that ships: meson test names it, and tests/run gets the one built in. */
	test_example(argc > 1 ? argv[1] : CONFIG_EXAMPLE);
	return tap_finish();
}
