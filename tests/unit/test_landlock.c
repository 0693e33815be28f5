/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unit tests: the Landlock backend. Builds rulesets from policies and checks
 * what a forked, restricted child can and cannot do. No privileges needed;
 * tests that need a newer ABI than the kernel's are skipped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "policy/policy.h"
#include "backends/sandbox_landlock.h"

#define HDR "{'version':1,'id':'t',"

/* The rights of each ABI (kernel UAPI values). */
#define FS_ABI1 ((1ULL << 13) - 1)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* Exit codes of the sandboxed child that are not an errno. */
#define CHILD_SETUP_FAILED 250

static char tree[PATH_MAX];   /* realpath of the temp tree */
static char shell[PATH_MAX];  /* realpath of /bin/sh: a script interpreter */
static int kernel_abi;

/* ---- fixture ---- */

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, r = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			r = -EIO;
			break;
		}
	if (n < 0)
		r = -errno;
	close(in);
	close(out);
	return r;
}

static char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static unsigned int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", tree, rel);
	return b;
}

static int group_setup(void **state)
{
	char tmpl[] = "/tmp/rf-landlock-XXXXXX";
	char script[PATH_MAX + 16];

	(void)state;
	kernel_abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* VERSION */);
	if (kernel_abi < 0)
		kernel_abi = 0;
	if (!mkdtemp(tmpl) || !realpath(tmpl, tree) || !realpath("/bin/sh", shell))
		return -1;
	if (mkdir(at("data"), 0755) || mkdir(at("dataset"), 0755) || mkdir(at("out"), 0755) ||
	    mkdir(at("bin"), 0755) || mkdir(at("noexec"), 0755))
		return -1;
	snprintf(script, sizeof(script), "#!%s\nexit 0\n", shell);
	if (write_file(at("data/a"), "a\n", 0644) || write_file(at("dataset/b"), "b\n", 0644) ||
	    write_file(at("out/keep"), "keep\n", 0644) ||
	    symlink("../dataset/b", at("data/link")) ||
	    copy_file("/bin/true", at("bin/true"), 0755) ||
	    copy_file("/bin/true", at("noexec/true"), 0755) ||
	    write_file(at("bin/script"), script, 0755))
		return -1;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_teardown(void **state)
{
	(void)state;
	if (tree[0])
		nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* ---- helpers ---- */

/* Policy text: ' becomes ", every @ the tree's path. */
static char *expand(const char *tmpl)
{
	size_t n = 1;
	char *out, *o;

	for (const char *p = tmpl; *p; p++)
		n += *p == '@' ? strlen(tree) : 1;
	out = malloc(n);
	assert_non_null(out);
	for (o = out; *tmpl; tmpl++) {
		if (*tmpl == '@') {
			o = stpcpy(o, tree);
			continue;
		}
		*o++ = *tmpl == '\'' ? '"' : *tmpl;
	}
	*o = '\0';
	return out;
}

static int build(const char *tmpl, const struct rf_landlock_opts *opts,
		 struct rf_landlock *ll, char *why, size_t why_len)
{
	struct rf_policy *p = NULL;
	struct rf_error err = { 0 };
	char *json = expand(tmpl);
	int r;

	r = policy__load_string(json, &p, &err);
	if (r < 0)
		print_error("policy: %s: %s\n", err.where, err.why);
	assert_int_equal(r, 0);
	free(json);
	/* rendered as the plan shows it: "where: why[; hint]" */
	err = (struct rf_error){ 0 };
	r = sandbox_landlock__build(p, opts, ll, &err);
	rf_error_str(&err, why, why_len);
	if (r < 0)
		assert_int_equal(err.err, r);
	policy__free(p);
	return r;
}

/* Build and expect success (the why is printed otherwise). */
static void build_ok(const char *tmpl, const struct rf_landlock_opts *opts, struct rf_landlock *ll)
{
	char why[512] = "";
	int r = build(tmpl, opts, ll, why, sizeof(why));

	if (r < 0)
		print_error("build: %s\n", why);
	assert_int_equal(r, 0);
	assert_true(ll->ruleset_fd >= 3);
}

enum op_kind {
	OP_READ,     /* open(a, O_RDONLY) */
	OP_CREATE,   /* open(a, O_WRONLY|O_CREAT) */
	OP_WRITE,    /* open(a, O_WRONLY) */
	OP_TRUNCATE, /* truncate(a, 0) */
	OP_LINK,     /* link(a, b) */
	OP_RENAME,   /* rename(a, b) */
	OP_EXEC,     /* execve(a): the program's exit status */
	OP_CONNECT,  /* TCP connect to 127.0.0.1:port */
	OP_KILL,     /* kill(pid, 0) */
	OP_ABSTRACT, /* connect to abstract unix socket a */
	OP_PARENT,   /* kill(getppid(), 0) */
};

struct op {
	enum op_kind kind;
	const char *a, *b;
	int port;
	pid_t pid;
};

/* In the child: 0 or the errno of the attempt. */
static int do_op(const struct op *op)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *argv[] = { (char *)op->a, NULL };
	char *envp[] = { NULL };
	int fd, r = 0;

	switch (op->kind) {
	case OP_READ:
	case OP_CREATE:
	case OP_WRITE:
		fd = open(op->a, op->kind == OP_READ ? O_RDONLY :
				 op->kind == OP_WRITE ? O_WRONLY : O_WRONLY | O_CREAT,
			  0644);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case OP_TRUNCATE:
		return truncate(op->a, 0) < 0 ? errno : 0;
	case OP_LINK:
		return link(op->a, op->b) < 0 ? errno : 0;
	case OP_RENAME:
		return rename(op->a, op->b) < 0 ? errno : 0;
	case OP_EXEC:
		execve(op->a, argv, envp);
		return errno;
	case OP_CONNECT:
	case OP_ABSTRACT:
		fd = socket(op->kind == OP_CONNECT ? AF_INET : AF_UNIX,
			    SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return errno;
		if (op->kind == OP_CONNECT) {
			sin.sin_port = htons(op->port);
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			r = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
		} else {
			memcpy(sun.sun_path + 1, op->a, strlen(op->a));
			r = connect(fd, (struct sockaddr *)&sun,
				    offsetof(struct sockaddr_un, sun_path) + 1 + strlen(op->a));
		}
		r = r < 0 ? errno : 0;
		close(fd);
		return r;
	case OP_KILL:
		return kill(op->pid, 0) < 0 ? errno : 0;
	case OP_PARENT:
		return kill(getppid(), 0) < 0 ? errno : 0;
	}
	return EINVAL;
}

/* Fork, restrict the child with the ruleset, run op; its result. */
static int sandboxed(const struct rf_landlock *ll, const struct op *op)
{
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    sandbox_landlock__restrict(ll->ruleset_fd) < 0)
			_exit(CHILD_SETUP_FAILED);
		_exit(do_op(op));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int run2(const struct rf_landlock *ll, enum op_kind kind, const char *a, const char *b)
{
	const struct op op = { .kind = kind, .a = a, .b = b };

	return sandboxed(ll, &op);
}

static int run_port(const struct rf_landlock *ll, int port)
{
	const struct op op = { .kind = OP_CONNECT, .port = port };

	return sandboxed(ll, &op);
}

static int run_pid(const struct rf_landlock *ll, pid_t pid)
{
	const struct op op = { .kind = OP_KILL, .pid = pid };

	return sandboxed(ll, &op);
}

#define RUN(ll, kind, a) run2((ll), (kind), (a), NULL)

#define NEED_ABI(n)                                                             \
	do {                                                                    \
		if (kernel_abi < (n)) {                                         \
			print_message("kernel Landlock ABI %d < %d\n", kernel_abi, (n)); \
			skip();                                                 \
		}                                                               \
	} while (0)

static struct rf_landlock_opts fs_opts(void)
{
	return (struct rf_landlock_opts){ .abi = kernel_abi, .fs = true };
}

static int tcp_listener(int *ret_port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*ret_port = ntohs(sin.sin_port);
	return fd;
}

/* ---- files ---- */

static const char *read_data = HDR "'files':{'read':['@/data/']}}";

static void test_files_read_allowed_file_ok(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_data, &o, &ll);
	assert_int_equal(RUN(&ll, OP_READ, at("data/a")), 0);
	assert_int_equal(RUN(&ll, OP_READ, at("data")), 0);
	sandbox_landlock__free(&ll);
}

