// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence: run a command under a kernel-enforced least-privilege policy. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn/learn_cmd.h"
#include "log.h"
#include "privs.h"
#include "run/reaper.h"
#include "run/run.h"

#define RF_VERSION "0.1.0"

static const char usage_lines[] =
"usage: ringfence run --policy FILE [--trace FILE] [--user USER] [--keep-running]\n"
"                     [--label KEY=VALUE]... [--cgroup-parent CGROUP]\n"
"                     [--require BACKEND]... [--prefer BACKEND]... [--strict] [-v|-q] -- CMD [ARGS...]\n"
"       ringfence check --policy FILE [--cgroup-parent CGROUP] [--require BACKEND]...\n"
"                       [--prefer BACKEND]... [--strict]\n"
"       ringfence learn [--policy BASE] [--out FILE] [--verify] [--user USER]\n"
"                       [-v|-q] -- CMD [ARGS...]\n"
"       ringfence probe\n"
"       ringfence status [--json]\n"
"       ringfence gc [-q]\n"
"       ringfence unload [--force]\n"
"       ringfence --version | --help | COMMAND --help\n";

static const char commands_text[] =
"\nCommands:\n"
"  run     run CMD in a new sandbox under the policy, until it exits\n"
"  check   validate the policy and print the plan for this kernel; start nothing\n"
"  learn   run CMD in audit mode and write the smallest policy that allows it\n"
"  probe   what this kernel can enforce, backend by backend (JSON)\n"
"  status  the live sandboxes (--json: as JSON)\n"
"  gc      remove what killed supervisors left behind\n"
"  unload  unpin the BPF programs (--force: even with live sandboxes)\n";

/* Every option, the commands that take it ("" all), what it does. */
static const struct {
	const char *flag, *cmds, *text;
} option_help[] = {
	{ "-p, --policy FILE", "run check learn",
	  "the JSON policy (learn: the BASE policy, default deny-all)" },
	{ "-t, --trace FILE", "run", "write the JSON-lines trace there (truncated first)" },
	{ "-u, --user USER[:GROUP]", "run learn",
	  "run CMD as this user (a name or a uid, optionally :group or :gid);\n"
	  "default SUDO_UID/SUDO_GID, else the caller (uid 0 when root runs it)" },
	{ "--keep-running", "run", "if ringfence is killed, CMD runs on, still confined" },
	{ "--cgroup-parent CGROUP", "run check",
	  "create the sandbox cgroup below this cgroup (a path in the cgroup2 mount);\n"
	  "default: the caller's delegated cgroup, else a systemd scope, else\n"
	  "<cgroup2>/ringfence" },
	{ "--label KEY=VALUE", "run",
	  "a correlation label (repeatable, at most 8), recorded in the trace,\n"
	  "the registry and every alert. KEY: a-z, 0-9, '_', '.', '-' (1-63,\n"
	  "starting with a letter or digit); VALUE: printable ASCII, at most 63,\n"
	  "no '\"' or '\\'. A W3C TRACEPARENT in the environment is recorded too" },
	{ "--require BACKEND", "run check",
	  "refuse (exit 126) unless BACKEND enforces part of the policy (repeatable)" },
	{ "--prefer BACKEND", "run check", "use BACKEND where more than one could (repeatable)" },
	{ "--strict", "run check",
	  "refuse a plan whose backends leave known gaps (the plan's \"gaps\")" },
	{ "--out FILE", "learn", "write the policy there (atomically), not to stdout" },
	{ "--verify", "learn", "run CMD again under the learned policy, enforcing" },
	{ "--json", "status", "JSON instead of a table" },
	{ "--force", "unload", "unpin also while sandboxes are live" },
	{ "-v, --verbose", "run learn check probe gc unload",
	  "debug messages (run: every denial as it happens)" },
	{ "-q, --quiet", "run learn check probe gc unload", "errors only" },
	{ "-h, --help", "", "this text (after a command: that command's part)" },
};

