// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence-monitor's options: the table, and the parsing and help made from it. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "input.h"
#include "metrics.h"
#include "options.h"
#include "paths.h"
#include "registry.h"
#include "sinks.h"
#include "top.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

enum opt {
	O_OUTPUT, O_ACTIVITY, O_METRICS, O_METRICS_FILE, O_RECORD, O_REPLAY, O_PROFILE, O_TOP, O_ONCE,
	O_SINK_ACTIVITY, O_STATUS, O_STATE, O_INTERVAL, O_UPDATE, O_LINGER, O_BURST_N, O_BURST_W, O_CPU,
	O_MEM, O_PIDS, O_RINGBUF, O_QUEUE, O_TICK, O_REGISTRY, O_COALESCE, O_BPF_CPU,
	O_BOOST, O_JOURNAL, O_SYSLOG, O_OTLP, O_WEBHOOK, O_SPOOL_DIR, O_SPOOL_MB, O_SINK_DRAIN,
	O_QUIET, O_VERBOSE, O_VERSION, O_HELP, O_MAX,
};

#define ALL RF_CLI_ALL_VERBS
#define AT(field) .off = offsetof(struct cli, field)
/* An option stored as it is: a string, a flag, a number lo..hi. */
#define STR(kind, meta, field) kind, meta, .verbs = ALL, .flags = RF_CLI_STORE, AT(field)
#define FLAG(field) RF_CLI_FLAG, NULL, .verbs = ALL, .flags = RF_CLI_STORE, AT(field)
#define NUM(meta, l, h, field) RF_CLI_NUMBER, meta, .verbs = ALL, .flags = RF_CLI_STORE, \
	.lo = (l), .hi = (h), AT(field)

