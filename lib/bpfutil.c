// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
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
