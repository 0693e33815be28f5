/*
 * Host integration tests of the fallback backends (this host refuses
 * BPF-LSM): Landlock confines files and exec, seccomp the process
 * boundary and the syscalls policy. Every check is a process inside a
 * real sandbox attempting the operation and seeing the kernel's answer.
 */
#include "harness.h"

#include <sys/sendfile.h>

static char tree[64];            /* /tmp/rf-fb-XXXXXX */
static char policy_fs[8192];     /* the file/exec policy over the tree */

static void write_file(const char *rel, const char *text, mode_t mode)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	chmod(p, mode);
}

static void copy_file(const char *src, const char *rel)
{
	char p[256];
	struct stat st;
	int in = open(src, O_RDONLY), out;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	assert_true(in >= 0);
	assert_int_equal(fstat(in, &st), 0);
	out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(out >= 0);
	assert_int_equal(sendfile(out, in, NULL, (size_t)st.st_size), st.st_size);
	close(in);
	close(out);
}

static char *sub(const char *rel)
{
	static char buf[16][256];
	static int k;
	char *b = buf[k++ % 16];

	snprintf(b, 256, "%s/%s", tree, rel);
	return b;
}

static int setup(void **state)
{
	char d[256];

	(void)state;
	if (harness_require_root())
		return -1;
	snprintf(tree, sizeof(tree), "/tmp/rf-fb-XXXXXX");
	assert_non_null(mkdtemp(tree));
	chmod(tree, 0755);
	snprintf(d, sizeof(d), "%s/data", tree); mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/dataset", tree); mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/out", tree); mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/bin", tree); mkdir(d, 0755);
	write_file("data/a", "a\n", 0644);
	write_file("dataset/b", "b\n", 0644);
	write_file("out/f", "f\n", 0644);
	assert_int_equal(symlink("../dataset/b", sub("data/link")), 0);
	copy_file("/usr/bin/true", "bin/true");
	write_file("bin/script.sh", "#!/usr/bin/dash\nexit 0\n", 0755);
	/* /usr/lib/ for exec: the kernel maps ld.so with EXECUTE */
	snprintf(policy_fs, sizeof(policy_fs),
		 "{\"version\":1,\"id\":\"fb\","
		 "\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\",\"%s/data/\",\"%s/bin/\"],"
		 "\"write\":[\"%s/out/\"]},"
		 "\"exec\":[\"/usr/lib/\",\"%s\",\"%s/bin/\"],"
		 "\"network\":\"unrestricted\"}",
		 tree, tree, tree, h_tool("rf-fs"), tree);
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

static char *line(const char *fmt, const char *a, const char *b)
{
	static char buf[8][512];
	static int k;
	char *r = buf[k++ % 8];

	snprintf(r, 512, fmt, a, b);
	return r;
}

