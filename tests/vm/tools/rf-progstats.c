// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-progstats: one line per loaded BPF program whose name starts with
 * "rf_": "NAME RUN_CNT RUN_TIME_NS" (the kernel counts them while
 * kernel.bpf_stats_enabled is 1). VM only: the benchmark diffs two
 * snapshots to see which hook costs what. Exit 0, 1 when none is loaded.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info pi = { 0 };
		__u32 len = sizeof(pi);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &pi, &len) && !strncmp(pi.name, "rf_", 3)) {
			printf("%s %llu %llu\n", pi.name, (unsigned long long)pi.run_cnt,
			       (unsigned long long)pi.run_time_ns);
			n++;
		}
		close(fd);
	}
	return n ? 0 : 1;
}
