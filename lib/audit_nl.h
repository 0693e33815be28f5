/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel audit's status, read with one AUDIT_GET over NETLINK_AUDIT.
 * A read only: ringfence never sends AUDIT_SET. */
#ifndef RF_AUDIT_NL_H
#define RF_AUDIT_NL_H

#include <linux/audit.h>

/* 0 with *ret filled (fields the kernel did not send are 0), or -errno
 * with *ret_what naming the step that failed (may be NULL). */
int audit_nl__status(struct audit_status *ret, const char **ret_what);

/* The same in two halves, so the kernel's answer (it starts a kernel
 * thread to send it) can be awaited while other work goes on: request
 * returns the socket or -errno; answer takes it (or that -errno), closes
 * it, and returns what audit_nl__status would. */
int audit_nl__request(const char **ret_what);
int audit_nl__answer(int fd, struct audit_status *ret, const char **ret_what);

#endif
