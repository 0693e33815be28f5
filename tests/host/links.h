/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Host tests: the kernel's BPF links, counted by program name. */
#ifndef RF_TEST_LINKS_H
#define RF_TEST_LINKS_H

#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

/* Raw tracepoint links of a program named prog, host-wide. */
static inline int h_raw_tp_links(const char *prog)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li = { 0 };
		struct bpf_prog_info pi = { 0 };
		__u32 ll = sizeof(li), pl = sizeof(pi);
		int lfd = bpf_link_get_fd_by_id(id), pfd;

		if (lfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(lfd, &li, &ll) &&
		    li.type == BPF_LINK_TYPE_RAW_TRACEPOINT) {
			pfd = bpf_prog_get_fd_by_id(li.prog_id);
			if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, &pi, &pl) &&
			    !strcmp(pi.name, prog))
				n++;
			if (pfd >= 0)
				close(pfd);
		}
		close(lfd);
	}
	return n;
}

#endif
