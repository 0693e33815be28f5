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
	/* a socket at an allowed unix name: no files.write entry allows it */
	add(&l, "{\"event\":\"kernel.deny\",\"class\":\"file\",\"op\":\"mknod\","
		"\"verdict\":\"audited\",\"reason\":\"allowed-unix-name\",\"pid\":1,"
		"\"destination\":{\"path\":\"/run/x.sock\",\"need\":[\"write\"],\"rule\":null}}");
	assert_int_equal(json_object_size(l.set[RF_LEARN_WRITE]), 0);
	assert_int_equal(l.learned, 0);
	assert_non_null(strstr(keys(l.notes), "file: mknod at an allowed"));
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
	out = learn__collapse(in, NULL, false);
	assert_string_equal(keys(out), "/srv/data/a,/srv/data/b,/srv/data/c");
	json_decref(in);
	json_decref(out);

	in = set_of(four);
	out = learn__collapse(in, NULL, false);
	assert_string_equal(keys(out), "/srv/data/,/srv/other");
	json_decref(in);
	json_decref(out);
}

static void test_collapse_never_top_level_or_root(void **state)
{
	/* Four files in /etc stay four entries: /etc/ would allow /etc/shadow. */
	static const char *const etc[] = { "/etc/passwd", "/etc/group", "/etc/hosts",
					   "/etc/ld.so.cache", "/a", "/b", "/c", "/d", NULL };
	json_t *in = set_of(etc), *out = learn__collapse(in, NULL, false);

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
	json_t *in = set_of(v), *out = learn__collapse(in, fake_kind, false);

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
	json_t *in = set_of(v), *out = learn__collapse(in, NULL, false);

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
	/* /dev/tty: always (no controlling terminal in a sandbox; see learn.h) */
	assert_string_equal(list_str(p, "files", "write"), "/dev/tty,/srv/in/f0,/srv/out/r");
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
	a = learn__audit_policy(base, NET_ONLY, NULL);
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
	a = learn__audit_policy(base, ALL & ~(1u << RF_LEARN_UNIX), NULL);
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


/* ---- the command's outcome ---- */

/* sandbox.exit lines -> did the learning run succeed, and how it is said. */
static void test_learn_outcome(void **state)
{
	static const struct {
		const char *exit_line;
		bool ran, ok;
		const char *said;
	} cases[] = {
		{ NULL, false, false, "did not start" },  /* no sandbox.exit at all */
		{ "{\"event\":\"sandbox.exit\",\"status\":null,\"signal\":null,\"exit_code\":127,"
		  "\"failed_stage\":\"exec\"}", false, false, "did not start" },
		{ "{\"event\":\"sandbox.exit\",\"status\":0,\"signal\":null,\"exit_code\":0}",
		  true, true, "exited 0" },
		/* the reported case: gcc without PATH, "cannot find 'ld'" */
		{ "{\"event\":\"sandbox.exit\",\"status\":1,\"signal\":null,\"exit_code\":1}",
		  true, false, "exited 1" },
		{ "{\"event\":\"sandbox.exit\",\"status\":null,\"signal\":9,\"exit_code\":137}",
		  true, false, "was killed by signal 9" },
		{ "{\"event\":\"sandbox.exit\",\"status\":null,\"signal\":9,\"exit_code\":137,"
		  "\"limit\":\"wall_seconds\"}", true, false, "was ended by a limit (exit 137)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_learn l;
		char how[96];

		assert_int_equal(learn__init(&l), 0);
		if (cases[i].exit_line)
			add(&l, cases[i].exit_line);
		learn__outcome(&l, how, sizeof(how));
		if (l.ran != cases[i].ran || learn__succeeded(&l) != cases[i].ok ||
		    strncmp(how, cases[i].said, strlen(cases[i].said)))
			fail_msg("case %zu: ran %d ok %d \"%s\"", i, l.ran, learn__succeeded(&l), how);
		learn__fini(&l);
	}
}

/* ---- the environment ---- */

static void test_env_secret_names(void **state)
{
	static const struct {
		const char *name;
		bool secret;
	} cases[] = {
		{ "PATH", false }, { "HOME", false }, { "LANG", false }, { "TERM", false },
		{ "GIT_AUTHOR_NAME", false }, { "GIT_AUTHOR_EMAIL", false },
		{ "CC", false }, { "MAKEFLAGS", false }, { "PYTHONPATH", false },
		{ "SSH_CONNECTION", false }, { "KEYBOARD_LAYOUT", false },
		{ "GITHUB_TOKEN", true }, { "github_token", true }, { "CI_JOB_TOKEN", true },
		{ "AWS_SECRET_ACCESS_KEY", true }, { "AWS_ACCESS_KEY_ID", true },
		{ "PGPASSWORD", true }, { "MYSQL_PWD", false /* not named by a pattern */ },
		{ "OPENAI_API_KEY", true }, { "STRIPE_KEY", true }, { "NPM_CONFIG__AUTH", true },
		{ "GOOGLE_APPLICATION_CREDENTIALS", true }, { "BORG_PASSPHRASE", true },
		{ "SSH_AUTH_SOCK", true }, { "GPG_AGENT_INFO", true }, { "XAUTHORITY", true },
		{ "KRB5CCNAME", true }, { "DBUS_SESSION_BUS_ADDRESS", true }, { "GH_PAT", true },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (learn__env_secret(cases[i].name) != cases[i].secret)
			fail_msg("%s: secret should be %d", cases[i].name, cases[i].secret);
}

static void test_env_names(void **state)
{
	static const struct {
		const char *env[8];
		const char *names;
	} cases[] = {
		{ { NULL }, "" },
		{ { "PATH=/usr/bin:/bin", "HOME=/root", "LANG=C.UTF-8", NULL }, "HOME,LANG,PATH" },
		/* secrets out, by name; their values never matter */
		{ { "PATH=/bin", "GITHUB_TOKEN=ghp_x", "SSH_AUTH_SOCK=/tmp/a", NULL }, "PATH" },
		/* names env.pass cannot carry: out; a name twice: once */
		{ { "BASH_FUNC_f%%=() {}", "1X=a", "=x", "noequals", "A=1", "A=2", NULL }, "A" },
		{ { "EMPTY=", "_=/usr/bin/ringfence", NULL }, "EMPTY,_" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *a = learn__env_names((char *const *)cases[i].env);
		char got[512] = "";
		json_t *v;
		size_t j;

		assert_non_null(a);
		json_array_foreach(a, j, v) {
			strcat(got, j ? "," : "");
			strcat(got, json_string_value(v));
		}
		if (strcmp(got, cases[i].names))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, got, cases[i].names);
		json_decref(a);
	}
}

/* env.pass of the names the learning run had, where BASE says nothing of
 * env (in the learning run and in the learned policy); BASE's env wins. */
static void test_env_in_policies(void **state)
{
	static const struct {
		const char *base;
		const char *pass;     /* env.pass of both policies */
		const char *set;      /* env.set's keys, "" none */
	} cases[] = {
		{ "{\"version\":1,\"id\":\"b\"}", "HOME,PATH", "" },
		{ "{\"version\":1,\"id\":\"b\",\"env\":{\"pass\":[\"PATH\"]}}", "PATH", "" },
		{ "{\"version\":1,\"id\":\"b\",\"env\":{\"set\":{\"LANG\":\"C\"}}}", "(absent)",
		  "LANG" },
	};
	const char *env[] = { "PATH=/bin", "HOME=/root", "API_TOKEN=x", NULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *base = policy_json(cases[i].base), *built = NULL, *audit;
		struct rf_error e = { 0 };
		struct rf_learn l;

		assert_int_equal(learn__init(&l), 0);
		l.env_pass = learn__env_names((char *const *)env);
		audit = learn__audit_policy(base, ALL, l.env_pass);
		assert_int_equal(learn__build(&l, base, ALL, NULL, &built, &e), 0);
		assert_valid(audit);
		assert_valid(built);
		assert_string_equal(list_str(audit, "env", "pass"), cases[i].pass);
		assert_string_equal(list_str(built, "env", "pass"), cases[i].pass);
		assert_string_equal(keys(json_object_get(json_object_get(built, "env"), "set")),
				    cases[i].set);
		json_decref(audit);
		json_decref(built);
		json_decref(base);
		learn__fini(&l);
	}
}

/* ---- names the DNS gate answered ---- */

/* Trace lines, then the learned network.connect and rebind_allow. */
static void test_connect_through_names(void **state)
{
#define Q(name, verdict, addrs) \
	"{\"event\":\"dns.query\",\"name\":\"" name "\",\"type\":\"A\",\"verdict\":\"" verdict \
	"\",\"rcode\":\"NOERROR\",\"granted\":[" addrs "],\"grace_ms\":5000}"
#define A(addr) "{\"address\":\"" addr "\",\"ttl\":60}"
#define PRIV(name, verdict, addr) \
	"{\"event\":\"dns.deny\",\"name\":\"" name "\",\"type\":\"A\",\"op\":\"dns_query\"," \
	"\"reason\":\"private-address-for-name\",\"verdict\":\"" verdict "\",\"entry\":\"x\"," \
	"\"addresses\":[\"" addr "\"]}"
#define C4(addr, port) \
	"{\"event\":\"kernel.deny\",\"class\":\"network\",\"op\":\"connect4\",\"verdict\":" \
	"\"audited\",\"destination\":{\"family\":\"ipv4\",\"address\":\"" addr "\",\"port\":" \
	#port ",\"protocol\":\"tcp\"}}"
#define C6(addr, port) \
	"{\"event\":\"kernel.deny\",\"class\":\"network\",\"op\":\"connect6\",\"verdict\":" \
	"\"audited\",\"destination\":{\"family\":\"ipv6\",\"address\":\"" addr "\",\"port\":" \
	#port ",\"protocol\":\"tcp\"}}"
	static const struct {
		const char *lines[6];
		const char *connect, *rebind;
	} cases[] = {
		/* reached through a name: the name, never the address */
		{ { Q("deb.debian.org", "audited", A("203.0.113.80")), C4("203.0.113.80", 443) },
		  "deb.debian.org:443", "(absent)" },
		/* the order of the lines does not matter */
		{ { C4("203.0.113.80", 80), Q("deb.debian.org", "audited", A("203.0.113.80")) },
		  "deb.debian.org:80", "(absent)" },
		/* reached without a name: the address */
		{ { Q("a.example.org", "audited", A("203.0.113.1")), C4("203.0.113.9", 443) },
		  "203.0.113.9:443", "(absent)" },
		/* one address, two names answered with it: both, each port */
		{ { Q("a.example.org", "audited", A("203.0.113.5")),
		    Q("b.example.org", "audited", A("203.0.113.5") "," A("203.0.113.6")),
		    C4("203.0.113.5", 443), C4("203.0.113.5", 80) },
		  "a.example.org:443,a.example.org:80,b.example.org:443,b.example.org:80",
		  "(absent)" },
		/* IPv6 and an allowed name of BASE (verdict allowed) alike */
		{ { Q("v6.example.org", "allowed", A("2001:db8::1")), C6("2001:db8::1", 443) },
		  "v6.example.org:443", "(absent)" },
		/* a private address through a name: the name, and rebind_allow */
		{ { PRIV("svc.test", "audited", "127.77.0.7"), C4("127.77.0.7", 18300) },
		  "svc.test:18300", "127.77.0.7" },
		/* a private address the gate dropped in enforce mode: not an answer */
		{ { PRIV("svc.test", "denied", "127.77.0.7"), C4("127.77.0.7", 18300) },
		  "127.77.0.7:18300", "(absent)" },
		/* a name no entry can carry: the address */
		{ { Q("under_score", "audited", A("203.0.113.7")), C4("203.0.113.7", 443) },
		  "203.0.113.7:443", "(absent)" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *base = policy_json("{\"version\":1,\"id\":\"n\"}"), *p = NULL;
		struct rf_error e = { 0 };
		struct rf_learn l;
		char rebind[512];

		assert_int_equal(learn__init(&l), 0);
		for (j = 0; cases[i].lines[j]; j++)
			add(&l, cases[i].lines[j]);
		assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
		assert_valid(p);
		snprintf(rebind, sizeof(rebind), "%s",
			 list_str(json_object_get(p, "network"), "dns", "rebind_allow"));
		if (strcmp(list_str(p, "network", "connect"), cases[i].connect) ||
		    strcmp(rebind, cases[i].rebind))
			fail_msg("case %zu: connect \"%s\" rebind \"%s\"", i,
				 list_str(p, "network", "connect"), rebind);
		assert_null(strchr(list_str(p, "network", "connect"), '*'));  /* never wildcards */
		json_decref(p);
		json_decref(base);
		learn__fini(&l);
	}
}

/* learn --wildcards: a name below its registrable domain becomes
 * "*.DOMAIN:port", never over a public suffix; a domain stays exact. */
static void test_connect_wildcards_when_asked(void **state)
{
	static const struct {
		const char *name, *connect;
	} cases[] = {
		{ "a.cdn.example.com", "*.example.com:443" },
		{ "example.com", "example.com:443" },              /* the domain itself */
		{ "a.b.example.co.uk", "*.example.co.uk:443" },    /* a two-label suffix */
		{ "user.github.io", "user.github.io:443" },        /* a suffix's domain */
		{ "svc.learn.test", "*.learn.test:443" },          /* unknown top label */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *base = policy_json("{\"version\":1,\"id\":\"w\"}"), *p = NULL;
		struct rf_error e = { 0 };
		struct rf_learn l;
		char q[512];

		assert_int_equal(learn__init(&l), 0);
		l.wildcards = true;
		snprintf(q, sizeof(q), "{\"event\":\"dns.query\",\"name\":\"%s\",\"type\":"
			 "\"A\",\"verdict\":\"audited\",\"rcode\":\"NOERROR\",\"granted\":"
			 "[{\"address\":\"203.0.113.80\",\"ttl\":60}],\"grace_ms\":5000}",
			 cases[i].name);
		add(&l, q);
		add(&l, "{\"event\":\"kernel.deny\",\"class\":\"network\",\"op\":\"connect4\","
			"\"verdict\":\"audited\",\"destination\":{\"family\":\"ipv4\",\"address\":"
			"\"203.0.113.80\",\"port\":443,\"protocol\":\"tcp\"}}");
		assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
		assert_valid(p);
		if (strcmp(list_str(p, "network", "connect"), cases[i].connect))
			fail_msg("%s: learned \"%s\", want \"%s\"", cases[i].name,
				 list_str(p, "network", "connect"), cases[i].connect);
		json_decref(p);
		json_decref(base);
		learn__fini(&l);
	}
}

/* BASE's network.dns is kept, rebind_allow merged into it. */
static void test_rebind_merges_with_base_dns(void **state)
{
	static const struct {
		const char *base, *want;
	} cases[] = {
		{ "{\"version\":1,\"id\":\"n\",\"network\":{\"dns\":\"gate\"}}",
		  "{\"mode\":\"gate\",\"rebind_allow\":[\"127.77.0.7\"]}" },
		{ "{\"version\":1,\"id\":\"n\",\"network\":{\"dns\":{\"upstream\":[\"127.0.0.1:53\"],"
		  "\"rebind_allow\":[\"10.0.0.0/8\"]}}}",
		  "{\"rebind_allow\":[\"10.0.0.0/8\",\"127.77.0.7\"],\"upstream\":[\"127.0.0.1:53\"]}" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *base = policy_json(cases[i].base), *p = NULL;
		struct rf_error e = { 0 };
		struct rf_learn l;
		char *dns;

		assert_int_equal(learn__init(&l), 0);
		add(&l, PRIV("svc.test", "audited", "127.77.0.7"));
		add(&l, C4("127.77.0.7", 18300));
		assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
		assert_valid(p);
		dns = json_dumps(json_object_get(json_object_get(p, "network"), "dns"),
				 JSON_COMPACT | JSON_SORT_KEYS);
		if (strcmp(dns, cases[i].want))
			fail_msg("case %zu: %s", i, dns);
		free(dns);
		json_decref(p);
		json_decref(base);
		learn__fini(&l);
	}
#undef Q
#undef A
#undef PRIV
#undef C4
#undef C6
}

/* ---- shared libraries ---- */

static void test_shared_lib_names(void **state)
{
	static const struct {
		const char *path;
		bool lib;
	} cases[] = {
		{ "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2", true },
		{ "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0", true },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", true },
		{ "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", true },
		{ "/usr/lib/gcc/x86_64-linux-gnu/12/liblto_plugin.so", true },
		{ "/usr/lib/python3.11/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so", true },
		{ "/etc/ld.so.cache", false }, { "/etc/ld.so.conf", false },
		{ "/run/app.sock", false }, { "/srv/x.so.bak", false }, { "/srv/.so", false },
		{ "/usr/lib/x86_64-linux-gnu/libc.a", false }, { "/usr/bin/gcc", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (learn__is_shared_lib(cases[i].path) != cases[i].lib)
			fail_msg("%s: library should be %d", cases[i].path, cases[i].lib);
}

/* With libdirs a library is its directory (two levels deep at least);
 * without (files.write) it stays exact. */
static void test_collapse_library_dirs(void **state)
{
	static const struct {
		const char *in[6];
		bool libdirs;
		const char *out;
	} cases[] = {
		{ { "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2", "/usr/bin/grep", NULL }, true,
		  "/usr/bin/grep,/usr/lib/x86_64-linux-gnu/" },
		{ { "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2", NULL }, false,
		  "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2" },
		/* one level deep: /lib/ would be too wide a guess; stays exact */
		{ { "/lib/libfoo.so.1", "/libtop.so", NULL }, true, "/lib/libfoo.so.1,/libtop.so" },
		/* not a library: the directory rule as before */
		{ { "/etc/ld.so.cache", "/usr/lib/locale/C.utf8/LC_CTYPE", NULL }, true,
		  "/etc/ld.so.cache,/usr/lib/locale/C.utf8/LC_CTYPE" },
		/* several libraries of one directory: one entry */
		{ { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
		    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", NULL }, true,
		  "/usr/lib/x86_64-linux-gnu/" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *in = set_of(cases[i].in), *out = learn__collapse(in, NULL, cases[i].libdirs);

		if (strcmp(keys(out), cases[i].out))
			fail_msg("case %zu: %s", i, keys(out));
		json_decref(in);
		json_decref(out);
	}
}

/* In the built policy: read and exec get the directory, write does not. */
static void test_build_library_dirs(void **state)
{
	json_t *base = policy_json("{\"version\":1,\"id\":\"l\"}"), *p = NULL;
	struct rf_error e = { 0 };
	struct rf_learn l;

	(void)state;
	assert_int_equal(learn__init(&l), 0);
	file(&l, "file", "/usr/lib/x86_64-linux-gnu/libpcre2-8.so.0.11.2", "[\"read\"]");
	file(&l, "exec", "/opt/rf-unit/lib/libq.so.3.1", "[\"exec\"]");
	file(&l, "file", "/srv/build/out/libmine.so.1", "[\"write\"]");
	assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
	assert_valid(p);
	assert_string_equal(list_str(p, "files", "read"), "/usr/lib/x86_64-linux-gnu/");
	assert_string_equal(list_str(p, "exec", NULL), "/opt/rf-unit/lib/");
	assert_string_equal(list_str(p, "files", "write"), "/dev/tty,/srv/build/out/libmine.so.1");
	json_decref(p);
	json_decref(base);
	learn__fini(&l);
}

/* An executable the command wrote (and ran) is its directory: the next
 * build replaces the inode a Landlock rule for the file would hold. */
static void test_build_exec_of_written_file(void **state)
{
	static const struct {
		const char *written, *exec[4];
		const char *want;
	} cases[] = {
		{ "/srv/w/hello", { "/srv/w/hello", "/opt/rf-unit/bin/cc", NULL },
		  "/opt/rf-unit/bin/cc,/srv/w/" },
		/* written elsewhere: the exec entry stays exact */
		{ "/srv/w/other", { "/srv/w/hello", NULL }, "/srv/w/hello" },
		/* what the new directory entry covers goes */
		{ "/srv/w/a", { "/srv/w/a", "/srv/w/b", NULL }, "/srv/w/" },
		/* never "/" */
		{ "/top", { "/top", NULL }, "/top" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *base = policy_json("{\"version\":1,\"id\":\"x\"}"), *p = NULL;
		struct rf_error e = { 0 };
		struct rf_learn l;

		assert_int_equal(learn__init(&l), 0);
		file(&l, "file", cases[i].written, "[\"write\"]");
		for (j = 0; cases[i].exec[j]; j++)
			file(&l, "exec", cases[i].exec[j], "[\"exec\"]");
		assert_int_equal(learn__build(&l, base, ALL, NULL, &p, &e), 0);
		assert_valid(p);
		if (strcmp(list_str(p, "exec", NULL), cases[i].want))
			fail_msg("case %zu: %s", i, list_str(p, "exec", NULL));
		json_decref(p);
		json_decref(base);
		learn__fini(&l);
	}
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
		cmocka_unit_test(test_learn_outcome),
		cmocka_unit_test(test_env_secret_names),
		cmocka_unit_test(test_env_names),
		cmocka_unit_test(test_env_in_policies),
		cmocka_unit_test(test_connect_through_names),
		cmocka_unit_test(test_connect_wildcards_when_asked),
		cmocka_unit_test(test_rebind_merges_with_base_dns),
		cmocka_unit_test(test_shared_lib_names),
		cmocka_unit_test(test_collapse_library_dirs),
		cmocka_unit_test(test_build_library_dirs),
		cmocka_unit_test(test_build_exec_of_written_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
