// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-attack-fs: one file, metadata or exec attack per run, as an attacker
 * inside a sandbox would try it (tests/attack/fs.list lists them).
 *
 *   rf-attack-fs ATTEMPT ARGS...
 *
 * Exit status: 0 the attempt succeeded (the forbidden thing happened),
 * 10 the kernel refused it (EPERM, EACCES, EROFS; EXDEV for Landlock's link and
 * rename refusals), 3 not applicable here (EOPNOTSUPP: e.g. no user.*
 * xattrs on tmpfs before 6.6), anything else a setup error.
 * One line on stdout says what happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define EXIT_REFUSED 10
#define EXIT_SETUP 2
#define EXIT_NA 3       /* not on this kernel or filesystem */

extern char **environ;

/* The result of one syscall: 0 ok, or its errno. */
static int res(long rc)
{
	return rc < 0 ? errno : 0;
}

static int verdict(const char *what, int e)
{
	printf("%s: %s\n", what, e ? strerror(e) : "ok");
	if (!e)
		return 0;
	if (e == EOPNOTSUPP)
		return EXIT_NA;
	return e == EPERM || e == EACCES || e == EXDEV || e == EROFS ? EXIT_REFUSED : EXIT_SETUP;
}

static int open_or_die(const char *p, int flags)
{
	int fd = open(p, flags | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		/* Refused at open: the kernel stopped it before the attack. */
		printf("open %s: %s\n", p, strerror(e));
		exit(e == EPERM || e == EACCES ? EXIT_REFUSED : EXIT_SETUP);
	}
	return fd;
}

/* A POSIX ACL (system.posix_acl_access) of three entries, rwx for all:
 * the kernel folds it into the mode, 0777. */
static size_t acl_rwx(char *buf)
{
	struct { uint16_t tag, perm; uint32_t id; } e[3] = {
		{ 0x01, 7, 0xffffffff }, { 0x04, 7, 0xffffffff }, { 0x20, 7, 0xffffffff },
	};
	uint32_t version = 2;

	memcpy(buf, &version, 4);
	memcpy(buf + 4, e, sizeof(e));
	return 4 + sizeof(e);
}

static int acl_changed_mode(const char *p)
{
	struct stat st;

	/* The point of the attack: the mode changed without chmod. */
	if (stat(p, &st) || (st.st_mode & 0777) != 0777) {
		printf("the ACL did not change the mode of %s\n", p);
		return EXIT_SETUP;
	}
	return 0;
}

static int do_xattr(const char *op, const char *p, const char *name)
{
	char acl[64];
	size_t n = acl_rwx(acl);
	int rc, fd;

	if (!strcmp(op, "acl")) {
		rc = verdict("setxattr system.posix_acl_access",
			     res(setxattr(p, "system.posix_acl_access", acl, n, 0)));
		return rc ? rc : acl_changed_mode(p);
	}
	if (!strcmp(op, "acl-default"))
		return verdict("setxattr system.posix_acl_default",
			       res(setxattr(p, "system.posix_acl_default", acl, n, 0)));
	if (!strcmp(op, "facl-rdonly")) {
		fd = open_or_die(p, O_RDONLY);
		rc = verdict("fsetxattr system.posix_acl_access (read-only fd)",
			     res(fsetxattr(fd, "system.posix_acl_access", acl, n, 0)));
		return rc ? rc : acl_changed_mode(p);
	}
	if (!strcmp(op, "setxattr"))
		return verdict(name, res(setxattr(p, name, "x", 1, 0)));
	if (!strcmp(op, "fsetxattr-rdonly")) {
		fd = open_or_die(p, O_RDONLY);
		return verdict(name, res(fsetxattr(fd, name, "x", 1, 0)));
	}
	if (!strcmp(op, "removexattr"))
		return verdict(name, res(removexattr(p, name)));
	return -1;
}

