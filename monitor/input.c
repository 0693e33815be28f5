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

const char *rf_response_name(enum rf_mon_response r)
{
	return r == RF_RESP_KILL ? "kill" : r == RF_RESP_FREEZE ? "freeze" : "alert";
}

int rf_response_parse(const char *s)
{
	if (!s[0] || !strcmp(s, "alert"))
		return RF_RESP_ALERT;
	if (!strcmp(s, "freeze"))
		return RF_RESP_FREEZE;
	if (!strcmp(s, "kill"))
		return RF_RESP_KILL;
	return -1;
}

static void strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void rf_sandbox_info_clear(struct rf_sandbox_info *si)
{
	strv_free(si->allow, si->n_allow);
	strv_free(si->exec, si->n_exec);
	memset(si, 0, sizeof(*si));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted copy of v (NULL when n is 0). */
static int strv_sorted(char *const *v, size_t n, char ***ret, size_t *ret_n)
{
	size_t i;

	*ret = NULL;
	*ret_n = 0;
	if (!n)
		return 0;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		(*ret)[i] = strdup(v[i]);
		if (!(*ret)[i])
			return -ENOMEM;
		(*ret_n)++;
	}
	qsort(*ret, n, sizeof(**ret), cmp_str);
	return 0;
}

int rf_sandbox_info_copy(struct rf_sandbox_info *dst, const struct rf_sandbox_info *src)
{
	*dst = *src;
	dst->allow = dst->exec = NULL;
	dst->n_allow = dst->n_exec = 0;
	if (strv_sorted(src->allow, src->n_allow, &dst->allow, &dst->n_allow) ||
	    strv_sorted(src->exec, src->n_exec, &dst->exec, &dst->n_exec)) {
		rf_sandbox_info_clear(dst);
		return -ENOMEM;
	}
	return 0;
}
