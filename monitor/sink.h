/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sinks' parts (private to sinks.c, sink_fmt.c and sink_io.c): what a
 * record says to a transport (severity, message, ids: sink_fmt.c, pure and
 * unit-tested), and the transports themselves (sink_io.c).
 */
#ifndef RF_MON_SINK_H
#define RF_MON_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "sinks.h"

/* ---- addresses -------------------------------------------------------- */

enum sink_net { SINK_UDP, SINK_TCP, SINK_UNIX };

struct sink_syslog_addr {
	enum sink_net net;
	char host[256];         /* UDP/TCP; an IPv6 address without brackets */
	char port[8];
	char path[108];         /* unix: sun_path */
};

/* "udp://HOST:PORT", "tcp://HOST:PORT" ([v6]:PORT), "unix:PATH". */
int sink__parse_syslog(const char *spec, struct sink_syslog_addr *ret, char *why, size_t len);
/* http:// or https:// with a host. */
int sink__parse_url(const char *opt, const char *url, char *why, size_t len);
/* --otlp's URL: a bare origin ("http://h:4318" or ".../") gets /v1/logs. malloc'd. */
char *sink__otlp_url(const char *url);

/* W3C traceparent "00-<32 hex>-<16 hex>-<2 hex>": 0 or -EINVAL. */
struct sink_trace {
	char trace_id[33], span_id[17];
	unsigned int flags;
};
int sink__traceparent(const char *s, struct sink_trace *ret);

/* ---- records ------------------------------------------------------------ */

/* What the transports take from an OCSF record (pointers into o). */
struct sink_rec {
	json_t *o;
	const char *line;           /* the record as received, no '\n' */
	size_t len;
	int64_t time_ms;
	int severity_id;            /* OCSF */
	int class_uid;
	const char *message, *rule, *sandbox, *uid, *finding_uid, *traceparent, *hostname;
	const char *class_name, *activity;
};

/* Parses line (len bytes, no '\n'); 0 or -EINVAL (not a JSON object). */
int sink__rec_parse(const char *line, size_t len, struct sink_rec *ret);
void sink__rec_free(struct sink_rec *r);

/* OCSF severity_id -> syslog severity (0..7), OTLP severityNumber and text. */
int sink__syslog_severity(int ocsf);
int sink__otlp_severity(int ocsf, const char **ret_text);
/* journald MESSAGE_ID of a record kind (a finding's rule, else its class):
 * 32 hex digits, fixed per kind (the man page lists them). */
const char *sink__message_id(const struct sink_rec *r);

/* RFC 5424 facility: 13, log audit. */
#define SINK_SYSLOG_FACILITY 13
/* RFC 5424 SD-ID: the example enterprise number of RFC 5612 (ringfence has
 * none registered). */
#define SINK_SD_ID "ringfence@32473"

/* One RFC 5424 message (no framing, no '\n'). malloc'd, NULL on ENOMEM. */
char *sink__rfc5424(const struct sink_rec *r, const char *hostname, int pid);
/* An OTLP/HTTP JSON ExportLogsServiceRequest of n records. tp: the
 * monitor's own TRACEPARENT (a record's own unmapped.traceparent wins);
 * NULL none. malloc'd, NULL on ENOMEM. */
char *sink__otlp_json(struct sink_rec *const *r, size_t n, const char *hostname,
		      const struct sink_trace *tp);

/* ---- transports --------------------------------------------------------- */

enum sink_result {
	SINK_OK = 0,
	SINK_RETRY,         /* the receiver is down or failed: spool, back off */
	SINK_REFUSED,       /* the receiver rejected this record for good: drop it */
};

struct sink_conn;

/* Per delivery thread (curl handles are not shared). addr: the option's
 * value; hostname for the records; tp: TRACEPARENT or NULL. */
int sink_io__new(enum rf_sink_kind k, const char *addr, const char *hostname,
		 const struct sink_trace *tp, struct sink_conn **ret);
void sink_io__free(struct sink_conn *c);
/* Deliver one record. why: on failure, a short reason for the log. */
enum sink_result sink_io__send(struct sink_conn *c, const struct sink_rec *r, char *why,
			       size_t why_len);
/* Once per process, before any thread (libcurl's global init). */
int sink_io__global_init(void);

#endif
