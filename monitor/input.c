// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

static const char *const hop_names[RF_HOP_MAX] = {
	[RF_HOP_KERNEL_DECISIONS] = "kernel-decisions",
	[RF_HOP_KERNEL_MONITOR] = "kernel-monitor",
	[RF_HOP_KERNEL_MAPS] = "kernel-maps",
	[RF_HOP_MONITOR_TABLES] = "monitor-tables",
	[RF_HOP_OUTPUT] = "output",
	[RF_HOP_SINKS] = "sinks",
};

const char *rf_hop_name(uint32_t hop)
{
	return hop < RF_HOP_MAX ? hop_names[hop] : "unknown";
}

int rf_hop_parse(const char *name)
{
	int i;

	for (i = 0; i < RF_HOP_MAX; i++)
		if (!strcmp(name, hop_names[i]))
			return i;
	return -1;
}

int32_t rf_syscall_errno(const char *name, int64_t ret)
{
	if (ret >= 0 || ret < -4095 || !strcmp(name, "rt_sigreturn"))
		return 0;
	return (int32_t)-ret;
}

bool rf_syscall_refused(int32_t err)
{
	return err == EPERM || err == EACCES;
}

void rf_printable(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = 0;
}

void rf_sandbox_info_clear(struct rf_sandbox_info *si)
{
	size_t i;

	for (i = 0; i < si->n_allow; i++)
		free(si->allow[i]);
	free(si->allow);
	memset(si, 0, sizeof(*si));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rf_sandbox_info_copy(struct rf_sandbox_info *dst, const struct rf_sandbox_info *src)
{
	size_t i;

	*dst = *src;
	dst->allow = NULL;
	dst->n_allow = 0;
	if (!src->n_allow)
		return 0;
	dst->allow = calloc(src->n_allow, sizeof(*dst->allow));
	if (!dst->allow)
		return -ENOMEM;
	for (i = 0; i < src->n_allow; i++) {
		dst->allow[i] = strdup(src->allow[i]);
		if (!dst->allow[i]) {
			dst->n_allow = i;
			rf_sandbox_info_clear(dst);
			return -ENOMEM;
		}
	}
	dst->n_allow = src->n_allow;
	qsort(dst->allow, dst->n_allow, sizeof(*dst->allow), cmp_str);
	return 0;
}
