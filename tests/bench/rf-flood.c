// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-flood CGID RATE MS [mix]: write denied-connect decision records of
 * sandbox CGID into the pinned decisions ring buffer (RF_PIN_DIR/<set>/events,
 * of the first set that has one: the bench runs one build) at RATE per
 * second for MS milliseconds, and print
 *   "flood RATE achieved=N/s written=W lost=L".
 * mix: every other batch is the DNS gate's query records instead
 * (rf_dns_record, kind RF_EV_DNS, the same size), each batch of 256 under
 * a new name below flood.test: the monitor's DNS path (the tunnelling
 * detector, and the activity stream when it writes one) half the time.
 * lost: records the ring buffer had no room for (bpf_ringbuf_output
 * failed), i.e. what a real producer would have counted in
 * RF_STAT_RINGBUF_LOST.
 *
 * tests/bench/monitor.sh uses it to measure what ringfence-monitor can
 * drain: a real producer (a denied connect) costs a syscall per record,
 * and two CPUs cannot offer a million of those a second and still leave
 * the monitor a CPU. The records come from a BPF program the kernel runs
 * (BPF_PROG_TEST_RUN, 256 bpf_ringbuf_output calls a run, each with
 * flags 0, as the enforcement programs submit), so the monitor sees the
 * same ring buffer, record layout and wakeups as from the hooks.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include "rf_abi.h"
#include "paths.h"

#define BATCH 256
#define EV ((int)sizeof(struct rf_event))
_Static_assert(sizeof(struct rf_dns_record) == sizeof(struct rf_event), "one template size");

static struct bpf_insn ins(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off,
				  .imm = imm };
}

/* The program: copy the template (ctx) to the stack, then BATCH times
 * stamp the time and a sequence number and output it; returns how many
 * outputs failed. */
static int prog_load(int map_fd)
{
	struct bpf_insn p[256];
	int n = 0, off, loop;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .prog_flags = BPF_F_SLEEPABLE);

	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	for (off = 0; off < EV; off += 8) {
		p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 0, 6, (__s16)off, 0);
		p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0, (__s16)(off - EV), 0);
	}
	p[n++] = ins(BPF_LDX | BPF_MEM | BPF_DW, 8, 6, offsetof(struct rf_event, seq), 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 7, 0, 0, BATCH);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 9, 0, 0, 0);
	loop = n;
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_boot_ns);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 0,
		     (__s16)(offsetof(struct rf_event, ts_boot_ns) - EV), 0);
	p[n++] = ins(BPF_STX | BPF_MEM | BPF_DW, 10, 8, (__s16)(offsetof(struct rf_event, seq) - EV), 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 8, 0, 0, 1);
	p[n++] = ins(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd);
	p[n++] = ins(0, 0, 0, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -EV);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, EV);
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output);
	p[n++] = ins(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, 0);
	p[n++] = ins(BPF_ALU64 | BPF_ADD | BPF_K, 9, 0, 0, 1);
	p[n++] = ins(BPF_ALU64 | BPF_SUB | BPF_K, 7, 0, 0, 1);
	p[n] = ins(BPF_JMP | BPF_JNE | BPF_K, 7, 0, (__s16)(loop - n - 1), 0);
	n++;
	p[n++] = ins(BPF_ALU64 | BPF_MOV | BPF_X, 0, 9, 0, 0);
	p[n++] = ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "rf_flood", "GPL", p, n, &o);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The first pinned set's decisions ring buffer. */
static int events_fd(void)
{
	DIR *d = opendir(RF_PIN_DIR);
	struct dirent *de;
	char path[512];
	int fd = -1;

	if (!d)
		return -1;
	while (fd < 0 && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s/events", de->d_name);
		fd = bpf_obj_get(path);
	}
	closedir(d);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/* The DNS template of batch i: an answered A query, a new name. */
static void dns_template(struct rf_dns_record *r, __u64 cgid, long i)
{
	static const char suffix[] = "flood.test";

	memset(r, 0, sizeof(*r));
	r->cgroup_id = cgid;
	r->kind = RF_EV_DNS;
	r->pid = (__u32)getpid();
	r->verdict = RF_DNS_ANSWERED;
	r->qtype = 1;
	r->protocol = 17;
	r->family = AF_INET;
	r->n_granted = 1;
	r->ttl = 60;
	inet_pton(AF_INET, "127.77.2.1", r->addr);
	r->name_len = (__u16)snprintf(r->name, sizeof(r->name), "b%ld.%s", i, suffix);
	r->suffix_off = (__u16)(r->name_len - strlen(suffix));
}

int main(int argc, char **argv)
{
	struct rf_event ev = { 0 };
	struct rf_dns_record dns;
	long rate, ms, written = 0, lost = 0, batches = 0;
	double t0, el;
	int map_fd, prog_fd;
	bool mix;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "mix"))) {
		fprintf(stderr, "usage: rf-flood CGID RATE MS [mix]\n");
		return 2;
	}
	mix = argc == 5;
	rate = atol(argv[2]);
	ms = atol(argv[3]);
	map_fd = events_fd();
	if (map_fd < 0) {
		perror("rf-flood: " RF_PIN_DIR "/*/events");
		return 1;
	}
	prog_fd = prog_load(map_fd);
	if (prog_fd < 0) {
		perror("rf-flood: load");
		return 1;
	}
	ev.cgroup_id = strtoull(argv[1], NULL, 0);
	ev.kind = RF_EV_DECISION;
	ev.pid = ev.tid = (__u32)getpid();
	ev.class = RF_CLASS_NET;
	ev.op = RF_OP_CONNECT4;
	ev.verdict = RF_VERDICT_DENIED;
	ev.reason = RF_REASON_NO_RULE;
	ev.family = AF_INET;
	ev.port = 9;
	ev.protocol = 6;
	inet_pton(AF_INET, "127.0.0.1", ev.addr);
	snprintf(ev.comm, sizeof(ev.comm), "rf-flood");
	t0 = now_s();
	while ((el = now_s() - t0) < ms / 1e3) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &ev, .ctx_size_in = sizeof(ev));
		bool as_dns = mix && batches % 2;

		if (written + lost >= (long)(el * rate)) {
			struct timespec ts = { 0, 100000 };

			nanosleep(&ts, NULL);
			continue;
		}
		ev.seq = (__u64)written;
		if (as_dns) {
			dns_template(&dns, ev.cgroup_id, batches);
			dns.seq = (__u64)written;
			o.ctx_in = &dns;
		}
		batches++;
		if (bpf_prog_test_run_opts(prog_fd, &o)) {
			perror("rf-flood: run");
			return 1;
		}
		written += BATCH - (long)o.retval;
		lost += (long)o.retval;
	}
	el = now_s() - t0;
	printf("flood %ld achieved=%.0f written=%ld lost=%ld\n", rate, (written + lost) / el,
	       written, lost);
	return 0;
}
