/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Constants of the process boundary that older headers lack. The seccomp
 * filter (sandbox_seccomp.c) refuses these and observe.c tells its
 * refusals apart by them: both take them from here, so they agree.
 */
#ifndef RF_BOUNDARY_CONSTS_H
#define RF_BOUNDARY_CONSTS_H

#include <sched.h>
#include <sys/ioctl.h>

#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWUSER
#define CLONE_NEWUSER 0x10000000
#endif

/* W^X memory (memory.deny_write_execute): prctl(PR_SET_MDWE), Linux 6.3+. */
#define RF_PR_SET_MDWE 65
#define RF_PR_GET_MDWE 66
#define RF_PR_MDWE_REFUSE_EXEC_GAIN 1UL

/* Every flag that makes a new namespace: the boundary refuses each. */
#define RF_NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

#endif
