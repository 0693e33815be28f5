// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>

#include "cleanup.h"
#include "fileio.h"
#include "pins.h"
#include "registry.h"

uint64_t registry__proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = fileio__read_small(AT_FDCWD, path, buf, sizeof(buf));
	if (n <= 0)
		return 0;
	/* comm may hold spaces and ')': fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* field 3 is state: a zombie (Z) or a dying task (X) has exited,
	 * however long its parent takes to reap it; starttime is field 22 */
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return 0;
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p, " %llu", &start);
	return start;
}

bool registry__supervisor_alive(const struct rf_registry_entry *e)
{
	uint64_t start;

	if (e->supervisor_pid <= 0)
		return false;
	start = registry__proc_start(e->supervisor_pid);
	return start && start == e->supervisor_start;
}

/* ---- the sections the policy contributes ------------------------------ */

static json_t *u64_json(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A non-negative integer, at most max. */
static int u64_of(json_t *v, uint64_t max, uint64_t *ret)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return -EINVAL;
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int opt_u64_of(json_t *v, struct rf_reg_u64 *ret)
{
	ret->set = true;
	return u64_of(v, INT64_MAX, &ret->v);
}

static void opt_u64_put(json_t *o, const char *key, const struct rf_reg_u64 *v)
{
	if (v->set)
		json_object_set_new(o, key, u64_json(v->v));
}

json_t *registry__monitor_to_json(const struct rf_reg_monitor *m)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (m->burst_count.set)
		json_object_set_new(o, "deny_burst",
			json_pack("{s:o, s:o}", "count", u64_json(m->burst_count.v),
				  "window_ms", u64_json(m->burst_window_ms.v)));
	opt_u64_put(o, "cpu_percent", &m->cpu_percent);
	opt_u64_put(o, "memory_mb", &m->memory_mb);
	opt_u64_put(o, "pids", &m->pids);
	if (m->dns_names_count.set)
		json_object_set_new(o, "dns_names",
			json_pack("{s:o, s:o}", "count", u64_json(m->dns_names_count.v),
				  "window_ms", u64_json(m->dns_names_window_ms.v)));
	opt_u64_put(o, "dns_label_len", &m->dns_label_len);
	opt_u64_put(o, "disk_write_mb", &m->disk_write_mb);
	opt_u64_put(o, "egress_bytes", &m->egress_bytes);
	opt_u64_put(o, "egress_window_ms", &m->egress_window_ms);
	if (m->has_exec) {
		json_t *a = json_array();
		size_t i;

		for (i = 0; a && i < m->n_exec; i++)
			json_array_append_new(a, json_string(m->exec[i]));
		json_object_set_new(o, "exec", a);
	}
	if (m->on_alert[0])
		json_object_set_new(o, "on_alert", json_string(m->on_alert));
	return o;
}

void registry__monitor_clear(struct rf_reg_monitor *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->exec && i < m->n_exec; i++)
		free(m->exec[i]);
	free(m->exec);
	m->exec = NULL;
	m->n_exec = 0;
	m->has_exec = false;
}

/* Every key of object o through fn: -EINVAL when o is not an object or fn
 * refuses a key (each refuses the keys it does not know). */
static int each_key(json_t *o, int (*fn)(void *ctx, const char *k, json_t *v), void *ctx)
{
	const char *k;
	json_t *v;
	int err;

	if (!json_is_object(o))
		return -EINVAL;
	json_object_foreach(o, k, v) {
		err = fn(ctx, k, v);
		if (err)
			return err;
	}
	return 0;
}

static int burst_key(void *ctx, const char *k, json_t *v)
{
	struct rf_reg_monitor *m = ctx;

	if (!strcmp(k, "count"))
		return opt_u64_of(v, &m->burst_count);
	if (!strcmp(k, "window_ms"))
		return opt_u64_of(v, &m->burst_window_ms);
	return -EINVAL;
}

static int dns_names_key(void *ctx, const char *k, json_t *v)
{
	struct rf_reg_monitor *m = ctx;

	if (!strcmp(k, "count"))
		return opt_u64_of(v, &m->dns_names_count);
	if (!strcmp(k, "window_ms"))
		return opt_u64_of(v, &m->dns_names_window_ms);
	return -EINVAL;
}

