// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-sys: system calls attempted for real inside a sandbox, one line each:
 *   NAME RESULT     (RESULT: "ok" or the errno name)
 * The arguments are harmless: even where a call is allowed it does
 * nothing lasting (invalid fds, NULL pointers, flags that fail late).
 * Names: bpf ptrace process_vm_readv mount umount2 fsopen open_tree
 * move_mount unshare_user unshare_net setns clone_newuser clone3 keyctl
 * add_key request_key perf_event_open kexec_load init_module finit_module
 * delete_module userfaultfd io_uring_setup personality32 tiocsti
 * tiocsti_hi kill_parent getpid gettid uname seccomp_filter seccomp_listener
 * (an allow-all filter without, with a user-notification listener) i386_getpid (int $0x80, x86-64 only:
 * under the boundary filter the process is killed with SIGSYS)
 * The hole rules' calls (each would succeed unconfined) and their allowed
 * twins: rthdr (setsockopt IPV6_RTHDR, empty) / pktinfo (IPV6_RECVPKTINFO),
 * setprio_parent (the parent's own nice value, set again) / setprio_self,
 * memfd_exec (memfd_create without MFD_NOEXEC_SEAL) / memfd_noexec,
 * fchmod_pipe (a pipe's mode)
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOSYS: return "ENOSYS";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case ENOTTY: return "ENOTTY";
	case ESRCH: return "ESRCH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	return strerror(e);
}

static long ret_errno(long r)
{
	return r < 0 ? errno : 0;
}

/* A socket option on a fresh IPv6 UDP socket. */
static long try_sockopt6(int opt, const void *val, socklen_t len)
{
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	long e;

	if (fd < 0)
		return errno;
	e = ret_errno(setsockopt(fd, IPPROTO_IPV6, opt, val, len));
	close(fd);
	return e;
}

static long try_memfd(unsigned int flags)
{
	long fd = syscall(SYS_memfd_create, "rf-sys", flags);

	if (fd >= 0)
		close((int)fd);
	return ret_errno(fd);
}

static long try_fchmod_pipe(void)
{
	int p[2];
	long e;

	if (pipe(p))
		return errno;
	e = ret_errno(fchmod(p[0], 0600));
	close(p[0]);
	close(p[1]);
	return e;
}

/* The hole rules' calls: true when n is one (its result in *e). */
static bool hole_call(const char *n, long *e)
{
	int one = 1;
	pid_t pp = getppid();

	if (!strcmp(n, "rthdr"))
		*e = try_sockopt6(57 /* IPV6_RTHDR */, NULL, 0);
	else if (!strcmp(n, "pktinfo"))
		*e = try_sockopt6(49 /* IPV6_RECVPKTINFO */, &one, sizeof(one));
	else if (!strcmp(n, "setprio_parent"))
		*e = ret_errno(setpriority(PRIO_PROCESS, (id_t)pp, getpriority(PRIO_PROCESS, (id_t)pp)));
	else if (!strcmp(n, "setprio_self"))
		*e = ret_errno(setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0)));
	else if (!strcmp(n, "memfd_exec"))
		*e = try_memfd(0x0001U /* MFD_CLOEXEC */);
	else if (!strcmp(n, "memfd_noexec"))
		*e = try_memfd(0x0001U | 0x0008U /* MFD_NOEXEC_SEAL */);
	else if (!strcmp(n, "fchmod_pipe"))
		*e = try_fchmod_pipe();
	else
		return false;
	return true;
}

/* clone with a namespace flag, in a child that exits at once. */
static int try_clone_newuser(void)
{
	long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	if (r > 0) {
		waitpid((pid_t)r, NULL, 0);
		return 0;
	}
	return errno;
}

