// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-lsm: attempts for the BPF-LSM suite (VM only), each a real system
 * call from inside the sandbox, one line each:
 *   OP ARG RESULT        (RESULT: "ok", the errno name, or "exit=N")
 *
 * Files:   read P | write P | append P | trunc_open P | create P |
 *          truncate P | ftruncate P | unlink P | mkdir P | rmdir P |
 *          chmod P | chown P | utimes P | mkfifo P | mknod_sock P |
 *          mknod_dev P | rename A B | link A B | symlink T L |
 *          procfd P (open P with O_PATH, then read /proc/self/fd/N) |
 *          readdir P
 * Exec:    exec P [ARG] | execveat_memfd SRC | fexecve P (execveat of an
 *          O_PATH fd, AT_EMPTY_PATH) | mmap_exec P | mprotect_exec P |
 *          ldso LOADER P (run P through the dynamic loader)
 * Unix:    unix P | unix_abstract NAME | unixdgram P | listen P (bind,
 *          listen, accept in the background until killed) |
 *          listen_abstract NAME | dgram_bind P
 * Process: bpf | kill PID | ptrace PID | procmem PID | mount DIR (tmpfs) |
 *          unshare_user | cgroup_write FILE (write our pid) |
 *          clone_into_cgroup DIR | chroot DIR | sleep SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

extern char **environ;

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EXDEV: return "EXDEV";
	case EROFS: return "EROFS";
	case EEXIST: return "EEXIST";
	case ENOEXEC: return "ENOEXEC";
	case EISDIR: return "EISDIR";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case ENOTDIR: return "ENOTDIR";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	}
	return strerror(e);
}

static int rc(long r)
{
	return r < 0 ? errno : 0;
}

static int do_open_rw(const char *p, int flags)
{
	int fd = open(p, flags | O_CLOEXEC, 0644);
	char buf[64];

	if (fd < 0)
		return errno;
	if ((flags & O_ACCMODE) == O_RDONLY) {
		if (read(fd, buf, sizeof(buf)) < 0) {
			int e = errno;

			close(fd);
			return e;
		}
	} else if (write(fd, "x\n", 2) != 2) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int do_procfd(const char *p)
{
	char path[64];
	int fd = open(p, O_PATH | O_CLOEXEC), e;

	if (fd < 0)
		return errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	e = do_open_rw(path, O_RDONLY);
	close(fd);
	return e;
}

static int do_readdir(const char *p)
{
	DIR *d = opendir(p);

	if (!d)
		return errno;
	while (readdir(d))
		;
	closedir(d);
	return 0;
}

/* fork, exec file (fd >= 0: execveat(fd, "", AT_EMPTY_PATH)), wait;
 * the line names p. */
static void do_exec_file(const char *op, const char *p, const char *file, char *const *argv,
			 int fd)
{
	int pipefd[2], st = 0, e = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		printf("%s %s %s\n", op, p, err_name(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *const def[] = { (char *)p, NULL };

		if (fd >= 0)
			syscall(SYS_execveat, fd, "", argv ? argv : def, environ, AT_EMPTY_PATH);
		else
			execve(file, argv ? argv : def, environ);
		e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &e, sizeof(e)) != sizeof(e))
		e = pid < 0 ? errno : 0;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (e)
		printf("%s %s %s\n", op, p, err_name(e));
	else
		printf("%s %s exit=%d\n", op, p, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static void do_exec(const char *op, const char *p, char *const *argv, int fd)
{
	do_exec_file(op, p, p, argv, fd);
}

static int copy_to_memfd(const char *src)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), fd;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	fd = memfd_create("rf-lsm-exec", MFD_CLOEXEC);
	while (fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(in);
	return fd < 0 ? -errno : fd;
}

static int do_mmap_exec(const char *p, int mprot)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC), e = 0;
	void *m;

	if (fd < 0)
		return errno;
	m = mmap(NULL, 4096, mprot ? PROT_READ : PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		e = errno;
	else if (mprot && mprotect(m, 4096, PROT_READ | PROT_EXEC) < 0)
		e = errno;
	if (m != MAP_FAILED)
		munmap(m, 4096);
	close(fd);
	return e;
}

static socklen_t unix_addr(struct sockaddr_un *sa, const char *name, int abstract)
{
	size_t n = strlen(name);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (abstract) {
		if (n > sizeof(sa->sun_path) - 1)
			n = sizeof(sa->sun_path) - 1;
		memcpy(sa->sun_path + 1, name, n);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	}
	if (n > sizeof(sa->sun_path) - 1)
		n = sizeof(sa->sun_path) - 1;
	memcpy(sa->sun_path, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

static int do_unix(const char *name, int abstract, int type)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, name, abstract);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0), e = 0;

	if (fd < 0)
		return errno;
	if (type == SOCK_DGRAM) {
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, len) < 0)
			e = errno;
	} else if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		e = errno;
	}
	close(fd);
	return e;
}

