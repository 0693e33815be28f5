/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The connection ledger of one run (issue 22): the sandbox's rf_ledger
 * entry with its egress budget, network.flow events from the kernel's
 * counts (on an interval and at the end), the totals sandbox.exit gives,
 * and the budgets the supervisor watches (egress_bytes, which the kernel
 * holds; disk_write_mb, which io.stat counts).
 */
#ifndef RF_FLOWS_H
#define RF_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

struct sandbox;

/* How often a long run's flows are written (and the budgets read). */
#define RF_FLOWS_INTERVAL_MS 60000
#define RF_FLOWS_BUDGET_MS 100

struct rf_flow_watch {
	bool started;             /* flows__start ran: the fields below are set */
	bool on;                  /* the sandbox has an rf_ledger entry */
	bool named;               /* a DNS gate of its own notes names (rf_flow_names) */
	int64_t disk_written;     /* io.stat write bytes before the kill; -1: unknown */
	int timer_fd;             /* -1 */
	uint64_t budget;          /* egress_bytes; 0: none */
	uint64_t disk_bytes;      /* disk_write_mb in bytes; 0: none */
	uint64_t ticks, ticks_per_emit;
};

/* Before the command runs: the ledger entry (with the budget) and the
 * timer. 0 or -errno. RINGFENCE_TEST_HOOKS=1 with RINGFENCE_TEST_NO_LEDGER=1
 * leaves the sandbox uncounted (the benchmark's baseline). */
int flows__start(struct sandbox *sb);
/* The sandbox is to be counted (false only under the test hook above). */
bool flows__ledger_wanted(void);
struct rf_policy;
struct rf_plan;
struct rf_caps;
struct rf_enforcer;
/* The unix byte programs (RF_OBS_UNIX_BYTES) are wanted attached for a
 * sandbox of policy p: it can reach a unix peer (audit mode: any), its
 * ledger is kept, it is observed (not --no-observe) and this kernel has a
 * way that counts (run.c, oci.c). */
bool flows__unix_bytes_wanted(const struct rf_policy *p, const struct rf_plan *plan,
			      const struct rf_caps *caps);
/* The rf_ledger flags of a sandbox opened with enf: how its unix bytes are
 * counted (RF_LEDGER_UNIX_BYTES, RF_LEDGER_UNIX_KEY_LATE), or 0. */
uint32_t flows__ledger_unix_flags(const struct rf_enforcer *enf);
int flows__fd(const struct sandbox *sb);
/* The timer fired: network.flow on the interval, the budgets read. True
 * when a limit was reached just now (sb->lw.hit set). */
bool flows__tick(struct sandbox *sb);
/* A budget the kernel or io.stat saw exceeded; true when newly hit. */
bool flows__check(struct sandbox *sb);
/* egress_bytes ended the run: freeze the sandbox, make its TCP sockets
 * abort (SO_LINGER 0) so the kill sends nothing they had queued. */
void flows__abort_sockets(struct sandbox *sb);
/* Before the cgroup goes: its io.stat read one last time. */
void flows__settle(struct sandbox *sb);
/* The last network.flow events, and the totals into ex (sandbox.exit):
 * bytes_sent, bytes_received, disk_write_bytes, flows. */
void flows__finish(struct sandbox *sb, json_t *ex);
/* The ledger entry, the flows and the names gone; the timer closed. */
void flows__stop(struct sandbox *sb);

#endif
