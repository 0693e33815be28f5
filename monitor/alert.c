// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <systemd/sd-id128.h>

#include "cleanup.h"
#include "alert.h"
#include "table.h"
#include "timefmt.h"

void alert__format_ms(int64_t ms, char *buf, size_t len)
{
	int64_t sec = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;

	timefmt__rfc3339(sec, (long)(ms - sec * 1000), 3, buf, len);
}

static int64_t wall_ms(uint64_t boot_ns, int64_t off)
{
	return ((int64_t)boot_ns + off) / 1000000;
}

void alert__set_time(json_t *o, const char *key, int64_t ms)
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

/* OCSF file type_id and its caption. */
enum { FILE_REGULAR = 1, FILE_FOLDER = 2, FILE_SOCKET = 5 };
static const char *const file_types[] = {
	[FILE_REGULAR] = "Regular File", [FILE_FOLDER] = "Folder", [FILE_SOCKET] = "Local Socket",
};

static json_t *file_json(const char *path, int type_id)
{
	return json_pack("{s:s, s:s, s:i, s:s}", "path", path, "name", base_name(path),
			 "type_id", type_id, "type", file_types[type_id]);
}

static json_t *process_json(const struct rf_alert *a, json_t *container)
{
	const struct rf_alert_proc *p = &a->proc;
	json_t *o = json_pack("{s:I, s:s}", "pid", (json_int_t)p->pid, "name", p->name);

	/* an executable we saw exec'd: a regular file */
	if (p->path[0])
		json_object_set_new(o, "file", file_json(p->path, FILE_REGULAR));
	if (p->ppid) {
		json_t *pp = json_pack("{s:I}", "pid", (json_int_t)p->ppid);

		if (p->parent_known) {
			json_object_set_new(pp, "name", json_string(p->parent_name));
			if (p->parent_path[0])
				json_object_set_new(pp, "file",
						    file_json(p->parent_path, FILE_REGULAR));
		}
		json_object_set_new(o, "parent_process", pp);
	}
	if (container) {
		json_object_set(o, "container", container);
		json_object_set_new(o, "sandbox", json_string(a->sandbox));
	}
	return o;
}

/* One evidence object: container, process, and what the rule is about. */
static json_t *evidence(const struct rf_alert *a, json_t *container)
{
	json_t *ev = json_object();

	if (container)
		json_object_set(ev, "container", container);
	if (a->has_proc)
		json_object_set_new(ev, "process", process_json(a, container));
	return ev;
}

