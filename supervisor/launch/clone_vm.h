/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * clone3 into a child that shares the caller's memory (CLONE_VM), on a
 * stack of its own, running fn(arg) (which must never return): what
 * posix_spawn does, for the two children a run makes (the command,
 * launch_vfork.c; the reaper, reaper.c). No page tables are copied and
 * neither side takes copy-on-write faults afterwards.
 *
 * glibc has no clone3 wrapper that takes a function and a stack, and the
 * generic syscall() cannot switch stacks (the child would return through
 * a frame it does not own), so the syscall is issued here, in assembly:
 * x86_64 only (RF_CLONE_VM); elsewhere callers keep a plain fork.
 *
 * The child shares the caller's thread-local storage, errno included: it
 * may only make raw syscalls (clone_vm__syscall) unless the caller sleeps
 * until its execve (CLONE_VFORK).
 */
#ifndef RF_CLONE_VM_H
#define RF_CLONE_VM_H

#include <stddef.h>

struct clone_args;

#if defined(__x86_64__)
#define RF_CLONE_VM 1
#else
#define RF_CLONE_VM 0
#endif

/* A stack for a child: size bytes, a guard page at the bottom. NULL on
 * failure (errno set). */
void *clone_vm__stack(size_t size);
void clone_vm__stack_free(void *stack, size_t size);

/* clone3(args) with CLONE_VM added and args->stack/stack_size set to
 * stack; the child runs fn(arg). The pid or -errno (-ENOSYS without
 * RF_CLONE_VM). */
long clone_vm__clone3(struct clone_args *args, void *stack, size_t size,
		      void (*fn)(void *), void *arg);

/* A raw syscall: the result or -errno, errno untouched. */
long clone_vm__syscall(long nr, long a1, long a2, long a3, long a4);

#endif