/* Bind and serve in a child until killed; prints "listen NAME ok" once
 * the socket is bound. */
static int do_listen(const char *name, int abstract, int type)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, name, abstract);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	pid_t pid;

	if (fd < 0)
		return errno;
	if (!abstract)
		unlink(name);
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) < 0)) {
		int e = errno;

		close(fd);
		return e;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char buf[16];

		for (;;) {
			if (type == SOCK_STREAM) {
				int c = accept(fd, NULL, NULL);

				if (c >= 0)
					close(c);
			} else if (recv(fd, buf, sizeof(buf), 0) < 0) {
				pause();
			}
		}
	}
	close(fd);
	return pid < 0 ? errno : 0;
}

static int do_ptrace(pid_t pid)
{
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return errno;
	waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return 0;
}

/* Open another process's memory for writing (the write itself is not
 * attempted: the open is what the boundary refuses). */
static int do_procmem(const char *pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_cgroup_write(const char *file)
{
	char buf[32];
	int fd = open(file, O_WRONLY | O_CLOEXEC), n, e = 0;

	if (fd < 0)
		return errno;
	n = snprintf(buf, sizeof(buf), "%d\n", getpid());
	if (write(fd, buf, (size_t)n) != n)
		e = errno;
	close(fd);
	return e;
}

static int do_clone_into_cgroup(const char *dir)
{
	struct clone_args args;
	int cfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	long pid;

	if (cfd < 0)
		return errno;
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = (unsigned long)cfd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	close(cfd);
	if (pid < 0)
		return errno;
	waitpid((pid_t)pid, NULL, 0);
	return 0;
}

static int do_bpf(void)
{
	/* BPF_MAP_CREATE with an empty attr: EINVAL when allowed through. */
	char attr[128];

	memset(attr, 0, sizeof(attr));
	return rc(syscall(SYS_bpf, 0, attr, sizeof(attr)));
}

static int do_unshare_user(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) < 0 ? errno : 0);
	if (pid < 0)
		return errno;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

