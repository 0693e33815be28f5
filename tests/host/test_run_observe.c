/*
 * Host tests of observe.bpf.c on this host (Landlock + seccomp, no
 * BPF-LSM): what Landlock and the seccomp boundary refuse reaches the
 * trace as kernel.deny with its backend and "attribution": "inferred";
 * the allowed twin of each operation leaves no such line; a refused unix
 * connect is the cgroup hooks' own record, with backend and path; audit
 * mode under Landlock denies nothing and traces what the policy would
 * refuse (a file read and a connect in one command);
 * processes outside every sandbox are never reported; the programs are
 * attached only while a supervisor is live, and a run that ends does not
 * take them from another run's live sandbox.
 */
#include "harness.h"

#include <sys/utsname.h>

#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <dirent.h>
#include <bpf/bpf.h>
#include "pins.h"

static char tree[64];            /* /tmp/rf-obs-XXXXXX */

static char *sub(const char *rel)
{
	static char buf[16][256];
	static int k;
	char *b = buf[k++ % 16];

	snprintf(b, 256, "%s/%s", tree, rel);
	return b;
}

static void write_file(const char *rel, const char *text, mode_t mode)
{
	int fd = open(sub(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(sub(rel), mode);
}

static void copy_file(const char *src, const char *rel)
{
	struct stat st;
	int in = open(src, O_RDONLY), out;

	assert_true(in >= 0);
	assert_int_equal(fstat(in, &st), 0);
	out = open(sub(rel), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(out >= 0);
	assert_int_equal(sendfile(out, in, NULL, (size_t)st.st_size), st.st_size);
	close(in);
	close(out);
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	snprintf(tree, sizeof(tree), "/tmp/rf-obs-XXXXXX");
	assert_non_null(mkdtemp(tree));
	chmod(tree, 0755);
	mkdir(sub("data"), 0755);
	mkdir(sub("secret"), 0755);
	mkdir(sub("out"), 0755);
	mkdir(sub("bin"), 0755);
	write_file("data/a", "a\n", 0644);
	write_file("secret/s", "s\n", 0644);
	copy_file("/usr/bin/true", "bin/true");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	if (tree[0] && system(cmd))
		return -1;
	return 0;
}

/* files: /usr/lib/, /etc/, data/ and bin/ readable, out/ writable;
 * exec: /usr/lib/ (ld.so), rf-fs, bin/. mode: "" or "\"mode\":\"audit\",". */
static void fs_policy(char *buf, size_t len, const char *mode)
{
	snprintf(buf, len,
		 "{\"version\":1,\"id\":\"obs\",%s"
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/data/\",\"%s/bin/\"],"
		 "\"write\":[\"%s/out/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"%s\",\"%s/bin/\"],"
		 "\"network\":\"unrestricted\"}",
		 mode, tree, tree, tree, h_tool("rf-fs"), tree);
}

/* rf-fs's answer to "OP PATH". */
static const char *res(const char *out, const char *op, const char *path)
{
	char key[320];

	snprintf(key, sizeof(key), "%s %s", op, path);
	return h_result(out, key);
}

/* Read a whole file (malloc'd). */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return h_read_all(fd);
}

/* h_run without the harness's -q, for the summary lines on stderr; output
 * to files, so no pipe can fill up while the test waits. */
static int run_v(const char *policy_json, const char *tp, const char *const *argv,
		 char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", policy_json), *op = h_tempfile("out", NULL);
	char *ep = h_tempfile("err", NULL);
	const char *args[64];
	int n = 0, i, st = 0;
	pid_t pid;

	args[n++] = h_ringfence();
	args[n++] = "run";
	args[n++] = "--policy";
	args[n++] = policy;
	args[n++] = "--trace";
	args[n++] = tp;
	args[n++] = "--";
	for (i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), o = open(op, O_WRONLY | O_TRUNC),
		    e = open(ep, O_WRONLY | O_TRUNC);

		dup2(in, 0);
		dup2(o, 1);
		dup2(e, 2);
		execv(args[0], (char *const *)args);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	*ret_out = slurp(op);
	*ret_err = slurp(ep);
	unlink(policy);
	unlink(op);
	unlink(ep);
	free(policy);
	free(op);
	free(ep);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *str(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* The kernel.deny line of class whose destination path is path, or NULL. */
static json_t *deny_for(json_t *tr, const char *class, const char *path)
{
	size_t i, n = h_count_events(tr, "kernel.deny");

	for (i = 0; i < n; i++) {
		json_t *d = h_event(tr, "kernel.deny", i);

		if (!strcmp(str(d, "class"), class) &&
		    !strcmp(str(json_object_get(d, "destination"), "path"), path))
			return d;
	}
	return NULL;
}

/* The process-class kernel.deny line of op, or NULL. */
static json_t *deny_op(json_t *tr, const char *op)
{
	size_t i, n = h_count_events(tr, "kernel.deny");

	for (i = 0; i < n; i++) {
		json_t *d = h_event(tr, "kernel.deny", i);

		if (!strcmp(str(d, "class"), "process") && !strcmp(str(d, "op"), op))
			return d;
	}
	return NULL;
}

static void assert_inferred(json_t *d, const char *backend, const char *verdict)
{
	assert_non_null(d);
	assert_string_equal(str(d, "attribution"), "inferred");
	assert_string_equal(str(d, "backend"), backend);
	assert_string_equal(str(d, "verdict"), verdict);
}

static json_int_t exit_int(json_t *tr, const char *obj, const char *key)
{
	json_t *ex = h_event(tr, "sandbox.exit", 0);

	return json_integer_value(json_object_get(obj ? json_object_get(ex, obj) : ex, key));
}

/* A denied read, a denied create and a denied exec (and their allowed
 * twins) under Landlock: inferred lines for the denied ones only. */
static void landlock_denials_are_traced_as_inferred(void **state)
{
	const char *argv[] = { h_tool("rf-fs"),
		"read", sub("secret/s"), "read", sub("data/a"),
		"write", sub("data/new"), "write", sub("out/new"),
		"exec", "/usr/bin/true", "exec", sub("bin/true"), NULL };
	char pol[4096], *out = NULL, *err = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *d, *file;

	(void)state;
	fs_policy(pol, sizeof(pol), "");
	assert_int_equal(run_v(pol, tp, argv, &out, &err), 0);
	/* the kernel's answers: Landlock refused, with EACCES; a write
	 * outside the write rules meets the read-only mount tree first */
	assert_string_equal(res(out, "read", sub("secret/s")), "EACCES");
	assert_string_equal(res(out, "read", sub("data/a")), "ok");
	assert_string_equal(res(out, "write", sub("data/new")), "EROFS");
	assert_string_equal(res(out, "write", sub("out/new")), "ok");
	assert_string_equal(res(out, "exec", "/usr/bin/true"), "EACCES");
	assert_string_equal(res(out, "exec", sub("bin/true")), "exit=0");
	tr = h_trace(tp);
	d = deny_for(tr, "file", sub("secret/s"));
	assert_inferred(d, "landlock-abi7", "denied");
	assert_string_equal(str(d, "op"), "open");
	assert_string_equal(str(d, "reason"), "no-rule");
	d = deny_for(tr, "file", sub("data/new"));
	assert_inferred(d, "landlock-abi7", "denied");
	assert_string_equal(str(d, "op"), "create");
	/* data/ is readable, not writable */
	assert_string_equal(str(d, "reason"), "access-not-allowed");
	d = deny_for(tr, "exec", "/usr/bin/true");
	assert_inferred(d, "landlock-abi7", "denied");
	assert_string_equal(str(json_object_get(d, "destination"), "syscall"), "execve");
	/* the allowed twins */
	assert_null(deny_for(tr, "file", sub("data/a")));
	assert_null(deny_for(tr, "file", sub("out/new")));
	assert_null(deny_for(tr, "exec", sub("bin/true")));
	/* exact counts stay the kernel's: Landlock counts nothing */
	assert_int_equal(exit_int(tr, "denials", "file"), 0);
	assert_int_equal(exit_int(tr, "denials", "exec"), 0);
	assert_int_equal(exit_int(tr, "denials_inferred", "file"), 2);
	assert_int_equal(exit_int(tr, "denials_inferred", "exec"), 1);
	assert_string_equal(str(json_object_get(h_event(tr, "sandbox.exit", 0),
						"denials_attribution"), "file"), "inferred");
	assert_string_equal(str(json_object_get(h_event(tr, "sandbox.exit", 0),
						"denials_attribution"), "network"), "exact");
	file = json_object_get(json_object_get(h_event(tr, "sandbox.configure", 0), "classes"),
			       "file");
	assert_string_equal(str(file, "observed"), "inferred");
	/* the summary keeps its line and adds the inferred counts */
	assert_non_null(strstr(err, "kernel denials: 0 (network 0, unix 0, file 0, exec 0, "
			       "process 0); inferred: file 2, exec 1\n"));
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
	free(err);
}

/* Allowed binary, refused interpreter: the line names the interpreter. */
static void landlock_exec_of_script_names_its_interpreter(void **state)
{
	const char *argv[] = { h_tool("rf-fs"), "exec", sub("bin/script.sh"), NULL };
	char pol[4096], *out = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr;

	(void)state;
	write_file("bin/script.sh", "#!/usr/bin/dash\nexit 0\n", 0755);
	fs_policy(pol, sizeof(pol), "");
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	assert_string_equal(res(out, "exec", sub("bin/script.sh")), "EACCES");
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "exec", "/usr/bin/dash"), "landlock-abi7", "denied");
	assert_null(deny_for(tr, "exec", sub("bin/script.sh")));
	json_decref(tr);
	unlink(sub("bin/script.sh"));
	unlink(tp);
	free(tp);
	free(out);
}

/* The command's own exec refused: its loader is not in exec. The trace
 * and the error name it (the "sh: cannot execute"). */
static void command_whose_loader_is_not_in_exec_names_the_loader(void **state)
{
	const char *argv[] = { sub("bin/true"), NULL };
	char pol[4096], loader[PATH_MAX], *out = NULL, *err = NULL;
	char *tp = h_tempfile("trace", NULL), want[PATH_MAX + 32];
	json_t *tr;

	(void)state;
	/* /lib64/ld-linux-x86-64.so.2, as the kernel resolves it */
	assert_non_null(realpath("/lib64/ld-linux-x86-64.so.2", loader));
	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"obs-ld\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/bin/\"]},"
		 "\"exec\":[\"%s/bin/\"],\"network\":\"unrestricted\"}", tree, tree);
	assert_int_equal(run_v(pol, tp, argv, &out, &err), 126);
	assert_non_null(strstr(err, "cannot execute: Permission denied"));
	snprintf(want, sizeof(want), "%s is not in exec", loader);
	assert_non_null(strstr(err, want));
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "exec", loader), "landlock-abi7", "denied");
	assert_string_equal(str(h_event(tr, "sandbox.exit", 0), "failed_stage"), "exec");
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
	free(err);
}

