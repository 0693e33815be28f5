/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The policy's classes: files, exec, network, env, limits, syscalls, monitor. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy_internal.h"
#include "rf_abi.h"

#define POL_UNIX_PATH_MAX 107        /* sun_path is 108 with the NUL */
#define POL_ENV_NAME_MAX 255
#define POL_ENV_VALUE_MAX (32 * 1024)
#define POL_SYSCALL_NAME_MAX 63

/* s copied into p->texts. */
static char *pol_text(struct rf_policy *p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *t = policy_json__text(p, n);

	return t ? memcpy(t, s, n) : NULL;
}

static int pol_parse_path(struct rf_policy *p, const char *s, const char *where, void *elem,
			  struct rf_error *err)
{
	struct rf_path_rule *rule = elem;
	int r;

	r = policy__check_path(s, err);
	if (r < 0)
		return rf_error_wrap(err, where);
	rule->path = pol_text(p, s);
	if (!rule->path)
		return policy_json__nomem(err);
	rule->subtree = s[strlen(s) - 1] == '/';
	return 0;
}

static int pol_parse_path_list(struct rf_policy *p, json_t *arr, const char *where,
			       struct rf_path_list *list, struct rf_error *err)
{
	return policy_json__parse_strings(arr, where, "expected an array of paths",
					  (void **)&list->v, sizeof(*list->v), &list->n,
					  pol_parse_path, p, err);
}

static int pol_parse_files(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "read", "write", "tmp", NULL };
	int r = policy_json__class_object(v, "$.files", keys, err);
	json_t *read, *write, *tmp;

	if (r < 0)
		return r;
	p->files = r ? RF_CONFINE_UNRESTRICTED : RF_CONFINE_ALLOWLIST;
	if (r)
		return 0;
	read = json_object_get(v, "read");
	if (read)
		r = policy_json__collect(err, pol_parse_path_list(p, read, "$.files.read",
								  &p->files_read, err));
	write = json_object_get(v, "write");
	if (!r && write)
		r = pol_parse_path_list(p, write, "$.files.write", &p->files_write, err);
	tmp = json_object_get(v, "tmp");
	if (!r && tmp) {
		const char *t = json_string_value(tmp);

		if (t && !strcmp(t, "private"))
			p->files_tmp = RF_TMP_PRIVATE;
		else if (t && !strcmp(t, "shared"))
			p->files_tmp = RF_TMP_SHARED;
		else
			r = policy_json__fail(err, "$.files.tmp",
					      "expected \"private\" or \"shared\"");
	}
	return r;
}

static int pol_parse_exec(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	return policy_json__parse_class_list(v, "$.exec", "paths", &p->exec,
					     (void **)&p->exec_paths.v,
					     sizeof(*p->exec_paths.v), &p->exec_paths.n,
					     pol_parse_path, p, err);
}

static char *pol_alloc_text(void *p, size_t bytes)
{
	return policy_json__text(p, bytes);
}

static int pol_parse_connect_entry(struct rf_policy *p, const char *s, const char *where,
				   void *ep, struct rf_error *err)
{
	int r = endpoint__parse_in(s, ep, pol_alloc_text, p, err);

	if (r == -ENOMEM)
		return policy_json__nomem(err);
	if (r < 0)
		return rf_error_wrap(err, where);
	return 0;
}

static int pol_parse_unix_entry(struct rf_policy *p, const char *s, const char *where,
				void *elem, struct rf_error *err)
{
	struct rf_unix_rule *rule = elem;
	size_t len = strlen(s);
	const char *c;
	int r;

	if (s[0] == '@') {
		if (len == 1)
			return policy_json__fail(err, where,
						 "abstract socket name must not be empty");
		if (len - 1 > POL_UNIX_PATH_MAX)
			return policy_json__fail(err, where,
						 "abstract socket name must be at most %d bytes",
						 POL_UNIX_PATH_MAX);
		for (c = s + 1; *c; c++)
			if (*c < 0x21 || *c > 0x7e)
				return policy_json__fail(err, where,
							 "abstract socket name must be printable ASCII (0x21-0x7e)");
		rule->abstract = true;
	} else {
		if (len > 0 && s[0] != '/')
			return policy_json__fail(err, where,
						 "expected an absolute path or @abstract-name");
		if (len > POL_UNIX_PATH_MAX)
			return policy_json__fail(err, where,
						 "unix socket path must be at most %d bytes",
						 POL_UNIX_PATH_MAX);
		r = policy__check_path(s, err);
		if (r < 0)
			return rf_error_wrap(err, where);
		rule->subtree = s[len - 1] == '/';
	}
	rule->text = pol_text(p, s);
	rule->name = rule->text ? rule->text + (rule->abstract ? 1 : 0) : NULL;
	if (!rule->text || !rule->name)
		return policy_json__nomem(err);
	return 0;
}