static json_t *dest_evidence(const struct rf_alert *a, const struct rf_alert_dest *d,
			     json_t *container)
{
	json_t *ev = evidence(a, container);

	if (d->family == AF_INET || d->family == AF_INET6) {
		/* a socket refused at creation has no destination yet */
		if (d->address[0])
			json_object_set_new(ev, "dst_endpoint", json_pack("{s:s, s:i}",
					    "ip", d->address, "port", d->port));
		bool v4 = d->family == AF_INET;

		json_object_set_new(ev, "connection_info",
				    json_pack("{s:s, s:i, s:i, s:s, s:i, s:s}", "protocol_name",
					      d->protocol, "protocol_num", d->protocol_num,
					      "protocol_ver_id", v4 ? 4 : 6, "protocol_ver",
					      v4 ? "Internet Protocol version 4 (IPv4)" :
						   "Internet Protocol version 6 (IPv6)",
					      "direction_id", 2, "direction", "Outbound"));
	} else if (d->path[0]) {
		json_object_set_new(ev, "file", file_json(d->path, d->family == AF_UNIX ? FILE_SOCKET :
							  d->dir ? FILE_FOLDER : FILE_REGULAR));
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

/* ", refused with EPERM" / ", failed with ENOENT" / "" (it succeeded) /
 * ", let through (outcome unknown)" (alert mode, the seccomp listener). */
static void syscall_outcome(const struct rf_alert *a, char *buf, size_t len)
{
	char tmp[24];

	if (a->syscall_unknown)
		snprintf(buf, len, ", let through by the seccomp listener (outcome unknown)");
	else if (!a->syscall_err)
		buf[0] = 0;
	else
		snprintf(buf, len, ", %s with %s", a->refused ? "refused" : "failed",
			 errno_name(a->syscall_err, tmp, sizeof(tmp)));
}

/* unmapped.outcome: how the first call ended, as far as it was seen. */
static const char *syscall_outcome_name(const struct rf_alert *a)
{
	if (a->syscall_unknown)
		return "unknown";
	if (!a->syscall_err)
		return "succeeded";
	return a->refused ? "refused" : "failed";
}

/* A measurement as people read it: "200 MiB", "12 processes", "120 percent". */
static void amount(uint64_t v, const char *unit, char *buf, size_t len)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int i = 0;

	if (strcmp(unit, "bytes")) {
		snprintf(buf, len, "%" PRIu64 " %s", v, unit);
		return;
	}
	while (d >= 1024 && i < 4) {
		d /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", d, units[i]);
	/* "200.0 MiB" reads as "200 MiB" */
	if (i && strstr(buf, ".0 "))
		memmove(strstr(buf, ".0 "), strstr(buf, ".0 ") + 2, strlen(strstr(buf, ".0 ") + 2) + 1);
}

static void message_burst(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	snprintf(buf, len, "sandbox %s: %" PRIu64 " %s %s operations (threshold %" PRIu64
		 " within %" PRIu64 " ms)%s%s", sb, a->count, a->verdict, a->key,
		 a->threshold, a->window_ms, a->n_dests ? ", most to " : "",
		 a->n_dests ? a->dests[0].key : "");
}

static void message_syscall(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	char outcome[80];

	syscall_outcome(a, outcome, sizeof(outcome));
	snprintf(buf, len, "sandbox %s: syscall %s (%d) outside the policy's profile%s, "
		 "by %s (pid %u)", sb, a->syscall, a->syscall_nr, outcome, a->proc.name,
		 a->proc.pid);
}

static void message_resource(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	char v[32], other[32];

	amount(a->value, a->unit, v, sizeof(v));
	amount(a->rise ? a->baseline : a->threshold, a->unit, other, sizeof(other));
	if (a->cap)
		snprintf(buf, len, "sandbox %s: cap %.*s held: %s against the cap %s%s", sb,
			 (int)(strlen(a->key) - 4), a->key, v, other,
			 a->cap_events ? " (the kernel counted hits)" : "");
	else if (a->rise)
		snprintf(buf, len, "sandbox %s: %s rose to %s from about %s", sb, a->key,
			 v, other);
	else
		snprintf(buf, len, "sandbox %s: %s at %s, above the threshold %s", sb,
			 a->key, v, other);
}

static void message_lost(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	(void)sb;
	snprintf(buf, len, "%" PRIu64 " events lost at %s%s (%" PRIu64 " since start)",
		 a->count, a->key, a->before_start ? ", some while no monitor ran" : "",
		 a->lost_total);
}

static void message_shed(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	(void)sb;
	snprintf(buf, len, "%" PRIu64 " live sandboxes shed from the monitor's full table "
		 "(capacity %" PRIu64 "), the oldest idle first, latest %s; their "
		 "alerts closed, later events start them afresh (%" PRIu64 " since start)",
		 a->count, a->capacity, a->last_shed, a->shed_total);
}

static void message_dns(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	if (!strcmp(a->dns_signal, "distinct-names"))
		snprintf(buf, len, "sandbox %s: %" PRIu64 " distinct DNS names under %s within "
			 "%" PRIu64 " ms (threshold %" PRIu64 "), latest %s", sb, a->value,
			 a->dns_suffix, a->window_ms, a->threshold, a->dns_name);
	else
		snprintf(buf, len, "sandbox %s: DNS label %s of %u characters (%.2f bits each) under "
			 "%s", sb, a->dns_label, a->dns_label_len, a->dns_entropy, a->dns_suffix);
}

static void message_egress(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	char v[32], t[32], name[RF_DNS_RECORD_NAME_LEN + 4] = "";
	const char *dst = a->n_dests ? a->dests[0].key : "?";

	amount(a->value, "bytes", v, sizeof(v));
	amount(a->threshold, "bytes", t, sizeof(t));
	if (a->dns_name[0])
		snprintf(name, sizeof(name), " (%s)", a->dns_name);
	if (!strncmp(a->key, "dst:", 4))
		snprintf(buf, len, "sandbox %s: %s sent to %s%s within %" PRIu64
			 " ms (threshold %s)", sb, v, dst, name, a->window_ms, t);
	else
		snprintf(buf, len, "sandbox %s: %s sent within %" PRIu64 " ms (threshold %s), "
			 "latest to %s%s", sb, v, a->window_ms, t, dst, name);
}

static void message_exec(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	snprintf(buf, len, "sandbox %s: %s (pid %u) run by %s (pid %u), not a program of "
		 "monitor.exec", sb, a->proc.path, a->proc.pid,
		 a->proc.parent_known ? a->proc.parent_name : "?", a->proc.ppid);
}

/* "read,write", "exec", "open" (opened, nothing read or written yet). */
static const char *file_access_text(uint32_t acc, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", acc & RF_ACC_READ ? "read," : "",
		 acc & RF_ACC_WRITE ? "write," : "", acc & RF_ACC_EXEC ? "exec," : "");
	if (!buf[0])
		snprintf(buf, len, "open");
	else
		buf[strlen(buf) - 1] = 0;
	return buf;
}

static void message_files(const struct rf_alert *a, const char *sb, char *buf, size_t len)
{
	char acc[24];

	snprintf(buf, len, "sandbox %s: %s (%s) by %s (pid %u, parent %s pid %u), outside "
		 "monitor.files", sb, a->dests[0].path,
		 file_access_text(a->file_access, acc, sizeof(acc)), a->proc.name, a->proc.pid,
		 a->proc.parent_known ? a->proc.parent_name : "?", a->proc.ppid);
}

/* OCSF security_control: what the control did (action) and the outcome
 * (disposition). Denied bursts and refused syscalls were blocked by the
 * kernel; audit mode, alert-only profiles and resource thresholds only
 * detect; lost events and table sheds are the monitor's own health. */
static void control_outcome(const struct rf_alert *a, int *ret_action, int *ret_disposition)
{
	const struct rf_rule_info *r = rf_rule_info(a->rule);
	bool blocked;

	/* the monitor acted on the sandbox (monitor.on_alert): Denied, and
	 * Isolated (frozen) or Blocked (killed); Error when it could not */
	if (a->responded) {
		*ret_action = a->response_ok ? 2 : 1;
		*ret_disposition = !a->response_ok ? 27 :
				   a->response == RF_RESP_FREEZE ? 4 : 2;
		return;
	}
	switch (r ? r->control : RF_CONTROL_HEALTH) {
	case RF_CONTROL_VERDICT:
		blocked = !strcmp(a->verdict, "denied");
		break;
	case RF_CONTROL_REFUSED:
		blocked = a->refused;
		break;
	case RF_CONTROL_DETECT:
		blocked = false;
		break;
	case RF_CONTROL_HEALTH:
	default:
		*ret_action = 0;        /* Unknown */
		*ret_disposition = 17;  /* Logged */
		return;
	}
	*ret_action = blocked ? 2 : 1;          /* Denied : Allowed */
	*ret_disposition = blocked ? 2 : 15;    /* Blocked : Detected */
}

static const char *const action_names[] = { "Unknown", "Allowed", "Denied" };
static const char *disposition_name(int id)
{
	return id == 2 ? "Blocked" : id == 4 ? "Isolated" : id == 15 ? "Detected" :
	       id == 17 ? "Logged" : id == 27 ? "Error" : "Unknown";
}

/* The finding's uid: the detector's, prefixed with the host's identity so
 * findings from a fleet never collide. */
static void finding_uid(const struct rf_alert *a, const struct rf_alert_origin *og,
			char *buf, size_t len)
{
	const char *host = og->device_uid[0] ? og->device_uid : og->hostname;

	snprintf(buf, len, "%s%s%s", host, host[0] ? "-" : "", a->uid);
}

/* metadata.uid: one per record, a UUID-shaped digest of the finding's uid,
 * the record's sequence, phase and time (stable under --replay). */
static void record_uid(const struct rf_alert *a, const char *fuid, uint64_t seq, int64_t off,
		       char *buf, size_t len)
{
	uint64_t h[2];
	int i;

	for (i = 0; i < 2; i++) {
		h[i] = rf_hash64(fuid, strlen(fuid), RF_HASH_SEED + (uint64_t)i);
		h[i] = rf_hash64(&seq, sizeof(seq), h[i]);
		h[i] = rf_hash64(&a->phase, sizeof(a->phase), h[i]);
		h[i] = rf_hash64(&a->time_ns, sizeof(a->time_ns), h[i]);
		h[i] = rf_hash64(&off, sizeof(off), h[i]);
	}
	/* version 8 (custom), RFC 9562 variant */
	h[0] = (h[0] & ~0xf000ULL) | 0x8000ULL;
	h[1] = (h[1] & ~(3ULL << 62)) | (2ULL << 62);
	snprintf(buf, len, "%08llx-%04llx-%04llx-%04llx-%012llx",
		 (unsigned long long)(h[0] >> 32), (unsigned long long)((h[0] >> 16) & 0xffff),
		 (unsigned long long)(h[0] & 0xffff), (unsigned long long)(h[1] >> 48),
		 (unsigned long long)(h[1] & 0xffffffffffffULL));
}

/* OCSF metadata: product, profiles used, record uid, correlation labels. */
static json_t *metadata_json(const struct rf_alert *a, const char *fuid, uint64_t seq,
			     int64_t off)
{
	json_t *md, *labels;
	char uid[40];
	uint32_t i;

	record_uid(a, fuid, seq, off, uid, sizeof(uid));
	md = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:[s, s, s, s], s:I, s:s, s:s}",
		       "version", RF_OCSF_VERSION, "uid", uid,
		       "product", "name", "ringfence-monitor", "vendor_name", "ringfence",
		       "version", RF_MON_VERSION,
		       "profiles", "container", "datetime", "host", "security_control",
		       "sequence", (json_int_t)seq, "log_name", "alerts",
		       "log_provider", "ringfence-monitor");
	if (!md)
		return NULL;
	if (a->n_labels) {
		labels = json_array();
		for (i = 0; i < a->n_labels; i++)
			json_array_append_new(labels, json_string(a->labels[i]));
		json_object_set_new(md, "labels", labels);
	}
	/* W3C traceparent "00-<trace-id>-<parent-id>-<flags>": the trace id
	 * joins this finding to the trace of the tool call that started it */
	if (strlen(a->traceparent) >= 35)
		json_object_set_new(md, "correlation_uid", json_stringn(a->traceparent + 3, 32));
	return md;
}