/* ptrace(PTRACE_ATTACH), bpf() and unshare(CLONE_NEWUSER) refused by the
 * seccomp boundary: one process-class line each; getpid none. */
static void seccomp_boundary_denials_are_traced_as_inferred(void **state)
{
	const char *argv[] = { h_tool("rf-sys"), "ptrace", "bpf", "unshare_user", "getpid", NULL };
	char *out = NULL, *err = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *d;

	(void)state;
	assert_int_equal(run_v("{\"version\":1,\"id\":\"boundary\",\"files\":\"unrestricted\","
			      "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}",
			      tp, argv, &out, &err), 0);
	assert_string_equal(h_result(out, "ptrace"), "EPERM");
	assert_string_equal(h_result(out, "bpf"), "EPERM");
	assert_string_equal(h_result(out, "unshare_user"), "EPERM");
	assert_string_equal(h_result(out, "getpid"), "ok");
	tr = h_trace(tp);
	d = deny_op(tr, "ptrace");
	assert_inferred(d, "seccomp", "denied");
	assert_string_equal(str(d, "reason"), "process-boundary");
	assert_string_equal(str(json_object_get(d, "destination"), "syscall"), "ptrace");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "destination"),
							    "request")), 16);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "destination"),
							    "target_pid")), 1);
	d = deny_op(tr, "bpf");
	assert_inferred(d, "seccomp", "denied");
	assert_string_equal(str(json_object_get(d, "destination"), "syscall"), "bpf");
	d = deny_op(tr, "userns_create");
	assert_inferred(d, "seccomp", "denied");
	assert_string_equal(str(json_object_get(d, "destination"), "syscall"), "unshare");
	/* exactly these three */
	assert_int_equal(h_count_events(tr, "kernel.deny"), 3);
	assert_int_equal(exit_int(tr, "denials", "process"), 0);
	assert_int_equal(exit_int(tr, "denials_inferred", "process"), 3);
	assert_non_null(strstr(err, "; inferred: process 3"));
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
	free(err);
}