static const struct rf_cli_option opts[] = {
	[O_OUTPUT] = { "output", 'o', STR(RF_CLI_FILE, "FILE", o.output),
		       .help = "append alerts to FILE (reopened on SIGHUP); default stdout" },
	[O_ACTIVITY] = { "activity", 0, STR(RF_CLI_FILE, "FILE", o.activity),
			 .help = "append activity records (OCSF DNS Activity: every query\n"
				 "a DNS gate answered or refused; Network Activity: each\n"
				 "destination's bytes every interval and at the end) to FILE" },
	[O_SINK_ACTIVITY] = { "sink-activity", 0, FLAG(o.sinks.activity),
			      .help = "the sinks carry the activity records too (DNS and Network\n"
				      "Activity, as --activity writes them), beside the alerts" },
	[O_METRICS] = { "metrics", 0, STR(RF_CLI_TEXT, "ADDR:PORT", o.metrics_addr),
			.help = "serve Prometheus metrics (GET or HEAD /metrics) on a loopback\n"
				"address (e.g. 127.0.0.1:9464 or [::1]:9464)" },
	[O_METRICS_FILE] = { "metrics-file", 0, STR(RF_CLI_FILE, "FILE", o.metrics_file),
			     .help = "write them there every interval (textfile collector);\n"
				     "with --replay, once, at the end of the replay" },
	[O_RECORD] = { "record", 0, STR(RF_CLI_FILE, "FILE", o.record),
		       .help = "write every input the detectors consume (replay format)" },
	[O_REPLAY] = { "replay", 0, STR(RF_CLI_FILE, "FILE", replay),
		       .help = "run the detectors over a recorded file (virtual time)" },
	[O_PROFILE] = { "profile", 0, STR(RF_CLI_TEXT, "NAME", profile),
			.help = "with --replay: the syscalls that sandbox/policy made, as a\n"
				"policy \"syscalls\" object" },
	[O_TOP] = { "top", 0, FLAG(top), .help = "live view of sandboxes and alerts" },
	[O_ONCE] = { "once", 0, FLAG(once), .help = "with --top: one frame, then exit" },
	[O_STATUS] = { "status", 0, STR(RF_CLI_FILE, "FILE", o.status_path),
		       .help = "where the view's snapshot is written/read\n"
			       "(default " RF_MON_STATUS_DEFAULT ")" },
	[O_STATE] = { "state", 0, STR(RF_CLI_FILE, "FILE", o.state_path),
		      .help = "lost-event baseline kept across restarts\n"
			      "(default " RF_MON_STATE_DEFAULT "; \"\" none)" },
	[O_INTERVAL] = { "interval", 0, NUM("MS", 50, 3600000, o.interval_ms),
			 .help = "resource sampling period (default 1000)" },
	[O_UPDATE] = { "update-ms", 0, NUM("MS", 100, 86400000, detect.update_ms),
		       .help = "periodic update of an ongoing alert (default 10000)" },
	[O_LINGER] = { "linger-ms", 0, NUM("MS", 1, 86400000, detect.linger_ms),
		       .help = "quiet time before an alert closes (default 3000)" },
	[O_BURST_N] = { "burst-count", 0, NUM("N", 1, 1000000, detect.burst_count),
			.help = "default deny burst: N denials (default 20) ..." },
	[O_BURST_W] = { "burst-window-ms", 0, NUM("MS", 1, 3600000, detect.burst_window_ms),
			.help = "... within MS milliseconds (default 1000)" },
	[O_CPU] = { "cpu-percent", 0, NUM("P", 0, 100000, detect.cpu_percent),
		    .help = "default CPU threshold (default 90 x CPUs; 0 turns it off)" },
	[O_MEM] = { "memory-mb", 0, NUM("M", 0, 1ULL << 40, detect.memory_mb),
		    .help = "default memory threshold (default half the RAM; 0 off)" },
	[O_PIDS] = { "pids", 0, NUM("N", 0, 4194304, detect.pids),
		     .help = "default process threshold (default 1024; 0 off)" },
	[O_RINGBUF] = { "ringbuf-kb", 0, NUM("N", 4, 1048576, ringbuf_kb),
			.help = "the monitor's own ring buffer (default 1024)" },
	[O_QUEUE] = { "queue-kb", 0, NUM("N", 4, 1048576, queue_kb),
		      .help = "output queue bound (default 8192)" },
	[O_TICK] = { "tick-ms", 0, NUM("MS", 10, 10000, o.tick_ms),
		     .help = "the detectors' clock tick (default 250): how soon a\n"
			     "window or a quiet alert is closed" },
	[O_REGISTRY] = { "registry", 0, STR(RF_CLI_DIR, "DIR", o.registry_dir),
			 .help = "the sandbox registry to follow (default " RF_REGISTRY_DIR ")" },
	[O_COALESCE] = { "coalesce-us", 0, NUM("N", 0, 5000, o.coalesce_us),
			 .help = "after a ring-buffer wakeup, wait N us so one wakeup drains\n"
				 "many records (default 500; 0 drains at once)" },
	[O_BPF_CPU] = { "bpf-cpu", 0, FLAG(o.bpf_cpu),
			.help = "CPU time from sched_switch even where cpu.stat exists" },
	[O_BOOST] = { "priority-boost", 0, NUM("N", 0, 20, boost),
		      .help = "run N nice levels above normal, as auditd does, so a busy\n"
			      "host does not delay draining (default 4; 0 leaves it)" },
	[O_JOURNAL] = { "journal", 0, FLAG(journal),
			.help = "also send alerts to journald, native fields (MESSAGE_ID,\n"
				"PRIORITY, RINGFENCE_OCSF, RINGFENCE_RULE, RINGFENCE_SANDBOX)" },
	[O_SYSLOG] = { "syslog", 0, STR(RF_CLI_TEXT, "ADDR", o.sinks.addr[RF_SINK_SYSLOG]),
		       .help = "also send alerts as RFC 5424 syslog: udp://HOST:PORT,\n"
			       "tcp://HOST:PORT (octet-counted) or unix:PATH" },
	[O_OTLP] = { "otlp", 0, STR(RF_CLI_TEXT, "URL", o.sinks.addr[RF_SINK_OTLP]),
		     .help = "also send alerts as OTLP/HTTP JSON logs (a bare origin gets\n"
			     "/v1/logs); trace ids from TRACEPARENT" },
	[O_WEBHOOK] = { "webhook", 0, STR(RF_CLI_TEXT, "URL", o.sinks.addr[RF_SINK_WEBHOOK]),
			.help = "also POST each alert's OCSF JSON to URL" },
	[O_SPOOL_DIR] = { "spool-dir", 0, STR(RF_CLI_DIR, "DIR", o.sinks.spool_dir),
			  .help = "where a sink that is down has its records kept\n"
				  "(default " RF_MON_SPOOL_DEFAULT ")" },
	[O_SPOOL_MB] = { "spool-mb", 0, NUM("N", 1, 1048576, spool_mb),
			 .help = "each sink's spool bound; past it records are dropped\n"
				 "and counted (default 64)" },
	[O_SINK_DRAIN] = { "sink-drain-ms", 0, NUM("MS", 0, 600000, o.sinks.drain_ms),
			   .help = "at exit, keep delivering that long; what is left stays\n"
				   "spooled for the next start (default 3000)" },
	[O_QUIET] = { "quiet", 'q', RF_CLI_FLAG, NULL, .verbs = ALL, .help = "errors only" },
	[O_VERBOSE] = { "verbose", 'v', RF_CLI_FLAG, NULL, .verbs = ALL,
			.help = "debug messages" },
	[O_VERSION] = { "version", 0, RF_CLI_FLAG, NULL, .verbs = ALL, .help = "the version" },
	[O_HELP] = { "help", 'h', RF_CLI_FLAG, NULL, .verbs = ALL, .help = "this text" },
};
_Static_assert(N_OF(opts) == O_MAX, "opts covers enum opt");
_Static_assert(O_MAX <= RF_CLI_OPTS_MAX, "options fit the parser");

