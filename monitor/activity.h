/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Activity records: what sandboxes were allowed (and refused) to do, as
 * OCSF events apart from the findings (--activity FILE): one DNS Activity
 * (class 4003) record per query the DNS gate answered or refused, and one
 * Network Activity (class 4001) record per FLOW input (a destination of a
 * sandbox, what moved since its previous record; flowwatch.h).
 */
#ifndef RF_MON_ACTIVITY_H
#define RF_MON_ACTIVITY_H

#include <stdint.h>
#include <jansson.h>
#include "alert.h"
#include "input.h"
#include "registry.h"

#define RF_OCSF_DNS_CLASS_UID 4003
#define RF_OCSF_DNS_CLASS_NAME "DNS Activity"
#define RF_OCSF_NET_CLASS_UID 4001
#define RF_OCSF_NET_CLASS_NAME "Network Activity"

/* The record of in (type RF_IN_DNS); si: its sandbox (NULL: unknown, named
 * by cgroup id). A new JSON object, NULL on ENOMEM or another input type. */
json_t *activity__dns(const struct rf_input *in, const struct rf_sandbox_info *si, uint64_t seq,
		      int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* The record of in (type RF_IN_FLOW): Network Activity, Traffic. */
json_t *activity__flow(const struct rf_input *in, const struct rf_sandbox_info *si,
		       uint64_t seq, int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* Either, by in->type (NULL for the other types). */
json_t *activity__ocsf(const struct rf_input *in, const struct rf_sandbox_info *si,
		       uint64_t seq, int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* The same as one compact line with '\n' (malloc'd); NULL for other types. */
char *activity__line(const struct rf_input *in, const struct rf_sandbox_info *si,
		     uint64_t seq, int64_t boot_to_real_ns, const struct rf_alert_origin *og);
/* What an activity record says of its sandbox, copied from the detectors'
 * rf_sandbox_info when the record is queued: the activity thread renders
 * it later and must not read the detectors' table. */
struct rf_act_sb {
	bool known;
	char sandbox[RF_SANDBOX_LEN];
	char policy_id[RF_POLICY_ID_LEN];
	char traceparent[RF_TRACEPARENT_LEN];
	uint32_t n_labels;
	char labels[RF_LABELS_MAX][RF_LABEL_LEN];
};
/* si NULL: unknown (ret->known false). */
void activity__sb_copy(struct rf_act_sb *ret, const struct rf_sandbox_info *si);
/* activity__line's DNS record, the same bytes and its '\n', written into
 * buf without jansson: its length, -ENOSPC (buf too small) or -EINVAL
 * (not a DNS input). */
int activity__dns_write(const struct rf_input *in, const struct rf_act_sb *sb, uint64_t seq,
			int64_t boot_to_real_ns, const struct rf_alert_origin *og, char *buf,
			size_t len);
/* Any kind activity__line renders, through it (jansson), into buf: for the
 * kinds without a writer of their own. Its length, -ENOSPC or -ENOMEM. */
int activity__json_write(const struct rf_input *in, const struct rf_act_sb *sb, uint64_t seq,
			 int64_t boot_to_real_ns, const struct rf_alert_origin *og, char *buf,
			 size_t len);
/* OCSF rcode_id of a DNS rcode, and its caption. */
int activity__rcode_id(uint16_t rcode);
const char *activity__rcode_caption(int rcode_id);
/* A name OCSF takes as a hostname (its pattern): labels of letters,
 * digits and inner hyphens. */
bool activity__hostname_ok(const char *name);

#endif