static void test_files_read_outside_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_data, &o, &ll);
	assert_int_equal(RUN(&ll, OP_READ, at("out/keep")), EACCES);
	assert_int_equal(RUN(&ll, OP_READ, "/etc/passwd"), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_files_subtree_data_never_grants_dataset(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_data, &o, &ll);
	assert_int_equal(RUN(&ll, OP_READ, at("dataset/b")), EACCES);
	assert_int_equal(RUN(&ll, OP_READ, at("dataset")), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_files_symlink_inside_pointing_out_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_data, &o, &ll);
	assert_int_equal(RUN(&ll, OP_READ, at("data/link")), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_files_dotdot_escape_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_data, &o, &ll);
	assert_int_equal(RUN(&ll, OP_READ, at("data/../dataset/b")), EACCES);
	assert_int_equal(RUN(&ll, OP_READ, at("data/../data/a")), 0);
	sandbox_landlock__free(&ll);
}

static const char *read_write =
	HDR "'files':{'read':['@/data/'],'write':['@/out/','@/dataset/b']}}";

static void test_files_write_inside_subtree_ok_outside_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(read_write, &o, &ll);
	assert_int_equal(RUN(&ll, OP_CREATE, at("out/new")), 0);
	assert_int_equal(RUN(&ll, OP_WRITE, at("out/keep")), 0);
	assert_int_equal(RUN(&ll, OP_READ, at("out/keep")), 0);
	/* An exact write entry: the file, not its directory. */
	assert_int_equal(RUN(&ll, OP_WRITE, at("dataset/b")), 0);
	assert_int_equal(RUN(&ll, OP_CREATE, at("dataset/new")), EACCES);
	/* Readable is not writable. */
	assert_int_equal(RUN(&ll, OP_WRITE, at("data/a")), EACCES);
	assert_int_equal(RUN(&ll, OP_CREATE, at("data/new")), EACCES);
	assert_int_equal(RUN(&ll, OP_CREATE, at("new")), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_files_truncate_readable_file_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	assert_int_equal(write_file(at("out/trunc"), "x\n", 0644), 0);
	build_ok(read_write, &o, &ll);
	assert_int_equal(RUN(&ll, OP_TRUNCATE, at("data/a")), EACCES);
	assert_int_equal(RUN(&ll, OP_TRUNCATE, at("out/trunc")), 0);
	sandbox_landlock__free(&ll);
}

