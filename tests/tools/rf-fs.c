// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-fs: file operations attempted for real inside a sandbox, one line each:
 *   OP TARGET RESULT      (RESULT: "ok" or the errno name; exec: "exit=N")
 * Operations: read P | write P | truncate P | mkdir P | unlink P | chmod P |
 *   rename A B | link A B | symlink TARGET LINK | exec P [ARG] (fork+execve,
 *   reports the errno of execve or the child's exit status) |
 *   execveat_memfd SRC (copy SRC into a memfd and execveat it)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
	}
	return strerror(e);
}

static int do_read(const char *p)
{
	char buf[64];
	int fd = open(p, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return errno;
	if (read(fd, buf, sizeof(buf)) < 0)
		rc = errno;
	close(fd);
	return rc;
}

static int do_write(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644), rc = 0;

	if (fd < 0)
		return errno;
	if (write(fd, "x\n", 2) < 0)
		rc = errno;
	close(fd);
	return rc;
}

/* Runs P; the result is the execve errno (sent back over a pipe) or the
 * exit status of what ran. */
static void do_exec(const char *op, const char *p, const char *arg, int memfd)
{
	char *argv[] = { (char *)p, (char *)arg, NULL };
	int pfd[2], st, e = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		printf("%s %s %s\n", op, p, err_name(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (memfd >= 0)
			syscall(SYS_execveat, memfd, "", argv, environ, AT_EMPTY_PATH);
		else
			execve(p, argv, environ);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, &st, 0);
		printf("%s %s %s\n", op, p, err_name(e));
	} else {
		waitpid(pid, &st, 0);
		printf("%s %s exit=%d\n", op, p, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	close(pfd[0]);
}

static int copy_to_memfd(const char *src)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), fd;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	fd = memfd_create("rf-fs-exec", MFD_CLOEXEC);
	while (fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(in);
	return fd;
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
		const char *b = i + 2 < argc ? argv[i + 2] : NULL;
		int two = !strcmp(op, "rename") || !strcmp(op, "link") || !strcmp(op, "symlink");
		int e = 0;

		if (!a || (two && !b)) {
			fprintf(stderr, "rf-fs: missing arguments\n");
			return 2;
		}
		if (!strcmp(op, "read"))
			e = do_read(a);
		else if (!strcmp(op, "write"))
			e = do_write(a);
		else if (!strcmp(op, "truncate"))
			e = truncate(a, 0) ? errno : 0;
		else if (!strcmp(op, "mkdir"))
			e = mkdir(a, 0755) ? errno : 0;
		else if (!strcmp(op, "unlink"))
			e = unlink(a) ? errno : 0;
		else if (!strcmp(op, "chmod"))
			e = chmod(a, 0600) ? errno : 0;
		else if (!strcmp(op, "rename"))
			e = rename(a, b) ? errno : 0;
		else if (!strcmp(op, "link"))
			e = link(a, b) ? errno : 0;
		else if (!strcmp(op, "symlink"))
			e = symlink(a, b) ? errno : 0;
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
		} else {
			fprintf(stderr, "rf-fs: unknown operation %s\n", op);
			return 2;
		}
		if (two)
			printf("%s %s->%s %s\n", op, a, b, err_name(e));
		else
			printf("%s %s %s\n", op, a, err_name(e));
		i += two ? 3 : 2;
	}
	return 0;
}
