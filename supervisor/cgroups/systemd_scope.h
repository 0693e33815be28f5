/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A transient systemd scope with Delegate=yes for this process (sd-bus). */
#ifndef RF_SYSTEMD_SCOPE_H
#define RF_SYSTEMD_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

/* PID 1 is systemd (sd_booted(): /run/systemd/system exists). */
bool systemd_scope__booted(void);

/*
 * Ask systemd (StartTransientUnit on its private bus as root, else the
 * system bus) for the scope UNIT holding this process, with Delegate=yes,
 * and wait until its start job is done: the process is then in the
 * scope's cgroup, which systemd hands to us. 0, or -errno with e filled.
 */
int systemd_scope__start(const char *unit, const char *description, struct rf_error *e);

#endif