static int do_utimes(const char *p)
{
	return rc(utimes(p, NULL));
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Run through the dynamic loader, some loaders pass the program's
	 * own path as the first argument: skip it. */
	if (i < argc && argv[i][0] == '/')
		i++;
	while (i < argc) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "";
		const char *b = i + 2 < argc ? argv[i + 2] : NULL;
		int two = !strcmp(op, "rename") || !strcmp(op, "link") || !strcmp(op, "symlink") ||
			  !strcmp(op, "ldso");
		int none = !strcmp(op, "bpf") || !strcmp(op, "unshare_user");
		int e = 0;

		if ((!none && i + 1 >= argc) || (two && !b)) {
			fprintf(stderr, "rf-lsm: missing arguments for %s\n", op);
			return 2;
		}
		if (!strcmp(op, "read"))
			e = do_open_rw(a, O_RDONLY);
		else if (!strcmp(op, "write"))
			e = do_open_rw(a, O_WRONLY);
		else if (!strcmp(op, "append"))
			e = do_open_rw(a, O_WRONLY | O_APPEND);
		else if (!strcmp(op, "trunc_open"))
			e = rc(open(a, O_RDONLY | O_TRUNC | O_CLOEXEC));
		else if (!strcmp(op, "create"))
			e = do_open_rw(a, O_WRONLY | O_CREAT | O_EXCL);
		else if (!strcmp(op, "truncate"))
			e = rc(truncate(a, 0));
		else if (!strcmp(op, "ftruncate")) {
			int fd = open(a, O_RDONLY | O_CLOEXEC);

			e = fd < 0 ? errno : rc(syscall(SYS_ftruncate, fd, 0));
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(op, "unlink"))
			e = rc(unlink(a));
		else if (!strcmp(op, "mkdir"))
			e = rc(mkdir(a, 0755));
		else if (!strcmp(op, "rmdir"))
			e = rc(rmdir(a));
		else if (!strcmp(op, "chmod"))
			e = rc(chmod(a, 0600));
		else if (!strcmp(op, "chown"))
			e = rc(chown(a, 0, 0));
		else if (!strcmp(op, "utimes"))
			e = do_utimes(a);
		else if (!strcmp(op, "mkfifo"))
			e = rc(mkfifo(a, 0600));
		else if (!strcmp(op, "mknod_sock"))
			e = rc(mknod(a, S_IFSOCK | 0600, 0));
		else if (!strcmp(op, "mknod_dev"))
			e = rc(mknod(a, S_IFCHR | 0600, makedev(1, 3)));
		else if (!strcmp(op, "rename"))
			e = rc(rename(a, b));
		else if (!strcmp(op, "link"))
			e = rc(link(a, b));
		else if (!strcmp(op, "symlink"))
			e = rc(symlink(a, b));
		else if (!strcmp(op, "procfd"))
			e = do_procfd(a);
		else if (!strcmp(op, "readdir"))
			e = do_readdir(a);
		else if (!strcmp(op, "exec")) {
			do_exec(op, a, NULL, -1);
			i += 2;
			continue;
		} else if (!strcmp(op, "execveat_memfd")) {
			int fd = copy_to_memfd(a);

			if (fd < 0)
				printf("%s %s %s\n", op, a, err_name(-fd));
			else
				do_exec(op, a, NULL, fd);
			i += 2;
			continue;
		} else if (!strcmp(op, "fexecve")) {
			int fd = open(a, O_PATH | O_CLOEXEC);

			if (fd < 0)
				printf("%s %s %s\n", op, a, err_name(errno));
			else
				do_exec(op, a, NULL, fd);
			i += 2;
			continue;
		} else if (!strcmp(op, "ldso")) {
			char *const args[] = { (char *)a, (char *)b, NULL };

			do_exec_file(op, b, a, args, -1);
			i += 3;
			continue;
		} else if (!strcmp(op, "mmap_exec"))
			e = do_mmap_exec(a, 0);
		else if (!strcmp(op, "mprotect_exec"))
			e = do_mmap_exec(a, 1);
		else if (!strcmp(op, "unix"))
			e = do_unix(a, 0, SOCK_STREAM);
		else if (!strcmp(op, "unix_abstract"))
			e = do_unix(a, 1, SOCK_STREAM);
		else if (!strcmp(op, "unixdgram"))
			e = do_unix(a, 0, SOCK_DGRAM);
		else if (!strcmp(op, "unixdgram_abstract"))
			e = do_unix(a, 1, SOCK_DGRAM);
		else if (!strcmp(op, "listen"))
			e = do_listen(a, 0, SOCK_STREAM);
		else if (!strcmp(op, "listen_abstract"))
			e = do_listen(a, 1, SOCK_STREAM);
		else if (!strcmp(op, "dgram_bind"))
			e = do_listen(a, 0, SOCK_DGRAM);
		else if (!strcmp(op, "bpf"))
			e = do_bpf();
		else if (!strcmp(op, "kill"))
			e = rc(kill(atoi(a), SIGCONT));
		else if (!strcmp(op, "ptrace"))
			e = do_ptrace(atoi(a));
		else if (!strcmp(op, "procmem"))
			e = do_procmem(a);
		else if (!strcmp(op, "mount"))
			e = rc(mount("none", a, "tmpfs", 0, NULL));
		else if (!strcmp(op, "unshare_user"))
			e = do_unshare_user();
		else if (!strcmp(op, "cgroup_write"))
			e = do_cgroup_write(a);
		else if (!strcmp(op, "clone_into_cgroup"))
			e = do_clone_into_cgroup(a);
		else if (!strcmp(op, "chroot"))
			e = rc(chroot(a));
		else if (!strcmp(op, "sleep"))
			e = rc(sleep((unsigned)atoi(a)));
		else {
			fprintf(stderr, "rf-lsm: unknown operation %s\n", op);
			return 2;
		}
		if (two)
			printf("%s %s->%s %s\n", op, a, b, err_name(e));
		else if (none)
			printf("%s %s\n", op, err_name(e));
		else
			printf("%s %s %s\n", op, a, err_name(e));
		i += none ? 1 : two ? 3 : 2;
	}
	return 0;
}
