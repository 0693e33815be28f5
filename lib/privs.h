/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Does this process hold what loading BPF programs and managing cgroups
 * takes? So that a user who is not root is told "needs root (...)", not the
 * EPERM of whichever step happened to fail first.
 */
#ifndef RF_PRIVS_H
#define RF_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/* What ringfence run, learn, gc and unload need. */
#define RF_PRIVS_SUPERVISOR "CAP_BPF, CAP_SYS_ADMIN"
/* What ringfence-monitor needs: its tracing programs and the pinned maps. */
#define RF_PRIVS_MONITOR "CAP_BPF, CAP_PERFMON"

/* caps: a comma-separated list of the names above. true when this process
 * runs as uid 0 with every one of them effective; else false and why says
 * "needs root (CAPS): running as uid N" or "...: CAP_X not effective". */
bool privs__have(const char *caps, char *why, size_t why_len);

#endif
