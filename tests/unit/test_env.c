/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests: env__build/env__get, launch__resolve_user parsing. No privileges. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/env.h"
#include "launch/launch.h"
#include "policy/policy.h"

/* A policy with only the environment fields filled, as policy.c would. */
struct env_policy {
	struct rf_policy p;
	char *pass[16];
	struct rf_env_var set[16];
};

static void policy_init(struct env_policy *ep, const char *const *pass, const char *const *set_kv)
{
	memset(ep, 0, sizeof(*ep));
	for (size_t i = 0; pass && pass[i]; i++)
		ep->pass[ep->p.n_env_pass++] = (char *)pass[i];
	for (size_t i = 0; set_kv && set_kv[2 * i]; i++) {
		ep->set[i].name = (char *)set_kv[2 * i];
		ep->set[i].value = (char *)set_kv[2 * i + 1];
		ep->p.n_env_set++;
	}
	ep->p.env_pass = ep->pass;
	ep->p.env_set = ep->set;
}

static size_t env_len(char **envp)
{
	size_t n = 0;

	while (envp[n])
		n++;
	return n;
}

/* A parent full of things that must not leak. */
static char *const noisy_parent[] = {
	"HOME=/root",
	"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
	"LANG=C.UTF-8",
	"TERM=xterm-256color",
	"HTTP_PROXY=http://proxy.corp:3128",
	"https_proxy=http://proxy.corp:3128",
	"AWS_ACCESS_KEY_ID=AKIAEXAMPLE",
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"AWS_SESSION_TOKEN=FQoGZXIvYXdzEXAMPLE",
	"NPM_TOKEN=npm_0123456789abcdef",
	"GITHUB_TOKEN=ghp_exampleexampleexample",
	"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1",
	"LD_PRELOAD=/tmp/evil.so",
	"SUDO_USER=alice",
	"EMPTY=",
	"DUP=first",
	"DUP=second",
	NULL,
};

static void test_empty_policy_empty_env(void **state)
{
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, NULL, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_non_null(envp);
	assert_null(envp[0]);
	env__free(envp);

	/* no policy at all, no parent at all: still an empty env */
	envp = NULL;
	assert_int_equal(env__build(NULL, NULL, &envp), 0);
	assert_non_null(envp);
	assert_null(envp[0]);
	env__free(envp);
	env__free(NULL);
}