/* Audit under Landlock: the read outside files.read succeeds and is
 * traced as audited; the read inside is not traced. */
static void audit_mode_under_landlock_records_without_denying(void **state)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("secret/s"), "read", sub("data/a"),
			       "write", "out/../secret/x", "exec", "/usr/bin/true", NULL };
	char pol[4096], cwd[512], *out = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *file;

	(void)state;
	fs_policy(pol, sizeof(pol), "\"mode\":\"audit\",");
	/* the command's cwd is ours: "out/../secret/x" is tree/secret/x,
	 * made absolute from its cwd even after it exited */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tree), 0);
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(res(out, "write", "out/../secret/x"), "ok");
	/* nothing denied: the read outside files.read works */
	assert_string_equal(res(out, "read", sub("secret/s")), "ok");
	assert_string_equal(res(out, "read", sub("data/a")), "ok");
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "file", sub("secret/s")), "landlock-abi7", "audited");
	assert_null(deny_for(tr, "file", sub("data/a")));
	assert_inferred(deny_for(tr, "file", sub("secret/x")), "landlock-abi7", "audited");
	/* an exec outside the list that succeeded: its name was read at
	 * sys_enter (attached for audit sandboxes only), before the exec
	 * replaced the memory it was in */
	assert_string_equal(res(out, "exec", "/usr/bin/true"), "exit=0");
	assert_inferred(deny_for(tr, "exec", "/usr/bin/true"), "landlock-abi7", "audited");
	unlink(sub("secret/x"));
	file = json_object_get(json_object_get(h_event(tr, "sandbox.configure", 0), "classes"),
			       "file");
	assert_string_equal(str(file, "observed"), "inferred-audit");
	assert_false(json_is_true(json_object_get(file, "enforced")));
	assert_true(exit_int(tr, NULL, "audited_inferred") >= 1);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* The network kernel.deny line to 127.0.0.1:port, or NULL. */
