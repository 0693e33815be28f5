// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence's commands and options, and the parsing and help made from them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn_cmd.h"
#include "lint.h"
#include "log.h"
#include "names.h"
#include "privs.h"
#include "run/reaper.h"
#include "run/oci.h"
#include "run/run.h"
#include "verbs.h"

#define RF_VERSION "0.1.0"
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

enum verb {
	V_RUN, V_CHECK, V_LINT, V_LEARN, V_PROBE, V_STATUS, V_GC, V_UNLOAD, V_OCI_HOOK, V_OCI_SECCOMP,
	V_HELP,                 /* hidden: "ringfence help [COMMAND]", as --help */
	V_REAP,                 /* hidden: a reaper's clean-up (reaper.h) */
	V_MAX,
};
#define V(x) (1u << V_##x)
#define V_VISIBLE (V(HELP) - 1)       /* every command but the hidden ones */

enum opt {
	O_POLICY, O_TRACE, O_USER, O_KEEP_RUNNING, O_CGROUP_PARENT, O_LABEL, O_REQUIRE,
	O_PREFER, O_STRICT, O_NO_OBSERVE, O_KEEP_CAPS, O_OUT, O_VERIFY, O_WILDCARDS, O_JSON, O_FORCE, O_VERBOSE,
	O_QUIET, O_HELP, O_VERSION, O_MAX,
};

/* What the options of every command fill. */
struct cli_args {
	struct learn_opts learn;        /* .run: run's, check's, learn's options */
	bool json, force;               /* status --json, unload --force */
	int verbosity;
};

static int do_run(int argc, char **argv, void *ctx);
static int do_check(int argc, char **argv, void *ctx);
static int do_lint(int argc, char **argv, void *ctx);
static int do_learn(int argc, char **argv, void *ctx);
static int do_probe(int argc, char **argv, void *ctx);
static int do_status(int argc, char **argv, void *ctx);
static int do_gc(int argc, char **argv, void *ctx);
static int do_unload(int argc, char **argv, void *ctx);
static int do_oci_hook(int argc, char **argv, void *ctx);
static int do_oci_seccomp(int argc, char **argv, void *ctx);
static int do_help(int argc, char **argv, void *ctx);
static int do_reap(int argc, char **argv, void *ctx);

#define CMD_ARGS "-- CMD [ARGS...]"
#define ROOT_REFUSED RF_EXIT_REFUSED

static const struct rf_cli_verb verbs[] = {
	[V_RUN] = { "run", CMD_ARGS, 1, -1, .root_exit = ROOT_REFUSED,
		    .required = 1ull << O_POLICY, .handler = do_run,
		    .help = "run CMD in a new sandbox under the policy, until it exits" },
	[V_CHECK] = { "check", "", 0, 0, .required = 1ull << O_POLICY, .handler = do_check,
		      .help = "validate the policy and print the plan for this kernel; start nothing" },
	[V_LINT] = { "lint", "FILE...", 1, -1, .handler = do_lint,
		     .help = "check policy files with the parser alone: no root, no kernel" },
	[V_LEARN] = { "learn", CMD_ARGS, 1, -1, .root_exit = ROOT_REFUSED, .handler = do_learn,
		      .help = "run CMD in audit mode and write the smallest policy that allows it" },
	[V_PROBE] = { "probe", "", 0, 0, .handler = do_probe,
		      .help = "what this kernel can enforce, backend by backend (JSON)" },
	[V_STATUS] = { "status", "", 0, 0, .handler = do_status,
		       .help = "the live sandboxes (--json: as JSON)" },
	[V_GC] = { "gc", "", 0, 0, .root_exit = 1, .handler = do_gc,
		   .help = "remove what killed supervisors left behind" },
	[V_UNLOAD] = { "unload", "", 0, 0, .root_exit = 1, .handler = do_unload,
		       .help = "unpin the BPF programs (--force: even with live sandboxes)" },
	[V_OCI_HOOK] = { "oci-hook", "", 0, 0, .root_exit = ROOT_REFUSED, .handler = do_oci_hook,
			 .help = "OCI runtime hook: confine a container by its run.ringfence.policy" },
	[V_OCI_SECCOMP] = { "oci-seccomp", "", 0, 0, .required = 1ull << O_POLICY,
			    .handler = do_oci_seccomp,
			    .help = "the policy's syscalls allowlist as an OCI seccomp profile (JSON)" },
	[V_HELP] = { "help", "[COMMAND]", 0, 1, .hidden = true, .raw = true, .handler = do_help,
		     .help = "as --help" },
	[V_REAP] = { RF_REAPER_CMD, "NAME CGROUP ...", 0, -1, .hidden = true, .raw = true,
		     .handler = do_reap, .help = "internal: a reaper's clean-up" },
};
_Static_assert(N_OF(verbs) == V_MAX, "verbs covers enum verb");

