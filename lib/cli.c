// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
/* getopt_long's value for option i: above every short option's letter. */
#define OPT_VAL(i) (256 + (int)(i))
#define HELP_COL 26
#define WRAP_COL 100

static const char *const arg_names[] = {
	[RF_CLI_FLAG] = "flag", [RF_CLI_FILE] = "file", [RF_CLI_DIR] = "dir",
	[RF_CLI_USER] = "user", [RF_CLI_WORD] = "word", [RF_CLI_NUMBER] = "number",
	[RF_CLI_TEXT] = "text",
};
_Static_assert(N_OF(arg_names) == RF_CLI_ARG_MAX, "arg_names covers enum rf_cli_arg");

void cli__parser_init(struct rf_cli_parser *p, const struct rf_cli *cli, int verb)
{
	char *s = p->shorts;
	size_t i, n = 0;

	*p = (struct rf_cli_parser){ .cli = cli };
	/* "+": stop at the first non-option (the command to run); ":": a
	 * missing value is told apart from an unknown option. */
	*s++ = '+';
	*s++ = ':';
	for (i = 0; i < cli->n_opts && n < RF_CLI_OPTS_MAX; i++) {
		const struct rf_cli_option *o = &cli->opts[i];

		if (!cli__takes(cli, verb, (int)i))
			continue;
		p->longopts[n++] = (struct option){
			.name = o->name,
			.has_arg = o->arg == RF_CLI_FLAG ? no_argument : required_argument,
			.val = OPT_VAL(i),
		};
		if (o->short_name) {
			*s++ = o->short_name;
			if (o->arg != RF_CLI_FLAG)
				*s++ = ':';
		}
	}
	*s = '\0';
	optind = 0;     /* glibc: start over, optstring's "+" read anew */
}

static int short_index(const struct rf_cli *cli, int c)
{
	size_t i;

	for (i = 0; i < cli->n_opts; i++)
		if (cli->opts[i].short_name && cli->opts[i].short_name == c)
			return (int)i;
	return -1;
}

int cli__next(struct rf_cli_parser *p, int argc, char **argv, int *ret_index)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, p->shorts, p->longopts, NULL);
	if (c == -1)
		return 0;
	if (c == ':')
		return -EINVAL;
	if (c >= OPT_VAL(0) && c < OPT_VAL(p->cli->n_opts)) {
		*ret_index = c - OPT_VAL(0);
		return 1;
	}
	*ret_index = short_index(p->cli, c);
	return *ret_index < 0 ? -ENOENT : 1;
}

static int store_number(const struct rf_cli_option *o, const char *arg, uint64_t *ret,
			char *why, size_t why_len)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (arg[0] && arg[0] != '-' && arg[0] != '+') {
		v = strtoull(arg, &end, 10);
		if (!errno && !*end && v >= o->lo && v <= o->hi) {
			*ret = v;
			return 0;
		}
	}
	snprintf(why, why_len, "--%s %s: expected an integer %llu..%llu", o->name, arg,
		 (unsigned long long)o->lo, (unsigned long long)o->hi);
	return -EINVAL;
}

int cli__store(const struct rf_cli_option *o, const char *arg, void *base, char *why,
	       size_t why_len)
{
	char *at = (char *)base + o->off;

	switch (o->arg) {
	case RF_CLI_FLAG:
		*(bool *)at = true;
		return 0;
	case RF_CLI_NUMBER:
		return store_number(o, arg, (uint64_t *)at, why, why_len);
	case RF_CLI_FILE:
	case RF_CLI_DIR:
	case RF_CLI_USER:
	case RF_CLI_WORD:
	case RF_CLI_TEXT:
		*(const char **)at = arg;
		return 0;
	case RF_CLI_ARG_MAX:
		break;
	}
	snprintf(why, why_len, "--%s: no way to store it", o->name);
	return -EINVAL;
}

int cli__verb(const struct rf_cli *cli, const char *name)
{
	size_t i;

	for (i = 0; i < cli->n_verbs; i++)
		if (!strcmp(cli->verbs[i].name, name))
			return (int)i;
	return -1;
}

int cli__option(const struct rf_cli *cli, const char *word)
{
	size_t i, n;

	if (word[0] == '-' && word[1] && word[1] != '-')
		return short_index(cli, word[1]);
	if (strncmp(word, "--", 2))
		return -1;
	word += 2;
	n = strcspn(word, "=");         /* --label=k=v */
	for (i = 0; i < cli->n_opts; i++)
		if (strlen(cli->opts[i].name) == n && !strncmp(cli->opts[i].name, word, n))
			return (int)i;
	return -1;
}

