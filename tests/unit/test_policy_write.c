/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unit tests of what makes a policy writable in one try: every invalid
 * entry in one pass (each with its JSON path, up to the cap), "$comment"
 * anywhere, and ${HOME}/${PWD}/${TMPDIR}/${UID} resolved at load.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy/policy.h"

/* Load text from a file, with every error. */
static int load_all(const char *text, struct rf_policy **ret, struct rf_error *err,
		    struct rf_policy_errors *all)
{
	char path[] = "/tmp/rf-policy-write-XXXXXX";
	int fd = mkstemp(path), r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	r = policy__load_file_all(path, ret, err, all);
	unlink(path);
	return r;
}

static void test_every_invalid_entry_in_one_pass(void **state)
{
	static const char doc[] =
		"{\"version\":1,\"id\":\"Bad\",\"colour\":1,\"mode\":\"x\",\n"
		" \"files\":{\"read\":[\"usr/\",\"/ok/\",\"/a/../b\"],\"write\":[\"/x//y\"]},\n"
		" \"exec\":[\"/bin/true\",7],\n"
		" \"network\":{\"connect\":[\"1.2.3.4:0\"],\"unix\":[\"rel\"]},\n"
		" \"env\":{\"pass\":[\"A-B\",\"PATH\",\"PATH\"],\"set\":{\"1X\":\"y\",\"OK\":\"z\"}},\n"
		" \"limits\":{\"pids\":0,\"memory_mb\":-1,\"wall_seconds\":5},\n"
		" \"syscalls\":{\"allow\":[\"Read\",\"write\"],\"on_violation\":\"kill\"}}";
	static const char *const want[] = {
		"$.colour", "$.id", "$.mode", "$.files.read[0]", "$.files.read[2]",
		"$.files.write[0]", "$.exec[1]", "$.network.connect[0]", "$.network.unix[0]",
		"$.env.pass[0]", "$.env.pass[2]", "$.env.set.1X", "$.limits.pids",
		"$.limits.memory_mb", "$.syscalls.allow[0]", "$.syscalls.on_violation",
	};
	struct rf_policy_errors *all = calloc(1, sizeof(*all));
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	size_t i;

	(void)state;
	assert_int_equal(load_all(doc, &p, &err, all), -EINVAL);
	assert_null(p);
	for (i = 0; i < all->n; i++)
		print_message("  %s: %s\n", all->v[i].where, all->v[i].why);
	assert_int_equal(all->n, sizeof(want) / sizeof(want[0]));
	assert_false(all->truncated);
	for (i = 0; i < all->n; i++) {
		assert_string_equal(all->v[i].where, want[i]);
		assert_int_equal(all->v[i].err, -EINVAL);
		assert_true(all->v[i].why[0] != '\0');
	}
	/* err is the first, as for callers that show one. */
	assert_string_equal(err.where, "$.colour");
	free(all);
}

static void test_errors_stop_at_the_cap(void **state)
{
	char doc[4096] = "{\"version\":1,\"id\":\"t\",\"exec\":[";
	struct rf_policy_errors *all = calloc(1, sizeof(*all));
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	size_t i;

	(void)state;
	for (i = 0; i < 30; i++)
		snprintf(doc + strlen(doc), sizeof(doc) - strlen(doc), "%s\"rel%zu\"",
			 i ? "," : "", i);
	strcat(doc, "]}");
	assert_int_equal(load_all(doc, &p, &err, all), -EINVAL);
	assert_int_equal(all->n, RF_POLICY_ERRORS_MAX);
	assert_true(all->truncated);
	assert_string_equal(all->v[RF_POLICY_ERRORS_MAX - 1].where, "$.exec[19]");
	assert_string_equal(err.where, "$.exec[0]");
	free(all);
}