static void landlock_files_read_write_inside_outside(void **state)
{
	const char *argv[] = { h_tool("rf-fs"),
		"read", sub("data/a"), "read", sub("dataset/b"), "read", sub("data/link"),
		"read", sub("data/../dataset/b"), "read", "/root/.bashrc",
		"write", sub("out/new"), "write", sub("data/a"), "write", sub("dataset/new"),
		"truncate", sub("out/f"), "truncate", sub("data/a"),
		"mkdir", sub("out/d"), "mkdir", sub("data/d"), "unlink", sub("data/a"), NULL };
	char *out = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *file;

	(void)state;
	/* uid 0: the read-only tree, not DAC, refuses it the writes outside */
	assert_int_equal(h_run_with(policy_fs, tp, H_AS_ROOT, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, line("read %s", sub("data/a"), NULL)), "ok");
	assert_string_equal(h_result(out, line("read %s", sub("dataset/b"), NULL)), "EACCES");
	/* /data/ never authorises /dataset; a symlink or ".." does not either */
	assert_string_equal(h_result(out, line("read %s", sub("data/link"), NULL)), "EACCES");
	assert_string_equal(h_result(out, line("read %s", sub("data/../dataset/b"), NULL)), "EACCES");
	assert_string_equal(h_result(out, "read /root/.bashrc"), "EACCES");
	assert_string_equal(h_result(out, line("write %s", sub("out/new"), NULL)), "ok");
	assert_string_equal(h_result(out, line("write %s", sub("data/a"), NULL)), "EROFS");
	assert_string_equal(h_result(out, line("write %s", sub("dataset/new"), NULL)), "EROFS");
	assert_string_equal(h_result(out, line("truncate %s", sub("out/f"), NULL)), "ok");
	assert_string_equal(h_result(out, line("truncate %s", sub("data/a"), NULL)), "EROFS");
	assert_string_equal(h_result(out, line("mkdir %s", sub("out/d"), NULL)), "ok");
	assert_string_equal(h_result(out, line("mkdir %s", sub("data/d"), NULL)), "EROFS");
	assert_string_equal(h_result(out, line("unlink %s", sub("data/a"), NULL)), "EROFS");
	tr = h_trace(tp);
	file = json_object_get(json_object_get(h_event(tr, "sandbox.configure", 0), "classes"),
			       "file");
	assert_string_equal(json_string_value(json_object_get(file, "backend")), "landlock-abi7");
	assert_true(json_is_true(json_object_get(file, "enforced")));
	assert_true(json_is_true(json_object_get(file, "installed")));
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* Moving a denied file into the writable tree must not expose it. */
static void landlock_rename_and_link_across_the_boundary_fail(void **state)
{
	const char *argv[] = { h_tool("rf-fs"),
		"link", sub("dataset/b"), sub("out/b-link"),
		"rename", sub("dataset/b"), sub("out/b-moved"),
		"link", sub("data/a"), sub("out/a-link"), NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(policy_fs, NULL, argv, &out, NULL), 0);
	assert_string_not_equal(h_result(out, line("link %s->%s", sub("dataset/b"),
						    sub("out/b-link"))), "ok");
	assert_string_not_equal(h_result(out, line("rename %s->%s", sub("dataset/b"),
						    sub("out/b-moved"))), "ok");
	/* readable is not enough: a link would make it writable-by-path */
	assert_string_not_equal(h_result(out, line("link %s->%s", sub("data/a"),
						    sub("out/a-link"))), "ok");
	free(out);
}

static void landlock_exec_allowed_and_denied_interpreter(void **state)
{
	const char *argv[] = { h_tool("rf-fs"),
		"exec", sub("bin/true"), "exec", "/usr/bin/true",
		"exec", sub("bin/script.sh"), NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(policy_fs, NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, line("exec %s", sub("bin/true"), NULL)), "exit=0");
	assert_string_equal(h_result(out, "exec /usr/bin/true"), "EACCES");
	/* the script is allowed, its interpreter (/usr/bin/dash) is not */
	assert_string_equal(h_result(out, line("exec %s", sub("bin/script.sh"), NULL)), "EACCES");
	/* Not asserted here: a memfd has no path, and Landlock does not check
	 * kernel-internal mounts, so execveat of a memfd is NOT refused by
	 * this backend (README: where the backends differ; bpf-lsm refuses). */
	free(out);
}

/* The command itself is subject to exec: not listed -> 126 from exec. */
static void landlock_command_outside_exec_is_126(void **state)
{
	const char *argv[] = { "/usr/bin/true", NULL };
	char *err = NULL;

	(void)state;
	assert_int_equal(h_run(policy_fs, NULL, argv, NULL, &err), 126);
	assert_non_null(strstr(err, "cannot execute"));
	free(err);
}

/* The process boundary (seccomp + Landlock scoping), inside a sandbox. */
static void seccomp_process_boundary_inside_sandbox(void **state)
{
	static const char *const denied[] = {
		"bpf", "ptrace", "process_vm_readv", "mount", "umount2", "fsopen", "open_tree",
		"move_mount", "unshare_user", "unshare_net", "setns", "clone_newuser", "keyctl",
		"add_key", "request_key", "perf_event_open", "kexec_load", "init_module",
		"finit_module", "delete_module", "userfaultfd", "io_uring_setup",
		"personality32", "tiocsti", "tiocsti_hi", "kill_parent", NULL };
	const char *argv[40] = { h_tool("rf-sys") };
	char *out = NULL;
	int i, n = 1;

	(void)state;
	for (i = 0; denied[i]; i++)
		argv[n++] = denied[i];
	argv[n++] = "clone3";
	argv[n++] = "getpid";
	argv[n] = NULL;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"boundary\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}",
			       NULL, argv, &out, NULL), 0);
	for (i = 0; denied[i]; i++)
		if (strcmp(h_result(out, denied[i]), "EPERM"))
			fail_msg("%s: %s, expected EPERM", denied[i], h_result(out, denied[i]));
	/* clone3's flags are out of seccomp's reach: ENOSYS, libc uses clone */
	assert_string_equal(h_result(out, "clone3"), "ENOSYS");
	assert_string_equal(h_result(out, "getpid"), "ok");
	free(out);
}