bool cli__takes(const struct rf_cli *cli, int verb, int i)
{
	unsigned int v = cli->opts[i].verbs;

	if (verb < 0)
		return v == 0 || v == RF_CLI_ALL_VERBS;
	return v & (1u << verb);
}

void cli__flag_text(const struct rf_cli_option *o, char *buf, size_t len)
{
	const char *sp = o->metavar ? " " : "", *mv = o->metavar ? o->metavar : "";

	/* a long-only option lines up with the long names of the others */
	if (o->short_name)
		snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->name, sp, mv);
	else
		snprintf(buf, len, "    --%s%s%s", o->name, sp, mv);
}

/* One synopsis word of option i for verb: "--policy FILE", "[--trace FILE]",
 * "[-v|-q]" (an RF_CLI_ALT option joins the one before it). */
static void synopsis_word(const struct rf_cli *cli, int verb, size_t i, char *buf, size_t len)
{
	const struct rf_cli_option *o = &cli->opts[i];
	bool required = verb >= 0 && (cli->verbs[verb].required & (1ull << i));
	bool alt_next = i + 1 < cli->n_opts && (cli->opts[i + 1].flags & RF_CLI_ALT) &&
			cli__takes(cli, verb, (int)i + 1);
	char self[80];

	if (o->short_name && (alt_next || (o->flags & RF_CLI_ALT)))
		snprintf(self, sizeof(self), "-%c", o->short_name);
	else
		snprintf(self, sizeof(self), "--%s%s%s", o->name, o->metavar ? " " : "",
			 o->metavar ? o->metavar : "");
	if (o->flags & RF_CLI_ALT)
		snprintf(buf, len, "%s]", self);
	else
		snprintf(buf, len, "%s%s%s%s%s", required ? "" : "[", self, alt_next ? "|" : "",
			 required || alt_next ? "" : "]",
			 (o->flags & RF_CLI_REPEAT) && !alt_next ? "..." : "");
}

/* Appends word to the line, starting a new one (indented) past WRAP_COL. */
static void put_word(FILE *f, const char *word, size_t *col, size_t indent, bool join)
{
	size_t n = strlen(word);

	if (!join && *col + 1 + n > WRAP_COL) {
		fprintf(f, "\n%*s", (int)indent, "");
		*col = indent;
	} else if (!join) {
		fputc(' ', f);
		(*col)++;
	}
	fputs(word, f);
	*col += n;
}

void cli__synopsis(FILE *f, const struct rf_cli *cli, int verb, const char *first)
{
	const struct rf_cli_verb *v = &cli->verbs[verb];
	size_t i, col, indent;
	bool joined = false;
	char word[128];

	col = (size_t)fprintf(f, "%s %s %s", first, cli->prog, v->name);
	indent = col + 1;
	for (i = 0; i < cli->n_opts; i++) {
		const struct rf_cli_option *o = &cli->opts[i];

		if ((o->flags & (RF_CLI_HIDDEN | RF_CLI_NO_SYNOPSIS)) || !cli__takes(cli, verb, (int)i))
			continue;
		synopsis_word(cli, verb, i, word, sizeof(word));
		put_word(f, word, &col, indent, joined);
		joined = word[strlen(word) - 1] == '|';
	}
	if (v->args[0])
		put_word(f, v->args, &col, indent, false);
	fputc('\n', f);
}

void cli__verbs_text(const struct rf_cli *cli, int i, char *buf, size_t len)
{
	size_t v, n = 0, k = 0, used = 0;

	buf[0] = '\0';
	for (v = 0; v < cli->n_verbs; v++)
		n += !cli->verbs[v].hidden && cli__takes(cli, (int)v, i);
	for (v = 0; v < cli->n_verbs && used < len; v++) {
		if (cli->verbs[v].hidden || !cli__takes(cli, (int)v, i))
			continue;
		k++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k == 1 ? "" : k == n ? " and " : ", ", cli->verbs[v].name);
	}
}

/* Lines of text, the first after the flag column, the rest indented to it. */
static void put_help(FILE *f, const char *flag, const char *text, const char *tail)
{
	const char *nl;

	if (strlen(flag) + 2 >= HELP_COL)
		fprintf(f, "  %s\n%*s", flag, HELP_COL, "");
	else
		fprintf(f, "  %-*s", HELP_COL - 2, flag);
	for (; (nl = strchr(text, '\n')); text = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - text), text, HELP_COL, "");
	/* the tail (" [run and check]") on a line of its own past WRAP_COL */
	if (tail[0] && HELP_COL + strlen(text) + strlen(tail) > WRAP_COL)
		fprintf(f, "%s\n%*s%s\n", text, HELP_COL, "", tail + 1);
	else
		fprintf(f, "%s%s\n", text, tail);
}

