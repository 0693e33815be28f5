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

/* A unix peer's name as text: '@' before an abstract name, bytes outside
 * printable ASCII as '?'. */
#define RF_UNIX_FLOW_TEXT (RF_UNIX_FLOW_NAME + 2)

/* One destination of one sandbox, as the kernel counted it. A unix peer
 * (rf_unix_flows) has key.family AF_UNIX, key.proto its socket type, port
 * 0 and key.addr a 128-bit hash of its name (one key per name, for the
 * tables keyed by rf_flow_key), and its name in unix_name. */
struct rf_flow_row {
	struct rf_flow_key key;
	struct rf_flow flow;
	char unix_name[RF_UNIX_FLOW_TEXT];  /* AF_UNIX: the peer's name; else "" */
};

/* The flows of sandbox cgid (0: of every sandbox) in the rf_flows map fd
 * and the rf_unix_flows map unix_fd (-1: none): a malloc'd array (free
 * it), sorted by first use. 0 or -errno. */
int ledger__flows(int fd, int unix_fd, uint64_t cgid, struct rf_flow_row **ret_rows,
		  size_t *ret_n);

/* Mark the unix rows whose sandbox counts unix bytes (its rf_ledger entry,
 * ledger_fd, has RF_LEDGER_UNIX_BYTES) with RF_FLOW_UNIX_BYTES: the others'
 * bytes are unknown, not 0. */
void ledger__mark_unix_bytes(int ledger_fd, struct rf_flow_row *rows, size_t n);

/* Each flow's last counts of sandbox cgid to ringfence-monitor (an
 * RF_EV_FLOW record each, final, through the pinned rf_dns_note program
 * note_fd) before its entries are deleted: the monitor reads the maps on
 * an interval and would miss what came after its last read. The flows
 * map fds as for ledger__flows; names_fd: rf_flow_names (-1: none). The
 * number of records the program took. */
size_t ledger__note_final(int note_fd, const struct rf_flow_row *rows, size_t n,
			  int names_fd, uint64_t cgid);

/* The name the DNS gate opened addr for (rf_flow_names fd): 0, -ENOENT. */
int ledger__name(int fd, uint64_t cgid, int family, const uint8_t *addr, char *buf,
		 size_t len);
/* Record that the gate opened addr (4 or 16 bytes) for name. 0 or -errno. */
int ledger__note_name(int fd, uint64_t cgid, int family, const uint8_t *addr,
		      const char *name);

/* "192.0.2.1:443" or "[2001:db8::1]:443"; a unix peer: its name, name
 * (the row's unix_name, or an rf_flow_record's name). */
void ledger__dst_text(const struct rf_flow_key *k, const char *name, char *buf, size_t len);
/* "tcp", "udp"; "unix". */
const char *ledger__proto(const struct rf_flow_key *k);

/* A bpf_ktime_get_boot_ns() stamp as CLOCK_REALTIME. */
void ledger__boot_to_real(uint64_t boot_ns, struct timespec *ret);

/* How a sandbox came by a unix peer's socket (rf_unix_origin, from the
 * row's flags): "connect", "accept", "peer", "unnamed". */
const char *ledger__unix_origin(const struct rf_flow_key *k);

/* A unix peer's socket type: "stream", "dgram", "seqpacket", "other". */
const char *ledger__unix_type(const struct rf_flow_key *k);

/* Delete every entry of sandbox cgid in the flows map fd, the unix flows
 * map unix_fd and the names map fd (any may be -1). 0 or the first -errno. */
int ledger__forget(int flows_fd, int unix_fd, int names_fd, uint64_t cgid);

#endif