static int exec_of(json_t *a, struct rf_reg_monitor *m)
{
	json_t *v;
	size_t i;

	if (!json_is_array(a))
		return -EINVAL;
	m->has_exec = true;
	m->exec = calloc(json_array_size(a) + 1, sizeof(char *));
	if (!m->exec)
		return -ENOMEM;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return -EINVAL;
		m->exec[i] = strdup(json_string_value(v));
		if (!m->exec[i])
			return -ENOMEM;
		m->n_exec++;
	}
	return 0;
}

static int on_alert_of(json_t *v, struct rf_reg_monitor *m)
{
	const char *s = json_string_value(v);

	if (!s || (strcmp(s, "alert") && strcmp(s, "freeze") && strcmp(s, "kill")))
		return -EINVAL;
	snprintf(m->on_alert, sizeof(m->on_alert), "%s", s);
	return 0;
}

static int monitor_key(void *ctx, const char *k, json_t *v)
{
	struct rf_reg_monitor *m = ctx;
	int err;

	if (!strcmp(k, "dns_names")) {
		err = each_key(v, dns_names_key, m);
		return err || (m->dns_names_count.set && m->dns_names_window_ms.set) ? err
										      : -EINVAL;
	}
	if (!strcmp(k, "dns_label_len"))
		return opt_u64_of(v, &m->dns_label_len);
	if (!strcmp(k, "disk_write_mb"))
		return opt_u64_of(v, &m->disk_write_mb);
	if (!strcmp(k, "egress_bytes"))
		return opt_u64_of(v, &m->egress_bytes);
	if (!strcmp(k, "egress_window_ms"))
		return opt_u64_of(v, &m->egress_window_ms);
	if (!strcmp(k, "exec"))
		return m->has_exec ? -EINVAL : exec_of(v, m);
	if (!strcmp(k, "on_alert"))
		return on_alert_of(v, m);

	if (!strcmp(k, "deny_burst")) {
		err = each_key(v, burst_key, m);
		return err || (m->burst_count.set && m->burst_window_ms.set) ? err : -EINVAL;
	}
	if (!strcmp(k, "cpu_percent"))
		return opt_u64_of(v, &m->cpu_percent);
	if (!strcmp(k, "memory_mb"))
		return opt_u64_of(v, &m->memory_mb);
	if (!strcmp(k, "pids"))
		return opt_u64_of(v, &m->pids);
	return -EINVAL;
}

int registry__monitor_from_json(json_t *o, struct rf_reg_monitor *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->present = true;
	return each_key(o, monitor_key, ret);
}

json_t *registry__syscalls_to_json(const struct rf_reg_syscalls *s)
{
	json_t *allow = json_array();
	size_t i;

	if (!allow)
		return NULL;
	for (i = 0; i < s->n_allow; i++)
		json_array_append_new(allow, json_string(s->allow[i]));
	return json_pack("{s:o, s:s}", "allow", allow, "on_violation",
			 s->alert ? "alert" : "deny");
}

void registry__syscalls_clear(struct rf_reg_syscalls *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->allow && i < s->n_allow; i++)
		free(s->allow[i]);
	free(s->allow);
	memset(s, 0, sizeof(*s));
}

static int allow_from_json(json_t *a, struct rf_reg_syscalls *s)
{
	json_t *v;
	size_t i;

	if (!json_is_array(a))
		return -EINVAL;
	s->allow = calloc(json_array_size(a) + 1, sizeof(char *));
	if (!s->allow)
		return -ENOMEM;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return -EINVAL;
		s->allow[i] = strdup(json_string_value(v));
		if (!s->allow[i])
			return -ENOMEM;
		s->n_allow++;
	}
	return 0;
}

static int syscalls_key(void *ctx, const char *k, json_t *v)
{
	struct rf_reg_syscalls *s = ctx;
	const char *ov = json_string_value(v);

	if (!strcmp(k, "allow"))
		return allow_from_json(v, s);
	if (strcmp(k, "on_violation") || !ov || (strcmp(ov, "alert") && strcmp(ov, "deny")))
		return -EINVAL;
	s->alert = !strcmp(ov, "alert");
	return 0;
}

int registry__syscalls_from_json(json_t *o, struct rf_reg_syscalls *ret)
{
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->present = true;
	err = each_key(o, syscalls_key, ret);
	return err || ret->allow ? err : -EINVAL;
}

/* ---- correlation labels ------------------------------------------------- */

