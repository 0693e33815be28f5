/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the registry entry carries from the policy for ringfence-monitor. */
#ifndef RF_REGISTRY_FILL_H
#define RF_REGISTRY_FILL_H

#include "policy/policy.h"
#include "registry.h"

/* "monitor" (always written: {} without thresholds) and "syscalls" (when
 * the policy has a profile). The allow list is lent from p: p outlives the
 * entry, which is never cleared. */
void registry_fill__policy(struct rf_registry_entry *e, const struct rf_policy *p);

#endif
