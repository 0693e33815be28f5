/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How this kernel counts the payload of a sandbox's unix peers for the
 * connection ledger: which programs of the observe group RF_OBS_UNIX_BYTES
 * (observe.bpf.c) load here.
 */
#ifndef RF_UNIX_BYTES_H
#define RF_UNIX_BYTES_H

#include <stdbool.h>

enum rf_unix_bytes {
	RF_UNIX_BYTES_NONE = 0,  /* not counted (the plan's gap limits.egress-unix) */
	/* Linux 6.7+: the cgroup unix hooks (net.bpf.c) key a socket, the
	 * sock_send_length/sock_recv_length tracepoints (6.3+) count */
	RF_UNIX_BYTES_TP,
	/* before 6.7, where the kernel takes fexit programs: fexit on
	 * af_unix's connect, sendmsg and recvmsg key a socket and count */
	RF_UNIX_BYTES_FEXIT,
};

/* The fexit programs' names start so (within RF_OBS_UNIX_PREFIX's). */
#define RF_OBS_UNIX_FX_PREFIX "rf_obs_unix_fx_"
/* 6.7+: the fexit programs that key a connect()'s socket once it
 * succeeded, loaded with the tracepoints where fexit programs attach. */
#define RF_OBS_UNIX_CX_PREFIX "rf_obs_unix_cx_"

/* This kernel's way, found once per boot and build: by the release, and
 * before 6.7 by loading and attaching a two-instruction fexit program on
 * unix_stream_sendmsg (kept in the run cache: the kernel's BTF is read
 * once, tens of milliseconds). */
enum rf_unix_bytes unix_bytes__kernel(void);

/* The observe program name (of RF_OBS_UNIX_PREFIX) loads on this kernel. */
bool unix_bytes__prog_loads(const char *name);

/* RF_UNIX_BYTES_TP with the RF_OBS_UNIX_CX_PREFIX programs: a connect's
 * socket keyed once it succeeded (RF_LEDGER_UNIX_KEY_LATE). */
bool unix_bytes__key_late(void);

#endif
