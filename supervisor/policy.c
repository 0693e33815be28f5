/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Policy v1: strict parsing and validation with jansson. Every error
 * names the JSON path of the offending value and a short reason; the
 * validated document is re-serialised in a canonical form whose sha256
 * identifies the policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "policy.h"

#define POL_MAX_BYTES (1024 * 1024)  /* largest policy accepted */
#define POL_UNIX_PATH_MAX 107        /* sun_path is 108 with the NUL */
#define POL_ENV_NAME_MAX 255
#define POL_ENV_VALUE_MAX (32 * 1024)
#define POL_SYSCALL_NAME_MAX 63
#define POL_WHERE_MAX sizeof(((struct rf_error *)0)->where)
#define POL_QUOTE_MAX 96             /* bytes of a quoted value in a message */

static int pol_fail(struct rf_error *err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int pol_fail(struct rf_error *err, const char *where, const char *fmt, ...)
{
	va_list ap;

	err->err = -EINVAL;
	snprintf(err->where, sizeof(err->where), "%s", where);
	va_start(ap, fmt);
	vsnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int pol_nomem(struct rf_error *err)
{
	err->err = -ENOMEM;
	snprintf(err->where, sizeof(err->where), "$");
	snprintf(err->why, sizeof(err->why), "out of memory");
	return -ENOMEM;
}

/* A value quoted for a message: printable ASCII as is, the rest as \xNN,
 * so nothing from the file can drive the terminal. Truncated with "...". */
static void pol_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 8)
		return;
	buf[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (o + 8 >= len || o >= POL_QUOTE_MAX) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c >= 0x20 && c < 0x7f) {
			buf[o++] = (char)c;
		} else {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

static void pol_where_key(char *buf, const char *where, const char *key)
{
	snprintf(buf, POL_WHERE_MAX, "%s.%s", where, key);
}

static void pol_where_idx(char *buf, const char *where, size_t i)
{
	snprintf(buf, POL_WHERE_MAX, "%s[%zu]", where, i);
}

static int pol_check_keys(json_t *obj, const char *where,
			  const char *const *allowed, struct rf_error *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *a;
		char q[POL_QUOTE_MAX + 8];

		for (a = allowed; *a; a++)
			if (strcmp(*a, key) == 0)
				break;
		if (!*a) {
			pol_quote(q, sizeof(q), key);
			return pol_fail(err, where, "unknown key %s", q);
		}
	}
	return 0;
}

/* A string without NUL bytes (jansson lets them through with ALLOW_NUL
 * so that they can be refused here rather than silently truncated). */
static int pol_get_string(json_t *v, const char *where, const char **ret_s,
			  struct rf_error *err)
{
	if (!json_is_string(v))
		return pol_fail(err, where, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return pol_fail(err, where, "string must not contain NUL bytes");
	*ret_s = json_string_value(v);
	return 0;
}

static int pol_get_uint(json_t *v, const char *where, uint64_t min,
			uint64_t max, struct rf_opt_u64 *ret_v, struct rf_error *err)
{
	json_int_t i;

	if (!json_is_integer(v))
		return pol_fail(err, where, "expected an integer");
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
		return pol_fail(err, where, "out of range (%llu-%llu)",
				(unsigned long long)min, (unsigned long long)max);
	ret_v->set = true;
	ret_v->v = (uint64_t)i;
	return 0;
}

/* "unrestricted" is the only string a class accepts. */
static bool pol_is_unrestricted(json_t *v)
{
	return json_is_string(v) && strcmp(json_string_value(v), "unrestricted") == 0 &&
	       json_string_length(v) == strlen("unrestricted");
}

int policy__check_path(const char *path, struct rf_error *err)
{
	const char *p, *fmt = NULL;
	size_t len;

	if (!path || !*path)
		fmt = "path must not be empty";
	else if (path[0] != '/')
		fmt = "path must be absolute";
	else if ((len = strlen(path)) > RF_POLICY_PATH_MAX)
		fmt = "path must be at most 255 bytes";
	else if (strpbrk(path, "*?"))
		fmt = "path must not contain wildcards ('*', '?')";
	else if (strstr(path, "//"))
		fmt = "path must not contain \"//\"";

	/* Components between slashes: "." and ".." would let one entry
	 * name a different file than it appears to. */
	for (p = path; !fmt && p && *p; ) {
		const char *end = strchr(p + 1, '/');
		size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);

		if (n == 1 && p[1] == '.')
			fmt = "path must not contain \".\" components";
		else if (n == 2 && p[1] == '.' && p[2] == '.')
			fmt = "path must not contain \"..\" components";
		p = end;
	}
	/* The caller knows the JSON path and puts it in err->where. */
	if (fmt)
		return rf_error_set(err, -EINVAL, NULL, "%s", fmt);
	return 0;
}

typedef int pol_entry_fn(const char *s, const char *where, void *elem,
			 struct rf_error *err);

/*
 * An array of strings, each parsed by entry() into the i-th of n elements
 * of size elem (*ret_v, calloc'd). The element count is raised before
 * entry() runs, so a half-filled element is freed with the rest (entry()
 * leaves a failed element freeable). expected: the message for a value
 * that is no array.
 */
static int pol_parse_strings(json_t *v, const char *where, const char *expected,
			     void **ret_v, size_t elem, size_t *ret_n, pol_entry_fn *entry,
			     struct rf_error *err)
{
	char w[POL_WHERE_MAX];
	size_t i, n;
	int r;

	if (!json_is_array(v))
		return pol_fail(err, where, "%s", expected);
	n = json_array_size(v);
	if (n == 0)
		return 0;
	*ret_v = calloc(n, elem);
	if (!*ret_v)
		return pol_nomem(err);
	for (i = 0; i < n; i++) {
		const char *s;

		pol_where_idx(w, where, i);
		r = pol_get_string(json_array_get(v, i), w, &s, err);
		if (r < 0)
			return r;
		(*ret_n)++;
		r = entry(s, w, (char *)*ret_v + i * elem, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A class that is "unrestricted" or an allowlist of what. */
static int pol_parse_class_list(json_t *v, const char *where, const char *what,
				enum rf_confine *ret_confine, void **ret_v, size_t elem,
				size_t *ret_n, pol_entry_fn *entry, struct rf_error *err)
{
	char expected[96];

	if (pol_is_unrestricted(v)) {
		*ret_confine = RF_CONFINE_UNRESTRICTED;
		return 0;
	}
	snprintf(expected, sizeof(expected), "expected \"unrestricted\" or an array of %s", what);
	if (json_is_array(v))
		*ret_confine = RF_CONFINE_ALLOWLIST;
	return pol_parse_strings(v, where, expected, ret_v, elem, ret_n, entry, err);
}

static int pol_parse_path(const char *s, const char *where, void *elem, struct rf_error *err)
{
	struct rf_path_rule *rule = elem;
	int r;

	r = policy__check_path(s, err);
	if (r < 0)
		return rf_error_wrap(err, where);
	rule->path = strdup(s);
	if (!rule->path)
		return pol_nomem(err);
	rule->subtree = s[strlen(s) - 1] == '/';
	return 0;
}

static int pol_parse_path_list(json_t *arr, const char *where,
			       struct rf_path_list *list, struct rf_error *err)
{
	return pol_parse_strings(arr, where, "expected an array of paths", (void **)&list->v,
				 sizeof(*list->v), &list->n, pol_parse_path, err);
}

/* A class written as "unrestricted" (1) or as an object of keys (0). */
static int pol_class_object(json_t *v, const char *where, const char *const *keys,
			    struct rf_error *err)
{
	int r;

	if (pol_is_unrestricted(v))
		return 1;
	if (!json_is_object(v))
		return pol_fail(err, where, "expected \"unrestricted\" or an object");
	r = pol_check_keys(v, where, keys, err);
	return r < 0 ? r : 0;
}

static int pol_parse_files(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "read", "write", NULL };
	int r = pol_class_object(v, "$.files", keys, err);
	json_t *read, *write;

	if (r < 0)
		return r;
	p->files = r ? RF_CONFINE_UNRESTRICTED : RF_CONFINE_ALLOWLIST;
	if (r)
		return 0;
	read = json_object_get(v, "read");
	if (read)
		r = pol_parse_path_list(read, "$.files.read", &p->files_read, err);
	write = json_object_get(v, "write");
	if (!r && write)
		r = pol_parse_path_list(write, "$.files.write", &p->files_write, err);
	return r;
}

static int pol_parse_exec(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	return pol_parse_class_list(v, "$.exec", "paths", &p->exec, (void **)&p->exec_paths.v,
				    sizeof(*p->exec_paths.v), &p->exec_paths.n,
				    pol_parse_path, err);
}

static int pol_parse_connect_entry(const char *s, const char *where, void *ep,
				   struct rf_error *err)
{
	int r = endpoint__parse(s, ep, err);

	if (r == -ENOMEM)
		return pol_nomem(err);
	if (r < 0)
		return rf_error_wrap(err, where);
	return 0;
}

static int pol_parse_unix_entry(const char *s, const char *where, void *elem,
				struct rf_error *err)
{
	struct rf_unix_rule *rule = elem;
	size_t len = strlen(s);
	const char *c;
	int r;

	if (s[0] == '@') {
		if (len == 1)
			return pol_fail(err, where, "abstract socket name must not be empty");
		if (len - 1 > POL_UNIX_PATH_MAX)
			return pol_fail(err, where,
					"abstract socket name must be at most %d bytes",
					POL_UNIX_PATH_MAX);
		for (c = s + 1; *c; c++)
			if (*c < 0x21 || *c > 0x7e)
				return pol_fail(err, where,
						"abstract socket name must be printable ASCII (0x21-0x7e)");
		rule->abstract = true;
	} else {
		if (len > 0 && s[0] != '/')
			return pol_fail(err, where,
					"expected an absolute path or @abstract-name");
		if (len > POL_UNIX_PATH_MAX)
			return pol_fail(err, where,
					"unix socket path must be at most %d bytes",
					POL_UNIX_PATH_MAX);
		r = policy__check_path(s, err);
		if (r < 0)
			return rf_error_wrap(err, where);
		rule->subtree = s[len - 1] == '/';
	}
	rule->text = strdup(s);
	rule->name = strdup(rule->abstract ? s + 1 : s);
	if (!rule->text || !rule->name)
		return pol_nomem(err);
	return 0;
}

static int pol_parse_network(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "connect", "unix", NULL };
	int r = pol_class_object(v, "$.network", keys, err);
	json_t *c, *u;

	if (r < 0)
		return r;
	/* An object confines both parts; an absent key allows nothing. */
	p->net_connect = r ? RF_CONFINE_UNRESTRICTED : RF_CONFINE_ALLOWLIST;
	p->net_unix = p->net_connect;
	if (r)
		return 0;
	c = json_object_get(v, "connect");
	if (c)
		r = pol_parse_class_list(c, "$.network.connect", "endpoints", &p->net_connect,
					 (void **)&p->connect, sizeof(*p->connect),
					 &p->n_connect, pol_parse_connect_entry, err);
	u = json_object_get(v, "unix");
	if (!r && u)
		r = pol_parse_class_list(u, "$.network.unix", "socket names", &p->net_unix,
					 (void **)&p->unix_rules, sizeof(*p->unix_rules),
					 &p->n_unix, pol_parse_unix_entry, err);
	return r;
}

static bool pol_is_env_name(const char *s)
{
	const char *c;

	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (c = s + 1; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

static int pol_check_env_name(const char *name, const char *where,
			      struct rf_error *err)
{
	char q[POL_QUOTE_MAX + 8];

	if (strlen(name) > POL_ENV_NAME_MAX)
		return pol_fail(err, where,
				"variable name must be at most %d bytes",
				POL_ENV_NAME_MAX);
	if (!pol_is_env_name(name)) {
		pol_quote(q, sizeof(q), name);
		return pol_fail(err, where,
				"invalid variable name %s (expected [A-Za-z_][A-Za-z0-9_]*)",
				q);
	}
	return 0;
}

/*
 * Array of unique names, each checked by check(). A jansson object is the
 * set of names seen, so a large list stays linear.
 */
static int pol_parse_name_list(json_t *arr, const char *where, const char *what,
			       int (*check)(const char *, const char *,
					    struct rf_error *),
			       char ***ret_v, size_t *ret_n, struct rf_error *err)
{
	char w[POL_WHERE_MAX], q[POL_QUOTE_MAX + 8];
	json_t *seen = NULL;
	size_t i, n;
	int r = 0;

	n = json_array_size(arr);
	if (n == 0)
		return 0;
	seen = json_object();
	*ret_v = calloc(n, sizeof(**ret_v));
	if (!seen || !*ret_v) {
		r = pol_nomem(err);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const char *s;

		pol_where_idx(w, where, i);
		r = pol_get_string(json_array_get(arr, i), w, &s, err);
		if (r < 0)
			goto cleanup;
		r = check(s, w, err);
		if (r < 0)
			goto cleanup;
		if (json_object_get(seen, s)) {
			pol_quote(q, sizeof(q), s);
			r = pol_fail(err, w, "duplicate %s %s", what, q);
			goto cleanup;
		}
		if (json_object_set_new(seen, s, json_true()) < 0) {
			r = pol_nomem(err);
			goto cleanup;
		}
		(*ret_v)[i] = strdup(s);
		if (!(*ret_v)[i]) {
			r = pol_nomem(err);
			goto cleanup;
		}
		(*ret_n)++;
	}
cleanup:
	json_decref(seen);
	return r;
}

static int pol_parse_env_set(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	const char *where = "$.env.set", *name, *s;
	char w[POL_WHERE_MAX];
	json_t *val;
	size_t n;
	int r;

	if (!json_is_object(v))
		return pol_fail(err, where, "expected an object of name: value strings");
	n = json_object_size(v);
	if (n == 0)
		return 0;
	p->env_set = calloc(n, sizeof(*p->env_set));
	if (!p->env_set)
		return pol_nomem(err);
	json_object_foreach(v, name, val) {
		struct rf_env_var *e = &p->env_set[p->n_env_set];

		r = pol_check_env_name(name, where, err);
		if (r < 0)
			return r;
		pol_where_key(w, where, name);
		r = pol_get_string(val, w, &s, err);
		if (r < 0)
			return r;
		if (strlen(s) > POL_ENV_VALUE_MAX)
			return pol_fail(err, w, "value must be at most %d bytes",
					POL_ENV_VALUE_MAX);
		p->n_env_set++;
		e->name = strdup(name);
		e->value = strdup(s);
		if (!e->name || !e->value)
			return pol_nomem(err);
	}
	return 0;
}

static int pol_parse_env(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "pass", "set", NULL };
	json_t *pass, *set;
	int r;

	if (!json_is_object(v))
		return pol_fail(err, "$.env", "expected an object");
	r = pol_check_keys(v, "$.env", keys, err);
	if (r < 0)
		return r;
	pass = json_object_get(v, "pass");
	if (pass) {
		if (!json_is_array(pass))
			return pol_fail(err, "$.env.pass",
					"expected an array of variable names");
		r = pol_parse_name_list(pass, "$.env.pass", "variable name",
					pol_check_env_name, &p->env_pass,
					&p->n_env_pass, err);
		if (r < 0)
			return r;
	}
	set = json_object_get(v, "set");
	if (set) {
		r = pol_parse_env_set(set, p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One optional bounded integer member of obj. */
struct pol_uint_field {
	const char *key;
	uint64_t min, max;
	size_t offset;               /* of the struct rf_opt_u64 in base */
};

static int pol_parse_uint_fields(json_t *obj, const char *where,
				 const struct pol_uint_field *fields, void *base,
				 struct rf_error *err)
{
	const struct pol_uint_field *f;
	char w[POL_WHERE_MAX];
	json_t *v;
	int r;

	for (f = fields; f->key; f++) {
		v = json_object_get(obj, f->key);
		if (!v)
			continue;
		pol_where_key(w, where, f->key);
		r = pol_get_uint(v, w, f->min, f->max,
				 (struct rf_opt_u64 *)((char *)base + f->offset), err);
		if (r < 0)
			return r;
	}
	return 0;
}

#define POL_PIDS_MAX 4194304ULL          /* PID_MAX_LIMIT */
#define POL_MEMORY_MB_MAX 16777216ULL    /* 16 TiB */
#define POL_CPU_PERCENT_MAX 100000ULL    /* 1000 CPUs */

static int pol_parse_limits(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "pids", "memory_mb", "cpu_percent",
					     "wall_seconds", "output_bytes", NULL };
	static const struct pol_uint_field fields[] = {
		{ "pids", 1, POL_PIDS_MAX, offsetof(struct rf_limits, pids) },
		{ "memory_mb", 1, POL_MEMORY_MB_MAX, offsetof(struct rf_limits, memory_mb) },
		{ "cpu_percent", 1, POL_CPU_PERCENT_MAX, offsetof(struct rf_limits, cpu_percent) },
		{ "wall_seconds", 1, 31536000ULL, offsetof(struct rf_limits, wall_seconds) },
		{ "output_bytes", 1, 1ULL << 50, offsetof(struct rf_limits, output_bytes) },
		{},
	};
	int r;

	if (!json_is_object(v))
		return pol_fail(err, "$.limits", "expected an object");
	r = pol_check_keys(v, "$.limits", keys, err);
	if (r < 0)
		return r;
	if (json_object_size(v) == 0)
		return pol_fail(err, "$.limits", "expected at least one limit");
	p->limits.present = true;
	return pol_parse_uint_fields(v, "$.limits", fields, &p->limits, err);
}

static int pol_check_syscall_name(const char *s, const char *where,
				  struct rf_error *err)
{
	char q[POL_QUOTE_MAX + 8];
	size_t len = strlen(s), i;
	bool ok = len >= 1 && len <= POL_SYSCALL_NAME_MAX;

	for (i = 0; ok && i < len; i++)
		ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		     s[i] == '_';
	if (!ok) {
		pol_quote(q, sizeof(q), s);
		return pol_fail(err, where,
				"invalid syscall name %s (expected [a-z0-9_]{1,63})", q);
	}
	return 0;
}

static int pol_parse_syscalls(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "allow", "on_violation", NULL };
	json_t *allow, *onv;
	const char *s;
	int r;

	if (!json_is_object(v))
		return pol_fail(err, "$.syscalls", "expected an object");
	r = pol_check_keys(v, "$.syscalls", keys, err);
	if (r < 0)
		return r;
	allow = json_object_get(v, "allow");
	if (!allow)
		return pol_fail(err, "$.syscalls", "missing required key \"allow\"");
	if (!json_is_array(allow) || json_array_size(allow) == 0)
		return pol_fail(err, "$.syscalls.allow",
				"expected a non-empty array of syscall names");
	p->syscalls.present = true;
	r = pol_parse_name_list(allow, "$.syscalls.allow", "syscall name",
				pol_check_syscall_name, &p->syscalls.allow,
				&p->syscalls.n_allow, err);
	if (r < 0)
		return r;
	onv = json_object_get(v, "on_violation");
	if (onv) {
		r = pol_get_string(onv, "$.syscalls.on_violation", &s, err);
		if (r < 0)
			return r;
		if (strcmp(s, "deny") == 0)
			p->syscalls.on_violation = RF_VIOLATION_DENY;
		else if (strcmp(s, "alert") == 0)
			p->syscalls.on_violation = RF_VIOLATION_ALERT;
		else
			return pol_fail(err, "$.syscalls.on_violation",
					"expected \"deny\" or \"alert\"");
	}
	return 0;
}

static int pol_parse_monitor(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "deny_burst", "cpu_percent",
					     "memory_mb", "pids", NULL };
	static const char *const burst_keys[] = { "count", "window_ms", NULL };
	static const struct pol_uint_field fields[] = {
		{ "cpu_percent", 1, POL_CPU_PERCENT_MAX, offsetof(struct rf_monitor, cpu_percent) },
		{ "memory_mb", 1, POL_MEMORY_MB_MAX, offsetof(struct rf_monitor, memory_mb) },
		{ "pids", 1, POL_PIDS_MAX, offsetof(struct rf_monitor, pids) },
		{},
	};
	static const struct pol_uint_field burst_fields[] = {
		{ "count", 1, 1000000ULL, offsetof(struct rf_monitor, deny_burst_count) },
		{ "window_ms", 1, 3600000ULL, offsetof(struct rf_monitor, deny_burst_window_ms) },
		{},
	};
	json_t *burst;
	int r;

	if (!json_is_object(v))
		return pol_fail(err, "$.monitor", "expected an object");
	r = pol_check_keys(v, "$.monitor", keys, err);
	if (r < 0)
		return r;
	p->monitor.present = true;
	burst = json_object_get(v, "deny_burst");
	if (burst) {
		if (!json_is_object(burst))
			return pol_fail(err, "$.monitor.deny_burst", "expected an object");
		r = pol_check_keys(burst, "$.monitor.deny_burst", burst_keys, err);
		if (r < 0)
			return r;
		if (!json_object_get(burst, "count"))
			return pol_fail(err, "$.monitor.deny_burst",
					"missing required key \"count\"");
		if (!json_object_get(burst, "window_ms"))
			return pol_fail(err, "$.monitor.deny_burst",
					"missing required key \"window_ms\"");
		r = pol_parse_uint_fields(burst, "$.monitor.deny_burst", burst_fields,
					  &p->monitor, err);
		if (r < 0)
			return r;
	}
	return pol_parse_uint_fields(v, "$.monitor", fields, &p->monitor, err);
}

static bool pol_is_id(const char *s)
{
	size_t i, len = strlen(s);

	if (len < 1 || len > RF_POLICY_ID_MAX)
		return false;
	for (i = 0; i < len; i++) {
		bool alnum = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9');

		if (!alnum && (i == 0 || s[i] != '-'))
			return false;
	}
	return true;
}

static int pol_parse_root(json_t *root, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "version", "id", "mode", "approximate", "files",
					     "exec", "network", "env", "limits", "syscalls",
					     "monitor", NULL };
	static const struct {
		const char *key;
		int (*parse)(json_t *, struct rf_policy *, struct rf_error *);
	} classes[] = {
		{ "files", pol_parse_files },
		{ "exec", pol_parse_exec },
		{ "network", pol_parse_network },
		{ "env", pol_parse_env },
		{ "limits", pol_parse_limits },
		{ "syscalls", pol_parse_syscalls },
		{ "monitor", pol_parse_monitor },
	};
	json_t *v;
	const char *s;
	size_t i;
	int r;

	if (!json_is_object(root))
		return pol_fail(err, "$", "expected an object");

	/* The version first: a newer policy should say so rather than
	 * fail on the first key this parser does not know. */
	v = json_object_get(root, "version");
	if (!v)
		return pol_fail(err, "$", "missing required key \"version\"");
	if (!json_is_integer(v))
		return pol_fail(err, "$.version", "expected an integer");
	if (json_integer_value(v) != 1)
		return pol_fail(err, "$.version", "unsupported version %lld (expected 1)",
				(long long)json_integer_value(v));
	p->version = 1;

	r = pol_check_keys(root, "$", keys, err);
	if (r < 0)
		return r;

	v = json_object_get(root, "id");
	if (!v)
		return pol_fail(err, "$", "missing required key \"id\"");
	r = pol_get_string(v, "$.id", &s, err);
	if (r < 0)
		return r;
	if (!pol_is_id(s))
		return pol_fail(err, "$.id", "id must match [a-z0-9][a-z0-9-]{0,62}");
	snprintf(p->id, sizeof(p->id), "%s", s);

	p->mode = RF_MODE_ENFORCE;
	v = json_object_get(root, "mode");
	if (v) {
		r = pol_get_string(v, "$.mode", &s, err);
		if (r < 0)
			return r;
		if (strcmp(s, "audit") == 0)
			p->mode = RF_MODE_AUDIT;
		else if (strcmp(s, "enforce") != 0)
			return pol_fail(err, "$.mode", "expected \"enforce\" or \"audit\"");
	}

	v = json_object_get(root, "approximate");
	if (v) {
		if (!json_is_boolean(v))
			return pol_fail(err, "$.approximate", "expected true or false");
		p->approximate = json_is_true(v);
	}

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		v = json_object_get(root, classes[i].key);
		if (!v)
			continue;
		r = classes[i].parse(v, p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Canonical text: the validated document with defaults made explicit,
 * keys sorted, no whitespace, ASCII only; digest = sha256 of it. */
static int pol_canonicalise(json_t *root, struct rf_policy *p, struct rf_error *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0, i;

	if (!json_object_get(root, "mode") &&
	    json_object_set_new(root, "mode", json_string("enforce")) < 0)
		return pol_nomem(err);
	p->canonical = json_dumps(root, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!p->canonical)
		return pol_nomem(err);
	if (!EVP_Digest(p->canonical, strlen(p->canonical), md, &md_len,
			EVP_sha256(), NULL) || md_len != 32) {
		snprintf(err->where, sizeof(err->where), "$");
		snprintf(err->why, sizeof(err->why), "sha256 failed");
		return -EIO;
	}
	for (i = 0; i < md_len; i++)
		snprintf(p->digest + 2 * i, 3, "%02x", md[i]);
	return 0;
}

static int pol_load_buffer(const char *buf, size_t len, struct rf_policy **ret_policy,
			   struct rf_error *err)
{
	struct rf_policy *p = NULL;
	json_error_t jerr;
	json_t *root = NULL;
	int r;

	if (len > POL_MAX_BYTES) {
		snprintf(err->where, sizeof(err->where), "$");
		snprintf(err->why, sizeof(err->why), "policy larger than 1 MiB (%d bytes)",
			 POL_MAX_BYTES);
		return -EFBIG;
	}
	/* ALLOW_NUL so that "\u0000" is seen and refused, not truncated. */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_out_of_memory) {
			r = pol_nomem(err);
			goto cleanup;
		}
		r = pol_fail(err, "$", "line %d column %d: %s", jerr.line,
			     jerr.column, jerr.text);
		/* jansson quotes raw input ("near '...'"): keep control
		 * bytes from the file off the terminal. */
		for (char *c = err->why; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		goto cleanup;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		r = pol_nomem(err);
		goto cleanup;
	}
	r = pol_parse_root(root, p, err);
	if (r < 0)
		goto cleanup;
	r = pol_canonicalise(root, p, err);
	if (r < 0)
		goto cleanup;
	*ret_policy = p;
	p = NULL;
cleanup:
	policy__free(p);
	json_decref(root);
	return r;
}

int policy__load_string(const char *json, struct rf_policy **ret_policy,
			struct rf_error *err)
{
	struct rf_error dummy;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	if (!ret_policy)
		return -EINVAL;
	*ret_policy = NULL;
	if (!json)
		return pol_fail(err, "$", "no policy text");
	/* strnlen: a huge string is refused without scanning all of it. */
	return pol_load_buffer(json, strnlen(json, POL_MAX_BYTES + 1), ret_policy, err);
}

int policy__load_file(const char *file, struct rf_policy **ret_policy,
		      struct rf_error *err)
{
	struct rf_error dummy;
	char *buf = NULL;
	size_t len = 0;
	int fd = -1, r;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	if (!ret_policy)
		return -EINVAL;
	*ret_policy = NULL;
	if (!file)
		return pol_fail(err, "$", "no policy file");

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto io_error;
	}
	/* One byte past the limit tells "too large" from "exactly 1 MiB". */
	buf = malloc(POL_MAX_BYTES + 1);
	if (!buf) {
		r = pol_nomem(err);
		goto cleanup;
	}
	while (len < POL_MAX_BYTES + 1) {
		ssize_t n = read(fd, buf + len, POL_MAX_BYTES + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto io_error;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > POL_MAX_BYTES) {
		snprintf(err->where, sizeof(err->where), "%s", file);
		snprintf(err->why, sizeof(err->why),
			 "policy file larger than 1 MiB (%d bytes)", POL_MAX_BYTES);
		r = -EFBIG;
		goto cleanup;
	}
	r = pol_load_buffer(buf, len, ret_policy, err);
	goto cleanup;

io_error:
	snprintf(err->where, sizeof(err->where), "%s", file);
	snprintf(err->why, sizeof(err->why), "%s", strerror(-r));
cleanup:
	free(buf);
	if (fd >= 0)
		close(fd);
	return r;
}

static void pol_free_paths(struct rf_path_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

static void pol_free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void policy__free(struct rf_policy *p)
{
	size_t i;

	if (!p)
		return;
	pol_free_paths(&p->files_read);
	pol_free_paths(&p->files_write);
	pol_free_paths(&p->exec_paths);
	for (i = 0; i < p->n_connect; i++)
		endpoint__clear(&p->connect[i]);
	free(p->connect);
	for (i = 0; i < p->n_unix; i++) {
		free(p->unix_rules[i].text);
		free(p->unix_rules[i].name);
	}
	free(p->unix_rules);
	pol_free_strv(p->env_pass, p->n_env_pass);
	for (i = 0; i < p->n_env_set; i++) {
		free(p->env_set[i].name);
		free(p->env_set[i].value);
	}
	free(p->env_set);
	pol_free_strv(p->syscalls.allow, p->syscalls.n_allow);
	free(p->canonical);
	free(p);
}