static int do_meta(const char *op, const char *p)
{
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	int fd, flags;

	if (!strcmp(op, "chmod"))
		return verdict("chmod 0777", res(chmod(p, 0777)));
	if (!strcmp(op, "chown"))
		return verdict("chown -1:gid", res(chown(p, (uid_t)-1, getgid())));
	if (!strcmp(op, "utimes"))
		return verdict("utimensat epoch", res(utimensat(AT_FDCWD, p, ts, 0)));
	if (!strstr(op, "-rdonly"))
		return -1;
	fd = open_or_die(p, O_RDONLY);
	if (!strcmp(op, "fchmod-rdonly"))
		return verdict("fchmod 0777 (read-only fd)", res(fchmod(fd, 0777)));
	if (!strcmp(op, "fchown-rdonly"))
		return verdict("fchown -1:gid (read-only fd)", res(fchown(fd, (uid_t)-1, getgid())));
	if (!strcmp(op, "futimens-rdonly"))
		return verdict("futimens epoch (read-only fd)", res(futimens(fd, ts)));
	if (!strcmp(op, "setflags-rdonly")) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
			printf("FS_IOC_GETFLAGS: %s\n", strerror(errno));
			return EXIT_SETUP;
		}
		flags ^= FS_NODUMP_FL;
		return verdict("FS_IOC_SETFLAGS nodump (read-only fd)",
			       res(ioctl(fd, FS_IOC_SETFLAGS, &flags)));
	}
	if (!strcmp(op, "fssetxattr-rdonly")) {
		struct fsxattr fa;

		if (ioctl(fd, FS_IOC_FSGETXATTR, &fa)) {
			printf("FS_IOC_FSGETXATTR: %s\n", strerror(errno));
			return EXIT_SETUP;
		}
		fa.fsx_xflags ^= FS_XFLAG_NODUMP;
		return verdict("FS_IOC_FSSETXATTR nodump (read-only fd)",
			       res(ioctl(fd, FS_IOC_FSSETXATTR, &fa)));
	}
	return -1;
}

static int do_dir(const char *op, const char *p, const char *q)
{
	int rc;

	if (!strcmp(op, "rmdir"))
		return verdict("rmdir", res(rmdir(p)));
	if (!strcmp(op, "rename"))
		return verdict("rename", res(rename(p, q)));
	if (!strcmp(op, "plant")) {
		/* Replace the directory by a symlink under the same name. */
		rc = verdict("rmdir", res(rmdir(p)));
		return rc ? rc : verdict("symlink", res(symlink(q, p)));
	}
	if (!strcmp(op, "write"))
		return verdict("write", res(close(open_or_die(p, O_WRONLY | O_CREAT | O_TRUNC))));
	if (!strcmp(op, "read")) {
		/* The open is the attempt (a root-0600 file: DAC), the read its proof. */
		char c;
		int fd = open(p, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return verdict("open", errno);
		return verdict("read", read(fd, &c, 1) == 1 ? 0 : errno ? errno : EIO);
	}
	return -1;
}

/* Forks, runs argv (or the memfd) and returns its exit status; 0 = it ran. */
static int run_child(char **argv, int memfd)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return verdict("fork", errno);
	if (pid == 0) {
		if (memfd >= 0)
			syscall(SYS_execveat, memfd, "", argv, environ, AT_EMPTY_PATH);
		else
			execve(argv[0], argv, environ);
		printf("execve %s: %s\n", argv[0], strerror(errno));
		_exit(errno == EPERM || errno == EACCES ? EXIT_REFUSED : EXIT_SETUP);
	}
	if (waitpid(pid, &st, 0) < 0)
		return verdict("waitpid", errno);
	if (WIFSIGNALED(st)) {
		printf("the child was killed by signal %d\n", WTERMSIG(st));
		return WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGSYS ? EXIT_REFUSED : EXIT_SETUP;
	}
	/* ld.so says "cannot open/map": refused by the kernel. */
	if (WEXITSTATUS(st) == 127)
		return EXIT_REFUSED;
	return WEXITSTATUS(st);
}

