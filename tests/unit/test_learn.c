/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests of learn's pure part: trace events -> entries -> a policy,
 * and the directory rule (no kernel, no runs). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "learn/learn.h"
#include "policy/policy.h"

/* ---- helpers ---- */

static void add(struct rf_learn *l, const char *line)
{
	json_error_t jerr;
	json_t *ev = json_loads(line, 0, &jerr);

	if (!ev)
		fail_msg("bad test JSON: %s: %s", line, jerr.text);
	assert_int_equal(learn__add_event(l, ev), 0);
	json_decref(ev);
}

/* A kernel.deny line as trace.c writes it. */
static void deny(struct rf_learn *l, const char *verdict, const char *cls, const char *op,
		 const char *dst)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"event\":\"kernel.deny\",\"class\":\"%s\",\"op\":\"%s\","
		 "\"verdict\":\"%s\",\"reason\":\"no-rule\",\"pid\":1,\"destination\":%s}",
		 cls, op, verdict, dst);
	add(l, buf);
}

static void net(struct rf_learn *l, const char *fam, const char *addr, int port)
{
	char d[256];

	snprintf(d, sizeof(d), "{\"family\":\"%s\",\"address\":\"%s\",\"port\":%d,"
		 "\"protocol\":\"tcp\"}", fam, addr, port);
	deny(l, "audited", "network", fam[3] == '4' ? "connect4" : "connect6", d);
}

static void file(struct rf_learn *l, const char *cls, const char *path, const char *need)
{
	char d[512];

	snprintf(d, sizeof(d), "{\"path\":\"%s\",\"need\":%s,\"rule\":null}", path, need);
	deny(l, "audited", cls, "open", d);
}

/* Sorted keys of a set, comma-joined, for one-line comparisons. */
static char *keys(const json_t *set)
{
	static char buf[2048];
	const char *k[64];
	size_t n = 0, i, j;
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)set, key, v)
		k[n++] = key;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strcmp(k[j], k[i]) < 0) {
				const char *t = k[i];

				k[i] = k[j];
				k[j] = t;
			}
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		strcat(buf, i ? "," : "");
		strcat(buf, k[i]);
	}
	return buf;
}

static json_t *set_of(const char *const *paths)
{
	json_t *s = json_object();

	for (; *paths; paths++)
		json_object_set_new(s, *paths, json_true());
	return s;
}

/* What the fake file system says of a path. */
static enum rf_learn_kind fake_kind(const char *path)
{
	static const char *const dirs[] = { "/srv/in", "/srv/list", "/etc", NULL };
	static const char *const gone[] = { "/tmp/cc1.s", "/tmp/cc2.o", "/gone-at-top",
					    "/srv/out/tmp.1", NULL };
	int i;

	for (i = 0; dirs[i]; i++)
		if (!strcmp(path, dirs[i]))
			return RF_LEARN_DIR;
	for (i = 0; gone[i]; i++)
		if (!strcmp(path, gone[i]))
			return RF_LEARN_MISSING;
	return RF_LEARN_FILE;
}

static json_t *policy_json(const char *text)
{
	json_t *p = json_loads(text, JSON_REJECT_DUPLICATES, NULL);

	assert_non_null(p);
	return p;
}

/* The built policy passes the parser `check` uses. */
static void assert_valid(const json_t *p)
{
	char *text = learn__dump(p);
	struct rf_policy *pol = NULL;
	struct rf_error e = { 0 };

	assert_non_null(text);
	if (policy__load_string(text, &pol, &e))
		fail_msg("learned policy invalid: %s: %s\n%s", e.where, e.why, text);
	policy__free(pol);
	free(text);
}

static const char *list_str(const json_t *p, const char *key, const char *sub)
{
	static char buf[2048];
	const json_t *c = json_object_get(p, key), *v;
	size_t i;

	if (sub && json_is_object(c))
		c = json_object_get(c, sub);
	if (json_is_string(c))
		return json_string_value(c);
	if (!c)
		return "(absent)";
	buf[0] = 0;
	json_array_foreach(c, i, v) {
		strcat(buf, i ? "," : "");
		strcat(buf, json_string_value(v));
	}
	return buf;
}

#define ALL ((1u << RF_LEARN_LIST_MAX) - 1)
#define NET_ONLY (1u << RF_LEARN_CONNECT | 1u << RF_LEARN_UNIX)

/* ---- events -> entries ---- */

