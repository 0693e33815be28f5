// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence: run a command under a kernel-enforced least-privilege policy. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "learn.h"
#include "log.h"
#include "run.h"

#define RF_VERSION "0.1.0"

static const char usage_text[] =
"usage: ringfence run --policy FILE [--trace FILE] [--user USER] [--keep-running]\n"
"                     [--require BACKEND]... [--prefer BACKEND]... [--strict] [-v|-q] -- CMD [ARGS...]\n"
"       ringfence check --policy FILE [--require BACKEND]... [--prefer BACKEND]... [--strict]\n"
"       ringfence learn [--policy BASE] [--out FILE] [--verify] [--user USER]\n"
"                       [-v|-q] -- CMD [ARGS...]\n"
"       ringfence probe\n"
"       ringfence status [--json]\n"
"       ringfence gc [-q]\n"
"       ringfence unload [--force]\n"
"       ringfence --version | --help\n"
"\n"
"Exit status of run: the command's, 128+N if it died by signal N,\n"
"124 the command ran but its --trace could not be written whole,\n"
"125 invalid usage or policy (also an unwritable --trace), 126 refused\n"
"(cannot be enforced here, or not executable), 127 command not found.\n"
"If ringfence itself is killed, the command is killed too (a watcher\n"
"process cleans up); --keep-running lets it run on, still confined.\n"
"Exit status of gc: 0 done (it prints one line per thing removed),\n"
"1 it could not look, or processes survived the kill.\n"
"Exit status of learn: 0 policy written (and --verify saw no denial), 1 --verify\n"
"saw denials or learning failed, 125-127 as for run.\n"
"Backends: cgroup-sock-addr, bpf-lsm, landlock, seccomp, capabilities.\n"
"--strict refuses a plan whose backends leave known gaps (check's \"gaps\").\n";

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
		{ "strict", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int verbosity = 1, c;
	bool is_run = !strcmp(cmd, "run");

	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, the command to run. */
	while ((c = getopt_long(argc, argv, "+:p:t:u:vq", opts, NULL)) != -1) {
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
	if (geteuid() != 0)
		fprintf(stderr, "ringfence: warning: not root; BPF and cgroup access will fail\n");
	return 0;
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
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("ringfence %s\n", RF_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run") || !strcmp(cmd, "check")) {
		rc = parse_policy_command(argc - 1, argv + 1, cmd, &o);
		if (rc)
			return rc;
		return !strcmp(cmd, "run") ? cmd_run(&o) : cmd_check(o.policy_path, &o.plan_opts);
	}
	if (!strcmp(cmd, "learn")) {
		struct learn_opts lo = { 0 };

		rc = parse_learn(argc - 1, argv + 1, &lo);
		return rc ? rc : cmd_learn(&lo);
	}
	if (!strcmp(cmd, "probe") || !strcmp(cmd, "status") || !strcmp(cmd, "unload") ||
	    !strcmp(cmd, "gc")) {
		rc = parse_plain_command(argc - 1, argv + 1, cmd, &o, &flag);
		if (rc)
			return rc;
		if (!strcmp(cmd, "probe"))
			return cmd_probe();
		if (!strcmp(cmd, "status"))
			return cmd_status(flag);
		if (!strcmp(cmd, "gc"))
			return cmd_gc(rf_verbosity == 0);
		return cmd_unload(flag);
	}
	return usage_error("unknown command \"%s\"", cmd);
}
