// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfutil.h"
#include "cleanup.h"

int bpfutil__percpu_sum(int map_fd, uint32_t key, uint64_t *ret)
{
	int ncpu = libbpf_num_possible_cpus();
	_cleanup_free_ uint64_t *vals = NULL;
	uint64_t sum = 0;
	int i;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, vals))
		return -errno;
	for (i = 0; i < ncpu; i++)
		sum += vals[i];
	*ret = sum;
	return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	long fd = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return fd < 0 ? -errno : (int)fd;
}

int bpfutil__map_create(uint32_t type, const char *name, uint32_t key_size,
			uint32_t value_size, uint32_t max_entries, uint32_t flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = key_size;
	attr.value_size = value_size;
	attr.max_entries = max_entries;
	attr.map_flags = flags;
	if (name)
		snprintf(attr.map_name, sizeof(attr.map_name), "%s", name);
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

int bpfutil__prog_load(uint32_t type, uint32_t expected_attach_type, uint32_t attach_btf_id,
		       const void *insns, uint32_t n)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.expected_attach_type = expected_attach_type;
	attr.attach_btf_id = attach_btf_id;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = n;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &attr);
}