/* The class, activity, time, severity and outcome fields at the top. No
 * status_id: a finding's status belongs to the consumer's workflow. */
static void ocsf_header(json_t *o, const struct rf_alert *a, uint64_t seq, int64_t off,
			const char *msg, const char *fuid)
{
	int sev = rf_alert_severity(a), action, disp;
	char type_name[64];

	json_object_set_new(o, "metadata", metadata_json(a, fuid, seq, off));
	json_object_set_new(o, "class_uid", json_integer(RF_OCSF_CLASS_UID));
	json_object_set_new(o, "class_name", json_string(RF_OCSF_CLASS_NAME));
	json_object_set_new(o, "category_uid", json_integer(RF_OCSF_CATEGORY_UID));
	json_object_set_new(o, "category_name", json_string(RF_OCSF_CATEGORY_NAME));
	json_object_set_new(o, "activity_id", json_integer(a->phase + 1));
	json_object_set_new(o, "activity_name", json_string(rf_phase_activity(a->phase)));
	/* OCSF: type_uid = class_uid * 100 + activity_id */
	json_object_set_new(o, "type_uid", json_integer(RF_OCSF_CLASS_UID * 100 + a->phase + 1));
	snprintf(type_name, sizeof(type_name), "%s: %s", RF_OCSF_CLASS_NAME,
		 rf_phase_activity(a->phase));
	json_object_set_new(o, "type_name", json_string(type_name));
	alert__set_time(o, "time", wall_ms(a->time_ns, off));
	json_object_set_new(o, "timezone_offset", json_integer(0));     /* times are UTC */
	json_object_set_new(o, "severity_id", json_integer(sev));
	json_object_set_new(o, "severity", json_string(rf_severity_caption(sev)));
	control_outcome(a, &action, &disp);
	json_object_set_new(o, "action_id", json_integer(action));
	json_object_set_new(o, "action", json_string(action_names[action]));
	json_object_set_new(o, "disposition_id", json_integer(disp));
	json_object_set_new(o, "disposition", json_string(disposition_name(disp)));
	json_object_set_new(o, "message", json_string(msg));
	json_object_set_new(o, "count", json_integer((json_int_t)a->count));
	alert__set_time(o, "start_time", wall_ms(a->first_ns, off));
	alert__set_time(o, "end_time", wall_ms(a->last_ns, off));
}