static void test_learn_network_exact_endpoints(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	net(&l, "ipv4", "127.0.0.1", 18301);
	net(&l, "ipv4", "127.0.0.1", 18302);
	net(&l, "ipv4", "127.0.0.1", 18301);  /* again: one entry */
	net(&l, "ipv6", "::1", 443);
	net(&l, "ipv4", "169.254.169.254", 80);  /* exact: allowed by its own entry */
	assert_string_equal(keys(l.set[RF_LEARN_CONNECT]),
			    "127.0.0.1:18301,127.0.0.1:18302,169.254.169.254:80,[::1]:443");
	assert_int_equal(l.learned, 5);
	assert_int_equal(json_object_size(l.notes), 0);
	learn__fini(&l);
}

static void test_learn_network_unlearnable_is_a_note(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	net(&l, "ipv4", "127.0.0.1", 0);  /* no entry names port 0 */
	deny(&l, "audited", "network", "sock_create",
	     "{\"family\":\"ipv4\",\"socket_type\":3,\"protocol\":\"icmp\"}");
	assert_int_equal(json_object_size(l.set[RF_LEARN_CONNECT]), 0);
	assert_int_equal(json_object_size(l.notes), 2);
	assert_non_null(strstr(keys(l.notes), "127.0.0.1:0"));
	assert_non_null(strstr(keys(l.notes), "sock_create"));
	learn__fini(&l);
}

static void test_learn_unix_paths_and_abstract(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	deny(&l, "audited", "unix", "connect_unix",
	     "{\"family\":\"unix\",\"path\":\"/run/a.sock\",\"socket_type\":\"stream\"}");
	deny(&l, "audited", "unix", "connect_unix",
	     "{\"family\":\"unix\",\"path\":\"@my-name\",\"socket_type\":\"stream\"}");
	deny(&l, "audited", "unix", "connect_unix",      /* relative: no entry can name it */
	     "{\"family\":\"unix\",\"path\":\"rel.sock\",\"socket_type\":\"stream\"}");
	deny(&l, "audited", "unix", "sendmsg_unix",       /* a space: not a valid @name */
	     "{\"family\":\"unix\",\"path\":\"@a b\",\"socket_type\":\"dgram\"}");
	assert_string_equal(keys(l.set[RF_LEARN_UNIX]), "/run/a.sock,@my-name");
	assert_int_equal(json_object_size(l.notes), 2);
	learn__fini(&l);
}

static void test_learn_files_and_exec_by_need(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	file(&l, "file", "/srv/a", "[\"read\"]");
	file(&l, "file", "/srv/b", "[\"read\",\"write\"]");
	file(&l, "file", "/srv/b", "[\"read\"]");
	file(&l, "exec", "/opt/rf-unit/bin/cat", "[\"exec\"]");  /* absent: no interpreter */
	file(&l, "exec", "/opt/rf-unit/lib/libc.so.6", "[\"exec\"]");
	file(&l, "file", "/", "[\"read\"]");           /* never "/" */
	/* 9A's inferred events: "attribution", and "access" as a string */
	add(&l, "{\"event\":\"kernel.deny\",\"class\":\"file\",\"op\":\"open\",\"verdict\":"
		"\"audited\",\"attribution\":\"inferred\",\"destination\":{\"path\":\"/srv/c\","
		"\"access\":\"write\"}}");
	assert_string_equal(keys(l.set[RF_LEARN_READ]), "/srv/a");
	assert_string_equal(keys(l.set[RF_LEARN_WRITE]), "/srv/b,/srv/c");
	assert_string_equal(keys(l.set[RF_LEARN_EXEC]), "/opt/rf-unit/bin/cat,/opt/rf-unit/lib/libc.so.6");
	assert_int_equal(json_object_size(l.notes), 1);
	assert_non_null(strstr(keys(l.notes), "of / itself"));
	learn__fini(&l);
}

static void test_learn_denied_and_process_are_not_entries(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	deny(&l, "denied", "network", "connect4",
	     "{\"family\":\"ipv4\",\"address\":\"127.0.0.1\",\"port\":9,\"protocol\":\"tcp\"}");
	deny(&l, "audited", "process", "ptrace", "{\"target_pid\":1,\"ptrace_mode\":2}");
	add(&l, "{\"event\":\"sandbox.plan\",\"plan\":{}}");
	assert_int_equal(json_object_size(l.set[RF_LEARN_CONNECT]), 0);
	assert_int_equal(l.denied, 1);
	assert_int_equal(l.learned, 0);
	assert_string_equal(json_string_value(json_array_get(l.denials, 0)),
			    "network connect4 127.0.0.1:9");
	assert_non_null(strstr(keys(l.notes), "process: ptrace"));
	learn__fini(&l);
}