static int pol_parse_upstream(struct rf_policy *p, const char *s, const char *where,
			      void *elem, struct rf_error *err)
{
	(void)p;
	return endpoint__parse_upstream(s, elem, err) < 0 ? rf_error_wrap(err, where) : 0;
}

static int pol_parse_rebind_allow(struct rf_policy *p, const char *s, const char *where,
				  void *elem, struct rf_error *err)
{
	(void)p;
	return endpoint__parse_prefix(s, elem, err) < 0 ? rf_error_wrap(err, where) : 0;
}

/* "dns": "gate" | "once" | {"mode": ..., "upstream": [...], "rebind_allow": [...]} */
static int pol_parse_dns(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const modes[] = { "gate", "once" };
	static const char *const keys[] = { "mode", "upstream", "rebind_allow", NULL };
	struct rf_dns *d = &p->dns;
	json_t *u, *ra, *wrap = NULL;
	int r;

	d->set = true;
	if (json_is_string(v)) {
		wrap = json_pack("{s:O}", "mode", v);
		if (!wrap)
			return policy_json__nomem(err);
		v = wrap;
	}
	if (!json_is_object(v))
		return policy_json__fail(err, "$.network.dns",
					 "expected \"gate\", \"once\" or an object");
	r = policy_json__check_keys(v, "$.network.dns", keys, err);
	if (r >= 0)
		r = policy_json__get_choice(v, "mode", "$.network.dns.mode", modes, 2, err);
	if (r >= 0) {
		d->mode = r == 1 ? RF_DNS_ONCE : RF_DNS_GATE;
		r = 0;
	}
	u = json_object_get(v, "upstream");
	if (!r && u)
		r = policy_json__parse_strings(u, "$.network.dns.upstream",
					       "expected an array of resolver addresses",
					       (void **)&d->upstream, sizeof(*d->upstream),
					       &d->n_upstream, pol_parse_upstream, p, err);
	ra = json_object_get(v, "rebind_allow");
	if (!r && ra)
		r = policy_json__parse_strings(ra, "$.network.dns.rebind_allow",
					       "expected an array of addresses or CIDRs",
					       (void **)&d->rebind_allow, sizeof(*d->rebind_allow),
					       &d->n_rebind_allow, pol_parse_rebind_allow, p, err);
	json_decref(wrap);
	return r;
}

/* Wildcards exist only through the gate: nothing resolves "*." once. */
static int pol_check_dns(const struct rf_policy *p, struct rf_error *err)
{
	char w[POL_WHERE_MAX];
	size_t i;

	for (i = 0; i < p->n_connect; i++) {
		if (!p->connect[i].wildcard || p->dns.mode == RF_DNS_GATE)
			continue;
		policy_json__where_idx(w, "$.network.connect", i);
		return policy_json__fail(err, w, "a wildcard needs \"dns\": \"gate\"");
	}
	return 0;
}