/* The host that alerted (the host profile); type unknown to the monitor. */
static json_t *device_json(const struct rf_alert_origin *og)
{
	json_t *d = json_pack("{s:i, s:s}", "type_id", 0, "type", "Unknown");

	if (d && og->hostname[0])
		json_object_set_new(d, "hostname", json_string(og->hostname));
	if (d && og->device_uid[0])
		json_object_set_new(d, "uid", json_string(og->device_uid));
	return d;
}

static json_t *finding_info(const struct rf_alert *a, int64_t off, const char *msg,
			    const char *fuid)
{
	char analytic_uid[64];
	json_t *fi;

	snprintf(analytic_uid, sizeof(analytic_uid), "rf-%s", rf_rule_id(a->rule));
	fi = json_pack("{s:s, s:s, s:{s:s, s:s, s:i, s:s, s:s}, s:[s]}",
		       "uid", fuid, "title", rf_rule_name(a->rule),
		       "analytic", "uid", analytic_uid, "name", rf_rule_name(a->rule),
		       "type_id", 1, "type", "Rule", "category", "ringfence",
		       "types", rf_rule_id(a->rule));
	json_object_set_new(fi, "desc", json_string(msg));
	alert__set_time(fi, "first_seen_time", wall_ms(a->first_ns, off));
	alert__set_time(fi, "last_seen_time", wall_ms(a->last_ns, off));
	return fi;
}

