// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <seccomp.h>

#include "rf_abi.h"
#include "sysnames.h"

static char *names[RF_MON_SYSCALL_MAX];
static bool resolved[RF_MON_SYSCALL_MAX];

const char *sysnames__name(int nr)
{
	if (nr < 0 || nr >= RF_MON_SYSCALL_MAX)
		return "";
	if (!resolved[nr]) {
		char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		/* libseccomp names some numbers it has no name for "UNKNOWN" */
		if (s && strcmp(s, "UNKNOWN")) {
			names[nr] = s;
		} else {
			free(s);
			names[nr] = NULL;
		}
		resolved[nr] = true;
	}
	return names[nr] ? names[nr] : "";
}

int sysnames__nr(const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_NATIVE, name);

	return nr >= 0 ? nr : -1;
}