static void test_pass_only_named(void **state)
{
	static const char *const pass[] = { "HOME", "LANG", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_int_equal(env_len(envp), 2);
	assert_string_equal(envp[0], "HOME=/root");
	assert_string_equal(envp[1], "LANG=C.UTF-8");
	assert_null(env__get(envp, "PATH"));
	assert_null(env__get(envp, "HTTP_PROXY"));
	assert_null(env__get(envp, "AWS_SECRET_ACCESS_KEY"));
	assert_null(env__get(envp, "NPM_TOKEN"));
	assert_null(env__get(envp, "LD_PRELOAD"));
	env__free(envp);
}

static void test_secrets_only_when_named(void **state)
{
	static const char *const none[] = { "TERM", NULL };
	static const char *const named[] = { "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", NULL };
	static const char *const secrets[] = {
		"HTTP_PROXY", "https_proxy", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "NPM_TOKEN", "GITHUB_TOKEN", "SSH_AUTH_SOCK",
		"LD_PRELOAD", "SUDO_USER", NULL,
	};
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, none, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	for (size_t i = 0; secrets[i]; i++)
		assert_null(env__get(envp, secrets[i]));
	assert_int_equal(env_len(envp), 1);
	env__free(envp);

	policy_init(&ep, named, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_int_equal(env_len(envp), 2);
	assert_string_equal(env__get(envp, "AWS_SECRET_ACCESS_KEY"),
			    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
	assert_string_equal(env__get(envp, "NPM_TOKEN"), "npm_0123456789abcdef");
	assert_null(env__get(envp, "AWS_ACCESS_KEY_ID"));
	assert_null(env__get(envp, "AWS_SESSION_TOKEN"));
	assert_null(env__get(envp, "HTTP_PROXY"));
	env__free(envp);
}

static void test_absent_skipped(void **state)
{
	static const char *const pass[] = { "NOT_THERE", "HOME", "ALSO_MISSING", "EMPTY", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_int_equal(env_len(envp), 2);
	assert_string_equal(envp[0], "HOME=/root");
	/* present but empty is present */
	assert_string_equal(envp[1], "EMPTY=");
	assert_string_equal(env__get(envp, "EMPTY"), "");
	assert_null(env__get(envp, "NOT_THERE"));
	env__free(envp);
}

static void test_set_and_order(void **state)
{
	static const char *const pass[] = { "LANG", "HOME", NULL };
	static const char *const set[] = { "RF_A", "1", "PATH", "/usr/bin:/bin", "RF_B", "", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, set);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_int_equal(env_len(envp), 5);
	assert_string_equal(envp[0], "LANG=C.UTF-8");
	assert_string_equal(envp[1], "HOME=/root");
	assert_string_equal(envp[2], "RF_A=1");
	assert_string_equal(envp[3], "PATH=/usr/bin:/bin");
	assert_string_equal(envp[4], "RF_B=");
	env__free(envp);

	/* set alone, no parent */
	policy_init(&ep, NULL, set);
	assert_int_equal(env__build(&ep.p, NULL, &envp), 0);
	assert_int_equal(env_len(envp), 3);
	assert_string_equal(env__get(envp, "PATH"), "/usr/bin:/bin");
	env__free(envp);
}

static void test_set_overrides_pass(void **state)
{
	static const char *const pass[] = { "HOME", "PATH", "LANG", NULL };
	static const char *const set[] = { "PATH", "/opt/bin", "X", "1", "X", "2", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, set);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	/* HOME PATH LANG X: no duplicates, set wins in place */
	assert_int_equal(env_len(envp), 4);
	assert_string_equal(envp[0], "HOME=/root");
	assert_string_equal(envp[1], "PATH=/opt/bin");
	assert_string_equal(envp[2], "LANG=C.UTF-8");
	assert_string_equal(envp[3], "X=2");
	env__free(envp);
}

static void test_duplicates(void **state)
{
	static const char *const pass[] = { "DUP", "HOME", "DUP", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, NULL);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	assert_int_equal(env_len(envp), 2);
	/* the parent's first DUP, as getenv() would see it */
	assert_string_equal(envp[0], "DUP=first");
	assert_string_equal(envp[1], "HOME=/root");
	env__free(envp);
}

static void test_bad_names_ignored(void **state)
{
	static const char *const pass[] = { "", "HOME=/root", "HOM", NULL };
	static const char *const set[] = { "", "x", "A=B", "y", NULL };
	struct env_policy ep;
	char **envp = NULL;

	(void)state;
	policy_init(&ep, pass, set);
	assert_int_equal(env__build(&ep.p, noisy_parent, &envp), 0);
	/* a prefix of a name is not the name; malformed names pass nothing */
	assert_int_equal(env_len(envp), 0);
	env__free(envp);
}

static void test_get(void **state)
{
	char *const e[] = { "A=1", "AB=2", "B==x", "C", NULL };

	(void)state;
	assert_string_equal(env__get(e, "A"), "1");
	assert_string_equal(env__get(e, "AB"), "2");
	assert_string_equal(env__get(e, "B"), "=x");
	assert_null(env__get(e, "C"));
	assert_null(env__get(e, "ABC"));
	assert_null(env__get(e, ""));
	assert_null(env__get(e, NULL));
	assert_null(env__get(NULL, "A"));
	assert_string_equal(env__get(noisy_parent, "DUP"), "first");
}

static void test_resolve_user_names(void **state)
{
	struct rf_error e = { 0 };
	uid_t u = 7;
	gid_t g = 7;

	(void)state;
	assert_int_equal(launch__resolve_user("root", &u, &g, &e), 0);
	assert_int_equal(u, 0);
	assert_int_equal(g, 0);

	u = g = 7;
	assert_int_equal(launch__resolve_user("0", &u, &g, &e), 0);
	assert_int_equal(u, 0);
	assert_int_equal(g, 0);

	u = g = 7;
	assert_int_equal(launch__resolve_user("0:0", &u, &g, &e), 0);
	assert_int_equal(u, 0);
	assert_int_equal(g, 0);

	assert_int_equal(launch__resolve_user("root:root", &u, &g, &e), 0);
	assert_int_equal(u, 0);
	assert_int_equal(g, 0);

	/* a user with a group override */
	assert_int_equal(launch__resolve_user("root:65534", &u, &g, &e), 0);
	assert_int_equal(u, 0);
	assert_int_equal(g, 65534);

	/* a uid without a passwd entry: its gid is the same number */
	assert_int_equal(launch__resolve_user("4000123", &u, &g, &e), 0);
	assert_int_equal(u, 4000123);
	assert_int_equal(g, 4000123);
	assert_int_equal(launch__resolve_user("4000123:77", &u, &g, &e), 0);
	assert_int_equal(u, 4000123);
	assert_int_equal(g, 77);
}

static void test_resolve_user_errors(void **state)
{
	struct rf_error e = { 0 };
	uid_t u = 7;
	gid_t g = 7;

	(void)state;
	e = (struct rf_error){ 0 };
	assert_int_equal(launch__resolve_user("no-such-user-rf", &u, &g, &e),
			 -EINVAL);
	assert_string_equal(e.why, "unknown user \"no-such-user-rf\"");
	/* outputs untouched on failure */
	assert_int_equal(u, 7);
	assert_int_equal(g, 7);

	e = (struct rf_error){ 0 };
	assert_int_equal(launch__resolve_user("root:no-such-group-rf", &u, &g, &e),
			 -EINVAL);
	assert_string_equal(e.why, "unknown group \"no-such-group-rf\"");

	assert_int_equal(launch__resolve_user("", &u, &g, &e), -EINVAL);
	assert_int_equal(launch__resolve_user(":0", &u, &g, &e), -EINVAL);
	assert_int_equal(launch__resolve_user("0:", &u, &g, &e), -EINVAL);
	/* (uid_t)-1 means "unchanged" to setresuid: never a user */
	assert_int_equal(launch__resolve_user("4294967295", &u, &g, &e), -EINVAL);
	assert_int_equal(launch__resolve_user("0:4294967295", &u, &g, &e), -EINVAL);
	assert_int_equal(launch__resolve_user("99999999999", &u, &g, &e), -EINVAL);
	assert_int_equal(launch__resolve_user("-1", &u, &g, &e), -EINVAL);
	assert_int_equal(u, 7);
	/* err is optional */
	assert_int_equal(launch__resolve_user("no-such-user-rf", &u, &g, NULL), -EINVAL);
}

static void test_resolve_user_invoker(void **state)
{
	uid_t u;
	gid_t g;

	(void)state;
	setenv("SUDO_UID", "1234", 1);
	setenv("SUDO_GID", "5678", 1);
	assert_int_equal(launch__resolve_user(NULL, &u, &g, NULL), 0);
	assert_int_equal(u, 1234);
	assert_int_equal(g, 5678);

	/* both are needed, and numeric */
	unsetenv("SUDO_GID");
	assert_int_equal(launch__resolve_user(NULL, &u, &g, NULL), 0);
	assert_int_equal(u, getuid());
	assert_int_equal(g, getgid());

	setenv("SUDO_GID", "wheel", 1);
	assert_int_equal(launch__resolve_user(NULL, &u, &g, NULL), 0);
	assert_int_equal(u, getuid());
	assert_int_equal(g, getgid());

	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(launch__resolve_user(NULL, &u, &g, NULL), 0);
	assert_int_equal(u, getuid());
	assert_int_equal(g, getgid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_policy_empty_env),
		cmocka_unit_test(test_pass_only_named),
		cmocka_unit_test(test_secrets_only_when_named),
		cmocka_unit_test(test_absent_skipped),
		cmocka_unit_test(test_set_and_order),
		cmocka_unit_test(test_set_overrides_pass),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_bad_names_ignored),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_resolve_user_names),
		cmocka_unit_test(test_resolve_user_errors),
		cmocka_unit_test(test_resolve_user_invoker),
	};

	/* the invoker tests set these; start from a known state */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