static void test_files_refer_from_outside_into_writable_denied(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	int r;

	(void)state;
	NEED_ABI(3);
	assert_int_equal(write_file(at("out/r1"), "r\n", 0644), 0);
	build_ok(read_write, &o, &ll);
	/* Source readable only: the hard link would need REFER there. */
	r = run2(&ll, OP_LINK, at("data/a"), at("out/linked"));
	assert_true(r == EXDEV || r == EACCES);
	assert_int_equal(r, EXDEV);
	/* A rename also removes from the source: EACCES beats EXDEV. */
	r = run2(&ll, OP_RENAME, at("data/a"), at("out/renamed"));
	assert_int_equal(r, EACCES);
	assert_int_equal(access(at("data/a"), F_OK), 0);
	/* Within the writable area both work. */
	assert_int_equal(run2(&ll, OP_RENAME, at("out/r1"), at("out/r2")), 0);
	assert_int_equal(mkdir(at("out/sub"), 0755), 0);
	assert_int_equal(run2(&ll, OP_LINK, at("out/r2"), at("out/sub/r3")), 0);
	sandbox_landlock__free(&ll);
}

/* ---- exec ---- */

/* ld.so and libc live under /usr/lib: exec grants EXECUTE + READ_FILE. */
static const char *exec_bin = HDR "'files':{'read':['@/noexec/']},'exec':['@/bin/','/usr/lib/']}";

static void test_exec_allowed_binary_runs(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(exec_bin, &o, &ll);
	assert_int_equal(RUN(&ll, OP_EXEC, at("bin/true")), 0);
	sandbox_landlock__free(&ll);
}

