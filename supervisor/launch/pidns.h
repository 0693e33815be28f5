/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every sandbox's own PID namespace (bwrap --unshare-pid, systemd
 * PrivatePIDs=): its PID 1 is a tiny init made here, and the command is
 * started into that namespace by the supervisor itself (setns on the
 * init's pidfd around the launch's clone3), so the command stays the
 * supervisor's child: its pidfd, its exit status (exit code or signal,
 * unchanged), the trace's and the monitor's pids (host pids) and the
 * cgroup keying are what they were without the namespace.
 *
 * The init: a copy of the supervisor (clone3 without CLONE_VM: a command
 * that got hold of it would hold a copy, never the supervisor's memory),
 * outside the sandbox's cgroup (no pid or memory of the sandbox's limits,
 * no OOM group kill reaches the supervisor through it), with no
 * capabilities, non-dumpable (no ptrace, /proc/1/mem, /proc/1/fd or even
 * a /proc/1 entry under hidepid=ptraceable for the command), every signal
 * blocked (the kernel drops what the namespace sends its init; only an
 * ancestor's SIGKILL lands). It reaps every orphan re-parented to it. It
 * is woken for neither the command's start nor its end (each wake-up of
 * another task waits for a CPU on a busy host): the supervisor kills it
 * once the command has exited, with the cgroup's kill. Only when the
 * supervisor lets go (its death, with the command kept running; a launch
 * that started nothing) does it watch the command (the namespace's PID 2)
 * and exit once it has exited and no child of its own is left; its exit
 * makes the kernel kill anything else in the namespace.
 */
#ifndef RF_PIDNS_H
#define RF_PIDNS_H

#include <stdbool.h>
#include <sys/types.h>

/* The command's pid inside: the init makes no process of its own, so the
 * command is the namespace's second task. */
#define RF_PIDNS_COMMAND_PID 2

struct rf_pidns {
	pid_t init_pid;    /* host pid of the init; 0: none */
	int init_pidfd;    /* CLOEXEC; -1: none */
	int go_w;          /* write end, never written: its EOF lets the init watch
			    * the command itself; -1 once closed */
	int self_ns;       /* the supervisor's own pid namespace, while entered; -1 */
};

/* Make the init (a new PID namespace). 0 or -errno; *ns is then live. */
int pidns__start(struct rf_pidns *ns);

/* Children of this thread go into the init's namespace (enter) or back
 * into the supervisor's (leave). 0 or -errno. */
int pidns__enter(struct rf_pidns *ns);
int pidns__leave(struct rf_pidns *ns);

/* Tell the init whether the command started. Started: nothing is said
 * (the init sleeps until pidns__kill, or watches the command once this
 * process has died); otherwise it exits at once. */
void pidns__release(struct rf_pidns *ns, bool started);

/* Kill the init (with it, anything left in the namespace) without
 * waiting: its exit runs beside the caller's other teardown work, and
 * pidns__stop reaps it later. NULL, a killed or a stopped one is fine. */
void pidns__kill(struct rf_pidns *ns);

/* Kill the init (with it, anything left in the namespace) and reap it.
 * NULL or a stopped one is fine. */
void pidns__stop(struct rf_pidns *ns);

#endif
