/* lib/cli: the command-line engine, and the two programs' tables it reads. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "names.h"
#include "options.h"
#include "cli/verbs.h"

/* A small program: two commands, options of each kind. */
enum { T_GO, T_STOP, T_MAX };
struct t_args {
	const char *file;
	uint64_t n;
	bool flag;
};
static const char *t_value(unsigned int i)
{
	static const char *const v[] = { "red", "green", NULL };

	return i < 2 ? v[i] : NULL;
}
static const struct rf_cli_verb t_verbs[] = {
	[T_GO] = { "go", "-- CMD", 1, -1, .required = 1ull << 0, .help = "go" },
	[T_STOP] = { "stop", "", 0, 0, .help = "stop" },
};
static const struct rf_cli_option t_opts[] = {
	{ "file", 'f', RF_CLI_FILE, "FILE", .verbs = 1u << T_GO, .flags = RF_CLI_STORE,
	  .off = offsetof(struct t_args, file), .help = "a file" },
	{ "count", 0, RF_CLI_NUMBER, "N", .verbs = 1u << T_GO, .flags = RF_CLI_STORE,
	  .lo = 2, .hi = 9, .off = offsetof(struct t_args, n), .help = "a number" },
	{ "colour", 0, RF_CLI_WORD, "COLOUR", t_value, RF_CLI_ALL_VERBS, RF_CLI_REPEAT,
	  .help = "a colour" },
	{ "loud", 'l', RF_CLI_FLAG, NULL, .verbs = 1u << T_GO | 1u << T_STOP,
	  .flags = RF_CLI_STORE, .off = offsetof(struct t_args, flag), .help = "loud" },
	{ "soft", 's', RF_CLI_FLAG, NULL, .verbs = 1u << T_GO | 1u << T_STOP, .flags = RF_CLI_ALT,
	  .help = "soft\nsecond line" },
	{ "secret", 0, RF_CLI_FLAG, NULL, .verbs = 1u << T_GO, .flags = RF_CLI_HIDDEN,
	  .help = "test-only" },
	{ "version", 0, RF_CLI_FLAG, NULL, .verbs = 0, .flags = RF_CLI_NO_SYNOPSIS,
	  .help = "the version" },
};
static const struct rf_cli t_cli = {
	.prog = "t", .verbs = t_verbs, .n_verbs = T_MAX,
	.opts = t_opts, .n_opts = sizeof(t_opts) / sizeof(t_opts[0]),
};

/* Parses argv (argv[0] the verb) into a; the index of each option seen
 * into seen[], the end status returned. */
static int parse(int verb, char **argv, struct t_args *a, int *seen, int *n_seen)
{
	struct rf_cli_parser p;
	int argc = 0, rc, i;
	char why[128];

	while (argv[argc])
		argc++;
	cli__parser_init(&p, &t_cli, verb);
	*n_seen = 0;
	while ((rc = cli__next(&p, argc, argv, &i)) > 0) {
		seen[(*n_seen)++] = i;
		if ((t_opts[i].flags & RF_CLI_STORE) && cli__store(&t_opts[i], optarg, a, why, sizeof(why)))
			return -ERANGE;
	}
	return rc;
}

static void cli_parses_the_options_a_command_takes(void **state)
{
	char *argv[] = { "go", "-f", "x.json", "--count=3", "--colour", "red", "-l", "--", "cmd",
			 NULL };
	struct t_args a = { 0 };
	int seen[8], n;

	(void)state;
	assert_int_equal(parse(T_GO, argv, &a, seen, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(a.file, "x.json");
	assert_int_equal(a.n, 3);
	assert_true(a.flag);
	assert_string_equal(argv[optind], "cmd");  /* "--" ends the options */
}

static void cli_tells_unknown_missing_and_misplaced_apart(void **state)
{
	char *unknown[] = { "go", "--bogus", NULL }, *missing[] = { "go", "--file", NULL };
	char *other[] = { "stop", "--file", "x", NULL }, *range[] = { "go", "--count", "10", NULL };
	char *hidden_short[] = { "stop", "-f", "x", NULL };
	struct t_args a = { 0 };
	int seen[8], n;

	(void)state;
	assert_int_equal(parse(T_GO, unknown, &a, seen, &n), -ENOENT);
	assert_int_equal(cli__option(&t_cli, "--bogus"), -1);
	assert_int_equal(parse(T_GO, missing, &a, seen, &n), -EINVAL);
	/* stop does not take --file: unknown to its parser, found in the table */
	assert_int_equal(parse(T_STOP, other, &a, seen, &n), -ENOENT);
	assert_int_equal(cli__option(&t_cli, other[optind - 1]), 0);
	assert_int_equal(cli__option(&t_cli, "--file=x"), 0);
	assert_int_equal(parse(T_STOP, hidden_short, &a, seen, &n), -ENOENT);
	assert_int_equal(cli__option(&t_cli, "-f"), 0);
	assert_int_equal(parse(T_GO, range, &a, seen, &n), -ERANGE);
	/* only before a command, and everywhere */
	assert_false(cli__takes(&t_cli, T_GO, 6));
	assert_true(cli__takes(&t_cli, -1, 6));
	assert_true(cli__takes(&t_cli, -1, 2) && cli__takes(&t_cli, T_STOP, 2));
	assert_false(cli__takes(&t_cli, -1, 3));
}

static void cli_stores_numbers_within_their_bounds(void **state)
{
	static const char *const bad[] = { "1", "10", "-3", "+3", "", "3x", "99999999999999999999" };
	struct t_args a = { 0 };
	char why[128];
	size_t i;

	(void)state;
	assert_int_equal(cli__store(&t_opts[1], "9", &a, why, sizeof(why)), 0);
	assert_int_equal(a.n, 9);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cli__store(&t_opts[1], bad[i], &a, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, "--count"));
		assert_non_null(strstr(why, "2..9"));
	}
	assert_int_equal(a.n, 9);
}