/* One evidence per destination of a burst (else one for its process). */
static void evidences_burst(const struct rf_alert *a, json_t *container, json_t *evs)
{
	uint32_t i;

	if (!a->n_dests) {
		json_array_append_new(evs, evidence(a, container));
		return;
	}
	for (i = 0; i < a->n_dests; i++)
		json_array_append_new(evs, dest_evidence(a, &a->dests[i], container));
}

static void evidences_syscall(const struct rf_alert *a, json_t *container, json_t *evs)
{
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
}

static void evidences_lost(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_t *ev = json_object();

	(void)container;
	json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I}", "hop", a->key,
			    "lost", (json_int_t)a->count,
			    "lost_total", (json_int_t)a->lost_total));
	json_array_append_new(evs, ev);
}

static void evidences_shed(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_t *ev = json_object();

	(void)container;
	json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I, s:I, s:s}",
			    "table", a->key, "shed", (json_int_t)a->count,
			    "shed_total", (json_int_t)a->shed_total,
			    "capacity", (json_int_t)a->capacity, "last_shed", a->last_shed));
	json_array_append_new(evs, ev);
}

/* The measurement is the evidence (OCSF evidences need more than the
 * container). */
static void evidences_resource(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_t *ev = evidence(a, container);

	json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I, s:s}",
			    "resource", a->key, "value", (json_int_t)a->value,
			    "threshold", (json_int_t)(a->rise ? a->baseline : a->threshold),
			    "unit", a->unit));
	json_array_append_new(evs, ev);
}