static int pol_parse_network(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "connect", "unix", "dns", NULL };
	int r = policy_json__class_object(v, "$.network", keys, err);
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
		r = policy_json__parse_class_list(c, "$.network.connect", "endpoints",
						  &p->net_connect,
						  (void **)&p->connect, sizeof(*p->connect),
						  &p->n_connect, pol_parse_connect_entry, p, err);
	r = policy_json__collect(err, r);
	u = json_object_get(v, "unix");
	if (!r && u)
		r = policy_json__parse_class_list(u, "$.network.unix", "socket names", &p->net_unix,
						  (void **)&p->unix_rules, sizeof(*p->unix_rules),
						  &p->n_unix, pol_parse_unix_entry, p, err);
	if (!r && json_object_get(v, "dns"))
		r = pol_parse_dns(json_object_get(v, "dns"), p, err);
	if (!r)
		r = pol_check_dns(p, err);
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
		return policy_json__fail(err, where,
					 "variable name must be at most %d bytes",
					 POL_ENV_NAME_MAX);
	if (!pol_is_env_name(name)) {
		policy_json__quote(q, sizeof(q), name);
		return policy_json__fail(err, where, "invalid variable name %s "
					 "(expected [A-Za-z_][A-Za-z0-9_]*)", q);
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
		r = policy_json__nomem(err);
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const char *s;

		policy_json__where_idx(w, where, i);
		(*ret_n)++;                  /* a bad entry leaves a NULL */
		r = policy_json__get_string(json_array_get(arr, i), w, &s, err);
		if (r == 0)
			r = check(s, w, err);
		if (r == 0 && json_object_get(seen, s)) {
			policy_json__quote(q, sizeof(q), s);
			r = policy_json__fail(err, w, "duplicate %s %s", what, q);
		}
		if (r == 0 && json_object_set_new(seen, s, json_true()) < 0)
			r = policy_json__nomem(err);
		if (r == 0 && !((*ret_v)[i] = strdup(s)))
			r = policy_json__nomem(err);
		r = policy_json__collect(err, r);
		if (r < 0)
			goto cleanup;
	}
cleanup:
	json_decref(seen);
	return r;
}

static int pol_parse_env_set(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	const char *where = "$.env.set", *name, *s = NULL;
	char w[POL_WHERE_MAX];
	bool bad;
	json_t *val;
	size_t n;
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, where, "expected an object of name: value strings");
	n = json_object_size(v);
	if (n == 0)
		return 0;
	p->env_set = calloc(n, sizeof(*p->env_set));
	if (!p->env_set)
		return policy_json__nomem(err);
	json_object_foreach(v, name, val) {
		struct rf_env_var *e = &p->env_set[p->n_env_set];

		policy_json__where_key(w, where, name);
		r = pol_check_env_name(name, w, err);
		if (r == 0)
			r = policy_json__get_string(val, w, &s, err);
		if (r == 0 && strlen(s) > POL_ENV_VALUE_MAX)
			r = policy_json__fail(err, w, "value must be at most %d bytes",
					      POL_ENV_VALUE_MAX);
		bad = r < 0;
		r = policy_json__collect(err, r);
		if (r < 0)
			return r;
		if (bad)
			continue;
		p->n_env_set++;
		e->name = strdup(name);
		e->value = strdup(s);
		if (!e->name || !e->value)
			return policy_json__nomem(err);
	}
	return 0;
}

static int pol_parse_env(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "pass", "set", NULL };
	json_t *pass, *set;
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, "$.env", "expected an object");
	r = policy_json__check_keys(v, "$.env", keys, err);
	if (r < 0)
		return r;
	pass = json_object_get(v, "pass");
	if (pass) {
		if (!json_is_array(pass))
			return policy_json__fail(err, "$.env.pass",
						 "expected an array of variable names");
		r = policy_json__collect(err, pol_parse_name_list(pass, "$.env.pass",
								  "variable name",
								  pol_check_env_name,
								  &p->env_pass,
								  &p->n_env_pass, err));
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
		policy_json__where_key(w, where, f->key);
		r = policy_json__get_uint(v, w, f->min, f->max,
					  (struct rf_opt_u64 *)((char *)base + f->offset), err);
		r = policy_json__collect(err, r);
		if (r < 0)
			return r;
	}
	return 0;
}

#define POL_PIDS_MAX 4194304ULL          /* PID_MAX_LIMIT */
#define POL_MEMORY_MB_MAX 16777216ULL    /* 16 TiB */
#define POL_CPU_PERCENT_MAX 100000ULL    /* 1000 CPUs */

#define POL_SCRATCH_MB_MAX 1048576ULL     /* 1 TiB of tmpfs */

/* "scratch": a path to mount an empty tmpfs on (absolute, not "/") and
 * its size, the write cap for everything below it. */