/* "BACKEND: one of a, b, c." under the first option that names them. */
static void put_values(FILE *f, const struct rf_cli_option *o)
{
	size_t col = HELP_COL;
	unsigned int k;
	const char *v;

	fprintf(f, "%*s%s:", HELP_COL, "", o->metavar);
	col += strlen(o->metavar) + 1;
	for (k = 0; (v = o->value(k)); k++) {
		char word[64];

		snprintf(word, sizeof(word), "%s%s", v, o->value(k + 1) ? "," : "");
		put_word(f, word, &col, HELP_COL, false);
	}
	fputc('\n', f);
}

static bool values_shown_before(const struct rf_cli *cli, int verb, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (cli->opts[j].value == cli->opts[i].value && !(cli->opts[j].flags & RF_CLI_HIDDEN) &&
		    (verb < 0 || cli__takes(cli, verb, (int)j)))
			return true;
	return false;
}

/* Every command (hidden ones aside) takes option i. */
static bool every_verb(const struct rf_cli *cli, int i)
{
	size_t v;

	for (v = 0; v < cli->n_verbs; v++)
		if (!cli->verbs[v].hidden && !cli__takes(cli, (int)v, i))
			return false;
	return true;
}

void cli__options_help(FILE *f, const struct rf_cli *cli, int verb)
{
	size_t i;

	for (i = 0; i < cli->n_opts; i++) {
		const struct rf_cli_option *o = &cli->opts[i];
		char flag[96], tail[160] = "";

		if ((o->flags & RF_CLI_HIDDEN) || (verb >= 0 && !cli__takes(cli, verb, (int)i)))
			continue;
		cli__flag_text(o, flag, sizeof(flag));
		/* every command's help: which commands take it */
		if (verb < 0 && cli->n_verbs && !every_verb(cli, (int)i)) {
			size_t n;

			snprintf(tail, sizeof(tail), " [");
			cli__verbs_text(cli, (int)i, tail + 2, sizeof(tail) - 3);
			n = strlen(tail);
			if (n == 2)
				snprintf(tail, sizeof(tail), " [before a command]");
			else
				snprintf(tail + n, sizeof(tail) - n, "]");
		}
		put_help(f, flag, o->help, tail);
		if (o->value && !values_shown_before(cli, verb, i))
			put_values(f, o);
	}
}

static void dump_list(FILE *f, const struct rf_cli *cli, const struct rf_cli_option *o)
{
	static const struct { unsigned int bit; const char *name; } flag_names[] = {
		{ RF_CLI_HIDDEN, "hidden" }, { RF_CLI_REPEAT, "repeat" }, { RF_CLI_ALT, "alt" },
		{ RF_CLI_NO_SYNOPSIS, "no-synopsis" }, { RF_CLI_STORE, "store" },
	};
	int i = (int)(o - cli->opts);
	const char *sep = "";
	size_t v, k;

	for (v = 0; v < cli->n_verbs; v++)
		if ((o->verbs & (1u << v)) && !cli->verbs[v].hidden)
			fprintf(f, "%s%s", sep, cli->verbs[v].name), sep = ",";
	fputs(*sep ? "\t" : "-\t", f);
	sep = "";
	for (k = 0; k < N_OF(flag_names); k++)
		if (o->flags & flag_names[k].bit)
			fprintf(f, "%s%s", sep, flag_names[k].name), sep = ",";
	if (cli__takes(cli, -1, i))
		fprintf(f, "%sglobal", sep), sep = ",";
	fputs(*sep ? "\n" : "-\n", f);
}

void cli__dump(FILE *f, const struct rf_cli *cli)
{
	size_t i;

	fprintf(f, "prog\t%s\n", cli->prog);
	for (i = 0; i < cli->n_verbs; i++) {
		const struct rf_cli_verb *v = &cli->verbs[i];

		fprintf(f, "verb\t%s\t%d\t%d\t%d\t%s\t%s\n", v->name, v->min_args, v->max_args,
			v->root_exit, v->hidden ? "hidden" : "-", v->args[0] ? v->args : "-");
	}
	for (i = 0; i < cli->n_opts; i++) {
		const struct rf_cli_option *o = &cli->opts[i];
		unsigned int k;
		const char *val;

		fprintf(f, "option\t--%s\t%s%c\t%s\t%s\t", o->name, o->short_name ? "-" : "",
			o->short_name ? o->short_name : '-', arg_names[o->arg],
			o->metavar ? o->metavar : "-");
		dump_list(f, cli, o);
		for (k = 0; o->value && (val = o->value(k)); k++)
			fprintf(f, "value\t--%s\t%s\n", o->name, val);
	}
	for (i = 0; i < cli->n_exits; i++)
		fprintf(f, "exit\t%d\t%s\n", cli->exits[i].code, cli->exits[i].text);
}
