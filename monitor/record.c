// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "cleanup.h"
#include "record.h"
#include "registry.h"
#include "registry_watch.h"

struct rf_recorder {
	FILE *f;
};

static const char *const type_names[] = {
	[RF_IN_SANDBOX] = "sandbox", [RF_IN_SANDBOX_END] = "sandbox_end",
	[RF_IN_DECISION] = "decision", [RF_IN_SYSCALL] = "syscall", [RF_IN_FORK] = "fork",
	[RF_IN_EXEC] = "exec", [RF_IN_EXIT] = "exit", [RF_IN_PROC] = "proc",
	[RF_IN_SAMPLE] = "sample", [RF_IN_LOST] = "lost", [RF_IN_TICK] = "tick",
	[RF_IN_DNS] = "dns", [RF_IN_FLOW] = "flow",
};
_Static_assert(sizeof(type_names) / sizeof(type_names[0]) == RF_IN_MAX, "a name per type");
#define N_TYPES (sizeof(type_names) / sizeof(type_names[0]))

static int type_parse(const char *s)
{
	size_t i;

	for (i = 1; s && i < N_TYPES; i++)
		if (type_names[i] && !strcmp(s, type_names[i]))
			return (int)i;
	return -1;
}

static void hex(char *dst, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		dst[2 * i] = digits[b[i] >> 4];
		dst[2 * i + 1] = digits[b[i] & 15];
	}
	dst[2 * n] = 0;
}

static int unhex(uint8_t *dst, size_t n, const char *s)
{
	size_t i;

	if (!s || strlen(s) != 2 * n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		dst[i] = (uint8_t)v;
	}
	return 0;
}

