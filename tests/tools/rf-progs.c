/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rf-progs [PREFIX]: the kernel's count of skipped runs of each loaded BPF
 * program whose name starts with PREFIX (default "rf_"), one line each:
 *
 *   ID NAME recursion_misses=N
 *
 * A tracing program (fentry/fexit, tp_btf) is not run when the same
 * program is already running on that CPU (preempted, or interrupted): the
 * kernel counts it here. Test diagnostics: a record that should be there
 * and is not. Exit 0, 1 when the programs cannot be listed.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "rf_";
	__u32 id = 0;

	for (;;) {
		union bpf_attr a;
		struct bpf_prog_info info;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a))
			return errno == ENOENT ? 0 : 1;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (__u32)fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) &&
		    !strncmp(info.name, prefix, strlen(prefix)))
			printf("%u %s recursion_misses=%llu\n", id, info.name,
			       (unsigned long long)info.recursion_misses);
		close(fd);
	}
}
