// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-tpfloor [--enter] [--exit] -- CMD [ARGS...]: run CMD with EMPTY
 * tp_btf sys_enter and/or sys_exit programs attached (both when neither
 * option is given), detach them when it exits and pass on its status.
 *
 * Any program on a syscall tracepoint sets SYSCALL_WORK_SYSCALL_TRACEPOINT
 * on every task of the host, which sends every syscall down the slow
 * path; an empty program is what that alone costs, the floor under any
 * design built on these tracepoints (tests/bench/observe.sh, monitor.sh
 * compare ringfence's programs against it). Needs root.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* A raw tracepoint link of an empty program on tracepoint tp; -errno. */
static int attach_empty(struct btf *vmlinux, const char *tp)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char name[64];
	int id, prog, link;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_RAW_TP);

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return id;
	o.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rf_floor", "GPL", insns, 2, &o);
	if (prog < 0)
		return -errno;
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		link = -errno;
	close(prog);  /* the link holds it */
	return link;
}

int main(int argc, char **argv)
{
	bool enter = false, exit_ = false;
	int i = 1, links[2] = { -1, -1 }, st = 0;
	struct btf *vmlinux;
	pid_t pid;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--enter"))
			enter = true;
		else if (!strcmp(argv[i], "--exit"))
			exit_ = true;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			i = argc;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: rf-tpfloor [--enter] [--exit] -- CMD [ARGS...]\n");
		return 2;
	}
	if (!enter && !exit_)
		enter = exit_ = true;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		perror("rf-tpfloor: vmlinux BTF");
		return 1;
	}
	if (enter)
		links[0] = attach_empty(vmlinux, "sys_enter");
	if (exit_)
		links[1] = attach_empty(vmlinux, "sys_exit");
	btf__free(vmlinux);
	if ((enter && links[0] < 0) || (exit_ && links[1] < 0)) {
		fprintf(stderr, "rf-tpfloor: attach: %s\n",
			strerror(-(links[0] < 0 && enter ? links[0] : links[1])));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(links[0]);
		close(links[1]);
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		perror("rf-tpfloor");
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
