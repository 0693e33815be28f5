/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Constants of the process boundary that older headers lack. The seccomp
 * filter (sandbox_seccomp.c) refuses these and observe.c tells its
 * refusals apart by them: both take them from here, so they agree. The
 * launched child's fixed fds, which the filter and the launcher share.
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

/*
 * The fds the launched child holds at fixed numbers from its setup to its
 * execve, and nothing else above stderr: NAME, number, what it holds (the
 * words of a failure to put it there). The child (launch_child.c) moves
 * each there from where its table fixed_fds[] says the supervisor keeps
 * it; the seccomp filter lets the launcher's own write to ERR and sendmsg
 * on NOTIFY through by number. LL is filled and enforced, DEVPTS moved
 * over /dev/pts and FAN's mounts marked before the exec, then closed. A
 * new fd is a line here and its source there (the build fails without
 * one); the numbers are asserted distinct.
 */
#define RF_CHILD_FDS(X)                                 \
	X(ERR, 3, "error pipe")                         \
	X(LL, 4, "landlock ruleset")                    \
	X(NOTIFY, 5, "seccomp listener's socket")       \
	X(DEVPTS, 6, "devpts")                          \
	X(FAN, 7, "fanotify group")                     \
	X(IDMAP, 8, "id-mapping user namespace")

enum rf_child_fd {
#define RF_CHILD_FD_(name, fd, what) RF_CHILD_FD_##name = (fd),
	RF_CHILD_FDS(RF_CHILD_FD_)
#undef RF_CHILD_FD_
};

#define RF_CHILD_FD_ONE_(name, fd, what) +1
#define RF_CHILD_FD_BIT_(name, fd, what) | (1ULL << (fd))
#define RF_CHILD_FD_ADD_(name, fd, what) + (1ULL << (fd))
enum { RF_CHILD_FD_COUNT = 0 RF_CHILD_FDS(RF_CHILD_FD_ONE_) };
/* Equal only if no two share a bit; also keeps each below 64. */
_Static_assert((0 RF_CHILD_FDS(RF_CHILD_FD_BIT_)) == (0 RF_CHILD_FDS(RF_CHILD_FD_ADD_)),
	       "RF_CHILD_FDS: two fds share a number");
_Static_assert(((0 RF_CHILD_FDS(RF_CHILD_FD_BIT_)) & 7) == 0,
	       "RF_CHILD_FDS: 0-2 are stdio");

/* Every flag that makes a new namespace: the boundary refuses each. */
#define RF_NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

#endif
