/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Activity records: what sandboxes were allowed (and refused) to do, as
 * OCSF events apart from the findings (--activity FILE). Now: one DNS
 * Activity (class 4003) record per query the DNS gate answered or refused.
 */
#ifndef RF_MON_ACTIVITY_H
#define RF_MON_ACTIVITY_H

#include <stdint.h>
#include <jansson.h>
#include "alert.h"
#include "input.h"

#define RF_OCSF_DNS_CLASS_UID 4003
#define RF_OCSF_DNS_CLASS_NAME "DNS Activity"

/* The record of in (type RF_IN_DNS); si: its sandbox (NULL: unknown, named
 * by cgroup id). A new JSON object, NULL on ENOMEM or another input type. */
json_t *activity__dns(const struct rf_input *in, const struct rf_sandbox_info *si, uint64_t seq,
		      int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* The same as one compact line with '\n' (malloc'd). */
char *activity__dns_line(const struct rf_input *in, const struct rf_sandbox_info *si,
			 uint64_t seq, int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* OCSF rcode_id of a DNS rcode, and its caption. */
int activity__rcode_id(uint16_t rcode);
const char *activity__rcode_caption(int rcode_id);
/* A name OCSF takes as a hostname (its pattern): labels of letters,
 * digits and inner hyphens. */
bool activity__hostname_ok(const char *name);

#endif
