// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence-monitor: command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "engine.h"
#include "log.h"
#include "metrics.h"
#include "paths.h"
#include "privs.h"
#include "replay.h"
#include "setup.h"
#include "top.h"

#define EXIT_USAGE 125

static void usage(FILE *f)
{
	fprintf(f,
"usage: ringfence-monitor [OPTIONS]             watch every sandbox, alerts as NDJSON\n"
"       ringfence-monitor --replay FILE [--output FILE] [--metrics-file FILE] [THRESHOLDS]\n"
"       ringfence-monitor --replay FILE --profile SANDBOX|POLICY_ID\n"
"       ringfence-monitor --top [--once] [--status FILE]\n"
"       ringfence-monitor --version | --help\n"
"\n"
"  -o, --output FILE       append alerts to FILE (reopened on SIGHUP); default stdout\n"
"      --metrics ADDR:PORT serve Prometheus metrics (GET or HEAD /metrics) on a\n"
"                          loopback address (e.g. 127.0.0.1:9464 or [::1]:9464)\n"
"      --metrics-file FILE write them there every interval (textfile collector);\n"
"                          with --replay, once, at the end of the replay\n"
"      --record FILE       write every input the detectors consume (replay format)\n"
"      --replay FILE       run the detectors over a recorded file (virtual time)\n"
"      --profile NAME      with --replay: the syscalls that sandbox/policy made, as\n"
"                          a policy \"syscalls\" object\n"
"      --top               live view of sandboxes and alerts (--once: one frame)\n"
"      --status FILE       where the view's snapshot is written/read\n"
"                          (default " RF_MON_STATUS_DEFAULT ")\n"
"      --state FILE        lost-event baseline kept across restarts\n"
"                          (default " RF_MON_STATE_DEFAULT "; \"\" none)\n"
"      --interval MS       resource sampling period (default 1000)\n"
"      --update-ms MS      periodic update of an ongoing alert (default 10000)\n"
"      --linger-ms MS      quiet time before an alert closes (default 3000)\n"
"      --burst-count N, --burst-window-ms W   default deny burst (20 in 1000 ms)\n"
"      --cpu-percent P, --memory-mb M, --pids N   default resource thresholds\n"
"                          (default: 90 x CPUs, half the RAM, 1024; 0 turns one off)\n"
"      --ringbuf-kb N      the monitor's own ring buffer (default 1024)\n"
"      --queue-kb N        output queue bound (default 8192)\n"
"      --tick-ms MS        the detectors' clock tick (default 250): how soon a\n"
"                          window or a quiet alert is closed\n"
"      --registry DIR      the sandbox registry to follow (default " RF_REGISTRY_DIR ")\n"
"      --coalesce-us N     after a ring-buffer wakeup, wait N us so one wakeup drains\n"
"                          many records (default 500; 0 drains at once)\n"
"      --bpf-cpu           CPU time from sched_switch even where cpu.stat exists\n"
"      --priority-boost N  run N nice levels above normal, as auditd does, so a busy\n"
"                          host does not delay draining (default 4; 0 leaves it)\n"
"  -q, --quiet | -v, --verbose\n"
"\n"
"Exit status: 0 stopped by SIGINT/SIGTERM (or replay done), 1 failure, 125 usage.\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s[0] || s[0] == '-' || s[0] == '+')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	*ret = v;
	return 0;
bad:
	fprintf(stderr, "ringfence-monitor: %s %s: expected an integer %llu..%llu\n", opt, s,
		(unsigned long long)lo, (unsigned long long)hi);
	return -EINVAL;
}

static uint64_t mem_total_mb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size >> 20 : 0;
}

/* A monitor holds the lock: --top only reads its snapshot. */
static bool monitor_running(void)
{
	int fd = open(RF_MON_LOCK, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) != 0;
	close(fd);
	return held;
}

