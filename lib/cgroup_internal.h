/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What lib/cgroup.c and lib/cgroup_kill.c share; not for other callers. */
#ifndef RF_CGROUP_INTERNAL_H
#define RF_CGROUP_INTERNAL_H

/* 0 when fd is on a cgroup2 file system, else -EMEDIUMTYPE or -errno. */
int cgroup__check_v2_fd(int fd);

#endif
