/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a policy may hold that the parser never sees: "$comment" members
 * (dropped from every object) and ${HOME}, ${PWD}, ${TMPDIR}, ${UID} in
 * strings, replaced by the invoking user's values before anything is
 * checked, so the trace and the plan show the paths the kernel is given.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "policy_internal.h"

#define POL_VAR_VALUE_MAX PATH_MAX

enum { VAR_HOME, VAR_PWD, VAR_TMPDIR, VAR_UID, VAR_MAX };

static const char *const var_names[VAR_MAX] = { "HOME", "PWD", "TMPDIR", "UID" };

struct pol_vars {
	char v[VAR_MAX][POL_VAR_VALUE_MAX];
	int err[VAR_MAX];            /* why a value is missing (negative errno) */
	bool used[VAR_MAX];
};

/* An absolute path without trailing '/' ("/" stays), or -EINVAL. */
static int var_set_path(char *dst, const char *src)
{
	size_t len;

	if (!src || src[0] != '/' || strlen(src) >= POL_VAR_VALUE_MAX)
		return -EINVAL;
	len = strlen(src);
	while (len > 1 && src[len - 1] == '/')
		len--;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

/* The invoking user: under sudo (root with SUDO_UID) the user who ran
 * sudo, as for the command's default --user; else the caller. */
static uid_t vars_uid(bool *ret_sudo)
{
	const char *s = getenv("SUDO_UID");
	char *end;
	unsigned long v;

	*ret_sudo = false;
	if (getuid() != 0 || !s || !*s)
		return getuid();
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= (uid_t)-1)
		return getuid();
	*ret_sudo = true;
	return (uid_t)v;
}

/* HOME from the environment (under sudo, whose HOME is root's: the
 * password database's), else the password database, as a shell would;
 * TMPDIR from the environment, else /tmp. */