/* The name queried is the evidence (OCSF evidences: query). */
static void evidences_dns(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_t *ev = evidence(a, container);

	json_object_set_new(ev, "data", json_pack("{s:s, s:s, s:s}", "signal", a->dns_signal,
			    "suffix", a->dns_suffix, "name", a->dns_name));
	json_array_append_new(evs, ev);
}

/* The destination (its address, port and protocol) is the evidence, the
 * volume beside it. */
static void evidences_egress(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_t *ev = a->n_dests ? dest_evidence(a, &a->dests[0], container) :
				  evidence(a, container);

	if (a->n_dests && a->dns_name[0] && json_object_get(ev, "dst_endpoint"))
		json_object_set_new(json_object_get(ev, "dst_endpoint"), "hostname",
				    json_string(a->dns_name));
	json_object_set_new(ev, "data", json_pack("{s:s, s:I, s:I, s:I, s:s}",
			    "scope", strncmp(a->key, "dst:", 4) ? "sandbox" : "destination",
			    "bytes", (json_int_t)a->value, "threshold", (json_int_t)a->threshold,
			    "window_ms", (json_int_t)a->window_ms, "unit", "bytes"));
	json_array_append_new(evs, ev);
}

static void evidences_exec(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_array_append_new(evs, evidence(a, container));
}

/* The file and the process that opened it. */
static void evidences_files(const struct rf_alert *a, json_t *container, json_t *evs)
{
	json_array_append_new(evs, dest_evidence(a, &a->dests[0], container));
}

/* The rule's own fields, which OCSF has no place for. */
static void unmapped_burst(json_t *um, const struct rf_alert *a)
{
	json_t *dl = json_array();
	uint32_t i;

	json_object_set_new(um, "window_ms", json_integer((json_int_t)a->window_ms));
	json_object_set_new(um, "threshold", json_integer((json_int_t)a->threshold));
	json_object_set_new(um, "verdict", json_string(a->verdict));
	for (i = 0; i < a->n_dests; i++)
		json_array_append_new(dl, json_pack("{s:s, s:I}", "destination",
			a->dests[i].key, "count", (json_int_t)a->dests[i].count));
	json_object_set_new(um, "destinations", dl);
	json_object_set_new(um, "other_destinations", json_integer((json_int_t)a->other_dests));
}

static void unmapped_syscall(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "syscall", json_string(a->syscall));
	json_object_set_new(um, "syscall_nr", json_integer(a->syscall_nr));
	json_object_set_new(um, "refused", json_boolean(a->refused));
	json_object_set_new(um, "outcome", json_string(syscall_outcome_name(a)));
	json_object_set_new(um, "source", json_string(a->syscall_listener ?
					"seccomp-listener" : "syscall-sensor"));
	if (a->syscall_err) {
		char tmp[24];

		json_object_set_new(um, "errno", json_string(errno_name(a->syscall_err, tmp,
									  sizeof(tmp))));
	}
}

static void unmapped_resource(json_t *um, const struct rf_alert *a)
{
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
}

static void unmapped_dns(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "signal", json_string(a->dns_signal));
	json_object_set_new(um, "suffix", json_string(a->dns_suffix));
	json_object_set_new(um, "name", json_string(a->dns_name));
	if (!strcmp(a->dns_signal, "distinct-names")) {
		json_object_set_new(um, "distinct_names", json_integer((json_int_t)a->value));
		json_object_set_new(um, "threshold", json_integer((json_int_t)a->threshold));
		json_object_set_new(um, "window_ms", json_integer((json_int_t)a->window_ms));
	} else {
		json_object_set_new(um, "label", json_string(a->dns_label));
		json_object_set_new(um, "label_len", json_integer(a->dns_label_len));
		json_object_set_new(um, "entropy", json_real((double)(int)(a->dns_entropy * 100)
							       / 100));
	}
}

