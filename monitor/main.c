// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence-monitor: command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "engine.h"
#include "log.h"
#include "metrics.h"
#include "paths.h"
#include "replay.h"
#include "top.h"

#define EXIT_USAGE 125

static void usage(FILE *f)
{
	fprintf(f,
"usage: ringfence-monitor [OPTIONS]             watch every sandbox, alerts as NDJSON\n"
"       ringfence-monitor --replay FILE [--output FILE] [THRESHOLDS]\n"
"       ringfence-monitor --replay FILE --profile SANDBOX|POLICY_ID\n"
"       ringfence-monitor --top [--once] [--status FILE]\n"
"       ringfence-monitor --version | --help\n"
"\n"
"  -o, --output FILE       append alerts to FILE (reopened on SIGHUP); default stdout\n"
"      --metrics ADDR:PORT serve Prometheus metrics on a loopback address\n"
"                          (e.g. 127.0.0.1:9464 or [::1]:9464)\n"
"      --metrics-file FILE write them there every interval (textfile collector)\n"
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
"      --coalesce-us N     after a ring-buffer wakeup, wait N us so one wakeup drains\n"
"                          many records (default 500; 0 drains at once)\n"
"      --bpf-cpu           CPU time from sched_switch even where cpu.stat exists\n"
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
	OPT_REGISTRY, OPT_TICK, OPT_COALESCE, OPT_VERSION,
};

int main(int argc, char **argv)
{
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct rf_engine_opts o = {
		.state_path = RF_MON_STATE_DEFAULT,
		.status_path = RF_MON_STATUS_DEFAULT,
		.registry_dir = RF_REGISTRY_DIR,
		.interval_ms = 1000,
		.tick_ms = 250,
		.ringbuf_bytes = 1u << 20,
		.queue_bytes = 8u << 20,
		.coalesce_us = 500,
	};
	struct rf_detect_opts cli = { 0 };
	bool cpu_set = false, mem_set = false, pids_set = false, top = false, once = false;
	const char *replay = NULL, *profile = NULL;
	int verbosity = 1, c;
	uint64_t v;
	long ncpu;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qvh", longopts, NULL)) != -1) {
		int err = 0;

		switch (c) {
		case 'o': o.output = optarg; break;
		case OPT_METRICS: o.metrics_addr = optarg; break;
		case OPT_METRICS_FILE: o.metrics_file = optarg; break;
		case OPT_RECORD: o.record = optarg; break;
		case OPT_REPLAY: replay = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case OPT_TOP: top = true; break;
		case OPT_ONCE: once = true; break;
		case OPT_STATUS: o.status_path = optarg; break;
		case OPT_STATE: o.state_path = optarg; break;
		case OPT_REGISTRY: o.registry_dir = optarg; break;
		case OPT_INTERVAL:
			err = parse_u64("--interval", optarg, 50, 3600000, &o.interval_ms);
			break;
		case OPT_TICK:
			err = parse_u64("--tick-ms", optarg, 10, 10000, &o.tick_ms);
			break;
		case OPT_UPDATE:
			err = parse_u64("--update-ms", optarg, 100, 86400000, &cli.update_ms);
			break;
		case OPT_LINGER:
			err = parse_u64("--linger-ms", optarg, 1, 86400000, &cli.linger_ms);
			break;
		case OPT_BURST_N:
			err = parse_u64("--burst-count", optarg, 1, 1000000, &cli.burst_count);
			break;
		case OPT_BURST_W:
			err = parse_u64("--burst-window-ms", optarg, 1, 3600000, &cli.burst_window_ms);
			break;
		case OPT_CPU:
			err = parse_u64("--cpu-percent", optarg, 0, 100000, &cli.cpu_percent);
			cpu_set = true;
			break;
		case OPT_MEM:
			err = parse_u64("--memory-mb", optarg, 0, 1ULL << 40, &cli.memory_mb);
			mem_set = true;
			break;
		case OPT_PIDS:
			err = parse_u64("--pids", optarg, 0, 4194304, &cli.pids);
			pids_set = true;
			break;
		case OPT_RINGBUF:
			err = parse_u64("--ringbuf-kb", optarg, 4, 1048576, &v);
			o.ringbuf_bytes = (size_t)v << 10;
			break;
		case OPT_QUEUE:
			err = parse_u64("--queue-kb", optarg, 4, 1048576, &v);
			o.queue_bytes = (size_t)v << 10;
			break;
		case OPT_COALESCE:
			err = parse_u64("--coalesce-us", optarg, 0, 5000, &o.coalesce_us);
			break;
		case OPT_BPF_CPU: o.bpf_cpu = true; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case OPT_VERSION:
			printf("ringfence-monitor %s\n", RF_MON_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "ringfence-monitor: unknown or incomplete option %s\n",
				argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
		if (err)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "ringfence-monitor: unexpected argument %s\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (profile && !replay) {
		fprintf(stderr, "ringfence-monitor: --profile needs --replay FILE\n");
		return EXIT_USAGE;
	}
	if (once && !top) {
		fprintf(stderr, "ringfence-monitor: --once goes with --top\n");
		return EXIT_USAGE;
	}
	if (replay && (top || o.record || o.metrics_addr || o.metrics_file)) {
		fprintf(stderr, "ringfence-monitor: --replay takes only --output, --profile and "
			"thresholds\n");
		return EXIT_USAGE;
	}
	if (o.metrics_addr) {
		struct sockaddr_in6 sa;
		unsigned int len;
		char why[512];

		if (metrics__parse_addr(o.metrics_addr, &sa, &len, why, sizeof(why))) {
			fprintf(stderr, "ringfence-monitor: %s\n", why);
			return EXIT_USAGE;
		}
	}
	rf_log_init("ringfence-monitor", verbosity);

	if (replay) {
		if (profile)
			return replay__profile(replay, profile);
		cli.cpu_percent = cpu_set ? cli.cpu_percent : 0;
		return replay__run(replay, o.output, &cli);
	}
	if (top && monitor_running())
		return top__client(o.status_path, once);
	if (top && once) {
		fprintf(stderr, "ringfence-monitor: --top --once: no ringfence-monitor is running\n");
		return 1;
	}
	if (geteuid() != 0)
		rf_info("not root: loading BPF programs and reading pinned maps will likely fail");

	/* Thresholds for sandboxes whose policy sets none. */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.detect = cli;
	o.detect.cpu_percent = cpu_set ? cli.cpu_percent : 90 * (uint64_t)(ncpu > 0 ? ncpu : 1);
	o.detect.memory_mb = mem_set ? cli.memory_mb : mem_total_mb() / 2;
	o.detect.pids = pids_set ? cli.pids : 1024;
	o.top = top;
	return engine__run(&o);
}