/* No setuid or setgid file made in a write area (it would be root's on
 * the host): chmod, fchmod, open with O_CREAT or O_TMPFILE, mkdir and
 * mknod with S_ISUID/S_ISGID refused; each plain twin works; nothing of
 * the refused ones is left outside. */
static const char *suid_py =
	"import os, stat, sys, errno\n"
	"d = sys.argv[1]\n"
	"def t(name, f):\n"
	"    try:\n"
	"        f(); print(name, 'ok')\n"
	"    except OSError as e:\n"
	"        print(name, errno.errorcode[e.errno])\n"
	"open(d + '/f', 'w').close()\n"
	"t('chmod-suid', lambda: os.chmod(d + '/f', 0o4755))\n"
	"t('chmod-sgid', lambda: os.chmod(d + '/f', 0o2755))\n"
	"t('chmod-plain', lambda: os.chmod(d + '/f', 0o755))\n"
	"fd = os.open(d + '/f', os.O_RDONLY)\n"
	"t('fchmod-suid', lambda: os.fchmod(fd, 0o4711))\n"
	"t('open-suid', lambda: os.close(os.open(d + '/n', os.O_CREAT | os.O_WRONLY, 0o4755)))\n"
	"t('open-plain', lambda: os.close(os.open(d + '/p', os.O_CREAT | os.O_WRONLY, 0o755)))\n"
	"t('tmpfile-sgid', lambda: os.close(os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o2755)))\n"
	"t('tmpfile-plain', lambda: os.close(os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o755)))\n"
	"t('mkdir-sgid', lambda: os.mkdir(d + '/g', 0o2775))\n"
	"t('mkdir-plain', lambda: os.mkdir(d + '/g2', 0o775))\n"
	"t('mknod-suid', lambda: os.mknod(d + '/q', 0o4644 | stat.S_IFIFO))\n"
	"t('mknod-plain', lambda: os.mknod(d + '/q2', 0o644 | stat.S_IFIFO))\n";