static void test_learn_exit_event(void **state)
{
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	add(&l, "{\"event\":\"sandbox.exit\",\"status\":null,\"signal\":null,\"exit_code\":127,"
		"\"failed_stage\":\"exec\",\"error\":\"No such file or directory\"}");
	assert_false(l.ran);
	add(&l, "{\"event\":\"sandbox.exit\",\"status\":3,\"signal\":null,\"exit_code\":3,"
		"\"denials_not_in_trace\":7}");
	assert_true(l.ran);
	assert_int_equal(l.exit_code, 3);
	assert_int_equal(l.not_in_trace, 7);
	learn__fini(&l);
}

static void test_learn_trace_lines(void **state)
{
	static char good[] =
		"{\"event\":\"kernel.deny\",\"class\":\"network\",\"op\":\"connect4\",\"verdict\":"
		"\"audited\",\"destination\":{\"family\":\"ipv4\",\"address\":\"10.0.0.1\","
		"\"port\":53}}\n\n{\"event\":\"sandbox.exit\",\"exit_code\":0}\n";
	static char bad[] = "{\"event\":\"sandbox.exit\"}\nnot json\n";
	struct rf_learn l;
	FILE *f;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	f = fmemopen(good, strlen(good), "r");
	assert_int_equal(learn__add_trace(&l, f), 0);
	fclose(f);
	assert_string_equal(keys(l.set[RF_LEARN_CONNECT]), "10.0.0.1:53");
	assert_true(l.ran);
	f = fmemopen(bad, strlen(bad), "r");
	assert_int_equal(learn__add_trace(&l, f), -EBADMSG);
	fclose(f);
	learn__fini(&l);
}

/* ---- the directory rule ---- */

static void test_collapse_needs_four_siblings(void **state)
{
	static const char *const three[] = { "/srv/data/a", "/srv/data/b", "/srv/data/c", NULL };
	static const char *const four[] = { "/srv/data/a", "/srv/data/b", "/srv/data/c",
					    "/srv/data/d", "/srv/other", NULL };
	json_t *in, *out;

	(void)state;
	in = set_of(three);
	out = learn__collapse(in, NULL);
	assert_string_equal(keys(out), "/srv/data/a,/srv/data/b,/srv/data/c");
	json_decref(in);
	json_decref(out);

	in = set_of(four);
	out = learn__collapse(in, NULL);
	assert_string_equal(keys(out), "/srv/data/,/srv/other");
	json_decref(in);
	json_decref(out);
}

static void test_collapse_never_top_level_or_root(void **state)
{
	/* Four files in /etc stay four entries: /etc/ would allow /etc/shadow. */
	static const char *const etc[] = { "/etc/passwd", "/etc/group", "/etc/hosts",
					   "/etc/ld.so.cache", "/a", "/b", "/c", "/d", NULL };
	json_t *in = set_of(etc), *out = learn__collapse(in, NULL);

	(void)state;
	assert_string_equal(keys(out), "/a,/b,/c,/d,/etc/group,/etc/hosts,/etc/ld.so.cache,"
			    "/etc/passwd");
	json_decref(in);
	json_decref(out);
}

static void test_collapse_dirs_and_missing(void **state)
{
	/* A directory used itself is "dir/" (what Landlock takes); a file gone
	 * after the run is its directory; one in / stays exact; what a
	 * "dir/" covers goes. */
	static const char *const v[] = { "/srv/in", "/srv/in/x", "/tmp/cc1.s", "/tmp/cc2.o",
					 "/gone-at-top", "/srv/out/tmp.1", "/srv/out/keep", NULL };
	json_t *in = set_of(v), *out = learn__collapse(in, fake_kind);

	(void)state;
	assert_string_equal(keys(out), "/gone-at-top,/srv/in/,/srv/out/,/tmp/");
	json_decref(in);
	json_decref(out);
}

static void test_collapse_one_level_only(void **state)
{
	/* /a/b/c1..c4 collapse to /a/b/c/ ... but four such directories do
	 * not climb to /a/b/: a directory made by the rule is no sibling. */
	static const char *const v[] = {
		"/a/b/c/1", "/a/b/c/2", "/a/b/c/3", "/a/b/c/4",
		"/a/b/d/1", "/a/b/d/2", "/a/b/d/3", "/a/b/d/4",
		"/a/b/e/1", "/a/b/e/2", "/a/b/e/3", "/a/b/e/4",
		"/a/b/f/1", "/a/b/f/2", "/a/b/f/3", "/a/b/f/4", NULL,
	};
	json_t *in = set_of(v), *out = learn__collapse(in, NULL);

	(void)state;
	assert_string_equal(keys(out), "/a/b/c/,/a/b/d/,/a/b/e/,/a/b/f/");
	json_decref(in);
	json_decref(out);
}