static void test_exec_outside_list_eacces(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(exec_bin, &o, &ll);
	/* Readable, not executable. */
	assert_int_equal(RUN(&ll, OP_READ, at("noexec/true")), 0);
	assert_int_equal(RUN(&ll, OP_EXEC, at("noexec/true")), EACCES);
	assert_int_equal(RUN(&ll, OP_EXEC, "/usr/bin/true"), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_exec_script_interpreter_not_in_exec_fails(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char tmpl[PATH_MAX + 128];

	(void)state;
	NEED_ABI(3);
	build_ok(exec_bin, &o, &ll);
	assert_int_equal(RUN(&ll, OP_EXEC, at("bin/script")), EACCES);
	sandbox_landlock__free(&ll);

	/* Control: the same script runs once its interpreter is listed. */
	snprintf(tmpl, sizeof(tmpl), HDR "'exec':['@/bin/','/usr/lib/','%s']}", shell);
	build_ok(tmpl, &o, &ll);
	assert_int_equal(RUN(&ll, OP_EXEC, at("bin/script")), 0);
	sandbox_landlock__free(&ll);
}

static void test_files_unrestricted_exec_confined(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(5);
	assert_int_equal(write_file(at("dataset/mv"), "m\n", 0644), 0);
	build_ok(HDR "'files':'unrestricted','exec':['@/bin/','/usr/lib/']}", &o, &ll);
	assert_int_equal(ll.handled_fs, FS_ABI1 | FS_REFER | FS_TRUNCATE | FS_IOCTL_DEV);
	assert_int_equal(RUN(&ll, OP_READ, at("dataset/b")), 0);
	assert_int_equal(RUN(&ll, OP_READ, "/etc/passwd"), 0);
	assert_int_equal(RUN(&ll, OP_CREATE, at("data/free")), 0);
	assert_int_equal(RUN(&ll, OP_TRUNCATE, at("data/free")), 0);
	/* REFER granted on "/": cross-directory renames still work. */
	assert_int_equal(run2(&ll, OP_RENAME, at("dataset/mv"), at("out/mv")), 0);
	assert_int_equal(RUN(&ll, OP_EXEC, at("bin/true")), 0);
	assert_int_equal(RUN(&ll, OP_EXEC, at("noexec/true")), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_exec_unrestricted_still_needs_readable_binary(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	build_ok(HDR "'files':{'read':['@/bin/','/usr/lib/']},'exec':'unrestricted'}", &o, &ll);
	assert_int_equal(RUN(&ll, OP_EXEC, at("bin/true")), 0);
	/* execve opens for reading: Landlock checks READ_FILE as well. */
	assert_int_equal(RUN(&ll, OP_EXEC, at("noexec/true")), EACCES);
	assert_int_equal(RUN(&ll, OP_READ, at("data/a")), EACCES);
	sandbox_landlock__free(&ll);
}

/* ---- network and scoping ---- */

static void test_net_connect_unlisted_port_eacces_listed_reaches(void **state)
{
	struct rf_landlock_opts o = { .abi = kernel_abi, .net_connect = true };
	struct rf_landlock ll;
	char tmpl[256];
	int l1, l2, p1, p2;

	(void)state;
	NEED_ABI(4);
	l1 = tcp_listener(&p1);
	l2 = tcp_listener(&p2);
	snprintf(tmpl, sizeof(tmpl), HDR "'network':{'connect':['127.0.0.1:%d']}}", p1);
	build_ok(tmpl, &o, &ll);
	assert_int_equal(ll.handled_fs, 0);
	assert_int_equal(ll.handled_net, NET_CONNECT_TCP);
	assert_int_equal(ll.n_net_rules, 1);
	assert_int_equal(run_port(&ll, p1), 0);
	assert_int_equal(run_port(&ll, p2), EACCES);
	sandbox_landlock__free(&ll);
	close(l1);
	close(l2);
}

static void test_scope_signal_outside_domain_eperm(void **state)
{
	struct rf_landlock_opts o = { .abi = kernel_abi, .scope_signal = true };
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(6);
	build_ok(HDR "'files':'unrestricted'}", &o, &ll);
	assert_int_equal(ll.scoped, SCOPE_SIGNAL);
	assert_int_equal(RUN(&ll, OP_PARENT, NULL), EPERM);
	assert_int_equal(run_pid(&ll, 1), EPERM);
	sandbox_landlock__free(&ll);
}

static void test_scope_abstract_unix_outside_eperm(void **state)
{
	struct rf_landlock_opts o = { .abi = kernel_abi, .scope_abstract_unix = true };
	struct rf_landlock_opts none = { .abi = kernel_abi, .scope_signal = true };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct rf_landlock ll;
	char name[64];
	int fd;

	(void)state;
	NEED_ABI(6);
	snprintf(name, sizeof(name), "rf-landlock-test-%d", (int)getpid());
	memcpy(sun.sun_path + 1, name, strlen(name));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun,
			      offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name)), 0);
	assert_int_equal(listen(fd, 8), 0);

	build_ok(HDR "'files':'unrestricted'}", &o, &ll);
	assert_int_equal(ll.scoped, SCOPE_ABSTRACT_UNIX);
	assert_int_equal(RUN(&ll, OP_ABSTRACT, name), EPERM);
	sandbox_landlock__free(&ll);

	/* Control: another scope leaves abstract sockets reachable. */
	build_ok(HDR "'files':'unrestricted'}", &none, &ll);
	assert_int_equal(RUN(&ll, OP_ABSTRACT, name), 0);
	sandbox_landlock__free(&ll);
	close(fd);
}

/* ---- plan: exactness and approximation ---- */

static void test_build_nonexistent_entry_einval_names_entry(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512], want[512];

	(void)state;
	NEED_ABI(3);
	assert_int_equal(build(HDR "'files':{'write':['@/out/','@/out/x']}}", &o, &ll, why,
			       sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want),
		 "$.files.write[1] \"%s/out/x\": does not exist; Landlock rules need paths "
		 "that exist when the sandbox starts (or set \"approximate\": true to drop it)",
		 tree);
	assert_string_equal(why, want);
	assert_int_equal(ll.ruleset_fd, -1);
	assert_null(ll.approx);
	sandbox_landlock__free(&ll);
}