/* What f printed, NUL-terminated (freed by the caller). */
static char *printed(void (*fn)(FILE *f, int verb), int verb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, verb);
	fclose(f);
	return buf;
}

static void t_synopsis(FILE *f, int verb)
{
	cli__synopsis(f, &t_cli, verb, "usage:");
}

static void t_help(FILE *f, int verb)
{
	cli__options_help(f, &t_cli, verb);
}

static void cli_help_comes_from_the_table(void **state)
{
	char *s;

	(void)state;
	s = printed(t_synopsis, T_GO);
	assert_string_equal(s, "usage: t go --file FILE [--count N] [--colour COLOUR]... [-l|-s] -- CMD\n");
	free(s);
	s = printed(t_synopsis, T_STOP);
	assert_string_equal(s, "usage: t stop [--colour COLOUR]... [-l|-s]\n");
	free(s);
	s = printed(t_help, T_STOP);
	assert_string_equal(s,
		"      --colour COLOUR     a colour\n"
		"                          COLOUR: red, green\n"
		"  -l, --loud              loud\n"
		"  -s, --soft              soft\n"
		"                          second line\n");
	free(s);
	s = printed(t_help, -1);  /* all: with the commands that take each */
	assert_non_null(strstr(s, "  -f, --file FILE         a file [go]\n"));
	assert_non_null(strstr(s, "  -l, --loud              loud\n"));  /* every command's */
	assert_non_null(strstr(s, "      --version           the version [before a command]\n"));
	assert_null(strstr(s, "secret"));
	free(s);
}

/* The programs' own tables: names unique, scopes real, ranges sane. */
static void assert_table_sane(const struct rf_cli *cli)
{
	size_t i, j;

	assert_true(cli->n_opts > 0 && cli->n_opts <= RF_CLI_OPTS_MAX);
	for (i = 0; i < cli->n_opts; i++) {
		const struct rf_cli_option *o = &cli->opts[i];

		assert_non_null(o->name);
		assert_non_null(o->help);
		assert_true(o->help[0]);
		assert_true((o->arg == RF_CLI_FLAG) == (o->metavar == NULL));
		assert_true((o->arg == RF_CLI_WORD) == (o->value != NULL));
		if (o->value)
			assert_non_null(o->value(0));
		if (o->arg == RF_CLI_NUMBER)
			assert_true(o->lo <= o->hi);
		if (o->verbs != RF_CLI_ALL_VERBS)
			assert_int_equal(o->verbs >> cli->n_verbs, 0);
		for (j = 0; j < i; j++) {
			assert_string_not_equal(o->name, cli->opts[j].name);
			assert_true(!o->short_name || o->short_name != cli->opts[j].short_name);
		}
	}
	for (i = 0; i < cli->n_verbs; i++) {
		const struct rf_cli_verb *v = &cli->verbs[i];

		assert_non_null(v->handler);
		/* a verb's required options are its own */
		for (j = 0; j < cli->n_opts; j++)
			if (v->required & (1ull << j))
				assert_true(cli__takes(cli, (int)i, (int)j));
		for (j = 0; j < i; j++)
			assert_string_not_equal(v->name, cli->verbs[j].name);
	}
}

static void cli_the_programs_tables_are_sane(void **state)
{
	(void)state;
	assert_table_sane(&verbs__cli);
	assert_table_sane(&options__cli);
	assert_int_equal(verbs__cli.n_exits, 5);
	assert_int_equal(options__cli.n_verbs, 0);
}

/* --require's values are the parser's: every one is accepted, in order. */
static void cli_backend_values_are_what_the_parser_accepts(void **state)
{
	int i = cli__option(&verbs__cli, "--require");
	const char *v;
	unsigned int k;

	(void)state;
	assert_true(i >= 0);
	for (k = 0; (v = verbs__cli.opts[i].value(k)); k++)
		assert_int_not_equal(names__backend_by_name(v), RF_BE_NONE);
	assert_int_equal(k, RF_BE_MAX - 2);  /* all but none and the monitor */
	assert_null(names__backend_choice(k));
	assert_int_equal(names__backend_by_name("ringfence-monitor"), RF_BE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cli_parses_the_options_a_command_takes),
		cmocka_unit_test(cli_tells_unknown_missing_and_misplaced_apart),
		cmocka_unit_test(cli_stores_numbers_within_their_bounds),
		cmocka_unit_test(cli_help_comes_from_the_table),
		cmocka_unit_test(cli_the_programs_tables_are_sane),
		cmocka_unit_test(cli_backend_values_are_what_the_parser_accepts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