/* ---- the policies ---- */

static void test_build_from_deny_all(void **state)
{
	json_t *base = policy_json("{\"version\":1,\"id\":\"learn\"}"), *p = NULL;
	struct rf_learn l;
	struct rf_error e = { 0 };
	int i;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	net(&l, "ipv4", "127.0.0.1", 18302);
	net(&l, "ipv4", "127.0.0.1", 18301);
	deny(&l, "audited", "unix", "connect_unix", "{\"family\":\"unix\",\"path\":\"@x\"}");
	for (i = 0; i < 5; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/srv/in/f%d", i);
		file(&l, "file", path, "[\"read\"]");
	}
	file(&l, "file", "/srv/in/f0", "[\"write\"]");  /* no longer a read entry */
	file(&l, "file", "/srv/out/r", "[\"write\"]");
	file(&l, "exec", "/opt/rf-unit/bin/dash", "[\"exec\"]");
	assert_int_equal(learn__build(&l, base, ALL, fake_kind, &p, &e), 0);
	assert_valid(p);
	assert_string_equal(list_str(p, "network", "connect"), "127.0.0.1:18301,127.0.0.1:18302");
	assert_string_equal(list_str(p, "network", "unix"), "@x");
	assert_string_equal(list_str(p, "files", "read"), "/srv/in/");
	assert_string_equal(list_str(p, "files", "write"), "/srv/in/f0,/srv/out/r");
	assert_string_equal(list_str(p, "exec", NULL), "/opt/rf-unit/bin/dash");
	assert_null(json_object_get(p, "mode"));
	json_decref(p);
	json_decref(base);
	learn__fini(&l);
}

static void test_build_keeps_base_and_unlearnable_classes(void **state)
{
	/* On a host without BPF-LSM only network and unix are learned:
	 * files/exec stay as BASE has them; every other key is kept. */
	json_t *base = policy_json(
		"{\"version\":1,\"id\":\"svc\",\"mode\":\"audit\",\"files\":{\"read\":[\"/usr/\"]},"
		"\"network\":{\"connect\":[\"10.0.0.1:443\"]},\"env\":{\"pass\":[\"PATH\"]},"
		"\"monitor\":{\"pids\":10},\"syscalls\":{\"allow\":[\"read\"],"
		"\"on_violation\":\"alert\"}}"), *p = NULL;
	struct rf_learn l;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	net(&l, "ipv4", "127.0.0.1", 80);
	file(&l, "file", "/srv/x", "[\"read\"]");  /* not learnable here: ignored */
	assert_int_equal(learn__build(&l, base, NET_ONLY, NULL, &p, &e), 0);
	assert_valid(p);
	assert_string_equal(list_str(p, "files", "read"), "/usr/");
	assert_string_equal(list_str(p, "exec", NULL), "unrestricted");
	assert_string_equal(list_str(p, "network", "connect"), "10.0.0.1:443,127.0.0.1:80");
	assert_string_equal(list_str(p, "network", "unix"), "");
	assert_string_equal(list_str(p, "env", "pass"), "PATH");
	assert_non_null(json_object_get(p, "monitor"));
	assert_non_null(json_object_get(p, "syscalls"));
	assert_string_equal(json_string_value(json_object_get(p, "id")), "svc");
	assert_null(json_object_get(p, "mode"));
	json_decref(p);
	json_decref(base);
	learn__fini(&l);
}

static void test_build_unrestricted_base_stays(void **state)
{
	json_t *base = policy_json("{\"version\":1,\"id\":\"u\",\"network\":\"unrestricted\","
				   "\"files\":\"unrestricted\",\"exec\":\"unrestricted\"}"),
	       *p = NULL;
	struct rf_learn l;
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
	assert_valid(p);
	assert_string_equal(json_string_value(json_object_get(p, "network")), "unrestricted");
	assert_string_equal(json_string_value(json_object_get(p, "files")), "unrestricted");
	json_decref(p);
	json_decref(base);
	learn__fini(&l);
}

