// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "record.h"

struct rf_recorder {
	FILE *f;
};

static const char *const type_names[] = {
	[RF_IN_SANDBOX] = "sandbox", [RF_IN_SANDBOX_END] = "sandbox_end",
	[RF_IN_DECISION] = "decision", [RF_IN_SYSCALL] = "syscall", [RF_IN_FORK] = "fork",
	[RF_IN_EXEC] = "exec", [RF_IN_EXIT] = "exit", [RF_IN_PROC] = "proc",
	[RF_IN_SAMPLE] = "sample", [RF_IN_LOST] = "lost", [RF_IN_TICK] = "tick",
};
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

json_t *record__to_json(const struct rf_input *in)
{
	json_t *o;
	char buf[40];

	if (in->type < RF_IN_SANDBOX || in->type > RF_IN_TICK)
		return NULL;
	o = json_pack("{s:I, s:s}", "t", (json_int_t)in->t_ns, "type", type_names[in->type]);
	if (!o)
		return NULL;
	if (in->type != RF_IN_TICK && in->type != RF_IN_LOST)
		set_u64(o, "cgroup_id", in->cgroup_id);
	switch (in->type) {
	case RF_IN_SANDBOX: {
		const struct rf_sandbox_info *si = in->u.sb;
		json_t *m = json_object();
		size_t i;

		json_object_set_new(o, "sandbox", json_string(si->sandbox));
		json_object_set_new(o, "policy_id", json_string(si->policy_id));
		json_object_set_new(o, "cgroup_path", json_string(si->cgroup_path));
		if (si->burst_count)
			json_object_set_new(m, "deny_burst", json_pack("{s:I, s:I}",
				"count", (json_int_t)si->burst_count,
				"window_ms", (json_int_t)si->burst_window_ms));
		if (si->cpu_percent)
			set_u64(m, "cpu_percent", si->cpu_percent);
		if (si->memory_mb)
			set_u64(m, "memory_mb", si->memory_mb);
		if (si->pids)
			set_u64(m, "pids", si->pids);
		json_object_set_new(o, "monitor", m);
		if (si->has_profile) {
			json_t *allow = json_array();

			for (i = 0; i < si->n_allow; i++)
				json_array_append_new(allow, json_string(si->allow[i]));
			json_object_set_new(o, "syscalls", json_pack("{s:o, s:s}", "allow", allow,
				"on_violation", si->alert_only ? "alert" : "deny"));
		}
		break;
	}
	case RF_IN_DECISION: {
		const struct rf_event *ev = &in->u.decision;

		set_u64(o, "seq", ev->seq);
		set_u64(o, "pid", ev->pid);
		set_u64(o, "tid", ev->tid);
		set_u64(o, "uid", ev->uid);
		set_u64(o, "class", ev->class);
		set_u64(o, "op", ev->op);
		set_u64(o, "verdict", ev->verdict);
		set_u64(o, "reason", ev->reason);
		set_u64(o, "family", ev->family);
		set_u64(o, "port", ev->port);
		set_u64(o, "protocol", ev->protocol);
		hex(buf, ev->addr, 16);
		json_object_set_new(o, "addr", json_string(buf));
		json_object_set_new(o, "comm", json_string(ev->comm));
		if (ev->path[0])
			json_object_set_new(o, "path", json_string(ev->path));
		break;
	}
	case RF_IN_SYSCALL:
	case RF_IN_FORK:
	case RF_IN_EXEC:
	case RF_IN_EXIT:
	case RF_IN_PROC: {
		const struct rf_in_proc *p = &in->u.proc;

		set_u64(o, "pid", p->pid);
		if (p->tid)
			set_u64(o, "tid", p->tid);
		if (p->ppid)
			set_u64(o, "ppid", p->ppid);
		set_u64(o, "uid", p->uid);
		json_object_set_new(o, "comm", json_string(p->comm));
		if (in->type == RF_IN_SYSCALL) {
			json_object_set_new(o, "nr", json_integer(p->nr));
			json_object_set_new(o, "name", json_string(p->name));
		}
		if (in->type == RF_IN_EXIT)
			json_object_set_new(o, "code", json_integer(p->code));
		if (p->path[0])
			json_object_set_new(o, "path", json_string(p->path));
		break;
	}
	case RF_IN_SAMPLE:
		set_u64(o, "cpu_ns", in->u.sample.cpu_ns);
		set_u64(o, "mem_bytes", in->u.sample.mem_bytes);
		json_object_set_new(o, "procs", json_integer(in->u.sample.procs));
		json_object_set_new(o, "procs_peak", json_integer(in->u.sample.procs_peak));
		set_u64(o, "src", in->u.sample.src);
		break;
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
	case RF_IN_SANDBOX: {
		json_t *m = json_object_get(o, "monitor"), *sc = json_object_get(o, "syscalls");
		json_t *allow, *v;
		size_t i;

		memset(si, 0, sizeof(*si));
		get_str(o, "sandbox", si->sandbox, sizeof(si->sandbox));
		get_str(o, "policy_id", si->policy_id, sizeof(si->policy_id));
		get_str(o, "cgroup_path", si->cgroup_path, sizeof(si->cgroup_path));
		si->cgroup_id = in->cgroup_id;
		if (json_is_object(m)) {
			json_t *b = json_object_get(m, "deny_burst");

			if (json_is_object(b)) {
				si->burst_count = get_u64(b, "count");
				si->burst_window_ms = get_u64(b, "window_ms");
			}
			si->cpu_percent = get_u64(m, "cpu_percent");
			si->memory_mb = get_u64(m, "memory_mb");
			si->pids = get_u64(m, "pids");
		}
		if (json_is_object(sc)) {
			const char *ov = json_string_value(json_object_get(sc, "on_violation"));

			si->has_profile = true;
			si->alert_only = ov && !strcmp(ov, "alert");
			allow = json_object_get(sc, "allow");
			si->allow = calloc(json_array_size(allow) + 1, sizeof(char *));
			if (!si->allow)
				return -ENOMEM;
			json_array_foreach(allow, i, v) {
				if (!json_is_string(v))
					continue;
				si->allow[si->n_allow] = strdup(json_string_value(v));
				if (!si->allow[si->n_allow])
					return -ENOMEM;
				si->n_allow++;
			}
		}
		in->u.sb = si;
		break;
	}
	case RF_IN_DECISION: {
		struct rf_event *ev = &in->u.decision;
		const char *addr = json_string_value(json_object_get(o, "addr"));

		ev->ts_boot_ns = in->t_ns;
		ev->cgroup_id = in->cgroup_id;
		ev->kind = RF_EV_DECISION;
		ev->seq = get_u64(o, "seq");
		ev->pid = (uint32_t)get_u64(o, "pid");
		ev->tid = (uint32_t)get_u64(o, "tid");
		ev->uid = (uint32_t)get_u64(o, "uid");
		ev->class = (uint32_t)get_u64(o, "class");
		ev->op = (uint32_t)get_u64(o, "op");
		ev->verdict = (uint32_t)get_u64(o, "verdict");
		ev->reason = (uint32_t)get_u64(o, "reason");
		ev->family = (uint16_t)get_u64(o, "family");
		ev->port = (uint16_t)get_u64(o, "port");
		ev->protocol = (uint32_t)get_u64(o, "protocol");
		if (addr && unhex(ev->addr, 16, addr))
			return -EINVAL;
		get_str(o, "comm", ev->comm, sizeof(ev->comm));
		get_str(o, "path", ev->path, sizeof(ev->path));
		ev->path_len = (uint32_t)strlen(ev->path);
		break;
	}
	case RF_IN_SYSCALL:
	case RF_IN_FORK:
	case RF_IN_EXEC:
	case RF_IN_EXIT:
	case RF_IN_PROC: {
		struct rf_in_proc *p = &in->u.proc;

		p->pid = (uint32_t)get_u64(o, "pid");
		p->tid = (uint32_t)get_u64(o, "tid");
		p->ppid = (uint32_t)get_u64(o, "ppid");
		p->uid = (uint32_t)get_u64(o, "uid");
		p->nr = (int32_t)json_integer_value(json_object_get(o, "nr"));
		p->code = (int32_t)json_integer_value(json_object_get(o, "code"));
		get_str(o, "comm", p->comm, sizeof(p->comm));
		get_str(o, "path", p->path, sizeof(p->path));
		get_str(o, "name", p->name, sizeof(p->name));
		break;
	}
	case RF_IN_SAMPLE:
		in->u.sample.cpu_ns = get_u64(o, "cpu_ns");
		in->u.sample.mem_bytes = get_u64(o, "mem_bytes");
		in->u.sample.procs = (int64_t)get_u64(o, "procs");
		in->u.sample.procs_peak = (int64_t)get_u64(o, "procs_peak");
		in->u.sample.src = (uint32_t)get_u64(o, "src");
		break;
	case RF_IN_LOST: {
		const char *hop = json_string_value(json_object_get(o, "hop"));
		int h = hop ? rf_hop_parse(hop) : -1;

		if (h < 0)
			return -EINVAL;
		in->u.lost.hop = (uint32_t)h;
		in->u.lost.count = get_u64(o, "count");
		in->u.lost.before_start = json_is_true(json_object_get(o, "before_start"));
		break;
	}
	default:
		break;
	}
	return 0;
}