static void no_setuid_file_in_a_write_area(void **state)
{
	static const char *const refused[] = { "chmod-suid", "chmod-sgid", "fchmod-suid",
		"open-suid", "tmpfile-sgid", "mkdir-sgid", "mknod-suid", NULL };
	static const char *const twins[] = { "chmod-plain", "open-plain", "tmpfile-plain",
		"mkdir-plain", "mknod-plain", NULL };
	char dir[600], pol[900], *out = NULL;
	const char *argv[] = { "/usr/bin/python3", "-c", suid_py, dir, NULL };
	struct stat st;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/out/suid", tree);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(pol, sizeof(pol), "{\"version\":1,\"id\":\"suid\",\"files\":{\"read\":[\"/\"],"
		 "\"write\":[\"%s/\"]},\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}",
		 dir);
	assert_int_equal(h_run(pol, NULL, argv, &out, NULL), 0);
	for (i = 0; refused[i]; i++)
		if (strcmp(h_result(out, refused[i]), "EPERM"))
			fail_msg("%s: %s, expected EPERM\n%s", refused[i],
				 h_result(out, refused[i]), out);
	for (i = 0; twins[i]; i++)
		if (strcmp(h_result(out, twins[i]), "ok"))
			fail_msg("%s: %s, expected ok\n%s", twins[i], h_result(out, twins[i]),
				 out);
	snprintf(pol, sizeof(pol), "%s/f", dir);
	assert_int_equal(stat(pol, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	snprintf(pol, sizeof(pol), "%s/n", dir);
	assert_int_equal(access(pol, F_OK), -1);
	snprintf(pol, sizeof(pol), "%s/g", dir);
	assert_int_equal(access(pol, F_OK), -1);
	free(out);
}

static void seccomp_syscalls_allowlist_lets_listed_through(void **state)
{
	const char *pol =
		"{\"version\":1,\"id\":\"sys\",\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
		"\"network\":\"unrestricted\",\"syscalls\":{\"allow\":[\"read\",\"write\",\"close\","
		"\"openat\",\"newfstatat\",\"fstat\",\"mmap\",\"mprotect\",\"munmap\",\"brk\","
		"\"arch_prctl\",\"set_tid_address\",\"set_robust_list\",\"rseq\",\"prlimit64\","
		"\"pread64\",\"access\",\"exit_group\",\"getrandom\",\"futex\",\"getpid\","
		"\"ioctl\"]}}";
	const char *argv[] = { h_tool("rf-sys"), "getpid", "uname", NULL };
	char *out = NULL, *err = NULL;

	(void)state;
	assert_int_equal(h_run(pol, NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "getpid"), "ok");
	assert_string_equal(h_result(out, "uname"), "EPERM");
	free(out);
	/* an unknown name is a policy error, before anything starts */
	assert_int_equal(h_run("{\"version\":1,\"id\":\"sys\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"syscalls\":{\"allow\":[\"read\","
			       "\"no_such_call\"]}}", NULL, argv, &out, &err), 125);
	assert_non_null(strstr(err, "$.syscalls.allow[1]"));
	assert_non_null(strstr(err, "no_such_call"));
	free(out);
	free(err);
}

/* Landlock needs existing paths: refused with the entry named, unless the
 * policy opts into the approximation, which the trace then shows. */
static void landlock_inexpressible_entry_refused_or_approximated(void **state)
{
	char pol[2048];
	const char *argv[] = { h_tool("rf-fs"), "read", sub("data/a"), NULL };
	char *out = NULL, *err = NULL, *tp = h_tempfile("trace", NULL);
	json_t *tr, *ap;

	(void)state;
	snprintf(pol, sizeof(pol),
		 "{\"version\":1,\"id\":\"inexact\",%%s\"files\":{\"read\":[\"/usr/lib/\",\"/etc/\","
		 "\"%s/data/\",\"%s/not-there/\"]},\"exec\":[\"/usr/lib/\",\"%s\"],"
		 "\"network\":\"unrestricted\"}", tree, tree, h_tool("rf-fs"));
	{
		char strict[2048], approx[2048];

		snprintf(strict, sizeof(strict), pol, "");
		snprintf(approx, sizeof(approx), pol, "\"approximate\":true,");
		assert_int_equal(h_run(strict, NULL, argv, &out, &err), 126);
		assert_non_null(strstr(err, "$.files.read[3]"));
		assert_non_null(strstr(err, "does not exist"));
		free(out);
		free(err);
		assert_int_equal(h_run(approx, tp, argv, &out, NULL), 0);
	}
	assert_string_equal(h_result(out, line("read %s", sub("data/a"), NULL)), "ok");
	tr = h_trace(tp);
	ap = json_object_get(json_object_get(h_event(tr, "sandbox.plan", 0), "plan"),
			     "approximations");
	assert_int_equal(json_array_size(ap), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ap, 0), "entry")),
			    "$.files.read[3]");
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* Audit must deny nothing: Landlock's file rules are left out (the
 * observe programs record; tests/host/test_run_observe.c checks what). */