static int pol_parse_scratch(json_t *v, struct rf_scratch *sc, struct rf_error *err)
{
	static const char *const keys[] = { "path", "size_mb", NULL };
	static const struct pol_uint_field fields[] = {
		{ "size_mb", 1, POL_SCRATCH_MB_MAX, 0 },
		{},
	};
	struct rf_opt_u64 size = { 0 };
	const char *path;
	size_t len;
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, "$.limits.scratch",
					 "expected an object {\"path\": ..., \"size_mb\": ...}");
	r = policy_json__check_keys(v, "$.limits.scratch", keys, err);
	if (r < 0)
		return r;
	if (!json_object_get(v, "path"))
		return policy_json__fail(err, "$.limits.scratch", "missing required key \"path\"");
	if (!json_object_get(v, "size_mb"))
		return policy_json__fail(err, "$.limits.scratch",
					 "missing required key \"size_mb\"");
	r = policy_json__get_string(json_object_get(v, "path"), "$.limits.scratch.path",
				    &path, err);
	if (r < 0)
		return r;
	if (policy__check_path(path, err) < 0)
		return rf_error_wrap(err, "$.limits.scratch.path");
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 1)
		return policy_json__fail(err, "$.limits.scratch.path",
					 "must not be \"/\" (a tmpfs over the whole tree)");
	r = pol_parse_uint_fields(v, "$.limits.scratch", fields, &size, err);
	if (r < 0)
		return r;
	sc->path = strndup(path, len);
	if (!sc->path)
		return policy_json__nomem(err);
	sc->set = true;
	sc->size_mb = size.v;
	return 0;
}

static int pol_parse_limits(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "pids", "memory_mb", "cpu_percent",
					     "wall_seconds", "output_bytes", "scratch",
					     "egress_bytes", "disk_write_mb", NULL };
	static const struct pol_uint_field fields[] = {
		{ "pids", 1, POL_PIDS_MAX, offsetof(struct rf_limits, pids) },
		{ "memory_mb", 1, POL_MEMORY_MB_MAX, offsetof(struct rf_limits, memory_mb) },
		{ "cpu_percent", 1, POL_CPU_PERCENT_MAX, offsetof(struct rf_limits, cpu_percent) },
		{ "wall_seconds", 1, 31536000ULL, offsetof(struct rf_limits, wall_seconds) },
		{ "output_bytes", 1, 1ULL << 50, offsetof(struct rf_limits, output_bytes) },
		{ "egress_bytes", 1, 1ULL << 50, offsetof(struct rf_limits, egress_bytes) },
		{ "disk_write_mb", 1, 1ULL << 30, offsetof(struct rf_limits, disk_write_mb) },
		{},
	};
	json_t *scratch;
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, "$.limits", "expected an object");
	r = policy_json__check_keys(v, "$.limits", keys, err);
	if (r < 0)
		return r;
	if (json_object_size(v) == 0)
		return policy_json__fail(err, "$.limits", "expected at least one limit");
	p->limits.present = true;
	r = pol_parse_uint_fields(v, "$.limits", fields, &p->limits, err);
	r = policy_json__collect(err, r);
	if (r < 0)
		return r;
	scratch = json_object_get(v, "scratch");
	return scratch ? pol_parse_scratch(scratch, &p->limits.scratch, err) : 0;
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
		policy_json__quote(q, sizeof(q), s);
		return policy_json__fail(err, where,
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
		return policy_json__fail(err, "$.syscalls", "expected an object");
	r = policy_json__check_keys(v, "$.syscalls", keys, err);
	if (r < 0)
		return r;
	allow = json_object_get(v, "allow");
	if (!allow)
		return policy_json__fail(err, "$.syscalls", "missing required key \"allow\"");
	if (!json_is_array(allow) || json_array_size(allow) == 0)
		return policy_json__fail(err, "$.syscalls.allow",
					 "expected a non-empty array of syscall names");
	p->syscalls.present = true;
	r = pol_parse_name_list(allow, "$.syscalls.allow", "syscall name",
				pol_check_syscall_name, &p->syscalls.allow,
				&p->syscalls.n_allow, err);
	r = policy_json__collect(err, r);
	if (r < 0)
		return r;
	onv = json_object_get(v, "on_violation");
	if (onv) {
		r = policy_json__get_string(onv, "$.syscalls.on_violation", &s, err);
		if (r < 0)
			return r;
		if (strcmp(s, "deny") == 0)
			p->syscalls.on_violation = RF_VIOLATION_DENY;
		else if (strcmp(s, "alert") == 0)
			p->syscalls.on_violation = RF_VIOLATION_ALERT;
		else
			return policy_json__fail(err, "$.syscalls.on_violation",
						 "expected \"deny\" or \"alert\"");
	}
	return 0;
}

