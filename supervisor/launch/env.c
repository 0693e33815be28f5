/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The sandbox environment, built from nothing: only what the policy names. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* A name the environment can carry: non-empty, no '='. The policy parser
 * validates names; this only keeps a malformed entry from producing an
 * entry that would read as a different variable. */
static bool env_name_ok(const char *name)
{
	return name && name[0] && !strchr(name, '=');
}

/* Index of the entry for name in v[0..n), or -1. */
static long env_find(char *const *v, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '=')
			return (long)i;
	return -1;
}

static char *env_entry(const char *name, const char *value)
{
	char *s = NULL;

	if (asprintf(&s, "%s=%s", name, value ? value : "") < 0)
		return NULL;
	return s;
}

int env__build(const struct rf_policy *policy, char *const *parent_env,
	       char ***ret_envp)
{
	size_t n_pass = policy ? policy->n_env_pass : 0;
	size_t n_set = policy ? policy->n_env_set : 0;
	char **v = NULL;
	size_t n = 0;
	int r;

	v = calloc(n_pass + n_set + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;

	for (size_t i = 0; i < n_pass; i++) {
		const char *name = policy->env_pass[i];
		const char *value;

		if (!env_name_ok(name) || env_find(v, n, name) >= 0)
			continue;
		value = env__get(parent_env, name);
		if (!value)
			continue; /* absent in the parent: not an error */
		v[n] = env_entry(name, value);
		if (!v[n]) {
			r = -ENOMEM;
			goto cleanup;
		}
		n++;
	}

	for (size_t i = 0; i < n_set; i++) {
		const struct rf_env_var *e = &policy->env_set[i];
		char *s;
		long at;

		if (!env_name_ok(e->name))
			continue;
		s = env_entry(e->name, e->value);
		if (!s) {
			r = -ENOMEM;
			goto cleanup;
		}
		/* set wins over pass (and a later set over an earlier one),
		 * in place, so each name appears once */
		at = env_find(v, n, e->name);
		if (at >= 0) {
			free(v[at]);
			v[at] = s;
		} else {
			v[n++] = s;
		}
	}

	*ret_envp = v;
	return 0;

cleanup:
	env__free(v);
	return r;
}

void env__free(char **envp)
{
	if (!envp)
		return;
	for (char **p = envp; *p; p++)
		free(*p);
	free(envp);
}

const char *env__get(char *const *envp, const char *name)
{
	size_t len;

	if (!envp || !env_name_ok(name))
		return NULL;
	len = strlen(name);
	/* first match, as getenv() does */
	for (char *const *p = envp; *p; p++)
		if (strncmp(*p, name, len) == 0 && (*p)[len] == '=')
			return *p + len + 1;
	return NULL;
}