static json_t *deny_port(json_t *tr, int port)
{
	size_t i, n = h_count_events(tr, "kernel.deny");

	for (i = 0; i < n; i++) {
		json_t *d = h_event(tr, "kernel.deny", i), *dst = json_object_get(d, "destination");

		if (!strcmp(str(d, "class"), "network") &&
		    !strcmp(str(dst, "address"), "127.0.0.1") &&
		    json_integer_value(json_object_get(dst, "port")) == port)
			return d;
	}
	return NULL;
}

/* On this Landlock host, unix sockets are confined by the cgroup hooks:
 * a connect to a socket outside network.unix fails EPERM and is traced
 * with its backend and path, the kernel's own record (attribution
 * kernel); the allowed socket next to it connects. */
static void unix_connect_denial_traced_with_backend_and_path(void **state)
{
	char pol[4096], ok[128], no[128], key[160], *out = NULL, *tp = h_tempfile("trace", NULL);
	const char *argv[] = { h_tool("rf-net"), "unix", no, "unix", ok, NULL };
	int lo, ln;
	json_t *tr, *d;

	(void)state;
	snprintf(ok, sizeof(ok), "%s/out/ok.sock", tree);
	snprintf(no, sizeof(no), "%s/secret/no.sock", tree);
	lo = h_listen_unix(ok);
	ln = h_listen_unix(no);
	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"obs-unix\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\"],\"write\":[\"%s/out/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"%s\"],"
		 "\"network\":{\"connect\":[],\"unix\":[\"%s\"]}}",
		 tree, h_tool("rf-net"), ok);
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	snprintf(key, sizeof(key), "unix %s", no);
	assert_string_equal(h_result(out, key), "EPERM");
	snprintf(key, sizeof(key), "unix %s", ok);
	assert_string_equal(h_result(out, key), "ok");
	tr = h_trace(tp);
	d = deny_for(tr, "unix", no);
	assert_non_null(d);
	assert_string_equal(str(d, "backend"), "cgroup-sock-addr");
	assert_string_equal(str(d, "attribution"), "kernel");
	assert_string_equal(str(d, "verdict"), "denied");
	assert_null(deny_for(tr, "unix", ok));
	assert_int_equal(exit_int(tr, "denials", "unix"), 1);
	json_decref(tr);
	close(lo);
	close(ln);
	unlink(ok);
	unlink(no);
	unlink(tp);
	free(tp);
	free(out);
}