/* A monitor.exec entry: a program's name (matched against the exec'd
 * file's last component) or its absolute path (the whole file name as
 * exec'd), within what the monitor's exec sensor keeps of a file name. */
static int pol_check_program(const char *s, const char *where, struct rf_error *err)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= RF_MON_PATH_LEN)
		return policy_json__fail(err, where, "expected a program name or absolute path "
					 "of 1 to %d bytes", RF_MON_PATH_LEN - 1);
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return policy_json__fail(err, where, "control character in program");
	if (s[0] != '/' && strchr(s, '/'))
		return policy_json__fail(err, where, "expected a program name without '/' "
					 "or an absolute path");
	return 0;
}

/* A monitor.files entry: a path as files.read takes it (absolute, no
 * "." or ".." components, no wildcards); a trailing '/' names a subtree. */
static int pol_check_watch_path(const char *s, const char *where, struct rf_error *err)
{
	if (policy__check_path(s, err) < 0)
		return rf_error_wrap(err, where);
	return 0;
}

/* monitor.files */
static int pol_parse_monitor_files(json_t *v, struct rf_monitor *m, struct rf_error *err)
{
	json_t *fl = json_object_get(v, "files");

	if (!fl)
		return 0;
	if (!json_is_array(fl) || json_array_size(fl) == 0)
		return policy_json__fail(err, "$.monitor.files",
					 "expected a non-empty array of absolute paths");
	m->has_files = true;
	return policy_json__collect(err, pol_parse_name_list(fl, "$.monitor.files", "path",
							     pol_check_watch_path, &m->files,
							     &m->n_files, err));
}

/* "name": {"count": N, "window_ms": W}, both required. */
static int pol_parse_count_window(json_t *v, const char *where,
				  size_t count_off, size_t window_off, struct rf_monitor *m,
				  struct rf_error *err)
{
	static const char *const keys[] = { "count", "window_ms", NULL };
	const struct pol_uint_field fields[] = {
		{ "count", 1, 1000000ULL, count_off },
		{ "window_ms", 1, 3600000ULL, window_off },
		{},
	};
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, where, "expected an object");
	r = policy_json__check_keys(v, where, keys, err);
	if (r < 0)
		return r;
	if (!json_object_get(v, "count"))
		return policy_json__fail(err, where, "missing required key \"count\"");
	if (!json_object_get(v, "window_ms"))
		return policy_json__fail(err, where, "missing required key \"window_ms\"");
	return policy_json__collect(err, pol_parse_uint_fields(v, where, fields, m, err));
}

/* monitor.exec, monitor.on_alert */
static int pol_parse_monitor_actions(json_t *v, struct rf_monitor *m, struct rf_error *err)
{
	json_t *ex = json_object_get(v, "exec"), *oa = json_object_get(v, "on_alert");
	const char *s;
	int r;

	if (ex) {
		if (!json_is_array(ex) || json_array_size(ex) == 0)
			return policy_json__fail(err, "$.monitor.exec",
						 "expected a non-empty array of programs");
		m->has_exec = true;
		r = policy_json__collect(err, pol_parse_name_list(ex, "$.monitor.exec", "program",
								  pol_check_program, &m->exec,
								  &m->n_exec, err));
		if (r < 0)
			return r;
	}
	if (!oa)
		return 0;
	r = policy_json__get_string(oa, "$.monitor.on_alert", &s, err);
	if (r < 0)
		return r;
	if (!strcmp(s, "alert"))
		m->on_alert = RF_ON_ALERT_ALERT;
	else if (!strcmp(s, "freeze"))
		m->on_alert = RF_ON_ALERT_FREEZE;
	else if (!strcmp(s, "kill"))
		m->on_alert = RF_ON_ALERT_KILL;
	else
		return policy_json__fail(err, "$.monitor.on_alert",
					 "expected \"alert\", \"freeze\" or \"kill\"");
	return 0;
}