/* A valid document reports nothing; the old entry point agrees. */
static void test_valid_document_has_no_errors(void **state)
{
	struct rf_policy_errors *all = calloc(1, sizeof(*all));
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	all->n = 7;
	assert_int_equal(load_all("{\"version\":1,\"id\":\"t\"}", &p, &err, all), 0);
	assert_int_equal(all->n, 0);
	policy__free(p);
	assert_int_equal(policy__load_file_all("/nonexistent/p.json", &p, &err, all), -ENOENT);
	assert_int_equal(all->n, 0);
	free(all);
}

static void test_comment_allowed_anywhere(void **state)
{
	static const char doc[] =
		"{\"$comment\":\"top\",\"version\":1,\"id\":\"t\","
		"\"files\":{\"$comment\":[1,2],\"read\":[\"/usr/\"]},"
		"\"network\":{\"$comment\":\"n\",\"connect\":[\"127.0.0.1:80\"],\"unix\":[]},"
		"\"env\":{\"$comment\":\"e\",\"set\":{\"$comment\":\"not a variable\",\"A\":\"b\"}},"
		"\"limits\":{\"$comment\":{},\"scratch\":{\"$comment\":\"s\",\"path\":\"/tmp\","
		"\"size_mb\":1}},"
		"\"monitor\":{\"deny_burst\":{\"$comment\":\"m\",\"count\":1,\"window_ms\":1}}}";
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char *text = NULL;

	(void)state;
	assert_int_equal(policy__load_string(doc, &p, &err), 0);
	assert_int_equal(p->n_env_set, 1);
	assert_string_equal(p->env_set[0].name, "A");
	assert_int_equal(p->files_read.n, 1);
	/* Comments are not part of what the digest covers. */
	assert_int_equal(policy__canonical_text(doc, &text, &err), 0);
	assert_null(strstr(text, "$comment"));
	free(text);
	policy__free(p);
	/* Only "$comment": "_comment" and "$note" stay unknown keys. */
	assert_int_equal(policy__load_string("{\"version\":1,\"id\":\"t\",\"$note\":1}", &p, &err),
			 -EINVAL);
	assert_string_equal(err.where, "$.$note");
}

/* "$schema" at the root names the policy's JSON Schema for editors and
 * CI: accepted (a string), never part of the digest; elsewhere, or not a
 * string, refused. */
static void test_schema_key_at_the_root(void **state)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char *text = NULL;

	(void)state;
	assert_int_equal(policy__load_string("{\"$schema\":\"./policy.schema.json\","
					     "\"version\":1,\"id\":\"t\"}", &p, &err), 0);
	policy__free(p);
	assert_int_equal(policy__canonical_text("{\"$schema\":\"x\",\"version\":1,\"id\":\"t\"}",
						&text, &err), 0);
	assert_null(strstr(text, "$schema"));
	free(text);
	assert_int_equal(policy__load_string("{\"$schema\":1,\"version\":1,\"id\":\"t\"}", &p,
					     &err), -EINVAL);
	assert_string_equal(err.where, "$.$schema");
	assert_int_equal(policy__load_string("{\"version\":1,\"id\":\"t\",\"files\":"
					     "{\"$schema\":\"x\"}}", &p, &err), -EINVAL);
	assert_string_equal(err.where, "$.files.$schema");
}