const char *registry__label_invalid(const char *kv)
{
	const char *eq = strchr(kv, '='), *p;

	if (!eq)
		return "expected key=value";
	if (eq == kv || eq - kv > 63)
		return "the key must have 1 to 63 characters";
	if (!((kv[0] >= 'a' && kv[0] <= 'z') || (kv[0] >= '0' && kv[0] <= '9')))
		return "the key must start with a lowercase letter or a digit";
	for (p = kv; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("_.-", *p)))
			return "the key may hold only a-z, 0-9, '_', '.' and '-'";
	if (strlen(eq + 1) > 63)
		return "the value must have at most 63 characters";
	for (p = eq + 1; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return "the value may hold only printable ASCII, no '\"' or '\\'";
	return NULL;
}

static bool hex_run(const char *s, size_t n, bool *ret_all_zero)
{
	size_t i;

	*ret_all_zero = true;
	for (i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
		*ret_all_zero &= s[i] == '0';
	}
	return true;
}

bool registry__traceparent_valid(const char *s)
{
	bool z1, z2, z3;

	/* version 00: 2 + 1 + 32 + 1 + 16 + 1 + 2 characters */
	return strlen(s) == 55 && !strncmp(s, "00-", 3) && s[35] == '-' && s[52] == '-' &&
	       hex_run(s + 3, 32, &z1) && !z1 && hex_run(s + 36, 16, &z2) && !z2 &&
	       hex_run(s + 53, 2, &z3);
}

json_t *registry__labels_to_json(const struct rf_reg_labels *l)
{
	json_t *o = json_object();
	char key[RF_LABEL_LEN];
	size_t i;

	for (i = 0; o && i < l->n; i++) {
		const char *eq = strchr(l->v[i], '=');

		if (!eq)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - l->v[i]), l->v[i]);
		json_object_set_new(o, key, json_string(eq + 1));
	}
	return o;
}

int registry__labels_from_json(json_t *o, struct rf_reg_labels *ret)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o) || json_object_size(o) > RF_LABELS_MAX)
		return -EINVAL;
	json_object_foreach(o, k, v) {
		/* too long for the field: refused, never cut to fit */
		if (!json_is_string(v) || strlen(k) + 1 + strlen(json_string_value(v)) >= RF_LABEL_LEN)
			return -EINVAL;
		snprintf(ret->v[ret->n], RF_LABEL_LEN, "%s=%s", k, json_string_value(v));
		if (registry__label_invalid(ret->v[ret->n]))
			return -EINVAL;
		ret->n++;
	}
	return 0;
}

/* ---- the entry: one table of its keys, in the file's order ------------- */

enum reg_kind { REG_STR, REG_U64, REG_PID, REG_EXIT, REG_LABELS, REG_TRACEPARENT,
		REG_MONITOR, REG_SYSCALLS, REG_LIMIT, REG_PIN_SET };

struct reg_key {
	const char *name;
	enum reg_kind kind;
	size_t off;
	size_t len;             /* REG_STR: the field's size */
};

#define REG_FIELD(key, kind, field) \
	{ key, kind, offsetof(struct rf_registry_entry, field), \
	  sizeof(((struct rf_registry_entry *)0)->field) }

static const struct reg_key reg_keys[] = {
	REG_FIELD("sandbox", REG_STR, sandbox), REG_FIELD("policy_id", REG_STR, policy_id),
	REG_FIELD("policy_sha256", REG_STR, digest), REG_FIELD("mode", REG_STR, mode),
	REG_FIELD("cgroup_path", REG_STR, cgroup_path),
	REG_FIELD("cgroup_placement", REG_STR, cgroup_placement),
	REG_FIELD("cgroup_id", REG_U64, cgroup_id),
	REG_FIELD("pin_set", REG_PIN_SET, pin_set),
	REG_FIELD("supervisor_pid", REG_PID, supervisor_pid),
	REG_FIELD("supervisor_start", REG_U64, supervisor_start),
	REG_FIELD("pid", REG_PID, child_pid), REG_FIELD("started", REG_STR, started),
	REG_FIELD("on_supervisor_exit", REG_EXIT, keep_running),
	REG_FIELD("labels", REG_LABELS, labels),
	REG_FIELD("traceparent", REG_TRACEPARENT, traceparent),
	REG_FIELD("monitor", REG_MONITOR, monitor), REG_FIELD("syscalls", REG_SYSCALLS, syscalls),
	REG_FIELD("limit_exceeded", REG_LIMIT, limit_exceeded),
};
#define N_REG_KEYS (sizeof(reg_keys) / sizeof(reg_keys[0]))

