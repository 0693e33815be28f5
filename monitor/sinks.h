/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Alert records to the pipelines beside --output: journald, syslog
 * (RFC 5424 over UDP, TCP or a unix socket), OTLP/HTTP logs and an HTTP
 * webhook. Each sink has its own delivery thread and a bounded memory
 * queue: sinks__push() only copies the line into each queue under a lock
 * held for a list append, so a slow or dead sink never holds up the
 * ring-buffer drain. A sink that is down gets its records on disk (a
 * bounded spool per sink, kept across restarts) and is retried with
 * exponential backoff; what neither the queue nor the spool can take is
 * dropped and counted. Every record pushed ends delivered or dropped, or
 * is still pending (queue or spool): the counts are exact.
 */
#ifndef RF_MON_SINKS_H
#define RF_MON_SINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* X(ENUM, name): the sink's name in metrics, logs and its spool file. */
#define RF_SINKS(X)               \
	X(JOURNAL, "journal")     \
	X(SYSLOG, "syslog")       \
	X(OTLP, "otlp")           \
	X(WEBHOOK, "webhook")

enum rf_sink_kind {
#define RF_SINK_ENUM(e, name) RF_SINK_##e,
	RF_SINKS(RF_SINK_ENUM)
#undef RF_SINK_ENUM
	RF_SINK_MAX
};

/* X(ENUM, name, OCSF class_uid): the kinds of record the sinks carry, by
 * class (metrics label kind="<name>"): findings, and with
 * --sink-activity the activity records. */
#define RF_SINK_RECS(X)                            \
	X(FINDING, "finding", 2004)                \
	X(NETWORK, "network_activity", 4001)       \
	X(DNS, "dns_activity", 4003)               \
	X(OTHER, "other", 0)

enum rf_sink_rec {
#define RF_SINK_REC_ENUM(e, name, uid) RF_SINK_REC_##e,
	RF_SINK_RECS(RF_SINK_REC_ENUM)
#undef RF_SINK_REC_ENUM
	RF_SINK_REC_MAX
};

/* What became of a record (each is counted once in one of the last two,
 * or is pending; spooled counts those that went through the spool). */
enum rf_sink_outcome { RF_SINK_DELIVERED, RF_SINK_SPOOLED, RF_SINK_DROPPED, RF_SINK_OUTCOMES };

#define RF_MON_SPOOL_DEFAULT "/var/lib/ringfence/spool"
#define RF_SINK_SPOOL_MB_DEFAULT 64
#define RF_SINK_DRAIN_MS_DEFAULT 3000

struct rf_sinks_opts {
	/* The sink's address (--syslog, --otlp, --webhook); the journal's
	 * is "" when on. NULL: off. */
	const char *addr[RF_SINK_MAX];
	const char *spool_dir;
	uint64_t spool_bytes;   /* per sink */
	size_t queue_bytes;     /* per sink, in memory */
	uint64_t drain_ms;      /* at close: keep delivering that long */
	bool activity;          /* --sink-activity: the activity records too */
};

struct rf_sink_stats {
	bool on, up;
	uint64_t queued;        /* records pushed to it */
	uint64_t delivered;     /* taken by the receiver (see the man page per transport) */
	uint64_t spooled;       /* written to its spool (later delivered or dropped) */
	uint64_t dropped;       /* neither queue nor spool had room, or the receiver refused */
	uint64_t pending;       /* in its queue or spool now */
	uint64_t spool_bytes;   /* its spool file's size now */
	uint64_t by_kind[RF_SINK_REC_MAX][RF_SINK_OUTCOMES];    /* the same by record kind */
};

struct rf_sinks;

const char *rf_sink_name(enum rf_sink_kind k);
const char *rf_sink_rec_name(enum rf_sink_rec k);
/* The kind of a record line (len bytes) by its "class_uid". */
enum rf_sink_rec sinks__rec_kind(const char *line, size_t len);
bool sinks__any(const struct rf_sinks_opts *o);

/* The addresses' syntax and TRACEPARENT (with --otlp): 0, or -EINVAL with
 * a one-line why naming the option (a usage error). Nothing is resolved or
 * connected: a receiver down at start is spooled for, not refused. */
int sinks__check(const struct rf_sinks_opts *o, char *why, size_t why_len);

/* Spools opened (their records from an earlier run pending) and threads
 * started. *ret NULL when no sink is on. 0 or -errno with e set. */
int sinks__open(const struct rf_sinks_opts *o, const char *hostname, struct rf_sinks **ret,
		struct rf_error *e);
/* One OCSF record (a compact JSON line, '\n' or not) to every sink; never
 * blocks on a sink. */
void sinks__push(struct rf_sinks *s, const char *line);
/* Delivery goes on for drain_ms; what is left is in the spools for the next
 * start. ret_final (NULL: not wanted): the counts at the end. NULL s is fine. */
void sinks__close(struct rf_sinks *s, struct rf_sink_stats ret_final[RF_SINK_MAX]);
void sinks__stats(const struct rf_sinks *s, struct rf_sink_stats ret[RF_SINK_MAX]);
/* Records dropped by every sink so far (the "sinks" hop of lost events). */
uint64_t sinks__dropped(const struct rf_sinks *s);

#endif