#define ALL RF_CLI_ALL_VERBS

static const struct rf_cli_option opts[] = {
	[O_POLICY] = { "policy", 'p', RF_CLI_FILE, "FILE", .verbs = V(RUN) | V(CHECK) | V(LEARN) |
		       V(OCI_SECCOMP),
		       .help = "the JSON policy (learn: the BASE policy, default deny-all)" },
	[O_TRACE] = { "trace", 't', RF_CLI_FILE, "FILE", .verbs = V(RUN),
		      .help = "write the JSON-lines trace there (truncated first)" },
	[O_USER] = { "user", 'u', RF_CLI_USER, "USER[:GROUP]", .verbs = V(RUN) | V(LEARN),
		     .help = "run CMD as this user (a name or a uid, optionally :group or :gid);\n"
			     "default SUDO_UID/SUDO_GID, else the caller; root: a dynamic uid\n"
			     "of its own (--user root: uid 0)" },
	[O_KEEP_RUNNING] = { "keep-running", 0, RF_CLI_FLAG, NULL, .verbs = V(RUN),
			     .help = "if ringfence is killed, CMD runs on, still confined" },
	[O_CGROUP_PARENT] = { "cgroup-parent", 0, RF_CLI_TEXT, "CGROUP", .verbs = V(RUN) | V(CHECK),
			      .help = "create the sandbox cgroup below this cgroup (a path in the cgroup2\n"
				      "mount); default: the caller's delegated cgroup, else a systemd\n"
				      "scope, else <cgroup2>/ringfence" },
	[O_LABEL] = { "label", 0, RF_CLI_TEXT, "KEY=VALUE", .verbs = V(RUN), .flags = RF_CLI_REPEAT,
		      .help = "a correlation label (repeatable, at most 8), recorded in the trace,\n"
			      "the registry and every alert. KEY: a-z, 0-9, '_', '.', '-' (1-63,\n"
			      "starting with a letter or digit); VALUE: printable ASCII, at most 63,\n"
			      "no '\"' or '\\'. A W3C TRACEPARENT in the environment is recorded too" },
	[O_REQUIRE] = { "require", 0, RF_CLI_WORD, "BACKEND", names__backend_choice,
			V(RUN) | V(CHECK), RF_CLI_REPEAT,
			.help = "refuse (exit 126) unless BACKEND enforces part of the policy" },
	[O_PREFER] = { "prefer", 0, RF_CLI_WORD, "BACKEND", names__backend_choice,
		       V(RUN) | V(CHECK), RF_CLI_REPEAT,
		       .help = "use BACKEND where more than one could" },
	[O_STRICT] = { "strict", 0, RF_CLI_FLAG, NULL, .verbs = V(RUN) | V(CHECK),
		       .help = "refuse (exit 126) a plan whose backends leave known gaps (the\n"
			       "plan's \"gaps\")" },
	[O_NO_OBSERVE] = { "no-observe", 0, RF_CLI_FLAG, NULL, .verbs = V(RUN) | V(CHECK),
			   .help = "watch no syscalls for this sandbox: Landlock's refusals stay\n"
				   "enforced but are not traced, and no syscall tracepoint slows the\n"
				   "rest of the host while it runs (the plan's \"observation\")" },
	/* Test-only: proves the BPF-LSM boundary against a root process
	 * holding its capabilities. Never by accident. */
	[O_KEEP_CAPS] = { "keep-caps", 0, RF_CLI_FLAG, NULL, .verbs = V(RUN), .flags = RF_CLI_HIDDEN,
			  .help = "test-only (RINGFENCE_TEST_KEEP_CAPS=1): CMD keeps its capabilities" },
	[O_OUT] = { "out", 0, RF_CLI_FILE, "FILE", .verbs = V(LEARN),
		    .help = "write the policy there (atomically), not to stdout" },
	[O_VERIFY] = { "verify", 0, RF_CLI_FLAG, NULL, .verbs = V(LEARN),
		       .help = "run CMD again under the learned policy, enforcing" },
	[O_WILDCARDS] = { "wildcards", 0, RF_CLI_FLAG, NULL, .verbs = V(LEARN),
			  .help = "learn a name the DNS gate answered as *.DOMAIN:PORT, DOMAIN\n"
				  "its registrable domain (never a public suffix); default: the name" },
	[O_JSON] = { "json", 0, RF_CLI_FLAG, NULL, .verbs = V(STATUS) | V(LINT),
		     .help = "JSON instead of a table (lint: of lines)" },
	[O_FORCE] = { "force", 0, RF_CLI_FLAG, NULL, .verbs = V(UNLOAD),
		      .help = "unpin also while sandboxes are live" },
	[O_VERBOSE] = { "verbose", 'v', RF_CLI_FLAG, NULL, .verbs = V_VISIBLE,
			.help = "debug messages (run: every denial as it happens)" },
	[O_QUIET] = { "quiet", 'q', RF_CLI_FLAG, NULL, .verbs = V_VISIBLE, .flags = RF_CLI_ALT,
		      .help = "errors only (gc: no line per thing removed)" },
	/* every command's, and before any command */
	[O_HELP] = { "help", 'h', RF_CLI_FLAG, NULL, .verbs = ALL, .flags = RF_CLI_NO_SYNOPSIS,
		     .help = "this text (after a command: that command's part)" },
	[O_VERSION] = { "version", 0, RF_CLI_FLAG, NULL, .verbs = 0, .flags = RF_CLI_NO_SYNOPSIS,
			.help = "the version" },
};
_Static_assert(N_OF(opts) == O_MAX, "opts covers enum opt");
_Static_assert(O_MAX <= RF_CLI_OPTS_MAX && O_MAX <= 64, "options fit the parser and .required");
_Static_assert(V_MAX <= 32, "verbs fit rf_cli_option.verbs");
_Static_assert(V_HELP == V_OCI_SECCOMP + 1 && V_REAP == V_MAX - 1, "the hidden verbs come last");