static void test_build_approximate_drops_nonexistent_entry(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(3);
	o.approximate = true;
	build_ok(HDR "'files':{'write':['@/data/','@/out/x']}}", &o, &ll);
	assert_int_equal(ll.n_approx, 1);
	assert_string_equal(ll.approx[0].where, "$.files.write[1]");
	assert_string_equal(ll.approx[0].what,
			    "dropped: does not exist (Landlock needs existing paths)");
	assert_int_equal(ll.n_fs_rules, 1);
	/* Dropped means nothing granted: narrower, never broader. */
	assert_int_equal(RUN(&ll, OP_CREATE, at("out/x")), EACCES);
	assert_int_equal(RUN(&ll, OP_CREATE, at("data/w")), 0);
	sandbox_landlock__free(&ll);
}

static void test_build_symlink_entry_refused_or_dropped(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512], want[512];

	(void)state;
	NEED_ABI(3);
	assert_int_equal(build(HDR "'files':{'read':['@/data/link']}}", &o, &ll, why,
			       sizeof(why)), -EINVAL);
	snprintf(want, sizeof(want),
		 "$.files.read[0] \"%s/data/link\": is a symlink to \"%s/dataset/b\"; Landlock "
		 "confines the target: write \"%s/dataset/b\"", tree, tree, tree);
	assert_string_equal(why, want);

	o.approximate = true;
	build_ok(HDR "'files':{'read':['@/data/link']}}", &o, &ll);
	assert_int_equal(ll.n_approx, 1);
	assert_string_equal(ll.approx[0].where, "$.files.read[0]");
	assert_string_equal(ll.approx[0].what,
			    "dropped: is a symlink (Landlock would confine its target)");
	assert_int_equal(ll.n_fs_rules, 0);
	assert_int_equal(RUN(&ll, OP_READ, at("dataset/b")), EACCES);
	assert_int_equal(RUN(&ll, OP_READ, at("data/link")), EACCES);
	sandbox_landlock__free(&ll);
}

