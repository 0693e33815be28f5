/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output relay's far side: ringfence's own stdout or stderr (a pipe,
 * a file, a socket), written without ever blocking, so the wait loop, and
 * with it wall_seconds, never waits on a reader that stopped reading. The
 * bytes a reader does not take yet wait in a buffer; a full buffer stops
 * the relay reading the command's pipe (the command then blocks on its
 * own write, inside the sandbox, where the deadline reaches it).
 */
#ifndef RF_OUT_RELAY_H
#define RF_OUT_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RF_OUT_RELAY_BUF 65536

struct rf_out_relay {
	int fd;                   /* ours to write, -1: closed */
	int restore_fl;           /* the shared description made non-blocking:
				   * its flags before; -1 */
	bool sock;                /* a socket: send(MSG_DONTWAIT), its flags untouched */
	bool dead;                /* a write failed (the reader is gone) */
	bool own;                 /* fd is our own open file description */
	uint32_t watched;         /* epoll events now set for fd (wait loop) */
	size_t off, len;
	char *data;               /* RF_OUT_RELAY_BUF bytes */
};

/* Our non-blocking way to write to dest (a pipe or FIFO reopened through
 * /proc/self/fd: the description the caller shares stays as it was; a
 * socket sent to with MSG_DONTWAIT; a file as it is; anything else made
 * non-blocking until out_relay__close). 0 or -errno. */
int out_relay__open(struct rf_out_relay *o, int dest);
/* Where the next bytes go and how many fit (0: full). */
char *out_relay__tail(struct rf_out_relay *o, size_t *ret_room);
/* n bytes were put at the tail. */
void out_relay__commit(struct rf_out_relay *o, size_t n);
/* As much of the buffer as the reader takes now; false once it is gone
 * (the buffer is emptied, o->dead). */
bool out_relay__flush(struct rf_out_relay *o);
/* Bytes left in the buffer, dropped (returned) and forgotten. */
size_t out_relay__drop(struct rf_out_relay *o);
/* The supervisor's own lines on stderr (dest 2) must not block either:
 * fd 2 becomes our description until out_relay__close (a line a full
 * pipe does not take is lost). *ret_saved: the old fd 2, or -1. */
void out_relay__own_stderr(const struct rf_out_relay *o, int *ret_saved);
/* Flags back, fds closed; idempotent. */
void out_relay__close(struct rf_out_relay *o);

#endif