/* Audit mode on this Landlock host, one command: it reads a file outside
 * files.read and connects to a port outside network.connect, both work,
 * and both are traced as audited decisions (the file inferred from the
 * syscall, the connect the cgroup program's own record). */
static void audit_mode_file_and_port_both_audited(void **state)
{
	enum { PORT_OK = 18731, PORT_NO = 18732 };
	char pol[4096], cmd[1024], *out = NULL, *tp = h_tempfile("trace", NULL);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", PORT_OK, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", PORT_NO, SOCK_STREAM);
	json_t *tr;

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s read %s && %s tcp 127.0.0.1 %d tcp 127.0.0.1 %d",
		 h_sh(h_tool("rf-fs")), sub("secret/s"), h_sh(h_tool("rf-net")), PORT_NO, PORT_OK);
	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"obs-audit2\",\"mode\":\"audit\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/data/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"/usr/bin/\",\"%s\",\"%s\"],"
		 "\"network\":{\"connect\":[\"127.0.0.1:%d\"],\"unix\":\"unrestricted\"}}",
		 tree, h_tool("rf-fs"), h_tool("rf-net"), PORT_OK);
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	assert_string_equal(res(out, "read", sub("secret/s")), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18732"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18731"), "ok");
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "file", sub("secret/s")), "landlock-abi7", "audited");
	assert_non_null(deny_port(tr, PORT_NO));
	assert_string_equal(str(deny_port(tr, PORT_NO), "verdict"), "audited");
	assert_string_equal(str(deny_port(tr, PORT_NO), "backend"), "cgroup-sock-addr");
	assert_string_equal(str(deny_port(tr, PORT_NO), "attribution"), "kernel");
	assert_null(deny_port(tr, PORT_OK));
	json_decref(tr);
	close(l1);
	close(l2);
	unlink(tp);
	free(tp);
	free(out);
}

/* As nobody: refused by the kernel's own rules, outside any sandbox. */
static void outside_child(const char *secret)
{
	struct passwd *pw = getpwnam("nobody");

	if (!pw || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid))
		_exit(2);
	if (open(secret, O_RDONLY) >= 0 || errno != EACCES)
		_exit(3);
	if (unshare(CLONE_NEWNS) == 0 || errno != EPERM)
		_exit(4);
	if (ptrace(PTRACE_ATTACH, 1, 0, 0) == 0 || errno != EPERM)
		_exit(5);
	_exit(0);
}