static void test_audit_policy(void **state)
{
	json_t *base = policy_json(
		"{\"version\":1,\"id\":\"b\",\"files\":{\"read\":[\"/usr/\"]},"
		"\"exec\":[\"/usr/bin/\"],\"syscalls\":{\"allow\":[\"read\"]}}"), *a;
	char *text;
	struct rf_policy *pol = NULL;
	struct rf_error e = { 0 };

	(void)state;
	a = learn__audit_policy(base, NET_ONLY);
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "mode")), "audit");
	assert_null(json_object_get(a, "syscalls"));  /* "deny": refused in audit mode */
	assert_string_equal(json_string_value(json_object_get(a, "files")), "unrestricted");
	assert_string_equal(json_string_value(json_object_get(a, "exec")), "unrestricted");
	assert_null(json_object_get(a, "network"));   /* deny-all: recorded */
	text = learn__dump(a);
	assert_int_equal(policy__load_string(text, &pol, &e), 0);
	assert_int_equal(pol->mode, RF_MODE_AUDIT);
	policy__free(pol);
	free(text);
	json_decref(a);

	/* Everything learnable: BASE's lists stay; an unlearnable unix list
	 * alone becomes "unrestricted" next to connect. */
	a = learn__audit_policy(base, ALL & ~(1u << RF_LEARN_UNIX));
	assert_string_equal(list_str(a, "files", "read"), "/usr/");
	assert_string_equal(list_str(a, "network", "unix"), "unrestricted");
	assert_string_equal(list_str(a, "network", "connect"), "(absent)");
	json_decref(a);
	json_decref(base);
}

static void test_dump_is_canonical(void **state)
{
	json_t *p = policy_json("{\"version\":1,\"id\":\"x\",\"exec\":[\"/a\"]}");
	char *text = learn__dump(p);

	(void)state;
	assert_string_equal(text, "{\n  \"exec\": [\n    \"/a\"\n  ],\n  \"id\": \"x\",\n"
				  "  \"version\": 1\n}\n");
	free(text);
	json_decref(p);
}

/* An executable's #! interpreter (each level, as the kernel resolves it)
 * is learned with it: execve opens it without a syscall of the command's. */
static void test_learn_exec_adds_interpreter(void **state)
{
	char dir[] = "/tmp/rf-learn-XXXXXX", script[64], inner[64], real_sh[4096], want[8192];
	struct rf_learn l;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(inner, sizeof(inner), "%s/inner", dir);
	snprintf(script, sizeof(script), "%s/outer", dir);
	f = fopen(inner, "w");
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	f = fopen(script, "w");
	fprintf(f, "#! %s -x\n", inner);
	fclose(f);
	assert_non_null(realpath("/bin/sh", real_sh));
	assert_int_equal(learn__init(&l), 0);
	file(&l, "exec", script, "[\"exec\"]");
	/* outer -> inner -> /bin/sh's real path (dash) -> its ELF loader */
	assert_non_null(json_object_get(l.set[RF_LEARN_EXEC], script));
	assert_non_null(json_object_get(l.set[RF_LEARN_EXEC], inner));
	assert_non_null(json_object_get(l.set[RF_LEARN_EXEC], real_sh));
	assert_null(json_object_get(l.set[RF_LEARN_EXEC], "/bin/sh"));  /* a symlink here */
	snprintf(want, sizeof(want), "%s", keys(l.set[RF_LEARN_EXEC]));
	assert_non_null(strstr(want, "ld-linux"));
	learn__fini(&l);
	unlink(script);
	unlink(inner);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learn_network_exact_endpoints),
		cmocka_unit_test(test_learn_network_unlearnable_is_a_note),
		cmocka_unit_test(test_learn_unix_paths_and_abstract),
		cmocka_unit_test(test_learn_files_and_exec_by_need),
		cmocka_unit_test(test_learn_exec_adds_interpreter),
		cmocka_unit_test(test_learn_denied_and_process_are_not_entries),
		cmocka_unit_test(test_learn_exit_event),
		cmocka_unit_test(test_learn_trace_lines),
		cmocka_unit_test(test_collapse_needs_four_siblings),
		cmocka_unit_test(test_collapse_never_top_level_or_root),
		cmocka_unit_test(test_collapse_dirs_and_missing),
		cmocka_unit_test(test_collapse_one_level_only),
		cmocka_unit_test(test_build_from_deny_all),
		cmocka_unit_test(test_build_keeps_base_and_unlearnable_classes),
		cmocka_unit_test(test_build_unrestricted_base_stays),
		cmocka_unit_test(test_audit_policy),
		cmocka_unit_test(test_dump_is_canonical),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
