// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const struct {
	const char *name;
	int cap;
} cap_names[] = {
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN }, { "CAP_BPF", CAP_BPF },
	{ "CAP_PERFMON", CAP_PERFMON },
};

/* The effective set; libcap is the supervisor's alone, so the syscall. */
static int effective(unsigned long long *ret)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return -1;
	*ret = d[0].effective | (unsigned long long)d[1].effective << 32;
	return 0;
}

bool privs__have(const char *caps, char *why, size_t why_len)
{
	unsigned long long eff = 0;
	char missing[128] = "";
	size_t i;

	if (geteuid() != 0) {
		snprintf(why, why_len, "needs root (%s): running as uid %u", caps,
			 (unsigned int)geteuid());
		return false;
	}
	if (effective(&eff))
		eff = ~0ULL;    /* cannot tell: let the kernel answer */
	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
		if (strstr(caps, cap_names[i].name) && !(eff & (1ULL << cap_names[i].cap)))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? ", " : "", cap_names[i].name);
	if (!missing[0])
		return true;
	snprintf(why, why_len, "needs root (%s): %s not effective", caps, missing);
	return false;
}