static const char exit_text[] =
"\nBACKEND: cgroup-sock-addr, bpf-lsm, landlock, seccomp, capabilities.\n"
"run, learn, gc and unload need root (CAP_BPF, CAP_SYS_ADMIN).\n"
"\nExit status of run: the command's, 128+N if it died by signal N,\n"
"123 ringfence itself ran out of memory (nothing started or all undone),\n"
"124 the command ran but its --trace could not be written whole,\n"
"125 invalid usage or policy (also an unwritable --trace), 126 refused\n"
"(cannot be enforced here, not executable, or not root), 127 command not found.\n"
"If ringfence itself is killed, the command is killed too (a watcher\n"
"process cleans up); --keep-running lets it run on, still confined.\n"
"Sandbox cgroups go below --cgroup-parent, else below the caller's cgroup\n"
"when systemd delegated it (Delegate=yes), else in a transient systemd scope\n"
"when PID 1 is systemd, else below <cgroup2>/ringfence.\n"
"Exit status of gc: 0 done (it prints one line per thing removed),\n"
"1 it could not look, or processes survived the kill.\n"
"Exit status of learn: 0 policy written (and --verify saw no denial), 1 --verify\n"
"saw denials or learning failed, 125-127 as for run.\n"
"--strict refuses a plan whose backends leave known gaps (check's \"gaps\").\n";

static bool word_in(const char *words, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = words; (p = strstr(p, w)); p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* The usage line (not a continuation) names cmd right after "ringfence ". */
static bool usage_of(const char *line, const char *cmd)
{
	const char *p = strstr(line, "ringfence ");
	size_t n = strlen(cmd);

	return p && !strncmp(p + 10, cmd, n) && p[10 + n] == ' ';
}

/* cmd NULL: everything; else that command's usage lines and options. */
static void help(const char *cmd)
{
	const char *line, *nl;
	bool shown = false, first = true;
	size_t i;

	for (line = usage_lines; (nl = strchr(line, '\n')); line = nl + 1) {
		if (line[7] != ' ')     /* not a continuation */
			shown = !cmd || usage_of(line, cmd);
		if (!shown)
			continue;
		/* a command's own usage starts with "usage:" too */
		if (first && !strncmp(line, "       ", 7))
			fputs("usage:", stdout), line += 6;
		first = false;
		fwrite(line, 1, (size_t)(nl - line + 1), stdout);
	}
	if (!cmd)
		fputs(commands_text, stdout);
	fputs("\nOptions:\n", stdout);
	for (i = 0; i < sizeof(option_help) / sizeof(option_help[0]); i++) {
		const char *t = option_help[i].text, *cmds = option_help[i].cmds;

		if (cmd && cmds[0] && !word_in(cmds, cmd))
			continue;
		printf("  %-24s", option_help[i].flag);
		for (; (nl = strchr(t, '\n')); t = nl + 1)
			printf("%.*s\n%26s", (int)(nl - t), t, "");
		if (!cmd && cmds[0])
			printf("%s [%s]\n", t, cmds);
		else
			printf("%s\n", t);
	}
	if (!cmd || word_in("run learn gc", cmd))
		fputs(exit_text, stdout);
}

/* What the parsers return after COMMAND --help: exit 0. */
#define HELP_SHOWN (-1)

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "ringfence: usage: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see ringfence --help)\n");
	return RF_EXIT_USAGE;
}

/* Options only some commands take: the one line a misplaced one gets. */
static const struct {
	int opt;
	const char *cmds;       /* space-separated commands that take it */
	const char *msg;
} option_scopes[] = {
	{ 't', "run", "--trace is only for run" },
	{ 'u', "run learn", "--user is only for run and learn" },
	{ 'R', "run check", "--require/--prefer are for run and check" },
	{ 'P', "run check", "--require/--prefer are for run and check" },
	{ 'S', "run check", "--strict is for run and check" },
	{ 'k', "run", "--keep-running is only for run" },
	{ 'L', "run", "--label is only for run" },
	{ 'C', "run check", "--cgroup-parent is for run and check" },
};

