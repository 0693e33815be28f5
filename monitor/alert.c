// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "alert.h"
#include "timefmt.h"

static const char *const severities[] = {
	"Unknown", "Informational", "Low", "Medium", "High", "Critical", "Fatal",
};

void alert__format_ms(int64_t ms, char *buf, size_t len)
{
	int64_t sec = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;

	timefmt__rfc3339(sec, (long)(ms - sec * 1000), 3, buf, len);
}

static int64_t wall_ms(uint64_t boot_ns, int64_t off)
{
	return ((int64_t)boot_ns + off) / 1000000;
}

static void set_time(json_t *o, const char *key, int64_t ms)
{
	char dt[48], k[64];

	alert__format_ms(ms, dt, sizeof(dt));
	json_object_set_new(o, key, json_integer(ms));
	snprintf(k, sizeof(k), "%s_dt", key);
	json_object_set_new(o, k, json_string(dt));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static json_t *process_json(const struct rf_alert_proc *p, json_t *container)
{
	json_t *o = json_pack("{s:I, s:s}", "pid", (json_int_t)p->pid, "name", p->name);

	if (p->path[0])
		json_object_set_new(o, "file", json_pack("{s:s, s:s}", "path", p->path,
							 "name", base_name(p->path)));
	if (p->ppid) {
		json_t *pp = json_pack("{s:I}", "pid", (json_int_t)p->ppid);

		if (p->parent_known) {
			json_object_set_new(pp, "name", json_string(p->parent_name));
			if (p->parent_path[0])
				json_object_set_new(pp, "file",
					json_pack("{s:s, s:s}", "path", p->parent_path,
						  "name", base_name(p->parent_path)));
		}
		json_object_set_new(o, "parent_process", pp);
	}
	if (container)
		json_object_set(o, "container", container);
	return o;
}

/* One evidence object: container, process, and what the rule is about. */
static json_t *evidence(const struct rf_alert *a, json_t *container)
{
	json_t *ev = json_object();

	if (container)
		json_object_set(ev, "container", container);
	if (a->has_proc)
		json_object_set_new(ev, "process", process_json(&a->proc, container));
	return ev;
}

static json_t *dest_evidence(const struct rf_alert *a, const struct rf_alert_dest *d,
			     json_t *container)
{
	json_t *ev = evidence(a, container);

	if (d->family == AF_INET || d->family == AF_INET6) {
		json_t *ep = json_object();

		if (d->address[0]) {
			json_object_set_new(ep, "ip", json_string(d->address));
			json_object_set_new(ep, "port", json_integer(d->port));
		}
		json_object_set_new(ev, "dst_endpoint", ep);
		json_object_set_new(ev, "connection_info",
				    json_pack("{s:s, s:i}", "protocol_name", d->protocol,
					      "direction_id", 2 /* Outbound */));
	} else if (d->path[0]) {
		json_object_set_new(ev, "file",
			json_pack("{s:s, s:s, s:i, s:s}", "path", d->path, "name", base_name(d->path),
				  "type_id", d->family == AF_UNIX ? 5 : 1,
				  "type", d->family == AF_UNIX ? "Local Socket" : "Regular File"));
	}
	return ev;
}

/* "EPERM" for 1; glibc names every errno it knows. */
static const char *errno_name(int32_t err, char *buf, size_t len)
{
	const char *n = strerrorname_np(err);

	if (n)
		return n;
	snprintf(buf, len, "errno %d", err);
	return buf;
}

/* ", refused with EPERM" / ", failed with ENOENT" / "" (it succeeded). */
static void syscall_outcome(const struct rf_alert *a, char *buf, size_t len)
{
	char tmp[24];

	if (!a->syscall_err)
		buf[0] = 0;
	else
		snprintf(buf, len, ", %s with %s", a->refused ? "refused" : "failed",
			 errno_name(a->syscall_err, tmp, sizeof(tmp)));
}

static void message(const struct rf_alert *a, char *buf, size_t len)
{
	const char *sb = a->sandbox[0] ? a->sandbox : "host";

	switch (a->rule) {
	case RF_RULE_DENY_BURST:
	case RF_RULE_FAILED_OPS:
		snprintf(buf, len, "sandbox %s: %" PRIu64 " %s %s operations (threshold %" PRIu64
			 " within %" PRIu64 " ms)%s%s", sb, a->count, a->verdict, a->key,
			 a->threshold, a->window_ms, a->n_dests ? ", most to " : "",
			 a->n_dests ? a->dests[0].key : "");
		break;
	case RF_RULE_SYSCALL: {
		char outcome[48];

		syscall_outcome(a, outcome, sizeof(outcome));
		snprintf(buf, len, "sandbox %s: syscall %s (%d) outside the policy's profile%s, "
			 "by %s (pid %u)", sb, a->syscall, a->syscall_nr, outcome, a->proc.name,
			 a->proc.pid);
		break;
	}
	case RF_RULE_RESOURCE:
		if (a->cap)
			snprintf(buf, len, "sandbox %s: cap %.*s held: %" PRIu64 " %s against the "
				 "cap %" PRIu64 "%s", sb, (int)(strlen(a->key) - 4), a->key, a->value,
				 a->unit, a->threshold, a->cap_events ? " (the kernel counted hits)" : "");
		else if (a->rise)
			snprintf(buf, len, "sandbox %s: %s rose to %" PRIu64 " %s from about %"
				 PRIu64, sb, a->key, a->value, a->unit, a->baseline);
		else
			snprintf(buf, len, "sandbox %s: %s at %" PRIu64 " %s, above the threshold %"
				 PRIu64, sb, a->key, a->value, a->unit, a->threshold);
		break;
	case RF_RULE_LOST:
		snprintf(buf, len, "%" PRIu64 " events lost at %s%s (%" PRIu64 " since start)",
			 a->count, a->key, a->before_start ? ", some while no monitor ran" : "",
			 a->lost_total);
		break;
	case RF_RULE_SHED:
		snprintf(buf, len, "%" PRIu64 " live sandboxes shed from the monitor's full table "
			 "(capacity %" PRIu64 "), the oldest idle first, latest %s; their "
			 "alerts closed, later events start them afresh (%" PRIu64 " since start)",
			 a->count, a->capacity, a->last_shed, a->shed_total);
		break;
	default:
		snprintf(buf, len, "%s", rf_rule_name(a->rule));
	}
}

/* The class, activity, time and severity fields at the top of the finding. */
static void ocsf_header(json_t *o, const struct rf_alert *a, uint64_t seq, int64_t off,
			const char *msg)
{
	static const char *const activity[] = { "Create", "Update", "Close" };
	static const int status_id[] = { 1, 2, 4 };
	static const char *const status[] = { "New", "In Progress", "Resolved" };
	int sev = rf_alert_severity(a);
	char type_name[64];

	json_object_set_new(o, "metadata", json_pack("{s:s, s:{s:s, s:s, s:s}, s:I, s:s}",
		"version", RF_OCSF_VERSION,
		"product", "name", "ringfence-monitor", "vendor_name", "ringfence",
		"version", RF_MON_VERSION,
		"sequence", (json_int_t)seq, "log_name", "alerts"));
	json_object_set_new(o, "class_uid", json_integer(2004));
	json_object_set_new(o, "class_name", json_string("Detection Finding"));
	json_object_set_new(o, "category_uid", json_integer(2));
	json_object_set_new(o, "category_name", json_string("Findings"));
	json_object_set_new(o, "activity_id", json_integer(a->phase + 1));
	json_object_set_new(o, "activity_name", json_string(activity[a->phase]));
	json_object_set_new(o, "type_uid", json_integer(200400 + a->phase + 1));
	snprintf(type_name, sizeof(type_name), "Detection Finding: %s", activity[a->phase]);
	json_object_set_new(o, "type_name", json_string(type_name));
	set_time(o, "time", wall_ms(a->time_ns, off));
	json_object_set_new(o, "severity_id", json_integer(sev));
	json_object_set_new(o, "severity", json_string(severities[sev]));
	json_object_set_new(o, "status_id", json_integer(status_id[a->phase]));
	json_object_set_new(o, "status", json_string(status[a->phase]));
	json_object_set_new(o, "message", json_string(msg));
	json_object_set_new(o, "count", json_integer((json_int_t)a->count));
	set_time(o, "start_time", wall_ms(a->first_ns, off));
	set_time(o, "end_time", wall_ms(a->last_ns, off));
}

static json_t *finding_info(const struct rf_alert *a, int64_t off, const char *msg)
{
	char analytic_uid[64];
	json_t *fi;

	snprintf(analytic_uid, sizeof(analytic_uid), "rf-%s", rf_rule_id(a->rule));
	fi = json_pack("{s:s, s:s, s:{s:s, s:s, s:i, s:s, s:s}, s:[s]}",
		       "uid", a->uid, "title", rf_rule_name(a->rule),
		       "analytic", "uid", analytic_uid, "name", rf_rule_name(a->rule),
		       "type_id", 1, "type", "Rule", "category", "ringfence",
		       "types", rf_rule_id(a->rule));
	json_object_set_new(fi, "desc", json_string(msg));
	set_time(fi, "first_seen_time", wall_ms(a->first_ns, off));
	set_time(fi, "last_seen_time", wall_ms(a->last_ns, off));
	return fi;
}

/* One evidence per destination of a burst, else one for the rule's subject. */
static json_t *evidences(const struct rf_alert *a, json_t *container)
{
	json_t *evs = json_array();
	uint32_t i;

	if ((a->rule == RF_RULE_DENY_BURST || a->rule == RF_RULE_FAILED_OPS) && a->n_dests) {
		for (i = 0; i < a->n_dests; i++)
			json_array_append_new(evs, dest_evidence(a, &a->dests[i], container));
	} else if (a->rule == RF_RULE_SYSCALL) {
		json_t *ev = evidence(a, container);

		json_t *api = json_pack("{s:s, s:{s:s}}", "operation", a->syscall,
					"service", "name", "linux-syscall");
		char tmp[24];

		/* OCSF API Response: the errno of a call that failed. */
		if (a->syscall_err)
			json_object_set_new(api, "response", json_pack("{s:i, s:s}",
				"code", a->syscall_err,
				"error", errno_name(a->syscall_err, tmp, sizeof(tmp))));
		json_object_set_new(ev, "api", api);
		json_array_append_new(evs, ev);
	} else if (a->rule == RF_RULE_LOST) {
		json_t *ev = json_object();

		json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I}", "hop", a->key,
				    "lost", (json_int_t)a->count,
				    "lost_total", (json_int_t)a->lost_total));
		json_array_append_new(evs, ev);
	} else if (a->rule == RF_RULE_SHED) {
		json_t *ev = json_object();

		json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I, s:I, s:s}",
				    "table", a->key, "shed", (json_int_t)a->count,
				    "shed_total", (json_int_t)a->shed_total,
				    "capacity", (json_int_t)a->capacity, "last_shed", a->last_shed));
		json_array_append_new(evs, ev);
	} else {
		json_array_append_new(evs, evidence(a, container));
	}
	return evs;
}

