/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests: env__build/env__get, launch__resolve_user parsing. No privileges. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
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

/* One environment built: the policy's pass and set lists (NULL-ended;
 * set as name, value pairs) over a parent. */
struct env_case {
	const char *name;
	const char *const pass[8];
	const char *const set[8];
	bool no_parent;              /* NULL instead of noisy_parent */
	bool no_policy;              /* NULL instead of the policy */
	const char *const want[8];   /* the whole envp, in order */
	const char *const absent[12]; /* env__get finds nothing */
	const char *const get[8];    /* name, value pairs env__get returns */
};

static const char *const secrets[] = {
	"HTTP_PROXY", "https_proxy", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
	"AWS_SESSION_TOKEN", "NPM_TOKEN", "GITHUB_TOKEN", "SSH_AUTH_SOCK",
	"LD_PRELOAD", "SUDO_USER", NULL,
};

static const struct env_case env_cases[] = {
	{ "empty policy: empty env", .want = { NULL } },
	{ "no policy at all, no parent at all: still an empty env", .no_parent = true,
	  .no_policy = true, .want = { NULL } },
	{ "pass only what is named", .pass = { "HOME", "LANG" },
	  .want = { "HOME=/root", "LANG=C.UTF-8" },
	  .absent = { "PATH", "HTTP_PROXY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "LD_PRELOAD" } },
	/* secrets: listed in test_env_cases' loop (every one absent) */
	{ "no secret unless named", .pass = { "TERM" }, .want = { "TERM=xterm-256color" } },
	{ "secrets when named", .pass = { "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN" },
	  .want = { "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		    "NPM_TOKEN=npm_0123456789abcdef" },
	  .absent = { "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "HTTP_PROXY" },
	  .get = { "AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		   "NPM_TOKEN", "npm_0123456789abcdef" } },
	/* present but empty is present */
	{ "absent names skipped", .pass = { "NOT_THERE", "HOME", "ALSO_MISSING", "EMPTY" },
	  .want = { "HOME=/root", "EMPTY=" }, .absent = { "NOT_THERE" }, .get = { "EMPTY", "" } },
	{ "pass, then set, in order", .pass = { "LANG", "HOME" },
	  .set = { "RF_A", "1", "PATH", "/usr/bin:/bin", "RF_B", "" },
	  .want = { "LANG=C.UTF-8", "HOME=/root", "RF_A=1", "PATH=/usr/bin:/bin", "RF_B=" } },
	{ "set alone, no parent", .no_parent = true,
	  .set = { "RF_A", "1", "PATH", "/usr/bin:/bin", "RF_B", "" },
	  .want = { "RF_A=1", "PATH=/usr/bin:/bin", "RF_B=" }, .get = { "PATH", "/usr/bin:/bin" } },
	/* HOME PATH LANG X: no duplicates, set wins in place */
	{ "set overrides pass in place", .pass = { "HOME", "PATH", "LANG" },
	  .set = { "PATH", "/opt/bin", "X", "1", "X", "2" },
	  .want = { "HOME=/root", "PATH=/opt/bin", "LANG=C.UTF-8", "X=2" } },
	/* the parent's first DUP, as getenv() would see it */
	{ "duplicates", .pass = { "DUP", "HOME", "DUP" }, .want = { "DUP=first", "HOME=/root" } },
	/* a prefix of a name is not the name; malformed names pass nothing */
	{ "bad names ignored", .pass = { "", "HOME=/root", "HOM" }, .set = { "", "x", "A=B", "y" },
	  .want = { NULL } },
};

static void check_env_case(const struct env_case *c)
{
	struct env_policy ep;
	char **envp = NULL;
	size_t i, n;
	int r;

	policy_init(&ep, c->pass, c->set);
	r = env__build(c->no_policy ? NULL : &ep.p, c->no_parent ? NULL : noisy_parent, &envp);
	if (r || !envp)
		fail_msg("%s: env__build %d", c->name, r);
	for (n = 0; c->want[n]; n++)
		if (n >= env_len(envp) || strcmp(envp[n], c->want[n]))
			fail_msg("%s: envp[%zu] is \"%s\", want \"%s\"", c->name, n,
				 n < env_len(envp) ? envp[n] : "(end)", c->want[n]);
	if (env_len(envp) != n)
		fail_msg("%s: %zu variables, want %zu", c->name, env_len(envp), n);
	for (i = 0; c->absent[i]; i++)
		if (env__get(envp, c->absent[i]))
			fail_msg("%s: %s is there", c->name, c->absent[i]);
	for (i = 0; c->get[i]; i += 2)
		if (!env__get(envp, c->get[i]) || strcmp(env__get(envp, c->get[i]), c->get[i + 1]))
			fail_msg("%s: %s is \"%s\", want \"%s\"", c->name, c->get[i],
				 env__get(envp, c->get[i]) ? env__get(envp, c->get[i]) : "(none)",
				 c->get[i + 1]);
	/* only what the policy names: a secret it does not name never passes */
	for (i = 0; secrets[i]; i++) {
		bool named = false;

		for (n = 0; c->pass[n]; n++)
			named |= !strcmp(c->pass[n], secrets[i]);
		if (!named && env__get(envp, secrets[i]))
			fail_msg("%s: %s passed unnamed", c->name, secrets[i]);
	}
	env__free(envp);
}

static void test_env_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(env_cases) / sizeof(env_cases[0]); i++)
		check_env_case(&env_cases[i]);
	env__free(NULL);
}

static void test_get(void **state)
{
	static char *const e[] = { "A=1", "AB=2", "B==x", "C", NULL };
	static const struct {
		char *const *envp;
		const char *name, *want;     /* want NULL: not found */
	} cases[] = {
		{ e, "A", "1" },
		{ e, "AB", "2" },
		{ e, "B", "=x" },
		{ e, "C", NULL },
		{ e, "ABC", NULL },
		{ e, "", NULL },
		{ e, NULL, NULL },
		{ NULL, "A", NULL },
		{ noisy_parent, "DUP", "first" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = env__get(cases[i].envp, cases[i].name);

		if (cases[i].want ? !got || strcmp(got, cases[i].want) : got != NULL)
			fail_msg("case %zu (%s): \"%s\", want \"%s\"", i,
				 cases[i].name ? cases[i].name : "NULL", got ? got : "(none)",
				 cases[i].want ? cases[i].want : "(none)");
	}
}

/* --user: a name or number, with an optional group; outputs untouched
 * on failure. */
static void test_resolve_user_cases(void **state)
{
	static const struct {
		const char *spec;
		int ret;
		uid_t uid;               /* on failure: the 7 it started with */
		gid_t gid;
		const char *why;         /* NULL: not checked */
	} cases[] = {
		{ "root", 0, 0, 0, NULL },
		{ "0", 0, 0, 0, NULL },
		{ "0:0", 0, 0, 0, NULL },
		{ "root:root", 0, 0, 0, NULL },
		/* a user with a group override */
		{ "root:65534", 0, 0, 65534, NULL },
		/* a uid without a passwd entry: its gid is the same number */
		{ "4000123", 0, 4000123, 4000123, NULL },
		{ "4000123:77", 0, 4000123, 77, NULL },
		{ "no-such-user-rf", -EINVAL, 7, 7, "unknown user \"no-such-user-rf\"" },
		{ "root:no-such-group-rf", -EINVAL, 7, 7, "unknown group \"no-such-group-rf\"" },
		{ "", -EINVAL, 7, 7, NULL },
		{ ":0", -EINVAL, 7, 7, NULL },
		{ "0:", -EINVAL, 7, 7, NULL },
		/* (uid_t)-1 means "unchanged" to setresuid: never a user */
		{ "4294967295", -EINVAL, 7, 7, NULL },
		{ "0:4294967295", -EINVAL, 7, 7, NULL },
		{ "99999999999", -EINVAL, 7, 7, NULL },
		{ "-1", -EINVAL, 7, 7, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_error e = { 0 };
		uid_t u = 7;
		gid_t g = 7;
		int r = launch__resolve_user(cases[i].spec, &u, &g, &e);

		if (r != cases[i].ret || u != cases[i].uid || g != cases[i].gid)
			fail_msg("--user \"%s\": %d, %u:%u; want %d, %u:%u", cases[i].spec, r,
				 (unsigned)u, (unsigned)g, cases[i].ret, (unsigned)cases[i].uid,
				 (unsigned)cases[i].gid);
		if (cases[i].why && strcmp(e.why, cases[i].why))
			fail_msg("--user \"%s\": \"%s\", want \"%s\"", cases[i].spec, e.why,
				 cases[i].why);
		/* err is optional */
		u = g = 7;
		if (launch__resolve_user(cases[i].spec, &u, &g, NULL) != cases[i].ret)
			fail_msg("--user \"%s\" without err: not %d", cases[i].spec, cases[i].ret);
	}
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
		cmocka_unit_test(test_env_cases),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_resolve_user_cases),
		cmocka_unit_test(test_resolve_user_invoker),
	};

	/* the invoker tests set these; start from a known state */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
