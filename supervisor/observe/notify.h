/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The listener of a notifying seccomp boundary (sandbox_seccomp.c): every
 * call the boundary refuses waits here until answered. Each is answered
 * EPERM at once and published as observe.bpf.c's boundary_exit publishes
 * it (observe.bpf.c's rf_obs_verdict, run with BPF_PROG_TEST_RUN, the
 * record marked RF_EVF_LISTENER): same record, same sample slot, same
 * counters, same ring buffer for ringfence-monitor. So
 * no syscall tracepoint is needed for the boundary's refusals. With a
 * syscalls profile in the listener's filter (notify__profile), calls
 * outside it come here too, and the first of each becomes a record of its
 * own (class syscalls, op syscall) for ringfence-monitor's
 * rf-unexpected-syscall.
 */
#ifndef RF_NOTIFY_H
#define RF_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include "rf_abi.h"

struct rf_seccomp;

struct rf_notify {
	int fd;                         /* the listener, -1 none */
	const struct rf_seccomp *sc;    /* its filter's syscalls profile (notify__profile) */
	uint64_t reported[RF_MON_SYSCALL_WORDS]; /* profile: numbers reported once */
	int verdict_fd;                 /* the pinned rf_obs_verdict, opened at the
					 * first refusal; -1 not yet (or not there) */
	struct rf_obs_syscall *table;   /* obs_syscalls__table, then */
	uint64_t answered;              /* calls answered (EPERM, or let through) */
	uint64_t unpublished;           /* answered, not published (no memory, ...) */
};

/* Take over fd (-1: none). */
void notify__init(struct rf_notify *n, int fd);
/* The filter the listener belongs to: with a syscalls profile in it
 * (sc->profile), calls outside the profile are answered as its mode says
 * (alert: let through, SECCOMP_USER_NOTIF_FLAG_CONTINUE; deny: EPERM) and
 * the first of each syscall number is published (op "syscall"). sc must
 * outlive n. */
void notify__profile(struct rf_notify *n, const struct rf_seccomp *sc);
/* One call: answer it (EPERM, or let through: notify__profile), then
 * publish it for sandbox cgid (unless publish is false: test hooks).
 * 0; -ENOENT when the waiting task went away first; another -errno when
 * the listener cannot be used: stop polling it and notify__drop it. */
int notify__handle(struct rf_notify *n, uint64_t cgid, bool publish);
/* Close the listener: refusals then fail ENOSYS at once (still refused;
 * none waits for an answer that cannot come). */
void notify__drop(struct rf_notify *n);
void notify__close(struct rf_notify *n);

#endif