static const struct rf_cli_exit exits[] = {
	{ 0, "stopped by SIGINT or SIGTERM, or the replay is done" },
	{ 1, "failure" },
	{ EXIT_USAGE, "invalid usage" },
};

const struct rf_cli options__cli = {
	.prog = "ringfence-monitor",
	.opts = opts, .n_opts = O_MAX,
	.exits = exits, .n_exits = N_OF(exits),
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
"usage: ringfence-monitor [OPTIONS]             watch every sandbox, alerts as NDJSON\n"
"       ringfence-monitor --replay FILE [--output FILE] [--metrics-file FILE] [THRESHOLDS]\n"
"       ringfence-monitor --replay FILE --profile SANDBOX|POLICY_ID\n"
"       ringfence-monitor --top [--once] [--status FILE]\n"
"       ringfence-monitor --version | --help\n"
"\n");
	cli__options_help(f, &options__cli, -1);
	fprintf(f, "\nExit status:");
	for (i = 0; i < N_OF(exits); i++)
		fprintf(f, "%s %d %s", i ? ";" : "", exits[i].code, exits[i].text);
	fprintf(f, ".\n");
}

/* One option. Returns -1 to go on, else the exit status. */
static int set_option(struct cli *c, enum opt i, const char *arg)
{
	char why[160];

	if (opts[i].flags & RF_CLI_STORE) {
		if (!cli__store(&opts[i], arg, c, why, sizeof(why)))
			return -1;
		fprintf(stderr, "ringfence-monitor: %s\n", why);
		return EXIT_USAGE;
	}
	switch (i) {
	case O_QUIET: c->verbosity = 0; return -1;
	case O_VERBOSE: c->verbosity = 2; return -1;
	case O_VERSION:
		printf("ringfence-monitor %s\n", RF_MON_VERSION);
		return 0;
	case O_HELP:
		usage(stdout);
		return 0;
	default:        /* the stored ones: RF_CLI_STORE above */
		return EXIT_USAGE;
	}
}

int options__parse(struct cli *c, int argc, char **argv)
{
	struct rf_cli_parser p;
	int i, rc, status;

	cli__parser_init(&p, &options__cli, -1);
	while ((rc = cli__next(&p, argc, argv, &i)) > 0) {
		status = set_option(c, (enum opt)i, optarg);
		if (status >= 0)
			return status;
	}
	if (rc) {
		fprintf(stderr, "ringfence-monitor: unknown or incomplete option %s\n",
			argv[optind - 1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "ringfence-monitor: unexpected argument %s\n", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

int options__check(const struct cli *c)
{
	const char *bad = NULL;

	if (c->profile && !c->replay)
		bad = "--profile needs --replay FILE";
	else if (c->once && !c->top)
		bad = "--once goes with --top";
	else if (c->replay && (c->top || c->o.record || c->o.metrics_addr))
		bad = "--replay takes only --output, --activity, --metrics-file, --profile, the sinks "
		      "and thresholds";
	else if (c->top && (c->journal || sinks__any(&c->o.sinks)))
		bad = "--top only reads the view: the sinks go with a monitor";
	else if (c->o.sinks.activity && !c->journal && !sinks__any(&c->o.sinks))
		bad = "--sink-activity needs a sink (--journal, --syslog, --otlp or --webhook)";
	if (bad) {
		fprintf(stderr, "ringfence-monitor: %s\n", bad);
		return EXIT_USAGE;
	}
	{
		char why[512];

		if (sinks__check(&c->o.sinks, why, sizeof(why))) {
			fprintf(stderr, "ringfence-monitor: %s\n", why);
			return EXIT_USAGE;
		}
	}
	if (c->o.metrics_addr) {
		struct sockaddr_in6 sa;
		unsigned int len;
		char why[512];

		if (metrics__parse_addr(c->o.metrics_addr, &sa, &len, why, sizeof(why))) {
			fprintf(stderr, "ringfence-monitor: %s\n", why);
			return EXIT_USAGE;
		}
	}
	return 0;
}