static void test_variables_resolved_at_load(void **state)
{
	char dir[] = "/tmp/rf-vars-XXXXXX", old[PATH_MAX], want[PATH_MAX + 64], uid[32];
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");
	char *home_saved = home ? strdup(home) : NULL, *tmp_saved = tmp ? strdup(tmp) : NULL;
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char *text = NULL;
	static const char doc[] =
		"{\"version\":1,\"id\":\"t\",\"files\":{\"read\":[\"${HOME}/src/\",\"${PWD}/\"],"
		"\"write\":[\"${TMPDIR}/out-${UID}/\"]},"
		"\"env\":{\"set\":{\"LITERAL\":\"$${HOME}\",\"DOLLAR\":\"a$b$\"}}}";

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(dir), 0);
	setenv("HOME", "/home/someone/", 1);   /* trailing '/' dropped */
	setenv("TMPDIR", "/var/tmp", 1);
	assert_int_equal(policy__load_string(doc, &p, &err), 0);
	assert_string_equal(p->files_read.v[0].path, "/home/someone/src/");
	snprintf(want, sizeof(want), "%s/", dir);
	assert_string_equal(p->files_read.v[1].path, want);
	snprintf(uid, sizeof(uid), "%u", (unsigned int)getuid());
	snprintf(want, sizeof(want), "/var/tmp/out-%s/", uid);
	assert_string_equal(p->files_write.v[0].path, want);
	assert_string_equal(p->env_set[0].value, "${HOME}");
	assert_string_equal(p->env_set[1].value, "a$b$");
	/* The canonical text (and so the digest) holds the resolved values. */
	assert_int_equal(policy__canonical_text(doc, &text, &err), 0);
	assert_non_null(strstr(text, "/home/someone/src/"));
	free(text);
	/* What the trace shows: each variable used, as resolved. */
	assert_int_equal(p->n_vars, 4);
	assert_string_equal(p->vars[0].name, "HOME");
	assert_string_equal(p->vars[0].value, "/home/someone");
	assert_string_equal(p->vars[3].name, "UID");
	assert_string_equal(p->vars[3].value, uid);
	policy__free(p);

	/* HOME unset: the password database's; TMPDIR unset or relative: /tmp. */
	unsetenv("HOME");
	setenv("TMPDIR", "relative", 1);
	assert_int_equal(policy__load_string(doc, &p, &err), 0);
	assert_true(p->files_read.v[0].path[0] == '/');
	snprintf(want, sizeof(want), "/tmp/out-%s/", uid);
	assert_string_equal(p->files_write.v[0].path, want);
	policy__free(p);

	/* Under sudo (root with SUDO_UID): the sudo user's uid and home. */
	if (getuid() == 0) {
		setenv("HOME", "/root", 1);
		setenv("SUDO_UID", "65534", 1);
		assert_int_equal(policy__load_string(doc, &p, &err), 0);
		assert_string_equal(p->files_write.v[0].path, "/tmp/out-65534/");
		assert_true(strncmp(p->files_read.v[0].path, "/root", 5) != 0);
		policy__free(p);
		unsetenv("SUDO_UID");
	}
	assert_int_equal(chdir(old), 0);
	rmdir(dir);
	if (home_saved)
		setenv("HOME", home_saved, 1);
	if (tmp_saved)
		setenv("TMPDIR", tmp_saved, 1);
	else
		unsetenv("TMPDIR");
	free(home_saved);
	free(tmp_saved);
}

static void test_unknown_variable_is_one_error(void **state)
{
	struct rf_policy_errors *all = calloc(1, sizeof(*all));
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	/* One error for the entry: the variable, not also the path left. */
	assert_int_equal(load_all("{\"version\":1,\"id\":\"t\",\"exec\":[\"${USER}/bin\","
				  "\"/ok\",\"${HOME\"]}", &p, &err, all), -EINVAL);
	assert_int_equal(all->n, 2);
	assert_string_equal(all->v[0].where, "$.exec[0]");
	assert_non_null(strstr(all->v[0].why, "unknown variable \"${USER}\""));
	assert_non_null(strstr(all->v[0].why, "${HOME}, ${PWD}, ${TMPDIR}, ${UID}"));
	assert_string_equal(all->v[1].where, "$.exec[2]");
	assert_non_null(strstr(all->v[1].why, "unterminated"));
	free(all);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_invalid_entry_in_one_pass),
		cmocka_unit_test(test_errors_stop_at_the_cap),
		cmocka_unit_test(test_valid_document_has_no_errors),
		cmocka_unit_test(test_comment_allowed_anywhere),
		cmocka_unit_test(test_schema_key_at_the_root),
		cmocka_unit_test(test_variables_resolved_at_load),
		cmocka_unit_test(test_unknown_variable_is_one_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