static void vars_init(struct pol_vars *vs)
{
	char buf[4096];
	struct passwd pw, *res = NULL;
	char cwd[POL_VAR_VALUE_MAX];
	bool sudo;
	uid_t uid = vars_uid(&sudo);

	vs->err[VAR_HOME] = sudo ? -ENOENT : var_set_path(vs->v[VAR_HOME], getenv("HOME"));
	if (vs->err[VAR_HOME] &&
	    getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		vs->err[VAR_HOME] = var_set_path(vs->v[VAR_HOME], res->pw_dir);
	vs->err[VAR_PWD] = getcwd(cwd, sizeof(cwd)) ? var_set_path(vs->v[VAR_PWD], cwd) : -errno;
	if (var_set_path(vs->v[VAR_TMPDIR], getenv("TMPDIR")) < 0)
		snprintf(vs->v[VAR_TMPDIR], POL_VAR_VALUE_MAX, "/tmp");
	vs->err[VAR_TMPDIR] = 0;
	snprintf(vs->v[VAR_UID], POL_VAR_VALUE_MAX, "%u", (unsigned int)uid);
	vs->err[VAR_UID] = 0;
}

/* The variable written at s ("${NAME}..."), its length in *ret_len. */
static int var_lookup(const char *s, size_t left, size_t *ret_len)
{
	const char *end = memchr(s, '}', left);
	size_t n;
	int i;

	*ret_len = left;
	if (!end)
		return -ENOENT;
	n = (size_t)(end - s) - 2;
	*ret_len = n + 3;
	for (i = 0; i < VAR_MAX; i++)
		if (strlen(var_names[i]) == n && memcmp(s + 2, var_names[i], n) == 0)
			return i;
	return -ESRCH;
}

static int var_fail(struct rf_error *err, const char *where, const char *s, size_t len, int why)
{
	char name[POL_QUOTE_MAX], q[POL_QUOTE_MAX + 8];

	if (why == -ENOENT)
		return policy_json__fail(err, where, "unterminated \"${\" (write \"$${\" for a "
					 "literal \"${\")");
	snprintf(name, sizeof(name), "%.*s", (int)(len < 64 ? len : 64), s);
	policy_json__quote(q, sizeof(q), name);
	if (why == -ESRCH)
		return policy_json__fail(err, where, "unknown variable %s (known: ${HOME}, "
					 "${PWD}, ${TMPDIR}, ${UID})", q);
	return policy_json__fail(err, where, "variable %s has no value here: %s", q,
				 strerror(-why));
}

/* One string: "${NAME}" replaced, "$${" made "${". */
static int vars_string(json_t *str, const char *where, struct pol_vars *vs,
		       struct rf_error *err)
{
	const char *s = json_string_value(str);
	size_t len = json_string_length(str), i, n;
	char *out;
	FILE *f;
	int r = 0, v;

	if (!memmem(s, len, "${", 2))
		return 0;
	f = open_memstream(&out, &n);
	if (!f)
		return policy_json__nomem(err);
	for (i = 0; i < len && r == 0; i++) {
		size_t vlen = 0;

		if (s[i] == '$' && i + 2 < len && s[i + 1] == '$' && s[i + 2] == '{') {
			fputc('$', f);           /* "$${" is a literal "${" */
			i++;
		} else if (s[i] == '$' && i + 1 < len && s[i + 1] == '{') {
			v = var_lookup(s + i, len - i, &vlen);
			if (v >= 0 && vs->err[v])
				v = vs->err[v];
			if (v < 0)
				r = var_fail(err, where, s + i, vlen, v);
			else {
				fputs(vs->v[v], f);
				vs->used[v] = true;
			}
			i += vlen - 1;
		} else {
			fputc(s[i], f);
		}
	}
	if (fclose(f) != 0)
		r = r ? r : policy_json__nomem(err);
	if (r == 0 && json_string_setn(str, out, n) < 0)
		r = policy_json__nomem(err);
	free(out);
	return r;
}

static int vars_walk(json_t *v, const char *where, struct pol_vars *vs,
		     struct rf_error *err)
{
	char w[POL_WHERE_MAX];
	const char *key;
	json_t *m;
	void *tmp;
	size_t i;
	int r;

	if (json_is_string(v))
		return policy_json__collect(err, vars_string(v, where, vs, err));
	if (json_is_array(v)) {
		json_array_foreach(v, i, m) {
			policy_json__where_idx(w, where, i);
			r = vars_walk(m, w, vs, err);
			if (r < 0)
				return r;
		}
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	json_object_foreach_safe(v, tmp, key, m) {
		/* A comment anywhere, as in JSON Schema; never parsed. */
		if (strcmp(key, "$comment") == 0) {
			json_object_del(v, key);
			continue;
		}
		policy_json__where_key(w, where, key);
		r = vars_walk(m, w, vs, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The variables used, kept in p for the trace. */
static int vars_keep(const struct pol_vars *vs, struct rf_policy *p, struct rf_error *err)
{
	int i;

	p->vars = calloc(VAR_MAX, sizeof(*p->vars));
	if (!p->vars)
		return policy_json__nomem(err);
	for (i = 0; i < VAR_MAX; i++) {
		struct rf_env_var *e = &p->vars[p->n_vars];

		if (!vs->used[i])
			continue;
		p->n_vars++;
		e->name = strdup(var_names[i]);
		e->value = strdup(vs->v[i]);
		if (!e->name || !e->value)
			return policy_json__nomem(err);
	}
	return 0;
}

/* "$schema" at the root names the JSON Schema for editors and CI
 * (schemas/policy.schema.json's $id, or a path to it); never parsed. */
static int drop_schema_key(json_t *root, struct rf_error *err)
{
	json_t *v = json_is_object(root) ? json_object_get(root, "$schema") : NULL;

	if (!v)
		return 0;
	if (!json_is_string(v))
		return policy_json__fail(err, "$.$schema", "must be a string (the "
					 "policy's JSON Schema)");
	json_object_del(root, "$schema");
	return 0;
}

int policy_vars__apply(json_t *root, struct rf_policy *p, struct rf_error *err)
{
	struct pol_vars *vs;
	int r = drop_schema_key(root, err);

	if (r)
		return r;
	vs = calloc(1, sizeof(*vs));
	if (!vs)
		return policy_json__nomem(err);
	vars_init(vs);
	r = vars_walk(root, "$", vs, err);
	if (r == 0)
		r = vars_keep(vs, p, err);
	free(vs);
	return r;
}

json_t *policy__variables_json(const struct rf_policy *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < p->n_vars; i++)
		json_object_set_new(o, p->vars[i].name, json_string(p->vars[i].value));
	return o;
}

/* One string with every "${" written "$${" again (its value unchanged
 * when loaded). */
static int escape_string(json_t *str)
{
	const char *s = json_string_value(str);
	size_t len = json_string_length(str), i, n;
	char *out;
	FILE *f;
	int r = 0;

	if (!memmem(s, len, "${", 2))
		return 0;
	f = open_memstream(&out, &n);
	if (!f)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		if (s[i] == '$' && i + 1 < len && s[i + 1] == '{')
			fputc('$', f);
		fputc(s[i], f);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	if (json_string_setn(str, out, n) < 0)
		r = -ENOMEM;
	free(out);
	return r;
}

int policy_vars__escape(json_t *v)
{
	const char *key;
	json_t *m;
	size_t i;
	int r = 0;

	if (json_is_string(v))
		return escape_string(v);
	if (json_is_array(v))
		json_array_foreach(v, i, m) {
			r = policy_vars__escape(m);
			if (r < 0)
				return r;
		}
	if (json_is_object(v))
		json_object_foreach(v, key, m) {
			r = policy_vars__escape(m);
			if (r < 0)
				return r;
		}
	return r;
}
