// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The syscalls observe.bpf.c watches for failures, and how to read each
 * one's arguments: data the enforcer loads into the program and the
 * seccomp listener reads (observe/notify.c). A leaf: it calls nothing of
 * ringfence's.
 */
#include <string.h>
#include <seccomp.h>

#include "obs_syscalls.h"

/* { name, op, class, path, path2, dirfd, dirfd2, arg, target } */
struct watch {
	const char *name;
	struct rf_obs_syscall d;
};

#define F(op) RF_OP_##op, RF_CLASS_FILE
#define X(op) RF_OP_##op, RF_CLASS_EXEC
#define P(op) RF_OP_##op, RF_CLASS_PROCESS

static const struct watch watches[] = {
	/* path syscalls: Landlock's files and exec */
	{ "open", { F(FILE_OPEN), 1, 0, 0, 0, 2, 0 } },
	{ "openat", { F(FILE_OPEN), 2, 0, 1, 0, 3, 0 } },
	{ "openat2", { RF_OP_FILE_OPEN, RF_CLASS_FILE | RF_OBS_ARG_HOW, 2, 0, 1, 0, 3, 0 } },
	{ "creat", { F(CREATE), 1, 0, 0, 0, 2, 0 } },
	{ "execve", { X(EXEC), 1, 0, 0, 0, 0, 0 } },
	{ "execveat", { X(EXEC), 2, 0, 1, 0, 5, 0 } },
	{ "mkdir", { F(MKDIR), 1, 0, 0, 0, 2, 0 } },
	{ "mkdirat", { F(MKDIR), 2, 0, 1, 0, 3, 0 } },
	{ "mknod", { F(MKNOD), 1, 0, 0, 0, 2, 0 } },
	{ "mknodat", { F(MKNOD), 2, 0, 1, 0, 3, 0 } },
	{ "unlink", { F(UNLINK), 1, 0, 0, 0, 0, 0 } },
	{ "unlinkat", { F(UNLINK), 2, 0, 1, 0, 3, 0 } },
	{ "rmdir", { F(RMDIR), 1, 0, 0, 0, 0, 0 } },
	{ "rename", { F(RENAME), 1, 2, 0, 0, 0, 0 } },
	{ "renameat", { F(RENAME), 2, 4, 1, 3, 0, 0 } },
	{ "renameat2", { F(RENAME), 2, 4, 1, 3, 5, 0 } },
	{ "link", { F(LINK), 1, 2, 0, 0, 0, 0 } },
	{ "linkat", { F(LINK), 2, 4, 1, 3, 0, 0 } },
	{ "symlink", { F(SYMLINK), 2, 0, 0, 0, 0, 0 } },
	{ "symlinkat", { F(SYMLINK), 3, 0, 2, 0, 0, 0 } },
	{ "truncate", { F(TRUNCATE), 1, 0, 0, 0, 0, 0 } },
	{ "chmod", { F(CHMOD), 1, 0, 0, 0, 2, 0 } },
	{ "fchmodat", { F(CHMOD), 2, 0, 1, 0, 3, 0 } },
	{ "fchmodat2", { F(CHMOD), 2, 0, 1, 0, 3, 0 } },
	{ "chown", { F(CHOWN), 1, 0, 0, 0, 0, 0 } },
	{ "lchown", { F(CHOWN), 1, 0, 0, 0, 0, 0 } },
	{ "fchownat", { F(CHOWN), 2, 0, 1, 0, 0, 0 } },
	{ "utime", { F(UTIMES), 1, 0, 0, 0, 0, 0 } },
	{ "utimes", { F(UTIMES), 1, 0, 0, 0, 0, 0 } },
	{ "utimensat", { F(UTIMES), 2, 0, 1, 0, 0, 0 } },
	{ "futimesat", { F(UTIMES), 2, 0, 1, 0, 0, 0 } },
	/* the seccomp boundary (sandbox_seccomp.c refuses these with EPERM) */
	{ "bpf", { P(BPF), 0, 0, 0, 0, 1, 0 } },
	{ "ptrace", { P(PTRACE), 0, 0, 0, 0, 1, 2 } },
	{ "process_vm_readv", { P(PROCESS_VM), 0, 0, 0, 0, 0, 1 } },
	{ "process_vm_writev", { P(PROCESS_VM), 0, 0, 0, 0, 0, 1 } },
	{ "pidfd_getfd", { P(PROCESS_VM), 0, 0, 0, 0, 0, 0 } },
	{ "mount", { P(MOUNT), 0, 0, 0, 0, 4, 0 } },
	{ "umount2", { P(UMOUNT), 0, 0, 0, 0, 2, 0 } },
	{ "move_mount", { P(MOVE_MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "fsopen", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "fsconfig", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "fsmount", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "fspick", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "open_tree", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "mount_setattr", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "open_tree_attr", { P(MOUNT), 0, 0, 0, 0, 0, 0 } },
	{ "pivot_root", { P(PIVOT_ROOT), 0, 0, 0, 0, 0, 0 } },
	{ "setns", { P(SETNS), 0, 0, 0, 0, 2, 0 } },
	{ "keyctl", { P(KEYCTL), 0, 0, 0, 0, 1, 0 } },
	{ "add_key", { P(KEYCTL), 0, 0, 0, 0, 0, 0 } },
	{ "request_key", { P(KEYCTL), 0, 0, 0, 0, 0, 0 } },
	{ "perf_event_open", { P(PERF_EVENT), 0, 0, 0, 0, 0, 0 } },
	{ "kexec_load", { P(KEXEC), 0, 0, 0, 0, 0, 0 } },
	{ "kexec_file_load", { P(KEXEC), 0, 0, 0, 0, 0, 0 } },
	{ "init_module", { P(MODULE), 0, 0, 0, 0, 0, 0 } },
	{ "finit_module", { P(MODULE), 0, 0, 0, 0, 0, 0 } },
	{ "delete_module", { P(MODULE), 0, 0, 0, 0, 0, 0 } },
	{ "userfaultfd", { P(USERFAULTFD), 0, 0, 0, 0, 0, 0 } },
	{ "io_uring_setup", { P(IO_URING), 0, 0, 0, 0, 0, 0 } },
	{ "io_uring_enter", { P(IO_URING), 0, 0, 0, 0, 0, 0 } },
	{ "io_uring_register", { P(IO_URING), 0, 0, 0, 0, 0, 0 } },
	/* refused for some arguments only: judged on them in user space */
	{ "unshare", { P(NAMESPACE), 0, 0, 0, 0, 1, 0 } },
	{ "clone", { P(NAMESPACE), 0, 0, 0, 0, 1, 0 } },
	{ "ioctl", { P(TTY_IOCTL), 0, 0, 0, 0, 2, 0 } },
	{ "personality", { P(PERSONALITY), 0, 0, 0, 0, 1, 0 } },
};

#undef F
#undef X
#undef P

void obs_syscalls__table(struct rf_obs_syscall table[RF_OBS_SYSCALL_MAX])
{
	size_t i;

	memset(table, 0, RF_OBS_SYSCALL_MAX * sizeof(*table));
	for (i = 0; i < sizeof(watches) / sizeof(watches[0]); i++) {
		int nr = seccomp_syscall_resolve_name(watches[i].name);

		if (nr >= 0 && nr < RF_OBS_SYSCALL_MAX)
			table[nr] = watches[i].d;  /* absent on this architecture: skipped */
	}
}