static int pol_parse_monitor(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "deny_burst", "cpu_percent",
					     "memory_mb", "pids", "dns_names", "dns_label_len",
					     "disk_write_mb", "egress_bytes", "egress_window_ms",
					     "exec", "files", "on_alert", NULL };
	static const char *const burst_keys[] = { "count", "window_ms", NULL };
	static const struct pol_uint_field fields[] = {
		{ "cpu_percent", 1, POL_CPU_PERCENT_MAX, offsetof(struct rf_monitor, cpu_percent) },
		{ "memory_mb", 1, POL_MEMORY_MB_MAX, offsetof(struct rf_monitor, memory_mb) },
		{ "pids", 1, POL_PIDS_MAX, offsetof(struct rf_monitor, pids) },
		/* a label is at most 63 bytes: 63 turns the check off */
		{ "dns_label_len", 1, 63, offsetof(struct rf_monitor, dns_label_len) },
		{ "disk_write_mb", 1, 1ULL << 40, offsetof(struct rf_monitor, disk_write_mb) },
		{ "egress_bytes", 1, 1ULL << 50, offsetof(struct rf_monitor, egress_bytes) },
		{ "egress_window_ms", 1, 86400000ULL, offsetof(struct rf_monitor, egress_window_ms) },
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
		return policy_json__fail(err, "$.monitor", "expected an object");
	r = policy_json__check_keys(v, "$.monitor", keys, err);
	if (r < 0)
		return r;
	p->monitor.present = true;
	burst = json_object_get(v, "deny_burst");
	if (burst) {
		if (!json_is_object(burst))
			return policy_json__fail(err, "$.monitor.deny_burst", "expected an object");
		r = policy_json__check_keys(burst, "$.monitor.deny_burst", burst_keys, err);
		if (r < 0)
			return r;
		if (!json_object_get(burst, "count"))
			return policy_json__fail(err, "$.monitor.deny_burst",
						 "missing required key \"count\"");
		if (!json_object_get(burst, "window_ms"))
			return policy_json__fail(err, "$.monitor.deny_burst",
						 "missing required key \"window_ms\"");
		r = pol_parse_uint_fields(burst, "$.monitor.deny_burst", burst_fields,
					  &p->monitor, err);
		r = policy_json__collect(err, r);
		if (r < 0)
			return r;
	}
	if (json_object_get(v, "dns_names")) {
		r = pol_parse_count_window(json_object_get(v, "dns_names"),
					   "$.monitor.dns_names",
					   offsetof(struct rf_monitor, dns_names_count),
					   offsetof(struct rf_monitor, dns_names_window_ms),
					   &p->monitor, err);
		if (r < 0)
			return r;
	}
	r = policy_json__collect(err, pol_parse_monitor_actions(v, &p->monitor, err));
	if (r < 0)
		return r;
	r = policy_json__collect(err, pol_parse_monitor_files(v, &p->monitor, err));
	if (r < 0)
		return r;
	r = pol_parse_uint_fields(v, "$.monitor", fields, &p->monitor, err);
	if (r >= 0 && p->monitor.egress_window_ms.set && !p->monitor.egress_bytes.set)
		return policy_json__fail(err, "$.monitor.egress_window_ms",
					 "needs \"egress_bytes\" beside it");
	return r;
}

static int pol_parse_memory(json_t *v, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "deny_write_execute", NULL };
	json_t *wx;
	int r;

	if (!json_is_object(v))
		return policy_json__fail(err, "$.memory", "expected an object");
	r = policy_json__check_keys(v, "$.memory", keys, err);
	if (r < 0)
		return r;
	p->memory.present = true;
	wx = json_object_get(v, "deny_write_execute");
	if (wx && !json_is_boolean(wx))
		return policy_json__fail(err, "$.memory.deny_write_execute",
					 "expected true or false");
	p->memory.deny_write_execute = wx && json_is_true(wx);
	return 0;
}

int policy_classes__parse(json_t *root, struct rf_policy *p, struct rf_error *err)
{
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
		{ "memory", pol_parse_memory },
	};
	json_t *v;
	size_t i;
	int r;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		v = json_object_get(root, classes[i].key);
		if (!v)
			continue;
		r = policy_json__collect(err, classes[i].parse(v, p, err));
		if (r < 0)
			return r;
	}
	return 0;
}
