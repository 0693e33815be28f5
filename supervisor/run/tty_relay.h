/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command never holds the caller's terminal: where any of fds 0-2 is
 * a terminal, the command gets a pseudo-terminal of its own (its
 * controlling terminal, in its own session) and the supervisor relays
 * both ways between the caller's terminal and the pty's master, from the
 * wait loop, never blocking (sudo's use_pty, systemd-run --pty).
 */
#ifndef RF_TTY_RELAY_H
#define RF_TTY_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <termios.h>
#include <sys/types.h>
#include <jansson.h>

#include "error.h"

struct rf_limits_watch;

#define RF_TTY_BUF 65536

/* Bytes on their way from one fd to another. */
struct rf_tty_buf {
	size_t off, len;
	char data[RF_TTY_BUF];
};

struct rf_tty_relay {
	bool on;                  /* some of fds 0-2 is a terminal */
	bool std[3];              /* which of fds 0-2 the command gets the pty for */
	int devpts;               /* a devpts instance of the sandbox's own (a
				   * detached mount, >= 10): the command's pty
				   * comes from it, it goes over /dev/pts in the
				   * command's mount namespace; -1 */
	int master;               /* ours, non-blocking; -1 */
	int slave;                /* the command's end (>= 10) until launched; -1 */
	int in;                   /* the caller's terminal we read (fd 0's), own
				   * open file description, non-blocking; -1 */
	int out;                  /* the one we write (fd 1's, 2's or 0's); may be in */
	int saved_err;            /* our own stderr while it is the non-blocking
				   * description of the terminal; -1 */
	int restore_fl[2];        /* in/out: shared description made non-blocking
				   * (reopen failed): its old flags; -1 */
	bool raw;                 /* saved holds the caller's modes, in is raw */
	bool input;               /* reading in (in the foreground, no EOF yet) */
	bool master_eof;          /* every holder of the slave is gone */
	bool out_dead;            /* writing to out failed: the output is dropped */
	uint32_t watched[2];      /* epoll events now set for in/master... */
	uint32_t watched_out;     /* ...and out when it is not in */
	struct termios saved;
	char pty_name[64];        /* the command's pty, for the trace */
	char caller_name[64];     /* the caller's terminal */
	uint64_t dropped;         /* bytes the terminal never took at the end */
	struct rf_tty_buf *to_term, *to_pty;   /* the two directions' bytes */
};

/* Make the sandbox's devpts instance (always: the host's /dev/pts, the
 * caller's terminal among them, is never the command's to open by name).
 * Look at fds 0-2; where one is a terminal, make the pty there (the
 * caller's modes and size copied onto it, owned by uid:gid, the command's)
 * and reopen the caller's terminal for a non-blocking relay. No terminal:
 * r->on false. 0 or -errno, e filled. */
int tty_relay__open(struct rf_tty_relay *r, uid_t uid, gid_t gid, struct rf_error *e);
/* The command runs: drop our slave end (the master then sees EOF once
 * the sandbox's last holder is gone), go raw where we are in the
 * foreground. */
void tty_relay__start(struct rf_tty_relay *r);
/* Register / update the relay's fds in the epoll set (after every event). */
void tty_relay__watch(struct rf_tty_relay *r, int ep);
/* An event on fd: true when it was one of the relay's. *hit_now when the
 * output budget (lw) ran out just now. */
bool tty_relay__on_fd(struct rf_tty_relay *r, int fd, uint32_t events,
		      struct rf_limits_watch *lw, bool *hit_now);
/* SIGWINCH: the caller's size onto the pty (the kernel signals the
 * command's foreground job). */
void tty_relay__winch(struct rf_tty_relay *r);
/* The command stopped (^Z inside): the caller's modes back. */
void tty_relay__pause(struct rf_tty_relay *r);
/* Continued (fg, bg): raw again and reading if in the foreground. */
void tty_relay__resume(struct rf_tty_relay *r);
/* The sandbox is gone: what the pty and the buffer still hold goes to the
 * caller's terminal while it takes it (a terminal that takes nothing for
 * a second drops the rest: r->dropped); then the caller's modes back. */
void tty_relay__finish(struct rf_tty_relay *r, struct rf_limits_watch *lw);
/* Modes and fds back; idempotent. */
void tty_relay__close(struct rf_tty_relay *r);
/* {"pty": .., "caller": .., "fds": [..]} for sandbox.configure; NULL off. */
json_t *tty_relay__json(const struct rf_tty_relay *r);

#endif