#define EXIT_ROW_(name, value, text) { value, text },
static const struct rf_cli_exit exits[] = { RF_EXITS(EXIT_ROW_) };

const struct rf_cli verbs__cli = {
	.prog = "ringfence",
	.verbs = verbs, .n_verbs = V_MAX,
	.opts = opts, .n_opts = O_MAX,
	.exits = exits, .n_exits = N_OF(exits),
};

static const char exit_prose[] =
"check: 0 enforceable, else 125 or 126 as for run. lint: 0 every file valid,\n"
"125 a file invalid or unreadable. learn: 0 policy written\n"
"(and --verify saw no denial), 1 --verify saw denials or learning failed,\n"
"125-127 as for run. gc and unload: 0 done, 1 refused, failed or processes\n"
"survived the kill. status: 0, or 1 when the registry cannot be read.\n"
"If ringfence itself is killed, the command is killed too (a watcher\n"
"process cleans up); --keep-running lets it run on, still confined.\n";

/* "run, learn, gc and unload need root (...)": from the table. */
static void help_root(int verb)
{
	size_t v, n = 0, k = 0;

	for (v = 0; v < V_MAX; v++)
		n += !verbs[v].hidden && verbs[v].root_exit && (verb < 0 || (int)v == verb);
	if (!n)
		return;
	for (v = 0; v < V_MAX; v++) {
		if (verbs[v].hidden || !verbs[v].root_exit || (verb >= 0 && (int)v != verb))
			continue;
		k++;
		printf("%s%s", k == 1 ? "\n" : k == n ? " and " : ", ", verbs[v].name);
	}
	printf(" need%s root (CAP_BPF, CAP_SYS_ADMIN).\n", n == 1 ? "s" : "");
}

