// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Children that share the caller's memory (clone_vm.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>

#include "clone_vm.h"

void *clone_vm__stack(size_t size)
{
	void *s = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);

	if (s == MAP_FAILED)
		return NULL;
	if (mprotect(s, (size_t)getpagesize(), PROT_NONE) < 0) {
		int e = errno;

		munmap(s, size);
		errno = e;
		return NULL;
	}
	return s;
}

void clone_vm__stack_free(void *stack, size_t size)
{
	if (stack)
		munmap(stack, size);
}

#if RF_CLONE_VM
long clone_vm__syscall(long nr, long a1, long a2, long a3, long a4)
{
	register long rax __asm__("rax") = nr;
	register long r10 __asm__("r10") = a4;

	__asm__ volatile("syscall"
			 : "+r"(rax)
			 : "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return rax;
}

long clone_vm__clone3(struct clone_args *args, void *stack, size_t size,
		      void (*fn)(void *), void *arg)
{
	register long rax __asm__("rax") = SYS_clone3;
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;

	args->flags |= CLONE_VM;
	args->stack = (uint64_t)(uintptr_t)stack;
	args->stack_size = size;
	/* The kernel preserves every register but rax, rcx and r11 across
	 * syscall, so the child finds fn and arg in r12/r13; its rsp is the
	 * top of the stack (16-byte aligned, as a call site needs). */
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
#else
long clone_vm__syscall(long nr, long a1, long a2, long a3, long a4)
{
	long r = syscall(nr, a1, a2, a3, a4);

	return r < 0 ? -errno : r;
}

long clone_vm__clone3(struct clone_args *args, void *stack, size_t size,
		      void (*fn)(void *), void *arg)
{
	(void)args, (void)stack, (void)size, (void)fn, (void)arg;
	return -ENOSYS;
}
#endif