static int memfd_copy(const char *src, unsigned int flags)
{
	int in = open_or_die(src, O_RDONLY), fd;
	char buf[65536];
	ssize_t n;

	fd = memfd_create("rf-attack", MFD_CLOEXEC | flags);
	/* Before 6.3 there is no MFD_NOEXEC_SEAL: a plain memfd is the twin. */
	if (fd < 0 && errno == EINVAL && (flags & MFD_NOEXEC_SEAL))
		fd = memfd_create("rf-attack", MFD_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		close(in);
		exit(verdict("memfd_create", e));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			exit(verdict("write memfd", errno));
	close(in);
	return fd;
}

static int map_exec(int fd, int how)
{
	void *m;

	if (how == 0) {
		m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		return verdict("mmap PROT_EXEC", m == MAP_FAILED ? errno : 0);
	}
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return verdict("mmap PROT_READ", errno);
	return verdict("mprotect PROT_EXEC", res(mprotect(m, 4096, PROT_READ | PROT_EXEC)));
}

/* Code from a readable file copied into anonymous executable memory and
 * called: no file is ever mapped executable. The file holds x86-64
 * "mov eax, 42; ret". */
/* Code copied into anonymous memory and called: mapped writable and
 * executable at once, or (flip) written first and made executable after
 * with mprotect, as a JIT does. */
static int anon_code(const char *p, bool flip)
{
#if defined(__x86_64__)
	unsigned char code[16];
	int fd = open_or_die(p, O_RDONLY), (*fn)(void);
	ssize_t n = read(fd, code, sizeof(code));
	void *m;

	if (n <= 0)
		return verdict("read", n < 0 ? errno : EIO);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | (flip ? 0 : PROT_EXEC),
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return verdict("mmap anonymous PROT_EXEC", errno);
	memcpy(m, code, (size_t)n);
	if (flip && mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return verdict("mprotect anonymous PROT_EXEC", errno);
	fn = (int (*)(void))m;
	return fn() == 42 ? verdict("called the copied code", 0) : EXIT_SETUP;
#else
	(void)p;
	(void)flip;
	printf("anon-code: x86-64 only\n");
	return EXIT_SETUP;
#endif
}

static int do_exec(const char *op, const char *p, const char *arg)
{
	char *argv[] = { (char *)p, (char *)"ok", (char *)"ran", NULL };
	int fd;

	if (!strcmp(op, "exec"))
		return run_child(argv, -1);
	if (!strcmp(op, "memfd-exec"))
		return run_child(argv, memfd_copy(p, 0));
	if (!strcmp(op, "memfd-exec-flag"))
		return run_child(argv, memfd_copy(p, MFD_EXEC));
	if (!strcmp(op, "memfd-mmap"))
		return map_exec(memfd_copy(p, 0), 0);
	if (!strcmp(op, "memfd-noexec")) {
		/* The allowed twin: a memfd that can never be executable. */
		fd = memfd_copy(p, MFD_NOEXEC_SEAL);
		return verdict("memfd_create MFD_NOEXEC_SEAL", fd < 0 ? errno : 0);
	}
	if (!strcmp(op, "mmap"))
		return map_exec(open_or_die(p, O_RDONLY), 0);
	if (!strcmp(op, "mprotect"))
		return map_exec(open_or_die(p, O_RDONLY), 1);
	if (!strcmp(op, "ldso")) {
		/* ld.so PROGRAM: ld.so is allowed, it maps PROGRAM itself. */
		char *lv[] = { (char *)p, (char *)arg, (char *)"ok", (char *)"ran", NULL };

		return run_child(lv, -1);
	}
	if (!strcmp(op, "anon-code"))
		return anon_code(p, false);
	if (!strcmp(op, "anon-code-mprotect"))
		return anon_code(p, true);
	return -1;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "", *a = argc > 2 ? argv[2] : NULL;
	const char *b = argc > 3 ? argv[3] : NULL;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* What the exec attempts run: proof that it ran. */
	if (!strcmp(op, "ok")) {
		printf("%s\n", a ? a : "ran");
		return 0;
	}
	if (!a) {
		fprintf(stderr, "usage: rf-attack-fs ATTEMPT PATH [ARG]\n");
		return EXIT_SETUP;
	}
	rc = do_xattr(op, a, b);
	if (rc < 0)
		rc = do_meta(op, a);
	if (rc < 0)
		rc = do_dir(op, a, b);
	if (rc < 0)
		rc = do_exec(op, a, b);
	if (rc < 0) {
		fprintf(stderr, "rf-attack-fs: unknown attempt %s\n", op);
		return EXIT_SETUP;
	}
	return rc;
}