int record__open(const char *path, const struct rf_record_header *h, struct rf_recorder **ret)
{
	struct rf_recorder *r = calloc(1, sizeof(*r));
	const struct rf_detect_opts *o = &h->defaults;
	json_t *hdr;
	char *s;
	int fd, err;

	if (!r)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || !(r->f = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		free(r);
		return err;
	}
	hdr = json_pack("{s:i, s:s, s:I, s:b, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
			"ringfence_monitor_record", RF_RECORD_FORMAT, "version", RF_MON_VERSION,
			"boot_to_real_ns", (json_int_t)h->boot_to_real_ns, "ticks", h->ticks,
			"tick_ms", (json_int_t)h->tick_ms, "defaults",
			"burst_count", (json_int_t)o->burst_count,
			"burst_window_ms", (json_int_t)o->burst_window_ms,
			"cpu_percent", (json_int_t)o->cpu_percent,
			"memory_mb", (json_int_t)o->memory_mb, "pids", (json_int_t)o->pids,
			"update_ms", (json_int_t)o->update_ms, "linger_ms", (json_int_t)o->linger_ms);
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

static void ticks_until(uint64_t t, uint64_t tick_ns, uint64_t *next, rf_replay_fn fn, void *ctx)
{
	while (*next && *next <= t) {
		struct rf_input tk = { .t_ns = *next, .type = RF_IN_TICK };

		fn(&tk, ctx);
		*next += tick_ns;
	}
}

int replay__file(const char *path, uint64_t tail_ms,
		 void (*on_header)(const struct rf_record_header *h, void *ctx),
		 rf_replay_fn fn, void *ctx, char *why, size_t why_len)
{
	struct rf_record_header h = { 0 };
	uint64_t tick_ns, next_tick = 0, last_t = 0, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return err;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct rf_sandbox_info si = { 0 };
		struct rf_input in;
		json_error_t je;
		json_t *o;

		lineno++;
		if (line[0] == '\n')
			continue;
		o = json_loads(line, 0, &je);
		/* A file still being written may end in a partial line. */
		if (!o && line[len - 1] != '\n')
			break;
		if (!o) {
			snprintf(why, why_len, "%s:%llu: not JSON: %s", path,
				 (unsigned long long)lineno, je.text);
			err = -EINVAL;
			break;
		}
		if (lineno == 1) {
			json_t *dflt = json_object_get(o, "defaults");

			if (!json_is_integer(json_object_get(o, "ringfence_monitor_record"))) {
				snprintf(why, why_len, "%s:1: not a ringfence-monitor record "
					 "(no header)", path);
				json_decref(o);
				err = -EINVAL;
				break;
			}
			h.boot_to_real_ns = (int64_t)get_u64(o, "boot_to_real_ns");
			h.ticks = json_is_true(json_object_get(o, "ticks"));
			h.tick_ms = get_u64(o, "tick_ms");
			if (!h.tick_ms)
				h.tick_ms = 250;
			if (json_is_object(dflt)) {
				h.defaults.burst_count = get_u64(dflt, "burst_count");
				h.defaults.burst_window_ms = get_u64(dflt, "burst_window_ms");
				h.defaults.cpu_percent = get_u64(dflt, "cpu_percent");
				h.defaults.memory_mb = get_u64(dflt, "memory_mb");
				h.defaults.pids = get_u64(dflt, "pids");
				h.defaults.update_ms = get_u64(dflt, "update_ms");
				h.defaults.linger_ms = get_u64(dflt, "linger_ms");
			}
			json_decref(o);
			if (on_header)
				on_header(&h, ctx);
			continue;
		}
		err = record__from_json(o, &in, &si);
		json_decref(o);
		if (err) {
			rf_sandbox_info_clear(&si);
			snprintf(why, why_len, "%s:%llu: not an input record", path,
				 (unsigned long long)lineno);
			break;
		}
		tick_ns = h.tick_ms * 1000000ULL;
		if (!h.ticks) {
			if (!next_tick)
				next_tick = (in.t_ns / tick_ns + 1) * tick_ns;
			ticks_until(in.t_ns, tick_ns, &next_tick, fn, ctx);
			if (in.type == RF_IN_TICK) {
				rf_sandbox_info_clear(&si);
				continue;
			}
		}
		if (in.t_ns > last_t)
			last_t = in.t_ns;
		fn(&in, ctx);
		rf_sandbox_info_clear(&si);
	}
	if (!err && ferror(f)) {
		err = -EIO;
		snprintf(why, why_len, "%s: read error", path);
	}
	if (!err && lineno == 0) {
		err = -EINVAL;
		snprintf(why, why_len, "%s: empty", path);
	}
	if (!err && h.tick_ms) {
		/* Let time pass after the last record: alerts close by themselves. */
		tick_ns = h.tick_ms * 1000000ULL;
		next_tick = (last_t / tick_ns + 1) * tick_ns;
		ticks_until(last_t + tail_ms * 1000000ULL, tick_ns, &next_tick, fn, ctx);
	}
	free(line);
	fclose(f);
	return err;
}