/* Every entry Landlock cannot take is reported at once, each with its class. */
static void test_build_every_inexact_entry_reported(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512];

	(void)state;
	NEED_ABI(3);
	assert_int_equal(build(HDR "'files':{'read':['@/data','@/dataset/','@/nope/']},"
			       "'exec':['@/data/link']}", &o, &ll, why, sizeof(why)), -EINVAL);
	assert_int_equal(ll.n_refusals, 3);
	assert_int_equal(ll.refusals[0].cls, RF_CLASS_FILE);
	assert_non_null(strstr(ll.refusals[0].text, "$.files.read[0] \""));
	assert_non_null(strstr(ll.refusals[1].text, "$.files.read[2] \""));
	assert_non_null(strstr(ll.refusals[1].text, "does not exist"));
	assert_int_equal(ll.refusals[2].cls, RF_CLASS_EXEC);
	assert_non_null(strstr(ll.refusals[2].text, "is a symlink to"));
	/* err (why) is the first. */
	assert_non_null(strstr(why, "$.files.read[0] \""));
	assert_int_equal(ll.refused_class, RF_CLASS_FILE);
	assert_int_equal(ll.ruleset_fd, -1);
}

/* A list long enough to be added by two threads (LL_PARALLEL_MIN) reports
 * its inexact entries in order, wherever they fall, and grants the rest. */
#define LONG_N 5000

static char *long_list(void)
{
	size_t len = 64 + LONG_N * 16, o;
	char *t = malloc(len);

	assert_non_null(t);
	o = (size_t)snprintf(t, len, HDR "'files':{'read':[");
	for (size_t i = 0; i < LONG_N; i++) {
		const char *e = i == 7 ? "@/nope" : i == 3000 ? "@/data" :
				i == LONG_N - 1 ? "@/data/link" : "@/data/a";

		o += (size_t)snprintf(t + o, len - o, "%s'%s'", i ? "," : "", e);
	}
	snprintf(t + o, len - o, "]}}");
	return t;
}

static void test_build_long_list_in_order(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512], *tmpl = long_list();

	(void)state;
	NEED_ABI(3);
	assert_int_equal(build(tmpl, &o, &ll, why, sizeof(why)), -EINVAL);
	assert_int_equal(ll.n_refusals, 3);
	assert_non_null(strstr(ll.refusals[0].text, "$.files.read[7] \""));
	assert_non_null(strstr(ll.refusals[0].text, "does not exist"));
	assert_non_null(strstr(ll.refusals[1].text, "$.files.read[3000] \""));
	assert_non_null(strstr(ll.refusals[1].text, "is a directory"));
	assert_non_null(strstr(ll.refusals[2].text, "$.files.read[4999] \""));
	assert_non_null(strstr(ll.refusals[2].text, "is a symlink to"));
	assert_non_null(strstr(why, "$.files.read[7] \""));

	o.approximate = true;
	build_ok(tmpl, &o, &ll);
	assert_int_equal(ll.n_approx, 3);
	assert_string_equal(ll.approx[0].where, "$.files.read[7]");
	assert_string_equal(ll.approx[1].where, "$.files.read[3000]");
	assert_string_equal(ll.approx[2].where, "$.files.read[4999]");
	assert_int_equal(ll.n_fs_rules, LONG_N - 3);
	assert_int_equal(RUN(&ll, OP_READ, at("data/a")), 0);
	assert_int_equal(RUN(&ll, OP_READ, at("dataset/b")), EACCES);
	sandbox_landlock__free(&ll);
	free(tmpl);
}

static void test_build_wrong_type_entries_refused_or_dropped(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512];

	(void)state;
	NEED_ABI(3);
	assert_int_equal(build(HDR "'files':{'read':['@/data']}}", &o, &ll, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "$.files.read[0] \""));
	assert_non_null(strstr(why, "/data\": is a directory;"));
	/* "/usr" for "/usr/": the fix is the '/', not dropping the entry. */
	assert_non_null(strstr(why, "/data/\""));
	assert_null(strstr(why, "approximate"));
	assert_int_equal(build(HDR "'exec':['@/bin/true/']}", &o, &ll, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "$.exec[0] \""));
	assert_non_null(strstr(why, "/bin/true/\": is not a directory;"));
	assert_non_null(strstr(why, "/bin/true\""));
	assert_null(strstr(why, "approximate"));

	o.approximate = true;
	build_ok(HDR "'files':{'read':['@/data','@/dataset/']},'exec':['@/bin/true/']}", &o, &ll);
	assert_int_equal(ll.n_approx, 2);
	assert_string_equal(ll.approx[0].where, "$.files.read[0]");
	assert_string_equal(ll.approx[0].what, "dropped: is a directory (exact entry)");
	assert_string_equal(ll.approx[1].where, "$.exec[0]");
	assert_string_equal(ll.approx[1].what, "dropped: is not a directory (subtree entry)");
	assert_int_equal(ll.n_fs_rules, 1);
	sandbox_landlock__free(&ll);
}

