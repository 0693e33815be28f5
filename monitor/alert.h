/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Alert records as OCSF Detection Findings (class 2004), schemas/alert.schema.json. */
#ifndef RF_MON_ALERT_H
#define RF_MON_ALERT_H

#include <stdint.h>
#include <jansson.h>
#include "detect.h"

#define RF_OCSF_VERSION "1.3.0"

/* The host that alerts: OCSF device, and the prefix of finding uids. */
struct rf_alert_origin {
	char hostname[256];
	char device_uid[40];    /* RF_MON_APP_ID's id of this machine; "" when it has none */
};

/* The device uid is the machine id made app-specific (systemd's
 * sd_id128_get_machine_app_specific: HMAC-SHA256 keyed by the machine id
 * over this app id, as a v4 UUID): stable per host, the same from every
 * monitor, and not /etc/machine-id itself, which must not leave the host
 * (machine-id(5)). `systemd-id128 machine-id --app-specific=` + this id
 * gives it on the host. */
#define RF_MON_APP_ID_STR "21345c9827b04bb2a84337affb03d8f7"

/* This host's name and device uid (what is missing stays ""). */
void alert__origin_local(struct rf_alert_origin *ret);

/* boot_to_real_ns: CLOCK_REALTIME - CLOCK_BOOTTIME, for the record's wall
 * times; seq: metadata.sequence. A new JSON object, NULL on ENOMEM. */
json_t *alert__ocsf(const struct rf_alert *a, uint64_t seq, int64_t boot_to_real_ns,
		    const struct rf_alert_origin *origin);

/* An OCSF record as one compact line with '\n' (malloc'd), NULL for a
 * NULL o or on ENOMEM: the one rendering of the alert and activity lines. */
char *alert__json_line(const json_t *o);

/* The record as one compact line with '\n' (malloc'd), NULL on ENOMEM. */
char *alert__line(const struct rf_alert *a, uint64_t seq, int64_t boot_to_real_ns,
		  const struct rf_alert_origin *origin);

/* RFC 3339 UTC with milliseconds, e.g. 2026-11-29T10:00:00.123Z. */
void alert__format_ms(int64_t ms, char *buf, size_t len);
/* key (ms since the epoch) and key_dt (its RFC 3339 text), as OCSF has both. */
void alert__set_time(json_t *o, const char *key, int64_t ms);

#endif