static void unmapped_egress(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "scope", json_string(strncmp(a->key, "dst:", 4) ? "sandbox" :
						     "destination"));
	json_object_set_new(um, "bytes", json_integer((json_int_t)a->value));
	json_object_set_new(um, "threshold", json_integer((json_int_t)a->threshold));
	json_object_set_new(um, "window_ms", json_integer((json_int_t)a->window_ms));
	if (a->n_dests)
		json_object_set_new(um, "destination", json_string(a->dests[0].key));
	if (a->dns_name[0])
		json_object_set_new(um, "name", json_string(a->dns_name));
}

static void unmapped_exec(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "program", json_string(a->proc.path));
	json_object_set_new(um, "pid", json_integer(a->proc.pid));
	json_object_set_new(um, "parent_pid", json_integer(a->proc.ppid));
	if (a->proc.parent_known) {
		json_object_set_new(um, "parent_name", json_string(a->proc.parent_name));
		json_object_set_new(um, "parent_path", json_string(a->proc.parent_path));
	}
}

static void unmapped_files(json_t *um, const struct rf_alert *a)
{
	char acc[24];

	json_object_set_new(um, "path", json_string(a->dests[0].path));
	json_object_set_new(um, "access", json_string(file_access_text(a->file_access, acc,
									 sizeof(acc))));
	json_object_set_new(um, "pid", json_integer(a->proc.pid));
	json_object_set_new(um, "parent_pid", json_integer(a->proc.ppid));
	if (a->proc.parent_known)
		json_object_set_new(um, "parent_name", json_string(a->proc.parent_name));
}

/* What the live monitor did to the sandbox (monitor.on_alert). */
static void unmapped_response(json_t *um, const struct rf_alert *a)
{
	json_t *r;

	if (a->response == RF_RESP_ALERT && !a->responded)
		return;
	r = json_pack("{s:s}", "on_alert", rf_response_name(a->response));
	/* the first record says what was done (a replay does nothing) */
	if (a->phase == RF_PHASE_OPEN)
		json_object_set_new(r, "performed", json_boolean(a->responded));
	if (a->responded) {
		json_object_set_new(r, "ok", json_boolean(a->response_ok));
		json_object_set_new(r, "result", json_string(a->response_result));
		if (a->response_tree[0])
			json_object_set_new(r, "process_tree", json_string(a->response_tree));
	}
	json_object_set_new(um, "response", r);
}

static void unmapped_lost(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "hop", json_string(a->key));
	json_object_set_new(um, "lost_total", json_integer((json_int_t)a->lost_total));
	json_object_set_new(um, "before_start", json_boolean(a->before_start));
}

static void unmapped_shed(json_t *um, const struct rf_alert *a)
{
	json_object_set_new(um, "table", json_string(a->key));
	json_object_set_new(um, "capacity", json_integer((json_int_t)a->capacity));
	json_object_set_new(um, "shed_total", json_integer((json_int_t)a->shed_total));
	json_object_set_new(um, "last_shed", json_string(a->last_shed));
}