static void test_build_abi2_refuses_files_truncate_always(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512];

	(void)state;
	o.abi = 2;
	assert_int_equal(build(read_data, &o, &ll, why, sizeof(why)), -EOPNOTSUPP);
	assert_string_equal(why, "$.files: Landlock ABI 2 cannot confine truncate(); "
				 "files needs ABI 3+");
	o.approximate = true;
	assert_int_equal(build(HDR "'exec':['/usr/lib/']}", &o, &ll, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_int_equal(ll.ruleset_fd, -1);
	/* Files unrestricted: truncation is not confined anyway. */
	o.approximate = false;
	build_ok(HDR "'files':'unrestricted','exec':['/usr/lib/']}", &o, &ll);
	assert_int_equal(ll.handled_fs, FS_ABI1 | FS_REFER);
	assert_int_equal(ll.n_approx, 0);
	sandbox_landlock__free(&ll);
}

static void test_build_abi1_refer_needs_approximate(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	char why[512];
	const char *pol = HDR "'files':'unrestricted','exec':['@/bin/']}";

	(void)state;
	o.abi = 1;
	assert_int_equal(build(pol, &o, &ll, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "$.files: Landlock ABI 1 cannot allow renames"));
	o.approximate = true;
	build_ok(pol, &o, &ll);
	assert_int_equal(ll.handled_fs, FS_ABI1);
	assert_int_equal(ll.n_approx, 1);
	assert_string_equal(ll.approx[0].where, "$.files");
	assert_non_null(strstr(ll.approx[0].what, "EXDEV"));
	sandbox_landlock__free(&ll);
}

static void test_build_handled_rights_follow_abi(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(5);
	o.abi = 3;
	build_ok(read_data, &o, &ll);
	assert_int_equal(ll.handled_fs, FS_ABI1 | FS_REFER | FS_TRUNCATE);
	assert_int_equal(ll.abi, 3);
	sandbox_landlock__free(&ll);
	o.abi = kernel_abi;
	build_ok(read_data, &o, &ll);
	assert_int_equal(ll.handled_fs, FS_ABI1 | FS_REFER | FS_TRUNCATE | FS_IOCTL_DEV);
	/* DENY_ALL files and exec: handled, no rules. */
	sandbox_landlock__free(&ll);
	build_ok(HDR "'mode':'enforce'}", &o, &ll);
	assert_int_equal(ll.n_fs_rules, 0);
	assert_int_equal(RUN(&ll, OP_READ, "/etc/passwd"), EACCES);
	sandbox_landlock__free(&ll);
}

static void test_build_net_ports_deduplicated_deny_all_no_rules(void **state)
{
	struct rf_landlock_opts o = { .abi = kernel_abi, .net_connect = true };
	struct rf_landlock ll;

	(void)state;
	NEED_ABI(4);
	build_ok(HDR "'network':{'connect':['127.0.0.1:80','10.0.0.0/8:80-82',"
		     "'example.com:81','[::1]:443']}}", &o, &ll);
	assert_int_equal(ll.n_net_rules, 4);
	sandbox_landlock__free(&ll);

	build_ok(HDR "'files':'unrestricted'}", &o, &ll);
	assert_int_equal(ll.handled_net, NET_CONNECT_TCP);
	assert_int_equal(ll.n_net_rules, 0);
	sandbox_landlock__free(&ll);

	build_ok(HDR "'network':{'connect':[],'unix':[]}}", &o, &ll);
	assert_int_equal(ll.handled_net, NET_CONNECT_TCP);
	assert_int_equal(ll.n_net_rules, 0);
	sandbox_landlock__free(&ll);
}

static void test_build_nothing_handled_fd_minus_one(void **state)
{
	struct rf_landlock_opts o = { .abi = kernel_abi };
	struct rf_landlock ll;
	char why[64];

	(void)state;
	NEED_ABI(1);
	assert_int_equal(build(read_data, &o, &ll, why, sizeof(why)), 0);
	assert_int_equal(ll.ruleset_fd, -1);
	assert_int_equal(sandbox_landlock__restrict(ll.ruleset_fd), 0);
	sandbox_landlock__free(&ll);

	/* Unrestricted everywhere, or rights the ABI lacks: nothing to do. */
	o = (struct rf_landlock_opts){ .abi = 3, .fs = true, .net_connect = true,
				       .scope_signal = true };
	assert_int_equal(build(HDR "'files':'unrestricted','exec':'unrestricted',"
				   "'network':'unrestricted'}", &o, &ll, why, sizeof(why)), 0);
	assert_int_equal(ll.ruleset_fd, -1);
	assert_int_equal(ll.handled_fs | ll.handled_net | ll.scoped, 0);
	sandbox_landlock__free(&ll);

	o.abi = 0;
	assert_int_equal(build(read_data, &o, &ll, why, sizeof(why)), -EOPNOTSUPP);
	assert_int_equal(ll.ruleset_fd, -1);
}

static void test_free_zeroed_struct_keeps_fd0(void **state)
{
	struct rf_landlock ll;
	int before = fcntl(0, F_GETFD);

	(void)state;
	memset(&ll, 0, sizeof(ll));
	sandbox_landlock__free(&ll);
	assert_int_equal(ll.ruleset_fd, -1);
	sandbox_landlock__free(&ll);
	sandbox_landlock__free(NULL);
	assert_int_equal(fcntl(0, F_GETFD), before);
}

static void test_build_ruleset_fd_kept_off_stdio(void **state)
{
	struct rf_landlock_opts o = fs_opts();
	struct rf_landlock ll;
	int saved;

	(void)state;
	NEED_ABI(3);
	saved = fcntl(0, F_DUPFD_CLOEXEC, 3);
	assert_true(saved >= 0);
	close(0);
	build_ok(read_data, &o, &ll);
	assert_true(ll.ruleset_fd >= 3);
	assert_int_equal(fcntl(0, F_GETFD), -1);
	sandbox_landlock__free(&ll);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_read_allowed_file_ok),
		cmocka_unit_test(test_files_read_outside_eacces),
		cmocka_unit_test(test_files_subtree_data_never_grants_dataset),
		cmocka_unit_test(test_files_symlink_inside_pointing_out_eacces),
		cmocka_unit_test(test_files_dotdot_escape_eacces),
		cmocka_unit_test(test_files_write_inside_subtree_ok_outside_eacces),
		cmocka_unit_test(test_files_truncate_readable_file_eacces),
		cmocka_unit_test(test_files_refer_from_outside_into_writable_denied),
		cmocka_unit_test(test_exec_allowed_binary_runs),
		cmocka_unit_test(test_exec_outside_list_eacces),
		cmocka_unit_test(test_exec_script_interpreter_not_in_exec_fails),
		cmocka_unit_test(test_files_unrestricted_exec_confined),
		cmocka_unit_test(test_exec_unrestricted_still_needs_readable_binary),
		cmocka_unit_test(test_net_connect_unlisted_port_eacces_listed_reaches),
		cmocka_unit_test(test_scope_signal_outside_domain_eperm),
		cmocka_unit_test(test_scope_abstract_unix_outside_eperm),
		cmocka_unit_test(test_build_nonexistent_entry_einval_names_entry),
		cmocka_unit_test(test_build_approximate_drops_nonexistent_entry),
		cmocka_unit_test(test_build_symlink_entry_refused_or_dropped),
		cmocka_unit_test(test_build_every_inexact_entry_reported),
		cmocka_unit_test(test_build_long_list_in_order),
		cmocka_unit_test(test_build_wrong_type_entries_refused_or_dropped),
		cmocka_unit_test(test_build_abi2_refuses_files_truncate_always),
		cmocka_unit_test(test_build_abi1_refer_needs_approximate),
		cmocka_unit_test(test_build_handled_rights_follow_abi),
		cmocka_unit_test(test_build_net_ports_deduplicated_deny_all_no_rules),
		cmocka_unit_test(test_build_nothing_handled_fd_minus_one),
		cmocka_unit_test(test_free_zeroed_struct_keeps_fd0),
		cmocka_unit_test(test_build_ruleset_fd_kept_off_stdio),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