static void help_exits(void)
{
	size_t i;

	printf("\nExit status of run: the command's, 128+N if it died by signal N, or\n");
	for (i = 0; i < N_OF(exits); i++)
		printf("  %d  %s\n", exits[i].code, exits[i].text);
	fputs(exit_prose, stdout);
}

/* verb -1: everything; else that command's synopsis and options. */
static void help(int verb)
{
	int v;

	if (verb >= 0) {
		cli__synopsis(stdout, &verbs__cli, verb, "usage:");
	} else {
		for (v = 0; v < V_MAX; v++)
			if (!verbs[v].hidden)
				cli__synopsis(stdout, &verbs__cli, v, v ? "      " : "usage:");
		printf("       ringfence --version | --help | COMMAND --help\n\nCommands:\n");
		for (v = 0; v < V_MAX; v++)
			if (!verbs[v].hidden)
				printf("  %-7s %s\n", verbs[v].name, verbs[v].help);
	}
	printf("\nOptions:\n");
	cli__options_help(stdout, &verbs__cli, verb);
	help_root(verb);
	if (verb < 0 || verb == V_RUN || verb == V_CHECK || verb == V_LEARN)
		help_exits();
}

/* What the parser returns after COMMAND --help: exit 0. */
#define HELP_SHOWN (-1)

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "ringfence: usage: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see ringfence --help)\n");
	return RF_EXIT_USAGE;
}

/* An option the command does not take: the commands that do. */
static int misplaced(int i, int verb)
{
	char msg[192], cmds[128];

	cli__verbs_text(&verbs__cli, i, cmds, sizeof(cmds));
	if (cmds[0])
		snprintf(msg, sizeof(msg), "--%s is only for %s", opts[i].name, cmds);
	else
		snprintf(msg, sizeof(msg), "--%s is not an option of %s", opts[i].name,
			 verbs[verb].name);
	return usage_error("%s", msg);
}

/* --label KEY=VALUE: valid, at most RF_LABELS_MAX, each key once. */
static int add_label(struct run_opts *o, const char *kv)
{
	const char *why = registry__label_invalid(kv);
	size_t i, klen = strcspn(kv, "=");
	char msg[256];

	if (!why && strlen(kv) >= RF_LABEL_LEN)
		why = "too long";
	if (why) {
		snprintf(msg, sizeof(msg), "--label %s: %s", kv, why);
		return usage_error("%s", msg);
	}
	for (i = 0; i < o->labels.n; i++)
		if (!strncmp(o->labels.v[i], kv, klen + 1))
			return usage_error("--label %s: that key is given twice", kv);
	if (o->labels.n == RF_LABELS_MAX)
		return usage_error("--label %s: at most 8 labels", kv);
	snprintf(o->labels.v[o->labels.n++], RF_LABEL_LEN, "%s", kv);
	return 0;
}

/* --require/--prefer BACKEND: a name of names__backend_choice. */
static int add_backend(unsigned int *set, const char *name)
{
	enum rf_backend b = names__backend_by_name(name);
	char msg[512], list[384] = "";
	const char *n;
	unsigned int k;

	if (b != RF_BE_NONE) {
		*set |= 1u << b;
		return 0;
	}
	for (k = 0; (n = names__backend_choice(k)); k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "", n);
	snprintf(msg, sizeof(msg), "unknown backend \"%s\" (%s)", name, list);
	return usage_error("%s", msg);
}