json_t *registry__limit_to_json(const struct rf_reg_limit *l)
{
	return json_pack("{s:s, s:o, s:o, s:s}", "limit", l->limit, "value", u64_json(l->value),
			 "threshold", u64_json(l->threshold), "unit", l->unit);
}

int registry__limit_from_json(json_t *o, struct rf_reg_limit *l)
{
	const char *lim = json_string_value(json_object_get(o, "limit"));
	const char *unit = json_string_value(json_object_get(o, "unit"));

	if (!json_is_object(o) || json_object_size(o) != 4 || !lim || !unit ||
	    strlen(lim) >= sizeof(l->limit) || strlen(unit) >= sizeof(l->unit) ||
	    u64_of(json_object_get(o, "value"), INT64_MAX, &l->value) ||
	    u64_of(json_object_get(o, "threshold"), INT64_MAX, &l->threshold))
		return -EINVAL;
	strcpy(l->limit, lim);
	strcpy(l->unit, unit);
	l->present = true;
	return 0;
}

static json_t *key_to_json(const struct reg_key *k, const struct rf_registry_entry *e)
{
	const void *p = (const char *)e + k->off;

	switch (k->kind) {
	case REG_STR:
		return json_string(p);
	case REG_U64:
		return u64_json(*(const uint64_t *)p);
	case REG_PID:
		return json_integer(*(const pid_t *)p);
	case REG_EXIT:
		return json_string(*(const bool *)p ? "keep-running" : "kill");
	case REG_LABELS:
		return registry__labels_to_json(p);
	case REG_TRACEPARENT:
	case REG_PIN_SET:
		return json_string(p);
	case REG_MONITOR:
		return registry__monitor_to_json(p);
	case REG_SYSCALLS:
		return registry__syscalls_to_json(p);
	case REG_LIMIT:
		return registry__limit_to_json(p);
	}
	return NULL;
}

/* The policy sections are written only when present. */
static bool key_absent(const struct reg_key *k, const struct rf_registry_entry *e)
{
	return (k->off == offsetof(struct rf_registry_entry, cgroup_placement) &&
		!e->cgroup_placement[0]) ||
	       (k->kind == REG_LABELS && !e->labels.n) ||
	       (k->kind == REG_TRACEPARENT && !e->traceparent[0]) ||
	       (k->kind == REG_PIN_SET && !e->pin_set[0]) ||
	       (k->kind == REG_MONITOR && !e->monitor.present) ||
	       (k->kind == REG_SYSCALLS && !e->syscalls.present) ||
	       (k->kind == REG_LIMIT && !e->limit_exceeded.present);
}