enum {
	OPT_METRICS = 256, OPT_METRICS_FILE, OPT_RECORD, OPT_REPLAY, OPT_PROFILE, OPT_TOP,
	OPT_ONCE, OPT_STATUS, OPT_STATE, OPT_INTERVAL, OPT_UPDATE, OPT_LINGER, OPT_BURST_N,
	OPT_BURST_W, OPT_CPU, OPT_MEM, OPT_PIDS, OPT_RINGBUF, OPT_QUEUE, OPT_BPF_CPU,
	OPT_REGISTRY, OPT_TICK, OPT_COALESCE, OPT_BOOST, OPT_VERSION,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "top", no_argument, NULL, OPT_TOP },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "status", required_argument, NULL, OPT_STATUS },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "update-ms", required_argument, NULL, OPT_UPDATE },
	{ "linger-ms", required_argument, NULL, OPT_LINGER },
	{ "burst-count", required_argument, NULL, OPT_BURST_N },
	{ "burst-window-ms", required_argument, NULL, OPT_BURST_W },
	{ "cpu-percent", required_argument, NULL, OPT_CPU },
	{ "memory-mb", required_argument, NULL, OPT_MEM },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "ringbuf-kb", required_argument, NULL, OPT_RINGBUF },
	{ "queue-kb", required_argument, NULL, OPT_QUEUE },
	{ "bpf-cpu", no_argument, NULL, OPT_BPF_CPU },
	{ "registry", required_argument, NULL, OPT_REGISTRY },
	{ "tick-ms", required_argument, NULL, OPT_TICK },
	{ "coalesce-us", required_argument, NULL, OPT_COALESCE },
	{ "priority-boost", required_argument, NULL, OPT_BOOST },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Thresholds the command line did not give stay UNSET until a mode picks
 * its default (no bound reaches it). */
#define UNSET UINT64_MAX

struct cli {
	struct rf_engine_opts o;
	struct rf_detect_opts detect;
	uint64_t ringbuf_kb, queue_kb;
	uint64_t boost;                 /* --priority-boost */
	const char *replay, *profile;
	bool top, once;
	int verbosity;
};

/* The integer options: their bounds and the field each one fills. */
static const struct num_opt {
	int id;
	const char *name;
	uint64_t lo, hi;
	size_t off;
} num_opts[] = {
	{ OPT_INTERVAL, "--interval", 50, 3600000, offsetof(struct cli, o.interval_ms) },
	{ OPT_TICK, "--tick-ms", 10, 10000, offsetof(struct cli, o.tick_ms) },
	{ OPT_UPDATE, "--update-ms", 100, 86400000, offsetof(struct cli, detect.update_ms) },
	{ OPT_LINGER, "--linger-ms", 1, 86400000, offsetof(struct cli, detect.linger_ms) },
	{ OPT_BURST_N, "--burst-count", 1, 1000000, offsetof(struct cli, detect.burst_count) },
	{ OPT_BURST_W, "--burst-window-ms", 1, 3600000,
	  offsetof(struct cli, detect.burst_window_ms) },
	{ OPT_CPU, "--cpu-percent", 0, 100000, offsetof(struct cli, detect.cpu_percent) },
	{ OPT_MEM, "--memory-mb", 0, 1ULL << 40, offsetof(struct cli, detect.memory_mb) },
	{ OPT_PIDS, "--pids", 0, 4194304, offsetof(struct cli, detect.pids) },
	{ OPT_RINGBUF, "--ringbuf-kb", 4, 1048576, offsetof(struct cli, ringbuf_kb) },
	{ OPT_QUEUE, "--queue-kb", 4, 1048576, offsetof(struct cli, queue_kb) },
	{ OPT_COALESCE, "--coalesce-us", 0, 5000, offsetof(struct cli, o.coalesce_us) },
	{ OPT_BOOST, "--priority-boost", 0, 20, offsetof(struct cli, boost) },
};

static const struct num_opt *num_opt_find(int id)
{
	for (size_t i = 0; i < sizeof(num_opts) / sizeof(num_opts[0]); i++)
		if (num_opts[i].id == id)
			return &num_opts[i];
	return NULL;
}