/* EACCES and EPERM outside every sandbox while one is live: nothing. */
static void outside_sandbox_nothing_is_reported(void **state)
{
	const char *argv[] = { "/usr/bin/sleep", "1", NULL };
	char *tp = h_tempfile("trace", NULL), *policy = h_tempfile("policy",
		"{\"version\":1,\"id\":\"idle\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}");
	struct h_proc sb;
	int st;
	pid_t c;
	json_t *tr;

	(void)state;
	write_file("secret/root-only", "r\n", 0600);
	sb = h_spawn(policy, tp, NULL, argv);
	usleep(300000);
	c = fork();
	if (c == 0)
		outside_child(sub("secret/root-only"));
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(h_wait(sb, NULL, NULL), 0);
	tr = h_trace(tp);
	assert_int_equal(h_count_events(tr, "kernel.deny"), 0);
	assert_int_equal(exit_int(tr, NULL, "denials_inferred_total"), 0);
	json_decref(tr);
	unlink(tp);
	unlink(policy);
	free(tp);
	free(policy);
}

/* Pins of this build's set whose name starts with prefix. */
static int pins_with(const char *prefix)
{
	DIR *d = opendir(rf_pins__dir());
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* Raw tracepoint links on the host whose program is an rf_obs_ one,
 * pinned or not (what `bpftool link list` shows). */
static int obs_links_attached(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li;
		struct bpf_prog_info pi;
		__u32 ll = sizeof(li), pl = sizeof(pi);
		int lfd = bpf_link_get_fd_by_id(id), pfd = -1;

		memset(&li, 0, sizeof(li));
		memset(&pi, 0, sizeof(pi));
		if (lfd >= 0 && !bpf_obj_get_info_by_fd(lfd, &li, &ll) &&
		    li.type == BPF_LINK_TYPE_RAW_TRACEPOINT &&
		    (pfd = bpf_prog_get_fd_by_id(li.prog_id)) >= 0 &&
		    !bpf_obj_get_info_by_fd(pfd, &pi, &pl) && !strncmp(pi.name, "rf_obs_", 7))
			n++;
		if (pfd >= 0)
			close(pfd);
		if (lfd >= 0)
			close(lfd);
	}
	return n;
}

/* The ledger's unix byte programs (rf_obs_unix_sent, rf_obs_unix_received):
 * loaded where the kernel has their tracepoints (6.3+), attached for every
 * sandbox where it also has the cgroup unix hooks (6.7+). */
static int unix_byte_progs(bool attached)
{
	struct utsname un;
	int maj = 0, min = 0;

	uname(&un);
	sscanf(un.release, "%d.%d", &maj, &min);
	return maj > 6 || (maj == 6 && min >= (attached ? 7 : 3)) ? 2 : 0;
}

/* A denied read (and its allowed twin) in one run: its inferred line. */
static void run_denied_read(void)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("secret/s"), "read", sub("data/a"),
			       NULL };
	char pol[4096], *out = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr;

	fs_policy(pol, sizeof(pol), "");
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	assert_string_equal(res(out, "read", sub("secret/s")), "EACCES");
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "file", sub("secret/s")), "landlock-abi7", "denied");
	assert_null(deny_for(tr, "file", sub("data/a")));
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* No supervisor live after a run: the syscall tracepoints are detached
 * (they slow every task on the host); the programs stay pinned. */
static void observe_links_detached_when_no_sandbox_is_live(void **state)
{
	(void)state;
	run_denied_read();
	assert_int_equal(pins_with("obs_"), 0);
	assert_int_equal(obs_links_attached(), 0);
	/* rf_obs_enter, rf_obs_exit, rf_obs_exec and rf_obs_verdict (run
	 * on demand), and the unix byte programs */
	assert_int_equal(pins_with("obsprog_"), 4 + unix_byte_progs(false));
	/* and a later run attaches them again */
	run_denied_read();
	assert_int_equal(obs_links_attached(), 0);
}

/* Two overlapping runs: the first ends while the second's sandbox is
 * live (blocked reading a FIFO); the second still gets its kernel.deny,
 * and only its end detaches the programs. */