json_t *registry__to_json(const struct rf_registry_entry *e)
{
	json_t *o = json_object();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < N_REG_KEYS; i++) {
		json_t *v;

		if (key_absent(&reg_keys[i], e))
			continue;
		v = key_to_json(&reg_keys[i], e);
		if (!v || json_object_set_new(o, reg_keys[i].name, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static int key_from_json(const struct reg_key *k, json_t *v, struct rf_registry_entry *e)
{
	void *p = (char *)e + k->off;
	const char *s;
	uint64_t u;
	int err;

	switch (k->kind) {
	case REG_STR:
		s = json_string_value(v);
		if (!s || strlen(s) >= k->len)
			return -EINVAL;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case REG_U64:
		return u64_of(v, INT64_MAX, p);
	case REG_PID:
		err = u64_of(v, INT_MAX, &u);
		if (!err)
			*(pid_t *)p = (pid_t)u;
		return err;
	case REG_EXIT:
		s = json_string_value(v);
		if (!s || (strcmp(s, "kill") && strcmp(s, "keep-running")))
			return -EINVAL;
		*(bool *)p = !strcmp(s, "keep-running");
		return 0;
	case REG_LABELS:
		return registry__labels_from_json(v, p);
	case REG_TRACEPARENT:
		s = json_string_value(v);
		if (!s || !registry__traceparent_valid(s))
			return -EINVAL;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case REG_PIN_SET:
		s = json_string_value(v);
		if (!s || !s[0] || !rf_pins__set_valid(s))
			return -EINVAL;
		memcpy(p, s, strlen(s) + 1);
		return 0;
	case REG_MONITOR:
		return registry__monitor_from_json(v, p);
	case REG_SYSCALLS:
		return registry__syscalls_from_json(v, p);
	case REG_LIMIT:
		return registry__limit_from_json(v, p);
	}
	return -EINVAL;
}

static int entry_key(void *ctx, const char *name, json_t *v)
{
	size_t i;

	for (i = 0; i < N_REG_KEYS; i++)
		if (!strcmp(reg_keys[i].name, name))
			return key_from_json(&reg_keys[i], v, ctx);
	return -EINVAL;
}

int registry__from_json(json_t *o, struct rf_registry_entry *ret)
{
	int err;

	memset(ret, 0, sizeof(*ret));
	err = each_key(o, entry_key, ret);
	if (!err && (!ret->sandbox[0] || !ret->cgroup_id))
		err = -EINVAL;
	if (err)
		registry__entry_clear(ret);
	return err;
}

void registry__entry_clear(struct rf_registry_entry *e)
{
	if (!e)
		return;
	registry__syscalls_clear(&e->syscalls);
	registry__monitor_clear(&e->monitor);
	memset(e, 0, sizeof(*e));
}

void registry__list_free(struct rf_registry_entry *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		registry__entry_clear(&v[i]);
	free(v);
}

int registry__parse(const char *text, struct rf_registry_entry *ret)
{
	json_t *o = json_loads(text, 0, NULL);
	int err;

	if (!o) {
		memset(ret, 0, sizeof(*ret));
		return -EINVAL;
	}
	err = registry__from_json(o, ret);
	json_decref(o);
	return err;
}

int registry__read_file(const char *path, struct rf_registry_entry *ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct stat st;
	json_t *o;
	int err;

	memset(ret, 0, sizeof(*ret));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > RF_REGISTRY_MAX_BYTES)
		return -EFBIG;
	o = json_loadf(f, 0, NULL);
	if (!o)
		return -EINVAL;
	err = registry__from_json(o, ret);
	json_decref(o);
	return err;
}

/* ---- the directory ----------------------------------------------------- */

static int ensure_dir(void)
{
	if (mkdir(RF_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(RF_REGISTRY_DIR, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* An update exchanges the names (FILEIO_EXCHANGE: no ext4 discard wait
 * when the entry is removed at teardown); the temp file's fixed name
 * NAME.json.tmp lets gc match a killed writer's leftover to its sandbox. */
int registry__add_in(const char *dir, const struct rf_registry_entry *e)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_FIXED,
						  .flags = FILEIO_EXCHANGE };
	_cleanup_free_ char *text = NULL;
	char path[512];
	json_t *o;

	o = registry__to_json(e);
	if (!o)
		return -ENOMEM;
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s.json", dir, e->sandbox);
	return fileio__write_atomic(path, text, strlen(text), &how);
}

int registry__add(const struct rf_registry_entry *e)
{
	int err = ensure_dir();

	return err ? err : registry__add_in(RF_REGISTRY_DIR, e);
}

int registry__remove_in(const char *dir, const char *sandbox)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.json", dir, sandbox);
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

int registry__remove(const char *sandbox)
{
	return registry__remove_in(RF_REGISTRY_DIR, sandbox);
}

/* Appends one slot to *v (zeroed); NULL on ENOMEM. */
static struct rf_registry_entry *grow(struct rf_registry_entry **v, size_t n, size_t *cap)
{
	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		void *p = realloc(*v, c * sizeof(**v));

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	memset(&(*v)[n], 0, sizeof((*v)[n]));
	return &(*v)[n];
}

int registry__list_in(const char *dir, struct rf_registry_entry **ret_v, size_t *ret_n)
{
	struct rf_registry_entry *v = NULL, *e;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	*ret_v = NULL;
	*ret_n = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		size_t l = strlen(de->d_name);

		/* "<sandbox>.json"; the writer's .tmp files are not entries */
		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		e = grow(&v, n, &cap);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		err = registry__read_file(path, e);
		if (err == -ENOMEM)
			break;
		n += !err;
		err = 0;
	}
	closedir(d);
	if (err) {
		registry__list_free(v, n);
		return err;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

int registry__list(struct rf_registry_entry **ret_v, size_t *ret_n)
{
	return registry__list_in(RF_REGISTRY_DIR, ret_v, ret_n);
}