/* NULL when cmd takes option c, else the message. */
static const char *option_scope(int c, const char *cmd)
{
	size_t i, n = strlen(cmd);

	for (i = 0; i < sizeof(option_scopes) / sizeof(option_scopes[0]); i++) {
		const char *w = option_scopes[i].cmds;

		if (option_scopes[i].opt != c)
			continue;
		for (; w; w = strchr(w, ' ') ? strchr(w, ' ') + 1 : NULL)
			if (!strncmp(w, cmd, n) && (w[n] == ' ' || !w[n]))
				return NULL;
		return option_scopes[i].msg;
	}
	return NULL;
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

static int parse_common(int argc, char **argv, const char *cmd, struct run_opts *o,
			bool *flag, const char *flag_name, const char **out)
{
	const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "trace", required_argument, NULL, 't' },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "require", required_argument, NULL, 'R' },
		{ "keep-caps", no_argument, NULL, 'K' },
		{ "prefer", required_argument, NULL, 'P' },
		{ flag_name ? flag_name : "-", no_argument, NULL, 'f' },
		{ "out", required_argument, NULL, 'O' },
		{ "keep-running", no_argument, NULL, 'k' },
		{ "label", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "cgroup-parent", required_argument, NULL, 'C' },
		{ "strict", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int verbosity = 1, c;
	bool is_run = !strcmp(cmd, "run");

	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, the command to run. */
	while ((c = getopt_long(argc, argv, "+:p:t:u:vqh", opts, NULL)) != -1) {
		const char *scope = option_scope(c, cmd);

		if (scope)
			return usage_error("%s", scope);
		switch (c) {
		case 'p':
			o->policy_path = optarg;
			break;
		case 't':
			o->trace_path = optarg;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'R':
		case 'P': {
			enum rf_backend b = names__backend_by_name(optarg);

			if (b == RF_BE_NONE)
				return usage_error("unknown backend \"%s\" (bpf-lsm, landlock, "
						   "seccomp, cgroup-sock-addr, capabilities)", optarg);
			if (c == 'R')
				o->plan_opts.require |= 1u << b;
			else
				o->plan_opts.prefer |= 1u << b;
			break;
		}
		case 'K': {
			/* Test-only: proves the BPF-LSM boundary against a root
			 * process holding its capabilities. Never by accident. */
			const char *gate = getenv("RINGFENCE_TEST_KEEP_CAPS");

			if (!is_run || !gate || strcmp(gate, "1"))
				return usage_error("--keep-caps is a test-only option of run "
						   "(needs RINGFENCE_TEST_KEEP_CAPS=1)", NULL);
			o->plan_opts.keep_caps = true;
			break;
		}
		case 'k':
			o->keep_running = true;
			break;
		case 'L': {
			int rc = add_label(o, optarg);

			if (rc)
				return rc;
			break;
		}
		case 'h':
			help(cmd);
			return HELP_SHOWN;
		case 'C':
			o->cgroup_parent = optarg;
			break;
		case 'S':
			o->plan_opts.strict = true;
			break;
		case 'v':
			verbosity = 2;
			break;
		case 'q':
			verbosity = 0;
			break;
		case 'O':
			if (!out)
				return usage_error("--out is only for learn", NULL);
			*out = optarg;
			break;
		case 'f':
			if (!flag)
				return usage_error("unknown option for %s", cmd);
			*flag = true;
			break;
		case ':':
			return usage_error("option %s needs a value", argv[optind - 1]);
		case '?':
			return usage_error("unknown option %s", argv[optind - 1]);
		default:
			return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	rf_log_init("ringfence", verbosity);
	o->argv = argv + optind;
	return 0;
}

/* run and check: a policy is needed; run takes a command, check none. */
static int parse_policy_command(int argc, char **argv, const char *cmd, struct run_opts *o)
{
	bool is_run = !strcmp(cmd, "run");
	int rc;

	rc = parse_common(argc, argv, cmd, o, NULL, NULL, NULL);
	if (rc)
		return rc;
	if (!o->policy_path)
		return usage_error("%s needs --policy FILE", cmd);
	if (is_run && !o->argv[0])
		return usage_error("run needs a command after --", NULL);
	if (!is_run && o->argv[0])
		return usage_error("unexpected argument %s", o->argv[0]);
	return 0;
}

/* learn: BASE is optional, a command is needed. */
static int parse_learn(int argc, char **argv, struct learn_opts *lo)
{
	int rc;

	rc = parse_common(argc, argv, "learn", &lo->run, &lo->verify, "verify", &lo->out);
	if (rc)
		return rc;
	if (!lo->run.argv[0])
		return usage_error("learn needs a command after --", NULL);
	return 0;
}

/* probe, status, gc and unload: no policy, no argument, one flag at most. */
static int parse_plain_command(int argc, char **argv, const char *cmd, struct run_opts *o,
			       bool *flag)
{
	const char *fl = !strcmp(cmd, "status") ? "json" :
			 !strcmp(cmd, "unload") ? "force" : NULL;
	int rc;

	rc = parse_common(argc, argv, cmd, o, fl ? flag : NULL, fl, NULL);
	if (rc)
		return rc;
	if (o->policy_path)
		return usage_error("--policy is not an option of %s", cmd);
	if (o->argv[0])
		return usage_error("unexpected argument %s", o->argv[0]);
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

int main(int argc, char **argv)
{
	struct run_opts o = { 0 };
	bool flag = false;
	const char *cmd;
	int rc;

	rf_log_init("ringfence", 1);
	if (argc < 2)
		return usage_error("a command is needed: run, check, learn, probe, status, gc or unload", NULL);
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		help(argc > 2 && strcmp(argv[2], "--help") ? argv[2] : NULL);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("ringfence %s\n", RF_VERSION);
		return 0;
	}
	/* internal: a reaper's clean-up after its supervisor died (reaper.h) */
	if (!strcmp(cmd, RF_REAPER_CMD))
		return reaper__main(argc - 1, argv + 1);
	if (!strcmp(cmd, "run") || !strcmp(cmd, "check")) {
		rc = parse_policy_command(argc - 1, argv + 1, cmd, &o);
		if (rc)
			return rc == HELP_SHOWN ? 0 : rc;
		if (strcmp(cmd, "run"))
			return cmd_check(&o);
		rc = need_privs(cmd, RF_EXIT_REFUSED);
		if (rc)
			return rc;
		take_traceparent(&o);
		return cmd_run(&o);
	}
	if (!strcmp(cmd, "learn")) {
		struct learn_opts lo = { 0 };

		rc = parse_learn(argc - 1, argv + 1, &lo);
		if (rc == HELP_SHOWN)
			return 0;
		if (!rc)
			rc = need_privs(cmd, RF_EXIT_REFUSED);
		return rc ? rc : cmd_learn(&lo);
	}
	if (!strcmp(cmd, "probe") || !strcmp(cmd, "status") || !strcmp(cmd, "unload") ||
	    !strcmp(cmd, "gc")) {
		rc = parse_plain_command(argc - 1, argv + 1, cmd, &o, &flag);
		if (rc)
			return rc == HELP_SHOWN ? 0 : rc;
		if (!strcmp(cmd, "probe"))
			return cmd_probe();
		if (!strcmp(cmd, "status"))
			return cmd_status(flag);
		rc = need_privs(cmd, 1);
		if (rc)
			return rc;
		if (!strcmp(cmd, "gc"))
			return cmd_gc(rf_verbosity == 0);
		return cmd_unload(flag);
	}
	return usage_error("unknown command \"%s\"", cmd);
}