static void set_u64(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

static uint64_t get_u64(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static void get_str(json_t *o, const char *k, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	rf_printable(dst, s ? s : "", len - 1);
}

/* Integer members written under their own names: one table per struct,
 * read and written by the same two loops (signed members keep their bits). */
struct int_field {
	const char *key;
	size_t off;
	size_t size;
};

#define INT_FIELD(type, member) \
	{ #member, offsetof(type, member), sizeof(((type *)0)->member) }

static const struct int_field decision_fields[] = {
	INT_FIELD(struct rf_event, seq), INT_FIELD(struct rf_event, pid),
	INT_FIELD(struct rf_event, tid), INT_FIELD(struct rf_event, uid),
	INT_FIELD(struct rf_event, class), INT_FIELD(struct rf_event, op),
	INT_FIELD(struct rf_event, verdict), INT_FIELD(struct rf_event, reason),
	INT_FIELD(struct rf_event, family), INT_FIELD(struct rf_event, port),
	INT_FIELD(struct rf_event, protocol),
	/* absent (0) in older records: the seccomp listener's syscall records */
	INT_FIELD(struct rf_event, flags), INT_FIELD(struct rf_event, syscall),
	/* absent (0) in older records: monitor.files' unexpected opens */
	INT_FIELD(struct rf_event, need), INT_FIELD(struct rf_event, target_pid), { 0 },
};

/* FLOW: the key's fields, the totals (total_*), and what is new. */
static const struct int_field flow_key_fields[] = {
	INT_FIELD(struct rf_flow_key, port), INT_FIELD(struct rf_flow_key, family),
	INT_FIELD(struct rf_flow_key, proto), INT_FIELD(struct rf_flow_key, flags), { 0 },
};

static const struct int_field flow_fields[] = {
	INT_FIELD(struct rf_in_flow, connections), INT_FIELD(struct rf_in_flow, bytes_sent),
	INT_FIELD(struct rf_in_flow, bytes_received), INT_FIELD(struct rf_in_flow, since_ns),
	{ 0 },
};

static const struct int_field flow_total_fields[] = {
	{ "total_connections", offsetof(struct rf_flow, connections), 8 },
	{ "total_bytes_sent", offsetof(struct rf_flow, bytes_sent), 8 },
	{ "total_bytes_received", offsetof(struct rf_flow, bytes_received), 8 },
	{ "first_ns", offsetof(struct rf_flow, first_ns), 8 },
	{ "last_ns", offsetof(struct rf_flow, last_ns), 8 },
	{ 0 },
};

static const struct int_field sample_fields[] = {
	INT_FIELD(struct rf_in_sample, cpu_ns), INT_FIELD(struct rf_in_sample, mem_bytes),
	INT_FIELD(struct rf_in_sample, procs), INT_FIELD(struct rf_in_sample, procs_peak),
	INT_FIELD(struct rf_in_sample, src),
	/* absent (0) in older records */
	INT_FIELD(struct rf_in_sample, mem_max_events), INT_FIELD(struct rf_in_sample, oom_kills),
	INT_FIELD(struct rf_in_sample, pids_max_events),
	INT_FIELD(struct rf_in_sample, cpu_throttled), INT_FIELD(struct rf_in_sample, mem_cap),
	INT_FIELD(struct rf_in_sample, pids_cap), INT_FIELD(struct rf_in_sample, cpu_cap_pct),
	INT_FIELD(struct rf_in_sample, disk_write_bytes),
	{ 0 },
};

static const struct int_field dns_fields[] = {
	INT_FIELD(struct rf_dns_record, seq), INT_FIELD(struct rf_dns_record, pid),
	INT_FIELD(struct rf_dns_record, verdict), INT_FIELD(struct rf_dns_record, reason),
	INT_FIELD(struct rf_dns_record, qtype), INT_FIELD(struct rf_dns_record, rcode),
	INT_FIELD(struct rf_dns_record, protocol), INT_FIELD(struct rf_dns_record, suffix_off),
	INT_FIELD(struct rf_dns_record, family), INT_FIELD(struct rf_dns_record, n_granted),
	INT_FIELD(struct rf_dns_record, n_dropped), INT_FIELD(struct rf_dns_record, ttl),
	INT_FIELD(struct rf_dns_record, latency_us), { 0 },
};

static const struct int_field defaults_fields[] = {
	INT_FIELD(struct rf_detect_opts, burst_count),
	INT_FIELD(struct rf_detect_opts, burst_window_ms),
	INT_FIELD(struct rf_detect_opts, cpu_percent),
	INT_FIELD(struct rf_detect_opts, memory_mb), INT_FIELD(struct rf_detect_opts, pids),
	INT_FIELD(struct rf_detect_opts, update_ms), INT_FIELD(struct rf_detect_opts, linger_ms),
	/* absent (0) in older records: the default */
	INT_FIELD(struct rf_detect_opts, max_sandboxes),
	{ 0 },
};

static void fields_to_json(json_t *o, const void *base, const struct int_field *f)
{
	for (; f->key; f++) {
		const uint8_t *p = (const uint8_t *)base + f->off;
		uint64_t v = f->size == 8 ? *(const uint64_t *)p :
			     f->size == 4 ? *(const uint32_t *)p :
			     f->size == 2 ? *(const uint16_t *)p : *p;

		set_u64(o, f->key, v);
	}
}

static void fields_from_json(json_t *o, void *base, const struct int_field *f)
{
	for (; f->key; f++) {
		uint8_t *p = (uint8_t *)base + f->off;
		uint64_t v = get_u64(o, f->key);

		if (f->size == 8)
			*(uint64_t *)p = v;
		else if (f->size == 4)
			*(uint32_t *)p = (uint32_t)v;
		else if (f->size == 2)
			*(uint16_t *)p = (uint16_t)v;
		else
			*p = (uint8_t)v;
	}
}

/* The policy sections are the registry's (lib/registry), with thresholds
 * written only where set. */
static void sandbox_to_json(json_t *o, const struct rf_sandbox_info *si)
{
	const struct rf_reg_monitor m = {
		.present = true,
		.burst_count = { si->burst_count != 0, si->burst_count },
		.burst_window_ms = { si->burst_count != 0, si->burst_window_ms },
		.cpu_percent = { si->cpu_percent != 0, si->cpu_percent },
		.memory_mb = { si->memory_mb != 0, si->memory_mb },
		.pids = { si->pids != 0, si->pids },
		.dns_names_count = { si->dns_names != 0, si->dns_names },
		.dns_names_window_ms = { si->dns_names != 0, si->dns_window_ms },
		.dns_label_len = { si->dns_label_len != 0, si->dns_label_len },
		.disk_write_mb = { si->disk_write_mb != 0, si->disk_write_mb },
		.egress_bytes = { si->egress_bytes != 0, si->egress_bytes },
		.egress_window_ms = { si->egress_window_ms != 0, si->egress_window_ms },
		.has_exec = si->has_exec, .exec = si->exec, .n_exec = si->n_exec,
	};
	const struct rf_reg_syscalls sc = {
		.present = si->has_profile, .alert = si->alert_only,
		.allow = si->allow, .n_allow = si->n_allow,
	};

	json_object_set_new(o, "sandbox", json_string(si->sandbox));
	json_object_set_new(o, "policy_id", json_string(si->policy_id));
	json_object_set_new(o, "cgroup_path", json_string(si->cgroup_path));
	if (si->n_labels) {
		struct rf_reg_labels l = { .n = si->n_labels };

		memcpy(l.v, si->labels, sizeof(l.v));
		json_object_set_new(o, "labels", registry__labels_to_json(&l));
	}
	if (si->traceparent[0])
		json_object_set_new(o, "traceparent", json_string(si->traceparent));
	json_object_set_new(o, "monitor", registry__monitor_to_json(&m));
	if (si->on_alert != RF_RESP_ALERT)
		json_object_set_new(json_object_get(o, "monitor"), "on_alert",
				    json_string(rf_response_name(si->on_alert)));
	if (sc.present)
		json_object_set_new(o, "syscalls", registry__syscalls_to_json(&sc));
	if (si->cap_limit[0]) {
		struct rf_reg_limit l = { .present = true, .value = si->cap_value,
					  .threshold = si->cap_threshold };

		snprintf(l.limit, sizeof(l.limit), "%s", si->cap_limit);
		snprintf(l.unit, sizeof(l.unit), "%s", si->cap_unit);
		json_object_set_new(o, "limit_exceeded", registry__limit_to_json(&l));
	}
}

static void decision_to_json(json_t *o, const struct rf_event *ev)
{
	char buf[40];

	fields_to_json(o, ev, decision_fields);
	hex(buf, ev->addr, 16);
	json_object_set_new(o, "addr", json_string(buf));
	json_object_set_new(o, "comm", json_string(ev->comm));
	if (ev->path[0])
		json_object_set_new(o, "path", json_string(ev->path));
}

static void proc_to_json(json_t *o, enum rf_in_type type, const struct rf_in_proc *p)
{
	set_u64(o, "pid", p->pid);
	if (p->tid)
		set_u64(o, "tid", p->tid);
	if (p->ppid)
		set_u64(o, "ppid", p->ppid);
	set_u64(o, "uid", p->uid);
	json_object_set_new(o, "comm", json_string(p->comm));
	if (type == RF_IN_SYSCALL) {
		json_object_set_new(o, "nr", json_integer(p->nr));
		json_object_set_new(o, "name", json_string(p->name));
		if (p->err)
			json_object_set_new(o, "err", json_integer(p->err));
	}
	if (type == RF_IN_EXIT)
		json_object_set_new(o, "code", json_integer(p->code));
	if (p->path[0])
		json_object_set_new(o, "path", json_string(p->path));
}

json_t *record__to_json(const struct rf_input *in)
{
	json_t *o;

	if (in->type < RF_IN_SANDBOX || in->type >= RF_IN_MAX)
		return NULL;
	o = json_pack("{s:I, s:s}", "t", (json_int_t)in->t_ns, "type", type_names[in->type]);
	if (!o)
		return NULL;
	if (in->type != RF_IN_TICK && in->type != RF_IN_LOST)
		set_u64(o, "cgroup_id", in->cgroup_id);
	switch (in->type) {
	case RF_IN_SANDBOX:
		sandbox_to_json(o, in->u.sb);
		break;
	case RF_IN_DECISION:
		decision_to_json(o, &in->u.decision);
		break;
	case RF_IN_SYSCALL:
	case RF_IN_FORK:
	case RF_IN_EXEC:
	case RF_IN_EXIT:
	case RF_IN_PROC:
		proc_to_json(o, in->type, &in->u.proc);
		break;
	case RF_IN_SAMPLE:
		fields_to_json(o, &in->u.sample, sample_fields);
		break;
	case RF_IN_DNS: {
		char buf[40];

		fields_to_json(o, &in->u.dns, dns_fields);
		hex(buf, in->u.dns.addr, 16);
		json_object_set_new(o, "addr", json_string(buf));
		json_object_set_new(o, "name", json_string(in->u.dns.name));
		break;
	}
	case RF_IN_FLOW: {
		char buf[40];

		fields_to_json(o, &in->u.flow.key, flow_key_fields);
		hex(buf, in->u.flow.key.addr, 16);
		json_object_set_new(o, "addr", json_string(buf));
		fields_to_json(o, &in->u.flow, flow_fields);
		fields_to_json(o, &in->u.flow.total, flow_total_fields);
		if (in->u.flow.final)
			json_object_set_new(o, "final", json_true());
		if (in->u.flow.name[0])
			json_object_set_new(o, "name", json_string(in->u.flow.name));
		break;
	}
	case RF_IN_LOST:
		json_object_set_new(o, "hop", json_string(rf_hop_name(in->u.lost.hop)));
		set_u64(o, "count", in->u.lost.count);
		if (in->u.lost.before_start)
			json_object_set_new(o, "before_start", json_true());
		break;
	default:
		break;
	}
	return o;
}

/* Read through lib/registry, then as the detectors see a registry entry. */
static int sandbox_from_json(json_t *o, struct rf_input *in, struct rf_sandbox_info *si)
{
	json_t *m = json_object_get(o, "monitor"), *sc = json_object_get(o, "syscalls");
	json_t *lb = json_object_get(o, "labels");
	const char *tp = json_string_value(json_object_get(o, "traceparent"));
	json_t *lim = json_object_get(o, "limit_exceeded");
	struct rf_registry_entry e;
	int err = 0;

	memset(si, 0, sizeof(*si));
	memset(&e, 0, sizeof(e));
	get_str(o, "sandbox", e.sandbox, sizeof(e.sandbox));
	get_str(o, "policy_id", e.policy_id, sizeof(e.policy_id));
	get_str(o, "cgroup_path", e.cgroup_path, sizeof(e.cgroup_path));
	e.cgroup_id = in->cgroup_id;
	if (lb)
		err = registry__labels_from_json(lb, &e.labels);
	if (!err && tp) {
		if (registry__traceparent_valid(tp))
			snprintf(e.traceparent, sizeof(e.traceparent), "%s", tp);
		else
			err = -EINVAL;
	}
	if (!err && m)
		err = registry__monitor_from_json(m, &e.monitor);
	if (!err && sc)
		err = registry__syscalls_from_json(sc, &e.syscalls);
	if (!err && lim)
		err = registry__limit_from_json(lim, &e.limit_exceeded);
	if (!err)
		err = regwatch__info(&e, si, NULL);
	registry__entry_clear(&e);
	in->u.sb = si;
	return err;
}

static int decision_from_json(json_t *o, struct rf_input *in)
{
	struct rf_event *ev = &in->u.decision;
	const char *addr = json_string_value(json_object_get(o, "addr"));

	ev->ts_boot_ns = in->t_ns;
	ev->cgroup_id = in->cgroup_id;
	ev->kind = RF_EV_DECISION;
	fields_from_json(o, ev, decision_fields);
	if (addr && unhex(ev->addr, 16, addr))
		return -EINVAL;
	get_str(o, "comm", ev->comm, sizeof(ev->comm));
	get_str(o, "path", ev->path, sizeof(ev->path));
	ev->path_len = (uint32_t)strlen(ev->path);
	return 0;
}

static int dns_from_json(json_t *o, struct rf_input *in)
{
	struct rf_dns_record *r = &in->u.dns;
	const char *addr = json_string_value(json_object_get(o, "addr"));

	r->ts_boot_ns = in->t_ns;
	r->cgroup_id = in->cgroup_id;
	r->kind = RF_EV_DNS;
	fields_from_json(o, r, dns_fields);
	if (addr && unhex(r->addr, 16, addr))
		return -EINVAL;
	get_str(o, "name", r->name, sizeof(r->name));
	r->name_len = (uint16_t)strlen(r->name);
	return 0;
}

static int flow_from_json(json_t *o, struct rf_input *in)
{
	struct rf_in_flow *f = &in->u.flow;
	const char *addr = json_string_value(json_object_get(o, "addr"));

	fields_from_json(o, &f->key, flow_key_fields);
	f->key.cgroup_id = in->cgroup_id;
	if (addr && unhex(f->key.addr, 16, addr))
		return -EINVAL;
	fields_from_json(o, f, flow_fields);
	fields_from_json(o, &f->total, flow_total_fields);
	f->final = json_is_true(json_object_get(o, "final"));
	get_str(o, "name", f->name, sizeof(f->name));
	return 0;
}

static void proc_from_json(json_t *o, struct rf_in_proc *p)
{
	p->pid = (uint32_t)get_u64(o, "pid");
	p->tid = (uint32_t)get_u64(o, "tid");
	p->ppid = (uint32_t)get_u64(o, "ppid");
	p->uid = (uint32_t)get_u64(o, "uid");
	p->nr = (int32_t)json_integer_value(json_object_get(o, "nr"));
	p->code = (int32_t)json_integer_value(json_object_get(o, "code"));
	p->err = (int32_t)json_integer_value(json_object_get(o, "err"));
	get_str(o, "comm", p->comm, sizeof(p->comm));
	get_str(o, "path", p->path, sizeof(p->path));
	get_str(o, "name", p->name, sizeof(p->name));
}

static int lost_from_json(json_t *o, struct rf_in_lost *l)
{
	const char *hop = json_string_value(json_object_get(o, "hop"));
	int h = hop ? rf_hop_parse(hop) : -1;

	if (h < 0)
		return -EINVAL;
	l->hop = (uint32_t)h;
	l->count = get_u64(o, "count");
	l->before_start = json_is_true(json_object_get(o, "before_start"));
	return 0;
}

int record__from_json(json_t *o, struct rf_input *in, struct rf_sandbox_info *si)
{
	int type = type_parse(json_string_value(json_object_get(o, "type")));

	memset(in, 0, sizeof(*in));
	if (type < 0 || !json_is_integer(json_object_get(o, "t")))
		return -EINVAL;
	in->type = (enum rf_in_type)type;
	in->t_ns = get_u64(o, "t");
	in->cgroup_id = get_u64(o, "cgroup_id");
	switch (in->type) {
	case RF_IN_SANDBOX:
		return sandbox_from_json(o, in, si);
	case RF_IN_DECISION:
		return decision_from_json(o, in);
	case RF_IN_SYSCALL:
	case RF_IN_FORK:
	case RF_IN_EXEC:
	case RF_IN_EXIT:
	case RF_IN_PROC:
		proc_from_json(o, &in->u.proc);
		return 0;
	case RF_IN_SAMPLE:
		fields_from_json(o, &in->u.sample, sample_fields);
		return 0;
	case RF_IN_LOST:
		return lost_from_json(o, &in->u.lost);
	case RF_IN_DNS:
		return dns_from_json(o, in);
	case RF_IN_FLOW:
		return flow_from_json(o, in);
	default:
		return 0;
	}
}

int record__open(const char *path, const struct rf_record_header *h, struct rf_recorder **ret)
{
	struct rf_recorder *r = calloc(1, sizeof(*r));
	json_t *hdr, *dflt = json_object();
	char *s;
	int fd, err;

	if (!r || !dflt) {
		free(r);
		json_decref(dflt);
		return -ENOMEM;
	}
	fields_to_json(dflt, &h->defaults, defaults_fields);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || !(r->f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		free(r);
		json_decref(dflt);
		return err;
	}
	hdr = json_pack("{s:i, s:s, s:I, s:b, s:I, s:o}",
			"ringfence_monitor_record", RF_RECORD_FORMAT, "version", RF_MON_VERSION,
			"boot_to_real_ns", (json_int_t)h->boot_to_real_ns, "ticks", h->ticks,
			"tick_ms", (json_int_t)h->tick_ms, "defaults", dflt);
	s = hdr ? json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(hdr);
	if (!s) {
		record__close(r);
		return -ENOMEM;
	}
	fprintf(r->f, "%s\n", s);
	free(s);
	*ret = r;
	return 0;
}

int record__write(struct rf_recorder *r, const struct rf_input *in)
{
	json_t *o = record__to_json(in);
	char *s;

	if (!o)
		return -EINVAL;
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return -ENOMEM;
	fputs(s, r->f);
	fputc('\n', r->f);
	free(s);
	return ferror(r->f) ? -EIO : 0;
}

void record__flush(struct rf_recorder *r)
{
	if (r)
		fflush(r->f);
}

void record__close(struct rf_recorder *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r);
}

/* Ticks replayed in one idle gap before the rest of it is skipped: far
 * more than any detector window needs to close, far fewer than a record
 * whose times jump by years would otherwise cost. */
#define REPLAY_GAP_TICKS 100000
#define RF_RECORD_TICK_MS_MAX 3600000u  /* an hour: tick_ns cannot overflow */

static void ticks_until(uint64_t t, uint64_t tick_ns, uint64_t *next, rf_replay_fn fn, void *ctx)
{
	uint64_t n = 0;

	while (*next && *next <= t) {
		struct rf_input tk = { .t_ns = *next, .type = RF_IN_TICK };

		if (++n == REPLAY_GAP_TICKS) {
			/* Every window has closed: nothing but time passes until
			 * the gap's last tick. */
			tk.t_ns = *next += (t - *next) / tick_ns * tick_ns;
		}
		fn(&tk, ctx);
		*next += tick_ns;
	}
}

/* What replaying one file carries from line to line. */
struct replay {
	const char *path;
	struct rf_record_header h;
	void (*on_header)(const struct rf_record_header *h, void *ctx);
	rf_replay_fn fn;
	void *ctx;
	uint64_t lineno, next_tick, last_t;
	struct rf_error *e;
};

/* An error of the current line, at "path:line". */
__attribute__((format(printf, 3, 4)))
static int line_error(struct replay *r, int err, const char *fmt, ...)
{
	char where[300], why[sizeof(r->e->why)];
	va_list ap;

	snprintf(where, sizeof(where), "%s:%llu", r->path, (unsigned long long)r->lineno);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return rf_error_set(r->e, err, where, "%s", why);
}

static int header_from_json(struct replay *r, json_t *o)
{
	json_t *dflt = json_object_get(o, "defaults");
	struct rf_record_header *h = &r->h;

	if (!json_is_integer(json_object_get(o, "ringfence_monitor_record"))) {
		return line_error(r, -EINVAL, "not a ringfence-monitor record (no header)");
	}
	h->boot_to_real_ns = (int64_t)get_u64(o, "boot_to_real_ns");
	h->ticks = json_is_true(json_object_get(o, "ticks"));
	h->tick_ms = get_u64(o, "tick_ms");
	if (!h->tick_ms)
		h->tick_ms = 250;
	if (h->tick_ms > RF_RECORD_TICK_MS_MAX) {
		return line_error(r, -EINVAL, "tick_ms %llu is over %u",
				  (unsigned long long)h->tick_ms, RF_RECORD_TICK_MS_MAX);
	}
	if (json_is_object(dflt))
		fields_from_json(dflt, &h->defaults, defaults_fields);
	if (r->on_header)
		r->on_header(h, r->ctx);
	return 0;
}

/* One input record: ticks the file lacks first, then the record. */
static int input_from_json(struct replay *r, json_t *o)
{
	struct rf_sandbox_info si = { 0 };
	uint64_t tick_ns = r->h.tick_ms * 1000000ULL;
	struct rf_input in;
	int err;

	err = record__from_json(o, &in, &si);
	if (err) {
		rf_sandbox_info_clear(&si);
		return line_error(r, err, "not an input record");
	}
	if (!r->h.ticks) {
		if (!r->next_tick)
			r->next_tick = (in.t_ns / tick_ns + 1) * tick_ns;
		ticks_until(in.t_ns, tick_ns, &r->next_tick, r->fn, r->ctx);
		if (in.type == RF_IN_TICK)
			return 0;
	}
	if (in.t_ns > r->last_t)
		r->last_t = in.t_ns;
	r->fn(&in, r->ctx);
	rf_sandbox_info_clear(&si);
	return 0;
}

/* 0, 1 (a partial last line: the file is still being written) or -EINVAL. */
static int replay_line(struct replay *r, const char *line, size_t len)
{
	_cleanup_json_ json_t *o = NULL;
	json_error_t je;

	o = json_loads(line, 0, &je);
	if (!o && line[len - 1] != '\n')
		return 1;
	if (!o)
		return line_error(r, -EINVAL, "not JSON: %s", je.text);
	return r->lineno == 1 ? header_from_json(r, o) : input_from_json(r, o);
}

int replay__file(const char *path, uint64_t tail_ms,
		 void (*on_header)(const struct rf_record_header *h, void *ctx),
		 rf_replay_fn fn, void *ctx, struct rf_error *e)
{
	struct replay r = { .path = path, .on_header = on_header, .fn = fn, .ctx = ctx, .e = e };
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *line = NULL;
	uint64_t tick_ns;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!f)
		return rf_error_set(e, -errno, path, "%s", strerror(errno));
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		r.lineno++;
		if (line[0] != '\n')
			err = replay_line(&r, line, (size_t)len);
	}
	err = err > 0 ? 0 : err;
	if (!err && ferror(f))
		err = rf_error_set(e, -EIO, path, "read error");
	if (!err && r.lineno == 0)
		err = rf_error_set(e, -EINVAL, path, "empty");
	if (!err && r.h.tick_ms) {
		/* Let time pass after the last record: alerts close by themselves. */
		tick_ns = r.h.tick_ms * 1000000ULL;
		r.next_tick = (r.last_t / tick_ns + 1) * tick_ns;
		ticks_until(r.last_t + tail_ms * 1000000ULL, tick_ns, &r.next_tick, fn, ctx);
	}
	return err;
}