/* The rule's own fields, which OCSF has no place for. */
static void unmapped_rule(json_t *um, const struct rf_alert *a)
{
	uint32_t i;

	switch (a->rule) {
	case RF_RULE_DENY_BURST:
	case RF_RULE_FAILED_OPS: {
		json_t *dl = json_array();

		json_object_set_new(um, "window_ms", json_integer((json_int_t)a->window_ms));
		json_object_set_new(um, "threshold", json_integer((json_int_t)a->threshold));
		json_object_set_new(um, "verdict", json_string(a->verdict));
		for (i = 0; i < a->n_dests; i++)
			json_array_append_new(dl, json_pack("{s:s, s:I}", "destination",
				a->dests[i].key, "count", (json_int_t)a->dests[i].count));
		json_object_set_new(um, "destinations", dl);
		json_object_set_new(um, "other_destinations",
				    json_integer((json_int_t)a->other_dests));
		break;
	}
	case RF_RULE_SYSCALL:
		json_object_set_new(um, "syscall", json_string(a->syscall));
		json_object_set_new(um, "syscall_nr", json_integer(a->syscall_nr));
		json_object_set_new(um, "refused", json_boolean(a->refused));
		if (a->syscall_err) {
			char tmp[24];

			json_object_set_new(um, "errno", json_string(errno_name(a->syscall_err, tmp,
										  sizeof(tmp))));
		}
		break;
	case RF_RULE_RESOURCE:
		json_object_set_new(um, "resource", json_string(a->key));
		json_object_set_new(um, "value", json_integer((json_int_t)a->value));
		json_object_set_new(um, "threshold", json_integer((json_int_t)a->threshold));
		json_object_set_new(um, "unit", json_string(a->unit));
		json_object_set_new(um, "rise", json_boolean(a->rise));
		if (a->cap) {
			json_object_set_new(um, "cap", json_true());
			json_object_set_new(um, "cap_events", json_integer((json_int_t)a->cap_events));
		}
		if (a->rise)
			json_object_set_new(um, "baseline", json_integer((json_int_t)a->baseline));
		break;
	case RF_RULE_LOST:
		json_object_set_new(um, "hop", json_string(a->key));
		json_object_set_new(um, "lost_total", json_integer((json_int_t)a->lost_total));
		json_object_set_new(um, "before_start", json_boolean(a->before_start));
		break;
	case RF_RULE_SHED:
		json_object_set_new(um, "table", json_string(a->key));
		json_object_set_new(um, "capacity", json_integer((json_int_t)a->capacity));
		json_object_set_new(um, "shed_total", json_integer((json_int_t)a->shed_total));
		json_object_set_new(um, "last_shed", json_string(a->last_shed));
		break;
	default:
		break;
	}
}