/* One option that is not an integer. Returns -1 to go on, else the exit status. */
static int cli_flag(struct cli *c, int id, const char *arg)
{
	switch (id) {
	case 'o': c->o.output = arg; break;
	case OPT_METRICS: c->o.metrics_addr = arg; break;
	case OPT_METRICS_FILE: c->o.metrics_file = arg; break;
	case OPT_RECORD: c->o.record = arg; break;
	case OPT_REPLAY: c->replay = arg; break;
	case OPT_PROFILE: c->profile = arg; break;
	case OPT_TOP: c->top = true; break;
	case OPT_ONCE: c->once = true; break;
	case OPT_STATUS: c->o.status_path = arg; break;
	case OPT_STATE: c->o.state_path = arg; break;
	case OPT_REGISTRY: c->o.registry_dir = arg; break;
	case OPT_BPF_CPU: c->o.bpf_cpu = true; break;
	case 'q': c->verbosity = 0; break;
	case 'v': c->verbosity = 2; break;
	case OPT_VERSION:
		printf("ringfence-monitor %s\n", RF_MON_VERSION);
		return 0;
	case 'h':
		usage(stdout);
		return 0;
	default:
		return EXIT_USAGE;
	}
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int cli_parse(struct cli *c, int argc, char **argv)
{
	int id, status;

	opterr = 0;
	while ((id = getopt_long(argc, argv, "+o:qvh", longopts, NULL)) != -1) {
		const struct num_opt *n = num_opt_find(id);

		if (n) {
			if (parse_u64(n->name, optarg, n->lo, n->hi, (uint64_t *)((char *)c + n->off)))
				return EXIT_USAGE;
			continue;
		}
		status = cli_flag(c, id, optarg);
		if (status == EXIT_USAGE) {
			fprintf(stderr, "ringfence-monitor: unknown or incomplete option %s\n",
				argv[optind - 1]);
			usage(stderr);
		}
		if (status >= 0)
			return status;
	}
	if (optind < argc) {
		fprintf(stderr, "ringfence-monitor: unexpected argument %s\n", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* Options that do not go together. Returns 0 or EXIT_USAGE. */
static int cli_check(const struct cli *c)
{
	const char *bad = NULL;

	if (c->profile && !c->replay)
		bad = "--profile needs --replay FILE";
	else if (c->once && !c->top)
		bad = "--once goes with --top";
	else if (c->replay && (c->top || c->o.record || c->o.metrics_addr))
		bad = "--replay takes only --output, --metrics-file, --profile and thresholds";
	if (bad) {
		fprintf(stderr, "ringfence-monitor: %s\n", bad);
		return EXIT_USAGE;
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

static uint64_t or_default(uint64_t v, uint64_t def)
{
	return v == UNSET ? def : v;
}

static int run_replay(struct cli *c)
{
	if (c->profile)
		return replay__profile(c->replay, c->profile);
	/* A replay has no live CPU count or RAM: thresholds not given are off. */
	c->detect.cpu_percent = or_default(c->detect.cpu_percent, 0);
	c->detect.memory_mb = or_default(c->detect.memory_mb, 0);
	c->detect.pids = or_default(c->detect.pids, 0);
	return replay__run(c->replay, c->o.output, &c->detect, c->o.metrics_file);
}

static int run_live(struct cli *c)
{
	long ncpu;

	if (c->top && monitor_running())
		return top__client(c->o.status_path, c->once);
	if (c->top && c->once) {
		fprintf(stderr, "ringfence-monitor: --top --once: no ringfence-monitor is running\n");
		return 1;
	}
	{
		char why[160];

		if (!privs__have(RF_PRIVS_MONITOR, why, sizeof(why))) {
			rf_err("%s", why);
			return 1;
		}
	}
	/* The ring buffers hold tens of milliseconds of a burst: a monitor
	 * the scheduler keeps waiting longer on a loaded host loses records,
	 * whatever its own speed. */
	if (c->boost && setpriority(PRIO_PROCESS, 0, -(int)c->boost))
		rf_info("--priority-boost %llu: %s", (unsigned long long)c->boost, strerror(errno));

	/* Thresholds for sandboxes whose policy sets none. */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->o.detect = c->detect;
	c->o.detect.cpu_percent = or_default(c->detect.cpu_percent,
					     90 * (uint64_t)(ncpu > 0 ? ncpu : 1));
	c->o.detect.memory_mb = or_default(c->detect.memory_mb, mem_total_mb() / 2);
	c->o.detect.pids = or_default(c->detect.pids, 1024);
	c->o.ringbuf_bytes = (size_t)c->ringbuf_kb << 10;
	c->o.queue_bytes = (size_t)c->queue_kb << 10;
	c->o.top = c->top;
	return setup__run(&c->o);
}

int main(int argc, char **argv)
{
	struct cli c = {
		.o = {
			.state_path = RF_MON_STATE_DEFAULT,
			.status_path = RF_MON_STATUS_DEFAULT,
			.registry_dir = RF_REGISTRY_DIR,
			.interval_ms = 1000,
			.tick_ms = 250,
			.coalesce_us = 500,
		},
		.detect = { .cpu_percent = UNSET, .memory_mb = UNSET, .pids = UNSET },
		.ringbuf_kb = 1024,
		.queue_kb = 8192,
		.boost = 4,
		.verbosity = 1,
	};
	int status = cli_parse(&c, argc, argv);

	if (status >= 0)
		return status;
	if (cli_check(&c))
		return EXIT_USAGE;
	rf_log_init("ringfence-monitor", c.verbosity);
	return c.replay ? run_replay(&c) : run_live(&c);
}