static void overlapping_run_keeps_observation(void **state)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("data/fifo"), "read",
			       sub("secret/s"), "read", sub("data/a"), NULL };
	char pol[4096], *pp, *out = NULL, *tp = h_tempfile("trace", NULL);
	struct h_proc second;
	int w = -1, i;
	json_t *tr;

	(void)state;
	unlink(sub("data/fifo"));
	assert_int_equal(mkfifo(sub("data/fifo"), 0644), 0);
	fs_policy(pol, sizeof(pol), "");
	pp = h_tempfile("policy", pol);
	second = h_spawn(pp, tp, NULL, argv);
	/* a writer opens only once the sandboxed reader has the FIFO open */
	for (i = 0; i < 500 && w < 0; i++) {
		w = open(sub("data/fifo"), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (w < 0)
			usleep(20000);
	}
	assert_true(w >= 0);
	/* rf_obs_exit and rf_obs_exec (rf_obs_enter: audit sandboxes only),
	 * the unix byte programs */
	assert_int_equal(obs_links_attached(), 2 + unix_byte_progs(true));
	run_denied_read();  /* the first run: starts and ends */
	assert_int_equal(pins_with("obs_"), 2 + unix_byte_progs(true));
	assert_int_equal(obs_links_attached(), 2 + unix_byte_progs(true));
	assert_int_equal(write(w, "x", 1), 1);
	close(w);
	assert_int_equal(h_wait(second, &out, NULL), 0);
	assert_string_equal(res(out, "read", sub("data/fifo")), "ok");
	assert_string_equal(res(out, "read", sub("secret/s")), "EACCES");
	tr = h_trace(tp);
	assert_inferred(deny_for(tr, "file", sub("secret/s")), "landlock-abi7", "denied");
	assert_null(deny_for(tr, "file", sub("data/a")));
	json_decref(tr);
	assert_int_equal(pins_with("obs_"), 0);
	assert_int_equal(obs_links_attached(), 0);
	unlink(sub("data/fifo"));
	unlink(tp);
	unlink(pp);
	free(tp);
	free(pp);
	free(out);
}

/* A supervisor killed while its sandbox is live: its reaper cleans up
 * after it and, no other supervisor being live, detaches the programs. */
static void killed_supervisor_leaves_nothing_attached(void **state)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("data/fifo"), NULL };
	char pol[4096], *pp;
	struct h_proc sb;
	int w = -1, i, st;

	(void)state;
	unlink(sub("data/fifo"));
	assert_int_equal(mkfifo(sub("data/fifo"), 0644), 0);
	fs_policy(pol, sizeof(pol), "");
	pp = h_tempfile("policy", pol);
	sb = h_spawn(pp, NULL, NULL, argv);
	for (i = 0; i < 500 && w < 0; i++) {
		w = open(sub("data/fifo"), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (w < 0)
			usleep(20000);
	}
	assert_true(w >= 0);
	assert_int_equal(obs_links_attached(), 2 + unix_byte_progs(true));
	assert_int_equal(kill(sb.pid, SIGKILL), 0);
	assert_int_equal(waitpid(sb.pid, &st, 0), sb.pid);
	close(sb.out_fd);
	close(sb.err_fd);
	/* the reaper re-executes the binary and cleans up the sandbox
	 * first: on a loaded host that takes seconds */
	for (i = 0; i < 1500 && (obs_links_attached() || pins_with("obs_")); i++)
		usleep(20000);
	assert_int_equal(pins_with("obs_"), 0);
	assert_int_equal(obs_links_attached(), 0);
	close(w);
	unlink(sub("data/fifo"));
	unlink(pp);
	free(pp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(landlock_denials_are_traced_as_inferred),
		cmocka_unit_test(landlock_exec_of_script_names_its_interpreter),
		cmocka_unit_test(command_whose_loader_is_not_in_exec_names_the_loader),
		cmocka_unit_test(seccomp_boundary_denials_are_traced_as_inferred),
		cmocka_unit_test(audit_mode_under_landlock_records_without_denying),
		cmocka_unit_test(unix_connect_denial_traced_with_backend_and_path),
		cmocka_unit_test(audit_mode_file_and_port_both_audited),
		cmocka_unit_test(outside_sandbox_nothing_is_reported),
		cmocka_unit_test(observe_links_detached_when_no_sandbox_is_live),
		cmocka_unit_test(overlapping_run_keeps_observation),
		cmocka_unit_test(killed_supervisor_leaves_nothing_attached),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