static json_t *unmapped(const struct rf_alert *a)
{
	json_t *um = json_pack("{s:s, s:s, s:s, s:I}", "rule", rf_rule_id(a->rule), "key", a->key,
			       "phase", rf_phase_name(a->phase),
			       "suppressed", (json_int_t)a->suppressed);

	if (a->sandbox[0]) {
		json_object_set_new(um, "sandbox", json_string(a->sandbox));
		json_object_set_new(um, "policy_id", json_string(a->policy_id));
		json_object_set_new(um, "cgroup_id", json_integer((json_int_t)a->cgroup_id));
	}
	unmapped_rule(um, a);
	if (a->phase == RF_PHASE_CLOSE && a->close_reason)
		json_object_set_new(um, "close_reason", json_string(a->close_reason));
	return um;
}

json_t *alert__ocsf(const struct rf_alert *a, uint64_t seq, int64_t off)
{
	json_t *o, *container = NULL;
	char msg[512];

	o = json_object();
	if (!o)
		return NULL;
	message(a, msg, sizeof(msg));
	ocsf_header(o, a, seq, off, msg);
	json_object_set_new(o, "finding_info", finding_info(a, off, msg));
	if (a->sandbox[0])
		container = json_pack("{s:s, s:s}", "uid", a->sandbox, "name", a->sandbox);
	json_object_set_new(o, "evidences", evidences(a, container));
	json_object_set_new(o, "unmapped", unmapped(a));
	json_decref(container);
	return o;
}

char *alert__line(const struct rf_alert *a, uint64_t seq, int64_t off)
{
	json_t *o = alert__ocsf(a, seq, off);
	char *s, *line;
	size_t n;

	if (!o)
		return NULL;
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!s)
		return NULL;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = 0;
	return line;
}
