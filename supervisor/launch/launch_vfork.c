// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The command's clone3 with CLONE_VM | CLONE_VFORK (clone_vm.h), as
 * posix_spawn does: the child borrows the supervisor's memory until its
 * execve (or _exit) while the parent sleeps, so it may use the libc calls
 * launch_child.c makes (errno is the parent's, which is asleep).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>

#include "clone_vm.h"
#include "launch_internal.h"

/* The child's frames are small (launch_child.c: no recursion, the largest
 * local a 256-byte group list). */
#define CHILD_STACK_SIZE (256u << 10)

long launch_vfork__clone(struct clone_args *args, void (*fn)(void *), void *arg)
{
	void *stack;
	long pid;

	if (!RF_CLONE_VM) {
		/* a plain clone3: the child gets a copy of the memory */
		pid = syscall(SYS_clone3, args, sizeof(*args));
		if (pid == 0)
			fn(arg);
		return pid < 0 ? -errno : pid;
	}
	stack = clone_vm__stack(CHILD_STACK_SIZE);
	if (!stack)
		return -errno;
	args->flags |= CLONE_VFORK;
	pid = clone_vm__clone3(args, stack, CHILD_STACK_SIZE, fn, arg);
	/* Here the child has exec'd or exited: its stack is free again. */
	clone_vm__stack_free(stack, CHILD_STACK_SIZE);
	return pid;
}
