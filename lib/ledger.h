/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The connection ledger's pinned maps (bpf/rf_ledger.bpf.h), read and
 * written by fd: the supervisor (its sandbox's flows at the end, the DNS
 * gate's names) and the monitor (every sandbox's flows while they run)
 * share this one reader.
 */
#ifndef RF_LEDGER_H
#define RF_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "rf_abi.h"

/* One destination of one sandbox, as the kernel counted it. */
struct rf_flow_row {
	struct rf_flow_key key;
	struct rf_flow flow;
};

/* The flows of sandbox cgid (0: of every sandbox) in the rf_flows map fd:
 * a malloc'd array (free it), sorted by first use. 0 or -errno. */
int ledger__flows(int fd, uint64_t cgid, struct rf_flow_row **ret_rows, size_t *ret_n);

/* The name the DNS gate opened addr for (rf_flow_names fd): 0, -ENOENT. */
int ledger__name(int fd, uint64_t cgid, int family, const uint8_t *addr, char *buf,
		 size_t len);
/* Record that the gate opened addr (4 or 16 bytes) for name. 0 or -errno. */
int ledger__note_name(int fd, uint64_t cgid, int family, const uint8_t *addr,
		      const char *name);

/* "192.0.2.1:443" or "[2001:db8::1]:443". */
void ledger__dst_text(const struct rf_flow_key *k, char *buf, size_t len);
/* "tcp", "udp". */
const char *ledger__proto(const struct rf_flow_key *k);

/* A bpf_ktime_get_boot_ns() stamp as CLOCK_REALTIME. */
void ledger__boot_to_real(uint64_t boot_ns, struct timespec *ret);

/* Delete every entry of sandbox cgid in the flows map fd and the names
 * map fd (either may be -1). 0 or the first -errno. */
int ledger__forget(int flows_fd, int names_fd, uint64_t cgid);

#endif
