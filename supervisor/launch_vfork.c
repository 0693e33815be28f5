// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * clone3 with CLONE_VM | CLONE_VFORK on a stack of its own, as
 * posix_spawn does: the child borrows the supervisor's memory until its
 * execve (or _exit), so the kernel copies no page tables and neither side
 * takes copy-on-write faults afterwards; the parent sleeps meanwhile.
 *
 * glibc has no clone3 wrapper that takes a function and a stack, and the
 * generic syscall() cannot switch stacks (the child would return through
 * a frame it does not own), so the syscall is issued here. The child runs
 * fn(arg), which must never return and may only make syscalls and
 * async-signal-safe calls (launch_child.c): it shares the parent's
 * thread-local storage, whose errno it may change while the parent sleeps.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>

#include "launch_internal.h"

/* The child's frames are small (launch_child.c: no recursion, the largest
 * local a 256-byte group list); a guard page below. */
#define CHILD_STACK_SIZE (256u << 10)

#if defined(__x86_64__)
static long clone3_on_stack(struct clone_args *args, void (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = SYS_clone3;
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;

	/* The kernel preserves every register but rax, rcx and r11 across
	 * syscall, so the child finds fn and arg in r12/r13; its rsp is the
	 * top of args->stack (16-byte aligned, as a call site needs). */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "ud2\n"
			 "1:"
			 : "+r"(rax)
			 : "D"(args), "S"(sizeof(*args)), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return rax;
}

long launch_vfork__clone(struct clone_args *args, void (*fn)(void *), void *arg)
{
	void *stack;
	long pid;

	stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	if (mprotect(stack, (size_t)getpagesize(), PROT_NONE) < 0) {
		pid = -errno;
		munmap(stack, CHILD_STACK_SIZE);
		return pid;
	}
	args->flags |= CLONE_VM | CLONE_VFORK;
	args->stack = (uint64_t)(uintptr_t)stack;
	args->stack_size = CHILD_STACK_SIZE;
	pid = clone3_on_stack(args, fn, arg);
	/* Here the child has exec'd or exited: its stack is free again. */
	munmap(stack, CHILD_STACK_SIZE);
	return pid;
}
#else
/* Elsewhere: a plain clone3 (the child gets a copy of the memory). */
long launch_vfork__clone(struct clone_args *args, void (*fn)(void *), void *arg)
{
	long pid = syscall(SYS_clone3, args, sizeof(*args));

	if (pid == 0)
		fn(arg);
	return pid < 0 ? -errno : pid;
}
#endif