static int keep_caps(struct run_opts *o)
{
	const char *gate = getenv("RINGFENCE_TEST_KEEP_CAPS");

	if (!gate || strcmp(gate, "1"))
		return usage_error("--keep-caps is a test-only option of run "
				   "(needs RINGFENCE_TEST_KEEP_CAPS=1)", NULL);
	o->plan_opts.keep_caps = true;
	return 0;
}

/* One option of verb's (its scope already checked). */
static int set_option(struct cli_args *a, enum opt i, const char *arg, int verb)
{
	struct run_opts *o = &a->learn.run;

	switch (i) {
	case O_POLICY: o->policy_path = arg; return 0;
	case O_TRACE: o->trace_path = arg; return 0;
	case O_USER: o->user = arg; return 0;
	case O_KEEP_RUNNING: o->keep_running = true; return 0;
	case O_CGROUP_PARENT: o->cgroup_parent = arg; return 0;
	case O_LABEL: return add_label(o, arg);
	case O_REQUIRE: return add_backend(&o->plan_opts.require, arg);
	case O_PREFER: return add_backend(&o->plan_opts.prefer, arg);
	case O_STRICT: o->plan_opts.strict = true; return 0;
	case O_NO_OBSERVE: o->plan_opts.no_observe = true; return 0;
	case O_KEEP_CAPS: return keep_caps(o);
	case O_OUT: a->learn.out = arg; return 0;
	case O_VERIFY: a->learn.verify = true; return 0;
	case O_WILDCARDS: a->learn.wildcards = true; return 0;
	case O_JSON: a->json = true; return 0;
	case O_FORCE: a->force = true; return 0;
	case O_VERBOSE: a->verbosity = 2; return 0;
	case O_QUIET: a->verbosity = 0; return 0;
	case O_HELP: help(verb); return HELP_SHOWN;
	case O_VERSION:
	case O_MAX:
		break;
	}
	return misplaced(i, verb);
}

/* argv[0]: the command. Its options into a, then what it needs checked. */
static int parse(int argc, char **argv, int verb, struct cli_args *a)
{
	const struct rf_cli_verb *v = &verbs[verb];
	struct rf_cli_parser p;
	uint64_t given = 0;
	int i, rc, n;

	cli__parser_init(&p, &verbs__cli, verb);
	while ((rc = cli__next(&p, argc, argv, &i)) > 0) {
		rc = set_option(a, (enum opt)i, optarg, verb);
		if (rc)
			return rc;
		given |= 1ull << i;
	}
	if (rc == -EINVAL)
		return usage_error("option %s needs a value", argv[optind - 1]);
	if (rc) {
		/* another command's option: say whose */
		i = cli__option(&verbs__cli, argv[optind - 1]);
		return i >= 0 ? misplaced(i, verb) : usage_error("unknown option %s", argv[optind - 1]);
	}
	rf_log_init("ringfence", a->verbosity);
	a->learn.run.argv = argv + optind;
	n = argc - optind;
	for (i = 0; i < O_MAX; i++)
		if ((v->required & (1ull << i)) && !(given & (1ull << i))) {
			char msg[96];

			snprintf(msg, sizeof(msg), "%s needs --%s %s", v->name, opts[i].name,
				 opts[i].metavar ? opts[i].metavar : "");
			return usage_error("%s", msg);
		}
	if (n < v->min_args)
		return usage_error("%s needs a command after --", v->name);
	if (v->max_args >= 0 && n > v->max_args)
		return usage_error("unexpected argument %s", argv[optind + v->max_args]);
	return 0;
}

/* W3C trace context: a caller's TRACEPARENT joins this run to its trace. An
 * invalid one is not recorded (it would join nothing), and said so. */
static void take_traceparent(struct run_opts *o)
{
	const char *tp = getenv("TRACEPARENT");

	if (!tp)
		return;
	if (registry__traceparent_valid(tp))
		snprintf(o->traceparent, sizeof(o->traceparent), "%s", tp);
	else
		rf_info("warning: TRACEPARENT is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>); "
			"not recorded");
}