static int try_clone3(void)
{
	struct clone_args a;
	long r;

	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	r = syscall(SYS_clone3, &a, sizeof(a));
	if (r == 0)
		_exit(0);
	if (r > 0) {
		waitpid((pid_t)r, NULL, 0);
		return 0;
	}
	return errno;
}

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		const char *n = argv[i];
		long e;
		char c = 'x';

		if (!strcmp(n, "bpf"))
			e = ret_errno(syscall(SYS_bpf, 0 /* MAP_CREATE */, NULL, 0));
		else if (!strcmp(n, "ptrace"))
			e = ret_errno(syscall(SYS_ptrace, 16 /* ATTACH */, 1, 0, 0));
		else if (!strcmp(n, "process_vm_readv"))
			e = ret_errno(syscall(SYS_process_vm_readv, 1, NULL, 0, NULL, 0, 0));
		else if (!strcmp(n, "mount"))
			e = ret_errno(syscall(SYS_mount, "none", "/nonexistent", "tmpfs", 0, NULL));
		else if (!strcmp(n, "umount2"))
			e = ret_errno(syscall(SYS_umount2, "/nonexistent", 0));
		else if (!strcmp(n, "fsopen"))
			e = ret_errno(syscall(SYS_fsopen, "tmpfs", 0));
		else if (!strcmp(n, "open_tree"))
			e = ret_errno(syscall(SYS_open_tree, -1, "/", 0));
		else if (!strcmp(n, "move_mount"))
			e = ret_errno(syscall(SYS_move_mount, -1, "", -1, "", 0));
		else if (!strcmp(n, "unshare_user"))
			e = ret_errno(syscall(SYS_unshare, CLONE_NEWUSER));
		else if (!strcmp(n, "unshare_net"))
			e = ret_errno(syscall(SYS_unshare, CLONE_NEWNET));
		else if (!strcmp(n, "setns"))
			e = ret_errno(syscall(SYS_setns, -1, 0));
		else if (!strcmp(n, "clone_newuser"))
			e = try_clone_newuser();
		else if (!strcmp(n, "clone3"))
			e = try_clone3();
		else if (!strcmp(n, "keyctl"))
			e = ret_errno(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3, 0));
		else if (!strcmp(n, "add_key"))
			e = ret_errno(syscall(SYS_add_key, "user", "rf", "x", 1, -3));
		else if (!strcmp(n, "request_key"))
			e = ret_errno(syscall(SYS_request_key, "user", "rf", NULL, -3));
		else if (!strcmp(n, "perf_event_open"))
			e = ret_errno(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
		else if (!strcmp(n, "kexec_load"))
			e = ret_errno(syscall(SYS_kexec_load, 0, 0, NULL, 0));
		else if (!strcmp(n, "init_module"))
			e = ret_errno(syscall(SYS_init_module, NULL, 0, ""));
		else if (!strcmp(n, "finit_module"))
			e = ret_errno(syscall(SYS_finit_module, -1, "", 0));
		else if (!strcmp(n, "delete_module"))
			e = ret_errno(syscall(SYS_delete_module, "rf_none", 0));
		else if (!strcmp(n, "userfaultfd"))
			e = ret_errno(syscall(SYS_userfaultfd, 0));
		else if (!strcmp(n, "io_uring_setup"))
			e = ret_errno(syscall(SYS_io_uring_setup, 1, NULL));
		else if (!strcmp(n, "personality32"))
			e = ret_errno(syscall(SYS_personality, PER_LINUX32));
		else if (!strcmp(n, "tiocsti"))
			e = ret_errno(ioctl(0, TIOCSTI, &c));
		else if (!strcmp(n, "tiocsti_hi"))
			e = ret_errno(syscall(SYS_ioctl, 0, 0x100000000UL | TIOCSTI, &c));
		else if (!strcmp(n, "kill_parent"))
			/* a parent outside the caller's PID namespace is pid 0
			 * here: its init (PID 1) is the process outside then */
			e = ret_errno(kill(getppid() ? getppid() : 1, 0));
#if defined(__x86_64__)
		else if (!strcmp(n, "i386_getpid")) {
			long r;

			/* The i386 ABI's getpid is 20; the 64-bit filter must
			 * never judge i386 numbers as x86-64 ones. */
			__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
			e = r < 0 ? -r : 0;
		}
#endif
		else if (!strcmp(n, "getpid"))
			e = ret_errno(syscall(SYS_getpid));
		else if (!strcmp(n, "gettid"))
			e = ret_errno(syscall(SYS_gettid));
		else if (!strncmp(n, "seccomp_", 8)) {
			struct sock_filter f = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
			struct sock_fprog prog = { .len = 1, .filter = &f };
			long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
					 strcmp(n, "seccomp_listener") ? 0 :
					 SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);

			e = ret_errno(r);
			if (r > 0)
				close((int)r);
		} else if (hole_call(n, &e)) {
			/* *e set */
		} else if (!strcmp(n, "uname")) {
			struct utsname u;

			e = ret_errno(uname(&u));
		} else {
			fprintf(stderr, "rf-sys: unknown call %s\n", n);
			return 2;
		}
		printf("%s %s\n", n, err_name((int)e));
	}
	return 0;
}