/* Each rule's formatters, by the shape column of RF_RULES. */
static const struct shape {
	void (*message)(const struct rf_alert *a, const char *sb, char *buf, size_t len);
	void (*evidences)(const struct rf_alert *a, json_t *container, json_t *evs);
	void (*unmapped)(json_t *um, const struct rf_alert *a);
} shapes[] = {
#define SHAPE_ROW(e, id, name, sev, alt, sev_alt, control, shape) \
	[RF_RULE_##e] = { message_##shape, evidences_##shape, unmapped_##shape },
	RF_RULES(SHAPE_ROW)
#undef SHAPE_ROW
};
_Static_assert(sizeof(shapes) / sizeof(shapes[0]) == RF_RULE_MAX, "formatters for every rule");

static const struct shape *shape_of(const struct rf_alert *a)
{
	return (unsigned int)a->rule < RF_RULE_MAX ? &shapes[a->rule] : NULL;
}

static void message(const struct rf_alert *a, char *buf, size_t len)
{
	const struct shape *sh = shape_of(a);

	if (sh)
		sh->message(a, a->sandbox[0] ? a->sandbox : "host", buf, len);
	else
		snprintf(buf, len, "%s", rf_rule_name(a->rule));
}

static json_t *evidences(const struct rf_alert *a, json_t *container)
{
	const struct shape *sh = shape_of(a);
	json_t *evs = json_array();

	if (sh)
		sh->evidences(a, container, evs);
	else
		json_array_append_new(evs, evidence(a, container));
	return evs;
}

static json_t *unmapped(const struct rf_alert *a)
{
	json_t *um = json_pack("{s:s, s:s, s:s, s:I}", "rule", rf_rule_id(a->rule), "key", a->key,
			       "phase", rf_phase_name(a->phase),
			       "suppressed", (json_int_t)a->suppressed);

	if (a->traceparent[0])
		json_object_set_new(um, "traceparent", json_string(a->traceparent));
	if (a->sandbox[0]) {
		json_object_set_new(um, "sandbox", json_string(a->sandbox));
		json_object_set_new(um, "policy_id", json_string(a->policy_id));
		json_object_set_new(um, "cgroup_id", json_integer((json_int_t)a->cgroup_id));
	}
	if (shape_of(a))
		shape_of(a)->unmapped(um, a);
	unmapped_response(um, a);
	if (a->phase == RF_PHASE_CLOSE && a->close_reason)
		json_object_set_new(um, "close_reason", json_string(a->close_reason));
	return um;
}

json_t *alert__ocsf(const struct rf_alert *a, uint64_t seq, int64_t off,
		    const struct rf_alert_origin *og)
{
	_cleanup_json_ json_t *container = NULL;
	json_t *o;
	char msg[512], fuid[128];

	o = json_object();
	if (!o)
		return NULL;
	message(a, msg, sizeof(msg));
	finding_uid(a, og, fuid, sizeof(fuid));
	ocsf_header(o, a, seq, off, msg, fuid);
	json_object_set_new(o, "finding_info", finding_info(a, off, msg, fuid));
	json_object_set_new(o, "device", device_json(og));
	if (a->sandbox[0])
		container = json_pack("{s:s, s:s}", "uid", a->sandbox, "name", a->sandbox);
	json_object_set_new(o, "evidences", evidences(a, container));
	json_object_set_new(o, "unmapped", unmapped(a));
	return o;
}

char *alert__json_line(const json_t *o)
{
	_cleanup_free_ char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	char *line;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line)
		return NULL;
	s = NULL;   /* moved into line */
	line[n] = '\n';
	line[n + 1] = 0;
	return line;
}

char *alert__line(const struct rf_alert *a, uint64_t seq, int64_t off,
		  const struct rf_alert_origin *og)
{
	_cleanup_json_ json_t *o = alert__ocsf(a, seq, off, og);

	return alert__json_line(o);
}

/* RF_MON_APP_ID_STR's bytes (alert.h) */
#define RF_MON_APP_ID SD_ID128_MAKE(21, 34, 5c, 98, 27, b0, 4b, b2, a8, 43, 37, af, fb, 03, d8, f7)

void alert__origin_local(struct rf_alert_origin *ret)
{
	sd_id128_t id;

	memset(ret, 0, sizeof(*ret));
	if (gethostname(ret->hostname, sizeof(ret->hostname) - 1))
		ret->hostname[0] = 0;
	/* no machine id (an empty /etc/machine-id): the hostname names it */
	if (sd_id128_get_machine_app_specific(RF_MON_APP_ID, &id) == 0)
		sd_id128_to_string(id, ret->device_uid);
}
