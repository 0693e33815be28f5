// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The smallest program of each trampoline-based type ringfence may use.
 * `ringfence probe` loads and attaches them for real: a kernel that
 * refuses them cannot enforce what they would.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Never denies: passes on an earlier LSM's verdict. */
SEC("lsm/file_open")
int BPF_PROG(rf_probe_lsm, struct file *file, int ret)
{
	return ret;
}