static int do_run(int argc, char **argv, void *ctx)
{
	struct cli_args *a = ctx;

	(void)argc, (void)argv;
	take_traceparent(&a->learn.run);
	return cmd_run(&a->learn.run);
}

static int do_check(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_check(&((struct cli_args *)ctx)->learn.run);
}

static int do_lint(int argc, char **argv, void *ctx)
{
	const struct cli_args *a = ctx;

	return cmd_lint(argc, argv, a->json, a->verbosity == 0);
}

static int do_learn(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_learn(&((struct cli_args *)ctx)->learn);
}

static int do_probe(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv, (void)ctx;
	return cmd_probe();
}

static int do_status(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_status(((struct cli_args *)ctx)->json);
}

static int do_gc(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_gc(((struct cli_args *)ctx)->verbosity);
}

static int do_unload(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_unload(((struct cli_args *)ctx)->force);
}

/* help [COMMAND], --help [COMMAND]: an unknown one gets everything. */
static int do_help(int argc, char **argv, void *ctx)
{
	int verb = argc > 1 ? cli__verb(&verbs__cli, argv[1]) : -1;

	(void)ctx;
	help(verb >= 0 && !verbs[verb].hidden ? verb : -1);
	return 0;
}

static int do_oci_hook(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv, (void)ctx;
	return cmd_oci_hook();
}

static int do_oci_seccomp(int argc, char **argv, void *ctx)
{
	(void)argc, (void)argv;
	return cmd_oci_seccomp(((struct cli_args *)ctx)->learn.run.policy_path);
}

static int do_reap(int argc, char **argv, void *ctx)
{
	(void)ctx;
	return reaper__main(argc, argv);
}

/* run, learn, gc and unload load programs and make or remove cgroups: say
 * so up front instead of the EPERM of the first step that fails. probe and
 * check go on (they show what this kernel has, as far as they can see). */
static int need_privs(const char *cmd, int exit_code)
{
	char why[160];

	if (privs__have(RF_PRIVS_SUPERVISOR, why, sizeof(why)))
		return 0;
	rf_err("%s %s", cmd, why);
	return exit_code;
}

/* Before any command: --help [COMMAND], -h, --version. */
static int global_option(int argc, char **argv)
{
	int i = cli__option(&verbs__cli, argv[1]);

	if (i == O_HELP)
		return do_help(argc - 1, argv + 1, NULL);
	if (i == O_VERSION) {
		printf("ringfence %s\n", RF_VERSION);
		return 0;
	}
	return usage_error("unknown command \"%s\"", argv[1]);
}

/* "run, check, learn, probe, status, gc or unload" */
static void verb_list(char *buf, size_t len)
{
	size_t v, n = 0, k = 0, used = 0;

	for (v = 0; v < V_MAX; v++)
		n += !verbs[v].hidden;
	buf[0] = '\0';
	for (v = 0; v < V_MAX && used < len; v++) {
		if (verbs[v].hidden)
			continue;
		k++;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k == 1 ? "" : k == n ? " or " : ", ", verbs[v].name);
	}
}

int verbs__main(int argc, char **argv)
{
	struct cli_args a = { .verbosity = 1 };
	const struct rf_cli_verb *v;
	char list[128];
	int verb, rc;

	rf_log_init("ringfence", 1);
	if (argc < 2) {
		verb_list(list, sizeof(list));
		return usage_error("a command is needed: %s", list);
	}
	if (argv[1][0] == '-')
		return global_option(argc, argv);
	verb = cli__verb(&verbs__cli, argv[1]);
	if (verb < 0)
		return usage_error("unknown command \"%s\"", argv[1]);
	v = &verbs[verb];
	if (v->raw)
		return v->handler(argc - 1, argv + 1, NULL);
	rc = parse(argc - 1, argv + 1, verb, &a);
	if (rc)
		return rc == HELP_SHOWN ? 0 : rc;
	if (v->root_exit) {
		rc = need_privs(v->name, v->root_exit);
		if (rc)
			return rc;
	}
	return v->handler(argc - 1 - optind, a.learn.run.argv, &a);
}
