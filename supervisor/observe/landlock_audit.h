/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Landlock's own denial log (ABI 7+, kernel audit enabled): the records
 * AUDIT_LANDLOCK_ACCESS and AUDIT_LANDLOCK_DOMAIN read from the audit
 * netlink read-log multicast group (no auditd), attributed to the sandbox
 * by the domain whose DOMAIN record names the launched child as the
 * process that restricted itself. Read only: nothing here sends AUDIT_SET.
 */
#ifndef RF_LANDLOCK_AUDIT_H
#define RF_LANDLOCK_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "rf_abi.h"

#define RF_AUDIT_LANDLOCK_ACCESS 1423
#define RF_AUDIT_LANDLOCK_DOMAIN 1424
#define RF_LL_AUDIT_HELD_MAX 32     /* ACCESS records before their DOMAIN record */

/* One parsed record. */
struct rf_ll_record {
	int type;                   /* RF_AUDIT_LANDLOCK_* */
	uint64_t domain;
	uint64_t real_ns;           /* audit(SEC.MSEC:...) as CLOCK_REALTIME ns */
	/* ACCESS */
	char blockers[128];         /* "fs.read_file", "fs.execute,fs.read_file" */
	char path[RF_EVENT_PATH_LEN]; /* path= (decoded), "" when none */
	/* DOMAIN */
	bool allocated;             /* status=allocated (else deallocated) */
	pid_t pid;                  /* allocated: the process that restricted itself */
	char exe[RF_EVENT_PATH_LEN];
	char comm[RF_COMM_LEN];
	bool has_denials;
	uint64_t denials;           /* deallocated: the kernel's count for the domain */
};

/* Parse the text of one record of type (not NUL-terminated, len bytes).
 * 0, or -EINVAL when it is not a Landlock record this understands. */
int landlock_audit__parse(int type, const char *text, size_t len, struct rf_ll_record *ret);

/* Fill class, op, need, path and verdict of ev from an ACCESS record
 * (the rest zeroed); false for a blocker with no class here. */
bool landlock_audit__to_event(const struct rf_ll_record *r, struct rf_event *ev);

struct rf_ll_audit {
	int fd;                     /* -1: not reading (audit off, or not Landlock) */
	pid_t child;                /* the launched child, 0 before the launch */
	char self_exe[RF_EVENT_PATH_LEN]; /* ours: the child restricts itself before exec */
	uint64_t domain;            /* the sandbox's domain once named; 0 before */
	bool domain_freed;          /* its deallocated record arrived */
	uint64_t kernel_denials;    /* from that record (all denials, logged or not) */
	uint64_t records;           /* ACCESS records of the domain, all */
	uint64_t logged[RF_CLASS_KERNEL_MAX]; /* those traced, by class */
	uint64_t overruns;          /* ENOBUFS on the socket: records lost to us */
	uint32_t lost_at_open;      /* audit_status.lost when opened */
	int64_t lost_during;        /* its growth until the end; -1 unknown */
	struct rf_ll_record held[RF_LL_AUDIT_HELD_MAX];
	size_t n_held;
};

/* Open and bind the read-log group. 0, or -errno (-EPERM without
 * CAP_AUDIT_READ); a->fd stays -1 on failure. */
int landlock_audit__open(struct rf_ll_audit *a);
void landlock_audit__close(struct rf_ll_audit *a);

/* Before the launch: drop what the socket queued (no record can be the
 * sandbox's before its child exists), a burst that overran it meanwhile
 * included, and count audit's lost records from here. */
void landlock_audit__discard(struct rf_ll_audit *a);

/* Read what is queued (wait_ms > 0: wait that long for more) and call
 * fn for each ACCESS record of the sandbox's domain, in order. Records of
 * other domains are dropped once their DOMAIN record shows they are not
 * this sandbox's. */
void landlock_audit__read(struct rf_ll_audit *a, int wait_ms,
			  void (*fn)(void *ctx, const struct rf_ll_record *r), void *ctx);

/* At the end: wait up to wait_ms for the domain's deallocated record
 * (the kernel's own count) and note how far audit's lost counter grew. */
void landlock_audit__finish(struct rf_ll_audit *a, int wait_ms,
			    void (*fn)(void *ctx, const struct rf_ll_record *r), void *ctx);

/* true when every denial of the domain is in the trace: the kernel's
 * count arrived and equals what was logged, nothing was overrun. */
bool landlock_audit__complete(const struct rf_ll_audit *a);
/* Denials the kernel counted for the domain and no record of which was
 * read (its count arrived): lost to the trace, nothing else saw them. */
uint64_t landlock_audit__missing(const struct rf_ll_audit *a);

#endif
