/*
 * Host tests of `ringfence learn`: a real audit run on this kernel, the
 * learned policy read back, checked, and enforced (a third port is
 * denied); --verify; --out written atomically; bad input refused with
 * one line and exit 125, leaving nothing behind.
 */
#include "harness.h"

#include <dirent.h>

#include "policy/policy.h"

#define P1 18411
#define P2 18412
#define P3 18413

static int setup(void **state)
{
	(void)state;
	return harness_require_root();
}

/* `ringfence learn ARGS...`, stdin /dev/null; status, stdout, stderr. */
static int learn(const char *const *args, char **ret_out, char **ret_err)
{
	const char *argv[64];
	int n = 0;

	argv[n++] = h_ringfence();
	argv[n++] = "learn";
	for (; *args && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return h_wait(h_start(argv, NULL, NULL), ret_out, ret_err);
}

static char *tempdir(void)
{
	char *d = strdup("/tmp/rf-test-learn-XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

/* Entries in a directory (. and .. aside). */
static int dir_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return h_read_all(fd);
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Lines of ringfence's own on stderr that start with "ringfence: ". */
static int rf_lines(const char *err)
{
	const char *p = err;
	int n = 0;

	while ((p = strstr(p, "ringfence: "))) {
		n += p == err || p[-1] == '\n';
		p++;
	}
	return n;
}

static const char *net_list(const json_t *pol, const char *key, size_t i)
{
	return json_string_value(json_array_get(json_object_get(json_object_get(pol, "network"),
								  key), i));
}

/* The learned policy passes `check`, in process and through the CLI. */
static void assert_checks(const char *path)
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };

	if (policy__load_file(path, &p, &e))
		fail_msg("learned policy invalid: %s: %s", e.where, e.why);
	assert_int_equal(p->mode, RF_MODE_ENFORCE);
	policy__free(p);
	h_assert_checks(path);
}

static void learns_exactly_two_endpoints_and_verifies(void **state)
{
	char *dir = tempdir(), out_path[256], p1[8], p2[8], p3[8], *out = NULL, *err = NULL;
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", P1, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", P2, SOCK_STREAM);
	const char *args[16];
	struct stat st;
	json_t *pol;
	int n = 0;

	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/learned.json", dir);
	snprintf(p1, sizeof(p1), "%d", P1);
	snprintf(p2, sizeof(p2), "%d", P2);
	snprintf(p3, sizeof(p3), "%d", P3);
	args[n++] = "--out";
	args[n++] = out_path;
	args[n++] = "--verify";
	args[n++] = "--";
	args[n++] = h_tool("rf-net");
	args[n++] = "tcp"; args[n++] = "127.0.0.1"; args[n++] = p1;
	args[n++] = "tcp"; args[n++] = "127.0.0.1"; args[n++] = p2;
	args[n++] = "tcp"; args[n++] = "127.0.0.1"; args[n++] = p1;  /* again: one entry */
	args[n] = NULL;
	assert_int_equal(learn(args, &out, &err), 0);
	/* both runs: audit (allowed), then verify (enforced, allowed) */
	assert_non_null(strstr(err, "learn --verify: 0 denials under the learned policy"));
	assert_null(strstr(err, "denied:"));
	/* files/exec learned here too (inferred from the syscalls under
	 * Landlock); the syscall set is not, and it says so */
	assert_null(strstr(err, "not learned here"));
	assert_non_null(strstr(err, "learn: syscalls: not learned"));
	free(out);
	free(err);

	assert_int_equal(stat(out_path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(dir_entries(dir), 1);  /* no temporary file left */
	pol = json_load_file(out_path, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(pol);
	assert_int_equal(json_array_size(json_object_get(json_object_get(pol, "network"),
							 "connect")), 2);
	assert_string_equal(net_list(pol, "connect", 0), "127.0.0.1:18411");
	assert_string_equal(net_list(pol, "connect", 1), "127.0.0.1:18412");
	assert_int_equal(json_array_size(json_object_get(json_object_get(pol, "network"), "unix")),
			 0);
	assert_null(json_object_get(pol, "mode"));
	{
		/* the binary and its ELF loader, which the kernel opens itself
		 * (a shared library: its directory, learn.h) */
		json_t *ex = json_object_get(pol, "exec"), *v;
		char real[PATH_MAX], ld[PATH_MAX];
		bool bin = false, loader = false;
		size_t i;

		assert_non_null(realpath(h_tool("rf-net"), real));
		assert_non_null(realpath("/lib64/ld-linux-x86-64.so.2", ld));
		json_array_foreach(ex, i, v) {
			const char *s = json_string_value(v);
			size_t n = strlen(s);

			bin |= !strcmp(s, real);
			loader |= !strcmp(s, ld) || (s[n - 1] == '/' && !strncmp(s, ld, n) &&
						     !strchr(ld + n, '/'));
		}
		assert_true(bin);
		assert_true(loader);
	}
	json_decref(pol);
	assert_checks(out_path);

	/* Enforced: the learned ports connect, a third port is denied. */
	{
		const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", p3,
				       "tcp", "127.0.0.1", p2, NULL };

		assert_int_equal(h_wait(h_spawn(out_path, NULL, NULL, argv), &out, NULL), 0);
		assert_string_equal(h_result(out, "tcp 127.0.0.1:18413"), "EPERM");
		assert_string_equal(h_result(out, "tcp 127.0.0.1:18412"), "ok");
		free(out);
	}
	close(l1);
	close(l2);
	unlink(out_path);
	rmdir(dir);
	free(dir);
}

/* Without --out the policy is stdout, alone: the command's output goes
 * to stderr. unix names are learned too. */
static void stdout_is_the_policy_alone(void **state)
{
	int lu = h_listen_unix("@rf-learn-test");
	const char *args[] = { "--", h_tool("rf-net"), "unix", "@rf-learn-test", NULL };
	char *out = NULL, *err = NULL;
	json_t *pol;

	(void)state;
	assert_int_equal(learn(args, &out, &err), 0);
	pol = json_loads(out, JSON_REJECT_DUPLICATES, NULL);
	if (!pol)
		fail_msg("stdout is not one JSON document:\n%s", out);
	assert_string_equal(net_list(pol, "unix", 0), "@rf-learn-test");
	assert_int_equal(json_array_size(json_object_get(json_object_get(pol, "network"), "unix")),
			 1);
	assert_non_null(strstr(err, "unix @rf-learn-test ok"));
	/* canonical layout: sorted keys, two-space indent ("env" first: the
	 * caller's environment, learn.md) */
	assert_int_equal(strncmp(out, "{\n  \"env\": ", 11), 0);
	json_decref(pol);
	free(out);
	free(err);
	close(lu);
}

/* A command that connects elsewhere the second time: --verify lists the
 * denial and fails. */
static void verify_reports_denials(void **state)
{
	char *dir = tempdir(), script[512], out_path[256], flag[256], *out = NULL, *err = NULL;
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", P1, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", P2, SOCK_STREAM);
	const char *args[] = { "--out", out_path, "--verify", "--", "/bin/sh", "-c", script, NULL };

	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/p.json", dir);
	snprintf(flag, sizeof(flag), "%s/second", dir);
	snprintf(script, sizeof(script),
		 "if [ -e %s ]; then exec %s tcp 127.0.0.1 %d; fi; : > %s; exec %s tcp 127.0.0.1 %d",
		 flag, h_sh(h_tool("rf-net")), P2, flag, h_sh(h_tool("rf-net")), P1);
	assert_int_equal(learn(args, &out, &err), 1);
	assert_non_null(strstr(err, "learn --verify: denied: network connect4 127.0.0.1:18412"));
	assert_non_null(strstr(err, "learn --verify: 1 denial under the learned policy"));
	/* the policy is written all the same, for a look */
	assert_checks(out_path);
	free(out);
	free(err);
	close(l1);
	close(l2);
	unlink(flag);
	unlink(out_path);
	rmdir(dir);
	free(dir);
}

/* --out is replaced whole or not at all: a policy error or a command
 * that never ran leaves the old file as it was, and no temporary file. */
static void out_is_atomic(void **state)
{
	char *dir = tempdir(), out_path[256], bad[256], *text, *err = NULL;
	const char *bad_args[] = { "--policy", bad, "--out", out_path, "--", "/bin/true", NULL };
	const char *missing[] = { "--out", out_path, "--", "/nonexistent/cmd", NULL };

	(void)state;
	snprintf(out_path, sizeof(out_path), "%s/p.json", dir);
	snprintf(bad, sizeof(bad), "%s/base.json", dir);
	spit(out_path, "OLD\n");
	spit(bad, "{\"version\":1,\"id\":\"x\",\"network\":{\"connect\":[\"127.0.0.1:0\"]}}");
	assert_int_equal(learn(bad_args, NULL, &err), 125);
	assert_non_null(strstr(err, "$.network.connect[0]"));
	assert_int_equal(rf_lines(err), 1);
	free(err);
	text = slurp(out_path);
	assert_string_equal(text, "OLD\n");
	free(text);

	assert_int_equal(learn(missing, NULL, &err), 127);
	assert_non_null(strstr(err, "command not found"));
	free(err);
	text = slurp(out_path);
	assert_string_equal(text, "OLD\n");
	free(text);
	assert_int_equal(dir_entries(dir), 2);  /* p.json and base.json only */
	unlink(out_path);
	unlink(bad);
	rmdir(dir);
	free(dir);
}

/* Bad input: one line, 125, nothing created. */
static void bad_input_is_125(void **state)
{
	char *dir = tempdir(), missing_out[256], *err = NULL;
	const char *no_cmd[] = { "--out", "/tmp/rf-test-learn-never.json", NULL };
	const char *no_base[] = { "--policy", "/nonexistent/base.json", "--", "/bin/true", NULL };
	const char *bad_out[] = { "--out", missing_out, "--", "/bin/true", NULL };
	const char *out_dir[] = { "--out", dir, "--", "/bin/true", NULL };
	const char *unknown[] = { "--trace", "/tmp/x", "--", "/bin/true", NULL };

	(void)state;
	snprintf(missing_out, sizeof(missing_out), "%s/no-such-dir/p.json", dir);
	assert_int_equal(learn(no_cmd, NULL, &err), 125);
	assert_non_null(strstr(err, "learn needs a command"));
	assert_int_equal(rf_lines(err), 1);
	free(err);
	assert_int_equal(access("/tmp/rf-test-learn-never.json", F_OK), -1);

	assert_int_equal(learn(no_base, NULL, &err), 125);
	assert_non_null(strstr(err, "/nonexistent/base.json"));
	assert_int_equal(rf_lines(err), 1);
	free(err);

	assert_int_equal(learn(bad_out, NULL, &err), 125);
	assert_non_null(strstr(err, "no-such-dir"));
	assert_int_equal(rf_lines(err), 1);
	free(err);

	assert_int_equal(learn(out_dir, NULL, &err), 125);
	assert_int_equal(rf_lines(err), 1);
	free(err);

	assert_int_equal(learn(unknown, NULL, &err), 125);
	assert_int_equal(rf_lines(err), 1);
	free(err);
	assert_int_equal(dir_entries(dir), 0);
	rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(learns_exactly_two_endpoints_and_verifies),
		cmocka_unit_test(stdout_is_the_policy_alone),
		cmocka_unit_test(verify_reports_denials),
		cmocka_unit_test(out_is_atomic),
		cmocka_unit_test(bad_input_is_125),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
