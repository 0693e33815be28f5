/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One table per command line (systemd's verbs.h style): the commands and
 * the options of a program, from which its option parsing, its --help and
 * a machine-readable dump come (tests/build/check_cli_docs.sh holds the man
 * pages and the shell completions to the dump). The tables are the
 * programs' own (supervisor/cli.c, monitor/cli.c); this is the engine.
 */
#ifndef RF_CLI_H
#define RF_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What an option's argument is: the completions offer accordingly. */
enum rf_cli_arg {
	RF_CLI_FLAG = 0,      /* no argument */
	RF_CLI_FILE,          /* a file name */
	RF_CLI_DIR,           /* a directory */
	RF_CLI_USER,          /* a user name or uid, optionally :group */
	RF_CLI_WORD,          /* one of the option's values() */
	RF_CLI_NUMBER,        /* an integer lo..hi */
	RF_CLI_TEXT,          /* anything else (KEY=VALUE, ADDR:PORT, a cgroup) */
	RF_CLI_ARG_MAX,
};

/* rf_cli_option.flags */
enum {
	RF_CLI_HIDDEN = 1u << 0,    /* test-only: in no help, man page or completion */
	RF_CLI_REPEAT = 1u << 1,    /* may be given more than once ("..." in a synopsis) */
	RF_CLI_ALT = 1u << 2,       /* an alternative to the option before it: [-v|-q] */
	RF_CLI_NO_SYNOPSIS = 1u << 3, /* --help, --version: not in a command's synopsis */
	RF_CLI_STORE = 1u << 4,     /* the parser stores it at .off (by its kind) */
};

/* A command (verb) of the program. */
struct rf_cli_verb {
	const char *name;
	const char *args;           /* the synopsis of its arguments, "" none */
	int min_args, max_args;     /* max_args -1: no limit */
	bool hidden;                /* internal: in no help, man page or completion */
	bool raw;                   /* takes its arguments unparsed (no options) */
	int root_exit;              /* needs root; the exit status without. 0: no */
	uint64_t required;          /* bit (1 << option index): options it needs */
	/* argv[0] is the verb (raw) or its first argument; ctx the parsed options */
	int (*handler)(int argc, char **argv, void *ctx);
	const char *help;           /* one line */
};

#define RF_CLI_ALL_VERBS (~0u)

struct rf_cli_option {
	const char *name;           /* long name, without "--" */
	char short_name;            /* 0: none */
	enum rf_cli_arg arg;
	const char *metavar;        /* "FILE"; NULL for a flag */
	/* RF_CLI_WORD: the i-th value it takes, NULL past the last. The
	 * parser's own list, so help and completions cannot drift from it. */
	const char *(*value)(unsigned int i);
	/* Bit (1u << verb index) per command that takes it; 0: only before
	 * any command (--version); RF_CLI_ALL_VERBS: every one and before
	 * any (--help). A program without commands uses RF_CLI_ALL_VERBS. */
	unsigned int verbs;
	unsigned int flags;
	uint64_t lo, hi;            /* RF_CLI_NUMBER: the range */
	size_t off;                 /* RF_CLI_STORE: where in the parser's struct */
	const char *help;           /* lines split by '\n' */
};

struct rf_cli_exit {
	int code;
	const char *text;
};

struct rf_cli {
	const char *prog;
	const struct rf_cli_verb *verbs;
	size_t n_verbs;
	const struct rf_cli_option *opts;
	size_t n_opts;
	const struct rf_cli_exit *exits;
	size_t n_exits;
};

#define RF_CLI_OPTS_MAX 48

/* getopt_long's arrays, built from the table. */
struct rf_cli_parser {
	const struct rf_cli *cli;
	struct option longopts[RF_CLI_OPTS_MAX + 1];
	char shorts[2 + 2 * RF_CLI_OPTS_MAX + 1];
};

/* Builds the arrays of the options verb takes (-1: a program without
 * commands, or before any command); parsing stops at the first
 * non-option. An option of another command is unknown here: cli__option
 * tells it apart for the message. */
void cli__parser_init(struct rf_cli_parser *p, const struct rf_cli *cli, int verb);

/*
 * The next option of argv (getopt_long: optind, optarg; argv[0] is not
 * an option, cli__parser_init started over): 1 and *ret_index, 0 at the end of the options, -ENOENT for an
 * unknown option, -EINVAL for one whose value is missing (the word is
 * argv[optind - 1]).
 */
int cli__next(struct rf_cli_parser *p, int argc, char **argv, int *ret_index);

/*
 * An RF_CLI_STORE option's value into base + off: a string (const char *)
 * for FILE/DIR/USER/TEXT/WORD, true (bool) for a flag, an integer
 * (uint64_t) in lo..hi for a number. 0, or -EINVAL with why filled.
 */
int cli__store(const struct rf_cli_option *o, const char *arg, void *base, char *why,
	       size_t why_len);

/* The verb named name (hidden ones included), or -1. */
int cli__verb(const struct rf_cli *cli, const char *name);
/* The option index whose long or short name is word ("--x", "--x=v", "-x",
 * "-xv": the first letter), or -1. */
int cli__option(const struct rf_cli *cli, const char *word);
/* Whether verb (-1: before any command) takes option i. */
bool cli__takes(const struct rf_cli *cli, int verb, int i);

/* "--policy" or "-p, --policy" with its metavar, for messages and help. */
void cli__flag_text(const struct rf_cli_option *o, char *buf, size_t len);
/* "usage: PROG VERB [--opt X]..." wrapped at 100 columns; first: "usage:"
 * or the indent of the lines after the first. */
void cli__synopsis(FILE *f, const struct rf_cli *cli, int verb, const char *first);
/* The option list: verb's (-1: all, each with the commands that take it). */
void cli__options_help(FILE *f, const struct rf_cli *cli, int verb);
/* "run, check and learn" into buf: the commands that take option i. */
void cli__verbs_text(const struct rf_cli *cli, int i, char *buf, size_t len);

/*
 * Everything, one record a line, tab-separated, for the tests:
 *   prog NAME
 *   verb NAME MIN MAX ROOT_EXIT hidden|- ARGS|-
 *   option --LONG -S|- ARG_KIND METAVAR|- VERBS(comma)|- FLAGS(comma)|-
 *     (FLAGS: hidden, repeat, alt, no-synopsis, store, and global: it is
 *     taken before any command, or by a program without commands)
 *   value --LONG VALUE
 *   exit CODE TEXT
 * Hidden verbs and options are included and marked so.
 */
void cli__dump(FILE *f, const struct rf_cli *cli);

#endif