static void audit_mode_with_landlock_classes_denies_nothing(void **state)
{
	const char *argv[] = { h_tool("rf-fs"), "read", sub("dataset/b"),
			       "write", sub("dataset/new"), NULL };
	char pol[8400], *out = NULL;

	(void)state;
	snprintf(pol, sizeof(pol), "{\"version\":1,\"mode\":\"audit\",%s",
		 strstr(policy_fs, "\"id\":"));
	assert_int_equal(h_run(pol, NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, line("read %s", sub("dataset/b"), NULL)), "ok");
	assert_string_equal(h_result(out, line("write %s", sub("dataset/new"), NULL)), "ok");
	unlink(sub("dataset/new"));
	free(out);
}

static void require_bpf_lsm_is_refused_here_landlock_accepted(void **state)
{
	const char *req_lsm[] = { "--require", "bpf-lsm", NULL };
	const char *req_ll[] = { "--require", "landlock", "--require", "seccomp", NULL };
	const char *argv[] = { h_tool("rf-fs"), "read", sub("data/a"), NULL };
	char *policy = h_tempfile("policy", policy_fs), *out = NULL, *err = NULL;

	(void)state;
	assert_int_equal(h_wait(h_spawn(policy, NULL, req_lsm, argv), &out, &err), 126);
	assert_non_null(strstr(err, "--require: bpf-lsm"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(h_wait(h_spawn(policy, NULL, req_ll, argv), &out, NULL), 0);
	assert_string_equal(h_result(out, line("read %s", sub("data/a"), NULL)), "ok");
	free(out);
	unlink(policy);
	free(policy);
}

/* --prefer landlock adds the TCP-port layer: it refuses an unlisted port
 * before the cgroup hook (EACCES); a listed port still connects. */
static void prefer_landlock_adds_tcp_port_layer(void **state)
{
	const char *pref[] = { "--prefer", "landlock", NULL };
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18280",
			       "tcp", "127.0.0.1", "18281", "udp", "127.0.0.1", "18281", NULL };
	char *policy = h_tempfile("policy", "{\"version\":1,\"id\":\"layer\","
				  "\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
				  "\"network\":{\"connect\":[\"127.0.0.1:18280\"]}}");
	char *out = NULL;
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", 18280, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", 18281, SOCK_STREAM);

	(void)state;
	assert_int_equal(h_wait(h_spawn(policy, NULL, pref, argv), &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18280"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18281"), "EACCES");
	/* UDP is not Landlock's: the cgroup program answers */
	assert_string_equal(h_result(out, "udp 127.0.0.1:18281"), "EPERM");
	free(out);
	close(l1);
	close(l2);
	unlink(policy);
	free(policy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(landlock_files_read_write_inside_outside),
		cmocka_unit_test(landlock_rename_and_link_across_the_boundary_fail),
		cmocka_unit_test(landlock_exec_allowed_and_denied_interpreter),
		cmocka_unit_test(landlock_command_outside_exec_is_126),
		cmocka_unit_test(seccomp_process_boundary_inside_sandbox),
		cmocka_unit_test(seccomp_syscalls_allowlist_lets_listed_through),
		cmocka_unit_test(no_setuid_file_in_a_write_area),
		cmocka_unit_test(landlock_inexpressible_entry_refused_or_approximated),
		cmocka_unit_test(audit_mode_with_landlock_classes_denies_nothing),
		cmocka_unit_test(require_bpf_lsm_is_refused_here_landlock_accepted),
		cmocka_unit_test(prefer_landlock_adds_tcp_port_layer),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, teardown);
}
